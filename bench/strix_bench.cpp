// strix-bench: every operator on working sets beyond the caches, beside a copy of the same bytes
// measured in the same run. Not a test: it prints timings and never fails on speed.
//
//   strix-bench [--backend cpu|vulkan] [--quick] [--json FILE] [--threads N] [--filter TEXT]
//               [--stream-min BYTES] [--stage auto|always|never] [--pages huge|small]
//
// --stream-min sets cpu::options::stream_min_bytes (bytes an operator writes from which runs are
// streamed past the caches; 0 always, -1 never), to measure where streaming pays on a machine;
// --stage sets cpu::options::stage (partial lines built in a buffer and streamed whole, or stored
// in place; auto is the library's default, which stores them in place); --pages small makes the
// CPU's tensors (operands and the memcpy's buffers alike) on 4 KiB pages, as memory a program
// allocated itself usually is, instead of host_tensor's default (huge pages asked for from 4 MiB:
// strix::set_host_huge_pages).
// Bytes moved: each input read once, each output written once, indices counted (a gather counts
// the rows it reads, not the whole table). Times: the median of several repetitions after a
// warm-up; the CPU's from std::chrono::steady_clock, the device's from timestamp queries around
// the stream (vk::stream::device_seconds()). Inputs rotate between two copies (one beyond 512
// MiB) so that repeated runs do not find them in a cache. The copy baseline moves the same bytes:
// on the CPU a memcpy of bytes/2 (read + write = bytes) on as many threads as the operators use,
// timed in turns with the operator (repetition by repetition, so both see the same load on a
// shared machine); on Vulkan stream::copy of contiguous tensors, which runs the plain copy shader
// (16 bytes per invocation), after the case. Ratio = copy time / operator time (above 1: faster
// than a copy).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifdef STRIX_HAVE_VULKAN
#include "strix/vulkan.hpp"
#else
#include "strix/strix.hpp"
#endif

using strix::dtype;
using strix::shape;
using clk = std::chrono::steady_clock;

namespace {

constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    const std::size_t n = t.size();
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// int64 indices in [0, range), uniformly random.
strix::host_tensor random_indices(const shape& s, std::int64_t range, std::uint64_t seed) {
    strix::host_tensor t(dtype::int64, s);
    auto* p = t.as<std::int64_t>();
    for (std::int64_t i = 0; i < t.count(); ++i) p[i] = static_cast<std::int64_t>(splitmix(seed) % static_cast<std::uint64_t>(range));
    return t;
}

/// int64 indices: a random permutation of [0, n).
strix::host_tensor permutation(std::int64_t n, std::uint64_t seed) {
    strix::host_tensor t(dtype::int64, {n});
    auto* p = t.as<std::int64_t>();
    std::iota(p, p + n, 0);
    for (std::int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[static_cast<std::int64_t>(splitmix(seed) % static_cast<std::uint64_t>(i + 1))]);
    return t;
}

/// int64 indices of shape [rows, cols]: each column a random permutation of [0, rows), so that
/// a scatter along axis 0 writes every element once.
strix::host_tensor column_permutations(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
    strix::host_tensor t(dtype::int64, {rows, cols});
    auto* p = t.as<std::int64_t>();
    std::vector<std::int64_t> col(static_cast<std::size_t>(rows));
    for (std::int64_t j = 0; j < cols; ++j) {
        std::iota(col.begin(), col.end(), 0);
        for (std::int64_t i = rows - 1; i > 0; --i) std::swap(col[static_cast<std::size_t>(i)], col[static_cast<std::size_t>(splitmix(seed) % static_cast<std::uint64_t>(i + 1))]);
        for (std::int64_t i = 0; i < rows; ++i) p[i * cols + j] = col[static_cast<std::size_t>(i)];
    }
    return t;
}

/// int64 index tuples of shape [n, k] addressing the first k dimensions of `table`, uniformly random.
strix::host_tensor random_tuples(std::int64_t n, const shape& table, int k, std::uint64_t seed) {
    strix::host_tensor t(dtype::int64, {n, k});
    auto* p = t.as<std::int64_t>();
    for (std::int64_t i = 0; i < n; ++i)
        for (int j = 0; j < k; ++j) p[i * k + j] = static_cast<std::int64_t>(splitmix(seed) % static_cast<std::uint64_t>(table[j]));
    return t;
}

/// int64 indices of shape [n, 1]: the first n entries of a permutation of [0, rows), so n
/// distinct rows (scatter-nd of whole rows).
strix::host_tensor distinct_rows(std::int64_t n, std::int64_t rows, std::uint64_t seed) {
    const auto p = permutation(rows, seed);
    strix::host_tensor t(dtype::int64, {n, 1});
    std::copy_n(p.as<std::int64_t>(), n, t.as<std::int64_t>());
    return t;
}

/// float32 ones of shape s: the scatters' updates, as the peers use (an add of zero would let a
/// compare-and-swap loop skip its write).
strix::host_tensor ones_f32(const shape& s) {
    strix::host_tensor t(dtype::float32, s);
    std::fill_n(t.as<float>(), s.count(), 1.0f);
    return t;
}

/// The same indices as int32 (every value here fits).
strix::host_tensor to_int32(const strix::host_tensor& t) {
    strix::host_tensor r(dtype::int32, t.sizes());
    const auto* s = t.as<std::int64_t>();
    auto* d = r.as<std::int32_t>();
    for (std::int64_t i = 0; i < t.count(); ++i) d[i] = static_cast<std::int32_t>(s[i]);
    return r;
}

std::int64_t bytes_of(dtype t, const shape& s) { return s.count() * static_cast<std::int64_t>(strix::size_of(t)); }

/// How many copies of an input set to rotate between: two, one beyond 512 MiB.
int copies_for(std::int64_t input_bytes) { return input_bytes > 512 * MiB ? 1 : 2; }

std::string size_name(std::int64_t b) {
    char s[32];
    if (b >= GiB) std::snprintf(s, sizeof s, "%lld GiB", static_cast<long long>(b / GiB));
    else if (b >= MiB) std::snprintf(s, sizeof s, "%lld MiB", static_cast<long long>(b / MiB));
    else std::snprintf(s, sizeof s, "%lld KiB", static_cast<long long>(b / KiB));
    return s;
}

std::string shape_name(const shape& s) {
    std::string r;
    for (int i = 0; i < s.rank; ++i) {
        if (i) r += 'x';
        r += std::to_string(s[i]);
    }
    return r;
}

/// One case's timing: what one operator moves and how long it took.
struct measured {
    double bytes = 0;   ///< bytes moved by one operator
    double seconds = 0; ///< median seconds of one operator
    int inner = 1;      ///< operators per timed repetition (the copy baseline batches as many)
    double copy_s = 0;  ///< median seconds of the copy baseline, when measured beside it; 0: not yet
};

// ---------------------------------------------------------------------------------------------
// Backends: the same cases run through either; each gives tensors, a recorder of operators and a
// timer, and measures its copy baseline.

struct cpu_backend {
    using tensor = strix::host_tensor;
    static constexpr bool is_device = false; ///< the CPU always combines duplicates in order: no separate deterministic mode
    int threads = 1;
    std::int64_t stream_min = strix::cpu::options{}.stream_min_bytes;
    strix::cpu::options::staging stage = strix::cpu::options::staging::automatic;
    std::string copy_kind = "memcpy";

