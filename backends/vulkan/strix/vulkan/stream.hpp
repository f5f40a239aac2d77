#pragma once
/// Device tensors and command streams: a stream records many operators and submits them at
/// once, with a barrier only where an operator touches a buffer that an earlier one in the
/// stream wrote (or writes one that an earlier one read).

#include <bit>
#include <deque>
#include <functional>
#include <limits>
#include <span>

#include "strix/ops/gather.hpp"
#include "strix/ops/gather_elements.hpp"
#include "strix/ops/gather_nd.hpp"
#include "strix/ops/join.hpp"
#include "strix/ops/pad.hpp"
#include "strix/ops/scatter.hpp"
#include "strix/ops/scatter_nd.hpp"
#include "strix/ops/split.hpp"
#include "strix/vulkan/context.hpp"

namespace strix::vulkan {

/// A strided view of elements in a device buffer (non-owning; the buffer must outlive its use).
struct device_view {
    VkBuffer buffer = VK_NULL_HANDLE;  ///< the buffer holding the elements (for barriers)
    VkDeviceAddress address = 0;       ///< device address of the element at coordinates 0
    dtype type = dtype::float32;
    shape sizes{};
    std::array<std::int64_t, max_rank> strides{}; ///< element strides, any sign

    /// Device addresses [first, last) of the bytes the view touches.
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> range() const {
        const auto r = strix::detail::byte_range(any_cview(as_any()));
        return {static_cast<std::uint64_t>(r.first), static_cast<std::uint64_t>(r.second)};
    }

    /// The same view in the dtype-erased form the rules and plans take, its data pointer being
    /// the device address (never dereferenced on the host).
    [[nodiscard]] any_view as_any() const {
        return any_view(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), type, sizes, strides);
    }
};

/// The pieces of a device view cut along `d.axis` into `sizes`, as views of the same buffer (no
/// copy, nothing recorded); the same rules and messages as strix::split_views.
inline std::vector<device_view> split_views(const device_view& input, std::span<const std::int64_t> sizes, const split_desc& d = {}) {
    const auto parts = strix::split_views(input.as_any(), sizes, d);
    std::vector<device_view> out;
    for (const auto& p : parts) {
        device_view v = input;
        v.address = static_cast<VkDeviceAddress>(reinterpret_cast<std::uintptr_t>(p.data()));
        v.sizes = p.sizes();
        out.push_back(v);
    }
    return out;
}

namespace detail {

/// The plan with whole rows moved in w-byte elements (w = 16, else 8, else 4 bytes), when its
/// innermost dimension copies a contiguous row on both sides and every address, stride and
/// offset of the plan is a multiple of w (so are the rows' lengths in bytes); nullopt otherwise.
/// A join, split or row gather of float32 rows then moves 16 bytes per invocation.
inline std::optional<plan::move_plan> widened(const plan::move_plan& p) {
    const auto e = static_cast<std::int64_t>(p.elem);
    const auto& in = p.dims[static_cast<std::size_t>(p.rank - 1)];
    if (p.rank == 0 || e >= 16 || !in.is_affine() || in.key != 0 || in.dst != e || in.src != e) return std::nullopt;
    const auto fits = [&](std::int64_t w) {
        const auto ok = [w](std::int64_t v) { return v % w == 0; };
        if (!ok(in.size * e) || !ok(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p.src))) ||
            !ok(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p.dst))) || (p.index && !ok(p.axis_stride)))
            return false;
        for (int k = 0; k + 1 < p.rank; ++k) {
            const auto& d = p.dims[static_cast<std::size_t>(k)];
            if (!ok(d.dst) || !ok(d.src)) return false;
            for (const auto m : d.map)
                if (m != plan::no_source && !ok(m)) return false;
        }
        return true;
    };
    std::int64_t w = 16;
    while (w > e && !fits(w)) w /= 2;
    if (w <= e) return std::nullopt;
    plan::move_plan q = p;
    auto& qi = q.dims[static_cast<std::size_t>(q.rank - 1)];
    qi.size = in.size * e / w;
    qi.dst = qi.src = w;
    q.elem = static_cast<std::size_t>(w);
    for (std::int64_t b = e; b < w; b += e) // the fill element, repeated across the wider one
        std::memcpy(q.fill.data() + b, p.fill.data(), static_cast<std::size_t>(e));
    return q;
}

/// Elements per invocation of a move: 16 / elem when the output is contiguous in plan order,
/// 16-byte aligned and a whole number of 16-byte chunks (each invocation then writes one
/// chunk), else 1.
inline std::uint32_t chunk_elements(const plan::move_plan& p) {
    const auto e = static_cast<std::int64_t>(p.elem);
    if (e >= 16 || reinterpret_cast<std::uintptr_t>(p.dst) % 16 != 0 || p.count() * e % 16 != 0) return 1;
    std::int64_t expect = e;
    for (int k = p.rank - 1; k >= 0; --k) {
        const auto& d = p.dims[static_cast<std::size_t>(k)];
        if (d.dst != expect) return 1;
        expect *= d.size;
    }
    return static_cast<std::uint32_t>(16 / e);
}

/// Whether a move can be located in 32-bit arithmetic (move.comp's NARROW): fewer than 2^31
/// elements, every sum of output, source and key terms inside an int, and, for chunks of `vec`
/// elements, an innermost dimension of `vec` elements or more (so a chunk crosses at most one
/// row end). The gathered index's term is added in 64 bits and needs no bound.
inline bool narrow_fits(const plan::move_plan& p, std::uint32_t vec) {
    constexpr std::int64_t limit = std::int64_t{1} << 31;
    if (p.count() >= limit || p.dims[static_cast<std::size_t>(p.rank - 1)].size < static_cast<std::int64_t>(vec)) return false;
    std::int64_t dst = 0, src = 0, key = 0;
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        // the largest |term| over `n` coordinates 0, 1, ... of a stride (sizes are below 2^31)
        auto reach = [&](std::int64_t n, std::int64_t stride) {
            return stride > -limit && stride < limit ? std::max<std::int64_t>(n - 1, 0) * (stride < 0 ? -stride : stride) : limit;
        };
        dst += reach(d.size, d.dst);
        key += reach(d.size, d.key);
        if (d.is_affine()) {
            src += reach(d.size, d.src);
        } else {
            std::int64_t m = reach(d.hi - d.lo, d.src);
            for (const std::int64_t o : d.map)
                if (o != plan::no_source) m = std::max(m, o > -limit && o < limit ? (o < 0 ? -o : o) : limit);
            src += m;
        }
        if (dst >= limit || src >= limit || key >= limit) return false;
    }
    return true;
}

/// A multiplier m and shift s that divide every x below 2^31 by d (1 <= d < 2^31):
/// x / d == (x * m) >> s, with s = 31 + ceil(log2 d) and m = ceil(2^s / d) < 2^32. The
/// rounding m - 2^s / d is below 1, so x * m / 2^s exceeds x / d by less than x / 2^s < 1 / d,
/// too little to reach the next quotient.
inline std::pair<std::uint32_t, std::uint32_t> divider(std::int64_t d) {
    std::uint32_t l = 0;
    while ((std::int64_t{1} << l) < d) ++l;
    const std::uint32_t s = 31 + l;
    const auto den = static_cast<std::uint64_t>(d);
    return {static_cast<std::uint32_t>(((std::uint64_t{1} << s) + den - 1) / den), s};
}

/// move.comp's NarrowRecord of a dimension (48 bytes), `map` its map's byte offset from the
/// records, 1 for a folded dimension, 0 for an affine one.
inline std::array<std::int32_t, 12> narrow_record(const plan::move_dim& d, std::int32_t map) {
    const auto [m, s] = divider(d.size);
    auto i32 = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
    return {i32(d.size), i32(d.src), i32(d.lo), i32(d.hi), i32(d.dst), i32(d.key), map, 0, static_cast<std::int32_t>(m), static_cast<std::int32_t>(s), 0, 0};
}

