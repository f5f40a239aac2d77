#pragma once
/// join (concatenate): one or more inputs of one rank and type, equal off the axis, laid one
/// after another along the axis.

#include <cstdint>
#include <tuple>
#include <vector>

#include "strix/cpu/executor.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a join. Structural: usable as a template argument.
struct join_desc {
    std::int64_t axis = 0; ///< may be negative
};

/// The rules of join: every input has the first input's rank and sizes off the axis; the output's
/// axis size is the sum, which like the output's element count must not exceed 2^63 - 1.
/// Operand i of the verdict is input i (and operand n, past the inputs, the output).
/// `inputs(k)` gives input k's shape (of `n`).
template <class Shapes>
constexpr inferred join_rule_of(std::size_t n, const Shapes& inputs, const join_desc& d) {
    inferred res;
    if (n == 0) {
        res.v = {rule::join_no_inputs};
        return res;
    }
    const int r = inputs(0).rank;
    const int axis = detail::normalize_axis(d.axis, r);
    if (axis < 0) {
        res.v = {rule::join_axis_range, 0, -1, d.axis, value_kind::given_axis};
        return res;
    }
    res.axis = axis; // normalised here, once: the checked call carries it on
    res.out = inputs(0);
    for (std::size_t k = 1; k < n; ++k) {
        if (inputs(k).rank != r) {
            res.v = {rule::join_rank, static_cast<int>(k), -1, inputs(k).rank, value_kind::rank};
            return res;
        }
        for (int i = 0; i < r; ++i)
            if (i != axis && inputs(k)[i] != inputs(0)[i]) {
                res.v = {rule::join_off_axis, static_cast<int>(k), i, inputs(k)[i], value_kind::size};
                return res;
            }
        if (!detail::add_fits(res.out[axis], inputs(k)[axis], res.out[axis])) {
            res.v = {rule::join_output_size, static_cast<int>(k), axis, inputs(k)[axis], value_kind::size};
            return res;
        }
    }
    if (res.out.checked_count() < 0) res.v = {rule::join_output_count, static_cast<int>(n), axis};
    return res;
}

/// The rules of join on the inputs' shapes.
constexpr inferred join_rule(std::span<const shape> inputs, const join_desc& d) {
    return join_rule_of(inputs.size(), [&](std::size_t k) -> const shape& { return inputs[k]; }, d);
}

namespace detail {
/// The verdict of a join of static extents, computed once for the extents and the typed call.
template <join_desc D, extents_type... In>
constexpr inferred static_join_rule() {
    const shape shapes[] = {In{}.to_shape()...};
    return join_rule(shapes, D);
}
} // namespace detail

namespace detail {
/// The operands of a join, for messages: "input 0", "input 1", ..., "output".
template <class = void>
std::vector<operand_info> join_operands(std::span<const any_cview> inputs, const any_view* output) {
    std::vector<operand_info> ops;
    ops.reserve(inputs.size() + 1);
    for (std::size_t k = 0; k < inputs.size(); ++k) ops.push_back({"input", inputs[k].sizes(), inputs[k].type(), static_cast<int>(k)});
    if (output) ops.push_back({"output", output->sizes(), output->type()});
    return ops;
}
} // namespace detail

/// Output extents of a join of the given extents (static, and checked at compile time, when all
/// are static; checked at run time otherwise).
template <join_desc D, extents_type... In>
constexpr auto join_extents(const In&... inputs) {
    if constexpr (sizeof...(In) == 0) {
        static_enforce<verdict{sizeof...(In) == 0 ? rule::join_no_inputs : rule::ok}>(); // dependent, so checked only when used
    } else if constexpr ((In::is_static && ...)) {
        constexpr inferred r = detail::static_join_rule<D, In...>();
        static_enforce<r.v>();
        if constexpr (r.v.ok()) return static_extents<r.out>{};
    } else {
        constexpr int rank = std::get<0>(std::tuple{In::rank...});
        const shape shapes[] = {inputs.to_shape()...};
        const inferred r = join_rule(shapes, D);
        if (!r.v.ok()) {
            std::vector<operand_info> ops;
            for (std::size_t k = 0; k < sizeof...(In); ++k) ops.push_back({"input", shapes[k], {}, static_cast<int>(k)});
            enforce(r.v, ops);
        }
        return dextents<rank>(r.out);
    }
}

