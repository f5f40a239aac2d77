#pragma once
/// tile: the input repeated along each axis — ONNX Tile, numpy.tile with one repeat count per
/// dimension. Lowered as a wrap pad (the input's coordinates folded modulo its size), so it
/// runs on the same plans and shaders as pad.

#include <cstdint>

#include "strix/ops/common.hpp"
#include "strix/ops/pad.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a tile: how many times the input repeats along each of its dimensions (`repeats`
/// has the input's rank; 0 empties that axis). Structural: usable as a template argument.
struct tile_desc {
    shape repeats{};
};

/// The rules of tile: one repeat count per dimension, none negative; output[i] = input[i] *
/// repeats[i], which like the output's element count must not exceed 2^63 - 1.
constexpr inferred tile_rule(const shape& input, const tile_desc& d) {
    inferred res;
    if (d.repeats.rank != input.rank) {
        res.v = {rule::tile_count, 0, -1, d.repeats.rank, value_kind::entry_count};
        return res;
    }
    res.out = input;
    for (int i = 0; i < input.rank; ++i) {
        if (d.repeats[i] < 0) {
            res.v = {rule::tile_negative, 0, i, d.repeats[i], value_kind::repeat};
            return res;
        }
        if (!detail::mul_fits(input[i], d.repeats[i], res.out[i])) {
            res.v = {rule::tile_output_size, 0, i, d.repeats[i], value_kind::repeat};
            return res;
        }
    }
    if (res.out.checked_count() < 0) res.v = {rule::tile_output_count, 0};
    return res;
}

namespace detail {

/// A tile as the pad that makes it: nothing before, (repeats - 1) copies after, folded by wrap
/// (repeats 0: the whole axis cropped).
constexpr pad_desc tile_as_pad(const shape& input, const tile_desc& d) {
    pad_desc p;
    p.mode = pad_mode::wrap;
    for (int i = 0; i < input.rank; ++i) {
        p.start.push_back(0);
        p.end.push_back(d.repeats[i] == 0 ? -input[i] : input[i] * (d.repeats[i] - 1)); // (checked by tile_rule)
    }
    return p;
}

/// The move plan of a tile: its wrap pad's.
template <class = void>
plan::move_plan lower_tile(const any_cview& input, const any_view& output, const tile_desc& d) {
    return lower_pad(input, output, tile_as_pad(input.sizes(), d));
}

/// Every run-time check of a tile (views, rules, type, output shape, aliasing when an output is
/// given).
template <class = void>
checked_call check_tile(const any_cview& input, const any_view* output, const tile_desc& d) {
    return check_unary(
        "tile", input, output, [&](const shape& s) { return tile_rule(s, d); }, [&] { return ", repeats " + to_string(d.repeats); }, [] {},
        rule::tile_dtype, rule::tile_output_shape);
}

} // namespace detail

/// tile as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<tile_desc> : detail::moves_operator<tile_desc, &detail::check_tile<>, &detail::lower_tile<>> {
    static constexpr std::string_view name = "tile";
    static constexpr op_form form = op_form::unary;
    static constexpr std::tuple settings{setting{"repeats", &tile_desc::repeats, "R0,R1,..", true}};
    static constexpr std::string_view about =
        "ONNX Tile (numpy.tile): X repeated R0 times along axis 0, R1 times along axis 1, ... (one\n"
        "count per dimension of X, none negative; 0 empties the axis).\n";
    template <tile_desc D, typed_view In, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<rank_verdict(view_dtype<In> == view_dtype<Out>, rule::tile_dtype, 1)>();
        if constexpr (all_static<In>) output_check<tile_rule(static_shape<In>(), D), rule::tile_output_shape, 1, Out>();
        else static_enforce<rank_verdict(In::rank == Out::rank, rule::tile_output_shape, 1)>();
    }
};

/// Output extents of a tile (static when the input's are).
template <tile_desc D, extents_type In>
constexpr auto tile_extents(const In& input) {
    return detail::unary_extents<&tile_rule, D>(input);
}

/// Repeats `input` into `output` (any strides), into a new C-order host tensor, or between typed
/// views (`tile<D>(...)`, checked at compile time). Throws strix::error naming the operand, axis
/// and values when a rule breaks or the output overlaps itself or the input.
STRIX_CPU_CALLS(tile, unary)

} // namespace strix
