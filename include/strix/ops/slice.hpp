#pragma once
/// slice: a strided window of the input, copied — ONNX Slice (starts, ends, axes, steps, negative
/// steps, clamped as ONNX clamps them), numpy's `x[a:b:c, ...]`, and DirectML's SLICE1 windows
/// (slice_window).

#include <cstdint>
#include <limits>

#include "strix/ops/common.hpp"
#include "strix/ops/traits.hpp"

namespace strix {

/// Describes a slice: for each sliced axis (`axes`, or 0, 1, ... when empty) a start, an end
/// (exclusive) and a step (1 when `steps` is empty). A negative start or end counts from the
/// end of the axis; both are then clamped into the axis as ONNX clamps them: to [0, n] with a
/// positive step, and with a negative step the start to [0, n - 1] and the end to [-1, n - 1]
/// (so INT64_MIN as an end reads down to element 0). Axes not named are kept whole.
/// Structural: usable as a template argument.
struct slice_desc {
    shape starts{};
    shape ends{};
    shape axes{};  ///< may be negative; empty: 0 .. starts.rank - 1
    shape steps{}; ///< none may be 0; empty: every step 1
};

namespace detail {
/// One axis of a slice, clamped: the first element read, the step, and how many.
struct slice_axis {
    std::int64_t first = 0;
    std::int64_t step = 1;
    std::int64_t count = 0;
};

/// ONNX's clamping of (start, end, step) on an axis of `n` elements (step != 0).
constexpr slice_axis clamp_slice(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t n) {
    slice_axis a;
    a.step = step;
    // a negative extent is no shape (the views refuse it), but the rule stays defined on it
    if (n < 0) n = 0;
    if (start < 0) start += n; // (no overflow: a negative plus a non-negative)
    if (end < 0) end += n;
    if (step > 0) {
        start = start < 0 ? 0 : (start > n ? n : start);
        end = end < 0 ? 0 : (end > n ? n : end);
        if (end > start) a.count = 1 + (end - start - 1) / step;
    } else {
        if (n == 0) return a;
        start = start < 0 ? 0 : (start > n - 1 ? n - 1 : start);
        end = end < -1 ? -1 : (end > n - 1 ? n - 1 : end);
        // |step| in unsigned arithmetic: a step of INT64_MIN has no positive int64
        const std::uint64_t mag = static_cast<std::uint64_t>(-(step + 1)) + 1;
        if (start > end) a.count = 1 + static_cast<std::int64_t>(static_cast<std::uint64_t>(start - end - 1) / mag);
    }
    a.first = start;
    return a;
}
} // namespace detail

/// The rules of slice: starts and ends of one length, axes and steps empty or of that length,
/// each axis in [-rank, rank) and named once, no step 0. The output keeps the input's rank; a
/// sliced axis has as many elements as the clamped window holds (never more than the input's).
constexpr inferred slice_rule(const shape& input, const slice_desc& d) {
    inferred res;
    const int r = input.rank;
    const int n = d.starts.rank;
    if (d.ends.rank != n || (d.axes.rank != 0 && d.axes.rank != n) || (d.steps.rank != 0 && d.steps.rank != n)) {
        const int bad = d.ends.rank != n ? d.ends.rank : d.axes.rank != 0 && d.axes.rank != n ? d.axes.rank : d.steps.rank;
        res.v = {rule::slice_count, 0, -1, bad, value_kind::entry_count};
        return res;
    }
    res.out = input;
    bool seen[max_rank] = {};
    for (int i = 0; i < n; ++i) {
        const std::int64_t given = d.axes.rank ? d.axes[i] : i;
        const int axis = detail::normalize_axis(given, r);
        if (axis < 0) {
            res.v = {rule::slice_axis_range, 0, -1, given, value_kind::given_axis};
            return res;
        }
        if (seen[axis]) {
            res.v = {rule::slice_axis_twice, 0, axis, given, value_kind::given_axis};
            return res;
        }
        seen[axis] = true;
        const std::int64_t step = d.steps.rank ? d.steps[i] : 1;
        if (step == 0) {
            res.v = {rule::slice_step_zero, 0, axis, 0, value_kind::step};
            return res;
        }
        res.out[axis] = detail::clamp_slice(d.starts[i], d.ends[i], step, input[axis]).count;
    }
    return res;
}

/// A DirectML SLICE1 window as a slice: on each axis of the input, `sizes[i]` elements from
/// `offsets[i]`, read every `strides[i]`-th one (a negative stride reads the window from its
/// last element backwards); the output has ceil(size / |stride|) elements there.
constexpr slice_desc slice_window(const shape& offsets, const shape& sizes, const shape& strides) {
    // a sum past 64 bits saturates: the slice's clamping then treats it as "past the axis"
    constexpr auto sum = [](std::int64_t a, std::int64_t b) {
        std::int64_t r = 0;
        if (detail::add_fits(a, b, r)) return r;
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    };
    slice_desc d;
    for (int i = 0; i < offsets.rank; ++i) {
        const std::int64_t off = offsets[i], size = i < sizes.rank ? sizes[i] : 0, step = i < strides.rank ? strides[i] : 1;
        d.axes.push_back(i);
        d.steps.push_back(step);
        if (step > 0) {
            d.starts.push_back(off);
            d.ends.push_back(sum(off, size));
        } else {
            // from the window's last element down to its first: an end of -1 would count from
            // the axis's end, INT64_MIN is clamped to "before element 0"
            d.starts.push_back(sum(sum(off, size), -1));
            d.ends.push_back(off > 0 ? off - 1 : std::numeric_limits<std::int64_t>::min());
        }
    }
    return d;
}

namespace detail {

/// The copy plan of a slice: the input's window as a view (its first element, its strides times
/// the steps) copied onto the output.
template <class = void>
plan::move_plan lower_slice(const any_cview& input, const any_view& output, const slice_desc& d) {
    std::array<std::int64_t, max_rank> strides = input.strides();
    std::int64_t first = 0; // element offset of the window's first element
    if (output.count() > 0) {
        for (int i = 0; i < d.starts.rank; ++i) {
            const int axis = normalize_axis(d.axes.rank ? d.axes[i] : i, input.rank());
            const slice_axis a = clamp_slice(d.starts[i], d.ends[i], d.steps.rank ? d.steps[i] : 1, input.size(axis));
            const auto k = static_cast<std::size_t>(axis);
            first += a.first * input.stride(axis);
            // one element: no stride (a step past the axis would leave 64 bits); more: |step|
            // is below the axis's size, inside the view's checked reach
            strides[k] = a.count > 1 ? input.stride(axis) * a.step : 0;
        }
    }
    // address arithmetic in integers: an empty input may have no data, and device views carry
    // device addresses
    const auto at = reinterpret_cast<std::uintptr_t>(input.data()) + static_cast<std::uintptr_t>(first * static_cast<std::int64_t>(input.element_size()));
    const any_cview window(reinterpret_cast<const std::byte*>(at), input.type(), output.sizes(), strides);
    plan::move_plan p = copy_plan(window, output);
    plan::collapse(p);
    return p;
}

/// Every run-time check of a slice (views, rules, type, output shape, aliasing when an output is
/// given).
template <class = void>
checked_call check_slice(const any_cview& input, const any_view* output, const slice_desc& d) {
    return check_unary(
        "slice", input, output, [&](const shape& s) { return slice_rule(s, d); },
        [&] { return ", starts " + to_string(d.starts) + ", ends " + to_string(d.ends) + ", axes " + to_string(d.axes) + ", steps " + to_string(d.steps); },
        [] {}, rule::slice_dtype, rule::slice_output_shape);
}

} // namespace detail

/// slice as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<slice_desc> : detail::moves_operator<slice_desc, &detail::check_slice<>, &detail::lower_slice<>> {
    static constexpr std::string_view name = "slice";
    static constexpr op_form form = op_form::unary;
    static constexpr std::tuple settings{setting{"starts", &slice_desc::starts, "S0,S1,..", true},
                                         setting{"ends", &slice_desc::ends, "E0,E1,..", true},
                                         setting{"axes", &slice_desc::axes, "A0,A1,.."}, setting{"steps", &slice_desc::steps, "T0,T1,.."}};
    static constexpr std::string_view about =
        "ONNX Slice (numpy's X[s0:e0:t0, ...]): on each of the axes (default 0, 1, ...) the elements\n"
        "start, start + step, ... short of end. Negative starts and ends count from the end of the axis;\n"
        "both are clamped into it as ONNX clamps them; steps (default 1) may be negative, not 0; axes\n"
        "not named are kept whole.\n";
    template <slice_desc D, typed_view In, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<rank_verdict(view_dtype<In> == view_dtype<Out>, rule::slice_dtype, 1)>();
        if constexpr (all_static<In>) output_check<slice_rule(static_shape<In>(), D), rule::slice_output_shape, 1, Out>();
        else static_enforce<rank_verdict(In::rank == Out::rank, rule::slice_output_shape, 1)>();
    }
};

/// Output extents of a slice (static when the input's are).
template <slice_desc D, extents_type In>
constexpr auto slice_extents(const In& input) {
    return detail::unary_extents<&slice_rule, D>(input);
}

/// Copies the window `d` of `input` into `output` (any strides), into a new C-order host tensor,
/// or between typed views (`slice<D>(...)`, checked at compile time). Throws strix::error naming
/// the operand, axis and values when a rule breaks or the output overlaps itself or the input.
STRIX_CPU_CALLS(slice, unary)

} // namespace strix
