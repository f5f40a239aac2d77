#pragma once
/// What every operator's entry point shares: checks of the views themselves (not the shapes,
/// which are the rules' business) and turning a view into plan terms.

#include <string>
#include <string_view>

#include "strix/plan/indices.hpp"
#include "strix/plan/move_plan.hpp"
#include "strix/rules.hpp"
#include "strix/tensor.hpp"

namespace strix::detail {

/// How an operator's indices reach its plan: resolved by the host into a table (the CPU), or
/// read by the device itself (the key strides are then byte strides in the indices).
enum class index_reading : std::uint8_t { host_table, device };

template <class = void>
std::string strides_text(const shape& s, const std::array<std::int64_t, max_rank>& st) {
    std::string r = "[";
    for (int i = 0; i < s.rank; ++i) {
        if (i) r += ',';
        r += std::to_string(st[static_cast<std::size_t>(i)]);
    }
    return r + "]";
}

/// Throws check_view's error: the operator, the operand, its view and `what` is wrong with it.
template <bool M>
[[noreturn]] void view_error(std::string_view op, std::string_view role, int number, const basic_any_view<M>& v, std::string_view what, bool strides) {
    std::string m = "strix::" + std::string(op) + ": the " + role_text(role, number) + " ";
    if (v.rank() < 0 || v.rank() > max_rank) throw error(error_code::bad_view, m + "has rank " + std::to_string(v.rank()) + "; a tensor has 0 to 8 dimensions");
    m += "view " + to_string(v.sizes());
    if (strides) m += " with strides " + strides_text(v.sizes(), v.strides());
    throw error(error_code::bad_view, m + std::string(what));
}

/// Throws when a view with elements has no data, or when the output reaches one element twice.
/// Also throws when the view's element count, its count in bytes, one of its strides in bytes or
/// the bytes its offsets reach (byte_reach) exceed 2^63 - 1: every offset the operators compute
/// over an accepted view then fits in 64 bits. `number` >= 0 numbers the role ("input 2").
template <bool M>
void check_view(std::string_view op, std::string_view role, const basic_any_view<M>& v, bool is_output, int number = -1) {
    if (v.rank() < 0 || v.rank() > max_rank) view_error(op, role, number, v, {}, false);
    const std::int64_t count = v.sizes().checked_count();
    std::int64_t bytes = 0;
    if (count < 0 || !mul_fits(count, static_cast<std::int64_t>(v.element_size()), bytes))
        view_error(op, role, number, v, " " + std::string(name(v.type())) + " has a negative size or more bytes than 64-bit offsets can address", false);
    if (byte_reach(v) < 0) view_error(op, role, number, v, " of " + std::string(name(v.type())) + " reaches beyond 64-bit byte offsets", true);
    if (count > 0 && v.data() == nullptr) view_error(op, role, number, v, " has no data", false);
    if (!is_output) return;
    const overlap o = self_overlap(v.sizes(), v.strides());
    if (o != overlap::none)
        view_error(op, role, number, v,
                   o == overlap::certain ? " overlaps itself (two elements share an address)"
                                         : " may overlap itself (its strides interleave and it is too large to check element by element)",
                   true);
}

/// Throws when the output's byte range intersects an input's (a conservative test: views that
/// interleave in one buffer without sharing bytes are rejected too).
template <class = void>
void check_disjoint(std::string_view op, const any_view& out, std::string_view role, const any_cview& in, int number = -1,
                    std::string_view out_role = "output", int out_number = -1) {
    const auto a = byte_range(out);
    const auto b = byte_range(in);
    if (a.first < a.second && b.first < b.second && a.first < b.second && b.first < a.second)
        throw error(error_code::bad_view, "strix::" + std::string(op) + ": the " + role_text(out_role, out_number) + " " + to_string(out.sizes()) +
                                              " overlaps the " + role_text(role, number) + " " + to_string(in.sizes()) +
                                              " in memory (their address ranges intersect)");
}

/// Every check of a copy: the views, one element type and one shape (its two rules), no overlap.
template <class = void>
void check_copy(const any_cview& input, const any_view& output) {
    check_view("copy", "input", input, false);
    check_view("copy", "output", output, true);
    const operand_info ops[] = {{"input", input.sizes(), input.type()}, {"output", output.sizes(), output.type()}};
    if (output.type() != input.type()) enforce({rule::copy_dtype, 1}, ops);
    if (output.sizes() != input.sizes()) enforce({rule::copy_shape, 1}, ops);
    check_disjoint("copy", output, "input", input);
}

/// What an operator's checks found, for the steps after them (each check runs once per call:
/// an allocating call checks before it allocates and then only lowers and runs).
struct checked_call {
    operand_list context; ///< the operands, for index messages (the output included)
    shape out{};         ///< the output's shape (an allocating call makes it)
    int axis = 0;        ///< the operator's axis as its rule normalised it (0 for those without one)
    bool in_place = false; ///< scatter: the output is the input itself
};

/// The checks every gathering operator (an input, indices, an output) shares: the views, then
/// its rules — `shape_rule(input, indices)` (the inferred output; its verdict's message gets
/// `extra`), `type_rule(input, indices, output)` — then that the output has the inferred shape
/// (`mismatch` when not), then `axis_rule(input, indices, axis)` (the rules on the indexed axes,
/// `axis` as the shape rule normalised it), and
/// aliasing. With no `output` (an allocating call) the output is the one the call will make (C
/// order, the input's element type): the rules see the input and indices alone, and what
/// follows them sees that output as if it were given.
template <class ShapeRule, class AxisRule>
checked_call check_gathering(std::string_view op, const any_cview& input, const any_cview& indices, const any_view* output, rule mismatch,
                        ShapeRule&& shape_rule, verdict (*type_rule)(dtype, dtype, dtype), AxisRule&& axis_rule, const std::string& extra = {}) {
    operand_info ops[] = {{"input", input.sizes(), input.type()}, {"indices", indices.sizes(), indices.type()},
                          {"output", output ? output->sizes() : shape{}, output ? output->type() : input.type()}};
    check_view(op, "input", input, false);
    check_view(op, "indices", indices, false);
    if (output) check_view(op, "output", *output, true);
    const std::span<const operand_info> all(ops);
    const std::span<const operand_info> known = output ? all : all.first(2);
    const inferred r = shape_rule(input.sizes(), indices.sizes());
    if (!r.v.ok()) enforce(r.v, known, extra);
    enforce(type_rule(input.type(), indices.type(), ops[2].type.value()), known);
    checked_call c;
    c.out = r.out;
    c.axis = r.axis < 0 ? 0 : r.axis;
    if (!output) ops[2].sizes = c.out;
    if (c.out != ops[2].sizes) enforce({mismatch, 2}, all);
    enforce(axis_rule(input.sizes(), indices.sizes(), r.axis), all);
    if (output) {
        check_disjoint(op, *output, "input", input);
        check_disjoint(op, *output, "indices", indices);
    }
    c.context = operand_list(all);
    return c;
}

/// The checks every operator of one input and one output shares (pad, slice, tile): the views,
/// then `shape_rule(input)` (the inferred output; its verdict's message gets `extra()`), then
/// `more()` (an operator's own rule beyond the shapes), then — with an output — its element type
/// (`dtype_rule` when not the input's), its shape (`shape_mismatch` when not the inferred one)
/// and aliasing. No `output`: an allocating call's, whose shape the result holds.
template <class ShapeRule, class Extra, class More>
checked_call check_unary(std::string_view op, const any_cview& input, const any_view* output, ShapeRule&& shape_rule, Extra&& extra,
                         More&& more, rule dtype_rule, rule shape_mismatch) {
    check_view(op, "input", input, false);
    if (output) check_view(op, "output", *output, true);
    const operand_info all[] = {{"input", input.sizes(), input.type()}, {"output", output ? output->sizes() : shape{}, output ? output->type() : input.type()}};
    const std::span<const operand_info> ops(all, output ? 2 : 1);
    const inferred r = shape_rule(input.sizes());
    if (!r.v.ok()) enforce(r.v, ops, extra());
    more();
    if (output) {
        if (output->type() != input.type()) enforce({dtype_rule, 1}, ops);
        if (output->sizes() != r.out) enforce({shape_mismatch, 1}, ops);
        check_disjoint(op, *output, "input", input);
    }
    checked_call c;
    c.out = r.out;
    return c;
}

/// A copy plan over `dst`'s shape: sizes from `dst`, strides from both (pad then folds the
/// dimensions where the shapes differ). Same element size on both sides. An empty `dst` moves
/// nothing and gets no byte strides: a new C-order tensor of an empty shape whose other sizes
/// multiply past 2^63 (an allocating pad of an input (0, 2^40, 1) by 2^30 on the last axis) has
/// strides saturated at 2^63 - 1, which no check has seen, and times the element size they
/// overflow (found by fuzz_ops).
template <class = void>
plan::move_plan copy_plan(const any_cview& src, const any_view& dst) {
    plan::move_plan p;
    p.rank = dst.rank();
    p.elem = dst.element_size();
    p.src = static_cast<const std::byte*>(src.data());
    p.dst = static_cast<std::byte*>(dst.data());
    const auto es = static_cast<std::int64_t>(p.elem);
    const bool empty = dst.count() == 0;
    for (int i = 0; i < p.rank; ++i) {
        auto& d = p.dims[static_cast<std::size_t>(i)];
        d.size = dst.size(i);
        d.dst = empty ? 0 : dst.stride(i) * es;
        d.src = empty ? 0 : src.stride(i) * es;
    }
    return p;
}

/// Makes plan `p` (a move or an update plan) read its indices where they lie, as devices and the
/// CPU's executor do: `indices` resolved into an axis of `axis_size` elements `axis_stride` bytes
/// apart, clamped or checked as `policy` says.
template <class Plan>
void read_indices_in_place(Plan& p, const any_cview& indices, std::int64_t axis_size, std::int64_t axis_stride, index_policy policy) {
    p.index = static_cast<const std::byte*>(indices.data());
    p.index_type = indices.type();
    p.axis_size = axis_size;
    p.axis_stride = axis_stride;
    p.clamp = policy == index_policy::clamp;
}

} // namespace strix::detail
