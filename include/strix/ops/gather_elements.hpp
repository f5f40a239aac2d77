#pragma once
/// gather-elements (ONNX GatherElements, numpy.take_along_axis): the output has the indices'
/// shape, and `output[i][j][k] = input[indices[i][j][k]][j][k]` for axis 0 (likewise for any axis).

#include "strix/cpu/indices.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a gather-elements. Structural: usable as a template argument.
struct gather_elements_desc {
    std::int64_t axis = 0;                     ///< may be negative
    index_policy policy = index_policy::error; ///< what an out-of-range index does
};

/// The rules of gather-elements: the indices have the input's rank and are not larger than the
/// input off the axis; the output has the indices' shape.
constexpr inferred gather_elements_rule(const shape& input, const shape& indices, const gather_elements_desc& d) {
    inferred res;
    const int r = input.rank;
    if (r < 1) {
        res.v = {rule::gather_elements_input_rank, 0};
        return res;
    }
    const int axis = detail::normalize_axis(d.axis, r);
    if (axis < 0) {
        res.v = {rule::gather_elements_axis_range, 0, -1, d.axis, value_kind::given_axis};
        return res;
    }
    res.axis = axis; // normalised here, once: the checked call carries it on
    if (indices.rank != r) {
        res.v = {rule::gather_elements_rank, 1, -1, indices.rank, value_kind::rank};
        return res;
    }
    for (int i = 0; i < r; ++i)
        if (i != axis && indices[i] > input[i]) {
            res.v = {rule::gather_elements_indices_larger, 1, i, indices[i], value_kind::size};
            return res;
        }
    res.out = indices;
    return res;
}

/// The rule on gather-elements' indexed axis (of shapes that pass gather_elements_rule; `axis` as
/// it normalised it): an empty axis takes no index.
constexpr verdict gather_elements_axis_rule(const shape& input, const shape& indices, int axis) {
    if (input[axis] == 0 && detail::has_elements(indices)) return {rule::gather_elements_empty_axis, -1, axis};
    return {};
}

/// The element-type rules of gather-elements.
constexpr verdict gather_elements_type_rule(dtype input, dtype indices, dtype output) {
    if (!is_index_type(indices)) return {rule::gather_elements_index_type, 1};
    if (output != input) return {rule::gather_elements_dtype, 2};
    return {};
}

/// Output extents of a gather-elements: the indices' extents, after the rules (at compile time
/// when both operands are static, else at run time).
template <gather_elements_desc D, extents_type In, extents_type Idx>
constexpr auto gather_elements_extents(const In& input, const Idx& indices) {
    if constexpr (In::is_static && Idx::is_static) {
        constexpr inferred r = gather_elements_rule(In{}.to_shape(), Idx{}.to_shape(), D);
        static_enforce<r.v>();
        return Idx{};
    } else {
        const inferred r = gather_elements_rule(input.to_shape(), indices.to_shape(), D);
        const operand_info ops[] = {{"input", input.to_shape()}, {"indices", indices.to_shape()}};
        enforce(r.v, ops);
        return indices;
    }
}

