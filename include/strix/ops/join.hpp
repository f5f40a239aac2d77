#pragma once
/// join (concatenate): one or more inputs of one rank and type, equal off the axis, laid one
/// after another along the axis.

#include <tuple>
#include <vector>

#include "strix/ops/common.hpp"

namespace strix {

/// Describes a join. Structural: usable as a template argument.
struct join_desc {
    std::int64_t axis = 0; ///< may be negative
};

/// The rules of join: every input has the first input's rank and sizes off the axis; the output's
/// axis size is the sum. Operand i of the verdict is input i.
constexpr inferred join_rule(std::span<const shape> inputs, const join_desc& d) {
    inferred res;
    if (inputs.empty()) {
        res.v = {rule::join_no_inputs};
        return res;
    }
    const int r = inputs[0].rank;
    const int axis = detail::normalize_axis(d.axis, r);
    if (axis < 0) {
        res.v = {rule::join_axis_range, 0, -1, d.axis, value_kind::given_axis};
        return res;
    }
    res.out = inputs[0];
    for (std::size_t k = 1; k < inputs.size(); ++k) {
        if (inputs[k].rank != r) {
            res.v = {rule::join_rank, static_cast<int>(k), -1, inputs[k].rank, value_kind::rank};
            return res;
        }
        for (int i = 0; i < r; ++i)
            if (i != axis && inputs[k][i] != inputs[0][i]) {
                res.v = {rule::join_off_axis, static_cast<int>(k), i, inputs[k][i], value_kind::size};
                return res;
            }
        res.out[axis] += inputs[k][axis];
    }
    return res;
}

/// Output extents of a join of the given extents (static when all are static).
template <join_desc D, extents_type... In>
constexpr auto join_extents(const In&... inputs) {
    static_assert(sizeof...(In) > 0, "strix::join: there must be at least one input");
    if constexpr ((In::is_static && ...)) {
        constexpr shape shapes[] = {In{}.to_shape()...};
        constexpr inferred r = join_rule(shapes, D);
        static_enforce<r.v>();
        if constexpr (r.v.ok()) return static_extents<r.out>{};
    } else {
        constexpr int rank = std::get<0>(std::tuple{In::rank...});
        const shape shapes[] = {inputs.to_shape()...};
        const inferred r = join_rule(shapes, D);
        std::vector<operand_info> ops;
        for (const auto& s : shapes) ops.push_back({"input", s});
        enforce(r.v, ops);
        return dextents<rank>(r.out);
    }
}

namespace detail {
/// "input 0", "input 1", ..., "output": the operands' names in messages.
inline std::vector<std::string> join_roles(std::size_t n) {
    std::vector<std::string> roles;
    for (std::size_t k = 0; k < n; ++k) roles.push_back("input " + std::to_string(k));
    roles.push_back("output");
    return roles;
}
/// The operands of a join (names point into `roles`).
inline std::vector<operand_info> join_operands(const std::vector<std::string>& roles, std::span<const any_cview> inputs,
                                               const any_view* output) {
    std::vector<operand_info> ops;
    for (std::size_t k = 0; k < inputs.size(); ++k) ops.push_back({roles[k], inputs[k].sizes(), inputs[k].type()});
    if (output) ops.push_back({roles.back(), output->sizes(), output->type()});
    return ops;
}
} // namespace detail

/// Joins `inputs` along `d.axis` into `output` (any strides). Throws strix::error naming the
/// operand, axis and shapes when a rule breaks or the output overlaps itself or an input.
inline void join(std::span<const any_cview> inputs, const any_view& output, const join_desc& d = {}, const cpu::options& opt = {}) {
    const auto roles = detail::join_roles(inputs.size());
    const auto ops = detail::join_operands(roles, inputs, &output);
    std::vector<shape> shapes;
    for (const auto& v : inputs) {
        detail::check_view("join", "input", v, false);
        shapes.push_back(v.sizes());
    }
    detail::check_view("join", "output", output, true);
    const inferred r = join_rule(shapes, d);
    enforce(r.v, ops);
    for (std::size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].type() != inputs[0].type()) enforce({rule::join_dtype, static_cast<int>(k)}, ops);
    if (output.type() != inputs[0].type()) enforce({rule::join_dtype, static_cast<int>(inputs.size())}, ops);
    if (r.out != output.sizes()) enforce({rule::join_output_shape, static_cast<int>(inputs.size())}, ops);
    for (std::size_t k = 0; k < inputs.size(); ++k) detail::check_disjoint("join", output, roles[k], inputs[k]);
    const int axis = detail::normalize_axis(d.axis, output.rank());
    std::int64_t at = 0;
    for (const auto& in : inputs) {
        any_view part(static_cast<std::byte*>(output.data()) + at * output.stride(axis) * static_cast<std::int64_t>(output.element_size()),
                      output.type(), in.sizes(), output.strides());
        at += in.size(axis);
        auto p = detail::copy_plan(in, part);
        plan::collapse(p);
        cpu::execute(p, opt);
    }
}

/// Joins into a new C-order host tensor.
inline host_tensor join(std::span<const any_cview> inputs, const join_desc& d = {}, const cpu::options& opt = {}) {
    std::vector<shape> shapes;
    for (const auto& v : inputs) shapes.push_back(v.sizes());
    const inferred r = join_rule(shapes, d);
    const auto roles = detail::join_roles(inputs.size());
    enforce(r.v, detail::join_operands(roles, inputs, nullptr));
    host_tensor out(inputs[0].type(), r.out);
    join(inputs, out.view(), d, opt);
    return out;
}

/// Joins typed views: `join<D>(output, a, b, ...)`. With static extents the shapes are checked
/// at compile time.
template <join_desc D, typed_view Out, typed_view... In>
void join(const Out& output, const In&... inputs) {
    static_assert(((dtype_of<typename In::element_type> == dtype_of<typename Out::element_type>) && ...),
                  "strix::join: every input and the output must have one element type");
    using out_ext = decltype(join_extents<D>(inputs.extents()...));
    if constexpr ((In::extents_type::is_static && ...) && Out::extents_type::is_static)
        static_enforce<verdict{out_ext{}.to_shape() == typename Out::extents_type{}.to_shape() ? rule::ok : rule::join_output_shape}>();
    else
        static_enforce<verdict{out_ext::rank == Out::rank ? rule::ok : rule::join_output_shape}>();
    const any_cview views[] = {inputs.erased()...};
    join(views, output.erased_mut(), D);
}

} // namespace strix
