#pragma once
/// scatter (elements): `output = input`, then `output[..., indices[j...], ...] = updates[j...]`
/// with the index replacing the coordinate on the axis. In place when the output is the input.

#include "strix/cpu/indices.hpp"
#include "strix/cpu/update.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"
#include "strix/plan/update_plan.hpp"

namespace strix {

/// Describes a scatter. Structural: usable as a template argument.
struct scatter_desc {
    std::int64_t axis = 0;                            ///< may be negative
    index_policy policy = index_policy::error;        ///< what an out-of-range index does
    scatter_reduction reduction = scatter_reduction::none; ///< how duplicate targets combine
    /// Devices: combine in the CPU's order (C order of the updates), so results are bit-identical
    /// run to run and to the CPU; otherwise floating-point add and mul may combine in any order.
    /// The CPU always runs in that order.
    bool deterministic = false;
    /// The caller's promise that no two updates reach the same output element (JAX's
    /// `unique_indices`): no winner is chosen and nothing is ordered, every update is applied
    /// straight to its target (the CPU shares them among its threads along any dimension; a
    /// device writes them in one pass, without claims or sorting). Not verified: where the
    /// promise is false, a repeated target holds one of its updates (no reduction) or an
    /// unspecified combination of them, and nothing outside the output is ever touched.
    /// Indices are still checked or clamped under the policy.
    bool unique_indices = false;
};

/// The rules of scatter: input, indices and updates share a rank; updates have the indices'
/// shape; indices are not larger than the input off the axis (ONNX ScatterElements; DirectML
/// asks for equality there). The output has the input's shape.
constexpr inferred scatter_rule(const shape& input, const shape& indices, const shape& updates, const scatter_desc& d) {
    inferred res;
    const int r = input.rank;
    if (r < 1) {
        res.v = {rule::scatter_input_rank, 0};
        return res;
    }
    const int axis = detail::normalize_axis(d.axis, r);
    if (axis < 0) {
        res.v = {rule::scatter_axis_range, 0, -1, d.axis, value_kind::given_axis};
        return res;
    }
    if (indices.rank != r) {
        res.v = {rule::scatter_rank, 1, -1, indices.rank, value_kind::rank};
        return res;
    }
    if (updates.rank != r) {
        res.v = {rule::scatter_rank, 2, -1, updates.rank, value_kind::rank};
        return res;
    }
    for (int i = 0; i < r; ++i) {
        if (updates[i] != indices[i]) {
            res.v = {rule::scatter_updates_shape, 2, i, updates[i], value_kind::size};
            return res;
        }
        if (i != axis && indices[i] > input[i]) {
            res.v = {rule::scatter_indices_larger, 1, i, indices[i], value_kind::size};
            return res;
        }
    }
    res.out = input;
    res.axis = axis;
    return res;
}

/// The rule on scatter's indexed axis (of shapes that pass scatter_rule; `axis` is the one it
/// inferred): an empty axis takes no index.
constexpr verdict scatter_axis_rule(const shape& input, const shape& indices, int axis) {
    if (input[axis] == 0 && detail::has_elements(indices)) return {rule::scatter_empty_axis, -1, axis};
    return {};
}

/// The element-type rules of scatter.
constexpr verdict scatter_type_rule(dtype input, dtype indices, dtype updates, dtype output) {
    return detail::update_type_rule(input, indices, updates, output, rule::scatter_index_type, rule::scatter_dtype);
}

/// Output extents of a scatter: the input's, after checking the rules (statically when all
/// three are static).
template <scatter_desc D, extents_type In, extents_type Idx, extents_type Upd>
constexpr auto scatter_extents(const In& input, const Idx& indices, const Upd& updates) {
    if constexpr (In::is_static && Idx::is_static && Upd::is_static) {
        constexpr inferred r = scatter_rule(In{}.to_shape(), Idx{}.to_shape(), Upd{}.to_shape(), D);
        static_enforce<r.v>();
        return In{};
    } else {
        const inferred r = scatter_rule(input.to_shape(), indices.to_shape(), updates.to_shape(), D);
        const operand_info ops[] = {{"input", input.to_shape()}, {"indices", indices.to_shape()}, {"updates", updates.to_shape()}};
        enforce(r.v, ops);
        return input;
    }
}

namespace detail {

template <class = void>
bool same_view(const any_cview& a, const any_view& b) {
    if (a.data() != b.data() || a.sizes() != b.sizes()) return false;
    for (int i = 0; i < a.rank(); ++i)
        if (a.size(i) > 1 && a.stride(i) != b.stride(i)) return false;
    return true;
}

/// The checks scatter and scatter-nd share: the views, then their rules — `shape_rule(input,
/// indices, updates)` (the output's shape, which must be the given output's: `mismatch`),
/// `type_rule(input, indices, updates, output)`, `axis_rule(input, indices, axis)` on the axis
/// the shape rule normalised — then whether it runs in place, and aliasing.
template <class ShapeRule, class AxisRule>
checked_call check_scattering(std::string_view op, const any_cview& input, const any_cview& indices, const any_cview& updates,
                         const any_view* output, rule mismatch, ShapeRule&& shape_rule, verdict (*type_rule)(dtype, dtype, dtype, dtype),
                         AxisRule&& axis_rule) {
    // (no output: the rules of a chain's step, whose output is the chain's next temporary)
    const operand_info ops[] = {{"input", input.sizes(), input.type()},
                                {"indices", indices.sizes(), indices.type()},
                                {"updates", updates.sizes(), updates.type()},
                                {"output", output ? output->sizes() : input.sizes(), output ? output->type() : input.type()}};
    check_view(op, "input", input, false);
    check_view(op, "indices", indices, false);
    check_view(op, "updates", updates, false);
    if (output) check_view(op, "output", *output, true);
    const inferred r = shape_rule(input.sizes(), indices.sizes(), updates.sizes());
    enforce(r.v, ops);
    enforce(type_rule(input.type(), indices.type(), updates.type(), output ? output->type() : input.type()), ops);
    if (output && output->sizes() != r.out) enforce({mismatch, 3}, ops);
    enforce(axis_rule(input.sizes(), indices.sizes(), r.axis), ops);
    checked_call c;
    c.context = operand_list(ops);
    c.out = output ? output->sizes() : r.out;
    c.axis = r.axis < 0 ? 0 : r.axis;
    if (!output) return c;
    c.in_place = same_view(input, *output);
    if (!c.in_place) check_disjoint(op, *output, "input", input);
    check_disjoint(op, *output, "indices", indices);
    check_disjoint(op, *output, "updates", updates);
    return c;
}

/// Every run-time check of a scatter (views, rules, types, output shape, aliasing);
/// the rules alone where `output` is null.
template <class = void>
checked_call check_scatter(const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view* output,
                                     const scatter_desc& d) {
    return check_scattering("scatter", input, indices, updates, output, rule::scatter_output_shape,
                            [&](const shape& i, const shape& x, const shape& u) { return scatter_rule(i, x, u, d); }, scatter_type_rule,
                            scatter_axis_rule);
}

/// The output's byte span [lo, hi) relative to its first element (its strides may be negative).
template <class = void>
std::pair<std::int64_t, std::int64_t> byte_span(const any_view& output) {
    const auto es = static_cast<std::int64_t>(output.element_size());
    std::int64_t lo = 0, hi = 0;
    for (int i = 0; i < output.rank(); ++i) {
        const std::int64_t span = (output.size(i) - 1) * output.stride(i) * es;
        (span < 0 ? lo : hi) += span;
    }
    return {lo, hi + es};
}

/// The update plan of a checked scatter on its non-negative `axis`: over the updates'
/// dimensions, the output's strides (none on the axis, where the index read at the same
/// coordinates of `indices` decides).
template <class = void>
plan::update_plan lower_scatter(const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                                       const scatter_desc& d, int axis) {
    const auto oes = static_cast<std::int64_t>(output.element_size());
    const auto ues = static_cast<std::int64_t>(updates.element_size());
    const auto ies = static_cast<std::int64_t>(indices.element_size());
    plan::update_plan p;
    p.rank = updates.rank();
    for (int i = 0; i < p.rank; ++i) // updates and indices share a shape
        p.dims[static_cast<std::size_t>(i)] = {updates.size(i), i == axis ? 0 : output.stride(i) * oes, updates.stride(i) * ues, indices.stride(i) * ies};
    p.type = output.type();
    p.src = static_cast<const std::byte*>(updates.data());
    p.dst = static_cast<std::byte*>(output.data());
    const auto span = byte_span(output);
    p.span_lo = span.first;
    p.span_hi = span.second;
    read_indices_in_place(p, indices, input.size(axis), output.stride(axis) * oes, d.policy);
    p.reduction = d.reduction;
    p.unique = d.unique_indices;
    return p;
}

/// Runs a checked scatter on the CPU.
template <class = void> // instantiated only where called (its kernels are 220 type combinations)
void run_scatter(const checked_call& c, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                 const scatter_desc& d, const cpu::options& opt) {
    const int axis = c.axis;
    // every index is checked before anything is written; the first bad one (C order) is named
    // by resolve_indices, whatever the number of threads. Indices first checked against [0, n)
    // (none negative, the common case) are then read as their unsigned type, whose kernels skip
    // the move of negatives per update (bench/NOTES.md, "Figures behind the operators' CPU
    // paths"); negative ones cost a second check.
    const bool unsigned_reads = indices.count() > 0 && d.policy == index_policy::error && indices_checked(indices, input.size(axis), opt, [&] {
        resolve_indices(indices, input.size(axis), 1, d.policy, "scatter", axis, c.context);
    });
    if (!c.in_place) {
        auto p = copy_plan(input, output);
        plan::collapse(p);
        cpu::execute(p, opt);
    }
    if (indices.count() == 0) return;
    auto p = lower_scatter(input, indices, updates, output, d, axis);
    if (unsigned_reads && p.table.empty()) p.index_type = unsigned_index_type(p.index_type);
    cpu::execute(p, opt);
}
} // namespace detail


/// scatter as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<scatter_desc> : detail::update_operator<scatter_desc, &detail::check_scatter<>, &detail::run_scatter<>> {
    static constexpr std::string_view name = "scatter";
    static constexpr op_form form = op_form::update;
    static constexpr std::tuple settings{setting{"axis", &scatter_desc::axis, "A", true},
                                         setting{"reduction", &scatter_desc::reduction, "R"},
                                         setting{"deterministic", &scatter_desc::deterministic, ""},
                                         setting{"unique-indices", &scatter_desc::unique_indices, ""},
                                         setting{"out-of-range", &scatter_desc::policy, "error|clamp"}};
    static constexpr std::string_view about =
        "output = X, then output[..., I[j..], ...] = U[j..] along the axis (numpy.put_along_axis, ONNX\n"
        "ScatterElements). I and U share a shape not larger than X off the axis. Updates apply in\n"
        "row-major order: with reduction none (the default) the last one to reach an element wins;\n"
        "add, mul, min and max combine them. deterministic makes devices combine in that same order\n"
        "(bit-identical to the CPU); without it floating-point add and mul may combine in any order.\n"
        "unique-indices promises that no two updates reach one element: they are then applied\n"
        "straight, in any order (a false promise leaves a repeated element one of its updates).\n";
    template <scatter_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<scatter_type_rule(view_dtype<In>, view_dtype<Idx>, view_dtype<Upd>, view_dtype<Out>)>();
        if constexpr (all_static<In, Idx, Upd>)
            output_check<scatter_rule(static_shape<In>(), static_shape<Idx>(), static_shape<Upd>(), D), rule::scatter_output_shape, 3, Out>();
        else static_enforce<In::rank != Idx::rank || In::rank != Upd::rank ? verdict{rule::scatter_rank, 1}
                            : rank_verdict(In::rank == Out::rank, rule::scatter_output_shape, 3)>();
    }
};

/// Scatters `updates` into `output` at `indices` along `d.axis`; `output` starts as a copy of
/// `input`, or is `input` itself (the same view: in place); the allocating call makes a new
/// C-order copy of `input`; the typed call `scatter<D>(...)` is checked at compile time. Every
/// index is checked before anything is written. Duplicate targets combine under `d.reduction`,
/// in C order of the updates (with `none`, the last one wins). Throws strix::error naming the
/// operand, axis and shapes when a rule breaks, when an index is out of range under
/// index_policy::error, or when the output overlaps an operand (other than being the input
/// itself).
STRIX_CPU_CALLS(scatter, update)

} // namespace strix
