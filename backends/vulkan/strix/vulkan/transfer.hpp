#pragma once
/// Moving host data to and from the device: upload, download, and the synchronous one-shot
/// submission they use.

#include <functional>
#include <optional>
#include <system_error>
#include <thread>

#include "strix/cpu/executor.hpp"
#include "strix/tensor.hpp"
#include "strix/vulkan/device.hpp"

namespace strix::vulkan {

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
    ctx.wait(g.f->fence);
    g.submitted = false;
}

/// Host staging: a transfer moves its data in pieces of at most `staging_piece` bytes through
/// a ring of `staging_depth` staging buffers, the host filling or draining one while the device
/// copies the others, so it holds at most staging_depth x staging_piece (32 MiB) of host memory
/// beyond the tensors themselves. The host writes staging with plain stores: the lines stay in
/// its last-level cache, where the device's read of them is served, instead of going to memory
/// and being read back. Measured on an H100's Xeon host (300 MiB L3), 1 GiB uploads over six
/// runs each, as medians of the ratio to a plain copy: 4 x 8 MiB with plain stores 0.78 (0.65 to
/// 0.85), 2 x 16 MiB plain 0.78, 2 x 32 MiB with non-temporal stores 0.69; downloads 0.91, 0.80
/// and 0.87 (bench/NOTES.md). Variables, for benchmarks to try others.
inline std::uint64_t staging_piece = 8ull << 20;
inline int staging_depth = 4;
/// Whether the host writes staging with non-temporal stores (true) or plain ones.
inline bool staging_streamed = false;

/// Threads a large host copy of a transfer uses at most (one core does not fill the memory bus).
/// Measured on an H100's 16-core Xeon host, 1 GiB uploads over three runs: 0.72-0.78 of a plain
/// copy with 10 threads, 0.75-0.82 with 12, 0.73-0.80 with 16 (the device's copies of the other
/// pieces read host memory at the same time; downloads 0.93-0.94 with 10 or 12).
inline unsigned copy_threads = std::min(12u, std::max(1u, std::thread::hardware_concurrency()));
/// Bytes each of those threads copies at least (an 8 MiB piece on 12 threads).
inline std::uint64_t copy_grain = 512ull << 10;

/// memcpy on up to copy_threads threads of the CPU operators' pool (copy_grain bytes each at
/// least); with `stream`, from 1 MiB up, whole cache lines are written with non-temporal
/// stores (for a destination read next by the device, or by whoever asked for a download, not
/// by these caches).
inline void host_copy(std::byte* dst, const std::byte* src, std::uint64_t bytes, bool stream = true) {
    stream = stream && bytes >= (1u << 20);
    const std::uint64_t threads = std::min<std::uint64_t>(std::max(1u, copy_threads), std::max<std::uint64_t>(1, bytes / std::max<std::uint64_t>(64, copy_grain)));
    const std::uint64_t per = (bytes / threads + 63) / 64 * 64;
    const auto part = [&](int t) {
        const std::uint64_t at = static_cast<std::uint64_t>(t) * per;
        if (at >= bytes) return;
        cpu::detail::copy_run(dst + at, src + at, static_cast<std::size_t>(std::min(per, bytes - at)), stream);
        if (stream) cpu::detail::stream_fence();
    };
    if (threads <= 1) part(0);
    else cpu::detail::thread_pool::instance().run(static_cast<int>(threads), part);
}

/// Whether a view's elements lie in C order without gaps (size-1 dimensions aside).
template <bool M>
bool dense(const basic_any_view<M>& v) {
    std::int64_t expect = 1;
    for (int i = v.rank() - 1; i >= 0; --i) {
        if (v.size(i) != 1 && v.stride(i) != expect) return false;
        expect *= v.size(i);
    }
    return true;
}

