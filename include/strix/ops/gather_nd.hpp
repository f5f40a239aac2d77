#pragma once
/// gather-nd (ONNX GatherND): the last dimension of the indices holds tuples of k indices into
/// the input's axes b .. b+k-1 (after b batch dimensions shared by the input and the indices);
/// each tuple selects a slice input[batch..., tuple..., :] and the output has the shape
/// indices[:-1] ++ input[b+k:].

#include "strix/cpu/executor.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a gather-nd. Structural: usable as a template argument.
struct gather_nd_desc {
    int batch_dimensions = 0;                  ///< leading dimensions shared by the input and the indices
    index_policy policy = index_policy::error; ///< what an out-of-range index does
};

/// The rules of gather-nd (ONNX GatherND): input rank r >= 1, indices rank q >= 1, batch
/// dimensions b < min(q, r) equal on both, tuple length k = indices[q-1] in [1, r-b]; the output
/// is indices[0..q-1) ++ input[b+k..r), of at most 2^63 - 1 elements.
namespace detail {
/// Whether index tuples (the last dimension of `indices`) exist: indices[:-1] has elements.
constexpr bool has_tuples(const shape& indices) {
    for (int i = 0; i + 1 < indices.rank; ++i)
        if (indices[i] == 0) return false;
    return true;
}
} // namespace detail

constexpr inferred gather_nd_rule(const shape& input, const shape& indices, const gather_nd_desc& d) {
    inferred res;
    const int r = input.rank, q = indices.rank, b = d.batch_dimensions;
    auto fail = [&](rule code, int operand, int axis, std::int64_t value = 0, value_kind what = value_kind::none) {
        res.v = verdict{code, operand, axis, value, what};
        return res;
    };
    if (r < 1) return fail(rule::gather_nd_input_rank, 0, -1);
    if (q < 1) return fail(rule::gather_nd_indices_rank, 1, -1);
    if (b < 0 || b >= q || b >= r) return fail(rule::gather_nd_batch_range, 1, -1, b, value_kind::batch_dimensions);
    for (int i = 0; i < b; ++i)
        if (indices[i] != input[i]) return fail(rule::gather_nd_batch_shape, 1, i, indices[i], value_kind::size);
    const std::int64_t k = indices[q - 1];
    if (k < 1 || k > r - b) return fail(rule::gather_nd_tuple_length, 1, q - 1, k, value_kind::tuple_length);
    const std::int64_t out_rank = (q - 1) + (r - b - k);
    if (out_rank > max_rank) return fail(rule::gather_nd_output_rank, 1, -1, out_rank, value_kind::rank);
    for (int i = 0; i + 1 < q; ++i) res.out.push_back(indices[i]);
    for (int i = b + static_cast<int>(k); i < r; ++i) res.out.push_back(input[i]);
    if (res.out.checked_count() < 0) return fail(rule::gather_nd_output_count, 1, -1);
    return res;
}

/// The rule on the axes gather-nd's tuples index (of shapes that pass gather_nd_rule): where
/// tuples exist, none of those axes is empty.
constexpr verdict gather_nd_axis_rule(const shape& input, const shape& indices, const gather_nd_desc& d) {
    if (!detail::has_tuples(indices)) return {};
    for (int j = 0; j < indices[indices.rank - 1]; ++j)
        if (input[d.batch_dimensions + j] == 0) return {rule::gather_nd_empty_axis, -1, d.batch_dimensions + j};
    return {};
}

/// The element-type rules of gather-nd.
constexpr verdict gather_nd_type_rule(dtype input, dtype indices, dtype output) {
    if (!is_index_type(indices)) return {rule::gather_nd_index_type, 1};
    if (output != input) return {rule::gather_nd_dtype, 2};
    return {};
}

namespace detail {
/// The output rank of a gather-nd of static ranks whose tuple length K is static.
template <int InRank, int IdxRank, std::int64_t K, int B>
inline constexpr int gather_nd_rank = static_cast<int>((IdxRank - 1) + (InRank - B - K));
} // namespace detail

/// Output extents of a gather-nd: static when both operands' extents are (checked at compile
/// time); otherwise the indices' last extent (the tuple length) must be static, so that the
/// output rank is, and the rest is checked at run time.
template <gather_nd_desc D, extents_type In, extents_type Idx>
constexpr auto gather_nd_extents(const In& input, const Idx& indices) {
    if constexpr (In::is_static && Idx::is_static) {
        constexpr inferred r = gather_nd_rule(In{}.to_shape(), Idx{}.to_shape(), D);
        static_enforce<r.v>();
        if constexpr (r.v.ok()) return static_extents<r.out>{};
    } else {
        static_enforce<verdict{(Idx::rank >= 1 && Idx::static_extent(Idx::rank - 1) != dynamic_extent) ? rule::ok : rule::gather_nd_static_tuple, 1}>();
        constexpr int rank = detail::gather_nd_rank<In::rank, Idx::rank, Idx::static_extent(Idx::rank - 1), D.batch_dimensions>;
        static_enforce<verdict{rank <= max_rank ? rule::ok : rule::gather_nd_output_rank, 1}>();
        if constexpr (rank <= max_rank && rank >= 0) {
            const inferred r = gather_nd_rule(input.to_shape(), indices.to_shape(), D);
            const operand_info ops[] = {{"input", input.to_shape()}, {"indices", indices.to_shape()}};
            enforce(r.v, ops);
            return dextents<rank>(r.out);
        }
    }
}