namespace detail {

/// The move plan of a gather-elements: over the output's (= the indices') dimensions, the source
/// is affine on every axis but the gathered one, which takes the resolved index.
template <class = void>
plan::move_plan lower_gather_elements(const any_cview& input, const any_cview& indices, const any_view& output,
                                             const gather_elements_desc& d, const checked_call& c,
                                             index_reading reading = index_reading::host_table) {
    const int r = input.rank();
    const int axis = c.axis;
    const auto es = static_cast<std::int64_t>(input.element_size());
    plan::move_plan p = copy_plan(input, output);
    if (output.count() == 0) {
        p.rank = 0;
        return p;
    }
    p.dims[static_cast<std::size_t>(axis)].src = 0;
    if (reading == index_reading::host_table) {
        p.table = resolve_indices(indices, input.size(axis), input.stride(axis) * es, d.policy, "gather-elements", axis, c.context);
        const auto kst = c_strides(indices.sizes());
        for (int i = 0; i < r; ++i) p.dims[static_cast<std::size_t>(i)].key = kst[static_cast<std::size_t>(i)];
    } else {
        read_indices_in_place(p, indices, input.size(axis), input.stride(axis) * es, d.policy);
        const auto ies = static_cast<std::int64_t>(indices.element_size());
        for (int i = 0; i < r; ++i) p.dims[static_cast<std::size_t>(i)].key = indices.stride(i) * ies;
    }
    plan::collapse(p);
    return p;
}

/// Every run-time check of a gather-elements; no `output`: of the one an allocating call makes.
template <class = void>
checked_call check_gather_elements(const any_cview& input, const any_cview& indices, const any_view* output, const gather_elements_desc& d) {
    return check_gathering("gather-elements", input, indices, output, rule::gather_elements_output_shape,
                           [&](const shape& i, const shape& x) { return gather_elements_rule(i, x, d); }, gather_elements_type_rule,
                           [](const shape& i, const shape& x, int axis) { return gather_elements_axis_rule(i, x, axis); });
}

/// The width (1 or 2 bytes) of the compact copy of checked indices a gather-elements reads in
/// place of its indices, or 0 for none. The check before the first write reads every index and
/// the gather reads them again; where the indices are large the second read goes to memory,
/// and on int64 indices it moved a third of the call's bytes (indices [8, 4, 512, 256] into
/// rows of 256 float32). A compact copy made as the check reads (indices_compacted) makes that read
/// an eighth of itself, for a write of the same size. Only where AVX2 packs and unpacks them,
/// the indices reach `min_bytes` (cpu::options::compact_min_bytes: below, the check leaves
/// them in the caches and the copy costs more than it saves), an axis of up to
/// 65536, and elements of 4 or 8 bytes (the copy is then at most half the output, and the
/// compact walks stay few: compile time).
/// The copy lives in the calling thread's scratch buffer, kept for the next call
/// (cpu::release_scratch): a fresh one, page-faulted on every call, would cost a gather more
/// than the copy saves (bench/NOTES.md, "Figures behind the operators' CPU paths").
template <class = void>
int compact_index_width(const any_cview& input, const any_cview& indices, std::int64_t axis_size, std::int64_t min_bytes) {
    if (min_bytes < 0 || !cpu::detail::cpu_has_avx2()) return 0;
    const std::int64_t count = indices.count();
    const auto ies = static_cast<std::int64_t>(indices.element_size());
    if (count * ies < min_bytes) return 0;
    const auto es = input.element_size();
    if (es != 4 && es != 8) return 0; // the executor's compact walks (cpu::execute<true>)
    const int w = axis_size <= 256 ? 1 : (axis_size <= 65536 ? 2 : 0);
    return w != 0 && w < ies ? w : 0;
}

/// Runs a checked gather-elements on the CPU.
template <class = void>
void run_gather_elements(const checked_call& c, const any_cview& input, const any_cview& indices, const any_view& output,
                         const gather_elements_desc& d, const cpu::options& opt) {
    if (output.count() != 0 && d.policy == index_policy::error) {
        const std::int64_t n = input.size(c.axis);
        const int w = compact_index_width(input, indices, n, opt.compact_min_bytes);
        // (a thread's first call that would grow the buffer goes without: see release_scratch)
        if (std::byte* copy = w ? cpu::detail::repeated_scratch(static_cast<std::size_t>(indices.count() * w)) : nullptr) {
            // every index checked in [0, n) as it is compacted; else (a negative or a bad index)
            // the general path below finds which
            const bool ok = w == 1 ? indices_compacted(indices, n, opt, reinterpret_cast<std::uint8_t*>(copy))
                                   : indices_compacted(indices, n, opt, reinterpret_cast<std::uint16_t*>(copy));
            if (ok) {
                const any_cview compact(copy, w == 1 ? dtype::uint8 : dtype::uint16, indices.sizes());
                cpu::execute<true>(lower_gather_elements(input, compact, output, d, c, index_reading::device), opt);
                return;
            }
        }
    }
    // The executor reads and resolves each index where it lies (see gather)
    plan::move_plan p = lower_gather_elements(input, indices, output, d, c, index_reading::device);
    // indices found in [0, n) are read as unsigned (see scatter)
    const auto policy = p.rank > 0 ? d.policy : index_policy::clamp; // (no element: no index to check)
    const std::int64_t n = p.axis_size;
    execute_indexed(std::move(p), indices, n, policy, opt, [&] { lower_gather_elements(input, indices, output, d, c); });
}

} // namespace detail


/// gather-elements as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<gather_elements_desc> : detail::indexed_operator<gather_elements_desc, &detail::check_gather_elements<>, &detail::run_gather_elements<>> {
    static constexpr std::string_view name = "gather-elements";
    static constexpr op_form form = op_form::indexed;
    static constexpr std::tuple settings{setting{"axis", &gather_elements_desc::axis, "A", true},
                                         setting{"out-of-range", &gather_elements_desc::policy, "error|clamp"}};
    static constexpr std::string_view about =
        "output[i][j][k] = X[I[i][j][k]][j][k] for axis 0, likewise for any axis (numpy.take_along_axis,\n"
        "ONNX GatherElements). I has X's rank and is not larger than X off the axis; the output has I's\n"
        "shape.\n";
    template <gather_elements_desc D, typed_view In, typed_view Idx, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<gather_elements_type_rule(view_dtype<In>, view_dtype<Idx>, view_dtype<Out>)>();
        if constexpr (all_static<In, Idx>)
            output_check<gather_elements_rule(static_shape<In>(), static_shape<Idx>(), D), rule::gather_elements_output_shape, 2, Out>();
        else static_enforce<In::rank != Idx::rank ? verdict{rule::gather_elements_rank, 1}
                            : rank_verdict(Idx::rank == Out::rank, rule::gather_elements_output_shape, 2)>();
    }
};

/// Gathers elements of `input` along `d.axis` at `indices` into `output` (the indices' shape, any
/// strides), into a new C-order host tensor, or between typed views (`gather_elements<D>(...)`,
/// checked at compile time). Throws strix::error when a rule breaks, when the output overlaps
/// itself or an operand, or (index_policy::error) when an index is out of range, before anything
/// is written.
STRIX_CPU_CALLS(gather_elements, indexed)

} // namespace strix