/// Calls piece(sub, offset) for consecutive pieces of a non-empty view in C order: `sub` a view
/// of at most `limit` bytes and `offset` its byte offset in the C-order packing of `v`.
template <bool M, class F>
void for_each_piece(const basic_any_view<M>& v, std::uint64_t limit, F&& piece) {
    const int r = v.rank();
    const auto es = static_cast<std::uint64_t>(v.element_size());
    // d: the first dimension whose block (it and the ones after it) fits in `limit`
    int d = r;
    std::uint64_t block = es;
    while (d > 0 && block * static_cast<std::uint64_t>(v.size(d - 1)) <= limit) block *= static_cast<std::uint64_t>(v.size(--d));
    if (d == 0) {
        piece(v, std::uint64_t{0});
        return;
    }
    // pieces of k blocks along dimension `outer`, at each coordinate of the dimensions before it
    const int outer = d - 1;
    const auto k = static_cast<std::int64_t>(std::max<std::uint64_t>(1, limit / block));
    std::array<std::int64_t, max_rank> at{};
    std::uint64_t offset = 0;
    for (;;) {
        auto base = reinterpret_cast<std::uintptr_t>(v.data());
        for (int i = 0; i < outer; ++i) base += static_cast<std::uintptr_t>(at[static_cast<std::size_t>(i)] * v.stride(i) * static_cast<std::int64_t>(es));
        for (std::int64_t j = 0; j < v.size(outer); j += k) {
            const std::int64_t m = std::min(k, v.size(outer) - j);
            shape s;
            std::array<std::int64_t, max_rank> st{};
            s.push_back(m);
            st[0] = v.stride(outer);
            for (int i = d; i < r; ++i) {
                st[static_cast<std::size_t>(s.rank)] = v.stride(i);
                s.push_back(v.size(i));
            }
            const auto at_j = base + static_cast<std::uintptr_t>(j * v.stride(outer) * static_cast<std::int64_t>(es));
            using ptr = typename basic_any_view<M>::pointer;
            piece(basic_any_view<M>(reinterpret_cast<ptr>(at_j), v.type(), s, st), offset);
            offset += static_cast<std::uint64_t>(m) * block;
        }
        int i = outer - 1;
        while (i >= 0 && ++at[static_cast<std::size_t>(i)] == v.size(i)) at[static_cast<std::size_t>(i--)] = 0;
        if (i < 0) return;
    }
}

/// Copies a view's elements into `packed` in C order (`stream`: see host_copy), or back (`to_view`).
inline void pack(const any_cview& v, std::byte* packed, bool stream = true) {
    if (dense(v)) {
        host_copy(packed, static_cast<const std::byte*>(v.data()), static_cast<std::uint64_t>(v.count()) * v.element_size(), stream);
        return;
    }
    auto p = strix::detail::copy_plan(v, any_view(packed, v.type(), v.sizes()));
    plan::collapse(p);
    cpu::execute(p);
}
inline void unpack(const std::byte* packed, const any_view& v) {
    if (dense(v)) {
        host_copy(static_cast<std::byte*>(v.data()), packed, static_cast<std::uint64_t>(v.count()) * v.element_size());
        return;
    }
    auto p = strix::detail::copy_plan(any_cview(packed, v.type(), v.sizes()), v);
    plan::collapse(p);
    cpu::execute(p);
}

/// How a transfer moves its pieces (tests and benchmarks choose; the defaults are what
/// upload and download do).
struct transfer_options {
    std::uint64_t limit = staging_piece; ///< bytes per piece at most
    bool staged = false;                ///< through the device's host-visible memory's copy path even when it is mapped
    /// copy straight from and to host memory the device can import (default: as the context
    /// says, context::host_import(): off unless STRIX_VULKAN_HOST_IMPORT=1)
    std::optional<bool> import{};
    /// copy straight from and to the context's own host-visible memory (a memory::host tensor's
    /// host_view()) with one device copy, no staging
    bool pinned = true;
};

