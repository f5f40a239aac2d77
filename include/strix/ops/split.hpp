#pragma once
/// split (ONNX Split, DirectML SPLIT): the inverse of join — an input cut along an axis into
/// pieces of given sizes (zero sizes allowed). As views of the input where no copy is needed
/// (`split_views`), or copied into outputs of any strides (`split`).

#include <cstdint>
#include <limits>
#include <vector>

#include "strix/cpu/executor.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a split. Structural: usable as a template argument.
struct split_desc {
    std::int64_t axis = 0; ///< may be negative
};

/// The rules of split, given the outputs' shapes: at least one output, each of the input's rank
/// and sizes off the axis, none negative on it, and the sizes on the axis adding up to the
/// input's (a sum beyond 2^63 - 1 breaks that rule too). Operand 0 is the input, operand i + 1
/// output i. `outputs(k)` gives output k's shape (of `n`).
template <class Shapes>
constexpr verdict split_rule_of(const shape& input, std::size_t n, const Shapes& outputs, const split_desc& d) {
    const int r = input.rank;
    if (r < 1) return {rule::split_input_rank, 0};
    const int axis = detail::normalize_axis(d.axis, r);
    if (axis < 0) return {rule::split_axis_range, 0, -1, d.axis, value_kind::given_axis};
    if (n == 0) return {rule::split_no_outputs};
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const int o = static_cast<int>(k) + 1;
        if (outputs(k).rank != r) return {rule::split_rank, o, -1, outputs(k).rank, value_kind::rank};
        for (int i = 0; i < r; ++i)
            if (i != axis && outputs(k)[i] != input[i]) return {rule::split_off_axis, o, i, outputs(k)[i], value_kind::size};
        if (outputs(k)[axis] < 0) return {rule::split_negative_size, o, axis, outputs(k)[axis], value_kind::size};
        if (!detail::add_fits(sum, outputs(k)[axis], sum))
            return {rule::split_sizes_sum, 0, axis, std::numeric_limits<std::int64_t>::max(), value_kind::sum_beyond};
    }
    if (sum != input[axis]) return {rule::split_sizes_sum, 0, axis, sum, value_kind::sum};
    return {};
}

/// The rules of split on the outputs' shapes.
constexpr verdict split_rule(const shape& input, std::span<const shape> outputs, const split_desc& d) {
    return split_rule_of(input, outputs.size(), [&](std::size_t k) -> const shape& { return outputs[k]; }, d);
}

/// The outputs' shapes of a split into `sizes` along the axis (the input's shape with the axis
/// size replaced; the rules are checked by split_rule).
template <class = void>
std::vector<shape> split_shapes(const shape& input, std::span<const std::int64_t> sizes, const split_desc& d) {
    std::vector<shape> out;
    const int axis = detail::normalize_axis(d.axis, input.rank);
    for (const auto s : sizes) {
        shape o = input;
        if (axis >= 0) o[axis] = s;
        out.push_back(o);
    }
    return out;
}

namespace detail {
/// The operands of a split, for messages: "input", "output 0", "output 1", ...
template <class = void>
std::vector<operand_info> split_operands(const shape& input, std::optional<dtype> type, std::span<const shape> outputs,
                                         std::span<const dtype> types = {}) {
    std::vector<operand_info> ops{{"input", input, type}};
    for (std::size_t k = 0; k < outputs.size(); ++k)
        ops.push_back({"output", outputs[k], k < types.size() ? std::optional<dtype>(types[k]) : std::nullopt, static_cast<int>(k)});
    return ops;
}

/// Checks the rules of a split of `input` into `sizes` (throws strix::error naming the operand).
template <class = void>
std::vector<shape> checked_split_shapes(const shape& input, std::optional<dtype> type, std::span<const std::int64_t> sizes, const split_desc& d) {
    auto shapes = split_shapes(input, sizes, d);
    const verdict v = split_rule(input, shapes, d);
    if (v.ok()) return shapes;
    std::string given = ", sizes [";
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        if (k) given += ',';
        given += std::to_string(sizes[k]);
    }
    enforce(v, split_operands(input, type, shapes), given + "]");
    return shapes;
}

/// Every run-time check of a split into `outputs` (views, rules, types, aliasing).
template <class = void>
checked_call check_split(const any_cview& input, std::span<const any_view> outputs, const split_desc& d) {
    check_view("split", "input", input, false);
    for (std::size_t k = 0; k < outputs.size(); ++k) check_view("split", "output", outputs[k], true, static_cast<int>(k));
    const verdict v = split_rule_of(input.sizes(), outputs.size(), [&](std::size_t k) -> const shape& { return outputs[k].sizes(); }, d);
    auto operands = [&] { // the operands of a message, written only when a check fails
        std::vector<shape> shapes;
        std::vector<dtype> types;
        for (const auto& o : outputs) {
            shapes.push_back(o.sizes());
            types.push_back(o.type());
        }
        return split_operands(input.sizes(), input.type(), shapes, types);
    };
    if (!v.ok()) enforce(v, operands());
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        if (outputs[k].type() != input.type()) enforce({rule::split_dtype, static_cast<int>(k) + 1}, operands());
        check_disjoint("split", outputs[k], "input", input, -1, "output", static_cast<int>(k));
        for (std::size_t j = 0; j < k; ++j) check_disjoint("split", outputs[k], "output", outputs[j], static_cast<int>(j), "output", static_cast<int>(k));
    }
    return {};
}

