#pragma once
/// gather: `output[..., j..., ...] = input[..., indices[j...], ...]` along an axis, in the natural
/// form (ONNX Gather, numpy.take) or DirectML's IndexDimensions form.

#include "strix/cpu/indices.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a gather. Structural: usable as a template argument for compile-time checks.
struct gather_desc {
    std::int64_t axis = 0;                     ///< axis of the input, may be negative
    int index_dimensions = -1;                 ///< -1: natural form; K >= 0: DirectML form
    index_policy policy = index_policy::error; ///< what an out-of-range index does
};

/// The rules of gather: validates the input and indices shapes against `d` and infers the output
/// shape. The same function runs in constant expressions and at run time.
///
/// Natural form: output = input[0..axis) ++ indices ++ input(axis..r).
/// DirectML form (K = index_dimensions): indices have the input's rank r with only the last K
/// dimensions meaningful; the full shape input[0..axis) ++ indices[r-K..r) ++ input(axis..r) is
/// right-aligned to rank r by cropping leading 1s of the input.
/// Either way the output must have at most 2^63 - 1 elements.
constexpr inferred gather_rule(const shape& input, const shape& indices, const gather_desc& d) {
    inferred res;
    const int r = input.rank;
    auto fail = [&](rule code, int operand, int axis, std::int64_t value = 0, value_kind what = value_kind::none) {
        res.v = verdict{code, operand, axis, value, what};
        return res;
    };
    if (r < 1) return fail(rule::gather_input_rank, 0, -1);
    const int axis = detail::normalize_axis(d.axis, r); // the one place: res.axis carries it on
    if (axis < 0) return fail(rule::gather_axis_range, 0, -1, d.axis, value_kind::given_axis);
    res.axis = axis;
    if (d.index_dimensions < -1) return fail(rule::gather_k_range, 1, -1, d.index_dimensions, value_kind::index_dimensions);
    if (d.index_dimensions < 0) {
        if (r + indices.rank - 1 > max_rank) return fail(rule::gather_output_rank, 1, axis, r + indices.rank - 1, value_kind::rank);
        for (int i = 0; i < axis; ++i) res.out.push_back(input[i]);
        for (int i = 0; i < indices.rank; ++i) res.out.push_back(indices[i]);
        for (int i = axis + 1; i < r; ++i) res.out.push_back(input[i]);
        if (res.out.checked_count() < 0) return fail(rule::gather_output_count, 1, axis);
        return res;
    }
    const int k = d.index_dimensions;
    if (indices.rank != r) return fail(rule::gather_k_same_rank, 1, -1, indices.rank, value_kind::rank);
    if (k > r) return fail(rule::gather_k_range, 1, -1, k, value_kind::index_dimensions);
    for (int i = 0; i < r - k; ++i)
        if (indices[i] != 1) return fail(rule::gather_k_leading_ones, 1, i, indices[i], value_kind::size);
    int lead = 0;
    while (lead < r && input[lead] == 1) ++lead;
    if ((r - lead) + k - 1 > r) return fail(rule::gather_k_original_rank, 0, -1, k, value_kind::index_dimensions);
    // the full shape has rank r + k - 1; crop k - 1 leading 1s of the input before the axis
    const int crop = k - 1;
    if (crop > 0) {
        if (axis < crop) return fail(rule::gather_k_crop, 0, axis, k, value_kind::index_dimensions);
        for (int i = 0; i < crop; ++i)
            if (input[i] != 1) return fail(rule::gather_k_crop, 0, i, input[i], value_kind::size);
    }
    if (crop < 0) res.out.push_back(1); // K = 0: the full shape has rank r - 1
    for (int i = crop > 0 ? crop : 0; i < axis; ++i) res.out.push_back(input[i]);
    for (int i = r - k; i < r; ++i) res.out.push_back(indices[i]);
    for (int i = axis + 1; i < r; ++i) res.out.push_back(input[i]);
    if (res.out.checked_count() < 0) return fail(rule::gather_output_count, 1, axis);
    return res;
}

/// The rule on gather's indexed axis (of shapes that pass gather_rule; `axis` as gather_rule
/// normalised it): an empty axis takes no index. Apart from gather_rule, which infers the
/// output's shape whether or not an index exists.
constexpr verdict gather_axis_rule(const shape& input, const shape& indices, const gather_desc& d, int axis) {
    const int lead = d.index_dimensions < 0 ? 0 : indices.rank - d.index_dimensions; // the indices that index
    if (input[axis] == 0 && detail::has_elements(indices, lead)) return {rule::gather_empty_axis, -1, axis};
    return {};
}