    tensor make(dtype t, const shape& s) { return tensor(t, s); } // zeroed: every page touched
    tensor upload(strix::host_tensor h) { return h; }

    struct rec {
        strix::cpu::options opt;
        void gather(const tensor& in, const tensor& idx, tensor& out, const strix::gather_desc& d) { strix::gather(in.view(), idx.view(), out.view(), d, opt); }
        void gather_elements(const tensor& in, const tensor& idx, tensor& out, const strix::gather_elements_desc& d) {
            strix::gather_elements(in.view(), idx.view(), out.view(), d, opt);
        }
        void join(const std::vector<const tensor*>& ins, tensor& out, const strix::join_desc& d) {
            std::vector<strix::any_cview> v;
            for (const auto* t : ins) v.push_back(t->view());
            strix::join(v, out.view(), d, opt);
        }
        void split(const tensor& in, const std::vector<tensor*>& outs, const strix::split_desc& d) {
            std::vector<strix::any_view> v;
            for (auto* t : outs) v.push_back(t->view());
            strix::split(in.view(), v, d, opt);
        }
        void pad(const tensor& in, tensor& out, const strix::pad_desc& d) { strix::pad(in.view(), out.view(), d, opt); }
        void slice(const tensor& in, tensor& out, const strix::slice_desc& d) { strix::slice(in.view(), out.view(), d, opt); }
        void tile(const tensor& in, tensor& out, const strix::tile_desc& d) { strix::tile(in.view(), out.view(), d, opt); }
        static strix::chain lazy(const tensor& t) { return strix::lazy(t.view()); }
        void join_chains(const std::vector<strix::chain>& parts, tensor& out, const strix::join_desc& d) { strix::join(parts, out.view(), d, opt); }
        void evaluate(const strix::chain& c, tensor& out) { strix::evaluate(c, out.view(), opt); }
        void scatter(const tensor& in, const tensor& idx, const tensor& upd, tensor& out, const strix::scatter_desc& d) {
            strix::scatter(in.view(), idx.view(), upd.view(), out.view(), d, opt);
        }
        void gather_nd(const tensor& in, const tensor& idx, tensor& out, const strix::gather_nd_desc& d) { strix::gather_nd(in.view(), idx.view(), out.view(), d, opt); }
        void scatter_nd(const tensor& in, const tensor& idx, const tensor& upd, tensor& out, const strix::scatter_nd_desc& d) {
            strix::scatter_nd(in.view(), idx.view(), upd.view(), out.view(), d, opt);
        }
    };

    /// Median seconds of one call of f (f(rec, k) called `inner` times per repetition, k counting
    /// every call) and of a memcpy of the same bytes, measured alternately, repetition by
    /// repetition, after one warm-up of each. A shared machine's load changes within seconds: a
    /// copy measured apart from the operator moved its ratio by +-0.2 between runs.
    template <class F>
    measured measure(double bytes, int reps, int inner, F&& f) {
        strix::cpu::options opt;
        opt.threads = threads;
        opt.stream_min_bytes = stream_min;
        opt.stage = stage;
        rec r{opt};
        copier c(*this, static_cast<std::int64_t>(bytes));
        std::vector<double> op_t, copy_t;
        int k = 0, kc = 0;
        auto timed = [&](auto&& g) {
            const auto t0 = clk::now();
            for (int j = 0; j < inner; ++j) g();
            return std::chrono::duration<double>(clk::now() - t0).count() / inner;
        };
        for (int i = 0; i <= reps; ++i) {
            // alternate which goes first, so that neither always follows the other's cache state
            double o = 0, cp = 0;
            if (i % 2) {
                o = timed([&] { f(r, k++); });
                cp = timed([&] { c(kc++); });
            } else {
                cp = timed([&] { c(kc++); });
                o = timed([&] { f(r, k++); });
            }
            if (i) op_t.push_back(o), copy_t.push_back(cp);
        }
        return {bytes, median(op_t), inner, median(copy_t)};
    }

    /// memcpy of bytes/2 from rotating sources, split over the threads the executor would use
    /// for as many bytes (its own threads_for and parallel_ranges, on the same pool).
    struct copier {
        std::int64_t half;
        int n, t;
        std::vector<tensor> src;
        tensor dst;
        copier(const cpu_backend& be, std::int64_t bytes)
            : half(std::max<std::int64_t>(bytes / 2, 1)), n(copies_for(half)),
              t(strix::cpu::detail::threads_for(strix::cpu::options{be.threads}, half, half)), dst(dtype::uint8, {half}) {
            for (int i = 0; i < n; ++i) src.emplace_back(dtype::uint8, shape{half});
        }
        void operator()(int k) {
            const std::byte* s = src[static_cast<std::size_t>(k % n)].data();
            std::byte* d = dst.data();
            strix::cpu::detail::parallel_ranges(t, half, [&](std::int64_t a, std::int64_t b) { std::memcpy(d + a, s + a, static_cast<std::size_t>(b - a)); });
        }
    };

    /// Calls per repetition for a sweep point: enough for about 8 MiB moved (timer resolution).
    static int sweep_inner(std::int64_t bytes) { return static_cast<int>(std::clamp<std::int64_t>(8 * MiB / std::max<std::int64_t>(bytes, 1), 1, 1000)); }

    std::string device() const {
        std::ifstream f("/proc/cpuinfo");
        std::string line, model = "unknown CPU", family, number;
        auto value = [&] { return line.find(':') + 2 <= line.size() ? line.substr(line.find(':') + 2) : std::string(); };
        // the first processor's name, family and model (the VMs' names say "AMD EPYC" for every generation)
        while (std::getline(f, line) && !line.empty()) {
            if (line.rfind("model name", 0) == 0) model = value();
            else if (line.rfind("cpu family", 0) == 0) family = value();
            else if (line.rfind("model\t", 0) == 0) number = value();
        }
        if (!family.empty()) model += " (family " + family + ", model " + number + ")";
        return model + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
               (strix::host_huge_pages_enabled() ? "" : ", 4 KiB pages");
    }
};

#ifdef STRIX_HAVE_VULKAN
namespace vk = strix::vulkan;

struct vulkan_backend {
    using tensor = vk::device_tensor;
    static constexpr bool is_device = true;
    vk::context* ctx = nullptr;
    std::string copy_kind = "stream::copy (the 16-byte-per-invocation copy shader)";

    tensor make(dtype t, const shape& s) { return tensor(*ctx, t, s); } // contents undefined
    tensor upload(const strix::host_tensor& h) { return vk::upload(*ctx, h.view()); }

