#pragma once
/// scatter-nd (ONNX ScatterND): `output = input`, then each index tuple in the last dimension of
/// the indices addresses a slice output[tuple..., :] that receives the matching slice of the
/// updates, under a reduction. In place when the output is the input.

#include <bit>

#include "strix/ops/gather_nd.hpp"
#include "strix/ops/scatter.hpp"

namespace strix {

/// Describes a scatter-nd. Structural: usable as a template argument.
struct scatter_nd_desc {
    index_policy policy = index_policy::error;             ///< what an out-of-range index does
    scatter_reduction reduction = scatter_reduction::none; ///< how duplicate targets combine
    bool deterministic = false;                            ///< devices: combine in the CPU's order (see scatter_desc)
    bool unique_indices = false; ///< no two updates reach one element: applied straight, unordered (see scatter_desc)
};

/// The rules of scatter-nd (ONNX ScatterND): input rank r >= 1, indices rank q >= 1, tuple
/// length k = indices[q-1] in [1, r], updates of shape indices[0..q-1) ++ input[k..r). The output
/// has the input's shape.
constexpr inferred scatter_nd_rule(const shape& input, const shape& indices, const shape& updates, const scatter_nd_desc& = {}) {
    inferred res;
    const int r = input.rank, q = indices.rank;
    auto fail = [&](rule code, int operand, int axis, std::int64_t value = 0, value_kind what = value_kind::none) {
        res.v = verdict{code, operand, axis, value, what};
        return res;
    };
    if (r < 1) return fail(rule::scatter_nd_input_rank, 0, -1);
    if (q < 1) return fail(rule::scatter_nd_indices_rank, 1, -1);
    const std::int64_t k = indices[q - 1];
    if (k < 1 || k > r) return fail(rule::scatter_nd_tuple_length, 1, q - 1, k, value_kind::tuple_length);
    const std::int64_t rank = (q - 1) + (r - k);
    if (updates.rank != rank) return fail(rule::scatter_nd_updates_shape, 2, -1, updates.rank, value_kind::rank);
    for (int i = 0; i < updates.rank; ++i) {
        const std::int64_t want = i < q - 1 ? indices[i] : input[static_cast<int>(k) + i - (q - 1)];
        if (updates[i] != want) return fail(rule::scatter_nd_updates_shape, 2, i, updates[i], value_kind::size);
    }
    res.out = input;
    return res;
}

/// The rule on the axes scatter-nd's tuples index (of shapes that pass scatter_nd_rule): where
/// tuples exist, none of those axes is empty.
constexpr verdict scatter_nd_axis_rule(const shape& input, const shape& indices) {
    if (!detail::has_tuples(indices)) return {};
    for (int j = 0; j < indices[indices.rank - 1]; ++j)
        if (input[j] == 0) return {rule::scatter_nd_empty_axis, -1, j};
    return {};
}

/// The element-type rules of scatter-nd.
constexpr verdict scatter_nd_type_rule(dtype input, dtype indices, dtype updates, dtype output) {
    return detail::update_type_rule(input, indices, updates, output, rule::scatter_nd_index_type, rule::scatter_nd_dtype);
}

namespace detail {

/// Every run-time check of a scatter-nd (views, rules, types, output shape, aliasing);
/// the rules alone where `output` is null.
template <class = void>
checked_call check_scatter_nd(const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view* output,
                                        const scatter_nd_desc& d) {
    return check_scattering("scatter-nd", input, indices, updates, output, rule::scatter_nd_output_shape,
                            [&](const shape& i, const shape& x, const shape& u) { return scatter_nd_rule(i, x, u, d); }, scatter_nd_type_rule,
                            [](const shape& i, const shape& x, int) { return scatter_nd_axis_rule(i, x); });
}

/// The update plan of a checked scatter-nd: the tuple dimensions of the updates take their
/// target from a table keyed in C order of indices[:-1] — `table` (resolved offsets) on the host,
/// or, read by a device, int64 offsets minus `bias` at `device_table` — and the trailing
/// dimensions are affine in the output.
template <class = void>
plan::update_plan lower_scatter_nd(const shape& indices, const any_cview& updates, const any_view& output, const scatter_nd_desc& d,
                                          std::vector<std::int64_t> table, const std::byte* device_table = nullptr, std::int64_t bias = 0) {
    const int q = indices.rank;
    const auto k = static_cast<int>(indices[q - 1]);
    const auto oes = static_cast<std::int64_t>(output.element_size());
    const auto ues = static_cast<std::int64_t>(updates.element_size());
    shape lead;
    for (int i = 0; i + 1 < q; ++i) lead.push_back(indices[i]);
    const auto kst = c_strides(lead);
    const std::int64_t key_unit = device_table ? 8 : 1; // bytes of int64 offsets, or entries
    plan::update_plan p;
    p.rank = updates.rank();
    for (int i = 0; i < p.rank; ++i) {
        auto& dim = p.dims[static_cast<std::size_t>(i)];
        dim.size = updates.size(i);
        dim.src = updates.stride(i) * ues;
        if (i + 1 < q) dim.key = kst[static_cast<std::size_t>(i)] * key_unit;
        else dim.dst = output.stride(i - (q - 1) + k) * oes;
    }
    p.type = output.type();
    p.src = static_cast<const std::byte*>(updates.data());
    // in integers: an empty output may have no data, and device views carry device addresses
    p.dst = reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(output.data()) + static_cast<std::uintptr_t>(bias));
    const auto span = byte_span(output);
    p.span_lo = span.first;
    p.span_hi = span.second;
    p.span_lo -= bias;
    p.span_hi -= bias;
    p.reduction = d.reduction;
    p.unique = d.unique_indices;
    if (device_table) { // offsets already resolved: an int64 "index" on an axis of any size, stride 1
        p.index = device_table;
        p.index_type = dtype::int64;
        p.axis_size = std::numeric_limits<std::int64_t>::max();
        p.axis_stride = 1;
        p.clamp = true; // a no-op on offsets in range, and no out-of-range check of what is no index
    } else {
        p.table = std::move(table);
    }
    return p;
}

/// Scatter-nd's copy of the input into the output, skipping the slices the updates replace. With
/// no reduction every index tuple overwrites a whole slice output[tuple, ...], so copying it from
/// the input first only to overwrite it moves its bytes twice (8192 rows of 4 KiB into a table of
/// 16384: half the copy). Taken where the input and the output are both in C order (each slice a
/// contiguous run at the same place in both) and slices are at least `min_slice` bytes; returns
/// false, having copied nothing, elsewhere. `offsets`: each tuple's byte offset in the output (a
/// multiple of the slice's bytes). The slices' marks cost a bit each; the runs between marked
/// slices are copied as the move executor copies (threads by bytes, lines streamed from
/// options::stream_min_bytes).
template <class = void>
bool copy_unreplaced_slices(const any_cview& input, const any_view& output, std::int64_t k, std::span<const std::int64_t> offsets,
                            const cpu::options& opt, std::int64_t min_slice = 256) {
    const int r = output.rank();
    if (offsets.empty() || output.count() == 0 || input.element_size() != output.element_size()) return false;
    const auto cs = c_strides(output.sizes());
    for (int i = 0; i < r; ++i)
        if (output.size(i) > 1 && (output.stride(i) != cs[static_cast<std::size_t>(i)] || input.stride(i) != cs[static_cast<std::size_t>(i)])) return false;
    const auto es = static_cast<std::int64_t>(output.element_size());
    std::int64_t slots = 1;
    for (int i = 0; i < k; ++i) slots *= output.size(i);
    const std::int64_t slice = output.count() / slots * es; // bytes; the output has elements, so slots > 0
    if (slice < min_slice) return false;
    std::vector<std::uint64_t> marked(static_cast<std::size_t>((slots + 63) / 64), 0);
    for (const std::int64_t o : offsets) {
        const auto s = static_cast<std::uint64_t>(o / slice);
        marked[s / 64] |= std::uint64_t{1} << (s % 64);
    }
    auto is_marked = [&](std::int64_t s) { return (marked[static_cast<std::size_t>(s / 64)] >> (s % 64)) & 1u; };
    std::int64_t replaced = 0;
    for (const std::uint64_t w : marked) replaced += std::popcount(w);
    const std::int64_t bytes = (slots - replaced) * slice; // what is copied
    const bool stream = opt.stream_min_bytes >= 0 && bytes >= opt.stream_min_bytes;
    auto* dst = static_cast<std::byte*>(output.data());
    const auto* src = static_cast<const std::byte*>(input.data());
    // threads share the slots, each copying the runs of unmarked slices in its share
    cpu::detail::parallel_ranges(cpu::detail::threads_for(opt, bytes, slots), slots, [&](std::int64_t a, std::int64_t b) {
        // the runs [s, e) of unmarked slices, each found before the one ahead of it is copied
        auto next_run = [&](std::int64_t from, std::int64_t& e) {
            while (from < b && is_marked(from)) ++from;
            e = from;
            while (e < b && !is_marked(e)) ++e;
            return from;
        };
        std::int64_t e = 0;
        for (std::int64_t s = next_run(a, e); s < b;) {
            std::int64_t e2 = 0;
            const std::int64_t s2 = next_run(e, e2);
            if (s2 < b) // the next run's first lines, which start a new page the prefetcher does not know yet
                cpu::detail::fetch_run_start(src + s2 * slice, (e2 - s2) * slice);
            cpu::detail::copy_run(dst + s * slice, src + s * slice, static_cast<std::size_t>((e - s) * slice), stream, s2 >= b);
            s = s2;
            e = e2;
        }
        if (stream) cpu::detail::stream_fence();
    });
    return true;
}

/// Runs a checked scatter-nd on the CPU.
template <class = void> // instantiated only where called (its kernels are 220 type combinations)
void run_scatter_nd(const checked_call& c, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                 const scatter_nd_desc& d, const cpu::options& opt) {
    const int q = indices.rank();
    const auto axes = tuple_axes_of(output, 0, indices.size(q - 1));
    std::vector<std::int64_t> offsets;
    // resolved (and under index_policy::error checked) even when the updates are empty: a slice of
    // no elements at a row that does not exist is still an error
    if (updates.count() > 0 || d.policy == index_policy::error)
        offsets = resolve_tuples(indices, axes.n, axes.stride, d.policy, "scatter-nd", 0, c.context);
    const bool replaced = !c.in_place && d.reduction == scatter_reduction::none && updates.count() > 0 &&
                          copy_unreplaced_slices(input, output, indices.size(q - 1), offsets, opt);
    if (!c.in_place && !replaced) {
        auto p = copy_plan(input, output);
        plan::collapse(p);
        cpu::execute(p, opt);
    }
    cpu::execute(lower_scatter_nd(indices.sizes(), updates, output, d, std::move(offsets)), opt);
}
} // namespace detail


