// Does the Vulkan copy rate depend on what ran before it? Times a 1 GiB plain copy (device
// timestamps, median of 9) at the start, then after each of: a large allocation freed again, a
// large allocation kept, host idle time, and a copy through large buffers. Written to explain
// why strix-bench's copy baseline fell from ~3.3 to ~1.25 TB/s in the middle of a run.
//   copy_probe [GiB of the large allocation] (default 2)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;
using strix::dtype;

namespace {

double copy_tbps(vk::context& ctx, const vk::device_tensor& a, const vk::device_tensor& b) {
    std::vector<double> t;
    for (int i = 0; i < 10; ++i) {
        vk::stream s(ctx, {.timestamps = true});
        s.copy(a.view(), b.view());
        s.run();
        if (i) t.push_back(s.device_seconds());
    }
    std::sort(t.begin(), t.end());
    return 2.0 * static_cast<double>(a.bytes()) / t[t.size() / 2] / 1e12;
}

} // namespace

int main(int argc, char** argv) {
    const std::int64_t big = (argc > 1 ? std::atoll(argv[1]) : 2) << 28; // float32 elements of the large allocation
    vk::context ctx;
    std::printf("device: %s\n", ctx.device().name.c_str());
    const std::int64_t n = std::int64_t{1} << 27; // 512 MiB of float32 each way: 1 GiB moved
    const vk::device_tensor a(ctx, dtype::float32, {n}), b(ctx, dtype::float32, {n});
    std::printf("%-52s %.2f TB/s\n", "1 GiB copy, first", copy_tbps(ctx, a, b));
    { const vk::device_tensor t(ctx, dtype::float32, {big}); }
    std::printf("%-52s %.2f TB/s\n", "after allocating and freeing the large buffer", copy_tbps(ctx, a, b));
    {
        const vk::device_tensor t(ctx, dtype::float32, {big});
        std::printf("%-52s %.2f TB/s\n", "while the large buffer is allocated", copy_tbps(ctx, a, b));
        const vk::device_tensor u(ctx, dtype::float32, {big});
        {
            vk::stream s(ctx, {.timestamps = true});
            s.copy(t.view(), u.view()); // first touch of both
            s.run();
        }
        std::printf("%-52s %.2f TB/s\n", "  the large buffers themselves", copy_tbps(ctx, t, u));
        std::printf("%-52s %.2f TB/s\n", "  1 GiB copy after that", copy_tbps(ctx, a, b));
    }
    std::printf("%-52s %.2f TB/s\n", "after freeing them", copy_tbps(ctx, a, b));
    const vk::device_tensor c(ctx, dtype::float32, {n}), d(ctx, dtype::float32, {n});
    std::printf("%-52s %.2f TB/s\n", "1 GiB copy, new buffers", copy_tbps(ctx, c, d));
    for (int round = 0; round < 2; ++round) {
        std::this_thread::sleep_for(std::chrono::seconds(3));
        std::printf("%-52s %.2f TB/s\n", "after 3 s of host idle", copy_tbps(ctx, a, b));
        // then sustained work: one stream of back-to-back copies, ~0.33 ms each
        for (const int copies : {30, 150, 600, 1500}) {
            vk::stream s(ctx, {.timestamps = true});
            for (int i = 0; i < copies; ++i) s.copy(a.view(), b.view());
            s.run();
            char what[64];
            std::snprintf(what, sizeof what, "  after %d back-to-back copies (%.0f ms)", copies, s.device_seconds() * 1e3);
            std::printf("%-52s %.2f TB/s\n", what, copy_tbps(ctx, a, b));
        }
    }
}