/// The element-type rules of gather.
constexpr verdict gather_type_rule(dtype input, dtype indices, dtype output) {
    if (!is_index_type(indices)) return {rule::gather_index_type, 1};
    if (output != input) return {rule::gather_dtype, 2};
    return {};
}

/// Output extents of a gather: static (checked at compile time) when both operands' extents are
/// static, dynamic (checked at run time, throws strix::error) otherwise. The output rank is
/// always static.
namespace detail {
/// The output rank of a gather, known from the operand ranks alone.
template <gather_desc D, int InRank, int IdxRank>
inline constexpr int gather_rank = D.index_dimensions < 0 ? InRank + IdxRank - 1 : InRank;
} // namespace detail

/// Output extents of a gather: static (checked at compile time) when both operands' extents are
/// static, dynamic (checked at run time, throws strix::error) otherwise. The output rank is
/// always static.
template <gather_desc D, extents_type In, extents_type Idx>
constexpr auto gather_extents(const In& input, const Idx& indices) {
    if constexpr (In::is_static && Idx::is_static) {
        constexpr inferred r = gather_rule(In{}.to_shape(), Idx{}.to_shape(), D);
        static_enforce<r.v>();
        if constexpr (r.v.ok()) return static_extents<r.out>{};
    } else {
        constexpr int rank = detail::gather_rank<D, In::rank, Idx::rank>;
        static_enforce<verdict{rank <= max_rank ? rule::ok : rule::gather_output_rank, 1}>();
        if constexpr (rank <= max_rank) {
            const inferred r = gather_rule(input.to_shape(), indices.to_shape(), D);
            const operand_info ops[] = {{"input", input.to_shape()}, {"indices", indices.to_shape()}};
            enforce(r.v, ops);
            return dextents<rank>(r.out);
        }
    }
}