namespace detail {

/// The move plan of a gather-nd. Over the output's dimensions: the tuple dimensions (batch ones
/// also affine in the input) take their source offset from a table keyed in C order of
/// indices[:-1] — `table` on the host, or int64 offsets minus `bias` at `device_table`, read by
/// the device — and the trailing dimensions are affine in the input.
template <class = void>
plan::move_plan lower_gather_nd(const any_cview& input, const shape& indices, const any_view& output, const gather_nd_desc& d,
                                       std::vector<std::int64_t> table, const std::byte* device_table = nullptr, std::int64_t bias = 0) {
    const int q = indices.rank, b = d.batch_dimensions;
    const auto k = static_cast<int>(indices[q - 1]);
    const auto es = static_cast<std::int64_t>(input.element_size());
    plan::move_plan p;
    p.elem = input.element_size();
    p.src = static_cast<const std::byte*>(input.data());
    p.dst = static_cast<std::byte*>(output.data());
    if (output.count() == 0) return p;
    shape lead;
    for (int i = 0; i + 1 < q; ++i) lead.push_back(indices[i]);
    const auto kst = c_strides(lead);
    const std::int64_t key_unit = device_table ? 8 : 1;
    for (int i = 0; i + 1 < q; ++i) {
        auto& dim = p.dims[static_cast<std::size_t>(p.rank++)];
        dim.size = indices[i];
        dim.dst = output.stride(i) * es;
        dim.src = i < b ? input.stride(i) * es : 0;
        dim.key = kst[static_cast<std::size_t>(i)] * key_unit;
    }
    for (int i = b + k; i < input.rank(); ++i) {
        auto& dim = p.dims[static_cast<std::size_t>(p.rank)];
        dim.size = input.size(i);
        dim.dst = output.stride(p.rank) * es;
        dim.src = input.stride(i) * es;
        ++p.rank;
    }
    if (device_table) {
        p.index = device_table;
        p.index_type = dtype::int64;
        p.axis_size = std::numeric_limits<std::int64_t>::max();
        p.axis_stride = 1;
        p.clamp = true; // resolved already: the offsets are never out of range
        p.src = plan::moved(p.src, bias);
    } else {
        p.table = std::move(table);
    }
    plan::collapse(p);
    return p;
}

/// Every run-time check of a gather-nd; no `output`: of the one an allocating call makes.
template <class = void>
checked_call check_gather_nd(const any_cview& input, const any_cview& indices, const any_view* output, const gather_nd_desc& d) {
    return check_gathering("gather-nd", input, indices, output, rule::gather_nd_output_shape,
                           [&](const shape& i, const shape& x) { return gather_nd_rule(i, x, d); }, gather_nd_type_rule,
                           [&](const shape& i, const shape& x, int) { return gather_nd_axis_rule(i, x, d); },
                           ", batch dimensions " + std::to_string(d.batch_dimensions));
}

/// Runs a checked gather-nd on the CPU.
template <class = void>
void run_gather_nd(const checked_call& c, const any_cview& input, const any_cview& indices, const any_view& output, const gather_nd_desc& d,
                   const cpu::options& opt) {
    const int q = indices.rank();
    const auto axes = tuple_axes_of(input, d.batch_dimensions, indices.size(q - 1));
    // the tuples are resolved (and, under index_policy::error, checked) even when the output is
    // empty: a slice of no elements at a row that does not exist is still an error
    auto table = output.count() || d.policy == index_policy::error
                     ? resolve_tuples(indices, axes.n, axes.stride, d.policy, "gather-nd", axes.first, c.context)
                     : std::vector<std::int64_t>{};
    cpu::execute(lower_gather_nd(input, indices.sizes(), output, d, std::move(table)), opt);
}

} // namespace detail


/// gather-nd as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<gather_nd_desc> : detail::indexed_operator<gather_nd_desc, &detail::check_gather_nd<>, &detail::run_gather_nd<>> {
    static constexpr std::string_view name = "gather-nd";
    static constexpr op_form form = op_form::indexed;
    static constexpr std::tuple settings{setting{"batch-dimensions", &gather_nd_desc::batch_dimensions, "B"},
                                         setting{"out-of-range", &gather_nd_desc::policy, "error|clamp"}};
    static constexpr std::string_view about =
        "ONNX GatherND: the last dimension of I holds tuples of k indices into X's axes B..B+k-1 (after\n"
        "B batch dimensions shared by X and I, default 0); output shape I.shape[:-1] + X.shape[B+k:].\n";
    template <gather_nd_desc D, typed_view In, typed_view Idx, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<gather_nd_type_rule(view_dtype<In>, view_dtype<Idx>, view_dtype<Out>)>();
        if constexpr (all_static<In, Idx>) {
            output_check<gather_nd_rule(static_shape<In>(), static_shape<Idx>(), D), rule::gather_nd_output_shape, 2, Out>();
        } else {
            // the tuple length, the indices' last extent, decides the output's rank
            constexpr std::int64_t k = Idx::rank >= 1 ? Idx::extents_type::static_extent(Idx::rank - 1) : dynamic_extent;
            static_enforce<rank_verdict(k != dynamic_extent, rule::gather_nd_static_tuple, 1)>();
            if constexpr (k != dynamic_extent)
                static_enforce<rank_verdict(gather_nd_rank<In::rank, Idx::rank, k, D.batch_dimensions> == Out::rank, rule::gather_nd_output_shape, 2)>();
        }
    }
};

/// Gathers slices of `input` addressed by the index tuples in the last dimension of `indices`
/// into `output` (any strides), into a new C-order host tensor, or between typed views
/// (`gather_nd<D>(...)`: the indices' last extent must be static). Throws strix::error when a
/// rule breaks, when the output overlaps itself or an operand, or (index_policy::error) when an
/// index is out of range, before anything is written.
STRIX_CPU_CALLS(gather_nd, indexed)

} // namespace strix