/// scatter-nd as an operator (see strix/ops/traits.hpp).
template <>
struct op_traits<scatter_nd_desc> : detail::update_operator<scatter_nd_desc, &detail::check_scatter_nd<>, &detail::run_scatter_nd<>> {
    static constexpr std::string_view name = "scatter-nd";
    static constexpr op_form form = op_form::update;
    static constexpr std::tuple settings{setting{"reduction", &scatter_nd_desc::reduction, "R"},
                                         setting{"deterministic", &scatter_nd_desc::deterministic, ""},
                                         setting{"unique-indices", &scatter_nd_desc::unique_indices, ""},
                                         setting{"out-of-range", &scatter_nd_desc::policy, "error|clamp"}};
    static constexpr std::string_view about =
        "ONNX ScatterND: output = X, then each tuple of k indices in the last dimension of I addresses\n"
        "the slice output[tuple] that receives the matching slice of U (U's shape is I.shape[:-1] +\n"
        "X.shape[k:]). Reductions, deterministic and unique-indices as for scatter.\n";
    template <scatter_nd_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>
    static void typed_rules() {
        using namespace detail;
        static_enforce<scatter_nd_type_rule(view_dtype<In>, view_dtype<Idx>, view_dtype<Upd>, view_dtype<Out>)>();
        if constexpr (all_static<In, Idx, Upd>)
            output_check<scatter_nd_rule(static_shape<In>(), static_shape<Idx>(), static_shape<Upd>(), D), rule::scatter_nd_output_shape, 3, Out>();
        else static_enforce<rank_verdict(In::rank == Out::rank, rule::scatter_nd_output_shape, 3)>();
    }
};

/// Scatters the slices of `updates` into `output` at the index tuples of `indices`; `output`
/// starts as a copy of `input`, or is `input` itself (the same view: in place); the allocating
/// call makes a new C-order copy of `input`; the typed call `scatter_nd<D>(...)` is checked at
/// compile time. Every index is checked before anything is written; duplicates combine under
/// `d.reduction` in C order of the updates. Throws strix::error naming the operand, axis and
/// shapes when a rule breaks, when an index is out of range under index_policy::error, or when
/// the output overlaps an operand.
STRIX_CPU_CALLS(scatter_nd, update)

} // namespace strix
