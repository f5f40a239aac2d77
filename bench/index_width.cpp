// How much the 32-bit coordinate path of the Vulkan shaders saves over 64-bit arithmetic: the
// same operators timed (device timestamps, median of 9) with 64-bit arithmetic forced through
// STRIX_VULKAN_WIDE=1 (run the program twice) and, in the same run, a plain copy of the same
// bytes as the baseline. Prints op, bytes moved, median seconds, GB/s and the ratio to the copy.
//   index_width [MiB]        (default 1024: working sets beyond the caches)

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;

namespace {

double median_seconds(vk::context& ctx, const std::function<void(vk::stream&)>& record) {
    std::vector<double> t;
    for (int i = 0; i < 10; ++i) {
        vk::stream s(ctx, {.timestamps = true});
        record(s);
        s.run();
        if (i) t.push_back(s.device_seconds()); // the first run creates the pipelines
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void report(const char* op, double bytes, double seconds, double copy_seconds) {
    std::printf("%-28s %8.0f MB  %9.3f ms  %7.1f GB/s  copy %7.1f GB/s  ratio %.2f\n", op, bytes / 1e6, seconds * 1e3, bytes / seconds / 1e9,
                bytes / copy_seconds / 1e9, copy_seconds / seconds);
}

} // namespace

int main(int argc, char** argv) {
    const std::int64_t mib = argc > 1 ? std::atoll(argv[1]) : 1024;
    vk::context ctx;
    std::printf("device: %s, coordinates in %s bits\n", ctx.device().name.c_str(), ctx.always_addr64() ? "64" : "32");
    const std::int64_t n = mib * 1024 * 1024 / 4; // float32 elements
    const std::int64_t cols = 1024, rows = n / cols;
    const vk::device_tensor x(ctx, strix::dtype::float32, {rows, cols});
    const vk::device_tensor copy(ctx, strix::dtype::float32, {rows, cols});
    const double bytes = 2.0 * static_cast<double>(rows * cols) * 4; // read once, written once
    const double copy_s = median_seconds(ctx, [&](vk::stream& s) {
        const vk::device_view in[] = {x.view()};
        s.join(in, copy.view(), {0}); // a join of one input is a plain copy
    });
    report("copy (join of one)", bytes, copy_s, copy_s);

    const vk::device_tensor padded(ctx, strix::dtype::float32, {rows + 6, cols + 6});
    for (auto mode : {strix::pad_mode::constant, strix::pad_mode::reflect}) {
        const double t = median_seconds(ctx, [&](vk::stream& s) { s.pad(x.view(), padded.view(), strix::pad_desc{mode, {3, 3}, {3, 3}}); });
        report(mode == strix::pad_mode::constant ? "pad constant 3" : "pad reflect 3", bytes, t, copy_s);
    }
    // gather every row in reverse order (indices on the device)
    strix::host_tensor idx(strix::dtype::int64, {rows});
    for (std::int64_t i = 0; i < rows; ++i) idx.as<std::int64_t>()[i] = rows - 1 - i;
    const vk::device_tensor di = vk::upload(ctx, idx.view());
    const double g = median_seconds(ctx, [&](vk::stream& s) { s.gather(x.view(), di.view(), copy.view(), {0}); });
    report("gather rows (reversed)", bytes, g, copy_s);
    const vk::device_tensor t(ctx, strix::dtype::float32, {cols, rows});
    vk::device_view transposed = x.view();
    std::swap(transposed.sizes[0], transposed.sizes[1]);
    std::swap(transposed.strides[0], transposed.strides[1]);
    const double tr = median_seconds(ctx, [&](vk::stream& s) {
        const vk::device_view in[] = {transposed};
        s.join(in, t.view(), {0});
    });
    report("transposing copy", bytes, tr, copy_s);
    return ctx.validation_messages() ? 1 : 0;
}