/// move.comp's fold(): the source coordinate of coordinate j outside [0, n) under fold `code`
/// (1 constant, 2 edge, 3 reflect, 4 symmetric, 5 wrap; -1: fill), or nothing where the shader
/// cannot compute it: it takes no division, so a pad must lie within one period of the fold.
inline std::optional<std::int64_t> folded_source(std::int64_t code, std::int64_t j, std::int64_t n) {
    if (code == 1) return -1;
    if (code == 2) return j < 0 ? 0 : n - 1;
    if (code == 3 && n == 1) return 0;
    const std::int64_t p = code == 3 ? 2 * n - 2 : code == 4 ? 2 * n : n;
    const std::int64_t m = j < 0 ? j + p : j >= p ? j - p : j;
    if (m < 0 || m >= p) return std::nullopt;
    if (code == 5 || m < n) return m;
    return code == 3 ? p - m : p - 1 - m;
}

/// Whether fold `code` gives every padded coordinate of a mapped dimension exactly the term in
/// its map (checked against the map, which the pad's lowering built).
inline bool fold_matches(const plan::move_dim& d, std::int64_t code) {
    const std::int64_t n = d.hi - d.lo;
    if (d.size >= (std::int64_t{1} << 30) || n < 0 || (n == 0 && code != 1)) return false;
    std::size_t at = 0;
    auto same = [&](std::int64_t o) {
        const auto s = folded_source(code, o - d.lo, n);
        return s && d.map[at++] == (*s < 0 ? plan::no_source : *s * d.src);
    };
    for (std::int64_t o = 0; o < d.lo; ++o)
        if (!same(o)) return false;
    for (std::int64_t o = d.hi; o < d.size; ++o)
        if (!same(o)) return false;
    return true;
}

/// The fold that every mapped dimension of a plan matches (move.comp's FOLD), or 0 (none, or no
/// mapped dimension): the narrow path then computes the padded coordinates' terms instead of
/// loading them from the maps, a load that the element's own load would wait for.
inline std::uint32_t plan_fold(const plan::move_plan& p) {
    for (std::uint32_t code = 1; code <= 5; ++code) {
        bool any = false, all = true;
        for (int i = 0; i < p.rank && all; ++i) {
            const auto& d = p.dims[static_cast<std::size_t>(i)];
            if (d.is_affine()) continue;
            any = true;
            all = fold_matches(d, code);
        }
        if (!any) return 0;
        if (all) return code;
    }
    return 0;
}

} // namespace detail

/// A C-order tensor that owns a device buffer.
class device_tensor {
public:
    device_tensor() = default;
    /// An uninitialised tensor of `type` and `sizes` on `ctx`'s device.
    device_tensor(const context& ctx, dtype type, const shape& sizes) : type_(type), shape_(sizes) {
        const std::int64_t n = sizes.checked_count();
        if (n < 0) throw error(error_code::invalid_argument, "strix::vulkan::device_tensor: shape " + to_string(sizes) + " has a negative size or too many elements");
        buf_ = ctx.create_buffer(static_cast<std::uint64_t>(n) * size_of(type), memory::device);
    }
    [[nodiscard]] dtype type() const { return type_; }
    [[nodiscard]] const shape& sizes() const { return shape_; }
    [[nodiscard]] std::uint64_t bytes() const { return static_cast<std::uint64_t>(shape_.count()) * size_of(type_); }
    [[nodiscard]] const buffer& storage() const { return buf_; }
    /// The whole tensor as a C-order view.
    [[nodiscard]] device_view view() const { return {buf_.handle(), buf_.address(), type_, shape_, c_strides(shape_)}; }

private:
    dtype type_ = dtype::float32;
    shape shape_{};
    buffer buf_;
};

/// How a stream runs.
struct stream_options {
    /// Write device timestamps around the stream's work, for device_seconds(). Off by default:
    /// on some devices (lavapipe) the query reset and the two timestamps cost more than a small
    /// operator.
    bool timestamps = false;
};

