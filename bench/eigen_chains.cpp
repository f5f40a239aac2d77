// Chains of moves on the CPU: strix's composed chains beside Eigen's Tensor expressions of the
// same chains (lazy, evaluated in one pass at assignment) and beside a memcpy of the output's
// bytes, measured in turn repetition by repetition (medians), on 1 and 2 threads.
//
//   eigen_chains [--quick]
//
// Eigen pads with a constant only and has no gather by an index tensor, so the chains compared
// are those it can write: crop -> constant pad -> join, split -> constant pad each -> join, and
// slice ::2 -> tile 2 (Eigen's stride and broadcast). Each result is compared with the other's
// before timing. Built on request where Eigen is installed (scripts/deps.sh peers):
// `meson compile -C build eigen_chains`.

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "strix/strix.hpp"

namespace {

using clk = std::chrono::steady_clock;
using tmap = Eigen::TensorMap<Eigen::Tensor<float, 4, Eigen::RowMajor>>;
using idx4 = Eigen::array<Eigen::Index, 4>;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

tmap as_eigen(strix::host_tensor& t) {
    const strix::shape s = t.view().sizes(); // (a copy: view() is a temporary)
    return tmap(static_cast<float*>(t.view().data()), s[0], s[1], s[2], s[3]);
}

struct row {
    std::string name;
    double strix_s, eigen_s, copy_s, bytes;
};

/// Times strix's chain, Eigen's expression and a memcpy of the output's bytes in turn, `reps`
/// times after a warm-up of each; inputs rotate over `copies` so that none is in the caches.
row measure(const std::string& name, double out_bytes, int reps, int copies, const std::function<void(int)>& strix_run,
            const std::function<void(int)>& eigen_run, strix::host_tensor& out) {
    std::vector<strix::host_tensor> from, to;
    const auto n = static_cast<std::int64_t>(out_bytes);
    for (int i = 0; i < copies; ++i) {
        from.emplace_back(strix::dtype::uint8, strix::shape{n});
        std::memset(from.back().view().data(), 1, static_cast<std::size_t>(n));
    }
    std::vector<double> a, b, c;
    for (int r = 0; r <= reps; ++r) {
        auto timed = [&](auto&& f) {
            const auto t0 = clk::now();
            f();
            return std::chrono::duration<double>(clk::now() - t0).count();
        };
        const double tc = timed([&] { std::memcpy(out.view().data(), from[static_cast<std::size_t>(r % copies)].view().data(), static_cast<std::size_t>(n)); });
        const double ts = timed([&] { strix_run(r); });
        const double te = timed([&] { eigen_run(r); });
        if (r) a.push_back(ts), b.push_back(te), c.push_back(tc);
    }
    return {name, median(a), median(b), median(c), out_bytes};
}

} // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    const std::int64_t n = quick ? 1 : 4, ch = 64, h = 256, w = 256;
    const int reps = quick ? 5 : 15, copies = 4;
    std::vector<strix::host_tensor> xs;
    for (int i = 0; i < copies; ++i) {
        xs.emplace_back(strix::dtype::float32, strix::shape{n, ch, h, w});
        auto* p = static_cast<float*>(xs.back().view().data());
        for (std::int64_t k = 0; k < xs.back().view().count(); ++k) p[k] = static_cast<float>(k % 1013) * 0.5f + static_cast<float>(i);
    }
    strix::host_tensor other(strix::dtype::float32, {n, ch / 4, h + 6, w + 6});
    std::memset(other.view().data(), 0, static_cast<std::size_t>(other.view().count()) * 4);
    std::printf("eigen_chains: strix's chains beside Eigen %d.%d.%d Tensor expressions and a memcpy of the output, medians of %d\n", EIGEN_WORLD_VERSION,
                EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION, reps);
    std::printf("%-8s %-40s %9s %9s %9s %12s %12s\n", "threads", "chain", "strix ms", "Eigen ms", "copy ms", "strix/copy", "Eigen/strix");
    for (const int threads : {1, 2}) {
        Eigen::ThreadPool pool(threads);
        Eigen::ThreadPoolDevice dev(&pool, threads);
        strix::cpu::options opt;
        opt.threads = threads;
        std::vector<row> rows;
        auto check = [](strix::host_tensor& a, strix::host_tensor& b, const char* what) {
            if (std::memcmp(a.view().data(), b.view().data(), static_cast<std::size_t>(a.view().count()) * 4) != 0)
                std::printf("  (%s: strix's and Eigen's results differ)\n", what);
        };
        { // crop 1 -> constant pad 4 -> join with [n, 16, h+6, w+6] along the channels
            const strix::pad_desc crop{.start = {0, 0, -1, -1}, .end = {0, 0, -1, -1}};
            const strix::pad_desc zero4{.start = {0, 0, 4, 4}, .end = {0, 0, 4, 4}};
            strix::host_tensor out(strix::dtype::float32, {n, ch + ch / 4, h + 6, w + 6}), ref(strix::dtype::float32, {n, ch + ch / 4, h + 6, w + 6});
            auto s = [&](int r) {
                const strix::chain parts[] = {strix::lazy(xs[static_cast<std::size_t>(r % copies)].view()).pad(crop).pad(zero4), other.view()};
                strix::join(parts, out.view(), {.axis = 1}, opt);
            };
            const Eigen::array<std::pair<Eigen::Index, Eigen::Index>, 4> pads{{{0, 0}, {0, 0}, {4, 4}, {4, 4}}};
            auto e = [&](int r) {
                tmap o = as_eigen(ref), x = as_eigen(xs[static_cast<std::size_t>(r % copies)]), t = as_eigen(other);
                o.device(dev) = x.slice(idx4{0, 0, 1, 1}, idx4{n, ch, h - 2, w - 2}).pad(pads).concatenate(t, 1);
            };
            s(0), e(0), check(out, ref, "crop, pad, join");
            rows.push_back(measure("crop, constant pad, join", static_cast<double>(out.view().count()) * 4, reps, copies, s, e, out));
        }
        { // split in three along the channels, each padded by 3 (constant), joined again
            const std::int64_t third = ch / 3, sizes[] = {third, third, ch - 2 * third};
            const strix::pad_desc zero3{.start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};
            strix::host_tensor out(strix::dtype::float32, {n, ch, h + 6, w + 6}), ref(strix::dtype::float32, {n, ch, h + 6, w + 6});
            auto s = [&](int r) {
                auto pieces = strix::split(strix::lazy(xs[static_cast<std::size_t>(r % copies)].view()), sizes, {.axis = 1});
                for (auto& p : pieces) p = p.pad(zero3);
                strix::join(pieces, out.view(), {.axis = 1}, opt);
            };
            const Eigen::array<std::pair<Eigen::Index, Eigen::Index>, 4> pads{{{0, 0}, {0, 0}, {3, 3}, {3, 3}}};
            auto e = [&](int r) {
                tmap o = as_eigen(ref), x = as_eigen(xs[static_cast<std::size_t>(r % copies)]);
                o.device(dev) = x.slice(idx4{0, 0, 0, 0}, idx4{n, third, h, w})
                                    .pad(pads)
                                    .concatenate(x.slice(idx4{0, third, 0, 0}, idx4{n, third, h, w}).pad(pads), 1)
                                    .concatenate(x.slice(idx4{0, 2 * third, 0, 0}, idx4{n, ch - 2 * third, h, w}).pad(pads), 1);
            };
            s(0), e(0), check(out, ref, "split, pad each, join");
            rows.push_back(measure("split, constant pad each, join", static_cast<double>(out.view().count()) * 4, reps, copies, s, e, out));
        }
        { // every other column, tiled twice along the columns
            strix::host_tensor out(strix::dtype::float32, {n, ch, h, w}), ref(strix::dtype::float32, {n, ch, h, w});
            auto s = [&](int r) {
                strix::evaluate(strix::lazy(xs[static_cast<std::size_t>(r % copies)].view()).slice({.starts = {0}, .ends = {w}, .axes = {3}, .steps = {2}}).tile({{1, 1, 1, 2}}),
                                out.view(), opt);
            };
            auto e = [&](int r) {
                tmap o = as_eigen(ref), x = as_eigen(xs[static_cast<std::size_t>(r % copies)]);
                o.device(dev) = x.stride(idx4{1, 1, 1, 2}).broadcast(idx4{1, 1, 1, 2});
            };
            s(0), e(0), check(out, ref, "slice, tile");
            rows.push_back(measure("slice ::2, tile 2", static_cast<double>(out.view().count()) * 4, reps, copies, s, e, out));
        }
        for (const auto& r : rows)
            std::printf("%-8d %-40s %9.3f %9.3f %9.3f %12.2f %12.2f\n", threads, r.name.c_str(), r.strix_s * 1e3, r.eigen_s * 1e3, r.copy_s * 1e3,
                        r.copy_s / r.strix_s, r.eigen_s / r.strix_s);
    }
    return 0;
}