/// One collapsed copy plan per output, each from its slice of the input.
template <class = void>
std::vector<plan::move_plan> lower_split(const any_cview& input, std::span<const any_view> outputs, const split_desc& d) {
    const int axis = normalize_axis(d.axis, input.rank());
    std::vector<plan::move_plan> plans;
    plans.reserve(outputs.size());
    std::int64_t at = 0;
    for (const auto& out : outputs) {
        // address arithmetic in integers: an empty input may have no data (a null pointer)
        const auto address = reinterpret_cast<std::uintptr_t>(input.data()) +
                             static_cast<std::uintptr_t>(at * input.stride(axis) * static_cast<std::int64_t>(input.element_size()));
        const any_cview part(reinterpret_cast<const std::byte*>(address), input.type(), out.sizes(), input.strides());
        at += out.size(axis);
        plans.push_back(copy_plan(part, out));
        plan::collapse(plans.back());
    }
    return plans;
}

} // namespace detail

/// The pieces of `input` cut along `d.axis` into `sizes`, as views of the input itself (no copy;
/// mutable when the input is). Throws strix::error when the sizes break the rules.
template <bool M>
std::vector<basic_any_view<M>> split_views(const basic_any_view<M>& input, std::span<const std::int64_t> sizes, const split_desc& d = {}) {
    detail::check_view("split", "input", input, false);
    const auto shapes = detail::checked_split_shapes(input.sizes(), input.type(), sizes, d);
    const int axis = detail::normalize_axis(d.axis, input.rank());
    using byte_ptr = std::conditional_t<M, std::byte*, const std::byte*>;
    std::vector<basic_any_view<M>> out;
    std::int64_t at = 0;
    for (const auto& s : shapes) {
        const auto address = reinterpret_cast<std::uintptr_t>(input.data()) +
                             static_cast<std::uintptr_t>(at * input.stride(axis) * static_cast<std::int64_t>(input.element_size()));
        out.emplace_back(reinterpret_cast<byte_ptr>(address), input.type(), s, input.strides());
        at += s[axis];
    }
    return out;
}

namespace detail {
/// The verdict of a split of static extents.
template <split_desc D, extents_type In, extents_type... Out>
constexpr verdict static_split_rule() {
    const shape outs[] = {Out{}.to_shape()...};
    return split_rule(In{}.to_shape(), outs, D);
}
} // namespace detail

namespace detail {
/// The compile-time checks of a typed split (its rules on static extents and element types),
/// shared by the CPU's typed call and the Vulkan backend's.
template <split_desc D, typed_view In, typed_view... Out>
void split_typed_rules() {
    static_enforce<verdict{(sizeof...(Out) > 0) ? rule::ok : rule::split_no_outputs}>();
    static_enforce<verdict{((dtype_of<typename In::element_type> == dtype_of<typename Out::element_type>) && ...) ? rule::ok : rule::split_dtype}>();
    if constexpr (sizeof...(Out) > 0 && In::extents_type::is_static && (Out::extents_type::is_static && ...)) {
        static_enforce<static_split_rule<D, typename In::extents_type, typename Out::extents_type...>()>();
    } else if constexpr (sizeof...(Out) > 0) {
        static_enforce<verdict{((In::rank == Out::rank) && ...) ? rule::ok : rule::split_rank, 1}>();
    }
}
} // namespace detail

/// split as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<split_desc> {
    static constexpr std::string_view name = "split";
    static constexpr op_form form = op_form::splitting;
    static constexpr std::tuple settings{setting{"axis", &split_desc::axis, "A", true}};
    static constexpr std::string_view about =
        "Cuts X along the axis into pieces of the given sizes (ONNX Split; the inverse of join): one\n"
        "output per size, in order. Sizes may be 0 and must add up to X's size on the axis. Either\n"
        "every output is written or none is.\n";
    static detail::checked_call check(std::span<const any_cview> in, std::span<const any_view> out, const split_desc& d) {
        return detail::check_split(in[0], out, d);
    }
    static void run(const detail::checked_call& c, std::span<const any_cview> in, std::span<const any_view> out, const split_desc& d,
                    const cpu::options& opt) {
        detail::run_moves(c, in, out, d, opt);
    }
    static std::vector<plan::move_plan> lower(std::span<const any_cview> in, std::span<const any_view> out, const split_desc& d,
                                              const detail::checked_call&) {
        return detail::lower_split(in[0], out, d);
    }
    /// The shapes of the outputs of an allocating split (the input and the sizes checked).
    static std::vector<shape> output_shapes(const any_cview& input, std::span<const std::int64_t> sizes, const split_desc& d) {
        detail::check_view("split", "input", input, false);
        return detail::checked_split_shapes(input.sizes(), input.type(), sizes, d);
    }
    template <split_desc D, typed_view In, typed_view... Out>
    static void typed_rules() {
        detail::split_typed_rules<D, In, Out...>();
    }
};

/// Copies the pieces of `input` along `d.axis` into `outputs` (any strides; their sizes on the
/// axis are the pieces' sizes), into new C-order host tensors of the given sizes on the axis, or
/// between typed views (`split<D>(input, out0, out1, ...)`, checked at compile time). Throws
/// strix::error naming the operand, axis and shapes when a rule breaks or an output overlaps
/// itself, another output or the input.
STRIX_CPU_CALLS(split, splitting)

} // namespace strix