    struct rec {
        vk::stream& s;
        void gather(const tensor& in, const tensor& idx, const tensor& out, const strix::gather_desc& d) { s.gather(in.view(), idx.view(), out.view(), d); }
        void gather_elements(const tensor& in, const tensor& idx, const tensor& out, const strix::gather_elements_desc& d) {
            s.gather_elements(in.view(), idx.view(), out.view(), d);
        }
        void join(const std::vector<const tensor*>& ins, const tensor& out, const strix::join_desc& d) {
            std::vector<vk::device_view> v;
            for (const auto* t : ins) v.push_back(t->view());
            s.join(v, out.view(), d);
        }
        void split(const tensor& in, const std::vector<tensor*>& outs, const strix::split_desc& d) {
            std::vector<vk::device_view> v;
            for (auto* t : outs) v.push_back(t->view());
            s.split(in.view(), v, d);
        }
        void pad(const tensor& in, const tensor& out, const strix::pad_desc& d) { s.pad(in.view(), out.view(), d); }
        void slice(const tensor& in, const tensor& out, const strix::slice_desc& d) { s.slice(in.view(), out.view(), d); }
        void tile(const tensor& in, const tensor& out, const strix::tile_desc& d) { s.tile(in.view(), out.view(), d); }
        static vk::device_chain lazy(const tensor& t) { return vk::lazy(t.view()); }
        void join_chains(const std::vector<vk::device_chain>& parts, const tensor& out, const strix::join_desc& d) { s.join(parts, out.view(), d); }
        void evaluate(const vk::device_chain& c, const tensor& out) { s.evaluate(c, out.view()); }
        void scatter(const tensor& in, const tensor& idx, const tensor& upd, const tensor& out, const strix::scatter_desc& d) {
            s.scatter(in.view(), idx.view(), upd.view(), out.view(), d);
        }
        void gather_nd(const tensor& in, const tensor& idx, const tensor& out, const strix::gather_nd_desc& d) { s.gather_nd(in.view(), idx.view(), out.view(), d); }
        void scatter_nd(const tensor& in, const tensor& idx, const tensor& upd, const tensor& out, const strix::scatter_nd_desc& d) {
            s.scatter_nd(in.view(), idx.view(), upd.view(), out.view(), d);
        }
    };

    /// Median device seconds of one call of f; the `inner` calls of a repetition are recorded in
    /// one stream. The warm-up repetition creates the pipelines.
    /// Keeps a GPU busy for ~0.3 s of back-to-back copies before a measurement. Measured on the
    /// H200 (bench/copy_probe): after a few seconds with no work — while a case builds its
    /// inputs on the host — it runs copies at 1.3 instead of 3.3 TB/s until about 250 ms of
    /// sustained work brings it back. CPU devices (lavapipe) need no warm-up.
    void warm_up() {
        if (ctx->device().type == VK_PHYSICAL_DEVICE_TYPE_CPU) return;
        if (!warm_a) {
            warm_a = std::make_unique<tensor>(make(dtype::float32, {64 << 20}));
            warm_b = std::make_unique<tensor>(make(dtype::float32, {64 << 20}));
        }
        const auto t0 = clk::now();
        while (std::chrono::duration<double>(clk::now() - t0).count() < 0.3) {
            vk::stream s(*ctx);
            for (int i = 0; i < 100; ++i) s.copy(warm_a->view(), warm_b->view());
            s.run();
        }
    }
    std::unique_ptr<tensor> warm_a, warm_b;

    template <class F>
    double time(int reps, int inner, F&& f) {
        warm_up();
        std::vector<double> t;
        int k = 0;
        for (int i = 0; i <= reps; ++i) {
            vk::stream s(*ctx, {.timestamps = true});
            rec r{s};
            for (int j = 0; j < inner; ++j) f(r, k++);
            const auto t0 = clk::now();
            s.run();
            double d = s.device_seconds();
            if (d <= 0) d = std::chrono::duration<double>(clk::now() - t0).count(); // no timestamps: host time
            if (i) t.push_back(d / inner);
        }
        return median(t);
    }

    /// The operator's time; its copy baseline is measured after the case's tensors are freed
    /// (the large GPU cases would not fit twice), on warmed buffers, by the runner.
    template <class F>
    measured measure(double bytes, int reps, int inner, F&& f) {
        return {bytes, time(reps, inner, std::forward<F>(f)), inner, 0};
    }

    /// A plain copy of bytes/2 (stream::copy of contiguous tensors: the 16-byte copy shader);
    /// `inner` copies go to distinct outputs.
    double copy(std::int64_t bytes, int reps, int inner) {
        const std::int64_t n = std::max<std::int64_t>(bytes / 2 / 4, 1);
        const int c = copies_for(n * 4);
        std::vector<tensor> src, dst;
        for (int i = 0; i < c; ++i) src.push_back(make(dtype::float32, {n}));
        for (int i = 0; i < std::min(inner, 100); ++i) dst.push_back(make(dtype::float32, {n}));
        return time(reps, inner, [&](rec& r, int k) {
            r.s.copy(src[static_cast<std::size_t>(k % c)].view(), dst[static_cast<std::size_t>(k % static_cast<int>(dst.size()))].view());
        });
    }

    static int sweep_inner(std::int64_t) { return 1; }

    std::string device() const { return ctx->device().name; }
};
#endif

// ---------------------------------------------------------------------------------------------

struct config {
    bool quick = false;
    int reps = 9;
    std::string filter;
};

struct result {
    std::string op, name;
    double bytes = 0, op_s = 0, copy_s = 0;
    bool sweep = false;
    std::string copy_kind;
};

template <class B>
class runner {
public:
    runner(B& be, const config& c) : be_(be), c_(c) {}

    std::vector<result> results;

    /// Runs one case unless filtered out; errors are reported and skipped.
    void run(const std::string& op, const std::string& name, bool sweep, const std::function<measured()>& body) {
        if (!c_.filter.empty() && (op + " " + name).find(c_.filter) == std::string::npos) return;
        try {
            measured m = body(); // the case's tensors are gone before a separate copy runs
            m.seconds = std::max(m.seconds, 1e-12); // a timer that read 0 must not write inf into the JSON
            if constexpr (requires { be_.copy(std::int64_t{}, 0, 0); })
                if (m.copy_s <= 0) {
                    const auto key = std::make_pair(static_cast<std::int64_t>(m.bytes), m.inner);
                    auto it = copy_cache_.find(key);
                    if (it == copy_cache_.end()) it = copy_cache_.emplace(key, be_.copy(key.first, c_.reps, m.inner)).first;
                    m.copy_s = it->second;
                }
            m.copy_s = std::max(m.copy_s, 1e-12);
            result r{op, name, m.bytes, m.seconds, m.copy_s, sweep, be_.copy_kind};
            print(r);
            results.push_back(r);
        } catch (const std::exception& e) {
            std::printf("%-26s %-38s skipped: %s\n", op.c_str(), name.c_str(), e.what());
            std::fflush(stdout);
        }
    }

    static void header() {
        std::printf("%-26s %-38s %10s %11s %9s %9s %7s\n", "op", "case", "MB", "median ms", "GB/s", "copy GB/s", "ratio");
    }

private:
    static void print(const result& r) {
        std::printf("%-26s %-38s %10.3f %11.4f %9.2f %9.2f %7.2f\n", r.op.c_str(), r.name.c_str(), r.bytes / 1e6, r.op_s * 1e3, r.bytes / r.op_s / 1e9,
                    r.bytes / r.copy_s / 1e9, r.copy_s / r.op_s);
        std::fflush(stdout);
    }

