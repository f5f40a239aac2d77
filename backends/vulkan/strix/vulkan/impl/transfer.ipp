#include <thread>

namespace strix::vulkan::detail {

void host_copy(std::byte* dst, const std::byte* src, std::uint64_t bytes, bool stream) {
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

void pack(const any_cview& v, std::byte* packed, bool stream) {
    if (dense(v)) {
        host_copy(packed, static_cast<const std::byte*>(v.data()), static_cast<std::uint64_t>(v.count()) * v.element_size(), stream);
        return;
    }
    auto p = strix::detail::copy_plan(v, any_view(packed, v.type(), v.sizes()));
    plan::collapse(p);
    cpu::execute(p);
}

void unpack(const std::byte* packed, const any_view& v) {
    if (dense(v)) {
        host_copy(static_cast<std::byte*>(v.data()), packed, static_cast<std::uint64_t>(v.count()) * v.element_size());
        return;
    }
    auto p = strix::detail::copy_plan(any_cview(packed, v.type(), v.sizes()), v);
    plan::collapse(p);
    cpu::execute(p);
}

void record_host_copy(const context& ctx, VkCommandBuffer cmd, VkBuffer host, std::uint64_t host_at, const buffer& dev, std::uint64_t offset,
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

bool copy_pinned(context& ctx, const buffer& dev, std::uint64_t offset, const void* host, std::uint64_t bytes, bool to_device) {
    const std::pair<VkBuffer, std::uint64_t> found = ctx.find_mapped(host, bytes); // (clang before 16 cannot capture a structured binding)
    const VkBuffer pinned = found.first;
    const std::uint64_t at = found.second;
    if (pinned == VK_NULL_HANDLE || pinned == dev.handle()) return false;
    one_shot(ctx, [&](VkCommandBuffer cmd) { record_host_copy(ctx, cmd, pinned, at, dev, offset, bytes, to_device); });
    return true;
}

staging_ring::~staging_ring() {
    for (auto& s : slots_) {
        if (s.pending) ctx_.vk().vkWaitForFences(ctx_.handle(), 1, &s.f->fence, VK_TRUE, UINT64_MAX);
        s.imported = buffer{};
        ctx_.release_frame(std::move(s.f));
    }
}

std::byte* staging_ring::host(int h) {
    frame& f = *slots_[static_cast<std::size_t>(h)].f;
    if (f.staging.size() < staging_piece) f.staging = ctx_.create_buffer(staging_piece, memory::host);
    return f.staging.mapped();
}

bool staging_ring::import(int h, const void* p, std::uint64_t bytes) {
    if (!import_ || bytes < import_min_) return false;
    auto& s = slots_[static_cast<std::size_t>(h)];
    s.imported = ctx_.import_host(p, bytes, &s.imported_at);
    return s.imported.handle() != VK_NULL_HANDLE;
}

bool staging_ring::settle(int h) {
    auto& s = slots_[static_cast<std::size_t>(h)];
    if (!s.pending) return false;
    ctx_.wait(s.f->fence);
    require_success(ctx_.vk().vkResetFences(ctx_.handle(), 1, &s.f->fence), "vkResetFences");
    require_success(ctx_.vk().vkResetCommandPool(ctx_.handle(), s.f->pool, 0), "vkResetCommandPool");
    s.imported = buffer{};
    s.pending = false;
    return true;
}

void staging_ring::copy(int h, const buffer& dev, std::uint64_t offset, std::uint64_t bytes, bool to_device) {
    const auto& vk = ctx_.vk();
    auto& s = slots_[static_cast<std::size_t>(h)];
    frame& f = *s.f;
    const bool imported = s.imported.handle() != VK_NULL_HANDLE;
    const VkBuffer host_side = imported ? s.imported.handle() : f.staging.handle();
    const std::uint64_t host_at = imported ? s.imported_at : 0;
    auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    require_success(vk.vkBeginCommandBuffer(f.cmd, &bi), "vkBeginCommandBuffer");
    record_host_copy(ctx_, f.cmd, host_side, host_at, dev, offset, bytes, to_device);
    require_success(vk.vkEndCommandBuffer(f.cmd), "vkEndCommandBuffer");
    ctx_.submit(f.cmd, f.fence);
    s.pending = true;
}

/// A dense upload of `total` bytes from `from` through the ring `st` as one job on the pool.
/// Pieces of `limit` bytes go round the ring's slots; each piece is cut into grains that the
/// threads take in order, so that a thread done with one piece goes on to the next instead of
/// waiting for the others. Before writing a slot's staging a thread makes sure the slot's last
/// copy is done (it waits for the fence once the copy is submitted); the thread that finishes a
/// piece's last grain submits its copy. Returns false where one thread would do (the caller
/// then goes piece by piece).
bool upload_pipelined(context& ctx, staging_ring& st, const buffer& dev, std::uint64_t offset, const std::byte* from, std::uint64_t total,
                      std::uint64_t limit) {
    const std::uint64_t grain = std::min(limit, std::max<std::uint64_t>(64, copy_grain));
    const std::uint64_t pieces = (total + limit - 1) / limit;
    const std::uint64_t per_piece = (limit + grain - 1) / grain;
    const std::uint64_t last = total - (pieces - 1) * limit; // bytes of the last piece
    const std::uint64_t grains = (pieces - 1) * per_piece + (last + grain - 1) / grain;
    const int threads = static_cast<int>(std::min<std::uint64_t>(std::max(1u, copy_threads), grains));
    if (threads <= 1) return false;
    const int depth = st.size();
    const auto piece_bytes = [&](std::uint64_t p) { return p + 1 == pieces ? last : limit; };
    const auto piece_grains = [&](std::uint64_t p) { return (piece_bytes(p) + grain - 1) / grain; };
    struct slot_state {
        std::atomic<std::uint64_t> remaining{0}; ///< grains of the slot's current piece not yet copied
        std::atomic<std::uint64_t> submitted{0}; ///< pieces submitted from the slot
        std::atomic<std::uint64_t> freed{0};     ///< of those, how many are known to be done
    };
    std::vector<slot_state> slots(static_cast<std::size_t>(depth));
    std::vector<std::byte*> staging(static_cast<std::size_t>(depth), nullptr);
    for (std::uint64_t p = 0; p < std::min<std::uint64_t>(pieces, static_cast<std::uint64_t>(depth)); ++p) {
        slots[p].remaining.store(piece_grains(p), std::memory_order_relaxed);
        staging[p] = st.host(static_cast<int>(p)); // made here, not by the threads
    }
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> failed{false};
    // slot h may take the piece of its round k once the copy of round k - 1 is done
    const auto wait_for_slot = [&](int h, std::uint64_t k) {
        slot_state& s = slots[static_cast<std::size_t>(h)];
        while (s.freed.load(std::memory_order_acquire) < k) {
            if (failed.load(std::memory_order_relaxed)) return false;
            if (s.submitted.load(std::memory_order_acquire) >= k) {
                ctx.wait(st.fence(h));
                std::uint64_t seen = s.freed.load(std::memory_order_relaxed);
                while (seen < k && !s.freed.compare_exchange_weak(seen, k, std::memory_order_release)) {}
            } else {
                std::this_thread::yield();
            }
        }
        return true;
    };
    const auto task = [&](int) {
        try {
            for (std::uint64_t g; (g = next.fetch_add(1, std::memory_order_relaxed)) < grains && !failed.load(std::memory_order_relaxed);) {
                const std::uint64_t p = g / per_piece, j = g % per_piece;
                const int h = static_cast<int>(p % static_cast<std::uint64_t>(depth));
                const std::uint64_t k = p / static_cast<std::uint64_t>(depth);
                if (!wait_for_slot(h, k)) return;
                const std::uint64_t at = j * grain, n = std::min(grain, piece_bytes(p) - at);
                cpu::detail::copy_run(staging[static_cast<std::size_t>(h)] + at, from + p * limit + at, static_cast<std::size_t>(n), staging_streamed);
                if (staging_streamed) cpu::detail::stream_fence();
                slot_state& s = slots[static_cast<std::size_t>(h)];
                if (s.remaining.fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
                // the piece's last grain: its copy goes now. Every thread that copied into this
                // slot for it is past its wait, and none waits on the slot's fence until the
                // submission below is published, so the fence may be reset.
                st.settle(h);
                if (p + static_cast<std::uint64_t>(depth) < pieces) s.remaining.store(piece_grains(p + static_cast<std::uint64_t>(depth)), std::memory_order_relaxed);
                st.copy(h, dev, offset + p * limit, piece_bytes(p), true);
                s.submitted.store(k + 1, std::memory_order_release);
            }
        } catch (...) {
            failed.store(true, std::memory_order_relaxed);
            throw;
        }
    };
    cpu::detail::thread_pool::instance().run(threads, task);
    return true;
}

/// Whether a host view's bytes (all of its byte range: views that interleave with the range
/// without sharing a byte count too) meet the `bytes` at `p`.
bool overlaps_range(const any_cview& host, const std::byte* p, std::uint64_t bytes) {
    const auto r = strix::detail::byte_range(host);
    const auto lo = static_cast<std::uintptr_t>(r.first), hi = static_cast<std::uintptr_t>(r.second);
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    return lo < hi && bytes > 0 && lo < at + bytes && at < hi;
}

void upload_into(context& ctx, const buffer& dev, std::uint64_t offset, const any_cview& host, const transfer_options& o) {
    if (host.count() == 0) return;
    const std::uint64_t total = static_cast<std::uint64_t>(host.count()) * host.element_size();
    if (dev.mapped()) {
        // the host view may lie in the very bytes it is to be written to (its own host_view(),
        // shifted, reversed): the elements as they were are read in full first, and where they
        // are already in place there is nothing to do
        const std::byte* to = dev.mapped() + offset;
        if (dense(host) && host.data() == to) return;
        if (overlaps_range(host, to, total)) {
            host_tensor copy(host.type(), host.sizes());
            pack(host, copy.data(), false);
            upload_into(ctx, dev, offset, copy.view(), o);
            return;
        }
    }
    if (dev.mapped() && !o.staged) {
        pack(host, dev.mapped() + offset);
        return;
    }
    if (o.pinned && dense(host) && copy_pinned(ctx, dev, offset, host.data(), total, true)) return;
    staging_ring st(ctx, o);
    int h = 0;
    const auto next = [&] { h = (h + 1) % st.size(); };
    const std::uint64_t limit = std::min(o.limit, staging_piece);
    if (dense(host)) {
        const auto* from = static_cast<const std::byte*>(host.data());
        if (!staging_pipelined || st.imports() || !upload_pipelined(ctx, st, dev, offset, from, total, limit))
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

void download_from(context& ctx, const buffer& dev, std::uint64_t offset, const any_view& host, const transfer_options& o) {
    if (host.count() == 0) return;
    const std::uint64_t total = static_cast<std::uint64_t>(host.count()) * host.element_size();
    if (dev.mapped()) {
        // as in upload_into: a host view over the bytes being read gets them as they were
        const std::byte* from = dev.mapped() + offset;
        if (dense(host) && host.data() == from) return;
        if (overlaps_range(host, from, total)) {
            host_tensor copy(host.type(), host.sizes());
            download_from(ctx, dev, offset, copy.view(), o);
            unpack(copy.data(), host);
            return;
        }
    }
    if (dev.mapped() && !o.staged) {
        unpack(dev.mapped() + offset, host);
        return;
    }
    if (o.pinned && dense(host) && copy_pinned(ctx, dev, offset, host.data(), total, false)) return;
    staging_ring st(ctx, o);
    std::vector<detail::callback<void()>> waiting(static_cast<std::size_t>(st.size())); // what unpacks a slot's staging once its copy is done
    int h = 0;
    const auto next = [&] { h = (h + 1) % st.size(); };
    const auto drain = [&](int k) {
        auto& w = waiting[static_cast<std::size_t>(k)];
        if (st.settle(k) && w) w();
        w = {};
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

} // namespace strix::vulkan::detail

namespace strix::vulkan {

device_tensor upload(context& ctx, const any_cview& host) {
    strix::detail::check_view("upload", "input", host, false);
    device_tensor t(ctx, host.type(), host.sizes());
    detail::upload_into(ctx, t.storage(), 0, host);
    return t;
}

void download(context& ctx, const device_tensor& t, const any_view& host) {
    if (host.sizes() != t.sizes() || host.type() != t.type())
        throw error(error_code::invalid_argument, "strix::vulkan::download: the host view " + to_string(host.sizes()) + " " + std::string(name(host.type())) +
                                                      " does not match the device tensor " + to_string(t.sizes()) + " " + std::string(name(t.type())));
    strix::detail::check_view("download", "output", host, true);
    detail::download_from(ctx, t.storage(), 0, host);
}

} // namespace strix::vulkan
