// What scatter reductions cost on the device: atomics (any order) against the deterministic
// bucket path (C order of the updates, bit-identical to the CPU), beside a plain scatter (no
// reduction) and a copy of the same bytes. Device timestamps, median of 9 runs after a warm-up.
// Bytes moved: the input read and the output written once, plus the indices and updates read.
//   reductions [updates]     (default 1048576)
// Prints one line per case: op, case, MB moved, median ms, GB/s, and the time relative to the
// atomic add of the same case.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;
using strix::dtype;

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

} // namespace

int main(int argc, char** argv) {
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (1 << 20);
    vk::context ctx;
    std::printf("device: %s, %lld updates\n", ctx.device().name.c_str(), static_cast<long long>(n));
    std::printf("%-34s %-22s %9s %10s %9s %8s\n", "op", "case", "MB", "ms", "GB/s", "vs add");
    std::mt19937_64 g(7);
    for (const dtype type : {dtype::float32, dtype::float16, dtype::int32, dtype::float64}) {
        for (const std::int64_t targets : {n, std::int64_t{65536}}) {
            // unique targets (a permutation) or n updates onto 64K targets
            strix::host_tensor idx(dtype::int64, {n});
            auto* ip = idx.as<std::int64_t>();
            if (targets == n) {
                std::iota(ip, ip + n, 0);
                std::shuffle(ip, ip + n, g);
            } else {
                for (std::int64_t i = 0; i < n; ++i) ip[i] = static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(targets));
            }
            strix::host_tensor upd(type, {n});
            // ones (an add of zero would let the compare-and-swap loop skip its atomic); 16 per
            // target at most onto 64K targets, far from overflow in every type
            strix::visit(type, [&]<class T>(strix::type_tag<T>) { std::fill_n(reinterpret_cast<T*>(upd.data()), n, static_cast<T>(1.0f)); });
            const vk::device_tensor di = vk::upload(ctx, idx.view()), du = vk::upload(ctx, upd.view());
            const vk::device_tensor in(ctx, type, {targets}), out(ctx, type, {targets});
            const double es = static_cast<double>(strix::size_of(type));
            const double bytes = 2.0 * static_cast<double>(targets) * es + static_cast<double>(n) * (8 + es);
            const std::string what = std::string(strix::name(type)) + (targets == n ? ", 1M unique" : ", 1M onto 64K");
            auto time = [&](strix::scatter_reduction r, bool det) {
                return median_seconds(ctx, [&](vk::stream& s) { s.scatter(in.view(), di.view(), du.view(), out.view(), {0, strix::index_policy::error, r, det}); });
            };
            const double add = time(strix::scatter_reduction::add, false);
            auto row = [&](const char* op, double t) {
                std::printf("%-34s %-22s %9.1f %10.3f %9.1f %8.2f\n", op, what.c_str(), bytes / 1e6, t * 1e3, bytes / t / 1e9, t / add);
            };
            row("scatter (no reduction)", time(strix::scatter_reduction::none, false));
            row("scatter add, atomics", add);
            row("scatter add, deterministic", time(strix::scatter_reduction::add, true));
            row("scatter max, atomics", time(strix::scatter_reduction::max, false));
            row("scatter max, deterministic", time(strix::scatter_reduction::max, true));
        }
    }
    return ctx.validation_messages() ? 1 : 0;
}