    B& be_;
    const config& c_;
    std::map<std::pair<std::int64_t, int>, double> copy_cache_;
};

struct sizes {
    shape table;          ///< embedding table [rows, dim]
    std::int64_t lookups; ///< embedding indices
    shape matrix;         ///< [rows, cols] for inner gather, gather-elements, join, split
    shape kv;             ///< KV cache before the append
    shape image;          ///< pad input
    std::int64_t updates; ///< scatter updates
    std::int64_t sweep_max;
    shape elements;       ///< gather-elements on every axis with random indices
    shape grid;           ///< scatter along axis 0 with a permutation per column
    shape pairs_table;    ///< gather-nd / scatter-nd of index pairs into this table
    std::int64_t pairs;   ///< index pairs
    shape rows_table;     ///< scatter-nd of whole rows in place into this table
    std::int64_t rows;    ///< its distinct rows
};

/// The cases' sizes. The CPU's quick set is the full one with a shorter sweep: its working sets
/// (130-270 MB with the rotated inputs and the copy's buffers: 400 MB and more) stay beyond the
/// caches of CI's 2-core machine (260 MiB of L3), and the whole set ran in about 6 s there before
/// the gather-nd, scatter-nd and index-driven cases (with them: 17 -> 31 s on a loaded run).
/// Smaller ones (34 MB, used before) measured the caches: 2-thread ratios there depended on
/// whether a thread's half fitted them. Vulkan's quick set is small for CPU devices (lavapipe).
/// The GPU's gather-elements and scatter-grid shapes are the performance issue's ([8,64,512,256],
/// [4096,4096]); the CPU's are a sixteenth and a quarter of them (4M elements each: 64-100 MB
/// per case with the rotated inputs, beyond a 48 MiB L3), so that these eight cases add seconds,
/// not a minute, to CI's quick run (at 16M elements the six gather-elements cases alone took 24 s).
sizes pick_sizes(bool vulkan, bool quick) {
    if (quick && vulkan)
        return {{8192, 512}, 8192, {4096, 1024}, {2, 16, 1139, 128}, {1, 64, 256, 256}, 1 << 20, 64 * MiB, {2, 4, 128, 64}, {512, 512}, {1024, 1024}, 1 << 18, {65536, 64}, 16384};
    if (vulkan)
        return {{131072, 4096}, 8192, {262144, 1024}, {16, 16, 1139, 128}, {16, 64, 256, 256}, 1 << 20, GiB, {8, 64, 512, 256}, {4096, 4096}, {4096, 4096}, 1 << 20, {1048576, 64}, 262144};
    return {{16384, 1024}, 8192,       {16384, 1024}, {16, 16, 1139, 128}, {4, 64, 256, 256}, 1 << 20, quick ? 64 * MiB : GiB, {8, 4, 512, 256},
            {1024, 4096},  {4096, 4096}, 1 << 20, {262144, 64}, 65536};
}

template <class B>
std::vector<result> run_cases(B& be, const config& c, const sizes& z) {
    using tensor = typename B::tensor;
    runner<B> R(be, c);
    runner<B>::header();
    const int reps = c.reps;
    const dtype f32 = dtype::float32, f16 = dtype::float16;
    auto ins = [&](dtype t, const shape& s, std::int64_t extra_bytes = 0) {
        std::vector<tensor> v;
        const int n = copies_for(bytes_of(t, s) + extra_bytes);
        for (int i = 0; i < n; ++i) v.push_back(be.make(t, s));
        return v;
    };
    auto at = [](auto& v, int k) -> auto& { return v[static_cast<std::size_t>(k) % v.size()]; };

    // Embedding rows: 8192 random rows of a [rows, dim] table.
    R.run("gather", "embedding rows " + shape_name(z.table), false, [&] {
        const std::int64_t dim = z.table[1];
        auto tab = ins(f32, z.table);
        std::vector<tensor> idx;
        for (std::size_t i = 0; i < tab.size(); ++i) idx.push_back(be.upload(random_indices({z.lookups}, z.table[0], 11 + i)));
        tensor out = be.make(f32, {z.lookups, dim});
        const double bytes = 2.0 * static_cast<double>(z.lookups * dim * 4) + static_cast<double>(z.lookups * 8);
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather(at(tab, k), at(idx, k), out, {0}); });
    });

    // Gather along the last axis: a permutation of the columns.
    R.run("gather", "last axis, permuted " + shape_name(z.matrix), false, [&] {
        auto in = ins(f32, z.matrix);
        tensor idx = be.upload(permutation(z.matrix[1], 5));
        tensor out = be.make(f32, z.matrix);
        const double bytes = 2.0 * static_cast<double>(bytes_of(f32, z.matrix)) + static_cast<double>(z.matrix[1] * 8);
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather(at(in, k), idx, out, {1}); });
    });

    // Gather on a middle axis, random int64 indices (as many as the axis is long, repeats
    // allowed): the axis's rows lie a plane apart, so neighbouring reads land far apart.
    R.run("gather", "axis 2 random " + shape_name(z.elements), false, [&] {
        const shape& e = z.elements;
        auto in = ins(f32, e);
        tensor idx = be.upload(random_indices(shape{e[2]}, e[2], 61));
        tensor out = be.make(f32, e);
        const double bytes = 2.0 * static_cast<double>(bytes_of(f32, e)) + static_cast<double>(e[2] * 8);
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather(at(in, k), idx, out, {2}); });
    });

    // Gather-elements along the last axis, random int64 indices of the input's shape.
    R.run("gather_elements", "last axis " + shape_name(z.matrix), false, [&] {
        const std::int64_t ib = z.matrix.count() * 8;
        auto in = ins(f32, z.matrix, ib);
        std::vector<tensor> idx;
        for (std::size_t i = 0; i < in.size(); ++i) idx.push_back(be.upload(random_indices(z.matrix, z.matrix[1], 21 + i)));
        tensor out = be.make(f32, z.matrix);
        const double bytes = 2.0 * static_cast<double>(bytes_of(f32, z.matrix)) + static_cast<double>(ib);
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather_elements(at(in, k), at(idx, k), out, {1}); });
    });

    // Gather-elements with random indices of the input's shape on the first, a middle and the
    // last axis, int64 and int32 indices: where the indices point changes how far apart the
    // reads of neighbouring invocations land (same row, same plane, or the whole tensor).
    for (const int axis : {0, 2, 3})
        for (const dtype it : {dtype::int64, dtype::int32}) {
            const shape& e = z.elements;
            R.run("gather_elements", "axis " + std::to_string(axis) + " random " + shape_name(e) + " " + std::string(strix::name(it)), false, [&, axis, it] {
                const std::int64_t ib = e.count() * static_cast<std::int64_t>(strix::size_of(it));
                auto in = ins(f32, e, ib);
                std::vector<tensor> idx;
                for (std::size_t i = 0; i < in.size(); ++i) {
                    auto h = random_indices(e, e[axis], 51 + i);
                    idx.push_back(be.upload(it == dtype::int32 ? to_int32(h) : std::move(h)));
                }
                tensor out = be.make(f32, e);
                const double bytes = 2.0 * static_cast<double>(bytes_of(f32, e)) + static_cast<double>(ib);
                return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather_elements(at(in, k), at(idx, k), out, {axis}); });
            });
        }

    // Gather-nd: random (row, column) pairs out of a table (one element each), and random rows
    // (tuples of one index: the embedding lookup written as gather-nd).
    R.run("gather_nd", std::to_string(z.pairs >> 10) + "K pairs from " + shape_name(z.pairs_table), false, [&] {
        auto tab = ins(f32, z.pairs_table);
        std::vector<tensor> idx;
        for (std::size_t i = 0; i < tab.size(); ++i) idx.push_back(be.upload(random_tuples(z.pairs, z.pairs_table, 2, 61 + i)));
        tensor out = be.make(f32, {z.pairs});
        const double bytes = static_cast<double>(z.pairs * (4 + 4 + 2 * 8));
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather_nd(at(tab, k), at(idx, k), out, {}); });
    });
    R.run("gather_nd", std::to_string(z.lookups) + " rows of " + shape_name(z.table), false, [&] {
        const std::int64_t dim = z.table[1];
        auto tab = ins(f32, z.table);
        std::vector<tensor> idx;
        for (std::size_t i = 0; i < tab.size(); ++i) idx.push_back(be.upload(random_tuples(z.lookups, z.table, 1, 71 + i)));
        tensor out = be.make(f32, {z.lookups, dim});
        const double bytes = 2.0 * static_cast<double>(z.lookups * dim * 4) + static_cast<double>(z.lookups * 8);
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.gather_nd(at(tab, k), at(idx, k), out, {}); });
    });

    // Join of 4 inputs, outer and innermost axis.
    for (const int axis : {0, 1}) {
        shape part = z.matrix;
        part[axis] /= 4;
        R.run("join", std::string(axis ? "4 inputs, innermost axis " : "4 inputs, outer axis ") + shape_name(z.matrix), false, [&] {
            std::vector<std::vector<tensor>> in;
            for (int i = 0; i < 4; ++i) in.push_back(ins(f32, part, 3 * bytes_of(f32, part)));
            tensor out = be.make(f32, z.matrix);
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, z.matrix));
            return be.measure(bytes, reps, 1, [&](auto& r, int k) {
                                r.join({&at(in[0], k), &at(in[1], k), &at(in[2], k), &at(in[3], k)}, out, {axis});
                            });
        });
    }

    // KV-cache append: [b,h,t,d] + [b,h,1,d] float16 along axis 2.
    R.run("join", "KV append f16 " + shape_name(z.kv) + "+1", false, [&] {
        shape one = z.kv, whole = z.kv;
        one[2] = 1;
        whole[2] += 1;
        auto cache = ins(f16, z.kv);
        auto step = ins(f16, one);
        tensor out = be.make(f16, whole);
        const double bytes = static_cast<double>(bytes_of(f16, z.kv) + bytes_of(f16, one) + bytes_of(f16, whole));
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.join({&at(cache, k), &at(step, k)}, out, {2}); });
    });

    // Split into 4, outer and innermost axis.
    for (const int axis : {0, 1}) {
        shape part = z.matrix;
        part[axis] /= 4;
        R.run("split", std::string(axis ? "4 outputs, innermost axis " : "4 outputs, outer axis ") + shape_name(z.matrix), false, [&] {
            auto in = ins(f32, z.matrix);
            std::vector<tensor> out;
            for (int i = 0; i < 4; ++i) out.push_back(be.make(f32, part));
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, z.matrix));
            return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.split(at(in, k), {&out[0], &out[1], &out[2], &out[3]}, {axis}); });
        });
    }

    // Pad by 3 on both sides of the two last axes, every mode.
    const std::pair<strix::pad_mode, const char*> modes[] = {{strix::pad_mode::constant, "constant"},
                                                            {strix::pad_mode::edge, "edge"},
                                                            {strix::pad_mode::reflect, "reflect"},
                                                            {strix::pad_mode::symmetric, "symmetric"},
                                                            {strix::pad_mode::wrap, "wrap"}};
    for (const auto& [mode, mname] : modes) {
        R.run("pad", std::string(mname) + " 3 " + shape_name(z.image), false, [&, mode = mode] {
            shape o = z.image;
            o[2] += 6;
            o[3] += 6;
            auto in = ins(f32, z.image);
            tensor out = be.make(f32, o);
            const double bytes = static_cast<double>(bytes_of(f32, z.image) + bytes_of(f32, o));
            const strix::pad_desc d{mode, {0, 0, 3, 3}, {0, 0, 3, 3}};
            return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.pad(at(in, k), out, d); });
        });
    }

    // Slice: every second row, the last axis reversed (a strided read, a reversed one).
    R.run("slice", "rows ::2, columns ::-1 " + shape_name(z.image), false, [&] {
        shape o = z.image;
        o[2] = (o[2] + 1) / 2;
        auto in = ins(f32, z.image);
        tensor out = be.make(f32, o);
        const double bytes = 2.0 * static_cast<double>(bytes_of(f32, o));
        const strix::slice_desc d{{0, -1}, {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}, {2, 3}, {2, -1}};
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.slice(at(in, k), out, d); });
    });

    // Tile: the two last axes repeated twice each.
    R.run("tile", "2x2 " + shape_name(z.image), false, [&] {
        shape i = z.image;
        i[2] /= 2;
        i[3] /= 2;
        auto in = ins(f32, i);
        tensor out = be.make(f32, z.image);
        const double bytes = static_cast<double>(bytes_of(f32, i) + bytes_of(f32, z.image));
        const strix::tile_desc d{{1, 1, 2, 2}};
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.tile(at(in, k), out, d); });
    });

    // Chains of moves (strix/ops/chain.hpp), each composed into one pass per output part, beside
    // the same operators run eagerly (every intermediate written and read again). Bytes: the
    // output written and as many read, so that the ratio is against one copy of the output's
    // bytes (the chains read the same number of bytes, or fewer where they crop or gather).
    {
        const shape& x = z.image; // [N, 64, H, W]
        const std::int64_t n = x[0], ch = x[1], h = x[2], w = x[3];
        const strix::pad_desc reflect3{.mode = strix::pad_mode::reflect, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};
        // each chain run as one and as its eager steps: body(eager) measures one of the two
        const auto both = [&](const std::string& name, const auto& body) {
            for (const bool eager : {false, true})
                R.run(eager ? "chain (eager steps)" : "chain", name + " " + shape_name(x), false, [&body, eager] { return body(eager); });
        };
        // gather 48 of 64 channels (random, or channels 16..63 in order), reflect pad 3, join
        // with a [N,16,H+6,W+6] tensor
        const shape gpj{n, ch, h + 6, w + 6};
        const auto in_order = [&] {
            strix::host_tensor t(dtype::int64, {ch * 3 / 4});
            std::iota(t.as<std::int64_t>(), t.as<std::int64_t>() + t.count(), ch / 4);
            return t;
        };
        for (const bool ordered : {false, true})
            both(ordered ? "gather in order, pad, join" : "gather, pad, join", [&](bool eager) {
                auto in = ins(f32, x);
                tensor other = be.make(f32, {n, ch / 4, h + 6, w + 6});
                tensor idx = be.upload(ordered ? in_order() : random_indices({ch * 3 / 4}, ch, 71));
                tensor out = be.make(f32, gpj), g = be.make(f32, {n, ch * 3 / 4, h, w}), p = be.make(f32, {n, ch * 3 / 4, h + 6, w + 6});
                const double bytes = 2.0 * static_cast<double>(bytes_of(f32, gpj));
                return be.measure(bytes, reps, 1, [&](auto& r, int k) {
                    if (eager) {
                        r.gather(at(in, k), idx, g, {1});
                        r.pad(g, p, reflect3);
                        r.join({&p, &other}, out, {1});
                    } else {
                        r.join_chains({r.lazy(at(in, k)).gather(idx.view(), {.axis = 1}).pad(reflect3), r.lazy(other)}, out, {1});
                    }
                });
            });
        // crop 1, reflect pad 4, join with a [N,16,H+6,W+6] tensor
        const strix::pad_desc crop1{.start = {0, 0, -1, -1}, .end = {0, 0, -1, -1}};
        const strix::pad_desc reflect4{.mode = strix::pad_mode::reflect, .start = {0, 0, 4, 4}, .end = {0, 0, 4, 4}};
        const shape cpj{n, ch + ch / 4, h + 6, w + 6};
        both("crop, pad, join", [&](bool eager) {
            auto in = ins(f32, x);
            tensor other = be.make(f32, {n, ch / 4, h + 6, w + 6});
            tensor out = be.make(f32, cpj), c = be.make(f32, {n, ch, h - 2, w - 2}), p = be.make(f32, {n, ch, h + 6, w + 6});
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, cpj));
            return be.measure(bytes, reps, 1, [&](auto& r, int k) {
                if (eager) {
                    r.pad(at(in, k), c, crop1);
                    r.pad(c, p, reflect4);
                    r.join({&p, &other}, out, {1});
                } else {
                    r.join_chains({r.lazy(at(in, k)).pad(crop1).pad(reflect4), r.lazy(other)}, out, {1});
                }
            });
        });
        // split into three along the channels, each padded its own way, joined again (5 moves)
        const strix::pad_desc wrap3{.mode = strix::pad_mode::wrap, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};
        const strix::pad_desc zero3{.mode = strix::pad_mode::constant, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};
        const strix::pad_desc folds[] = {reflect3, wrap3, zero3};
        const shape sj{n, ch, h + 6, w + 6};
        both("split, pad each, join", [&](bool eager) {
            auto in = ins(f32, x);
            const std::int64_t third = ch / 3, sizes3[] = {third, third, ch - 2 * third};
            tensor out = be.make(f32, sj);
            std::vector<tensor> parts, padded;
            for (const auto c3 : sizes3) {
                parts.push_back(be.make(f32, {n, c3, h, w}));
                padded.push_back(be.make(f32, {n, c3, h + 6, w + 6}));
            }
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, sj));
            return be.measure(bytes, reps, 1, [&](auto& r, int k) {
                if (eager) {
                    r.split(at(in, k), {&parts[0], &parts[1], &parts[2]}, {1});
                    for (int i = 0; i < 3; ++i) r.pad(parts[static_cast<std::size_t>(i)], padded[static_cast<std::size_t>(i)], folds[i]);
                    r.join({&padded[0], &padded[1], &padded[2]}, out, {1});
                } else {
                    auto pieces = strix::split(r.lazy(at(in, k)), sizes3, {.axis = 1});
                    for (int i = 0; i < 3; ++i) pieces[static_cast<std::size_t>(i)] = pieces[static_cast<std::size_t>(i)].pad(folds[i]);
                    r.join_chains(pieces, out, {1});
                }
            });
        });
        // every other column, tiled twice along the columns (2 moves)
        both("slice ::2, tile 2", [&](bool eager) {
            auto in = ins(f32, x);
            tensor out = be.make(f32, x), sl = be.make(f32, {n, ch, h, w / 2});
            const strix::slice_desc every2{.starts = {0}, .ends = {w}, .axes = {3}, .steps = {2}};
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, x));
            return be.measure(bytes, reps, 1, [&](auto& r, int k) {
                if (eager) {
                    r.slice(at(in, k), sl, every2);
                    r.tile(sl, out, {{1, 1, 1, 2}});
                } else {
                    r.evaluate(r.lazy(at(in, k)).slice(every2).tile({{1, 1, 1, 2}}), out);
                }
            });
        });
        // 5 moves: rows 2.. cropped, 48 channels gathered, reflect pad 4, crop 1, join
        const shape five{n, ch, h + 4, w + 6};
        both("crop, gather, pad, crop, join", [&](bool eager) {
            auto in = ins(f32, x);
            tensor other = be.make(f32, {n, ch / 4, h + 4, w + 6});
            tensor idx = be.upload(random_indices({ch * 3 / 4}, ch, 73));
            const strix::pad_desc rows{.start = {0, 0, -2, 0}, .end = {0, 0, 0, 0}};
            const strix::pad_desc less{.start = {0, 0, -1, -1}, .end = {0, 0, -1, -1}};
            tensor out = be.make(f32, five), a = be.make(f32, {n, ch, h - 2, w}), g = be.make(f32, {n, ch * 3 / 4, h - 2, w}),
                   p = be.make(f32, {n, ch * 3 / 4, h + 6, w + 8}), c = be.make(f32, {n, ch * 3 / 4, h + 4, w + 6});
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, five));
            return be.measure(bytes, reps, 1, [&](auto& r, int k) {
                if (eager) {
                    r.pad(at(in, k), a, rows);
                    r.gather(a, idx, g, {1});
                    r.pad(g, p, reflect4);
                    r.pad(p, c, less);
                    r.join({&c, &other}, out, {1});
                } else {
                    r.join_chains({r.lazy(at(in, k)).pad(rows).gather(idx.view(), {.axis = 1}).pad(reflect4).pad(less), r.lazy(other)}, out, {1});
                }
            });
        });
    }

    // Scatter of 1M float32 updates: unique targets (a permutation), and onto 64K targets with add
    // (on a device also deterministic: where the device lacks a float atomic add, the atomic
    // add runs a compare-and-swap loop, and the deterministic one is the other way to do it).
    struct scat {
        const char* name;
        std::int64_t targets;
        strix::scatter_reduction red;
        bool deterministic = false;
    };
    const std::int64_t n = z.updates;
    for (const scat& s : {scat{"unique, none", n, strix::scatter_reduction::none}, scat{"unique, add", n, strix::scatter_reduction::add},
                          scat{"onto 64K, add", 65536, strix::scatter_reduction::add},
                          scat{"onto 64K, add, deterministic", 65536, strix::scatter_reduction::add, true}}) {
        if (s.deterministic && !B::is_device) continue;
        R.run("scatter", std::to_string(n >> 20) + "M " + s.name, false, [&] {
            std::vector<tensor> idx;
            for (int i = 0; i < 2; ++i) idx.push_back(be.upload(s.targets == n ? permutation(n, 31 + i) : random_indices({n}, s.targets, 41 + i)));
            tensor upd = be.upload(ones_f32({n}));
            auto in = ins(f32, {s.targets});
            tensor out = be.make(f32, {s.targets});
            const double bytes = 2.0 * static_cast<double>(s.targets * 4) + static_cast<double>(n * (8 + 4));
            const strix::scatter_desc d{0, strix::index_policy::error, s.red, s.deterministic};
            return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.scatter(at(in, k), at(idx, k), upd, out, d); });
        });
    }

    // Scatter along axis 0 of a [rows, cols] grid, each column's indices a permutation (every
    // element written once), out of place: no reduction, add, and (devices only: the CPU always
    // combines in order) the deterministic add.
    struct grid_case {
        const char* name;
        strix::scatter_reduction red;
        bool deterministic;
        bool unique = false; ///< unique_indices promised (true here: permutations)
    };
    for (const grid_case& s : {grid_case{"none", strix::scatter_reduction::none, false}, grid_case{"add", strix::scatter_reduction::add, false},
                               grid_case{"add, deterministic", strix::scatter_reduction::add, true},
                               grid_case{"none, unique_indices", strix::scatter_reduction::none, false, true}}) {
        if (s.deterministic && !B::is_device) continue;
        const shape& g = z.grid;
        R.run("scatter", "column permutations " + shape_name(g) + " axis 0, " + s.name, false, [&] {
            std::vector<tensor> idx;
            for (int i = 0; i < 2; ++i) idx.push_back(be.upload(column_permutations(g[0], g[1], 81 + i)));
            tensor upd = be.upload(ones_f32(g));
            auto in = ins(f32, g);
            tensor out = be.make(f32, g);
            const double bytes = 2.0 * static_cast<double>(bytes_of(f32, g)) + static_cast<double>(g.count() * (8 + 4));
            const strix::scatter_desc d{0, strix::index_policy::error, s.red, s.deterministic, s.unique};
            return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.scatter(at(in, k), at(idx, k), upd, out, d); });
        });
    }

    // Scatter-nd, out of place: whole rows written at distinct random rows of a table (no
    // reduction), and single elements added at random (row, column) pairs (duplicates add up).
    R.run("scatter_nd", std::to_string(z.lookups) + " rows into " + shape_name(z.table) + ", none", false, [&] {
        const std::int64_t dim = z.table[1];
        std::vector<tensor> idx;
        for (int i = 0; i < 2; ++i) idx.push_back(be.upload(distinct_rows(z.lookups, z.table[0], 91 + static_cast<std::uint64_t>(i))));
        tensor upd = be.upload(ones_f32({z.lookups, dim}));
        auto in = ins(f32, z.table);
        tensor out = be.make(f32, z.table);
        const double bytes = 2.0 * static_cast<double>(bytes_of(f32, z.table)) + static_cast<double>(z.lookups * (dim * 4 + 8));
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.scatter_nd(at(in, k), at(idx, k), upd, out, {}); });
    });
    // Scatter-nd of whole rows in place (an embedding table's rows replaced: the performance
    // issue's [1M, 64] float32 table, 256K distinct rows, int64 indices): the updates read once
    // and written once, with the indices, is all the work
    // (and with the caller's promise that the rows are distinct, JAX's unique_indices: no winner)
    for (const bool unique : {false, true})
        R.run("scatter_nd", std::to_string(z.rows >> 10) + "K rows in place into " + shape_name(z.rows_table) + ", none" + (unique ? ", unique_indices" : ""), false, [&] {
            const std::int64_t dim = z.rows_table[1];
            std::vector<tensor> idx;
            for (int i = 0; i < 2; ++i) idx.push_back(be.upload(distinct_rows(z.rows, z.rows_table[0], 93 + static_cast<std::uint64_t>(i))));
            tensor upd = be.upload(ones_f32({z.rows, dim}));
            tensor table = be.make(f32, z.rows_table);
            const double bytes = static_cast<double>(z.rows * (2 * dim * 4 + 8));
            const strix::scatter_nd_desc d{.unique_indices = unique};
            return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.scatter_nd(table, at(idx, k), upd, table, d); });
        });
    R.run("scatter_nd", std::to_string(z.pairs >> 10) + "K pairs into " + shape_name(z.pairs_table) + ", add", false, [&] {
        std::vector<tensor> idx;
        for (int i = 0; i < 2; ++i) idx.push_back(be.upload(random_tuples(z.pairs, z.pairs_table, 2, 101 + static_cast<std::uint64_t>(i))));
        tensor upd = be.upload(ones_f32({z.pairs}));
        auto in = ins(f32, z.pairs_table);
        tensor out = be.make(f32, z.pairs_table);
        const double bytes = 2.0 * static_cast<double>(bytes_of(f32, z.pairs_table)) + static_cast<double>(z.pairs * (2 * 8 + 4));
        const strix::scatter_nd_desc d{strix::index_policy::error, strix::scatter_reduction::add, false};
        return be.measure(bytes, reps, 1, [&](auto& r, int k) { r.scatter_nd(at(in, k), at(idx, k), upd, out, d); });
    });

    // Size sweeps: a join of one (a copy) and a constant pad of 1 on the last axis of [n/4096, 1024].
    for (std::int64_t b = 4 * KiB; b <= z.sweep_max; b *= 4) {
        const shape s{b / 4096, 1024};
        R.run("sweep: copy (join of one)", size_name(b), true, [&] {
            auto in = ins(f32, s);
            tensor out = be.make(f32, s);
            const int inner = B::sweep_inner(2 * b);
            return be.measure(2.0 * static_cast<double>(b), reps, inner, [&](auto& r, int k) { r.join({&at(in, k)}, out, {0}); });
        });
    }
    for (std::int64_t b = 4 * KiB; b <= z.sweep_max; b *= 4) {
        const shape s{b / 4096, 1024};
        R.run("sweep: pad constant 1", size_name(b), true, [&] {
            auto in = ins(f32, s);
            tensor out = be.make(f32, {s[0], s[1] + 2});
            const int inner = B::sweep_inner(2 * b);
            const strix::pad_desc d{strix::pad_mode::constant, {0, 1}, {0, 1}};
            const double bytes = static_cast<double>(b + s[0] * (s[1] + 2) * 4);
            return be.measure(bytes, reps, inner, [&](auto& r, int k) { r.pad(at(in, k), out, d); });
        });
    }

    // 100 small operators in one stream (CPU: one after the other): reflect pads of [64,64] by 3
    // into 100 distinct outputs; the time reported is per operator.
    R.run("small ops", "100 pads 64x64 reflect 3", false, [&] {
        tensor in = be.make(f32, {64, 64});
        std::vector<tensor> out;
        for (int i = 0; i < 100; ++i) out.push_back(be.make(f32, {70, 70}));
        const strix::pad_desc d{strix::pad_mode::reflect, {3, 3}, {3, 3}};
        const double bytes = (64.0 * 64 + 70.0 * 70) * 4;
        return be.measure(bytes, reps, 100, [&](auto& r, int k) { r.pad(in, out[static_cast<std::size_t>(k % 100)], d); });
    });
    // 100 small gathers: 16 random rows of a [1024, 64] table (an embedding lookup of a few
    // tokens), into 100 distinct outputs.
    R.run("small ops", "100 gathers 16 rows of 1024x64", false, [&] {
        tensor tab = be.make(f32, {1024, 64});
        tensor idx = be.upload(random_indices({16}, 1024, 7));
        std::vector<tensor> out;
        for (int i = 0; i < 100; ++i) out.push_back(be.make(f32, {16, 64}));
        const double bytes = 2.0 * 16 * 64 * 4 + 16 * 8;
        return be.measure(bytes, reps, 100, [&](auto& r, int k) { r.gather(tab, idx, out[static_cast<std::size_t>(k % 100)], {0}); });
    });
    // 100 small joins: a [64, 64] block and one more row (a cache append), into 100 distinct outputs.
    R.run("small ops", "100 joins 64x64 + 1x64", false, [&] {
        tensor a = be.make(f32, {64, 64}), b = be.make(f32, {1, 64});
        std::vector<tensor> out;
        for (int i = 0; i < 100; ++i) out.push_back(be.make(f32, {65, 64}));
        const double bytes = 2.0 * 65 * 64 * 4;
        return be.measure(bytes, reps, 100, [&](auto& r, int k) { r.join({&a, &b}, out[static_cast<std::size_t>(k % 100)], {0}); });
    });
    // 100 small scatter adds in place: [16, 64] updates (ones) along axis 0 of a [1024, 64]
    // accumulator at random rows.
    R.run("small ops", "100 scatter adds 16x64 into 1024x64", false, [&] {
        tensor acc = be.make(f32, {1024, 64});
        tensor idx = be.upload(random_indices({16, 64}, 1024, 9));
        tensor upd = be.upload(ones_f32({16, 64}));
        const double bytes = 16.0 * 64 * (4 + 4 + 8 + 4); // each target read and written, each index and update read
        const strix::scatter_desc d{0, strix::index_policy::error, strix::scatter_reduction::add, false};
        return be.measure(bytes, reps, 100, [&](auto& r, int) { r.scatter(acc, idx, upd, acc, d); });
    });
    return R.results;
}