/// Records a copy of `bytes` between host-side memory (`host` at `host_at`) and `dev` at
/// `offset`, in the direction `to_device` says; a copy to the host ends with a barrier that
/// makes its writes visible to the host once the submission's fence is waited for.
inline void record_host_copy(const context& ctx, VkCommandBuffer cmd, VkBuffer host, std::uint64_t host_at, const buffer& dev, std::uint64_t offset,
                             std::uint64_t bytes, bool to_device) {
    const auto& vk = ctx.vk();
    const VkBufferCopy region{to_device ? host_at : offset, to_device ? offset : host_at, bytes};
    vk.vkCmdCopyBuffer(cmd, to_device ? host : dev.handle(), to_device ? dev.handle() : host, 1, &region);
    if (!to_device) {
        auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
    }
}

/// When a dense host view lies in one of the context's own host-visible buffers (pinned memory:
/// a memory::host tensor's host_view()), copies its `bytes` between there and `dev` at `offset`
/// with one device copy, the whole transfer at the bus's rate, and returns true.
inline bool copy_pinned(context& ctx, const buffer& dev, std::uint64_t offset, const void* host, std::uint64_t bytes, bool to_device) {
    const std::pair<VkBuffer, std::uint64_t> found = ctx.find_mapped(host, bytes); // (clang before 16 cannot capture a structured binding)
    const VkBuffer pinned = found.first;
    const std::uint64_t at = found.second;
    if (pinned == VK_NULL_HANDLE || pinned == dev.handle()) return false;
    one_shot(ctx, [&](VkCommandBuffer cmd) { record_host_copy(ctx, cmd, pinned, at, dev, offset, bytes, to_device); });
    return true;
}

/// Pieces smaller than this go through staging even where host memory is imported (an import
/// pins pages and makes a buffer, which a memcpy of a small piece undercuts).
///
/// Importing is off by default: measured on an H100 (driver 580, 16-core Xeon host), the
/// driver pinned pages at about 10 GB/s, so 1 GiB uploaded at 8.5 GB/s and downloaded at 9.2
/// imported, against 29 and 28 through staging (bench/host_path, NOTES.md).
inline constexpr std::uint64_t import_min = 1ull << 20;

