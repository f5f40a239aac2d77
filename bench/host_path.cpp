// What a program that calls strix and waits sees: the wall time around a kernel, beside the
// driver's floor measured in the same run. Nothing is warmed up before a row unless the row
// says so; every row reports the median and the first call.
//
//   host_path [--pad-shape N,C,H,W] [--calls N] [--json FILE] [--transfer-mib N]
//             [--copy-threads N] [--copy-grain-kib N] [--staging-mib N] [--staging-depth N]
//             [--staging-plain 0|1] [--staging-pipelined 0|1] [--first-transfer 1]
//
// --first-transfer 1 takes the first upload of a program apart instead (each part in a fresh
// context: the first and second upload, the first after the device tensor was written once,
// and making and first writing the staging ring) and prints nothing else.
//
// Rows:
//   floor       one reused command buffer and fence: vkCmdFillBuffer of 4 KiB, submit, wait;
//               and the same with one dispatch of strix's copy shader moving 4 KiB
//   round trip  `vk::stream s(ctx); s.copy(a, b); s.run();` on 4 KiB: made, run, destroyed;
//               and the same timed in its phases (made, recorded, submitted, waited, destroyed)
//   sync pad    one constant pad (+3 on the two inner axes) per stream, each waited for, back to
//               back with no warm-up (16x64x256x256 float32 by default: 256 MiB in)
//   pad kernel  the pad's device time (timestamps), in 20 more calls right after
//   replay      a recorded stream of 100 operators (4 KiB copies) submitted again: the host's
//               time in replay() per operator, and submit + wait per operator, beside recording
//               and running it anew, and beside rebinding an operand of all 100 before each
//               replay (the stream records itself again)
//   transfers   vk::upload and vk::download of a --transfer-mib MiB float32 tensor from and to
//               ordinary (pageable) host memory, beside one plain vkCmdCopyBuffer of the same
//               bytes between a host-visible buffer and a device buffer (the bus's rate as the
//               driver gives it), the same transfers importing the host memory (where the
//               device can), and from and to a memory::host tensor (the context's pinned
//               memory); GB/s, and the peak host memory the transfers added
//   contention  the two halves of a staged upload run at once, each timed while the other
//               keeps going: the host's copy into the staging pieces while the device copies
//               pinned memory to the device (one submission of several whole copies, checked
//               to outlast the host's copy), and the plain copy while the host copies into
//               staging in a loop on another thread. A staged upload cannot beat the slower
//               of the two.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#if !defined(_WIN32)
#include <sys/resource.h>
#endif

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;
using strix::dtype;
using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

struct row {
    std::string name;
    double median_us = 0, first_us = 0;
};

row summarize(const std::string& name, std::vector<double> t) {
    row r{name, 0, t.empty() ? 0 : t.front() * 1e6};
    std::sort(t.begin(), t.end());
    if (!t.empty()) r.median_us = t[t.size() / 2] * 1e6;
    return r;
}