std::string json_escape(const std::string& s) {
    std::string r;
    for (const char ch : s) {
        if (ch == '"' || ch == '\\') r += '\\', r += ch;
        else if (static_cast<unsigned char>(ch) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", ch);
            r += b;
        } else r += ch;
    }
    return r;
}

void write_json(const std::string& file, const std::string& device, const std::string& backend, int threads, bool quick, const std::string& copy_kind,
                const std::vector<result>& rs) {
    std::ostringstream o;
    o.precision(9);
    o << "{\n  \"device\": \"" << json_escape(device) << "\",\n  \"backend\": \"" << backend << "\",\n  \"threads\": " << threads
      << ",\n  \"quick\": " << (quick ? "true" : "false") << ",\n  \"copy_kind\": \"" << json_escape(copy_kind) << "\",\n  \"results\": [";
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const auto& r = rs[i];
        o << (i ? ",\n" : "\n") << "    {\"op\": \"" << json_escape(r.op) << "\", \"case\": \"" << json_escape(r.name) << "\", \"bytes\": " << static_cast<std::int64_t>(r.bytes)
          << ", \"median_s\": " << r.op_s << ", \"gbps\": " << r.bytes / r.op_s / 1e9 << ", \"copy_s\": " << r.copy_s
          << ", \"copy_gbps\": " << r.bytes / r.copy_s / 1e9 << ", \"ratio\": " << r.copy_s / r.op_s << ", \"sweep\": " << (r.sweep ? "true" : "false")
          << ", \"copy_kind\": \"" << json_escape(r.copy_kind) << "\"}";
    }
    o << "\n  ]\n}\n";
    std::ofstream f(file);
    f << o.str();
    if (!f) throw std::runtime_error("cannot write " + file);
}

