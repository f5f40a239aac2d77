#pragma once
/// pad: grows every dimension by a start and an end count, filling with a constant or folding
/// the input (edge, reflect, symmetric, wrap); pads may be wider than the input (the fold repeats,
/// exactly as numpy.pad), and negative pads crop.

#include "strix/cpu/executor.hpp"
#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"
#include "strix/scalar.hpp"

namespace strix {

/// Describes a pad: one start and one end count per dimension (`start.rank` must be the input's
/// rank). A negative count crops that side first; the positive ones then pad what is left.
/// Structural: usable as a template argument.
struct pad_desc {
    pad_mode mode = pad_mode::constant;
    shape start{}; ///< elements added before each dimension
    shape end{};   ///< elements added after each dimension
    scalar value{}; ///< the constant fill (constant mode), exact in the element type
};

/// The rules of pad: one start and end per dimension; a negative pad crops that side (and may
/// not remove more than the axis has); the folding modes need an element left to fold from on a
/// padded axis; output[i] = input[i] + start[i] + end[i], which like the output's element count
/// must not exceed 2^63 - 1.
constexpr inferred pad_rule(const shape& input, const pad_desc& d) {
    inferred res;
    if (d.start.rank != input.rank) {
        res.v = {rule::pad_count, 0, -1, d.start.rank, value_kind::start_count};
        return res;
    }
    if (d.end.rank != input.rank) {
        res.v = {rule::pad_count, 0, -1, d.end.rank, value_kind::end_count};
        return res;
    }
    res.out = input;
    for (int i = 0; i < input.rank; ++i) {
        const std::int64_t s = d.start[i], e = d.end[i];
        // crops first, then pads; a sum that leaves 64 bits downwards crops more than there is
        std::int64_t kept = input[i];
        if (!detail::add_fits(kept, s < 0 ? s : 0, kept) || !detail::add_fits(kept, e < 0 ? e : 0, kept) || kept < 0) {
            res.v = {rule::pad_crop, 0, i, s < 0 ? s : e, value_kind::pad};
            return res;
        }
        if (d.mode != pad_mode::constant && kept == 0 && (s > 0 || e > 0)) {
            res.v = {rule::pad_empty_source, 0, i};
            return res;
        }
        if (!detail::add_fits(kept, s > 0 ? s : 0, res.out[i]) || !detail::add_fits(res.out[i], e > 0 ? e : 0, res.out[i])) {
            res.v = {rule::pad_output_size, 0, i, s > e ? s : e, value_kind::pad};
            return res;
        }
    }
    if (res.out.checked_count() < 0) res.v = {rule::pad_output_count, 0};
    return res;
}

/// The element-type rule of pad: a constant fill must be exact in the element type.
template <class = void>
verdict pad_value_rule(dtype input, const pad_desc& d) {
    std::array<std::byte, 16> probe{};
    if (d.mode == pad_mode::constant && !detail::scalar_bytes(d.value, input, probe.data())) return {rule::pad_value_range};
    return {};
}

/// Output extents of a pad (static when the input's are).
template <pad_desc D, extents_type In>
constexpr auto pad_extents(const In& input) {
    return detail::unary_extents<&pad_rule, D>(input);
}

namespace detail {

template <class = void>
plan::move_plan lower_pad(const any_cview& full_input, const any_view& output, const pad_desc& d) {
    // negative pads crop the input first; the positive ones pad what is left
    shape kept = full_input.sizes(), start = d.start;
    std::int64_t first = 0; // element offset of the cropped input
    for (int i = 0; i < kept.rank; ++i) {
        const std::int64_t s = d.start[i], e = d.end[i];
        if (s < 0) first -= s * full_input.stride(i);
        kept[i] += (s < 0 ? s : 0) + (e < 0 ? e : 0);
        start[i] = s < 0 ? 0 : s;
    }
    // address arithmetic in integers: an empty input may have no data (a null pointer), and
    // device views carry device addresses
    const auto at = reinterpret_cast<std::uintptr_t>(full_input.data()) + static_cast<std::uintptr_t>(first * static_cast<std::int64_t>(full_input.element_size()));
    const any_cview input(reinterpret_cast<const std::byte*>(at), full_input.type(), kept, full_input.strides());
    plan::move_plan p = copy_plan(input, output); // output sizes, both sides' strides
    scalar_bytes(d.value, input.type(), p.fill.data());
    for (int i = 0; i < p.rank; ++i) {
        if (kept[i] == p.dims[static_cast<std::size_t>(i)].size) continue;
        // affine on the input's own coordinates, folded on the pads (nothing per coordinate, so
        // however wide the pads, the plan stays this size)
        auto& dim = p.dims[static_cast<std::size_t>(i)];
        dim.padded = true;
        dim.fold = d.mode;
        dim.lo = start[i];
        dim.hi = start[i] + kept[i];
    }
    plan::collapse(p);
    return p;
}

/// Every run-time check of a pad (views, rules, the fill value, output shape and aliasing when
/// an output is given).
template <class = void>
checked_call check_pad(const any_cview& input, const any_view* output, const pad_desc& d) {
    return check_unary(
        "pad", input, output, [&](const shape& s) { return pad_rule(s, d); },
        [&] { return ", start " + to_string(d.start) + ", end " + to_string(d.end); },
        [&] {
            const verdict value = pad_value_rule(input.type(), d);
            if (!value.ok()) enforce(value, {}, "value " + d.value.to_string() + ", element type " + std::string(name(input.type())));
        },
        rule::pad_dtype, rule::pad_output_shape);
}

} // namespace detail


/// pad as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<pad_desc> : detail::moves_operator<pad_desc, &detail::check_pad<>, &detail::lower_pad<>> {
    static constexpr std::string_view name = "pad";
    static constexpr op_form form = op_form::unary;
    static constexpr std::tuple settings{setting{"mode", &pad_desc::mode, "constant|edge|reflect|symmetric|wrap", true},
                                         setting{"start", &pad_desc::start, "P0,P1,..", true}, setting{"end", &pad_desc::end, "Q0,Q1,..", true},
                                         setting{"value", &pad_desc::value, "V"}};
    static constexpr std::string_view about =
        "Pads every dimension (numpy.pad): one start and one end count per dimension of X. Pads may be\n"
        "wider than the input; a negative count crops that side first (ONNX Pad, torch F.pad) and the\n"
        "positive ones then pad what is left. The value (constant mode, default 0) is a number: an\n"
        "integer literal is taken exactly, a fractional value truncates toward zero for integer types;\n"
        "other modes ignore it, as DirectML does.\n";
    template <pad_desc D, typed_view In, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<rank_verdict(view_dtype<In> == view_dtype<Out>, rule::pad_dtype, 1)>();
        if constexpr (all_static<In>) output_check<pad_rule(static_shape<In>(), D), rule::pad_output_shape, 1, Out>();
        else static_enforce<rank_verdict(In::rank == Out::rank, rule::pad_output_shape, 1)>();
    }
};

/// Pads `input` into `output` (any strides) as `d` says, into a new C-order host tensor, or
/// between typed views (`pad<D>(...)`, checked at compile time). Throws strix::error naming the
/// operand, axis and shapes when a rule breaks, when the constant does not fit the element type,
/// or when the output overlaps itself or the input.
STRIX_CPU_CALLS(pad, unary)

} // namespace strix