namespace detail {

/// The meaningful part of a gather's indices as a view: all of them in the natural form, the
/// last K dimensions in the DirectML form. Index messages name positions in this view.
template <class = void>
any_cview gather_index_view(const any_cview& indices, const gather_desc& d) {
    const int k = d.index_dimensions < 0 ? indices.rank() : d.index_dimensions;
    shape isz;
    std::array<std::int64_t, max_rank> ist{};
    for (int i = indices.rank() - k; i < indices.rank(); ++i) {
        ist[static_cast<std::size_t>(isz.rank)] = indices.stride(i);
        isz.push_back(indices.size(i));
    }
    return any_cview(indices.data(), indices.type(), isz, ist);
}

template <class = void>
plan::move_plan lower_gather(const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d,
                                    const checked_call& c, index_reading reading = index_reading::host_table) {
    const int r = input.rank();
    const int axis = c.axis;
    const int k = d.index_dimensions < 0 ? indices.rank() : d.index_dimensions;
    const any_cview idx = gather_index_view(indices, d); // rank k
    const shape& isz = idx.sizes();
    const auto& ist = idx.strides();
    const auto es = static_cast<std::int64_t>(input.element_size());

    plan::move_plan p;
    p.elem = input.element_size();
    p.src = static_cast<const std::byte*>(input.data());
    p.dst = static_cast<std::byte*>(output.data());
    if (output.count() == 0) return p; // (an output with elements has indices: the rules saw to an empty axis)
    std::array<std::int64_t, max_rank> kst{};
    if (reading == index_reading::host_table) {
        p.table = resolve_indices(idx, input.size(axis), input.stride(axis) * es, d.policy, "gather", axis, c.context);
        kst = c_strides(isz);
    } else {
        read_indices_in_place(p, indices, input.size(axis), input.stride(axis) * es, d.policy);
        for (int j = 0; j < k; ++j) kst[static_cast<std::size_t>(j)] = ist[static_cast<std::size_t>(j)] * static_cast<std::int64_t>(indices.element_size());
    }

    // full dims: input[0..axis) ++ idx ++ input(axis..r), aligned to the output's last dims
    const int full = axis + k + (r - axis - 1);
    const int shift = output.rank() - full; // output dim = full dim + shift
    auto add = [&](int f, std::int64_t size, std::int64_t src, std::int64_t key) {
        const int o = f + shift;
        if (o < 0) return; // a cropped leading 1
        auto& dim = p.dims[static_cast<std::size_t>(p.rank++)];
        dim.size = size;
        dim.dst = output.stride(o) * es;
        dim.src = src;
        dim.key = key;
    };
    for (int i = 0; i < axis; ++i) add(i, input.size(i), input.stride(i) * es, 0);
    for (int j = 0; j < k; ++j) add(axis + j, isz[j], 0, kst[static_cast<std::size_t>(j)]);
    for (int i = axis + 1; i < r; ++i) add(i - 1 + k, input.size(i), input.stride(i) * es, 0);
    plan::collapse(p);
    return p;
}

/// Every run-time check of a gather (views, rules, types, output shape, aliasing, and indices
/// into an axis of size 0, even where the output has no element to read them for); no `output`:
/// of the one an allocating call makes (see check_gathering).
template <class = void>
checked_call check_gather(const any_cview& input, const any_cview& indices, const any_view* output, const gather_desc& d) {
    return check_gathering("gather", input, indices, output, rule::gather_output_shape,
                           [&](const shape& i, const shape& x) { return gather_rule(i, x, d); }, gather_type_rule,
                           [&](const shape& i, const shape& x, int axis) { return gather_axis_rule(i, x, d, axis); });
}

/// Runs a checked gather (`c` from check_gather) on the CPU.
template <class = void>
void run_gather(const checked_call& c, const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d,
                const cpu::options& opt) {
    // The executor reads and resolves each index where it lies: building a table of resolved
    // offsets first cost a pass that writes as many bytes as it reads (and a fresh allocation).
    plan::move_plan p = lower_gather(input, indices, output, d, c, index_reading::device);
    // every index is checked, also where the output is empty and the plan reads none of them
    // (numpy.take refuses those too); indices found in [0, n) are read as unsigned (see scatter)
    const std::int64_t n = input.size(c.axis);
    execute_indexed(std::move(p), indices, n, d.policy, opt, [&] { resolve_indices(gather_index_view(indices, d), n, 1, d.policy, "gather", c.axis, c.context); });
}

} // namespace detail


/// gather as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<gather_desc> : detail::indexed_operator<gather_desc, &detail::check_gather<>, &detail::run_gather<>> {
    static constexpr std::string_view name = "gather";
    static constexpr op_form form = op_form::indexed;
    static constexpr std::tuple settings{setting{"axis", &gather_desc::axis, "A", true},
                                         setting{"index-dimensions", &gather_desc::index_dimensions, "K"},
                                         setting{"out-of-range", &gather_desc::policy, "error|clamp"}};
    static constexpr std::string_view about =
        "Natural form (numpy.take, ONNX Gather): output = X.shape[:A] + I.shape + X.shape[A+1:].\n"
        "With index-dimensions K (DirectML form): X, I and the output share one rank r; only the\n"
        "last K dimensions of I are meaningful (the leading ones are 1).\n"
        "The axis may be negative; indices are int32, int64, uint32 or uint64; negative indices count\n"
        "from the end.\n";
    template <gather_desc D, typed_view In, typed_view Idx, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<gather_type_rule(view_dtype<In>, view_dtype<Idx>, view_dtype<Out>)>();
        if constexpr (all_static<In, Idx>) output_check<gather_rule(static_shape<In>(), static_shape<Idx>(), D), rule::gather_output_shape, 2, Out>();
        else static_enforce<(gather_rank<D, In::rank, Idx::rank> > max_rank) ? verdict{rule::gather_output_rank, 1}
                            : rank_verdict(gather_rank<D, In::rank, Idx::rank> == Out::rank, rule::gather_output_shape, 2)>();
    }
};

/// Gathers `input` along `d.axis` at `indices` into `output` (any strides), or into a new
/// C-order host tensor of the inferred shape, or between typed views (`gather<D>(...)`, whose
/// static extents and element types are checked at compile time). Throws strix::error when a
/// rule breaks (naming the operator, operand, axis and shapes), when the output overlaps itself
/// or an input, or — under index_policy::error — when an index is out of range, before
/// anything is written.
STRIX_CPU_CALLS(gather, indexed)

} // namespace strix