int usage(int rc) {
    std::fprintf(rc ? stderr : stdout, "usage: strix-bench [--backend cpu|vulkan] [--quick] [--json FILE] [--threads N] [--filter TEXT] [--stream-min BYTES] [--stage auto|always|never] [--pages huge|small]\n");
    return rc;
}

} // namespace

int main(int argc, char** argv) {
    std::string backend = "cpu", json;
    config c;
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::int64_t stream_min = strix::cpu::options{}.stream_min_bytes;
    auto stage = strix::cpu::options::staging::automatic;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "strix-bench: %s needs a value\n", a.c_str());
                std::exit(usage(2));
            }
            return argv[++i];
        };
        if (a == "--backend") backend = value();
        else if (a == "--quick") c.quick = true;
        else if (a == "--json") json = value();
        else if (a == "--threads") threads = std::max(1, std::atoi(value().c_str()));
        else if (a == "--filter") c.filter = value();
        else if (a == "--stream-min") stream_min = std::atoll(value().c_str());
        else if (a == "--stage") {
            using S = strix::cpu::options::staging;
            const std::string v = value();
            if (v == "auto") stage = S::automatic;
            else if (v == "always") stage = S::always;
            else if (v == "never") stage = S::never;
            else {
                std::fprintf(stderr, "strix-bench: --stage takes auto, always or never, not %s\n", v.c_str());
                return usage(2);
            }
        }
        else if (a == "--pages") {
            const std::string v = value();
            if (v != "huge" && v != "small") {
                std::fprintf(stderr, "strix-bench: --pages takes huge or small, not %s\n", v.c_str());
                return usage(2);
            }
            strix::set_host_huge_pages(v == "huge");
        }
        else if (a == "--help" || a == "-h") return usage(0);
        else {
            std::fprintf(stderr, "strix-bench: unknown argument %s\n", a.c_str());
            return usage(2);
        }
    }
    c.reps = 9;
    try {
        std::vector<result> rs;
        std::string device, copy_kind;
        int rc = 0;
        if (backend == "cpu") {
            cpu_backend be;
            be.threads = threads;
            be.stream_min = stream_min;
            be.stage = stage;
            device = be.device();
            copy_kind = be.copy_kind;
            std::printf("backend: cpu, device: %s%s\n", device.c_str(), c.quick ? ", quick" : "");
            rs = run_cases(be, c, pick_sizes(false, c.quick));
        } else if (backend == "vulkan") {
#ifdef STRIX_HAVE_VULKAN
            vk::context ctx;
            vulkan_backend be;
            be.ctx = &ctx;
            device = be.device();
            copy_kind = be.copy_kind;
            threads = 0;
            std::printf("backend: vulkan, device: %s%s\n", device.c_str(), c.quick ? ", quick" : "");
            rs = run_cases(be, c, pick_sizes(true, c.quick));
            rc = ctx.validation_messages() ? 1 : 0;
#else
            std::fprintf(stderr, "strix-bench: built without the Vulkan backend\n");
            return 2;
#endif
        } else {
            std::fprintf(stderr, "strix-bench: unknown backend %s\n", backend.c_str());
            return usage(2);
        }
        if (!json.empty()) write_json(json, device, backend, threads, c.quick, copy_kind, rs);
        return rc;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "strix-bench: %s\n", e.what());
        return 1;
    }
}