/// The driver's floor: a command buffer and fence made once, submitted again for every call;
/// the command buffer holds a 4 KiB fill of `target`, or (with `source`) one dispatch of the
/// copy shader moving 4 KiB from `source` to `target`.
/// `poll`: wait as strix does (context::wait: poll the fence, then block), else block at once.
/// `host_barrier`: a barrier from the dispatch to host reads after it (as a stream ends with);
/// `rerecord`: the command buffer recorded again before every submission (as a stream does).
std::vector<double> floor_times(vk::context& ctx, const vk::buffer& target, int calls, const vk::buffer* source = nullptr, bool poll = false,
                                bool host_barrier = false, bool rerecord = false) {
    const auto& v = ctx.vk();
    VkCommandPool pool = VK_NULL_HANDLE;
    auto pci = vk::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = ctx.queue_family();
    vk::require_success(v.vkCreateCommandPool(ctx.handle(), &pci, nullptr, &pool), "vkCreateCommandPool");
    auto ai = vk::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vk::require_success(v.vkAllocateCommandBuffers(ctx.handle(), &ai, &cmd), "vkAllocateCommandBuffers");
    VkFence fence = VK_NULL_HANDLE;
    auto fci = vk::make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    vk::require_success(v.vkCreateFence(ctx.handle(), &fci, nullptr, &fence), "vkCreateFence");
    VkPipeline copy_pipeline = VK_NULL_HANDLE;
    if (source) {
        vk::pipeline_key key{vk::shader::copy, 16, 1, 0, 0, 0};
        key.unroll = 4;
        copy_pipeline = ctx.pipeline(key);
    }
    const auto record = [&] {
        auto bi = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        bi.flags = rerecord ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
        vk::require_success(v.vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
        if (source) {
            v.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, copy_pipeline);
            std::uint64_t push[16] = {source->address(), target.address(), 0, 0, 4096 / 16}; // src, dst, dims, indices, count
            v.vkCmdPushConstants(cmd, ctx.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
            v.vkCmdDispatch(cmd, 1, 1, 1);
        } else {
            v.vkCmdFillBuffer(cmd, target.handle(), 0, 4096, 0x01020304u);
        }
        if (host_barrier) {
            auto mb = vk::make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
            mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
            mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            v.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr,
                                   0, nullptr);
        }
        vk::require_success(v.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    };
    if (!rerecord) record();
    std::vector<double> t;
    for (int i = 0; i < calls; ++i) {
        const auto t0 = clock_type::now();
        if (rerecord) record();
        ctx.submit(cmd, fence);
        if (poll) ctx.wait(fence);
        else vk::require_success(v.vkWaitForFences(ctx.handle(), 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
        vk::require_success(v.vkResetFences(ctx.handle(), 1, &fence), "vkResetFences");
        t.push_back(seconds_since(t0));
    }
    v.vkDestroyFence(ctx.handle(), fence, nullptr);
    v.vkDestroyCommandPool(ctx.handle(), pool, nullptr);
    return t;
}

/// Peak resident memory of the process so far, in bytes (0 where unknown).
std::uint64_t peak_rss() {
#if defined(_WIN32)
    return 0;
#else
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
#endif
}

/// One plain copy of `bytes` between two buffers, recorded and submitted once per call.
std::vector<double> plain_copy_times(vk::context& ctx, const vk::buffer& from, const vk::buffer& to, std::uint64_t bytes, int calls) {
    std::vector<double> t;
    for (int i = 0; i < calls; ++i) {
        const auto t0 = clock_type::now();
        vk::detail::one_shot(ctx, [&](VkCommandBuffer cmd) {
            const VkBufferCopy region{0, 0, bytes};
            ctx.vk().vkCmdCopyBuffer(cmd, from.handle(), to.handle(), 1, &region);
        });
        t.push_back(seconds_since(t0));
    }
    return t;
}

strix::shape parse_shape(const char* text) {
    strix::shape s{};
    for (const char* p = text; *p;) {
        char* end = nullptr;
        s.push_back(std::strtoll(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
    }
    return s;
}

} // namespace

int main(int argc, char** argv) {
    strix::shape pad_shape{16, 64, 256, 256};
    int calls = 300;
    std::int64_t transfer_mib = 1024;
    const char* json = nullptr;
    bool first_transfer = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--pad-shape") pad_shape = parse_shape(argv[i + 1]);
        else if (a == "--calls") calls = std::atoi(argv[i + 1]);
        else if (a == "--json") json = argv[i + 1];
        else if (a == "--transfer-mib") transfer_mib = std::atoll(argv[i + 1]);
        else if (a == "--copy-threads") vk::detail::copy_threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (a == "--copy-grain-kib") vk::detail::copy_grain = static_cast<std::uint64_t>(std::atoll(argv[i + 1])) << 10;
        else if (a == "--staging-mib") vk::detail::staging_piece = static_cast<std::uint64_t>(std::atoll(argv[i + 1])) << 20;
        else if (a == "--staging-depth") vk::detail::staging_depth = std::atoi(argv[i + 1]);
        else if (a == "--staging-plain") vk::detail::staging_streamed = std::atoi(argv[i + 1]) == 0;
        else if (a == "--staging-pipelined") vk::detail::staging_pipelined = std::atoi(argv[i + 1]) != 0;
        else if (a == "--first-transfer") first_transfer = std::atoi(argv[i + 1]) != 0;
    }
    if (first_transfer) {
        // what the first upload of a program pays, taken apart: each part in a fresh context
        const std::int64_t n = transfer_mib * (1 << 20) / 4;
        strix::host_tensor host(dtype::float32, strix::shape{n});
        std::memset(host.data(), 1, host.bytes());
        const auto ms = [](clock_type::time_point t0) { return seconds_since(t0) * 1e3; };
        for (int round = 0; round < 3; ++round) {
            {
                vk::context c;
                const vk::device_tensor dev(c, dtype::float32, strix::shape{n});
                auto t0 = clock_type::now();
                vk::detail::upload_into(c, dev.storage(), 0, host.view());
                const double first = ms(t0);
                t0 = clock_type::now();
                vk::detail::upload_into(c, dev.storage(), 0, host.view());
                std::printf("fresh context and tensor: first upload %.1f ms, second %.1f ms\n", first, ms(t0));
            }
            {
                vk::context c;
                const vk::device_tensor dev(c, dtype::float32, strix::shape{n});
                auto t0 = clock_type::now();
                vk::detail::one_shot(c, [&](VkCommandBuffer cmd) { c.vk().vkCmdFillBuffer(cmd, dev.storage().handle(), 0, VK_WHOLE_SIZE, 0); });
                const double fill = ms(t0);
                t0 = clock_type::now();
                vk::detail::upload_into(c, dev.storage(), 0, host.view());
                std::printf("fresh context, the tensor filled first (%.1f ms): first upload %.1f ms\n", fill, ms(t0));
            }
            {
                vk::context c;
                auto t0 = clock_type::now();
                std::vector<vk::buffer> ring;
                for (int k = 0; k < vk::detail::staging_depth; ++k) ring.push_back(c.create_buffer(vk::detail::staging_piece, vk::memory::host));
                const double made = ms(t0);
                t0 = clock_type::now();
                for (auto& b : ring) std::memset(b.mapped(), 0, b.size());
                std::printf("fresh context: %d staging buffers made in %.1f ms, first written in %.1f ms\n", vk::detail::staging_depth, made, ms(t0));
            }
        }
        return 0;
    }
    const auto t_ctx = clock_type::now();
    vk::context ctx;
    const double ctx_s = seconds_since(t_ctx);
    std::printf("device: %s (%s)\n", ctx.device().name.c_str(), vk::type_name(ctx.device().type));
    std::printf("context made in %.1f ms\n", ctx_s * 1e3);
    std::printf("transfers: %d staging pieces of %llu MiB, %s stores, up to %u copy threads of %llu KiB or more, %s\n", vk::detail::staging_depth,
                static_cast<unsigned long long>(vk::detail::staging_piece >> 20), vk::detail::staging_streamed ? "non-temporal" : "plain",
                vk::detail::copy_threads, static_cast<unsigned long long>(vk::detail::copy_grain >> 10),
                vk::detail::staging_pipelined ? "uploads as one job of grains" : "uploads piece by piece");
    std::vector<row> rows;

    // round trip and floor, alternating blocks so that both see the same clocks
    const vk::device_tensor a(ctx, dtype::float32, {1024}), b(ctx, dtype::float32, {1024});
    const vk::buffer fill_target = ctx.create_buffer(4096, vk::memory::device), copy_source = ctx.create_buffer(4096, vk::memory::device);
    // a small gather as a program makes one: 64 rows of 16 KiB from a 4096-row table, waited
    // for; under the error policy (an index check pass before the move) and clamped (none)
    const vk::device_tensor table(ctx, dtype::float32, {4096, 4096}), gathered(ctx, dtype::float32, {64, 4096});
    strix::host_tensor rows64(dtype::int64, {64});
    for (std::int64_t i = 0; i < 64; ++i) reinterpret_cast<std::int64_t*>(rows64.data())[i] = (i * 977) % 4096;
    const vk::device_tensor row_idx = vk::upload(ctx, rows64.view());
    std::vector<double> trip, floor, dispatch_floor, poll_floor, gather_checked, gather_clamped;
    // the copy's round trip in its phases: the stream made, the copy recorded, submitted,
    // waited for, the stream destroyed
    std::vector<double> phase[5];
    std::vector<double> poll_steps[3];
    const auto between = [](clock_type::time_point t0, clock_type::time_point t1) { return std::chrono::duration<double>(t1 - t0).count(); };
    for (int block = 0; block < 10; ++block) {
        for (int i = 0; i < calls / 10; ++i) {
            const auto t0 = clock_type::now();
            vk::stream s(ctx);
            s.copy(a.view(), b.view());
            s.run();
            trip.push_back(seconds_since(t0));
        }
        for (int i = 0; i < calls / 10; ++i) {
            clock_type::time_point t[6];
            t[0] = clock_type::now();
            {
                vk::stream s(ctx);
                t[1] = clock_type::now();
                s.copy(a.view(), b.view());
                t[2] = clock_type::now();
                s.submit();
                t[3] = clock_type::now();
                s.wait();
                t[4] = clock_type::now();
            }
            t[5] = clock_type::now();
            for (int k = 0; k < 5; ++k) phase[k].push_back(between(t[k], t[k + 1]));
        }
        for (int i = 0; i < calls / 10; ++i) {
            for (const bool checked : {true, false}) {
                const auto t0 = clock_type::now();
                vk::stream s(ctx);
                s.gather(table.view(), row_idx.view(), gathered.view(), {0, -1, checked ? strix::index_policy::error : strix::index_policy::clamp});
                s.run();
                (checked ? gather_checked : gather_clamped).push_back(seconds_since(t0));
            }
        }
        const auto f = floor_times(ctx, fill_target, calls / 10);
        floor.insert(floor.end(), f.begin(), f.end());
        const auto fd = floor_times(ctx, fill_target, calls / 10, &copy_source);
        dispatch_floor.insert(dispatch_floor.end(), fd.begin(), fd.end());
        const auto fp = floor_times(ctx, fill_target, calls / 10, nullptr, true);
        poll_floor.insert(poll_floor.end(), fp.begin(), fp.end());
        // the driver's part of a stream's round trip, step by step: a dispatch, waited for as
        // strix waits; with the barrier to the host a stream ends with; recorded anew each time
        for (int k = 0; k < 3; ++k) {
            const auto f3 = floor_times(ctx, fill_target, calls / 10, &copy_source, true, k >= 1, k >= 2);
            poll_steps[k].insert(poll_steps[k].end(), f3.begin(), f3.end());
        }
    }
    rows.push_back(summarize("floor: reused command buffer, 4 KiB fill, submit, wait", floor));
    rows.push_back(summarize("floor: reused command buffer, 4 KiB copy dispatch, submit, wait", dispatch_floor));
    rows.push_back(summarize("round trip: stream made, 4 KiB copy, run, destroyed", trip));
    rows.push_back(summarize("floor: reused command buffer, 4 KiB fill, submit, strix's polling wait", poll_floor));
    rows.push_back(summarize("round trip: stream made, gather 64 rows of 16 KiB (indices checked), run", gather_checked));
    rows.push_back(summarize("round trip: stream made, gather 64 rows of 16 KiB (clamped), run", gather_clamped));
    const char* phase_names[5] = {"stream made", "4 KiB copy recorded", "submitted", "waited for", "stream destroyed"};
    for (int k = 0; k < 5; ++k) rows.push_back(summarize(std::string("round trip in phases: ") + phase_names[k], phase[k]));
    const char* step_names[3] = {"4 KiB copy dispatch, submit, strix's polling wait", "the same with a barrier to the host",
                                 "the same recorded anew for each submission"};
    for (int k = 0; k < 3; ++k) rows.push_back(summarize(std::string("floor: ") + step_names[k], poll_steps[k]));

    // the synchronous pad loop: no warm-up, each call waited for
    {
        strix::shape out_shape = pad_shape;
        const int r = pad_shape.rank;
        strix::pad_desc d{strix::pad_mode::constant, strix::shape{}, strix::shape{}, strix::scalar(0.0)};
        for (int i = 0; i < r; ++i) {
            const std::int64_t p = i >= r - 2 ? 3 : 0;
            d.start.push_back(p);
            d.end.push_back(p);
            out_shape[i] += 2 * p;
        }
        const vk::device_tensor in(ctx, dtype::float32, pad_shape), out(ctx, dtype::float32, out_shape);
        std::vector<double> wall, kernel;
        for (int i = 0; i < 100; ++i) {
            const auto t0 = clock_type::now();
            vk::stream s(ctx);
            s.pad(in.view(), out.view(), d);
            s.run();
            wall.push_back(seconds_since(t0));
        }
        for (int i = 0; i < 20; ++i) { // then the kernel's device time, in streams with timestamps
            vk::stream s(ctx, {.timestamps = true});
            s.pad(in.view(), out.view(), d);
            s.run();
            kernel.push_back(s.device_seconds());
        }
        const std::string shape_text = strix::to_string(pad_shape);
        rows.push_back(summarize("sync pad " + shape_text + " float32: wall per call", wall));
        rows.push_back(summarize("sync pad " + shape_text + " float32: device time", kernel));
    }

    // recording 100 operators anew each time, and (when streams replay) submitting one again
    {
        std::vector<double> record;
        for (int rep = 0; rep < 20; ++rep) {
            const auto t0 = clock_type::now();
            vk::stream s(ctx);
            for (int k = 0; k < 100; ++k) s.copy(a.view(), b.view());
            s.run();
            record.push_back(seconds_since(t0) / 100);
        }
        rows.push_back(summarize("100-operator stream, recorded and run: per operator", record));
        // the same stream recorded once, then submitted again: the host's time in replay() per
        // operator, and the whole replay (submit and wait) per operator
        vk::stream s(ctx);
        for (int k = 0; k < 100; ++k) s.copy(a.view(), b.view());
        s.run();
        std::vector<double> host, whole;
        for (int rep = 0; rep < 200; ++rep) {
            const auto t0 = clock_type::now();
            s.replay();
            host.push_back(seconds_since(t0) / 100);
            s.wait();
            whole.push_back(seconds_since(t0) / 100);
        }
        rows.push_back(summarize("100-operator stream, replayed: host time of replay() per operator", host));
        rows.push_back(summarize("100-operator stream, replayed and waited for: per operator", whole));
        // operands changed between runs without the application recording again: rebind the
        // output of all 100 to another tensor (b, c, b, ...), then replay
        const vk::device_tensor c(ctx, dtype::float32, b.sizes());
        std::vector<double> rebind, rebound;
        for (int rep = 0; rep < 200; ++rep) {
            const auto t0 = clock_type::now();
            if (rep % 2 == 0) s.rebind({{b.view(), c.view()}});
            else s.rebind({{c.view(), b.view()}});
            rebind.push_back(seconds_since(t0) / 100);
            s.replay();
            s.wait();
            rebound.push_back(seconds_since(t0) / 100);
        }
        rows.push_back(summarize("100-operator stream, rebind() of one operand: host time per operator", rebind));
        rows.push_back(summarize("100-operator stream, rebound, replayed and waited for: per operator", rebound));
    }

    // transfers: upload and download through strix, beside the plain copy of the same bytes
    std::vector<std::pair<std::string, double>> rates; // GB/s by median
    std::uint64_t added_peak = 0;
    if (transfer_mib > 0) {
        const std::int64_t n = transfer_mib * (1 << 20) / 4;
        const std::uint64_t bytes = static_cast<std::uint64_t>(n) * 4;
        strix::host_tensor host(dtype::float32, strix::shape{n});
        for (std::int64_t i = 0; i < n; ++i) reinterpret_cast<float*>(host.data())[i] = static_cast<float>(i % 1000);
        const vk::device_tensor dev(ctx, dtype::float32, strix::shape{n});
        const vk::buffer staged = ctx.create_buffer(bytes, vk::memory::host);
        std::memset(staged.mapped(), 1, bytes);
        // the application's data in the context's host memory (pinned): a memory::host tensor
        const vk::device_tensor pinned(ctx, dtype::float32, strix::shape{n}, vk::memory::host);
        std::memcpy(pinned.host_view().data(), host.data(), bytes);
        std::vector<double> up, down, plain_up, plain_down, other_up, other_down, pinned_up, pinned_down;
        const std::uint64_t before = peak_rss(); // the tensors are there; the staging halves not yet
        const vk::detail::transfer_options imported{.import = true};
        for (int i = 0; i < 5; ++i) {
            auto t0 = clock_type::now();
            vk::detail::upload_into(ctx, dev.storage(), 0, host.view());
            up.push_back(seconds_since(t0));
            t0 = clock_type::now();
            vk::download(ctx, dev, host.view());
            down.push_back(seconds_since(t0));
            const auto pu = plain_copy_times(ctx, staged, dev.storage(), bytes, 1), pd = plain_copy_times(ctx, dev.storage(), staged, bytes, 1);
            plain_up.push_back(pu[0]);
            plain_down.push_back(pd[0]);
            t0 = clock_type::now();
            vk::detail::upload_into(ctx, dev.storage(), 0, host.view(), imported);
            other_up.push_back(seconds_since(t0));
            t0 = clock_type::now();
            vk::detail::download_from(ctx, dev.storage(), 0, host.view(), imported);
            other_down.push_back(seconds_since(t0));
            t0 = clock_type::now();
            vk::detail::upload_into(ctx, dev.storage(), 0, pinned.host_view());
            pinned_up.push_back(seconds_since(t0));
            t0 = clock_type::now();
            vk::download(ctx, dev, pinned.host_view());
            pinned_down.push_back(seconds_since(t0));
        }
        added_peak = peak_rss() - before;
        // the host's side alone: the same bytes copied into the staging pieces in turn, as the
        // staged upload does, with nothing on the device; then each half of the upload timed
        // while the other runs
        std::vector<double> host_only, host_busy, plain_busy;
        int outlasted = 0;
        {
            const std::uint64_t piece = vk::detail::staging_piece;
            const int depth = std::max(2, vk::detail::staging_depth);
            std::vector<std::byte> ring(static_cast<std::size_t>(depth) * piece);
            const auto copy_all = [&] {
                int h = 0;
                for (std::uint64_t at = 0; at < bytes; at += piece, h = (h + 1) % depth)
                    vk::detail::host_copy(ring.data() + static_cast<std::uint64_t>(h) * piece, host.data() + at, std::min(piece, bytes - at),
                                          vk::detail::staging_streamed);
            };
            for (int i = 0; i < 5; ++i) {
                const auto t0 = clock_type::now();
                copy_all();
                host_only.push_back(seconds_since(t0));
            }
            const auto& v = ctx.vk();
            for (int i = 0; i < 5; ++i) {
                // the device copies the pinned buffer four times over (about four of the host's
                // copies) while the host copies once
                auto f = ctx.acquire_frame();
                auto bi = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
                bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
                vk::require_success(v.vkBeginCommandBuffer(f->cmd, &bi), "vkBeginCommandBuffer");
                const VkBufferCopy region{0, 0, bytes};
                for (int k = 0; k < 4; ++k) v.vkCmdCopyBuffer(f->cmd, staged.handle(), dev.storage().handle(), 1, &region);
                vk::require_success(v.vkEndCommandBuffer(f->cmd), "vkEndCommandBuffer");
                ctx.submit(f->cmd, f->fence);
                std::this_thread::sleep_for(std::chrono::milliseconds(2)); // the copy under way
                const auto t0 = clock_type::now();
                copy_all();
                host_busy.push_back(seconds_since(t0));
                if (v.vkGetFenceStatus(ctx.handle(), f->fence) == VK_NOT_READY) ++outlasted;
                ctx.wait(f->fence);
                ctx.release_frame(std::move(f));
                // the plain copy while the host copies into staging on another thread
                std::atomic<bool> stop{false};
                std::thread load([&] {
                    while (!stop.load(std::memory_order_relaxed)) copy_all();
                });
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                plain_busy.push_back(plain_copy_times(ctx, staged, dev.storage(), bytes, 1)[0]);
                stop = true;
                load.join();
            }
        }
        const std::string mib = std::to_string(transfer_mib) + " MiB";
        const char* how = dev.storage().mapped() ? "straight into mapped device memory"
                          : ctx.host_import()     ? "host memory imported"
                                                  : "through the staging pieces";
        rows.push_back(summarize("upload " + mib + " (vk::upload's path, pageable host memory, " + how + ")", up));
        rows.push_back(summarize("plain vkCmdCopyBuffer host-visible -> device, " + mib, plain_up));
        rows.push_back(summarize("download " + mib + " (vk::download, pageable host memory, " + how + ")", down));
        rows.push_back(summarize("plain vkCmdCopyBuffer device -> host-visible, " + mib, plain_down));
        const char* other = dev.storage().mapped()   ? "straight into mapped device memory again"
                            : ctx.can_import_host() ? "importing host memory (STRIX_VULKAN_HOST_IMPORT=1)"
                                                    : "through the staging pieces again (no host import)";
        rows.push_back(summarize("upload " + mib + " " + other, other_up));
        rows.push_back(summarize("download " + mib + " " + other, other_down));
        rows.push_back(summarize("host side alone: " + mib + " copied into the staging pieces in turn", host_only));
        rows.push_back(summarize("upload " + mib + " from a memory::host tensor's host_view() (pinned)", pinned_up));
        rows.push_back(summarize("download " + mib + " into a memory::host tensor's host_view() (pinned)", pinned_down));
        rows.push_back(summarize("host side while the device copies pinned memory: " + mib + " into the staging pieces", host_busy));
        rows.push_back(summarize("plain vkCmdCopyBuffer host-visible -> device while the host copies into staging, " + mib, plain_busy));
        std::printf("contention: the device's copies outlasted the host's in %d of 5 runs\n", outlasted);
        for (std::size_t k = rows.size() - 11; k < rows.size(); ++k) rates.emplace_back(rows[k].name, static_cast<double>(bytes) / (rows[k].median_us * 1e-6) / 1e9);
    }

    for (const auto& r : rows) std::printf("%-64s median %10.1f us   first %10.1f us\n", r.name.c_str(), r.median_us, r.first_us);
    if (rows[0].median_us > 0 && rows[1].median_us > 0)
        std::printf("round trip / fill floor: %.2fx, / dispatch floor: %.2fx, / fill floor with the same polling wait: %.2fx (waits poll for %u us)\n",
                    rows[2].median_us / rows[0].median_us, rows[2].median_us / rows[1].median_us, rows[2].median_us / rows[3].median_us, ctx.spin_wait_us());
    for (const auto& [name, gbps] : rates) std::printf("%-64s %8.2f GB/s\n", name.c_str(), gbps);
    if (rates.size() == 11)
        std::printf("upload / plain copy: %.2f, download / plain copy: %.2f (the other path: %.2f, %.2f; host side alone / plain upload: %.2f; "
                    "pinned: %.2f, %.2f); peak host memory added by the transfers: %.1f MiB\n",
                    rates[0].second / rates[1].second, rates[2].second / rates[3].second, rates[4].second / rates[1].second, rates[5].second / rates[3].second,
                    rates[6].second / rates[1].second, rates[7].second / rates[1].second, rates[8].second / rates[3].second,
                    static_cast<double>(added_peak) / (1 << 20));
    if (rates.size() == 11)
        std::printf("with the other half running: host side / plain upload %.2f, plain upload %.2f of itself alone; "
                    "the staged upload / the slower of the two: %.2f\n",
                    rates[9].second / rates[1].second, rates[10].second / rates[1].second,
                    rates[0].second / std::min(rates[9].second, rates[10].second));
    if (json) {
        if (std::FILE* f = std::fopen(json, "w")) {
            std::fprintf(f, "{\"device\": \"%s\", \"context_ms\": %.3f, \"transfer_peak_added_bytes\": %llu, \"rows\": [\n", ctx.device().name.c_str(), ctx_s * 1e3,
                         static_cast<unsigned long long>(added_peak));
            for (std::size_t i = 0; i < rows.size(); ++i)
                std::fprintf(f, "  {\"name\": \"%s\", \"median_us\": %.3f, \"first_us\": %.3f}%s\n", rows[i].name.c_str(), rows[i].median_us,
                             rows[i].first_us, i + 1 < rows.size() ? "," : "");
            std::fprintf(f, "]}\n");
            std::fclose(f);
        }
    }
    return 0;
}
