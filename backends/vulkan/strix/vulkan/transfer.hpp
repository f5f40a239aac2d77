#pragma once
/// Moving host data to and from the device: upload, download, and the synchronous one-shot
/// submission they use.

#include <optional>

#include "strix/cpu/executor.hpp"
#include "strix/tensor.hpp"
#include "strix/vulkan/callback.hpp"
#include "strix/vulkan/device.hpp"

namespace strix::vulkan {

namespace detail {

/// Runs `record(cmd)` in the command buffer of a frame of the context's and waits for it.
template <class F>
void one_shot(context& ctx, F&& record) {
    const auto& vk = ctx.vk();
    struct guard {
        context& c;
        detail::owned<frame> f;
        bool submitted = false;
        ~guard() {
            if (submitted) c.vk().vkWaitForFences(c.handle(), 1, &f->fence, VK_TRUE, UINT64_MAX);
            c.release_frame(std::move(f));
        }
    } g{ctx, ctx.acquire_frame()};
    auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    require_success(vk.vkBeginCommandBuffer(g.f->cmd, &bi), "vkBeginCommandBuffer");
    record(g.f->cmd);
    require_success(vk.vkEndCommandBuffer(g.f->cmd), "vkEndCommandBuffer");
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
/// and being read back. Four pieces of 8 MiB with plain stores measured best (bench/NOTES.md,
/// "Figures behind the transfers"). Variables, for benchmarks to try others.
inline std::uint64_t staging_piece = 8ull << 20;
inline int staging_depth = 4;
/// Whether the host writes staging with non-temporal stores (true) or plain ones.
inline bool staging_streamed = false;

/// Threads a large host copy of a transfer uses at most (one core does not fill the memory bus,
/// and beyond a dozen the threads compete with the device's copies of the other pieces for host
/// memory: bench/NOTES.md, "Figures behind the transfers").
inline unsigned copy_threads = std::min(12u, std::max(1u, cpu::detail::hardware_threads()));
/// Bytes each of those threads copies at least (an 8 MiB piece on 12 threads).
inline std::uint64_t copy_grain = 512ull << 10;
/// Whether a dense upload through staging runs as one job on the pool, its threads taking
/// copy_grain-sized grains of every piece in turn and the thread that finishes a piece
/// submitting its device copy (true), or piece by piece, each copied by all threads and then
/// submitted while they wait (false: the threads meet and part again for every piece, which
/// measured slower: bench/NOTES.md, "Figures behind the transfers").
inline bool staging_pipelined = true;

/// memcpy on up to copy_threads threads of the CPU operators' pool (copy_grain bytes each at
/// least); with `stream`, from 1 MiB up, whole cache lines are written with non-temporal
/// stores (for a destination read next by the device, or by whoever asked for a download, not
/// by these caches).
void host_copy(std::byte* dst, const std::byte* src, std::uint64_t bytes, bool stream = true);

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
void pack(const any_cview& v, std::byte* packed, bool stream = true);
void unpack(const std::byte* packed, const any_view& v);

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
void record_host_copy(const context& ctx, VkCommandBuffer cmd, VkBuffer host, std::uint64_t host_at, const buffer& dev, std::uint64_t offset,
                             std::uint64_t bytes, bool to_device);

/// When a dense host view lies in one of the context's own host-visible buffers (pinned memory:
/// a memory::host tensor's host_view()), copies its `bytes` between there and `dev` at `offset`
/// with one device copy, the whole transfer at the bus's rate, and returns true.
bool copy_pinned(context& ctx, const buffer& dev, std::uint64_t offset, const void* host, std::uint64_t bytes, bool to_device);

/// Pieces smaller than this go through staging even where host memory is imported (an import
/// pins pages and makes a buffer, which a memcpy of a small piece undercuts).
///
/// Importing is off by default: the driver pins imported pages more slowly than staging copies
/// them, so imported transfers measured at about a third of staged ones (bench/host_path;
/// bench/NOTES.md, "Figures behind the transfers").
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
    ~staging_ring();
    [[nodiscard]] int size() const { return static_cast<int>(slots_.size()); }
    /// Whether pieces may be imported instead of staged.
    [[nodiscard]] bool imports() const { return import_; }
    /// The fence that the copy last submitted from slot `h` signals.
    [[nodiscard]] VkFence fence(int h) const { return slots_[static_cast<std::size_t>(h)].f->fence; }
    /// Slot `h`'s staging memory (made by the first transfer that needs it, then kept by the frame).
    [[nodiscard]] std::byte* host(int h);
    /// Imports [p, p + bytes) for slot `h`'s next copy; false when the transfer does not import,
    /// the piece is too small to be worth it, or the device refuses it (then stage the piece).
    bool import(int h, const void* p, std::uint64_t bytes);
    /// Waits until slot `h` is free (its last copy done, its import released); true when it had one.
    bool settle(int h);
    /// Submits a copy of `bytes` between slot `h`'s host side (its import when it has one, else
    /// its staging) and `dev` at `offset`.
    void copy(int h, const buffer& dev, std::uint64_t offset, std::uint64_t bytes, bool to_device);

private:
    struct slot {
        detail::owned<frame> f;
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
/// device copies the previous piece. A host view in `dev`'s own mapping that meets the bytes it
/// is written to is packed into a temporary first, so that every element is read as it was; one
/// that is those bytes already, in C order, is left as it is.
void upload_into(context& ctx, const buffer& dev, std::uint64_t offset, const any_cview& host, const transfer_options& o = {});

/// Reads `dev` from byte `offset`, packed in C order, into a host view: straight from its
/// memory when mapped, by one device copy into the context's own host-visible memory (as
/// upload_into), else piece by piece, the device writing straight into the application's
/// memory where it can import it, or into a staging slot the host unpacks while the device
/// copies the next pieces. A host view in `dev`'s own mapping that meets the bytes read gets
/// them through a temporary (see download); one that is those bytes in C order is left as it is.
void download_from(context& ctx, const buffer& dev, std::uint64_t offset, const any_view& host, const transfer_options& o = {});

} // namespace detail

/// A new device tensor holding the elements of a host view (any strides), in C order. (Its
/// memory is new, so the view cannot lie in it; detail::upload_into, which writes an existing
/// buffer, reads a view that lies in the bytes it writes as download does.)
device_tensor upload(context& ctx, const any_cview& host);

/// Copies a C-order device tensor into a host view of the same shape and type (any strides).
/// The view may lie in the tensor's own mapped memory (its host_view(), or that memory shifted,
/// reversed or transposed): the view then receives the elements as they were before the call,
/// as if they had been read in full first (they go through a temporary copy of the tensor where
/// the view's bytes meet the tensor's), and download(ctx, t, t.host_view()) copies nothing.
void download(context& ctx, const device_tensor& t, const any_view& host);

} // namespace strix::vulkan
