// What a program that calls strix and waits sees: the wall time around a kernel, beside the
// driver's floor measured in the same run. Nothing is warmed up before a row unless the row
// says so; every row reports the median and the first call.
//
//   host_path [--pad-shape N,C,H,W] [--calls N] [--json FILE]
//
// Rows:
//   floor       one reused command buffer and fence: vkCmdFillBuffer of 4 KiB, submit, wait;
//               and the same with one dispatch of strix's copy shader moving 4 KiB
//   round trip  `vk::stream s(ctx); s.copy(a, b); s.run();` on 4 KiB: made, run, destroyed
//   sync pad    one constant pad (+3 on the two inner axes) per stream, each waited for, back to
//               back with no warm-up (16x64x256x256 float32 by default: 256 MiB in)
//   pad kernel  the pad's device time (timestamps), in 20 more calls right after
//   replay      a recorded stream of 100 operators (4 KiB copies) submitted again: the host's
//               time in replay() per operator, and submit + wait per operator, beside recording
//               and running it anew

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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
std::vector<double> floor_times(vk::context& ctx, const vk::buffer& target, int calls, const vk::buffer* source = nullptr) {
    const auto& v = ctx.vk();
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = ctx.queue_family();
    vk::check(v.vkCreateCommandPool(ctx.handle(), &pci, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vk::check(v.vkAllocateCommandBuffers(ctx.handle(), &ai, &cmd), "vkAllocateCommandBuffers");
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vk::check(v.vkCreateFence(ctx.handle(), &fci, nullptr, &fence), "vkCreateFence");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
    vk::check(v.vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    if (source) {
        vk::pipeline_key key{vk::shader::copy, 16, 1, 0, 0, 0};
        key.unroll = 4;
        v.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx.pipeline(key));
        std::uint64_t push[16] = {source->address(), target.address(), 0, 0, 4096 / 16}; // src, dst, dims, indices, count
        v.vkCmdPushConstants(cmd, ctx.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        v.vkCmdDispatch(cmd, 1, 1, 1);
    } else {
        v.vkCmdFillBuffer(cmd, target.handle(), 0, 4096, 0x01020304u);
    }
    vk::check(v.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    std::vector<double> t;
    for (int i = 0; i < calls; ++i) {
        const auto t0 = clock_type::now();
        ctx.submit(cmd, fence);
        vk::check(v.vkWaitForFences(ctx.handle(), 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
        vk::check(v.vkResetFences(ctx.handle(), 1, &fence), "vkResetFences");
        t.push_back(seconds_since(t0));
    }
    v.vkDestroyFence(ctx.handle(), fence, nullptr);
    v.vkDestroyCommandPool(ctx.handle(), pool, nullptr);
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
    const char* json = nullptr;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--pad-shape") pad_shape = parse_shape(argv[i + 1]);
        else if (a == "--calls") calls = std::atoi(argv[i + 1]);
        else if (a == "--json") json = argv[i + 1];
    }
    const auto t_ctx = clock_type::now();
    vk::context ctx;
    const double ctx_s = seconds_since(t_ctx);
    std::printf("device: %s (%s)\n", ctx.device().name.c_str(), vk::type_name(ctx.device().type));
    std::printf("context made in %.1f ms\n", ctx_s * 1e3);
    std::vector<row> rows;

    // round trip and floor, alternating blocks so that both see the same clocks
    const vk::device_tensor a(ctx, dtype::float32, {1024}), b(ctx, dtype::float32, {1024});
    const vk::buffer fill_target = ctx.create_buffer(4096, vk::memory::device), copy_source = ctx.create_buffer(4096, vk::memory::device);
    std::vector<double> trip, floor, dispatch_floor;
    for (int block = 0; block < 10; ++block) {
        for (int i = 0; i < calls / 10; ++i) {
            const auto t0 = clock_type::now();
            vk::stream s(ctx);
            s.copy(a.view(), b.view());
            s.run();
            trip.push_back(seconds_since(t0));
        }
        const auto f = floor_times(ctx, fill_target, calls / 10);
        floor.insert(floor.end(), f.begin(), f.end());
        const auto fd = floor_times(ctx, fill_target, calls / 10, &copy_source);
        dispatch_floor.insert(dispatch_floor.end(), fd.begin(), fd.end());
    }
    rows.push_back(summarize("floor: reused command buffer, 4 KiB fill, submit, wait", floor));
    rows.push_back(summarize("floor: reused command buffer, 4 KiB copy dispatch, submit, wait", dispatch_floor));
    rows.push_back(summarize("round trip: stream made, 4 KiB copy, run, destroyed", trip));

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
    }

    for (const auto& r : rows) std::printf("%-64s median %10.1f us   first %10.1f us\n", r.name.c_str(), r.median_us, r.first_us);
    if (rows[0].median_us > 0 && rows[1].median_us > 0)
        std::printf("round trip / fill floor: %.2fx, / dispatch floor: %.2fx\n", rows[2].median_us / rows[0].median_us, rows[2].median_us / rows[1].median_us);
    if (json) {
        if (std::FILE* f = std::fopen(json, "w")) {
            std::fprintf(f, "{\"device\": \"%s\", \"context_ms\": %.3f, \"rows\": [\n", ctx.device().name.c_str(), ctx_s * 1e3);
            for (std::size_t i = 0; i < rows.size(); ++i)
                std::fprintf(f, "  {\"name\": \"%s\", \"median_us\": %.3f, \"first_us\": %.3f}%s\n", rows[i].name.c_str(), rows[i].median_us,
                             rows[i].first_us, i + 1 < rows.size() ? "," : "");
            std::fprintf(f, "]}\n");
            std::fclose(f);
        }
    }
    return 0;
}