/// staging_depth frames of the context's for chunked transfers, used in turn, so that the host
/// prepares one piece while the device copies the ones before it. A piece's host side is either
/// the application's memory itself, imported (VK_EXT_external_memory_host: no host copy at
/// all), or the slot's staging buffer, which the host fills or drains; each slot's import lives
/// until its copy is done.
class staging_ring {
public:
    /// `o`: whether pieces may be imported (and how large pieces are, for import_min).
    staging_ring(context& ctx, const transfer_options& o)
        : ctx_(ctx), import_(o.import.value_or(ctx.host_import()) && ctx.can_import_host()),
          import_min_(std::min(import_min, std::min(o.limit, staging_piece))), slots_(static_cast<std::size_t>(std::max(2, staging_depth))) {
        for (auto& s : slots_) s.f = ctx.acquire_frame();
    }
    staging_ring(const staging_ring&) = delete;
    staging_ring& operator=(const staging_ring&) = delete;
    ~staging_ring() {
        for (auto& s : slots_) {
            if (s.pending) ctx_.vk().vkWaitForFences(ctx_.handle(), 1, &s.f->fence, VK_TRUE, UINT64_MAX);
            s.imported = buffer{};
            ctx_.release_frame(std::move(s.f));
        }
    }
    [[nodiscard]] int size() const { return static_cast<int>(slots_.size()); }
    /// Slot `h`'s staging memory (made by the first transfer that needs it, then kept by the frame).
    [[nodiscard]] std::byte* host(int h) {
        frame& f = *slots_[static_cast<std::size_t>(h)].f;
        if (f.staging.size() < staging_piece) f.staging = ctx_.create_buffer(staging_piece, memory::host);
        return f.staging.mapped();
    }
    /// Imports [p, p + bytes) for slot `h`'s next copy; false when the transfer does not import,
    /// the piece is too small to be worth it, or the device refuses it (then stage the piece).
    bool import(int h, const void* p, std::uint64_t bytes) {
        if (!import_ || bytes < import_min_) return false;
        auto& s = slots_[static_cast<std::size_t>(h)];
        s.imported = ctx_.import_host(p, bytes, &s.imported_at);
        return s.imported.handle() != VK_NULL_HANDLE;
    }
    /// Waits until slot `h` is free (its last copy done, its import released); true when it had one.
    bool settle(int h) {
        auto& s = slots_[static_cast<std::size_t>(h)];
        if (!s.pending) return false;
        ctx_.wait(s.f->fence);
        check(ctx_.vk().vkResetFences(ctx_.handle(), 1, &s.f->fence), "vkResetFences");
        check(ctx_.vk().vkResetCommandPool(ctx_.handle(), s.f->pool, 0), "vkResetCommandPool");
        s.imported = buffer{};
        s.pending = false;
        return true;
    }
    /// Submits a copy of `bytes` between slot `h`'s host side (its import when it has one, else
    /// its staging) and `dev` at `offset`.
    void copy(int h, const buffer& dev, std::uint64_t offset, std::uint64_t bytes, bool to_device) {
        const auto& vk = ctx_.vk();
        auto& s = slots_[static_cast<std::size_t>(h)];
        frame& f = *s.f;
        const bool imported = s.imported.handle() != VK_NULL_HANDLE;
        const VkBuffer host_side = imported ? s.imported.handle() : f.staging.handle();
        const std::uint64_t host_at = imported ? s.imported_at : 0;
        auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        check(vk.vkBeginCommandBuffer(f.cmd, &bi), "vkBeginCommandBuffer");
        record_host_copy(ctx_, f.cmd, host_side, host_at, dev, offset, bytes, to_device);
        check(vk.vkEndCommandBuffer(f.cmd), "vkEndCommandBuffer");
        ctx_.submit(f.cmd, f.fence);
        s.pending = true;
    }

private:
    struct slot {
        std::unique_ptr<frame> f;
        buffer imported;
        std::uint64_t imported_at = 0;
        bool pending = false;
    };
    context& ctx_;
    const bool import_;
    const std::uint64_t import_min_;
    std::vector<slot> slots_;
};

/// Calls span(at, n) for consecutive byte ranges [at, at + n) of a dense host range of `total`
/// bytes at `p`, each at most `limit` bytes, cut at page boundaries (from 8 KiB pieces up) so
/// that two pieces imported at once never share a page (drivers pin pages once).
template <class F>
void for_each_span(const void* p, std::uint64_t total, std::uint64_t limit, F&& span) {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    for (std::uint64_t at = 0; at < total;) {
        std::uint64_t end = at + limit;
        if (limit >= 2 * context::host_page) end = (addr + end) / context::host_page * context::host_page - addr;
        end = std::min(end, total);
        span(at, end - at);
        at = end;
    }
}

/// Writes a host view's elements, packed in C order, into `dev` from byte `offset`: straight
/// into its memory when the host can map it (lavapipe, integrated GPUs); by one device copy
/// when the view is dense and lies in the context's own host-visible memory (copy_pinned);
/// else piece by piece,
/// each copied by the device straight from the application's memory where it can import it
/// (dense views, pieces of 1 MiB or more), or packed by the host into a staging slot while the
/// device copies the previous piece.
inline void upload_into(context& ctx, const buffer& dev, std::uint64_t offset, const any_cview& host, const transfer_options& o = {}) {
    if (host.count() == 0) return;
    if (dev.mapped() && !o.staged) {
        pack(host, dev.mapped() + offset);
        return;
    }
    const std::uint64_t total = static_cast<std::uint64_t>(host.count()) * host.element_size();
    if (o.pinned && dense(host) && copy_pinned(ctx, dev, offset, host.data(), total, true)) return;
    staging_ring st(ctx, o);
    int h = 0;
    const auto next = [&] { h = (h + 1) % st.size(); };
    const std::uint64_t limit = std::min(o.limit, staging_piece);
    if (dense(host)) {
        const auto* from = static_cast<const std::byte*>(host.data());
        for_each_span(from, total, limit, [&](std::uint64_t at, std::uint64_t n) {
            st.settle(h);
            if (!st.import(h, from + at, n)) host_copy(st.host(h), from + at, n, staging_streamed);
            st.copy(h, dev, offset + at, n, true);
            next();
        });
    } else {
        for_each_piece(host, limit, [&](const any_cview& piece, std::uint64_t at) {
            st.settle(h);
            pack(piece, st.host(h), staging_streamed);
            st.copy(h, dev, offset + at, static_cast<std::uint64_t>(piece.count()) * piece.element_size(), true);
            next();
        });
    }
    for (int k = 0; k < st.size(); ++k) st.settle(k);
}