/// Records operators on device views and runs them together. One thread at a time.
class stream {
public:
    /// A stream on `ctx`, recording into a frame the context keeps between streams (see
    /// strix::vulkan::frame): making one asks the driver for nothing once a stream has run.
    explicit stream(context& ctx, const stream_options& opt = {}) : ctx_(&ctx), frame_(ctx.acquire_frame()) {
        cmd_ = frame_->cmd;
        fence_ = frame_->fence;
        queries_ = opt.timestamps ? frame_->queries : VK_NULL_HANDLE;
        begin();
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    /// Waits for submitted work, then gives the frame back to the context.
    ~stream() {
        if (submitted_ && !done_) ctx_->vk().vkWaitForFences(ctx_->handle(), 1, &fence_, VK_TRUE, UINT64_MAX);
        ctx_->release_frame(std::move(frame_));
    }

    /// Records a gather (same rules and messages as strix::gather).
    void gather(const device_view& input, const device_view& indices, const device_view& output, const gather_desc& d = {}) {
        ensure_recording();
        const std::string context = strix::detail::check_gather(input.as_any(), indices.as_any(), output.as_any(), d);
        const auto p = strix::detail::lower_gather(input.as_any(), indices.as_any(), output.as_any(), d, context, strix::detail::index_reading::device);
        const int axis = strix::detail::normalize_axis(d.axis, input.sizes.rank);
        // the indices that matter: for the DirectML form, the last K dimensions
        device_view idx = indices;
        if (d.index_dimensions >= 0) {
            const int lead = indices.sizes.rank - d.index_dimensions;
            idx.sizes = shape{};
            for (int i = lead; i < indices.sizes.rank; ++i) {
                idx.strides[static_cast<std::size_t>(idx.sizes.rank)] = indices.strides[static_cast<std::size_t>(i)];
                idx.sizes.push_back(indices.sizes[i]);
            }
        }
        if (d.policy == index_policy::error && output.sizes.count() == 0) {
            check_indices_only(idx, input.sizes[axis], axis, "gather", context);
            return;
        }
        if (d.policy == index_policy::error)
            check_indices_later(idx, [n = input.sizes[axis], axis, context](const any_cview& h) {
                strix::detail::resolve_indices(h, n, 1, index_policy::error, "gather", axis, context);
            });
        record_move(p, {input.range(), indices.range()}, output.range());
    }

    /// Records a join (same rules and messages as strix::join).
    void join(std::span<const device_view> inputs, const device_view& output, const join_desc& d = {}) {
        ensure_recording();
        std::vector<any_cview> views;
        for (const auto& v : inputs) views.push_back(v.as_any());
        strix::detail::check_join(views, output.as_any(), d);
        const auto plans = strix::detail::lower_join(views, output.as_any(), d);
        // one hazard check for the whole join: the inputs' slices of the output are disjoint
        std::vector<range> reads;
        for (const auto& v : inputs) reads.push_back(v.range());
        barrier_for(reads, output.range());
        for (const auto& p : plans) record_move(p, {}, {}, false);
    }

    /// Records a pad (same rules and messages as strix::pad).
    void pad(const device_view& input, const device_view& output, const pad_desc& d) {
        ensure_recording();
        const any_view out = output.as_any();
        strix::detail::check_pad(input.as_any(), &out, d);
        record_move(strix::detail::lower_pad(input.as_any(), out, d), {input.range()}, output.range());
    }

    /// Records a scatter (same rules and messages as strix::scatter); in place when `output` is
    /// `input`. Duplicate targets resolve as on the CPU (the last update in C order wins) without
    /// a reduction; with one, see scatter_desc::deterministic.
    void scatter(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output,
                 const scatter_desc& d = {}) {
        ensure_recording();
        const any_view out = output.as_any();
        const auto c = strix::detail::check_scatter(input.as_any(), indices.as_any(), updates.as_any(), out, d);
        const int axis = strix::detail::normalize_axis(d.axis, input.sizes.rank);
        const auto n = static_cast<std::uint64_t>(updates.sizes.count());
        // the claim path's last pass writes every element of a C-order output, so it also does
        // the copy of a C-order input with the same layout (16 bytes per element in all, where
        // a copy and then that pass would move 24)
        const bool fused = !c.in_place && d.reduction == scatter_reduction::none && claims_scatter(output, n) && c_order(input) && c_order(output);
        if (!fused) copy_unless_in_place(c.in_place, input, output);
        if (n == 0) return;
        if (d.policy == index_policy::error)
            check_indices_later(indices, [n = input.sizes[axis], axis, context = c.context](const any_cview& h) {
                strix::detail::resolve_indices(h, n, 1, index_policy::error, "scatter", axis, context);
            });
        const auto es = static_cast<std::int64_t>(size_of(output.type));
        const auto ies = static_cast<std::int64_t>(size_of(indices.type));
        std::vector<std::int64_t> dims;
        for (int i = 0; i < updates.sizes.rank; ++i) {
            const auto u = static_cast<std::size_t>(i);
            dims.insert(dims.end(), {updates.sizes[i], i == axis ? 0 : output.strides[u] * es, updates.strides[u] * es, indices.strides[u] * ies, 0, 0, 0});
        }
        record_updates({output, updates, std::move(dims), indices.address, index_code(indices.type), input.sizes[axis],
                        output.strides[static_cast<std::size_t>(axis)] * es, output.address, d.policy == index_policy::clamp, d.reduction,
                        d.deterministic, {updates.range(), indices.range()}, c.context, fused ? input.address : 0});
    }

    /// Records a gather-elements (same rules and messages as strix::gather_elements).
    void gather_elements(const device_view& input, const device_view& indices, const device_view& output, const gather_elements_desc& d = {}) {
        ensure_recording();
        const std::string context = strix::detail::check_gather_elements(input.as_any(), indices.as_any(), output.as_any(), d);
        const auto p = strix::detail::lower_gather_elements(input.as_any(), indices.as_any(), output.as_any(), d, context,
                                                            strix::detail::index_reading::device);
        if (p.rank == 0 || p.count() == 0) return;
        const int axis = strix::detail::normalize_axis(d.axis, input.sizes.rank);
        if (d.policy == index_policy::error)
            check_indices_later(indices, [n = input.sizes[axis], axis, context](const any_cview& h) {
                strix::detail::resolve_indices(h, n, 1, index_policy::error, "gather-elements", axis, context);
            });
        record_move(p, {input.range(), indices.range()}, output.range());
    }

    /// Records a gather-nd (same rules and messages as strix::gather_nd): a pass that resolves the
    /// index tuples into offsets, then a move that reads them.
    void gather_nd(const device_view& input, const device_view& indices, const device_view& output, const gather_nd_desc& d = {}) {
        ensure_recording();
        const std::string context = strix::detail::check_gather_nd(input.as_any(), indices.as_any(), output.as_any(), d);
        const auto axes = strix::detail::tuple_axes_of(input.as_any(), d.batch_dimensions, indices.sizes[indices.sizes.rank - 1]);
        if (output.sizes.count() == 0) { // nothing to move, but the tuples are checked all the same
            if (d.policy == index_policy::error && indices.sizes.count() > 0) record_tuples(indices, axes, d.policy, "gather-nd", context, false);
            return;
        }
        const range table = record_tuples(indices, axes, d.policy, "gather-nd", context);
        const auto p = strix::detail::lower_gather_nd(input.as_any(), indices.sizes, output.as_any(), d, {},
                                                      reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(table.first)), axes.bias);
        record_move(p, {input.range(), table}, output.range());
    }

    /// Records a split into `outputs` (same rules and messages as strix::split).
    void split(const device_view& input, std::span<const device_view> outputs, const split_desc& d = {}) {
        ensure_recording();
        std::vector<any_view> views;
        for (const auto& v : outputs) views.push_back(v.as_any());
        strix::detail::check_split(input.as_any(), views, d);
        const auto plans = strix::detail::lower_split(input.as_any(), views, d);
        for (std::size_t k = 0; k < plans.size(); ++k) record_move(plans[k], {input.range()}, outputs[k].range());
    }