namespace detail {

/// Every run-time check of a join (views, rules, types, output shape, aliasing); no `output`:
/// the inputs alone, for an allocating call (which makes the output in the first input's type).
template <class = void>
checked_call check_join(std::span<const any_cview> inputs, const any_view* output, const join_desc& d) {
    for (std::size_t k = 0; k < inputs.size(); ++k) check_view("join", "input", inputs[k], false, static_cast<int>(k));
    if (output) check_view("join", "output", *output, true);
    const inferred r = join_rule_of(inputs.size(), [&](std::size_t k) -> const shape& { return inputs[k].sizes(); }, d);
    // the operands of a message, written only when a check fails
    if (!r.v.ok()) enforce(r.v, join_operands(inputs, output)); // at least one input from here on
    auto operands = [&] { // with the output the call makes, as the rules after this see it
        auto ops = join_operands(inputs, output);
        if (!output) ops.push_back({"output", r.out, inputs[0].type()});
        return ops;
    };
    for (std::size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].type() != inputs[0].type()) enforce({rule::join_dtype, static_cast<int>(k)}, operands());
    checked_call c;
    c.out = r.out;
    c.axis = r.axis;
    if (!output) return c;
    if (output->type() != inputs[0].type()) enforce({rule::join_dtype, static_cast<int>(inputs.size())}, operands());
    if (r.out != output->sizes()) enforce({rule::join_output_shape, static_cast<int>(inputs.size())}, operands());
    for (std::size_t k = 0; k < inputs.size(); ++k) check_disjoint("join", *output, "input", inputs[k], static_cast<int>(k));
    return c;
}

/// One collapsed copy plan per input, each into its slice of the output along `axis` (as the
/// checks normalised it: checked_call::axis).
template <class = void>
std::vector<plan::move_plan> lower_join(std::span<const any_cview> inputs, const any_view& output, int axis) {
    std::vector<plan::move_plan> plans;
    plans.reserve(inputs.size());
    std::int64_t at = 0;
    for (const auto& in : inputs) {
        // address arithmetic in integers: an empty output may have no data (a null pointer). An
        // empty input moves nothing and is not located: where the output has no elements, the
        // sizes along the axis may add up past what 64-bit byte offsets reach (inputs [0, 2^62, 1]
        // and [0, 1, 1] of int16 along axis 1: the second starts 2^63 bytes in)
        const std::int64_t offset = in.count() == 0 ? 0 : at * output.stride(axis) * static_cast<std::int64_t>(output.element_size());
        const auto address = reinterpret_cast<std::uintptr_t>(output.data()) + static_cast<std::uintptr_t>(offset);
        const any_view part(reinterpret_cast<std::byte*>(address), output.type(), in.sizes(), output.strides());
        at += in.size(axis);
        plans.push_back(copy_plan(in, part));
        plan::collapse(plans.back());
    }
    return plans;
}

} // namespace detail

namespace detail {
/// The compile-time checks of a typed join (its rules on static extents and element types),
/// shared by the CPU's typed call and the Vulkan backend's.
template <join_desc D, typed_view Out, typed_view... In>
void join_typed_rules() {
    static_enforce<verdict{(sizeof...(In) > 0) ? rule::ok : rule::join_no_inputs}>();
    static_enforce<verdict{((dtype_of<typename In::element_type> == dtype_of<typename Out::element_type>) && ...) ? rule::ok : rule::join_dtype}>();
    using out_ext = typename Out::extents_type;
    if constexpr (sizeof...(In) > 0 && (In::extents_type::is_static && ...)) {
        constexpr inferred r = static_join_rule<D, typename In::extents_type...>();
        static_output_check<r, rule::join_output_shape, static_cast<int>(sizeof...(In)), out_ext>(); // the rule that broke, and nothing after it
    } else if constexpr (sizeof...(In) > 0) {
        static_enforce<verdict{((In::rank == Out::rank) && ...) ? rule::ok : rule::join_rank}>();
    }
}
} // namespace detail

/// join as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<join_desc> {
    static constexpr std::string_view name = "join";
    static constexpr op_form form = op_form::joining;
    static constexpr std::tuple settings{setting{"axis", &join_desc::axis, "A", true}};
    static constexpr std::string_view about =
        "Concatenates the inputs along the axis (numpy.concatenate). All inputs have one element type\n"
        "and one rank, and equal sizes off the axis. The axis may be negative.\n";
    static detail::checked_call check(std::span<const any_cview> in, std::span<const any_view> out, const join_desc& d) {
        return detail::check_join(in, out.empty() ? nullptr : &out[0], d);
    }
    static void run(const detail::checked_call& c, std::span<const any_cview> in, std::span<const any_view> out, const join_desc& d,
                    const cpu::options& opt) {
        detail::run_moves(c, in, out, d, opt);
    }
    static std::vector<plan::move_plan> lower(std::span<const any_cview> in, std::span<const any_view> out, const join_desc&,
                                              const detail::checked_call& c) {
        return detail::lower_join(in, out[0], c.axis);
    }
    template <join_desc D, typed_view Out, typed_view... In>
    static void typed_rules() {
        detail::join_typed_rules<D, Out, In...>();
    }
};

/// Joins `inputs` along `d.axis` into `output` (any strides), into a new C-order host tensor,
/// or typed views (`join<D>(output, a, b, ...)`, checked at compile time). Throws strix::error
/// naming the operand, axis and shapes when a rule breaks or the output overlaps itself or an
/// input.
STRIX_CPU_CALLS(join, joining)

} // namespace strix