/// Reads `dev` from byte `offset`, packed in C order, into a host view: straight from its
/// memory when mapped, by one device copy into the context's own host-visible memory (as
/// upload_into), else piece by piece, the device writing straight into the application's
/// memory where it can import it, or into a staging slot the host unpacks while the device
/// copies the next pieces.
inline void download_from(context& ctx, const buffer& dev, std::uint64_t offset, const any_view& host, const transfer_options& o = {}) {
    if (host.count() == 0) return;
    if (dev.mapped() && !o.staged) {
        unpack(dev.mapped() + offset, host);
        return;
    }
    const std::uint64_t total = static_cast<std::uint64_t>(host.count()) * host.element_size();
    if (o.pinned && dense(host) && copy_pinned(ctx, dev, offset, host.data(), total, false)) return;
    staging_ring st(ctx, o);
    std::vector<std::function<void()>> waiting(static_cast<std::size_t>(st.size())); // what unpacks a slot's staging once its copy is done
    int h = 0;
    const auto next = [&] { h = (h + 1) % st.size(); };
    const auto drain = [&](int k) {
        auto& w = waiting[static_cast<std::size_t>(k)];
        if (st.settle(k) && w) w();
        w = nullptr;
    };
    const std::uint64_t limit = std::min(o.limit, staging_piece);
    if (dense(host)) {
        auto* into = static_cast<std::byte*>(host.data());
        for_each_span(into, total, limit, [&](std::uint64_t at, std::uint64_t n) {
            drain(h);
            if (!st.import(h, into + at, n)) {
                std::byte* staged = st.host(h);
                waiting[static_cast<std::size_t>(h)] = [=] { host_copy(into + at, staged, n); };
            }
            st.copy(h, dev, offset + at, n, false);
            next();
        });
    } else {
        for_each_piece(host, limit, [&](const any_view& piece, std::uint64_t at) {
            drain(h);
            std::byte* staged = st.host(h);
            st.copy(h, dev, offset + at, static_cast<std::uint64_t>(piece.count()) * piece.element_size(), false);
            waiting[static_cast<std::size_t>(h)] = [=] { unpack(staged, piece); };
            next();
        });
    }
    for (int k = 0; k < st.size(); ++k, next()) drain(h); // the oldest first
}

} // namespace detail

/// A new device tensor holding the elements of a host view (any strides), in C order.
inline device_tensor upload(context& ctx, const any_cview& host) {
    strix::detail::check_view("upload", "input", host, false);
    device_tensor t(ctx, host.type(), host.sizes());
    detail::upload_into(ctx, t.storage(), 0, host);
    return t;
}

/// Copies a C-order device tensor into a host view of the same shape and type (any strides).
inline void download(context& ctx, const device_tensor& t, const any_view& host) {
    if (host.sizes() != t.sizes() || host.type() != t.type())
        throw error(error_code::invalid_argument, "strix::vulkan::download: the host view " + to_string(host.sizes()) + " " + std::string(name(host.type())) +
                                                      " does not match the device tensor " + to_string(t.sizes()) + " " + std::string(name(t.type())));
    strix::detail::check_view("download", "output", host, true);
    detail::download_from(ctx, t.storage(), 0, host);
}

} // namespace strix::vulkan