    /// Records a copy of `input` into `output`: the same type and shape, any strides, no
    /// overlap. Views that are contiguous and 16-byte aligned run as the plain 16-byte copy
    /// shader; others as a move plan.
    void copy(const device_view& input, const device_view& output) {
        ensure_recording();
        const any_view out = output.as_any();
        strix::detail::check_view("copy", "input", input.as_any(), false);
        strix::detail::check_view("copy", "output", out, true);
        if (input.type != output.type || input.sizes != output.sizes)
            throw error(error_code::rule_violation, "strix::copy: the input " + to_string(input.sizes) + " " + std::string(name(input.type)) +
                                                        " and the output " + to_string(output.sizes) + " " + std::string(name(output.type)) +
                                                        " differ in shape or type");
        strix::detail::check_disjoint("copy", out, "input", input.as_any());
        if (output.sizes.count() == 0) return;
        auto p = strix::detail::copy_plan(input.as_any(), out);
        plan::collapse(p);
        const auto e = static_cast<std::int64_t>(p.elem);
        const auto& d = p.dims[0];
        const std::uint64_t bytes = static_cast<std::uint64_t>(p.count()) * p.elem;
        if (p.rank == 1 && d.dst == e && d.src == e && bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.src) % 16 == 0 &&
            reinterpret_cast<std::uintptr_t>(p.dst) % 16 == 0) {
            push pc{};
            pc.src = reinterpret_cast<std::uintptr_t>(p.src);
            pc.dst = reinterpret_cast<std::uintptr_t>(p.dst);
            pc.count = bytes / 16;
            barrier_for({input.range()}, output.range());
            pipeline_key key{shader::copy, 16, 1, 0, 0, 0};
            key.unroll = unroll_16;
            dispatch(key, pc, (pc.count + 256 * unroll_16 - 1) / (256 * unroll_16));
            ++plain_copies_;
            return;
        }
        record_move(p, {input.range()}, output.range());
    }

    /// Records a scatter-nd (same rules and messages as strix::scatter_nd); in place when
    /// `output` is `input`: a pass that resolves the index tuples into offsets, then the updates.
    void scatter_nd(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output,
                    const scatter_nd_desc& d = {}) {
        ensure_recording();
        const any_view out = output.as_any();
        const auto c = strix::detail::check_scatter_nd(input.as_any(), indices.as_any(), updates.as_any(), out, d);
        copy_unless_in_place(c.in_place, input, output);
        const auto axes = strix::detail::tuple_axes_of(out, 0, indices.sizes[indices.sizes.rank - 1]);
        if (updates.sizes.count() == 0) { // nothing to update, but the tuples are checked all the same
            if (d.policy == index_policy::error && indices.sizes.count() > 0) record_tuples(indices, axes, d.policy, "scatter-nd", c.context, false);
            return;
        }
        const range table = record_tuples(indices, axes, d.policy, "scatter-nd", c.context);
        const auto walk = strix::detail::scatter_nd_walk(indices.sizes, out, 8);
        const auto es = static_cast<std::int64_t>(size_of(updates.type));
        std::vector<std::int64_t> dims;
        for (int i = 0; i < updates.sizes.rank; ++i) {
            const auto u = static_cast<std::size_t>(i);
            dims.insert(dims.end(), {updates.sizes[i], walk.dst[u], updates.strides[u] * es, walk.key[u], 0, 0, 0});
        }
        record_updates({output, updates, std::move(dims), table.first, index_code(dtype::int64), std::numeric_limits<std::int64_t>::max(), 1,
                        output.address + static_cast<std::uint64_t>(axes.bias), true, d.reduction, d.deterministic, {updates.range(), table},
                        c.context});
    }

    /// Submits everything recorded so far (once; replay() submits it again).
    void submit() {
        if (submitted_) throw error(error_code::invalid_argument, "strix::vulkan::stream: submitted twice");
        if (queries_) ctx_->vk().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
        check(ctx_->vk().vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
        ctx_->submit(cmd_, fence_);
        submitted_ = true;
    }

    /// Waits for the submitted work. Then, when an index was out of range under the `error`
    /// policy, throws the same strix::error as the CPU would (naming the position and value).
    void wait() {
        if (!submitted_) submit();
        check(ctx_->vk().vkWaitForFences(ctx_->handle(), 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
        done_ = true;
        std::uint32_t raised = 0;
        std::memcpy(&raised, frame_->flag.mapped(), 4);
        if (!raised) return;
        for (const auto& c : checks_) {
            // read the indices back and let the CPU's resolver name the first bad one
            const host_tensor host = download_view(*ctx_, c.indices);
            c.report(host.view());
        }
        throw error(error_code::index_out_of_range, "strix::vulkan: an index was out of range, but none is now (were the indices changed outside the stream?)");
    }

    /// Submits and waits.
    void run() { wait(); }

    /// Submits the recorded work again once the last submission has been waited for: a stream
    /// records once and runs many times (a decode loop's appends and gathers, every token). The
    /// same operators run on the same device views, so their buffers must still be alive; what
    /// they hold may change between runs (write new rows into a bound tensor, then replay).
    /// Asynchronous like submit(): wait() (or a wait on fence()) waits for it, and wait()
    /// reports an out-of-range index of this run. Throws strix::error when the last submission
    /// has not been waited for.
    void replay() {
        if (!submitted_) {
            submit();
            return;
        }
        if (!done_) throw error(error_code::invalid_argument, "strix::vulkan::stream: replay before the last submission was waited for (call wait())");
        check(ctx_->vk().vkResetFences(ctx_->handle(), 1, &fence_), "vkResetFences");
        std::memset(frame_->flag.mapped(), 0, 16);
        ctx_->submit(cmd_, fence_);
        done_ = false;
    }

    /// The fence the stream's submissions signal, for a caller that waits on it with its own
    /// Vulkan calls (then call wait(), which returns at once, to have index errors reported).
    [[nodiscard]] VkFence fence() const { return fence_; }

    /// Device time of the stream's work in seconds, from timestamps written around it (after
    /// wait(); 0 unless the stream was made with stream_options::timestamps and the queue has
    /// timestamps).
    [[nodiscard]] double device_seconds() const {
        if (!queries_ || !done_) return 0;
        std::uint64_t t[2] = {};
        check(ctx_->vk().vkGetQueryPoolResults(ctx_->handle(), queries_, 0, 2, sizeof t, t, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
              "vkGetQueryPoolResults");
        const std::uint32_t bits = ctx_->timestamp_bits();
        const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
        return static_cast<double>((t[1] - t[0]) & mask) * ctx_->timestamp_period_ns() * 1e-9;
    }

    /// Reads a device view back into a C-order host tensor (synchronously, on its own stream).
    static host_tensor download_view(context& ctx, const device_view& v);

private:
    /// Indices checked on the device under the `error` policy: when the flag rises, `report`
    /// runs the CPU's resolver on them (read back), which throws the CPU's exact error.
    struct index_check {
        device_view indices;
        std::function<void(const any_cview&)> report;
        std::unique_ptr<device_tensor> snapshot{}; // the indices as they were, when a later op overwrote them
    };
    /// The push constants of every shader (see shaders/common.glsl).
    struct push {
        std::uint64_t src, dst, dims, indices, count, flag;
        std::int64_t axis_size, axis_stride;
        std::uint32_t fill[4];
        std::uint32_t aux, aux2;
        std::uint64_t aux_addr;
        std::uint64_t lo;
    };
    /// What the update passes of scatter and scatter-nd need (see record_updates).
    struct update_job {
        device_view output, updates;
        std::vector<std::int64_t> dims;    ///< Dim records over the updates (size, dst, src, key, 0, 0, 0)
        std::uint64_t index_address;       ///< the indices, or scatter-nd's resolved offsets (int64)
        std::uint32_t index_type;          ///< shader index code
        std::int64_t axis_size, axis_stride;
        std::uint64_t dst_base;            ///< the output address the terms add to
        bool clamp;
        scatter_reduction reduction;
        bool deterministic;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;
        std::string context;
        std::uint64_t fused_input = 0; ///< claim path: the C-order input whose copy its last pass does (0: none)
    };

    /// Whether a scatter without a reduction takes the claim path (reduce.comp, PHASE 4 and 5):
    /// at most 4 target slots per update, since its last pass reads every slot's claim (4-byte
    /// elements need 64-bit atomics, for claims that hold the value too). On the H200 it
    /// replaced an atomic whose result each update waited for, then a store, with one atomic
    /// nobody waits for (bench/NOTES.md). context::scatter_claims() turns it off.
    [[nodiscard]] bool claims_scatter(const device_view& output, std::uint64_t n) const {
        const std::size_t elem = size_of(output.type);
        if (n == 0 || !ctx_->scatter_claims() || (elem == 4 && !ctx_->int64_atomics())) return false;
        const range out = output.range();
        return (out.second - out.first) / elem <= 4 * n;
    }

    /// Whether a view's elements lie in C order without gaps (size-1 dimensions aside).
    static bool c_order(const device_view& v) {
        std::int64_t expect = 1;
        for (int i = v.sizes.rank - 1; i >= 0; --i) {
            if (v.sizes[i] != 1 && v.strides[static_cast<std::size_t>(i)] != expect) return false;
            expect *= v.sizes[i];
        }
        return true;
    }

    template <class F>
    void check_indices_later(const device_view& indices, F&& report) {
        checks_.push_back(index_check{indices, std::forward<F>(report), nullptr});
    }

    void copy_unless_in_place(bool in_place, const device_view& input, const device_view& output) {
        if (in_place) return;
        auto p = strix::detail::copy_plan(input.as_any(), output.as_any());
        plan::collapse(p);
        record_move(p, {input.range()}, output.range());
    }

    /// Records the tuple pass of gather-nd / scatter-nd: one int64 offset per tuple (minus the
    /// axes' bias) in a new device buffer, whose address range it returns. With `table` false
    /// (an operator that moves nothing) it only checks the tuples under the `error` policy,
    /// writes no table and returns an empty range.
    std::pair<std::uint64_t, std::uint64_t> record_tuples(const device_view& indices, const strix::detail::tuple_axes& axes, index_policy policy,
                                                          const char* op, const std::string& context, bool table = true) {
        const int q = indices.sizes.rank;
        const std::int64_t k = indices.sizes[q - 1];
        const auto ies = static_cast<std::int64_t>(size_of(indices.type));
        std::vector<std::int64_t> dims;
        for (int i = 0; i + 1 < q; ++i) dims.insert(dims.end(), {indices.sizes[i], 0, 0, indices.strides[static_cast<std::size_t>(i)] * ies, 0, 0, 0});
        for (std::int64_t j = 0; j < k; ++j)
            dims.insert(dims.end(), {axes.n[static_cast<std::size_t>(j)], 0, axes.stride[static_cast<std::size_t>(j)],
                                     j * indices.strides[static_cast<std::size_t>(q - 1)] * ies, 0, 0, 0});
        if (policy == index_policy::error)
            check_indices_later(indices, [axes, op, context](const any_cview& h) {
                strix::detail::resolve_tuples(h, axes.n, axes.stride, index_policy::error, op, axes.first, context);
            });
        return record_resolve(indices, q - 1, k, std::move(dims), axes.bias, policy, table);
    }

    /// Under the `error` policy, the indices of an operator that moves nothing (its output is
    /// empty, its indices are not) are still checked against the axis's size `n`, as on the CPU:
    /// the tuple pass over each index as a 1-tuple, writing nothing but the flag.
    void check_indices_only(const device_view& indices, std::int64_t n, int axis, const char* op, const std::string& context) {
        if (indices.sizes.count() == 0) return;
        const auto ies = static_cast<std::int64_t>(size_of(indices.type));
        std::vector<std::int64_t> dims;
        for (int i = 0; i < indices.sizes.rank; ++i) dims.insert(dims.end(), {indices.sizes[i], 0, 0, indices.strides[static_cast<std::size_t>(i)] * ies, 0, 0, 0});
        if (indices.sizes.rank == 0) dims.insert(dims.end(), {1, 0, 0, 0, 0, 0, 0});
        const int rank = std::max(indices.sizes.rank, 1);
        dims.insert(dims.end(), {n, 0, 0, 0, 0, 0, 0});
        check_indices_later(indices, [n, axis, op, context](const any_cview& h) {
            strix::detail::resolve_indices(h, n, 1, index_policy::error, op, axis, context);
        });
        record_resolve(indices, rank, 1, std::move(dims), 0, index_policy::error, false);
    }

    /// Dispatches tuples.comp over `tuple_rank` tuple dimensions of k components (the Dim
    /// records `dims`); into a new table of int64 offsets when `table`.
    std::pair<std::uint64_t, std::uint64_t> record_resolve(const device_view& indices, int tuple_rank, std::int64_t k, std::vector<std::int64_t> dims,
                                                           std::int64_t bias, index_policy policy, bool table) {
        const std::int64_t tuples = indices.sizes.count() / k;
        push p{};
        range table_range{0, 0};
        if (table) {
            const scratch_block t = scratch(static_cast<std::uint64_t>(tuples) * 8);
            table_range = {t.address, t.address + t.size};
            p.dst = t.address;
        }
        p.dims = upload_meta(dims);
        p.indices = indices.address;
        p.count = static_cast<std::uint64_t>(tuples);
        p.flag = frame_->flag.address();
        p.axis_stride = bias;
        p.aux = static_cast<std::uint32_t>(k);
        barrier_for({indices.range()}, table_range);
        dispatch({shader::tuples, 8, static_cast<std::uint32_t>(tuple_rank), index_code(indices.type), policy == index_policy::clamp ? 1u : 0u, 0}, p);
        return table_range;
    }

    /// Records the update passes of scatter / scatter-nd. Without a reduction the last update
    /// per target wins: the claim path (see claims_scatter), else scatter.comp's two passes, the
    /// second only where a target repeats. With one: atomics (one pass), or — deterministic, or 8-byte
    /// elements on a device without 64-bit atomics — the bucket path in C order of the updates.
    /// Targets are numbered by their distance from the output's lowest address (slots).
    void record_updates(const update_job& j) {
        const std::uint64_t n = static_cast<std::uint64_t>(j.updates.sizes.count());
        if (n >= (std::uint64_t{1} << 32) - 1)
            throw error(error_code::unsupported, "strix::vulkan: more than 2^32 - 2 updates in one scatter (" + j.context + ")");
        const auto elem = static_cast<std::uint32_t>(size_of(j.output.type));
        const range out = j.output.range();
        const std::uint64_t slots = (out.second - out.first) / elem;
        push p{};
        p.src = j.updates.address;
        p.dst = j.dst_base;
        p.dims = upload_meta(j.dims);
        p.indices = j.index_address;
        p.count = n;
        p.flag = frame_->flag.address();
        p.axis_size = j.axis_size;
        p.axis_stride = j.axis_stride;
        p.lo = out.first;
        const auto rank = static_cast<std::uint32_t>(j.updates.sizes.rank);
        const std::uint32_t policy = j.clamp ? 1u : 0u;
        auto reads = j.reads;
        if (j.reduction == scatter_reduction::none && claims_scatter(j.output, n)) {
            // one claim per slot: (update number + 1) << 32 | the update's bits for 4-byte
            // elements, else the update number + 1
            const std::uint64_t claim_bytes = elem == 4 ? 8 : 4;
            const scratch_block claims = scratch(slots * claim_bytes);
            const range cr{claims.address, claims.address + slots * claim_bytes};
            barrier_for({}, cr);
            ctx_->vk().vkCmdFillBuffer(cmd_, claims.handle, claims.offset, claims.size, 0);
            transfer_barrier();
            p.aux_addr = claims.address;
            pipeline_key key{shader::reduce, elem, rank, j.index_type, policy, 4};
            key.type = static_cast<std::uint32_t>(j.output.type);
            key.reduction = 0;
            reads.push_back(cr);
            if (j.fused_input) reads.emplace_back(j.fused_input, j.fused_input + slots * elem);
            // placed for the last pass's writes of the output (and its reads), as pass 0
            // writes only the claims, fresh and filled behind a transfer barrier
            barrier_for(reads, out);
            written_.push_back(cr);
            dispatch(key, p);
            // the last pass after every claim: one invocation per slot, or per 32-bit word of
            // 1- and 2-byte elements
            full_barrier();
            push rp = p;
            rp.indices = j.fused_input;
            rp.axis_size = static_cast<std::int64_t>(slots);
            rp.count = elem >= 4 ? slots : (out.second - (out.first & ~std::uint64_t{3}) + 3) / 4;
            key.phase = 5;
            if (elem == 4) key.rank = 1; // reads no update: one pipeline for every rank
            key.index_type = 0;
            key.policy = 0;
            dispatch(key, rp);
            read_ = reads;
            written_ = {out};
            ++claim_scatters_;
            return;
        }
        if (j.reduction == scatter_reduction::none) {
            // 16 bytes of indirect dispatch arguments for pass 1 (zero: no work, unless pass 0
            // meets a duplicate target), then each target's winner slot (shaders/scatter.comp)
            const scratch_block winners = scratch(16 + slots * 4);
            const range wr{winners.address, winners.address + winners.size};
            barrier_for({}, wr);
            ctx_->vk().vkCmdFillBuffer(cmd_, winners.handle, winners.offset, winners.size, 0);
            transfer_barrier();
            p.aux_addr = winners.address;
            const auto [gx, gy] = grid((n + 255) / 256);
            p.aux = gx;
            p.aux2 = gy;
            pipeline_key key{shader::scatter, elem, rank, j.index_type, policy, 0};
            reads.push_back(wr);
            barrier_for(reads, out); // pass 0 writes the output: after the input's copy and the fill
            written_.push_back(wr);
            dispatch(key, p);
            // pass 1 reads its arguments and the slots after every write of pass 0
            full_barrier(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
            key.phase = 1;
            dispatch(key, p, 0, winners.handle, winners.offset);
            read_ = reads;
            written_ = {out};
            return;
        }
        const dtype t = j.output.type;
        if ((t == dtype::float64 && (j.reduction == scatter_reduction::add || j.reduction == scatter_reduction::mul)) && !ctx_->float64())
            throw error(error_code::unsupported, "strix::vulkan: float64 add and mul reductions need shaderFloat64, which " + ctx_->device().name +
                                                     " lacks (" + j.context + ")");
        pipeline_key key{shader::reduce, elem, rank, j.index_type, policy, 0};
        key.type = static_cast<std::uint32_t>(t);
        key.reduction = static_cast<std::uint32_t>(j.reduction);
        if (!j.deterministic && (elem < 8 || ctx_->int64_atomics())) {
            barrier_for(reads, out);
            dispatch(key, p);
            return;
        }
        // deterministic: (slot, update number) pairs, sorted stably by slot, each slot's run
        // folded in C order, a chunk of at most fold_chunk() updates per dispatch
        if (slots > (std::uint64_t{1} << 32))
            throw error(error_code::unsupported, "strix::vulkan: a deterministic scatter reduction onto more than 2^32 elements (" + j.context + ")");
        const std::uint64_t tiles = (n + 255) / 256, hist = tiles * 256, blocks = (hist + 4095) / 4096;
        const std::uint64_t chunk = ctx_->fold_chunk(), chunks = std::max<std::uint64_t>(1, (n + chunk - 1) / chunk);
        // words: starts, ends (slots each) and the longest run, zeroed; the chunks' dispatch
        // arguments; two pair arrays (keys, numbers); the digit counts, their prefix sums and the
        // prefix sum's block totals
        const std::uint64_t at_args = slots * 2 + 1, at_pairs = at_args + 3 * chunks, at_hist = at_pairs + 4 * n;
        const std::uint64_t words = at_hist + 2 * hist + blocks;
        const scratch_block work = scratch(words * 4);
        const range sr{work.address, work.address + work.size};
        const auto addr = [&](std::uint64_t word) { return static_cast<std::int64_t>(work.address + word * 4); };
        const std::int64_t keys[2] = {addr(at_pairs), addr(at_pairs + 2 * n)}, vals[2] = {addr(at_pairs + n), addr(at_pairs + 3 * n)};
        const auto [fx, fy] = grid((slots + 255) / 256);
        // the Order record (shaders/common.glsl) with pair arrays `from` -> `to`, digit at `shift`
        const auto order = [&](int from, int to, std::int64_t shift) {
            return upload_meta(std::vector<std::int64_t>{keys[from], vals[from], keys[to], vals[to], addr(at_hist), addr(at_hist + hist),
                                                         static_cast<std::int64_t>(tiles), shift, addr(0), addr(slots), addr(slots * 2),
                                                         addr(at_args), static_cast<std::int64_t>(chunks), static_cast<std::int64_t>(chunk), fx, fy});
        };
        barrier_for({}, sr);
        ctx_->vk().vkCmdFillBuffer(cmd_, work.handle, work.offset, at_args * 4, 0);
        transfer_barrier();
        reads.push_back(sr);
        barrier_for(reads, sr);
        key.phase = 1;
        p.aux_addr = order(1, 0, 0);
        dispatch(key, p); // the pairs, in update order
        int sorted = 0;
        const std::uint64_t key_bits = slots > 1 ? static_cast<std::uint64_t>(std::bit_width(slots - 1)) : 0;
        pipeline_key scan{shader::scan, 4, 1, 0, 0, 0};
        push sp{};
        sp.aux_addr = upload_meta(std::vector<std::int64_t>{addr(at_hist), addr(at_hist + hist), 0, addr(at_hist + 2 * hist), static_cast<std::int64_t>(blocks)});
        sp.count = hist;
        for (std::uint64_t shift = 0; shift < key_bits; shift += 8, sorted ^= 1) {
            push tp{};
            tp.count = n;
            tp.aux_addr = order(sorted, sorted ^ 1, static_cast<std::int64_t>(shift));
            full_barrier();
            scan.phase = 3;
            dispatch(scan, tp, tiles); // digit counts per tile
            for (std::uint32_t phase = 0; phase < 3; ++phase) {
                full_barrier();
                scan.phase = phase;
                dispatch(scan, sp, phase == 1 ? 1 : blocks); // their places
            }
            full_barrier();
            scan.phase = 4;
            dispatch(scan, tp, tiles); // each pair to its place
        }
        p.aux_addr = order(sorted, sorted, 0);
        full_barrier();
        key.phase = 2;
        dispatch(key, p); // each slot's run
        full_barrier();
        key.phase = 3;
        push fp = p;
        fp.count = slots;
        fp.aux = 0;
        fp.aux2 = static_cast<std::uint32_t>(chunk);
        dispatch(key, fp); // chunk 0 of every run, and the longest run
        if (chunks > 1) {
            full_barrier();
            scan.phase = 5;
            push ap{};
            ap.aux_addr = p.aux_addr;
            ap.count = chunks;
            dispatch(scan, ap); // which later chunks run
            full_barrier(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
            for (std::uint64_t c = 1; c < chunks; ++c) {
                if (c > 1) full_barrier();
                fp.aux = static_cast<std::uint32_t>(c);
                dispatch(key, fp, 0, work.handle, work.offset + (at_args + 3 * c) * 4);
            }
        }
        written_ = {out, sr};
    }

    /// A barrier between all earlier and all later compute work of the stream (and the stage and
    /// access given, such as an indirect dispatch's read of its arguments).
    void full_barrier(VkPipelineStageFlags also_stage = 0, VkAccessFlags also_access = 0) {
        auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | also_access;
        ctx_->vk().vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | also_stage, 0, 1, &mb, 0,
                                        nullptr, 0, nullptr);
        ++barriers_;
        written_.clear();
        read_.clear();
    }
    static_assert(sizeof(push) <= 128);
    static constexpr std::size_t dim_words = 7; // int64 fields of a Dim record (shaders/common.glsl)
    static constexpr std::size_t narrow_words = 6; // 8-byte words of a NarrowRecord (shaders/move.comp)

    void ensure_recording() const {
        if (submitted_) throw error(error_code::invalid_argument, "strix::vulkan::stream: recording after submit (use a new stream)");
    }

    static std::uint32_t index_code(dtype t) {
        switch (t) {
        case dtype::int32: return 1;
        case dtype::int64: return 2;
        case dtype::uint32: return 3;
        default: return 4;
        }
    }

    void begin() {
        auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO); // not one-time: it may replay
        check(ctx_->vk().vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
        std::memset(frame_->flag.mapped(), 0, 16);
        if (queries_) {
            ctx_->vk().vkCmdResetQueryPool(cmd_, queries_, 0, 2);
            ctx_->vk().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
        }
    }

    /// Device scratch for one operator of this stream: a buffer of the frame that no other
    /// operator of the stream uses, else a new one the frame keeps (within its budget).
    struct scratch_block {
        VkBuffer handle;
        VkDeviceSize offset;
        VkDeviceAddress address;
        std::uint64_t size; ///< the bytes asked for, rounded up to 16
    };
    scratch_block scratch(std::uint64_t bytes) {
        bytes = std::max<std::uint64_t>((bytes + 15) / 16 * 16, 16);
        frame& f = *frame_;
        std::size_t best = f.scratch.size();
        for (std::size_t i = 0; i < f.scratch.size(); ++i)
            if (!f.scratch_used[i] && f.scratch[i].size() >= bytes && (best == f.scratch.size() || f.scratch[i].size() < f.scratch[best].size())) best = i;
        if (best == f.scratch.size()) {
            f.scratch.push_back(ctx_->create_buffer(std::max<std::uint64_t>(std::bit_ceil(bytes), 64 << 10), memory::device));
            f.scratch_used.push_back(false);
        }
        f.scratch_used[best] = true;
        return {f.scratch[best].handle(), 0, f.scratch[best].address(), bytes};
    }

    /// Plan metadata (Dim records, pad maps, scratch records): 16-byte aligned pieces of the
    /// frame's upload chunks, so that a stream of many small operators fills a few buffers that
    /// later streams fill again, and the shaders read the metadata from device memory.
    struct meta_block {
        VkDeviceAddress address;
        std::byte* host;
    };
    meta_block meta_alloc(std::size_t bytes) {
        bytes = std::max<std::size_t>((bytes + 15) / 16 * 16, 16);
        auto& chunks = frame_->meta;
        while (meta_chunk_ < chunks.size() && meta_used_ + bytes > chunks[meta_chunk_].size()) {
            ++meta_chunk_;
            meta_used_ = 0;
        }
        if (meta_chunk_ == chunks.size()) {
            chunks.push_back(ctx_->create_buffer(std::max<std::size_t>(bytes, meta_chunk_bytes), memory::upload));
            meta_used_ = 0;
        }
        const buffer& c = chunks[meta_chunk_];
        const meta_block b{c.address() + meta_used_, c.mapped() + meta_used_};
        meta_used_ += bytes;
        return b;
    }
    static constexpr std::size_t meta_chunk_bytes = 64 << 10;
    /// 16-byte moves per invocation of the copy shader and of 16-byte moves and chunks: 4
    /// measured best on the H200 (1: 3.3 TB/s, 2: 3.9, 4 and 8: 4.1, for a 1 GiB copy).
    /// STRIX_VULKAN_UNROLL=n overrides it (1 to 8), to measure other devices.
    static std::uint32_t unroll_from(const char* variable, int fallback) {
        const char* e = std::getenv(variable);
        return static_cast<std::uint32_t>(std::clamp(e && *e ? std::atoi(e) : fallback, 1, 8));
    }
    static inline const std::uint32_t unroll_16 = unroll_from("STRIX_VULKAN_UNROLL", 4);
    /// Chunks of a contiguous output per invocation (STRIX_VULKAN_CHUNK_UNROLL overrides it):
    /// 1, as more measured slower on the H200 (a pad of 3 took 0.219 ms at 1, 0.26 at 4, 0.39 at 8).
    static inline const std::uint32_t unroll_chunks = unroll_from("STRIX_VULKAN_CHUNK_UNROLL", 1);

    VkDeviceAddress upload_meta(const std::vector<std::int64_t>& words) {
        const meta_block b = meta_alloc(words.size() * 8); // rank 0: no words, a minimal piece
        if (!words.empty()) std::memcpy(b.host, words.data(), words.size() * 8);
        return b.address;
    }

    using range = std::pair<std::uint64_t, std::uint64_t>; // device addresses [first, last)

    static bool meets(const std::vector<range>& set, const range& r) {
        for (const auto& x : set)
            if (x.first < r.second && r.first < x.second) return true;
        return false;
    }

    /// Inserts a barrier when this operation reads bytes that earlier work in the stream wrote,
    /// or writes bytes that earlier work read or wrote (since the last barrier).
    void barrier_for(const std::vector<range>& reads, range write) {
        snapshot_indices_before(write);
        bool hazard = meets(written_, write) || meets(read_, write);
        for (const auto& r : reads) hazard |= meets(written_, r);
        if (hazard) {
            auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
            mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
            mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
            ctx_->vk().vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
            ++barriers_;
            written_.clear();
            read_.clear();
        }
        for (const auto& r : reads) read_.push_back(r);
        written_.push_back(write);
    }

    /// Before an operation writes `write`: the indices of any index check that it would
    /// overwrite are copied aside first, so that wait() can still name the bad index.
    void snapshot_indices_before(range write) {
        for (auto& c : checks_) {
            if (c.snapshot || !meets({c.indices.range()}, write)) continue;
            c.snapshot = std::make_unique<device_tensor>(*ctx_, c.indices.type, c.indices.sizes);
            const device_view copy = c.snapshot->view();
            auto p = strix::detail::copy_plan(c.indices.as_any(), copy.as_any());
            plan::collapse(p);
            const device_view from = c.indices;
            c.indices = copy;
            record_move(p, {from.range()}, copy.range());
        }
    }

    void transfer_barrier() {
        auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        ctx_->vk().vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
        ++barriers_;
    }

    /// 64-bit coordinate arithmetic only for calls of 2^32 or more invocations (or when
    /// context_options::wide_arithmetic forces it).
    bool wide(std::uint64_t count) const { return ctx_->wide_arithmetic() || count >= (std::uint64_t{1} << 32); }

    /// The 2-D grid of `groups` work groups (x, y) within the device's limits.
    std::pair<std::uint32_t, std::uint32_t> grid(std::uint64_t groups) const {
        const std::uint64_t gx = std::min<std::uint64_t>(groups, ctx_->max_groups_x());
        const std::uint64_t gy = (groups + gx - 1) / gx;
        if (gy > ctx_->max_groups_y()) throw error(error_code::unsupported, "strix::vulkan: too many elements for one dispatch on " + ctx_->device().name);
        return {static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy)};
    }

    /// Dispatches `groups` work groups of 256 (0: enough for p.count invocations), or as many as
    /// the 12 bytes of `indirect` at `indirect_offset` say when it is given.
    void dispatch(pipeline_key key, const push& p, std::uint64_t groups = 0, VkBuffer indirect = VK_NULL_HANDLE, VkDeviceSize indirect_offset = 0) {
        key.wide = wide(p.count * key.vec) ? 1u : 0u; // coordinates run over count * vec elements
        if (groups == 0) groups = (p.count + 255) / 256;
        const auto [gx, gy] = grid(groups);
        const auto& vk = ctx_->vk();
        vk.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, ctx_->pipeline(*frame_, key));
        vk.vkCmdPushConstants(cmd_, ctx_->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &p);
        if (indirect != VK_NULL_HANDLE)
            vk.vkCmdDispatchIndirect(cmd_, indirect, indirect_offset);
        else
            vk.vkCmdDispatch(cmd_, gx, gy, 1);
        ++dispatches_;
    }

    /// Records one move plan; `hazards` false when the caller has already placed the barrier.
    /// Contiguous rows move in 16-byte (or 8-, 4-byte) elements where the plan's alignment
    /// allows (widen), and a contiguous output is written 16 bytes per invocation (chunk_elements).
    void record_move(const plan::move_plan& original, const std::vector<range>& reads, range write, bool hazards = true) {
        ensure_recording();
        if (original.rank == 0 || original.count() == 0) return;
        std::optional<plan::move_plan> wide_plan = detail::widened(original);
        const plan::move_plan& p = wide_plan ? *wide_plan : original;
        const std::uint32_t vec = detail::chunk_elements(p);
        bool narrow = !ctx_->wide_arithmetic() && detail::narrow_fits(p, vec);
        std::uint32_t fold = narrow ? detail::plan_fold(p) : 0;
        std::size_t map_words = 0; // the maps the shader reads: none when it folds
        for (int i = 0; i < p.rank && fold == 0; ++i) {
            const auto& d = p.dims[static_cast<std::size_t>(i)];
            if (d.map.size() >= (std::size_t{1} << 32)) throw error(error_code::unsupported, "strix::vulkan: pads of 2^32 or more elements on one axis");
            map_words += d.map.size();
        }
        if (narrow && (static_cast<std::size_t>(p.rank) * narrow_words + map_words) * 8 >= (std::size_t{1} << 31)) {
            narrow = false; // the narrow records hold their maps' offsets in 32 bits
            fold = 0;
        }
        // the records, then the maps they point to: by address (Dim) or by byte offset from the
        // records (NarrowRecord); 1 marks a folded dimension, 0 an affine one
        const std::size_t record_words = narrow ? narrow_words : dim_words;
        const meta_block meta = meta_alloc((static_cast<std::size_t>(p.rank) * record_words + map_words) * 8);
        std::vector<std::int64_t> words;
        std::size_t next_map = static_cast<std::size_t>(p.rank) * record_words; // in words
        for (int i = 0; i < p.rank; ++i) {
            const auto& d = p.dims[static_cast<std::size_t>(i)];
            std::int64_t map = 0;
            if (!d.is_affine() && fold != 0) {
                map = 1;
                ++folded_;
            } else if (!d.is_affine()) {
                map = static_cast<std::int64_t>(narrow ? next_map * 8 : meta.address + next_map * 8);
                next_map += d.map.size();
            }
            if (narrow) {
                const auto r = detail::narrow_record(d, static_cast<std::int32_t>(map));
                words.resize(words.size() + narrow_words);
                std::memcpy(words.data() + words.size() - narrow_words, r.data(), sizeof r);
            } else {
                words.insert(words.end(), {d.size, d.dst, d.src, d.key, map, d.lo, d.hi});
            }
        }
        for (int i = 0; i < p.rank && fold == 0; ++i) {
            const auto& m = p.dims[static_cast<std::size_t>(i)].map;
            words.insert(words.end(), m.begin(), m.end());
        }
        std::memcpy(meta.host, words.data(), words.size() * 8);
        push pc{};
        pc.src = reinterpret_cast<std::uintptr_t>(p.src);
        pc.dst = reinterpret_cast<std::uintptr_t>(p.dst);
        pc.dims = meta.address;
        pc.indices = reinterpret_cast<std::uintptr_t>(p.index);
        pc.count = static_cast<std::uint64_t>(p.count()) / vec;
        pc.flag = frame_->flag.address();
        pc.axis_size = p.axis_size;
        pc.axis_stride = p.axis_stride;
        std::memcpy(pc.fill, p.fill.data(), 16);
        pipeline_key key{shader::move, static_cast<std::uint32_t>(p.elem), static_cast<std::uint32_t>(p.rank),
                         p.index ? index_code(p.index_type) : 0u, p.clamp ? 1u : 0u, 0};
        key.vec = vec;
        key.unroll = vec > 1 ? unroll_chunks : p.elem == 16 ? unroll_16 : 1;
        key.narrow = narrow ? 1u : 0u;
        key.fold = fold;
        narrow_ += narrow ? 1 : 0;
        widened_ += wide_plan ? 1 : 0;
        chunked_ += vec > 1 ? 1 : 0;
        if (hazards) barrier_for(reads, write);
        dispatch(key, pc, (pc.count + 256 * key.unroll - 1) / (256 * key.unroll));
    }

    context* ctx_;
    std::unique_ptr<frame> frame_; // the command buffer, fence, flag, metadata and scratch
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkQueryPool queries_ = VK_NULL_HANDLE;
    std::size_t meta_chunk_ = 0, meta_used_ = 0; // the metadata chunk being filled, and how far
    std::deque<index_check> checks_;
    std::vector<range> written_, read_;
    bool submitted_ = false, done_ = false;

public:
    /// Barriers and dispatches recorded so far (for tests and benchmarks).
    int barriers_ = 0, dispatches_ = 0;
    /// Moves recorded with wider elements (widened) and with 16-byte output chunks, and copies
    /// run by the plain copy shader (for tests and benchmarks).
    int widened_ = 0, chunked_ = 0, plain_copies_ = 0;
    /// Moves located in 32-bit arithmetic, and pad dimensions whose fold they computed rather
    /// than read from a map (for tests and benchmarks).
    int narrow_ = 0, folded_ = 0;
    /// Scatters without a reduction that took the claim path (for tests and benchmarks).
    int claim_scatters_ = 0;
};

namespace detail {

/// Runs `record(cmd)` in the command buffer of a frame of the context's and waits for it.
template <class F>
void one_shot(context& ctx, F&& record) {
    const auto& vk = ctx.vk();
    struct guard {
        context& c;
        std::unique_ptr<frame> f;
        bool submitted = false;
        ~guard() {
            if (submitted) c.vk().vkWaitForFences(c.handle(), 1, &f->fence, VK_TRUE, UINT64_MAX);
            c.release_frame(std::move(f));
        }
    } g{ctx, ctx.acquire_frame()};
    auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk.vkBeginCommandBuffer(g.f->cmd, &bi), "vkBeginCommandBuffer");
    record(g.f->cmd);
    check(vk.vkEndCommandBuffer(g.f->cmd), "vkEndCommandBuffer");
    ctx.submit(g.f->cmd, g.f->fence);
    g.submitted = true;
    check(vk.vkWaitForFences(ctx.handle(), 1, &g.f->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    g.submitted = false;
}

/// Copies `bytes` between a device buffer and host memory, through a staging buffer when the
/// device buffer is not host-visible.
inline void transfer(context& ctx, const buffer& dev, std::uint64_t offset, std::byte* host, std::uint64_t bytes, bool to_device) {
    if (bytes == 0) return;
    if (dev.mapped()) {
        if (to_device) std::memcpy(dev.mapped() + offset, host, bytes);
        else std::memcpy(host, dev.mapped() + offset, bytes);
        return;
    }
    const buffer staging = ctx.create_buffer(bytes, memory::host);
    if (to_device) std::memcpy(staging.mapped(), host, bytes);
    one_shot(ctx, [&](VkCommandBuffer cmd) {
        const VkBufferCopy region{to_device ? 0 : offset, to_device ? offset : 0, bytes};
        ctx.vk().vkCmdCopyBuffer(cmd, to_device ? staging.handle() : dev.handle(), to_device ? dev.handle() : staging.handle(), 1, &region);
    });
    if (!to_device) std::memcpy(host, staging.mapped(), bytes);
}

} // namespace detail

/// A new device tensor holding the elements of a host view (any strides), in C order.
inline device_tensor upload(context& ctx, const any_cview& host) {
    strix::detail::check_view("upload", "input", host, false);
    device_tensor t(ctx, host.type(), host.sizes());
    host_tensor packed(host.type(), host.sizes());
    auto p = strix::detail::copy_plan(host, packed.view());
    plan::collapse(p);
    cpu::execute(p);
    detail::transfer(ctx, t.storage(), 0, packed.data(), packed.bytes(), true);
    return t;
}

/// Copies a C-order device tensor into a host view of the same shape and type (any strides).
inline void download(context& ctx, const device_tensor& t, const any_view& host) {
    if (host.sizes() != t.sizes() || host.type() != t.type())
        throw error(error_code::invalid_argument, "strix::vulkan::download: the host view " + to_string(host.sizes()) + " " + std::string(name(host.type())) +
                                                      " does not match the device tensor " + to_string(t.sizes()) + " " + std::string(name(t.type())));
    strix::detail::check_view("download", "output", host, true);
    host_tensor packed(t.type(), t.sizes());
    detail::transfer(ctx, t.storage(), 0, packed.data(), packed.bytes(), false);
    auto p = strix::detail::copy_plan(packed.view(), host);
    plan::collapse(p);
    cpu::execute(p);
}

inline host_tensor stream::download_view(context& ctx, const device_view& v) {
    // copy the view into a C-order device tensor with a move plan, then read that back
    device_tensor packed(ctx, v.type, v.sizes);
    {
        stream s(ctx);
        auto p = strix::detail::copy_plan(v.as_any(), packed.view().as_any());
        plan::collapse(p);
        s.record_move(p, {v.range()}, packed.view().range());
        s.run();
    }
    host_tensor out(v.type, v.sizes);
    download(ctx, packed, out.view());
    return out;
}

} // namespace strix::vulkan
