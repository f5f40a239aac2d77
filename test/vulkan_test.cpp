// Tests of the Vulkan backend: every operator's device result equals the CPU's bit for bit.
//
// CI runs them on Mesa's lavapipe with the Khronos validation layer enabled
// (VK_LOADER_LAYERS_ENABLE='*validation'); any message the layer reports fails the test case
// that caused it (every case ends by checking context::validation_messages()).
//
// The differential cases place every operand in byte arenas filled with random bytes (so the data
// holds NaN payloads, subnormals and every other bit pattern), with random strides — C order,
// Fortran order, permuted, gapped, negative and, for inputs only, zero — and random address
// offsets. The same call runs three ways: on the CPU (the reference), on device views into device
// copies of the arenas (the whole arenas come back and are compared byte for byte, so bytes
// outside the output view must keep their values), and through the host convenience calls. Every
// case prints its seed on failure. The matrix runs twice: with 8/16-bit storage and with the
// 32-bit word path that 1- and 2-byte elements take without it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

#include "strix/vulkan.hpp"

namespace {

// The few operating-system calls the tests need (environment, file descriptors), on POSIX and
// Windows.
#if defined(_WIN32)
void set_env(const char* name, const char* value) { ::_putenv_s(name, value ? value : ""); } // "" removes it
int dup_fd(int fd) { return ::_dup(fd); }
int dup2_fd(int from, int to) { return ::_dup2(from, to); }
int close_fd(int fd) { return ::_close(fd); }
int file_fd(std::FILE* f) { return ::_fileno(f); }
#else
void set_env(const char* name, const char* value) {
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
}
int dup_fd(int fd) { return ::dup(fd); }
int dup2_fd(int from, int to) { return ::dup2(from, to); }
int close_fd(int fd) { return ::close(fd); }
int file_fd(std::FILE* f) { return ::fileno(f); }
#endif

/// A path for a temporary file that no other run of the tests uses at the same time.
std::filesystem::path temp_file(const std::string& stem) {
    static std::atomic<unsigned> counter{0};
    const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
    return std::filesystem::temp_directory_path() /
           (stem + "_" + std::to_string(ticks) + "_" + std::to_string(counter++));
}

namespace vk = strix::vulkan;
using strix::any_cview;
using strix::any_view;
using strix::dtype;
using strix::error_code;
using strix::host_tensor;
using strix::index_policy;
using strix::pad_mode;
using strix::shape;

using rng_t = std::mt19937_64;
using strides_t = std::array<std::int64_t, strix::max_rank>;
using coords = std::array<std::int64_t, strix::max_rank>;

// ---------------------------------------------------------------------------------------------
// Random numbers, shapes and text

std::int64_t uni(rng_t& g, std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(g); }

bool chance(rng_t& g, int num, int den) { return uni(g, 0, den - 1) < num; }

std::string str(const shape& s) { return strix::to_string(s); }

std::string str(const strides_t& st, int rank) {
    std::string r = "[";
    for (int i = 0; i < rank; ++i) { // one append per piece (GCC 12 warns falsely of overlap otherwise)
        if (i) r += ',';
        r += std::to_string(st[static_cast<std::size_t>(i)]);
    }
    return r + "]";
}

std::string type_name(dtype t) { return std::string(strix::name(t)); }

std::string mode_name(pad_mode m) {
    constexpr const char* names[] = {"constant", "edge", "reflect", "symmetric", "wrap"};
    return names[static_cast<int>(m)];
}

/// Lowers random dimensions of `s` until it has at most `limit` elements.
void shrink(rng_t& g, shape& s, std::int64_t limit) {
    while (s.count() > limit) {
        const int i = static_cast<int>(uni(g, 0, s.rank - 1));
        if (s[i] > 1) --s[i];
    }
}

/// A shape of `rank` dimensions of 1..4 (now and then 0), with at most `limit` elements.
shape random_shape(rng_t& g, int rank, std::int64_t limit) {
    shape s;
    for (int i = 0; i < rank; ++i) s.push_back(chance(g, 1, 40) ? 0 : uni(g, 1, 4));
    shrink(g, s, limit);
    return s;
}

/// Calls `f(coords)` for every coordinate of `s` in row-major order.
template <class F>
void for_each_coord(const shape& s, F&& f) {
    const std::int64_t n = s.count();
    coords c{};
    for (std::int64_t k = 0; k < n; ++k) {
        f(static_cast<const coords&>(c));
        for (int d = s.rank - 1; d >= 0; --d) {
            auto& cd = c[static_cast<std::size_t>(d)];
            if (++cd < s[d]) break;
            cd = 0;
        }
    }
}

/// Element strides for `s`: C, Fortran or a random order of the dimensions, sometimes with gaps
/// between them, some negated and — for inputs — some zero (broadcast). Without zeros the
/// dimensions nest, so an output never reaches one address twice.
strides_t random_strides(rng_t& g, const shape& s, bool input) {
    std::array<int, strix::max_rank> order{}; // order[0] is the innermost dimension
    std::iota(order.begin(), order.begin() + s.rank, 0);
    const auto kind = uni(g, 0, 3);
    if (kind == 0) std::reverse(order.begin(), order.begin() + s.rank);
    else if (kind >= 2) std::shuffle(order.begin(), order.begin() + s.rank, g);
    strides_t st{};
    std::int64_t step = 1;
    for (int k = 0; k < s.rank; ++k) {
        const auto d = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
        st[d] = step;
        step = step * std::max<std::int64_t>(s[static_cast<int>(d)], 1) + (chance(g, 1, 4) ? uni(g, 1, 3) : 0);
    }
    for (int i = 0; i < s.rank; ++i) {
        auto& x = st[static_cast<std::size_t>(i)];
        if (chance(g, 1, 4)) x = -x;
        if (input && chance(g, 1, 8)) x = 0;
    }
    return st;
}

// ---------------------------------------------------------------------------------------------
// Operands in arenas

/// Where an operand lives: an arena, the byte offset of its coordinate 0 there, and its view.
struct placed {
    std::size_t arena = 0;
    std::int64_t offset = 0;
    dtype type = dtype::uint8;
    shape sizes{};
    strides_t strides{};
};

std::string str(const placed& p) {
    std::ostringstream o;
    o << type_name(p.type) << ' ' << str(p.sizes) << " strides " << str(p.strides, p.sizes.rank) << " at arena " << p.arena << " + "
      << p.offset;
    return o.str();
}

/// Lowest and one-past-highest element offset a view reaches (0, 0 when it has no elements).
std::pair<std::int64_t, std::int64_t> reach(const shape& s, const strides_t& st) {
    if (s.count() == 0) return {0, 0};
    std::int64_t lo = 0, hi = 0;
    for (int i = 0; i < s.rank; ++i) {
        const std::int64_t span = (s[i] - 1) * st[static_cast<std::size_t>(i)];
        (span < 0 ? lo : hi) += span;
    }
    return {lo, hi + 1};
}

/// Hands out disjoint regions of byte arenas: all in one arena (one device buffer for every
/// operand) or one arena per operand.
struct layout {
    bool shared = true;
    std::vector<std::int64_t> bytes{}; ///< size of each arena so far

    placed place(rng_t& g, dtype t, const shape& s, const strides_t& st) {
        const auto es = static_cast<std::int64_t>(strix::size_of(t));
        const auto [lo, hi] = reach(s, st);
        if (!shared || bytes.empty()) bytes.push_back(0);
        const std::size_t a = bytes.size() - 1;
        const std::int64_t before = uni(g, 0, 2), after = uni(g, 0, 2);
        const std::int64_t start = (bytes[a] + 15) / 16 * 16 + 16 * uni(g, 0, 1);
        bytes[a] = start + (before + (hi - lo) + after) * es;
        return {a, start + (before - lo) * es, t, s, st};
    }
    placed place(rng_t& g, dtype t, const shape& s, bool input) { return place(g, t, s, random_strides(g, s, input)); }
};

using arenas = std::vector<host_tensor>;

/// Arenas of the layout's sizes, filled with random bytes.
arenas random_arenas(rng_t& g, const layout& l) {
    arenas a;
    for (const auto n : l.bytes) {
        host_tensor t(dtype::uint8, {std::max<std::int64_t>(n, 1)});
        for (std::size_t i = 0; i < t.bytes(); ++i) t.data()[i] = static_cast<std::byte>(g() >> 56);
        a.push_back(std::move(t));
    }
    return a;
}

arenas copy(const arenas& a) {
    arenas c;
    for (const auto& t : a) {
        host_tensor n(t.type(), t.sizes());
        std::memcpy(n.data(), t.data(), t.bytes());
        c.push_back(std::move(n));
    }
    return c;
}

any_view host_view(arenas& a, const placed& p) { return any_view(a[p.arena].data() + p.offset, p.type, p.sizes, p.strides); }

/// The operands of a call as host views (built on demand: any_view is made in place, never
/// copied).
struct host_operands {
    arenas& mem;
    const std::vector<placed>& ops;
    any_view operator[](std::size_t i) const { return host_view(mem, ops[i]); }
    /// The first `n` operands as read-only views.
    [[nodiscard]] std::vector<any_cview> inputs(std::size_t n) const {
        std::vector<any_cview> v;
        for (std::size_t i = 0; i < n; ++i) v.push_back(host_view(mem, ops[i]));
        return v;
    }
};

vk::device_view device_view(const std::vector<vk::device_tensor>& a, const placed& p) {
    const auto& b = a[p.arena].storage();
    return {b.handle(), b.address() + static_cast<std::uint64_t>(p.offset), p.type, p.sizes, p.strides};
}

/// The elements of an operand in C order, copied one by one (independent of the library).
host_tensor pack(const arenas& a, const placed& p) {
    host_tensor t(p.type, p.sizes);
    const auto es = static_cast<std::int64_t>(strix::size_of(p.type));
    std::int64_t k = 0;
    for_each_coord(p.sizes, [&](const coords& c) {
        std::int64_t off = p.offset;
        for (int i = 0; i < p.sizes.rank; ++i) off += c[static_cast<std::size_t>(i)] * p.strides[static_cast<std::size_t>(i)] * es;
        std::memcpy(t.data() + k++ * es, a[p.arena].data() + off, static_cast<std::size_t>(es));
    });
    return t;
}

/// Whether two host tensors have the same type, shape and bytes.
bool same_bytes(const host_tensor& a, const host_tensor& b) {
    return a.type() == b.type() && a.sizes() == b.sizes() && (a.bytes() == 0 || std::memcmp(a.data(), b.data(), a.bytes()) == 0);
}

/// Position of the first byte where two arenas differ, -1 when they are equal.
std::int64_t first_difference(const host_tensor& a, const host_tensor& b) {
    if (a.bytes() != b.bytes()) return 0;
    if (std::memcmp(a.data(), b.data(), a.bytes()) == 0) return -1;
    for (std::size_t i = 0; i < a.bytes(); ++i)
        if (a.data()[i] != b.data()[i]) return static_cast<std::int64_t>(i);
    return -1;
}

/// Checks that every arena of `got` equals `want` byte for byte.
void check_same(const arenas& got, const arenas& want, const char* what) {
    REQUIRE(got.size() == want.size());
    for (std::size_t a = 0; a < got.size(); ++a) {
        INFO(what << ": arena " << a << " differs first at byte " << first_difference(got[a], want[a]));
        CHECK(first_difference(got[a], want[a]) == -1);
    }
}

/// Checks that no byte outside the elements of the `outs` changed from `initial`.
void check_untouched(const arenas& got, const arenas& initial, const std::vector<placed>& outs) {
    std::vector<std::vector<bool>> written;
    for (const auto& a : got) written.emplace_back(a.bytes(), false);
    for (const auto& out : outs) {
        const auto es = static_cast<std::int64_t>(strix::size_of(out.type));
        for_each_coord(out.sizes, [&](const coords& c) {
            std::int64_t off = out.offset;
            for (int i = 0; i < out.sizes.rank; ++i) off += c[static_cast<std::size_t>(i)] * out.strides[static_cast<std::size_t>(i)] * es;
            for (std::int64_t b = 0; b < es; ++b) written[out.arena][static_cast<std::size_t>(off + b)] = true;
        });
    }
    for (std::size_t a = 0; a < got.size(); ++a) {
        std::int64_t bad = -1;
        for (std::size_t i = 0; i < got[a].bytes() && bad < 0; ++i)
            if (!written[a][i] && got[a].data()[i] != initial[a].data()[i]) bad = static_cast<std::int64_t>(i);
        INFO("a byte outside the output view changed: arena " << a << " byte " << bad);
        CHECK(bad == -1);
    }
}

// ---------------------------------------------------------------------------------------------
// Index values

/// Writes `bits` (a two's-complement value) as an element of the index view's type.
void write_index(const any_view& v, const coords& c, std::uint64_t bits) {
    std::memcpy(v.address(c), &bits, strix::size_of(v.type()));
}

/// An index in range for an axis of size n (0 when n is 0: nothing is in range then).
std::uint64_t valid_index(rng_t& g, dtype t, std::int64_t n) {
    if (n <= 0) return 0;
    return static_cast<std::uint64_t>(strix::is_signed_int(t) ? uni(g, -n, n - 1) : uni(g, 0, n - 1));
}

/// An index outside [-n, n) (or [0, n)): just past either end, or an extreme of the type.
std::uint64_t bad_index(rng_t& g, dtype t, std::int64_t n) {
    const bool sign = strix::is_signed_int(t);
    switch (uni(g, 0, 3)) {
    case 0: return static_cast<std::uint64_t>(n + uni(g, 0, 2));
    case 1: return sign ? static_cast<std::uint64_t>(-n - 1 - uni(g, 0, 2)) : static_cast<std::uint64_t>(n + 1000);
    case 2:
        switch (t) {
        case dtype::int32: return static_cast<std::uint64_t>(static_cast<std::int64_t>(chance(g, 1, 2) ? INT32_MIN : INT32_MAX));
        case dtype::int64: return chance(g, 1, 2) ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(INT64_MAX);
        case dtype::uint32: return UINT32_MAX;
        default: return chance(g, 1, 2) ? UINT64_MAX : std::uint64_t{1} << 63;
        }
    default: // far out: beyond 2^32 for 8-byte types, the sign bit of a 4-byte one
        return strix::size_of(t) == 8 ? (static_cast<std::uint64_t>(n) + 5) << 33 | 7 : 0x80000007u;
    }
}

/// How a case's indices are chosen.
enum class index_mode {
    valid,  ///< all in range, policy error
    clamp,  ///< half of them anywhere, policy clamp
    error,  ///< in range but one or two, policy error
};

const char* mode_text(index_mode m) { return m == index_mode::valid ? "valid" : m == index_mode::clamp ? "clamp" : "out of range"; }

index_policy policy_of(index_mode m) { return m == index_mode::clamp ? index_policy::clamp : index_policy::error; }

/// Fills the index view `v` for an axis of size `n`.
void fill_indices(rng_t& g, const any_view& v, std::int64_t n, index_mode m, std::int64_t dup_range = 0) {
    for_each_coord(v.sizes(), [&](const coords& c) {
        std::uint64_t x = valid_index(g, v.type(), dup_range > 0 ? std::min(n, dup_range) : n);
        if (m == index_mode::clamp && chance(g, 1, 2)) x = bad_index(g, v.type(), n);
        write_index(v, c, x);
    });
    if (m == index_mode::error && v.count() > 0) {
        const auto k = uni(g, 1, 2);
        for (std::int64_t j = 0; j < k; ++j) {
            coords c{};
            for (int i = 0; i < v.rank(); ++i) c[static_cast<std::size_t>(i)] = uni(g, 0, v.size(i) - 1);
            write_index(v, c, bad_index(g, v.type(), n));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The differential harness

/// What a call did: returned, or threw a strix::error (when, and with what).
struct outcome {
    bool threw = false;
    bool at_run = false; ///< thrown by the stream's run(), not while recording
    error_code code = error_code::rule_violation;
    std::string what;
};

template <class F>
outcome capture(F&& f) {
    outcome o;
    try {
        f();
    } catch (const strix::error& e) {
        o.threw = true;
        o.code = e.code();
        o.what = e.what();
    }
    return o;
}

void check_same_outcome(const outcome& got, const outcome& want, const char* what) {
    INFO(what << " threw: " << got.threw << " '" << got.what << "'; the CPU threw: " << want.threw << " '" << want.what << "'");
    REQUIRE(got.threw == want.threw);
    if (!want.threw) return;
    CHECK(got.code == want.code);
    CHECK(got.what == want.what);
}

/// Counts what a run of cases exercised.
struct tally {
    int cases = 0, failed_rules = 0, index_errors = 0;
};

using cpu_call = std::function<void(const host_operands&)>;
using stream_call = std::function<void(vk::stream&, const std::vector<vk::device_view>&)>;
using host_call = std::function<void(vk::context&, const host_operands&)>;

/// Runs one call on the CPU, on device views (one stream) and through the host convenience call,
/// all on copies of `initial`, and checks that the three agree byte for byte — or throw the same
/// strix::error. `ops[out]` is the operand the call writes (split: the last of those it writes,
/// the others being `also_written`).
void differential(vk::context& ctx, const arenas& initial, const std::vector<placed>& ops, std::size_t out, const cpu_call& cpu,
                  const stream_call& dev, const host_call& host, tally& t, const std::vector<std::size_t>& also_written = {}) {
    std::vector<placed> outs{ops[out]};
    for (const auto k : also_written) outs.push_back(ops[k]);
    ++t.cases;
    std::ostringstream d;
    for (std::size_t i = 0; i < ops.size(); ++i) d << "\n  operand " << i << (i == out ? " (written)" : "") << ": " << str(ops[i]);
    INFO("operands:" << d.str());

    arenas cpu_mem = copy(initial);
    const outcome oc = capture([&] { cpu(host_operands{cpu_mem, ops}); });
    if (oc.threw) {
        ++(oc.code == error_code::index_out_of_range ? t.index_errors : t.failed_rules);
        check_same(cpu_mem, initial, "the CPU wrote before throwing");
    } else {
        check_untouched(cpu_mem, initial, outs);
    }

    // device views into device copies of the arenas
    std::vector<vk::device_tensor> dev_mem;
    for (const auto& a : initial) dev_mem.push_back(vk::upload(ctx, a.view()));
    std::vector<vk::device_view> dviews;
    for (const auto& p : ops) dviews.push_back(device_view(dev_mem, p));
    outcome og;
    {
        vk::stream s(ctx);
        og = capture([&] { dev(s, dviews); });
        if (!og.threw) {
            og = capture([&] { s.run(); });
            og.at_run = og.threw;
        }
    }
    arenas gpu_mem;
    for (std::size_t a = 0; a < dev_mem.size(); ++a) {
        gpu_mem.emplace_back(dtype::uint8, initial[a].sizes());
        vk::download(ctx, dev_mem[a], gpu_mem.back().view());
    }
    check_same_outcome(og, oc, "the stream");
    if (!oc.threw) {
        check_same(gpu_mem, cpu_mem, "device views");
        check_untouched(gpu_mem, initial, outs);
        // the output view read back on its own
        const host_tensor packed = vk::stream::download_view(ctx, dviews[out]);
        const host_tensor want = pack(cpu_mem, ops[out]);
        CHECK(same_bytes(packed, want));
    } else if (oc.code == error_code::index_out_of_range) {
        CHECK(og.at_run); // recorded fine, reported by run()
    } else {
        CHECK(!og.at_run);
        check_same(gpu_mem, initial, "a rejected call wrote on the device");
    }

    // the host convenience call, on strided host views
    arenas host_mem = copy(initial);
    const outcome oh = capture([&] { host(ctx, host_operands{host_mem, ops}); });
    check_same_outcome(oh, oc, "the host convenience call");
    check_same(host_mem, oc.threw ? initial : cpu_mem, "host convenience call");
}

// ---------------------------------------------------------------------------------------------
// Case generators

/// A gather with random shapes and strides: natural form, or DirectML's with index_dimensions.
void gather_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, bool directml, index_mode m, tally& t) {
    shape in, idx;
    strix::gather_desc d;
    d.policy = policy_of(m);
    int axis = 0;
    if (!directml) {
        in = random_shape(g, rank, 256);
        idx = random_shape(g, static_cast<int>(uni(g, 0, std::min(3, 9 - rank))), 24);
        axis = static_cast<int>(uni(g, 0, rank - 1));
    } else {
        const int k = static_cast<int>(uni(g, 0, rank));
        in = random_shape(g, rank, 256);
        for (int i = 0; i + 1 < k; ++i) in[i] = 1;
        axis = static_cast<int>(uni(g, std::max(k - 1, 0), rank - 1));
        for (int i = 0; i < rank; ++i) idx.push_back(i < rank - k ? 1 : (chance(g, 1, 40) ? 0 : uni(g, 1, 4)));
        shrink(g, idx, 24);
        d.index_dimensions = k;
    }
    d.axis = chance(g, 1, 2) ? axis : axis - rank;
    const auto r = strix::gather_rule(in, idx, d);
    REQUIRE(r.v.ok());
    INFO("gather " << type_name(type) << " by " << type_name(itype) << ", axis " << d.axis << ", index_dimensions " << d.index_dimensions
                   << ", indices " << mode_text(m));

    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, itype, idx, true), l.place(g, type, r.out, false)};
    arenas mem = random_arenas(g, l);
    // every index element (in the DirectML form the leading dimensions have size 1)
    fill_indices(g, host_view(mem, ops[1]), in[axis], m);
    differential(
        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather(v[0], v[1], v[2], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather(v[0], v[1], v[2], d); },
        [&](vk::context& c, const host_operands& v) { vk::gather(c, v[0], v[1], v[2], d); }, t);
}

/// A join of `n` inputs with random axis sizes (0 included).
void join_case(vk::context& ctx, rng_t& g, dtype type, int rank, int n, tally& t) {
    const shape base = random_shape(g, rank, 128);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    strix::join_desc d{chance(g, 1, 2) ? axis : axis - rank};
    INFO("join " << n << " inputs of " << type_name(type) << ", axis " << d.axis);
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops;
    std::vector<shape> shapes;
    for (int k = 0; k < n; ++k) {
        shape s = base;
        s[axis] = chance(g, 1, 6) ? 0 : uni(g, 1, 4);
        shapes.push_back(s);
        ops.push_back(l.place(g, type, s, true));
    }
    const auto r = strix::join_rule(shapes, d);
    REQUIRE(r.v.ok());
    ops.push_back(l.place(g, type, r.out, false));
    const arenas mem = random_arenas(g, l);
    const auto nn = static_cast<std::size_t>(n);
    differential(
        ctx, mem, ops, nn, [&](const host_operands& v) { strix::join(v.inputs(nn), v[nn], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.join(std::span(v.data(), nn), v[nn], d); },
        [&](vk::context& c, const host_operands& v) { vk::join(c, v.inputs(nn), v[nn], d); }, t);
}

/// A constant for pad: mostly one that fits the element type, given as a double or an exact
/// integer; now and then NaN, an infinity or a value that does not fit (rejected alike).
strix::scalar random_value(rng_t& g, dtype type) {
    if (strix::is_float(type)) {
        switch (uni(g, 0, 3)) {
        case 0: return std::bit_cast<double>(g());
        case 1: return chance(g, 1, 2) ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
        case 2: return uni(g, -1000000, 1000000);
        default: return static_cast<double>(uni(g, -1000, 1000)) / 7.0;
        }
    }
    const auto bits = static_cast<int>(strix::size_of(type) * 8);
    const bool sign = strix::is_signed_int(type);
    switch (uni(g, 0, 5)) {
    case 0: return static_cast<double>(uni(g, -100, 100)) + 0.6;         // truncates (DirectML)
    case 1: return sign ? std::int64_t{-1} << (bits - 1) : std::int64_t{0};  // the smallest value
    case 2: return sign ? static_cast<std::uint64_t>(INT64_MAX) >> (64 - bits) : UINT64_MAX >> (64 - bits); // the largest
    case 3: return chance(g, 1, 2) ? strix::scalar(std::int64_t{-1}) : strix::scalar(std::uint64_t{1} << std::min(bits, 63)); // may not fit
    default: return uni(g, sign ? -50 : 0, 100);
    }
}

/// A pad in mode `mode`, with pads up to 3 wide and now and then wider than the input.
void pad_case(vk::context& ctx, rng_t& g, dtype type, int rank, pad_mode mode, tally& t) {
    const shape in = random_shape(g, rank, 96);
    strix::pad_desc d{mode, in, in, random_value(g, type)};
    for (int i = 0; i < rank; ++i) {
        const bool wide = chance(g, 1, 6);
        d.start[i] = wide ? uni(g, 3, 9) : uni(g, 0, 2);
        d.end[i] = wide ? uni(g, 0, 9) : uni(g, 0, 2);
        if (mode != pad_mode::constant && in[i] == 0 && !chance(g, 1, 16)) d.start[i] = d.end[i] = 0; // now and then rejected
        if (in[i] > 0 && chance(g, 1, 5)) { // crop one side (sometimes beyond the axis: rejected alike)
            auto& side = chance(g, 1, 2) ? d.start[i] : d.end[i];
            side = -uni(g, 1, in[i] + (chance(g, 1, 10) ? 1 : 0));
        }
    }
    auto out_count = [&] {
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= std::max<std::int64_t>(in[i] + d.start[i] + d.end[i], 0);
        return n;
    };
    while (out_count() > 1536) {
        const int i = static_cast<int>(uni(g, 0, rank - 1));
        if (d.start[i] > 0) --d.start[i];
        else if (d.end[i] > 0) --d.end[i];
    }
    INFO("pad " << type_name(type) << ' ' << mode_name(mode) << ", start " << str(d.start) << ", end " << str(d.end) << ", value "
                << d.value.to_string());
    const auto r = strix::pad_rule(in, d);
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, type, r.v.ok() ? r.out : in, false)};
    const arenas mem = random_arenas(g, l);
    differential(
        ctx, mem, ops, 1, [&](const host_operands& v) { strix::pad(v[0], v[1], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.pad(v[0], v[1], d); },
        [&](vk::context& c, const host_operands& v) { vk::pad(c, v[0], v[1], d); }, t);
}

/// A scatter: indices as large as the input off the axis (DirectML) or smaller (ONNX), index
/// values from a small range so that targets repeat, in place or out of place.
void scatter_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, index_mode m, bool in_place, tally& t,
                  strix::scatter_reduction red = strix::scatter_reduction::none) {
    const shape in = random_shape(g, rank, 256);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    strix::scatter_desc d{chance(g, 1, 2) ? axis : axis - rank, policy_of(m), red, false};
    // float add and mul run deterministic (bit-identical to the CPU); the rest either way
    d.deterministic = (strix::is_float(type) && (red == strix::scatter_reduction::add || red == strix::scatter_reduction::mul)) || chance(g, 1, 2);
    shape idx = in;
    for (int i = 0; i < rank; ++i)
        idx[i] = i == axis ? (chance(g, 1, 20) ? 0 : uni(g, 1, 5)) : chance(g, 1, 2) || in[i] == 0 ? in[i] : uni(g, chance(g, 1, 20) ? 0 : 1, in[i]);
    shrink(g, idx, 64);
    INFO("scatter " << type_name(type) << " by " << type_name(itype) << ", axis " << d.axis << ", reduction " << static_cast<int>(red)
                    << (d.deterministic ? ", deterministic" : "") << ", indices " << mode_text(m)
                    << (in_place ? ", in place" : ", out of place"));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, !in_place), l.place(g, itype, idx, true), l.place(g, type, idx, true)};
    if (!in_place) ops.push_back(l.place(g, type, in, false));
    arenas mem = random_arenas(g, l);
    fill_indices(g, host_view(mem, ops[1]), in[axis], m, chance(g, 1, 2) ? 2 : 0);
    const std::size_t out = in_place ? 0 : 3;
    differential(
        ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter(v[0], v[1], v[2], v[out], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter(v[0], v[1], v[2], v[out], d); },
        [&](vk::context& c, const host_operands& v) { vk::scatter(c, v[0], v[1], v[2], v[out], d); }, t);
}

/// A gather-elements: indices of the input's rank, not larger off the axis.
void gather_elements_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, index_mode m, tally& t) {
    const shape in = random_shape(g, rank, 256);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    shape idx = in;
    for (int i = 0; i < rank; ++i) idx[i] = i == axis ? (chance(g, 1, 20) ? 0 : uni(g, 1, 5)) : uni(g, std::min<std::int64_t>(in[i], 1), in[i]);
    shrink(g, idx, 64);
    strix::gather_elements_desc d{chance(g, 1, 2) ? axis : axis - rank, policy_of(m)};
    INFO("gather-elements " << type_name(type) << " by " << type_name(itype) << ", axis " << d.axis << ", indices " << mode_text(m));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, itype, idx, true), l.place(g, type, idx, false)};
    arenas mem = random_arenas(g, l);
    fill_indices(g, host_view(mem, ops[1]), in[axis], m);
    differential(
        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather_elements(v[0], v[1], v[2], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather_elements(v[0], v[1], v[2], d); },
        [&](vk::context& c, const host_operands& v) { vk::gather_elements(c, v[0], v[1], v[2], d); }, t);
}

/// Fills index tuples (the last dimension of `v`) for axes first.. of `target`, each component
/// valid for its own axis; under index_mode::clamp half of them anywhere, under error one bad.
void fill_tuples(rng_t& g, const any_view& v, int first, const shape& target, index_mode m, bool colliding) {
    const int q = v.rank();
    for_each_coord(v.sizes(), [&](const coords& c) {
        const std::int64_t n = target[first + static_cast<int>(c[static_cast<std::size_t>(q - 1)])];
        std::uint64_t x = valid_index(g, v.type(), colliding ? std::min<std::int64_t>(n, 2) : n);
        if (m == index_mode::clamp && chance(g, 1, 2)) x = bad_index(g, v.type(), n);
        write_index(v, c, x);
    });
    if (m == index_mode::error && v.count() > 0) {
        coords c{};
        for (int i = 0; i < q; ++i) c[static_cast<std::size_t>(i)] = uni(g, 0, v.size(i) - 1);
        write_index(v, c, bad_index(g, v.type(), target[first + static_cast<int>(c[static_cast<std::size_t>(q - 1)])]));
    }
}

/// A gather-nd with 0 to 2 batch dimensions.
void gather_nd_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, index_mode m, tally& t) {
    const shape in = random_shape(g, rank, 256);
    const int b = static_cast<int>(uni(g, 0, std::min(2, rank - 1)));
    const int k = static_cast<int>(uni(g, 1, rank - b));
    shape idx;
    for (int i = 0; i < b; ++i) idx.push_back(in[i]);
    const int extra = static_cast<int>(uni(g, 0, std::min(2, strix::max_rank - (rank - b - k) - b)));
    for (int i = 0; i < extra; ++i) idx.push_back(chance(g, 1, 30) ? 0 : uni(g, 1, 3));
    idx.push_back(k);
    strix::gather_nd_desc d{b, policy_of(m)};
    const auto r = strix::gather_nd_rule(in, idx, d);
    REQUIRE(r.v.ok());
    INFO("gather-nd " << type_name(type) << " by " << type_name(itype) << " " << str(idx) << ", batch dimensions " << b << ", indices " << mode_text(m));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, itype, idx, false), l.place(g, type, r.out, false)};
    arenas mem = random_arenas(g, l);
    fill_tuples(g, host_view(mem, ops[1]), b, in, m, false);
    differential(
        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather_nd(v[0], v[1], v[2], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather_nd(v[0], v[1], v[2], d); },
        [&](vk::context& c, const host_operands& v) { vk::gather_nd(c, v[0], v[1], v[2], d); }, t);
}

/// A split into 1 to 4 pieces (zero sizes included); the differential harness checks the last
/// output's bytes and every arena.
void split_case(vk::context& ctx, rng_t& g, dtype type, int rank, tally& t) {
    const shape base = random_shape(g, rank, 128);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    const int n = static_cast<int>(uni(g, 1, 4));
    strix::split_desc d{chance(g, 1, 2) ? axis : axis - rank};
    shape in = base;
    in[axis] = 0;
    std::vector<shape> outs;
    for (int k = 0; k < n; ++k) {
        shape s = base;
        s[axis] = chance(g, 1, 5) ? 0 : uni(g, 1, 4);
        in[axis] += s[axis];
        outs.push_back(s);
    }
    INFO("split " << type_name(type) << " into " << n << ", axis " << d.axis);
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true)};
    for (const auto& s : outs) ops.push_back(l.place(g, type, s, false));
    const arenas mem = random_arenas(g, l);
    const auto nn = static_cast<std::size_t>(n);
    auto outputs = [&](const host_operands& v) {
        std::vector<any_view> o;
        for (std::size_t k = 1; k <= nn; ++k) o.push_back(v[k]);
        return o;
    };
    differential(
        ctx, mem, ops, nn, [&](const host_operands& v) { strix::split(v[0], outputs(v), d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.split(v[0], std::span(v.data() + 1, nn), d); },
        [&](vk::context& c, const host_operands& v) { vk::split(c, v[0], outputs(v), d); }, t, [&] {
            std::vector<std::size_t> others;
            for (std::size_t k = 1; k < nn; ++k) others.push_back(k);
            return others;
        }());
}

/// Whether a reduction of `type` is exact in any order: everything but float add and mul.
bool order_free(dtype type, strix::scatter_reduction red) {
    return !strix::is_float(type) || red == strix::scatter_reduction::min || red == strix::scatter_reduction::max ||
           red == strix::scatter_reduction::none;
}

/// A scatter-nd, in place or out of place, tuples colliding now and then. Float add and mul run
/// deterministic (bit-identical to the CPU); the rest either way.
void scatter_nd_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, strix::scatter_reduction red, index_mode m,
                     bool in_place, tally& t) {
    const shape in = random_shape(g, rank, 256);
    const int k = static_cast<int>(uni(g, 1, rank));
    shape lead;
    const int extra = static_cast<int>(uni(g, 0, std::min(2, strix::max_rank - (rank - k))));
    for (int i = 0; i < extra; ++i) lead.push_back(chance(g, 1, 30) ? 0 : uni(g, 1, 4));
    shape idx = lead, upd = lead;
    idx.push_back(k);
    for (int i = k; i < rank; ++i) upd.push_back(in[i]);
    strix::scatter_nd_desc d{policy_of(m), red, !order_free(type, red) || chance(g, 1, 2)};
    INFO("scatter-nd " << type_name(type) << " by " << type_name(itype) << " " << str(idx) << ", reduction " << static_cast<int>(red)
                       << (d.deterministic ? ", deterministic" : "") << ", indices " << mode_text(m) << (in_place ? ", in place" : ""));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, !in_place), l.place(g, itype, idx, false), l.place(g, type, upd, true)};
    if (!in_place) ops.push_back(l.place(g, type, in, false));
    arenas mem = random_arenas(g, l);
    fill_tuples(g, host_view(mem, ops[1]), 0, in, m, chance(g, 1, 2));
    const std::size_t out = in_place ? 0 : 3;
    differential(
        ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter_nd(v[0], v[1], v[2], v[out], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter_nd(v[0], v[1], v[2], v[out], d); },
        [&](vk::context& c, const host_operands& v) { vk::scatter_nd(c, v[0], v[1], v[2], v[out], d); }, t);
}

constexpr dtype all_types[] = {dtype::float64, dtype::float32, dtype::float16, dtype::int64, dtype::int32, dtype::int16,
                               dtype::int8,    dtype::uint64,  dtype::uint32,  dtype::uint16, dtype::uint8};
constexpr dtype index_types[] = {dtype::int32, dtype::int64, dtype::uint32, dtype::uint64};
constexpr index_mode index_modes[] = {index_mode::valid, index_mode::clamp, index_mode::error};

/// The seed of case `k` of a test.
std::uint64_t case_seed(std::uint64_t base, std::uint64_t k) { return base ^ (k * 0x9e3779b97f4a7c15ull); }

/// A context with 8/16-bit storage (the default) or without (the 32-bit word path for 1- and
/// 2-byte elements): the differential tests run on both.
vk::context_options storage_options(bool small) {
    vk::context_options o;
    o.small_storage = small;
    return o;
}

/// The paths a move's differential test runs on: 0, 8/16-bit storage; 1, 32-bit words only; 2,
/// 8/16-bit storage with every move located in 64-bit arithmetic and pad folds read from their
/// maps (the path of calls too large for 32-bit offsets; by default small calls take the 32-bit one).
vk::context_options path_options(int path) {
    vk::context_options o = storage_options(path != 1);
    o.wide_arithmetic = path == 2;
    return o;
}

/// The paths those tests run: all three, or in a reduced run (sanitized builds: the build sets
/// STRIX_TEST_REDUCED) 0 and 2, whose host code differs (32-bit records against 64-bit maps);
/// path 1 differs from 0 in the shaders, which a sanitizer does not see.
bool reduced_run() {
    const char* r = std::getenv("STRIX_TEST_REDUCED");
    return r != nullptr && *r != '\0' && std::strcmp(r, "0") != 0;
}
std::vector<int> test_paths() { return reduced_run() ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2}; }
/// Whether combination `k` (counted from 1) of a differential test's loop runs on `path`: all of
/// them, or in a reduced run every other one on each of the two paths, so that together they
/// still cover every combination once, for half the work (a sanitized run's longest test).
bool runs_on(int path, std::uint64_t k) { return !reduced_run() || (k % 2 == 0) == (path == 2); }
/// A count a test expects at least `full` of; half that in a reduced run.
int at_least(int full) { return reduced_run() ? full / 2 : full; }
/// The storage modes of the scatter differential tests: both, or in a reduced run 8/16-bit
/// storage only (the other differs in the shaders).
std::vector<int> storage_modes() { return reduced_run() ? std::vector<int>{1} : std::vector<int>{1, 0}; }

} // namespace

// ---------------------------------------------------------------------------------------------
// GPU equals CPU

TEST_CASE("vulkan: gather equals the CPU for every element and index type, both forms", "[vulkan]") {
    const int path = GENERATE(from_range(test_paths()));
    const bool small = path != 1;
    vk::context ctx(path_options(path));
    INFO("wide arithmetic " << ctx.wide_arithmetic());
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const dtype itype : index_types)
            for (const index_mode m : index_modes)
                for (const bool directml : {false, true}) {
                    const std::uint64_t seed = case_seed(0x6a7e5eedull, k);
                    const int rank = static_cast<int>(k % 8) + 1;
                    ++k;
                    if (!runs_on(path, k)) continue;
                    INFO("seed " << seed << ", rank " << rank);
                    rng_t g(seed);
                    gather_case(ctx, g, type, itype, rank, directml, m, t);
                }
    CHECK(t.index_errors > at_least(20));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: join of 1 to 4 inputs equals the CPU for every element type", "[vulkan]") {
    const int path = GENERATE(from_range(test_paths()));
    const bool small = path != 1;
    vk::context ctx(path_options(path));
    INFO("wide arithmetic " << ctx.wide_arithmetic());
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (int n = 1; n <= 4; ++n)
            for (int rep = 0; rep < 2; ++rep) {
                const std::uint64_t seed = case_seed(0x701115eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                join_case(ctx, g, type, rank, n, t);
            }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: pad in every mode equals the CPU for every element type", "[vulkan]") {
    const int path = GENERATE(from_range(test_paths()));
    const bool small = path != 1;
    vk::context ctx(path_options(path));
    INFO("wide arithmetic " << ctx.wide_arithmetic());
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap})
            for (int rep = 0; rep < 3; ++rep) {
                const std::uint64_t seed = case_seed(0x9ad5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                pad_case(ctx, g, type, rank, mode, t);
            }
    CHECK(t.failed_rules > 0); // values that do not fit and empty sources were rejected alike
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: scatter equals the CPU for every element and index type, in and out of place", "[vulkan]") {
    const bool small = GENERATE(from_range(storage_modes())) != 0;
    vk::context ctx(storage_options(small));
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const dtype itype : index_types)
            for (const index_mode m : index_modes)
                for (const bool in_place : {false, true}) {
                    const std::uint64_t seed = case_seed(0x5ca77e5eedull, k);
                    const int rank = static_cast<int>(k % 8) + 1;
                    ++k;
                    INFO("seed " << seed << ", rank " << rank);
                    rng_t g(seed);
                    scatter_case(ctx, g, type, itype, rank, m, in_place, t);
                }
    CHECK(t.index_errors > 20);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: gather-elements equals the CPU for every element and index type", "[vulkan]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("wide arithmetic " << ctx.wide_arithmetic());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const dtype itype : index_types)
            for (const index_mode m : index_modes) {
                const std::uint64_t seed = case_seed(0x6e1e5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                gather_elements_case(ctx, g, type, itype, rank, m, t);
            }
    CHECK(t.index_errors > at_least(10));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: gather-nd equals the CPU for every element and index type", "[vulkan]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("wide arithmetic " << ctx.wide_arithmetic());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const dtype itype : index_types)
            for (const index_mode m : index_modes) {
                const std::uint64_t seed = case_seed(0x6a0d5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                gather_nd_case(ctx, g, type, itype, rank, m, t);
            }
    CHECK(t.index_errors > at_least(10));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: split equals the CPU for every element type", "[vulkan]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("wide arithmetic " << ctx.wide_arithmetic());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (int rep = 0; rep < 4; ++rep) {
            const std::uint64_t seed = case_seed(0x5b1175eedull, k);
            const int rank = static_cast<int>(k % 8) + 1;
            ++k;
            if (!runs_on(path, k)) continue;
            INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
            rng_t g(seed);
            split_case(ctx, g, type, rank, t);
        }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: scatter reductions equal the CPU for every element type", "[vulkan]") {
    using R = strix::scatter_reduction;
    const bool small = GENERATE(from_range(storage_modes())) != 0;
    vk::context ctx(storage_options(small));
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const R red : {R::add, R::mul, R::min, R::max})
            for (const index_mode m : index_modes) {
                const std::uint64_t seed = case_seed(0x7ed5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                const dtype itype = index_types[k % 4];
                ++k;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                scatter_case(ctx, g, type, itype, rank, m, chance(g, 1, 2), t, red);
            }
    CHECK(t.index_errors > 10);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: scatter-nd equals the CPU for every reduction, element and index type", "[vulkan]") {
    using R = strix::scatter_reduction;
    const bool small = GENERATE(from_range(storage_modes())) != 0;
    vk::context ctx(storage_options(small));
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : all_types)
        for (const R red : {R::none, R::add, R::mul, R::min, R::max})
            for (const index_mode m : index_modes) {
                const std::uint64_t seed = case_seed(0x5c0d5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                const dtype itype = index_types[k % 4];
                ++k;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                scatter_nd_case(ctx, g, type, itype, rank, red, m, chance(g, 1, 2), t);
            }
    CHECK(t.index_errors > 10);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: float add and mul with atomics, in any order, on values whose results are exact", "[vulkan]") {
    // many updates onto few targets: small integers (sums exact in every float type), and powers
    // of two for mul (products exact while they stay in range)
    using R = strix::scatter_reduction;
    const bool native = GENERATE(true, false); // float32 add: the device's float atomic where it has one
    if (!native) set_env("STRIX_VULKAN_NO_FLOAT_ATOMICS", "1");
    vk::context ctx;
    set_env("STRIX_VULKAN_NO_FLOAT_ATOMICS", nullptr);
    INFO("native float32 atomic add " << ctx.float32_atomic_add());
    rng_t g(0xf10a7ull);
    for (const dtype type : {dtype::float64, dtype::float32, dtype::float16})
        for (const R red : {R::add, R::mul})
            for (const bool det : {false, true}) {
                INFO(type_name(type) << (red == R::add ? " add" : " mul") << (det ? ", deterministic" : ", atomics"));
                const shape in_shape{7, 5}, idx_shape{300, 5};
                host_tensor in(type, in_shape), upd(type, idx_shape), idx(dtype::int32, idx_shape);
                auto put = [&](host_tensor& tt, std::int64_t i, double v) {
                    strix::visit(type, [&]<class T>(strix::type_tag<T>) { reinterpret_cast<T*>(tt.data())[i] = static_cast<T>(v); });
                };
                for (std::int64_t i = 0; i < in.sizes().count(); ++i) put(in, i, red == R::add ? static_cast<double>(uni(g, -8, 8)) : 1.0);
                for (std::int64_t i = 0; i < upd.sizes().count(); ++i) {
                    put(upd, i, red == R::add ? static_cast<double>(uni(g, -3, 3)) : (chance(g, 1, 3) ? (chance(g, 1, 2) ? 2.0 : 0.5) : 1.0));
                    reinterpret_cast<std::int32_t*>(idx.data())[i] = static_cast<std::int32_t>(uni(g, 0, 6));
                }
                const strix::scatter_desc d{0, index_policy::error, red, det};
                const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
                host_tensor got(type, in_shape);
                vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
                CHECK(same_bytes(got, want));
            }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: deterministic reductions fold any number of updates per target in C order", "[vulkan]") {
    // 1 to 1,000,000 updates onto one target and onto three, every reduction, scatter and
    // scatter-nd: bit for bit the CPU's left fold in update order. Float sums and products of
    // random values depend on that order; min and max meet NaNs of different payloads, where the
    // first one in update order wins. Without 64-bit atomics the 8-byte reductions take the same
    // path without being asked to. (A target's run once stopped after about 4,400 updates on a
    // device whose loops end after 65535 iterations in all.)
    using R = strix::scatter_reduction;
    const bool no_int64_atomics = GENERATE(false, true);
    if (no_int64_atomics) set_env("STRIX_VULKAN_NO_INT64_ATOMICS", "1");
    vk::context ctx;
    set_env("STRIX_VULKAN_NO_INT64_ATOMICS", nullptr);
    rng_t g(0xd37e4ull);
    const bool reduced = std::getenv("STRIX_TEST_REDUCED") != nullptr;
    for (const std::int64_t n : {1, 4401, 5000, 100000, 1000000})
        for (const bool few : {false, true})
            for (const dtype type : {dtype::float32, dtype::float16, dtype::float64, dtype::int64, dtype::uint8}) {
                if (no_int64_atomics && strix::size_of(type) != 8) continue;
                // a million updates: float32, and int64 where it takes this path unasked
                if (n == 1000000 && type != (no_int64_atomics ? dtype::int64 : dtype::float32)) continue;
                // a sanitized build stops at 100,000 on one target (still 25 chunks on a CPU device)
                if (reduced && (n == 1000000 || (n == 100000 && few))) continue;
                for (const R red : {R::add, R::mul, R::min, R::max}) {
                    const bool nd = (n + static_cast<std::int64_t>(red)) % 2 == 1; // scatter-nd for half the cases
                    INFO(n << " updates onto " << (few ? "three targets" : "one target") << ", " << type_name(type) << ", reduction "
                           << static_cast<int>(red) << (nd ? ", scatter-nd" : ", scatter") << (no_int64_atomics ? ", no 64-bit atomics" : ""));
                    const shape in_shape{8};
                    host_tensor in(type, in_shape), upd(type, shape{n}), idx(dtype::int64, nd ? shape{n, 1} : shape{n});
                    auto put = [&](host_tensor& tt, std::int64_t i, double v) {
                        strix::visit(type, [&]<class T>(strix::type_tag<T>) { reinterpret_cast<T*>(tt.data())[i] = static_cast<T>(v); });
                    };
                    for (std::int64_t i = 0; i < 8; ++i) put(in, i, red == R::mul ? 1.0 : static_cast<double>(uni(g, 0, 9)));
                    std::uniform_real_distribution<double> real(-4, 4);
                    for (std::int64_t i = 0; i < n; ++i) {
                        double v = 0;
                        if (!strix::is_float(type)) v = static_cast<double>(uni(g, 0, red == R::mul ? 3 : 200));
                        else if (red == R::mul) v = 1.0 + real(g) / 4096.0;
                        else v = real(g);
                        put(upd, i, v);
                        reinterpret_cast<std::int64_t*>(idx.data())[i] = few ? std::array<std::int64_t, 3>{0, 3, 7}[static_cast<std::size_t>(uni(g, 0, 2))] : 5;
                    }
                    if (strix::is_float(type) && (red == R::min || red == R::max))
                        for (int k = 0; k < 3 && n > 10; ++k) { // quiet NaNs with payloads 1, 2, 3
                            const auto i = uni(g, 0, n - 1);
                            if (type == dtype::float32) reinterpret_cast<std::uint32_t*>(upd.data())[i] = 0x7fc00000u + static_cast<std::uint32_t>(k + 1);
                            if (type == dtype::float64) reinterpret_cast<std::uint64_t*>(upd.data())[i] = 0x7ff8000000000000ull + static_cast<std::uint64_t>(k + 1);
                            if (type == dtype::float16) reinterpret_cast<std::uint16_t*>(upd.data())[i] = static_cast<std::uint16_t>(0x7e00 + k + 1);
                        }
                    host_tensor want(type, in_shape), got(type, in_shape);
                    if (nd) {
                        const strix::scatter_nd_desc d{index_policy::error, red, true};
                        want = strix::scatter_nd(in.view(), idx.view(), upd.view(), d);
                        vk::scatter_nd(ctx, in.view(), idx.view(), upd.view(), got.view(), strix::scatter_nd_desc{index_policy::error, red, !no_int64_atomics});
                    } else {
                        const strix::scatter_desc d{0, index_policy::error, red, true};
                        want = strix::scatter(in.view(), idx.view(), upd.view(), d);
                        vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), strix::scatter_desc{0, index_policy::error, red, !no_int64_atomics});
                    }
                    CHECK(same_bytes(got, want));
                }
            }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: float32 reductions keep subnormal operands and results, as the CPU does", "[vulkan]") {
    // subnormal updates added to, and multiplied with, normal and subnormal elements: a device
    // that flushed them would give 0, or NaN for infinity times a flushed subnormal
    using R = strix::scatter_reduction;
    vk::context ctx;
    INFO("device " << ctx.device().name << ", float32 subnormals kept " << ctx.device().denorm_preserve32);
    const float tiny = std::numeric_limits<float>::denorm_min(), small = std::numeric_limits<float>::min();
    const float in_values[] = {small, -small, tiny, std::numeric_limits<float>::infinity(), 1.0f, -tiny, 0.0f, 3.0f * tiny};
    const float upd_values[] = {-tiny, tiny, tiny * 5, tiny, tiny, -small / 2, tiny, small / 4};
    host_tensor in(dtype::float32, {8}), upd(dtype::float32, {8}), idx(dtype::int32, {8});
    for (int i = 0; i < 8; ++i) {
        in.as<float>()[i] = in_values[i];
        upd.as<float>()[i] = upd_values[i];
        idx.as<std::int32_t>()[i] = i;
    }
    for (const R red : {R::add, R::mul})
        for (const bool det : {false, true}) {
            INFO((red == R::add ? "add" : "mul") << (det ? ", deterministic" : ", atomics"));
            const strix::scatter_desc d{0, index_policy::error, red, det};
            const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
            host_tensor got(dtype::float32, {8});
            vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
            CHECK(same_bytes(got, want));
        }
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// The bits of a float (float32 or float64) as an unsigned integer, and back.
template <class F>
using float_bits_t = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
template <class F>
F float_from_bits(std::uint64_t b) { return std::bit_cast<F>(static_cast<float_bits_t<F>>(b)); }

/// Float add onto targets that a flushing atomic or a device NaN would get wrong (NaN payloads,
/// subnormals, -0, overflow), each given updates whose sums are the same in every order, some
/// through the native add (finite, |u| >= 2^low: -100 for float32, -900 for float64) and some
/// through the compare-and-swap loop (zeros, subnormals, tiny values, NaN), 20 times.
template <class F>
void check_native_float_add(vk::context& ctx, int low) {
    using B = float_bits_t<F>;
    const auto quiet = static_cast<B>(sizeof(F) == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull); // the CPU's quiet NaN
    const B sign = B{1} << (sizeof(F) * 8 - 1);
    const F tiny = std::numeric_limits<F>::denorm_min(), big = std::numeric_limits<F>::max();
    const F lo = std::ldexp(F(1), low), below = std::ldexp(F(1), low - 10), inf = std::numeric_limits<F>::infinity();
    const std::vector<F> targets = {float_from_bits<F>(quiet | 1), float_from_bits<F>(sign | quiet), 3 * tiny, F(-0.0), inf, big, F(1), -lo, tiny, F(5)};
    const std::vector<std::pair<int, F>> updates = {
        {0, F(1)}, {0, F(2)},              // NaN payloads become the CPU's quiet NaN
        {1, F(1)},                         //
        {2, lo},                           // a subnormal target: the sum rounds to the update
        {3, F(1)}, {3, F(-1)},             // -0: +0 in every order
        {4, F(1)}, {4, F(5)},              // infinity stays
        {5, big}, {5, F(1)},               // overflow to infinity in every order
        {6, tiny}, {6, below}, {6, F(2)}, {6, F(0)}, // below 2^low: the CAS loop; the sum is 3
        {7, lo},                           // exact cancellation to +0, not a subnormal
        {8, F(1)}, {8, float_from_bits<F>(quiet | 5)}, // a NaN update on a subnormal target
        {9, float_from_bits<F>(sign | quiet | 3)}, {9, F(1)}, {9, F(4)}}; // a NaN update among native adds
    const dtype type = sizeof(F) == 4 ? dtype::float32 : dtype::float64;
    const auto n = static_cast<std::int64_t>(updates.size());
    host_tensor in(type, {static_cast<std::int64_t>(targets.size())}), upd(type, {n}), idx(dtype::int64, {n});
    std::copy(targets.begin(), targets.end(), in.as<F>());
    for (std::int64_t i = 0; i < n; ++i) {
        idx.as<std::int64_t>()[i] = updates[static_cast<std::size_t>(i)].first;
        upd.as<F>()[i] = updates[static_cast<std::size_t>(i)].second;
    }
    const strix::scatter_desc d{0, index_policy::error, strix::scatter_reduction::add, false};
    const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
    CHECK(std::bit_cast<B>(want.as<F>()[0]) == quiet); // the reference is what the comments say
    CHECK(want.as<F>()[2] == lo);
    CHECK(std::bit_cast<B>(want.as<F>()[7]) == 0u);
    for (int rep = 0; rep < 20; ++rep) { // atomics race differently from run to run
        host_tensor got(type, in.sizes());
        vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
        INFO("run " << rep);
        CHECK(same_bytes(got, want));
    }
}

} // namespace

TEST_CASE("vulkan: float atomic add uses the device's float atomic only where its sum is the CPU's", "[vulkan]") {
    // float32 and float64, with the native adds and without
    const bool native = GENERATE(true, false);
    if (!native) set_env("STRIX_VULKAN_NO_FLOAT_ATOMICS", "1");
    vk::context ctx;
    set_env("STRIX_VULKAN_NO_FLOAT_ATOMICS", nullptr);
    INFO("device " << ctx.device().name << ", native float32 atomic add " << ctx.float32_atomic_add() << ", float64 "
                   << ctx.float64_atomic_add());
    if (!native) REQUIRE_FALSE(ctx.float32_atomic_add());
    if (!native) REQUIRE_FALSE(ctx.float64_atomic_add());
    {
        INFO("float32");
        check_native_float_add<float>(ctx, -100);
    }
    if (ctx.float64()) {
        INFO("float64");
        check_native_float_add<double>(ctx, -900);
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: without float64 arithmetic, float32 reductions run in float32 and float64 add is refused clearly", "[vulkan]") {
    using R = strix::scatter_reduction;
    set_env("STRIX_VULKAN_NO_FLOAT64", "1");
    vk::context ctx;
    set_env("STRIX_VULKAN_NO_FLOAT64", nullptr);
    REQUIRE_FALSE(ctx.float64());
    // float32 arithmetic itself is exact only where the device keeps subnormals (lavapipe does;
    // many GPUs flush them, which the README states for devices without float64)
    const bool keeps = ctx.device().denorm_preserve32 || ctx.device().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    INFO("device " << ctx.device().name << (keeps ? " keeps" : " flushes") << " float32 subnormals");
    std::vector<dtype> types{dtype::float16, dtype::int16};
    if (keeps) types.push_back(dtype::float32);
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : types)
        for (const R red : {R::add, R::mul, R::max})
            for (int rep = 0; rep < 2; ++rep) {
                const std::uint64_t seed = case_seed(0xf640ull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                scatter_nd_case(ctx, g, type, dtype::int32, rank, red, index_mode::valid, rep == 0, t);
            }
    host_tensor in(dtype::float64, {4}), idx(dtype::int64, {2}), upd(dtype::float64, {2}), out(dtype::float64, {4});
    const outcome o = capture([&] { vk::scatter(ctx, in.view(), idx.view(), upd.view(), out.view(), {0, index_policy::error, R::add, true}); });
    CHECK(o.threw);
    CHECK(o.code == error_code::unsupported);
    CHECK_THAT(o.what, Catch::Matchers::Contains("float64 add and mul reductions need shaderFloat64"));
    // min and max compare bits: no float64 arithmetic needed
    CHECK_FALSE(capture([&] { vk::scatter(ctx, in.view(), idx.view(), upd.view(), out.view(), {0, index_policy::error, R::max, false}); }).threw);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: without 64-bit atomics, 8-byte reductions take the deterministic path", "[vulkan]") {
    using R = strix::scatter_reduction;
    set_env("STRIX_VULKAN_NO_INT64_ATOMICS", "1");
    vk::context ctx;
    set_env("STRIX_VULKAN_NO_INT64_ATOMICS", nullptr);
    REQUIRE_FALSE(ctx.int64_atomics());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : {dtype::float64, dtype::int64, dtype::uint64, dtype::int32, dtype::uint8})
        for (const R red : {R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < 2; ++rep) {
                const std::uint64_t seed = case_seed(0x64a7ull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                scatter_nd_case(ctx, g, type, dtype::int64, rank, red, index_mode::valid, rep == 0, t);
            }
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Rejected calls

namespace {

/// Runs a call that breaks a rule on the CPU, on device views and through the host convenience
/// call: all three must throw the same strix::error and write nothing.
void rejected(vk::context& ctx, rng_t& g, layout& l, const std::vector<placed>& ops, std::size_t out, const cpu_call& cpu,
              const stream_call& dev, const host_call& host, error_code want) {
    const arenas mem = random_arenas(g, l);
    tally t;
    differential(ctx, mem, ops, out, cpu, dev, host, t);
    CHECK(t.failed_rules == 1);
    // the CPU's error, for the record
    arenas m = copy(mem);
    const outcome o = capture([&] { cpu(host_operands{m, ops}); });
    INFO(o.what);
    CHECK(o.code == want);
}

placed c_order(layout& l, rng_t& g, dtype t, const shape& s) { return l.place(g, t, s, strix::c_strides(s)); }

} // namespace

TEST_CASE("vulkan: calls that break a rule throw the CPU's error on device views, before recording anything", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x5e1ec7ull);
    const auto f32 = dtype::float32, i64 = dtype::int64;
    auto gather_cpu = [](strix::gather_desc d) { return [d](const host_operands& v) { strix::gather(v[0], v[1], v[2], d); }; };
    auto gather_dev = [](strix::gather_desc d) {
        return [d](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather(v[0], v[1], v[2], d); };
    };
    auto gather_host = [](strix::gather_desc d) { return [d](vk::context& c, const host_operands& v) { vk::gather(c, v[0], v[1], v[2], d); }; };
    auto run_gather = [&](dtype it, const shape& in, const shape& idx, dtype ot, const shape& out, strix::gather_desc d, error_code want,
                          bool overlap_input = false) {
        layout l;
        std::vector<placed> ops{c_order(l, g, f32, in), c_order(l, g, it, idx), c_order(l, g, ot, out)};
        if (overlap_input) ops[2].offset = ops[0].offset + 4;
        rejected(ctx, g, l, ops, 2, gather_cpu(d), gather_dev(d), gather_host(d), want);
    };
    SECTION("gather") {
        run_gather(i64, {3, 4}, {2}, f32, {4, 2}, {0}, error_code::rule_violation);                   // output shape
        run_gather(i64, {3, 4}, {2}, f32, {2, 4}, {2}, error_code::rule_violation);                   // axis
        run_gather(f32, {3, 4}, {2}, f32, {2, 4}, {0}, error_code::rule_violation);                   // index type
        run_gather(i64, {3, 4}, {2}, dtype::int32, {2, 4}, {0}, error_code::rule_violation);          // output type
        run_gather(i64, {3, 4}, {2, 2}, f32, {3, 2}, {1, 1}, error_code::rule_violation);             // leading index dims
        run_gather(i64, {0, 3}, {2}, f32, {2, 3}, {0}, error_code::rule_violation);                   // empty axis
        run_gather(i64, {3, 4}, {2}, f32, {2, 4}, {0}, error_code::bad_view, true);                   // output overlaps input
    }
    SECTION("an output that reaches an element twice") {
        layout l;
        std::vector<placed> ops{c_order(l, g, f32, {3, 4}), c_order(l, g, i64, {2}), l.place(g, f32, {2, 4}, strides_t{0, 1})};
        rejected(ctx, g, l, ops, 2, gather_cpu({}), gather_dev({}), gather_host({}), error_code::bad_view);
    }
    SECTION("join") {
        auto run_join = [&](const std::vector<shape>& ins, dtype t1, const shape& out, strix::join_desc d, error_code want) {
            layout l;
            std::vector<placed> ops;
            for (std::size_t k = 0; k < ins.size(); ++k) ops.push_back(c_order(l, g, k == 1 ? t1 : f32, ins[k]));
            ops.push_back(c_order(l, g, f32, out));
            const auto n = ins.size();
            rejected(
                ctx, g, l, ops, n, [&](const host_operands& v) { strix::join(v.inputs(n), v[n], d); },
                [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.join(std::span(v.data(), n), v[n], d); },
                [&](vk::context& c, const host_operands& v) { vk::join(c, v.inputs(n), v[n], d); }, want);
        };
        run_join({{2, 3}, {2, 4}}, f32, {4, 3}, {0}, error_code::rule_violation);          // off-axis sizes
        run_join({{2, 3}, {2, 4}}, f32, {2, 6}, {1}, error_code::rule_violation);          // output shape
        run_join({{2, 3}, {2, 4}}, dtype::uint32, {2, 7}, {-1}, error_code::rule_violation); // element types
        run_join({{2, 3}, {2, 3, 1}}, f32, {2, 6}, {1}, error_code::rule_violation);       // ranks
        run_join({{2, 3}}, f32, {2, 3}, {-3}, error_code::rule_violation);                 // axis
    }
    SECTION("pad") {
        auto run_pad = [&](dtype t, const shape& in, const shape& out, const strix::pad_desc& d) {
            layout l;
            std::vector<placed> ops{c_order(l, g, t, in), c_order(l, g, t, out)};
            rejected(
                ctx, g, l, ops, 1, [&](const host_operands& v) { strix::pad(v[0], v[1], d); },
                [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.pad(v[0], v[1], d); },
                [&](vk::context& c, const host_operands& v) { vk::pad(c, v[0], v[1], d); }, error_code::rule_violation);
        };
        run_pad(f32, {2, 3}, {4, 5}, {pad_mode::constant, {1}, {1}, 0.0});                  // pad counts
        run_pad(f32, {2, 3}, {2, 5}, {pad_mode::edge, {0, 1}, {-1, 1}, 0.0});              // negative pad
        run_pad(dtype::uint8, {2, 3}, {4, 5}, {pad_mode::constant, {1, 1}, {1, 1}, 300}); // value does not fit
        run_pad(dtype::int64, {2, 3}, {4, 5}, {pad_mode::constant, {1, 1}, {1, 1}, std::numeric_limits<double>::quiet_NaN()});
        run_pad(f32, {2, 0}, {2, 2}, {pad_mode::reflect, {0, 1}, {0, 1}, 0.0});            // nothing to fold
        run_pad(f32, {2, 3}, {4, 4}, {pad_mode::symmetric, {1, 1}, {1, 1}, 0.0});          // output shape
    }
    SECTION("scatter") {
        auto run_scatter = [&](const shape& in, dtype it, const shape& idx, dtype ut, const shape& upd, const shape& out, strix::scatter_desc d,
                               error_code want, bool overlap_updates = false) {
            layout l;
            std::vector<placed> ops{c_order(l, g, f32, in), c_order(l, g, it, idx), c_order(l, g, ut, upd), c_order(l, g, f32, out)};
            if (overlap_updates) ops[3].offset = ops[2].offset;
            rejected(
                ctx, g, l, ops, 3, [&](const host_operands& v) { strix::scatter(v[0], v[1], v[2], v[3], d); },
                [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter(v[0], v[1], v[2], v[3], d); },
                [&](vk::context& c, const host_operands& v) { vk::scatter(c, v[0], v[1], v[2], v[3], d); }, want);
        };
        run_scatter({3, 4}, i64, {2, 4}, f32, {2, 3}, {3, 4}, {0}, error_code::rule_violation);          // updates shape
        run_scatter({3, 4}, i64, {2, 5}, f32, {2, 5}, {3, 4}, {0}, error_code::rule_violation);          // indices larger
        run_scatter({3, 4}, i64, {2, 4}, dtype::int32, {2, 4}, {3, 4}, {0}, error_code::rule_violation); // updates type
        run_scatter({3, 4}, f32, {2, 4}, f32, {2, 4}, {3, 4}, {0}, error_code::rule_violation);          // index type
        run_scatter({3, 4}, i64, {2, 4}, f32, {2, 4}, {4, 3}, {0}, error_code::rule_violation);          // output shape
        run_scatter({3, 4}, i64, {2, 4}, f32, {2, 4}, {3, 4}, {2}, error_code::rule_violation);          // axis
        run_scatter({0, 4}, i64, {2, 4}, f32, {2, 4}, {0, 4}, {0}, error_code::rule_violation);          // empty axis
        run_scatter({2, 4}, i64, {2, 4}, f32, {2, 4}, {2, 4}, {0}, error_code::bad_view, true);          // output overlaps updates
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a stream that threw while recording stays usable", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xca11ull);
    host_tensor x(dtype::int16, {4, 5});
    for (std::size_t i = 0; i < x.bytes(); ++i) x.data()[i] = static_cast<std::byte>(g());
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor bad(ctx, dtype::int16, {3, 3});
    const vk::device_tensor good(ctx, dtype::int16, {6, 8});
    const strix::pad_desc d{pad_mode::edge, {1, 2}, {1, 1}, 0};
    vk::stream s(ctx);
    CHECK_THROWS_AS(s.pad(dx.view(), bad.view(), d), strix::error);
    CHECK(strix::vulkan::detail::counters_of(s).dispatches == 0);
    s.pad(dx.view(), good.view(), d);
    s.run();
    host_tensor got(dtype::int16, {6, 8});
    vk::download(ctx, good, got.view());
    const host_tensor want = strix::pad(x.view(), d);
    CHECK(same_bytes(got, want));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a submitted stream refuses more work", "[vulkan]") {
    vk::context ctx;
    const vk::device_tensor a(ctx, dtype::float32, {4, 3});
    const vk::device_tensor b(ctx, dtype::float32, {6, 3});
    const vk::device_tensor idx(ctx, dtype::int32, {2, 3});
    const vk::device_tensor upd(ctx, dtype::float32, {2, 3});
    const vk::device_tensor c(ctx, dtype::float32, {4, 3});
    const host_tensor zeros(dtype::int32, {2, 3});
    {
        const vk::device_tensor z = vk::upload(ctx, zeros.view());
        vk::stream s(ctx);
        s.pad(a.view(), b.view(), {pad_mode::constant, {1, 0}, {1, 0}, 0.0});
        s.submit();
        CHECK_THROWS_AS(s.submit(), strix::error);
        CHECK_THROWS_AS(s.pad(a.view(), b.view(), {pad_mode::edge, {1, 0}, {1, 0}, 0.0}), strix::error);
        const vk::device_view parts[] = {a.view(), upd.view()};
        CHECK_THROWS_AS(s.join(parts, b.view(), {0}), strix::error);
        CHECK_THROWS_AS(s.gather(a.view(), z.view(), b.view(), {0, 2}), strix::error);
        CHECK_THROWS_AS(s.scatter(a.view(), z.view(), upd.view(), c.view(), {0}), strix::error);
        s.wait();
        CHECK(strix::vulkan::detail::counters_of(s).dispatches == 1);
    }
    CHECK(ctx.validation_messages() == 0);
}

// A scatter in place does not pass through the check that refuses work after submit: it records
// into the submitted command buffer (the validation layer reports it) instead of throwing.
TEST_CASE("vulkan: a submitted stream refuses an in-place scatter", "[vulkan]") {
    vk::context ctx;
    host_tensor zeros(dtype::int32, {2, 3});
    const vk::device_tensor a(ctx, dtype::float32, {4, 3});
    const vk::device_tensor z = vk::upload(ctx, zeros.view());
    const vk::device_tensor upd(ctx, dtype::float32, {2, 3});
    {
        vk::stream s(ctx);
        s.submit();
        CHECK_THROWS_AS(s.scatter(a.view(), z.view(), upd.view(), a.view(), {0}), strix::error);
        s.wait();
    }
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Streams

namespace {

/// A host tensor of random bytes.
host_tensor random_tensor(rng_t& g, dtype t, const shape& s) {
    host_tensor h(t, s);
    for (std::size_t i = 0; i < h.bytes(); ++i) h.data()[i] = static_cast<std::byte>(g() >> 56);
    return h;
}

/// A host tensor of indices in range for an axis of size n (negative ones too when signed).
host_tensor index_tensor(rng_t& g, dtype t, const shape& s, std::int64_t n) {
    host_tensor h(t, s);
    for_each_coord(s, [&](const coords& c) { write_index(h.view(), c, valid_index(g, t, n)); });
    return h;
}

host_tensor read_back(vk::context& ctx, const vk::device_tensor& t) {
    host_tensor h(t.type(), t.sizes());
    vk::download(ctx, t, h.view());
    return h;
}

} // namespace

TEST_CASE("vulkan: split_views cuts a device view without copying; the pieces work as operands", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x5b11u);
    const host_tensor x = random_tensor(g, dtype::int16, {3, 7});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const std::int64_t sizes[] = {2, 0, 5};
    const auto parts = vk::split_views(dx.view(), sizes, {.axis = -1});
    REQUIRE(parts.size() == 3);
    CHECK(parts[1].sizes == shape{3, 0});
    CHECK(parts[2].address == dx.view().address + 2 * 2); // two int16 along the row
    const auto host_parts = strix::split(x.view(), sizes, {.axis = 1});
    for (std::size_t k = 0; k < 3; ++k) CHECK(same_bytes(vk::stream::download_view(ctx, parts[k]), host_parts[k]));
    // the same rules as on the host
    const std::int64_t bad[] = {2, 2};
    const outcome o = capture([&] { (void)vk::split_views(dx.view(), bad, {.axis = 1}); });
    CHECK(o.threw);
    CHECK_THAT(o.what, Catch::Matchers::StartsWith("strix::split: the sizes must add up to the input's size on the axis"));
}

TEST_CASE("vulkan: one stream runs a chain of operators, with barriers only where one depends on another", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x57eaull);
    const host_tensor x = random_tensor(g, dtype::float32, {5, 6});
    const vk::device_tensor dx = vk::upload(ctx, x.view());

    SECTION("pad, gather from the padded tensor, join, scatter into the join") {
        const strix::pad_desc pd{pad_mode::reflect, {1, 2}, {1, 1}, 0.0};
        const host_tensor idx = index_tensor(g, dtype::int64, {6}, 9);
        const host_tensor sidx = index_tensor(g, dtype::int32, {2, 6}, 12);
        const host_tensor upd = random_tensor(g, dtype::float32, {2, 6});
        // the CPU chain
        const host_tensor p = strix::pad(x.view(), pd);
        const host_tensor gt = strix::gather(p.view(), idx.view(), {1});
        const any_cview parts[] = {gt.view(), x.view()};
        host_tensor j = strix::join(parts, {0});
        strix::scatter(j.view(), sidx.view(), upd.view(), j.view(), {0});
        const host_tensor e = strix::pad(x.view(), {pad_mode::symmetric, {0, 3}, {2, 0}, 0.0});
        // the same chain in one stream
        const vk::device_tensor didx = vk::upload(ctx, idx.view()), dsidx = vk::upload(ctx, sidx.view()), dupd = vk::upload(ctx, upd.view());
        const vk::device_tensor dp(ctx, dtype::float32, {7, 9}), dg(ctx, dtype::float32, {7, 6}), dj(ctx, dtype::float32, {12, 6}),
            de(ctx, dtype::float32, {7, 9});
        vk::stream s(ctx);
        s.pad(dx.view(), dp.view(), pd);
        s.pad(dx.view(), de.view(), {pad_mode::symmetric, {0, 3}, {2, 0}, 0.0}); // independent of the first
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 0);
        s.gather(dp.view(), didx.view(), dg.view(), {1});
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 1); // reads what the first pad wrote
        const vk::device_view dparts[] = {dg.view(), dx.view()};
        s.join(dparts, dj.view(), {0});
        const int before_scatter = strix::vulkan::detail::counters_of(s).barriers;
        CHECK(before_scatter == 2); // the join reads what the gather wrote; its two parts need none between them
        s.scatter(dj.view(), dsidx.view(), dupd.view(), dj.view(), {0});
        CHECK(strix::vulkan::detail::counters_of(s).barriers > before_scatter);
        CHECK(strix::vulkan::detail::counters_of(s).dispatches == 7); // pad, pad, gather, two join parts, two scatter passes
        s.run();
        CHECK(same_bytes(read_back(ctx, dp), p));
        CHECK(same_bytes(read_back(ctx, dg), gt));
        CHECK(same_bytes(read_back(ctx, dj), j));
        CHECK(same_bytes(read_back(ctx, de), e));
    }
    SECTION("operators that share only what they read need no barrier") {
        const host_tensor idx = index_tensor(g, dtype::uint32, {3, 2}, 6);
        const vk::device_tensor didx = vk::upload(ctx, idx.view());
        const vk::device_tensor a(ctx, dtype::float32, {7, 8}), b(ctx, dtype::float32, {5, 3, 2}), c(ctx, dtype::float32, {5, 6}),
            d(ctx, dtype::float32, {5, 7});
        vk::stream s(ctx);
        s.pad(dx.view(), a.view(), {pad_mode::edge, {1, 1}, {1, 1}, 0.0});
        s.gather(dx.view(), didx.view(), b.view(), {1});
        const vk::device_view one[] = {dx.view()};
        s.join(one, c.view(), {1});
        s.pad(dx.view(), d.view(), {pad_mode::constant, {0, 1}, {0, 0}, 2.5});
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 0);
        CHECK(strix::vulkan::detail::counters_of(s).dispatches == 4);
        s.run();
        CHECK(same_bytes(read_back(ctx, a), strix::pad(x.view(), {pad_mode::edge, {1, 1}, {1, 1}, 0.0})));
        CHECK(same_bytes(read_back(ctx, b), strix::gather(x.view(), idx.view(), {1})));
        CHECK(same_bytes(read_back(ctx, c), x));
        CHECK(same_bytes(read_back(ctx, d), strix::pad(x.view(), {pad_mode::constant, {0, 1}, {0, 0}, 2.5})));
    }
    SECTION("overwriting what an earlier operator reads waits for it") {
        const host_tensor y = random_tensor(g, dtype::float32, {5, 6});
        const vk::device_tensor dy = vk::upload(ctx, y.view());
        const vk::device_tensor a(ctx, dtype::float32, {6, 6});
        vk::stream s(ctx);
        s.pad(dx.view(), a.view(), {pad_mode::symmetric, {1, 0}, {0, 0}, 0.0}); // reads x
        const vk::device_view one[] = {dy.view()};
        s.join(one, dx.view(), {0}); // then overwrites x
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 1);
        s.run();
        CHECK(same_bytes(read_back(ctx, a), strix::pad(x.view(), {pad_mode::symmetric, {1, 0}, {0, 0}, 0.0})));
        CHECK(same_bytes(read_back(ctx, dx), y));
    }
    SECTION("submit and wait separately") {
        const vk::device_tensor a(ctx, dtype::float32, {5, 10});
        vk::stream s(ctx);
        s.pad(dx.view(), a.view(), {pad_mode::reflect, {0, 4}, {0, 0}, 0.0});
        s.submit();
        s.wait();
        CHECK(same_bytes(read_back(ctx, a), strix::pad(x.view(), {pad_mode::reflect, {0, 4}, {0, 0}, 0.0})));
    }
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// A C-order view of `sizes` elements of `t` at byte `offset` of a device tensor's buffer.
vk::device_view at_byte(const vk::device_tensor& buf, std::int64_t offset, dtype t, const shape& sizes) {
    return {buf.storage().handle(), buf.storage().address() + static_cast<std::uint64_t>(offset), t, sizes, strix::c_strides(sizes)};
}

} // namespace

TEST_CASE("vulkan: barriers follow the bytes operators touch, not the buffers", "[vulkan]") {
    const bool small = GENERATE(true, false);
    vk::context ctx(storage_options(small));
    rng_t g(0xb7e5ull);
    // one buffer of 64 bytes holding several uint8 tensors; a, b are sources elsewhere
    const host_tensor initial = random_tensor(g, dtype::uint8, {64});
    const host_tensor a = random_tensor(g, dtype::uint8, {10}), b = random_tensor(g, dtype::uint8, {10});
    const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
    const vk::device_tensor buf = vk::upload(ctx, initial.view());
    host_tensor want(dtype::uint8, {64});
    std::memcpy(want.data(), initial.data(), 64);
    auto cpu_view = [&](std::int64_t offset, const shape& sizes) { return any_view(want.data() + offset, dtype::uint8, sizes); };
    const strix::pad_desc edge{pad_mode::edge, {1}, {1}, 0};
    vk::stream s(ctx);
    SECTION("writes to neighbouring bytes, then a read of the first one's bytes") {
        s.pad(da.view(), at_byte(buf, 0, dtype::uint8, {12}), edge);  // bytes [0, 12)
        s.pad(db.view(), at_byte(buf, 12, dtype::uint8, {12}), edge); // bytes [12, 24): no hazard
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 0);
        const vk::device_view one[] = {at_byte(buf, 11, dtype::uint8, {2})}; // reads bytes 11 and 12
        s.join(one, at_byte(buf, 30, dtype::uint8, {2}), {0});
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 1);
        strix::pad(a.view(), cpu_view(0, {12}), edge);
        strix::pad(b.view(), cpu_view(12, {12}), edge);
        const any_cview cone[] = {cpu_view(11, {2})};
        strix::join(cone, cpu_view(30, {2}), {0});
    }
    SECTION("a write that overlaps an earlier write by one byte comes after it") {
        s.pad(da.view(), at_byte(buf, 0, dtype::uint8, {12}), edge);                            // [0, 12)
        s.pad(db.view(), at_byte(buf, 11, dtype::uint8, {12}), {pad_mode::reflect, {2}, {0}, 0}); // [11, 23)
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 1);
        strix::pad(a.view(), cpu_view(0, {12}), edge);
        strix::pad(b.view(), cpu_view(11, {12}), {pad_mode::reflect, {2}, {0}, 0});
    }
    SECTION("a write over bytes an earlier operator reads waits for the read") {
        const vk::device_view one[] = {at_byte(buf, 40, dtype::uint8, {8})};
        s.join(one, at_byte(buf, 0, dtype::uint8, {8}), {0}); // reads [40, 48)
        s.pad(da.view(), at_byte(buf, 36, dtype::uint8, {12}), edge); // writes [36, 48)
        CHECK(strix::vulkan::detail::counters_of(s).barriers == 1);
        const any_cview cone[] = {cpu_view(40, {8})};
        strix::join(cone, cpu_view(0, {8}), {0});
        strix::pad(a.view(), cpu_view(36, {12}), edge);
    }
    s.run();
    CHECK(same_bytes(read_back(ctx, buf), want));
    CHECK(ctx.validation_messages() == 0);
}

// The copies of a join write disjoint parts of one output: nothing orders them.
TEST_CASE("vulkan: the parts of one join need no barrier between them", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x701dull);
    const host_tensor x = random_tensor(g, dtype::uint16, {3, 4});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor out(ctx, dtype::uint16, {3, 12});
    vk::stream s(ctx);
    const vk::device_view parts[] = {dx.view(), dx.view(), dx.view()};
    s.join(parts, out.view(), {1});
    CHECK(strix::vulkan::detail::counters_of(s).barriers == 0);
    s.run();
    const any_cview hparts[] = {x.view(), x.view(), x.view()};
    CHECK(same_bytes(read_back(ctx, out), strix::join(hparts, {1})));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: contiguous rows move in 16-byte elements, contiguous outputs in 16-byte chunks", "[vulkan]") {
    const bool small = GENERATE(true, false);
    vk::context ctx(storage_options(small));
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    rng_t g(0xc0a1e5ceull);
    for (const dtype type : all_types) {
        const std::int64_t e = static_cast<std::int64_t>(strix::size_of(type));
        INFO(strix::name(type));
        // a join of rows of 64 bytes along the outer axis: each input's plan is widened
        const host_tensor a = random_tensor(g, type, {5, 64 / e}), b = random_tensor(g, type, {3, 64 / e});
        const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
        const vk::device_tensor joined(ctx, type, {8, 64 / e});
        // a pad whose output ([4, 12, 16]) is a whole number of 16-byte chunks
        const host_tensor x = random_tensor(g, type, {4, 6, 10});
        const vk::device_tensor dx = vk::upload(ctx, x.view());
        const strix::pad_desc pd{strix::pad_mode::reflect, {0, 3, 3}, {0, 3, 3}, {}};
        const vk::device_tensor padded(ctx, type, {4, 12, 16});
        // a gather along the last axis (indices read per element) into a chunked output
        const host_tensor idx = index_tensor(g, dtype::int32, {8}, 10);
        const vk::device_tensor didx = vk::upload(ctx, idx.view());
        const vk::device_tensor gathered(ctx, type, {4, 6, 8});
        // long rows whose middle is copied from a run at every misalignment (the shifted loads)
        const host_tensor w = random_tensor(g, type, {3, 5, 67});
        const vk::device_tensor dw = vk::upload(ctx, w.view());
        const strix::pad_desc wd{strix::pad_mode::symmetric, {0, 1, 5}, {0, 2, 8}, {}};
        const vk::device_tensor wide_pad(ctx, type, {3, 8, 80});
        // a pad whose output ([3, 7, 11], an odd count) is not: one element per invocation
        const vk::device_tensor odd(ctx, type, {3, 7, 11});
        const strix::pad_desc od{strix::pad_mode::edge, {-1, 1, 0}, {0, 0, 1}, {}};
        vk::stream s(ctx);
        const vk::device_view parts[] = {da.view(), db.view()};
        s.join(parts, joined.view(), {0});
        CHECK(strix::vulkan::detail::counters_of(s).widened == 2);
        s.pad(dx.view(), padded.view(), pd);
        s.gather(dx.view(), didx.view(), gathered.view(), {2});
        CHECK(strix::vulkan::detail::counters_of(s).chunked == 2);
        s.pad(dx.view(), odd.view(), od);
        CHECK(strix::vulkan::detail::counters_of(s).chunked == 2);
        CHECK(strix::vulkan::detail::counters_of(s).widened == 2);
        s.pad(dw.view(), wide_pad.view(), wd);
        CHECK(strix::vulkan::detail::counters_of(s).chunked == 3);
        s.run();
        const any_cview hparts[] = {a.view(), b.view()};
        CHECK(same_bytes(read_back(ctx, joined), strix::join(hparts, {0})));
        CHECK(same_bytes(read_back(ctx, padded), strix::pad(x.view(), pd)));
        CHECK(same_bytes(read_back(ctx, gathered), strix::gather(x.view(), idx.view(), {2})));
        CHECK(same_bytes(read_back(ctx, odd), strix::pad(x.view(), od)));
        CHECK(same_bytes(read_back(ctx, wide_pad), strix::pad(w.view(), wd)));
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: many work groups of unrolled 16-byte moves, chunks and copies, with ragged ends", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x5eed16ull);
    // sizes that leave a partial group and a partial unroll at the end
    const host_tensor x = random_tensor(g, dtype::float32, {3, 1001, 37});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const host_tensor y = random_tensor(g, dtype::float32, {5, 1001, 37});
    const vk::device_tensor dy = vk::upload(ctx, y.view());
    const vk::device_tensor copied(ctx, dtype::float32, {3, 1001, 37});   // 111111 elements: not whole chunks, a move
    const vk::device_tensor joined(ctx, dtype::float32, {8, 1001, 37});   // rows of 148 bytes: widened to 4 bytes only
    const host_tensor z = random_tensor(g, dtype::float16, {3, 700, 96});
    const vk::device_tensor dz = vk::upload(ctx, z.view());
    const vk::device_tensor zcopy(ctx, dtype::float16, {3, 700, 96});     // 16-byte copy shader, 25200 chunks
    const vk::device_tensor zjoin(ctx, dtype::float16, {6, 700, 96});     // widened to 16 bytes
    const strix::pad_desc pd{strix::pad_mode::wrap, {0, 5, 3}, {0, 4, 5}, {}};
    const vk::device_tensor zpad(ctx, dtype::float16, {3, 709, 104});     // chunks of 8 halves
    vk::stream s(ctx);
    s.copy(dx.view(), copied.view());
    const vk::device_view xy[] = {dx.view(), dy.view()};
    s.join(xy, joined.view(), {0});
    s.copy(dz.view(), zcopy.view());
    const vk::device_view zz[] = {dz.view(), dz.view()};
    s.join(zz, zjoin.view(), {0});
    s.pad(dz.view(), zpad.view(), pd);
    CHECK(strix::vulkan::detail::counters_of(s).plain_copies == 1);
    s.run();
    CHECK(same_bytes(read_back(ctx, copied), x));
    const any_cview hxy[] = {x.view(), y.view()};
    CHECK(same_bytes(read_back(ctx, joined), strix::join(hxy, {0})));
    CHECK(same_bytes(read_back(ctx, zcopy), z));
    const any_cview hzz[] = {z.view(), z.view()};
    CHECK(same_bytes(read_back(ctx, zjoin), strix::join(hzz, {0})));
    CHECK(same_bytes(read_back(ctx, zpad), strix::pad(z.view(), pd)));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: long rows of 16-byte elements, located once per row", "[vulkan]") {
    // an invocation's unrolled 16-byte elements lie 256 apart: in one row when the row is long
    // enough (its terms and per-row index found once), past the row's end otherwise
    vk::context ctx;
    rng_t g(0x10ca7edull);
    // row gathers: rows of 4400 bytes (275 elements: the unrolled ones straddle rows) and of 16 KiB
    for (const std::int64_t cols : {1100, 4096}) {
        INFO("columns " << cols);
        const host_tensor table = random_tensor(g, dtype::float32, {40, cols});
        const vk::device_tensor dtable = vk::upload(ctx, table.view());
        for (const dtype it : {dtype::int32, dtype::int64}) {
            host_tensor idx = index_tensor(g, it, {37}, 40);
            write_index(idx.view(), coords{5}, static_cast<std::uint64_t>(-3)); // a negative index counts from the end
            const vk::device_tensor didx = vk::upload(ctx, idx.view());
            const vk::device_tensor out(ctx, dtype::float32, {37, cols});
            vk::stream s(ctx);
            s.gather(dtable.view(), didx.view(), out.view(), {0});
            CHECK(strix::vulkan::detail::counters_of(s).widened == 1);
            s.run();
            CHECK(same_bytes(read_back(ctx, out), strix::gather(table.view(), idx.view(), {0})));
        }
        // an index out of range in the middle of the rows is still reported
        host_tensor bad = index_tensor(g, dtype::int64, {37}, 40);
        write_index(bad.view(), coords{30}, 40);
        const vk::device_tensor dbad = vk::upload(ctx, bad.view());
        const vk::device_tensor out(ctx, dtype::float32, {37, cols});
        const auto cpu = capture([&] { (void)strix::gather(table.view(), bad.view(), {0}); });
        REQUIRE(cpu.threw);
        vk::stream s(ctx);
        s.gather(dtable.view(), dbad.view(), out.view(), {0});
        const auto gpu = capture([&] { s.run(); });
        CHECK(gpu.threw);
        CHECK(gpu.what == cpu.what);
    }
    // pads of the outer axes over rows of exactly 256 elements: mapped outer terms and fill rows
    const host_tensor x = random_tensor(g, dtype::float32, {3, 4, 1024});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    for (const pad_mode mode : {pad_mode::constant, pad_mode::reflect, pad_mode::wrap}) {
        INFO("pad mode " << static_cast<int>(mode));
        const strix::pad_desc pd{mode, {1, 2, 0}, {2, 1, 0}, strix::scalar(2.5)};
        const vk::device_tensor padded(ctx, dtype::float32, {6, 7, 1024});
        vk::stream s(ctx);
        s.pad(dx.view(), padded.view(), pd);
        CHECK(strix::vulkan::detail::counters_of(s).widened == 1);
        s.run();
        CHECK(same_bytes(read_back(ctx, padded), strix::pad(x.view(), pd)));
    }
    // a join along the innermost axis of rows of 8 KiB per input
    const host_tensor a = random_tensor(g, dtype::float32, {3, 2048}), b = random_tensor(g, dtype::float32, {3, 2048});
    const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
    const vk::device_tensor joined(ctx, dtype::float32, {3, 4096});
    vk::stream s(ctx);
    const vk::device_view parts[] = {da.view(), db.view()};
    s.join(parts, joined.view(), {1});
    CHECK(strix::vulkan::detail::counters_of(s).widened == 2);
    s.run();
    const any_cview hparts[] = {a.view(), b.view()};
    CHECK(same_bytes(read_back(ctx, joined), strix::join(hparts, {1})));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: pad folds computed in 32-bit arithmetic equal the tables and the CPU", "[vulkan]") {
    // every mode, on chunks that cross row ends (rows of VEC + 1 elements and more), pads wider
    // than a fold's period, a single-element reflect, crops, mapped outer axes, and an output
    // that is no whole number of chunks (one element per invocation); each on the default
    // path (32-bit, folds computed) and on the 64-bit one (folds read from tables)
    // pads wider than one period of the input are left to the tables (the shader's fold takes no
    // division): `folds` lists the modes folded in the shader
    const std::vector<pad_mode> all_modes = {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap};
    struct pad_geometry {
        dtype type;
        shape in;
        shape start, end;
        std::vector<pad_mode> folds;
    };
    const pad_geometry cases[] = {
        {dtype::float32, {2, 3, 3}, {0, 1, 2}, {0, 2, 2}, all_modes},  // rows of 7 float32: chunks of 4 cross row ends
        {dtype::float32, {4, 2}, {3, 5}, {9, 7}, {pad_mode::constant, pad_mode::edge}}, // several periods
        {dtype::float32, {3, 1}, {0, 4}, {0, 3}, all_modes}, // one element: every fold repeats it, as edge does
        {dtype::float32, {6, 10}, {-1, 2}, {1, -3}, all_modes},         // crops; 54 elements: one per invocation
        {dtype::float32, {3, 4, 8}, {1, 2, 3}, {2, 1, 1}, all_modes},   // every axis mapped, fill rows
        {dtype::float32, {3, 5}, {2, 5}, {1, 5}, all_modes},            // pads of exactly one period (wrap)
        {dtype::int8, {2, 20}, {1, 1}, {1, 3}, all_modes},              // chunks of 16 over rows of 24
        {dtype::float64, {2, 3}, {0, 2}, {0, 2}, all_modes},            // chunks of 2 over rows of 7
        {dtype::float16, {4, 5}, {0, 3}, {0, 4}, all_modes},            // chunks of 8 over rows of 12
    };
    rng_t g(0xf01d5ull);
    for (const bool wide : {false, true}) {
        vk::context_options o;
        o.wide_arithmetic = wide;
        vk::context ctx(o);
        for (const auto& c : cases) {
            const host_tensor x = random_tensor(g, c.type, c.in);
            const vk::device_tensor dx = vk::upload(ctx, x.view());
            int mapped = 0;
            for (int i = 0; i < c.in.rank; ++i) mapped += c.start[i] != 0 || c.end[i] != 0 ? 1 : 0;
            for (const pad_mode mode : all_modes) {
                const bool folded = !wide && std::find(c.folds.begin(), c.folds.end(), mode) != c.folds.end();
                const strix::pad_desc d{mode, c.start, c.end, strix::scalar(3)};
                INFO("wide " << wide << ", " << strix::name(c.type) << " " << str(c.in) << " mode " << static_cast<int>(mode) << ", start "
                             << str(c.start) << ", end " << str(c.end));
                const host_tensor want = strix::pad(x.view(), d);
                const vk::device_tensor out(ctx, c.type, want.sizes());
                vk::stream s(ctx);
                s.pad(dx.view(), out.view(), d);
                CHECK(strix::vulkan::detail::counters_of(s).narrow == (wide ? 0 : 1));
                CHECK(strix::vulkan::detail::counters_of(s).folded == (folded ? mapped : 0));
                s.run();
                CHECK(same_bytes(read_back(ctx, out), want));
            }
        }
        CHECK(ctx.validation_messages() == 0);
    }
}

TEST_CASE("vulkan: the 32-bit path is taken only where every offset fits in an int", "[vulkan]") {
    namespace plan = strix::plan;
    constexpr std::int64_t limit = std::int64_t{1} << 31;
    // [3, 8] float32 rows; the outer stride decides whether the source offsets reach 2^31
    auto rows = [](std::int64_t outer_src) {
        plan::move_plan p;
        p.rank = 2;
        p.elem = 4;
        p.dims[0].size = 3;
        p.dims[0].dst = 32;
        p.dims[0].src = outer_src;
        p.dims[1].size = 8;
        p.dims[1].dst = 4;
        p.dims[1].src = 4;
        return p;
    };
    const std::int64_t edge = (limit - 28) / 2; // 2 * edge + 7 * 4 == 2^31
    CHECK(vk::detail::narrow_fits(rows(edge - 1), 4));
    CHECK_FALSE(vk::detail::narrow_fits(rows(edge), 4));
    CHECK(vk::detail::narrow_fits(rows(-(edge - 1)), 4)); // negative strides count by their size
    CHECK_FALSE(vk::detail::narrow_fits(rows(-edge), 4));
    CHECK_FALSE(vk::detail::narrow_fits(rows(limit * 4), 1)); // no overflow on huge strides
    auto p = rows(32);
    CHECK(vk::detail::narrow_fits(p, 4));
    CHECK(vk::detail::narrow_fits(p, 8));
    CHECK_FALSE(vk::detail::narrow_fits(p, 16)); // rows of 8 elements: a chunk of 16 would cross two row ends
    p.dims[0].dst = edge;                         // output offsets
    CHECK_FALSE(vk::detail::narrow_fits(p, 1));
    p = rows(32);
    p.dims[0].key = limit / 2; // gather-table keys (2 * key == 2^31)
    CHECK_FALSE(vk::detail::narrow_fits(p, 1));
    p.dims[0].key = limit / 2 - 1;
    CHECK(vk::detail::narrow_fits(p, 1));
    // a padded dimension counts the terms of its source coordinates [0, hi - lo) (not its fill)
    p = rows(32);
    auto& m = p.dims[1];
    m.padded = true;
    m.fold = pad_mode::reflect;
    m.lo = 1;
    m.hi = 3; // terms 0 and src
    m.src = 20;
    CHECK(vk::detail::narrow_fits(p, 4));
    m.src = limit - 65; // with the outer axis's 2 * 32
    CHECK(vk::detail::narrow_fits(p, 4));
    m.src = limit - 64;
    CHECK_FALSE(vk::detail::narrow_fits(p, 4));
    m.src = -(limit - 64);
    CHECK_FALSE(vk::detail::narrow_fits(p, 4));
    // fewer than 2^31 elements
    plan::move_plan big;
    big.rank = 1;
    big.elem = 1;
    big.dims[0].size = limit - 1;
    big.dims[0].dst = big.dims[0].src = 1;
    CHECK(vk::detail::narrow_fits(big, 1));
    big.dims[0].size = limit;
    CHECK_FALSE(vk::detail::narrow_fits(big, 1));

    // the shader folds a padded dimension exactly where its fold (move.comp's fold(), modelled
    // by shader_fold) gives every padded coordinate the plan's own term: every geometry of up
    // to 15 padded coordinates on each side of 1 to 6 source elements, in every mode
    const pad_mode modes[] = {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap};
    auto padded = [](pad_mode mode, std::int64_t before, std::int64_t n, std::int64_t after) {
        plan::move_dim d;
        d.padded = true;
        d.fold = mode;
        d.src = 12;
        d.lo = before;
        d.hi = before + n;
        d.size = before + n + after;
        return d;
    };
    std::int64_t folded = 0, tables = 0;
    for (const pad_mode mode : modes) {
        for (std::int64_t n = 1; n <= 6; ++n) {
            for (std::int64_t before = 0; before <= 15; ++before) {
                for (std::int64_t after = 0; after <= 15; ++after) {
                    const plan::move_dim d = padded(mode, before, n, after);
                    for (const pad_mode as : modes) { // the shader's fold `as` for a dimension padded in `mode`
                        bool exact = true;
                        for (std::int64_t o = 0; o < d.size; ++o) {
                            if (o >= d.lo && o < d.hi) continue;
                            const auto s = vk::detail::shader_fold(as, o - d.lo, n);
                            exact = exact && s && (*s < 0 ? plan::no_source : *s * d.src) == d.source(o);
                        }
                        INFO("mode " << static_cast<int>(mode) << " folded as " << static_cast<int>(as) << ", pads " << before << " + " << n << " + " << after);
                        // another fold counts only where it has to (a one-element source, which every
                        // fold but constant repeats): otherwise it may match by accident, as
                        // symmetric and reflect do on pads of one element
                        if (as == mode || (n == 1 && mode != pad_mode::constant && as != pad_mode::constant)) {
                            CHECK(vk::detail::shader_folds(d, as) == exact);
                        } else {
                            CHECK_FALSE(vk::detail::shader_folds(d, as));
                        }
                        if (as == mode) (exact ? folded : tables) += 1;
                    }
                }
            }
        }
    }
    CHECK(folded > 0);
    CHECK(tables > 0); // pads beyond one period take the tables
    for (const pad_mode mode : modes) {
        plan::move_plan q = rows(32);
        q.dims[1] = padded(mode, 4, 5, 5); // within one period of 5 elements in every mode
        CHECK(vk::detail::plan_fold(q) == mode);
        q.dims[0] = padded(mode, 1, 2, 1);
        CHECK(vk::detail::plan_fold(q) == mode); // every padded dimension folds alike
        q.dims[0] = padded(mode, 7, 3, 8);
        const bool beyond_a_period = vk::detail::plan_fold(q).has_value();
        CHECK(beyond_a_period == (mode == pad_mode::constant || mode == pad_mode::edge));
    }
    CHECK_FALSE(vk::detail::plan_fold(rows(32)).has_value()); // nothing padded
    plan::move_plan mixed = rows(32);
    mixed.dims[0] = padded(pad_mode::wrap, 1, 3, 1);
    mixed.dims[1] = padded(pad_mode::reflect, 1, 8, 1);
    CHECK_FALSE(vk::detail::plan_fold(mixed).has_value());
    plan::move_dim huge;
    huge.padded = true;
    huge.size = huge.hi = std::int64_t{1} << 30; // too many coordinates to fold in an int
    CHECK_FALSE(vk::detail::shader_folds(huge));

    // the narrow path divides by multiplying: exact for every dividend below 2^31
    rng_t g(0xd171de5ull);
    std::vector<std::int64_t> divisors = {1, 2, 3, 5, 7, 10, 262, 641, 1024, 1139, 65537, 1000003, (limit >> 1) - 1, (limit >> 1) + 1, limit - 2, limit - 1};
    for (int k = 0; k < 40; ++k) divisors.push_back(uni(g, 1, limit - 1));
    std::int64_t wrong = 0;
    for (const std::int64_t d : divisors) {
        const auto [m, sh] = vk::detail::divider(d);
        std::vector<std::int64_t> xs = {0, 1, d - 1, d, d + 1, limit - 1, limit - 2, (limit - 1) / d * d, (limit - 1) / d * d - 1};
        for (int k = 0; k < 2000; ++k) {
            const std::int64_t q = uni(g, 0, (limit - 1) / d);
            xs.push_back(q * d + (k % 3 == 0 ? 0 : k % 3 == 1 ? d - 1 : uni(g, 0, d - 1)));
        }
        for (const std::int64_t x : xs) {
            if (x < 0 || x >= limit) continue;
            const std::uint64_t got = (static_cast<std::uint64_t>(x) * m) >> sh;
            if (got != static_cast<std::uint64_t>(x / d)) {
                if (++wrong < 5) FAIL_CHECK("x " << x << " / d " << d << ": " << got << ", not " << x / d);
            }
        }
    }
    CHECK(wrong == 0);
}

TEST_CASE("vulkan: stream::copy runs contiguous views as the 16-byte copy shader and any others as a move", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xc0b1ull);
    const host_tensor x = random_tensor(g, dtype::float16, {6, 40});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor plain(ctx, dtype::float16, {6, 40});
    const vk::device_tensor transposed(ctx, dtype::float16, {40, 6});
    vk::device_view tv = transposed.view(); // the same shape as x, written in Fortran order
    tv.sizes = {6, 40};
    tv.strides = {1, 6};
    vk::stream s(ctx);
    s.copy(dx.view(), plain.view());
    CHECK(strix::vulkan::detail::counters_of(s).plain_copies == 1);
    s.copy(dx.view(), tv);
    CHECK(strix::vulkan::detail::counters_of(s).plain_copies == 1);
    s.run();
    CHECK(same_bytes(read_back(ctx, plain), x));
    host_tensor expect(dtype::float16, {40, 6});
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 40; ++j) std::memcpy(expect.data() + (j * 6 + i) * 2, x.data() + (i * 40 + j) * 2, 2);
    CHECK(same_bytes(read_back(ctx, transposed), expect));
    // the rules: same shape and type, no overlap
    vk::stream bad(ctx);
    const vk::device_tensor other(ctx, dtype::float32, {6, 40});
    CHECK_THROWS_WITH(bad.copy(dx.view(), other.view()), Catch::Contains("strix::copy") && Catch::Contains("[6,40] float16") &&
                                                              Catch::Contains("[6,40] float32"));
    vk::device_view shifted = dx.view();
    shifted.address += 2;
    shifted.sizes = {6, 39};
    vk::device_view head = dx.view();
    head.sizes = {6, 39};
    CHECK_THROWS_WITH(bad.copy(head, shifted), Catch::Contains("strix::copy") && Catch::Contains("overlap"));
    CHECK(strix::vulkan::detail::counters_of(bad).dispatches == 0);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an out-of-range index in a stream of several operators names the offending call", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xbad1ull);
    const host_tensor x = random_tensor(g, dtype::int8, {4, 5});
    host_tensor good = index_tensor(g, dtype::int64, {3}, 4);
    host_tensor bad = index_tensor(g, dtype::int32, {2, 2}, 5);
    write_index(bad.view(), coords{1, 0}, static_cast<std::uint64_t>(-6));
    const vk::device_tensor dx = vk::upload(ctx, x.view()), dgood = vk::upload(ctx, good.view()), dbad = vk::upload(ctx, bad.view());
    const vk::device_tensor a(ctx, dtype::int8, {3, 5}), b(ctx, dtype::int8, {4, 2, 2});
    const auto cpu = capture([&] { (void)strix::gather(x.view(), bad.view(), {1}); });
    REQUIRE(cpu.threw);
    REQUIRE(cpu.code == error_code::index_out_of_range);
    vk::stream s(ctx);
    s.gather(dx.view(), dgood.view(), a.view(), {0});
    s.gather(dx.view(), dbad.view(), b.view(), {-1});
    const auto gpu = capture([&] { s.run(); });
    CHECK(gpu.threw);
    CHECK(gpu.code == error_code::index_out_of_range);
    CHECK(gpu.what == cpu.what);
    CHECK(same_bytes(read_back(ctx, a), strix::gather(x.view(), good.view(), {0}))); // the good call ran
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Tensors larger than one storage-buffer binding

TEST_CASE("vulkan: tensors larger than maxStorageBufferRange", "[vulkan]") {
    vk::context ctx;
    INFO("maxStorageBufferRange " << ctx.device().max_storage_buffer_range);
    // two float32 halves of 70 MiB joined into 140 MiB, more than lavapipe's 128 MiB range
    const std::int64_t cols = 1024, rows = 17920;
    host_tensor a(dtype::float32, {rows, cols}), b(dtype::float32, {rows, cols});
    auto* pa = a.as<float>();
    auto* pb = b.as<float>();
    for (std::int64_t i = 0; i < rows * cols; ++i) {
        pa[i] = static_cast<float>(i);
        pb[i] = -static_cast<float>(i) - 0.5f;
    }
    const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
    const vk::device_tensor joined(ctx, dtype::float32, {2 * rows, cols});
    const any_cview parts[] = {a.view(), b.view()};
    host_tensor want = strix::join(parts, {0});

    // rows near the end, beyond the first 128 MiB: gathered and scattered into, in place
    rng_t g(0xb16ull);
    host_tensor rows_idx(dtype::int64, {3});
    const std::int64_t picks[] = {-1, 2 * rows - 3000, 40000 - 2 * rows};
    std::memcpy(rows_idx.data(), picks, sizeof picks);
    host_tensor upd = random_tensor(g, dtype::float32, {2, cols});
    host_tensor sidx(dtype::uint32, {2, cols});
    for (std::int64_t i = 0; i < 2 * cols; ++i) sidx.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(2 * rows - 1 - (i % 7) * 500);
    const vk::device_tensor drows = vk::upload(ctx, rows_idx.view()), dupd = vk::upload(ctx, upd.view()), dsidx = vk::upload(ctx, sidx.view());
    const vk::device_tensor picked(ctx, dtype::float32, {3, cols});
    {
        vk::stream s(ctx);
        const vk::device_view dparts[] = {da.view(), db.view()};
        s.join(dparts, joined.view(), {0});
        s.gather(joined.view(), drows.view(), picked.view(), {0});
        s.scatter(joined.view(), dsidx.view(), dupd.view(), joined.view(), {0});
        s.run();
    }
    const host_tensor want_picked = strix::gather(want.view(), rows_idx.view(), {0});
    strix::scatter(want.view(), sidx.view(), upd.view(), want.view(), {0});
    CHECK(same_bytes(read_back(ctx, picked), want_picked));
    const host_tensor got = read_back(ctx, joined);
    REQUIRE(got.bytes() == want.bytes());
    CHECK(got.bytes() > (128u << 20));
    // the last element first (the one a 32-bit range would miss), then everything
    CHECK(std::memcmp(got.data() + got.bytes() - 4, want.data() + want.bytes() - 4, 4) == 0);
    CHECK(same_bytes(got, want));
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Devices, pipeline cache, threads, leaks

namespace {

/// Sets (or, with nullptr, clears) an environment variable for one scope, then restores it.
class env_scope {
public:
    env_scope(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        set_env(name, value);
    }
    ~env_scope() { set_env(name_, old_ ? old_->c_str() : nullptr); }
    env_scope(const env_scope&) = delete;
    env_scope& operator=(const env_scope&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

/// A small gather, pad and scatter on `ctx`, returning their results (for comparing contexts).
std::vector<host_tensor> sample_ops(vk::context& ctx) {
    rng_t g(0x5a3bull);
    const host_tensor x = random_tensor(g, dtype::float16, {4, 3, 5});
    const host_tensor idx = index_tensor(g, dtype::int64, {2, 2}, 3);
    const host_tensor sidx = index_tensor(g, dtype::uint64, {4, 3, 2}, 5);
    const host_tensor upd = random_tensor(g, dtype::float16, {4, 3, 2});
    std::vector<host_tensor> r;
    r.emplace_back(dtype::float16, shape{4, 2, 2, 5});
    vk::gather(ctx, x.view(), idx.view(), r.back().view(), {1});
    r.emplace_back(dtype::float16, shape{6, 3, 9});
    vk::pad(ctx, x.view(), r.back().view(), {pad_mode::symmetric, {1, 0, 4}, {1, 0, 0}, 0.0});
    r.emplace_back(dtype::float16, shape{4, 3, 5});
    vk::scatter(ctx, x.view(), sidx.view(), upd.view(), r.back().view(), {2});
    return r;
}

} // namespace

TEST_CASE("vulkan: plain scatter claims its targets in one atomic per update, fusing the copy where it can", "[vulkan]") {
    // the claim path (reduce.comp, PHASE 4 and 5) against the CPU, and the path it replaces on
    // the same calls: random bytes (NaN payloads included), many duplicates or none, in and out
    // of place, strided outputs whose gaps must stay untouched, outputs that share their first
    // and last 32-bit words with other bytes, 1-, 2-, 4- and 8-byte elements, and too many
    // slots per update
    const bool claims = GENERATE(true, false);
    const env_scope no_claims("STRIX_VULKAN_NO_CLAIMS", claims ? nullptr : "1");
    vk::context ctx;
    CHECK(ctx.scatter_claims() == claims);
    const bool atomics = ctx.int64_atomics();
    INFO("claims " << claims << ", device " << ctx.device().name << ", 64-bit atomics " << atomics);
    struct scase {
        const char* what;
        dtype type;
        shape in, idx;
        int axis;
        bool in_place, strided;
        std::int64_t offset; ///< elements before the output in its buffer
        bool takes_claims;
    };
    const scase cases[] = {
        {"many duplicates, out of place (fused copy)", dtype::float32, {4096}, {6000}, 0, false, false, 0, atomics},
        {"a permutation, out of place (fused copy)", dtype::int32, {3000}, {3000}, 0, false, false, 0, atomics},
        {"in place, inner axis", dtype::uint32, {64, 100}, {64, 120}, 1, true, false, 0, atomics},
        {"a strided output, outer axis", dtype::float32, {50, 40}, {30, 40}, 0, false, true, 0, atomics},
        {"more than 4 slots per update", dtype::float32, {100000}, {100}, 0, false, false, 0, false},
        {"2-byte elements, fused copy, a ragged last word", dtype::float16, {4097}, {6000}, 0, false, false, 0, true},
        {"2-byte elements one element into their buffer, strided", dtype::int16, {50, 41}, {30, 41}, 0, false, true, 1, true},
        {"1-byte elements in place, 3 into their buffer", dtype::uint8, {999}, {1500}, 0, true, false, 3, true},
        {"8-byte elements, fused copy", dtype::float64, {2048}, {3000}, 0, false, false, 0, true},
        {"8-byte elements, inner axis, strided", dtype::int64, {20, 30}, {20, 50}, 1, false, true, 0, true},
    };
    rng_t g(0xc1a1e5ull);
    for (const scase& c : cases) {
        INFO(c.what);
        const host_tensor x = random_tensor(g, c.type, c.in);
        host_tensor idx = c.idx == c.in && c.in.rank == 1 ? host_tensor(dtype::int64, c.idx) : index_tensor(g, dtype::int64, c.idx, c.in[c.axis]);
        if (c.idx == c.in && c.in.rank == 1) { // a permutation: no duplicate target
            std::vector<std::int64_t> perm(static_cast<std::size_t>(c.in[0]));
            std::iota(perm.begin(), perm.end(), std::int64_t{0});
            std::shuffle(perm.begin(), perm.end(), g);
            std::memcpy(idx.data(), perm.data(), perm.size() * 8);
        }
        const host_tensor upd = random_tensor(g, c.type, c.idx);
        const strix::scatter_desc d{c.axis};
        // the output: c.offset elements into a buffer of random bytes, with 3 more after it;
        // strided, every other column of a twice-as-wide matrix; in place, the input itself
        std::array<std::int64_t, strix::max_rank> strides = strix::c_strides(c.in);
        if (c.strided) strides = {c.in[1] * 2, 2};
        const std::int64_t span = c.strided ? c.in[0] * c.in[1] * 2 : c.in.count();
        host_tensor want = random_tensor(g, c.type, {c.offset + span + 3});
        const auto es = static_cast<std::int64_t>(strix::size_of(c.type));
        const strix::any_view hout(want.data() + c.offset * es, c.type, c.in, strides);
        const vk::device_tensor dx = vk::upload(ctx, x.view()), didx = vk::upload(ctx, idx.view()), dupd = vk::upload(ctx, upd.view());
        const vk::device_tensor dout = vk::upload(ctx, want.view());
        vk::device_view out = dout.view();
        out.address += static_cast<std::uint64_t>(c.offset * es);
        out.sizes = c.in;
        out.strides = strides;
        strix::scatter(c.in_place ? strix::any_cview(hout) : x.view(), idx.view(), upd.view(), hout, d);
        vk::stream s(ctx);
        s.scatter(c.in_place ? out : dx.view(), didx.view(), dupd.view(), out, d);
        CHECK(strix::vulkan::detail::counters_of(s).claim_scatters == (claims && c.takes_claims ? 1 : 0));
        s.run();
        CHECK(same_bytes(read_back(ctx, dout), want));
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: choosing the device by index, by name and through STRIX_VULKAN_DEVICE", "[vulkan]") {
    // list_devices() before any context exists (and, in a case below, while one is alive)
    const auto devices = vk::list_devices();
    REQUIRE(!devices.empty());
    const auto usable = std::find_if(devices.begin(), devices.end(), [](const vk::device_info& d) { return d.unusable.empty(); });
    REQUIRE(usable != devices.end());
    const vk::device_info dev = *usable; // index 0 (lavapipe) in CI
    const std::string index = std::to_string(dev.index);
    const env_scope clear("STRIX_VULKAN_DEVICE", nullptr);
    SECTION("a name that matches nothing") {
        const auto o = capture([&] { (void)vk::choose_device(devices, std::string("no-such-gpu-4711")); });
        CHECK(o.threw);
        CHECK(o.code == error_code::unsupported);
        CHECK_THAT(o.what, Catch::Contains("no-such-gpu-4711"));
        CHECK_THAT(o.what, Catch::Contains(dev.name)); // the devices present are listed
        const auto past = capture([&] { (void)vk::choose_device(devices, std::to_string(devices.size())); });
        CHECK(past.threw);
        CHECK_THAT(past.what, Catch::Contains("'" + std::to_string(devices.size()) + "'"));
        vk::context_options opt;
        opt.device = "no-such-gpu-4711";
        const auto ctx = capture([&] { vk::context c(opt); });
        CHECK(ctx.threw);
        CHECK_THAT(ctx.what, Catch::Contains("no-such-gpu-4711"));
    }
    SECTION("by index and by part of the name, in any case") {
        vk::context_options opt;
        opt.device = index;
        vk::context by_index(opt);
        CHECK(by_index.device().index == dev.index);
        CHECK(by_index.device().name == dev.name);
        std::string part = dev.name.size() > 2 ? dev.name.substr(1, dev.name.size() - 2) : dev.name; // a part, in capitals
        for (auto& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        opt.device = part;
        vk::context by_name(opt);
        CHECK(by_name.device().name == dev.name);
        CHECK(same_bytes(sample_ops(by_index)[1], sample_ops(by_name)[1]));
        CHECK(by_index.validation_messages() == 0);
        CHECK(by_name.validation_messages() == 0);
    }
    SECTION("the environment variable, and the option over it") {
        {
            const env_scope env("STRIX_VULKAN_DEVICE", "no-such-gpu-4711");
            const auto o = capture([&] { (void)vk::choose_device(devices); });
            CHECK(o.threw);
            CHECK_THAT(o.what, Catch::Contains("no-such-gpu-4711"));
            const auto c = capture([&] { vk::context ctx; });
            CHECK(c.threw);
            CHECK_THAT(c.what, Catch::Contains("no-such-gpu-4711"));
            vk::context_options opt;
            opt.device = index;
            vk::context explicit_choice(opt); // the option wins over the environment
            CHECK(explicit_choice.device().index == dev.index);
            CHECK(explicit_choice.validation_messages() == 0);
        }
        {
            const env_scope env("STRIX_VULKAN_DEVICE", index.c_str());
            CHECK(vk::choose_device(devices) == dev.index);
            vk::context ctx;
            CHECK(ctx.device().index == dev.index);
            CHECK(ctx.validation_messages() == 0);
        }
        CHECK(std::getenv("STRIX_VULKAN_DEVICE") == nullptr);
    }
}

// list_devices() loads volk's instance functions from a short-lived instance without the
// debug-utils extension; a context alive at that moment then calls a null
// vkDestroyDebugUtilsMessengerEXT when it is destroyed (a crash).
TEST_CASE("vulkan: list_devices while a context is alive", "[vulkan]") {
    {
        vk::context ctx;
        CHECK(!vk::list_devices().empty());
        CHECK(ctx.validation_messages() == 0);
    }
    SUCCEED("the context was destroyed");
}

TEST_CASE("vulkan: a saved pipeline cache is loaded by a new context", "[vulkan]") {
    const auto path = temp_file("strix_vulkan_test_cache");
    struct remove_file {
        std::filesystem::path p;
        ~remove_file() { std::filesystem::remove(p); }
    } cleanup{path};
    std::vector<host_tensor> first;
    {
        vk::context_options opt;
        opt.pipeline_cache = path; // no such file yet: starts empty
        vk::context ctx(opt);
        first = sample_ops(ctx);
        CHECK(ctx.pipeline_count() > 0);
        ctx.save_pipeline_cache(path);
        CHECK(ctx.validation_messages() == 0);
    }
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 0);
    {
        vk::context_options opt;
        opt.pipeline_cache = path;
        vk::context ctx(opt);
        const auto again = sample_ops(ctx);
        REQUIRE(again.size() == first.size());
        for (std::size_t i = 0; i < again.size(); ++i) CHECK(same_bytes(again[i], first[i]));
        CHECK(ctx.validation_messages() == 0);
    }
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f << "not a pipeline cache";
    }
    {
        vk::context_options opt;
        opt.pipeline_cache = path; // a foreign file: ignored
        vk::context ctx(opt);
        const auto again = sample_ops(ctx);
        for (std::size_t i = 0; i < again.size(); ++i) CHECK(same_bytes(again[i], first[i]));
        CHECK(ctx.validation_messages() == 0);
    }
}

TEST_CASE("vulkan: four threads with their own streams share one context", "[vulkan]") {
    vk::context ctx;
    constexpr int threads = 4, rounds = 12;
    std::vector<std::string> failures(threads);
    std::vector<int> done(threads, 0);
    auto work = [&](int id) {
        try {
            rng_t g(0x7472ull + static_cast<std::uint64_t>(id));
            for (int r = 0; r < rounds; ++r) {
                const dtype t = all_types[static_cast<std::size_t>((id * rounds + r) % 11)];
                const host_tensor x = random_tensor(g, t, {3, 4, 5});
                vk::device_tensor dx = vk::upload(ctx, x.view());
                vk::stream s(ctx);
                host_tensor want;
                vk::device_tensor out;
                switch ((id + r) % 4) {
                case 0: {
                    const host_tensor idx = index_tensor(g, index_types[static_cast<std::size_t>(r % 4)], {2, 3}, 4);
                    const vk::device_tensor di = vk::upload(ctx, idx.view());
                    want = strix::gather(x.view(), idx.view(), {1});
                    out = vk::device_tensor(ctx, t, want.sizes());
                    s.gather(dx.view(), di.view(), out.view(), {1});
                    s.run();
                    break;
                }
                case 1: {
                    const any_cview parts[] = {x.view(), x.view()};
                    want = strix::join(parts, {2});
                    out = vk::device_tensor(ctx, t, want.sizes());
                    const vk::device_view dparts[] = {dx.view(), dx.view()};
                    s.join(dparts, out.view(), {2});
                    s.run();
                    break;
                }
                case 2: {
                    const strix::pad_desc d{static_cast<pad_mode>(r % 4), {1, 0, 6}, {2, 1, 0}, 1};
                    want = strix::pad(x.view(), d);
                    out = vk::device_tensor(ctx, t, want.sizes());
                    s.pad(dx.view(), out.view(), d);
                    s.run();
                    break;
                }
                default: {
                    const host_tensor idx = index_tensor(g, index_types[static_cast<std::size_t>(r % 4)], {3, 4, 2}, 5);
                    const host_tensor upd = random_tensor(g, t, {3, 4, 2});
                    const vk::device_tensor di = vk::upload(ctx, idx.view()), du = vk::upload(ctx, upd.view());
                    want = strix::scatter(x.view(), idx.view(), upd.view(), {-1});
                    s.scatter(dx.view(), di.view(), du.view(), dx.view(), {-1});
                    s.run();
                    out = std::move(dx);
                    break;
                }
                }
                host_tensor got(t, want.sizes());
                vk::download(ctx, out, got.view());
                if (!same_bytes(got, want) && failures[static_cast<std::size_t>(id)].empty())
                    failures[static_cast<std::size_t>(id)] = "round " + std::to_string(r) + " (" + type_name(t) + ") differs from the CPU";
                ++done[static_cast<std::size_t>(id)];
            }
        } catch (const std::exception& e) {
            failures[static_cast<std::size_t>(id)] = e.what();
        }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back(work, i);
    for (auto& th : pool) th.join();
    for (int i = 0; i < threads; ++i) {
        INFO("thread " << i << ": " << failures[static_cast<std::size_t>(i)]);
        CHECK(failures[static_cast<std::size_t>(i)].empty());
        CHECK(done[static_cast<std::size_t>(i)] == rounds);
    }
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// Runs `f` with stderr (file descriptor 2) sent to a temporary file, and returns what was
/// written there. The validation layer's reports of leaked objects arrive while the device and
/// the instance are destroyed, after a context can be asked for its message count; the context
/// prints every message to stderr, so this is where they can be seen.
template <class F>
std::string captured_stderr(F&& f) {
    const auto path = temp_file("strix_vulkan_test_stderr");
    std::FILE* file = std::fopen(path.string().c_str(), "w+");
    REQUIRE(file != nullptr);
    std::fflush(stderr);
    const int saved = dup_fd(2);
    dup2_fd(file_fd(file), 2);
    struct restore {
        int saved;
        std::FILE* file;
        ~restore() {
            std::fflush(stderr);
            dup2_fd(saved, 2);
            close_fd(saved);
            std::fclose(file);
        }
    };
    {
        const restore r{saved, file};
        f();
    }
    std::string text;
    {
        std::ifstream in(path);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::filesystem::remove(path);
    return text;
}

} // namespace

TEST_CASE("vulkan: destroying a context after every kind of use leaves no Vulkan object behind", "[vulkan]") {
    int messages = -1;
    const std::string log = captured_stderr([&] {
        vk::context ctx;
        rng_t g(0x1eafull);
        (void)sample_ops(ctx);
        const host_tensor x = random_tensor(g, dtype::uint8, {6, 7});
        host_tensor idx = index_tensor(g, dtype::int64, {3, 7}, 6);
        write_index(idx.view(), coords{2, 3}, 99);
        const host_tensor upd = random_tensor(g, dtype::uint8, {3, 7});
        const vk::device_tensor dx = vk::upload(ctx, x.view()), di = vk::upload(ctx, idx.view()), du = vk::upload(ctx, upd.view());
        const vk::device_tensor out(ctx, dtype::uint8, {6, 7}), padded(ctx, dtype::uint8, {8, 9});
        { // an index error reported by run()
            vk::stream s(ctx);
            s.scatter(dx.view(), di.view(), du.view(), out.view(), {0});
            CHECK_THROWS_AS(s.run(), strix::error);
        }
        { // never submitted
            vk::stream s(ctx);
            s.pad(dx.view(), padded.view(), {pad_mode::edge, {1, 1}, {1, 1}, 0});
        }
        { // submitted, never waited for
            vk::stream s(ctx);
            s.pad(dx.view(), padded.view(), {pad_mode::reflect, {1, 1}, {1, 1}, 0});
            s.submit();
        }
        (void)vk::stream::download_view(ctx, padded.view());
        {
            const vk::buffer b = ctx.create_buffer(100, vk::memory::host);
            CHECK(b.mapped() != nullptr);
        }
        messages = ctx.validation_messages();
    });
    CHECK(messages == 0);
    INFO(log);
    CHECK_THAT(log, !Catch::Contains("validation"));
}

TEST_CASE("vulkan: two contexts alive at once, destroyed in either order", "[vulkan]") {
    const bool first_goes_first = GENERATE(true, false);
    auto a = std::make_unique<vk::context>();
    auto b = std::make_unique<vk::context>(storage_options(false));
    const auto ra = sample_ops(*a);
    const auto rb = sample_ops(*b);
    for (std::size_t i = 0; i < ra.size(); ++i) CHECK(same_bytes(ra[i], rb[i]));
    CHECK(a->validation_messages() == 0);
    CHECK(b->validation_messages() == 0);
    auto& gone = first_goes_first ? a : b;
    auto& kept = first_goes_first ? b : a;
    const std::string log = captured_stderr([&] { gone.reset(); });
    CHECK_THAT(log, !Catch::Contains("validation"));
    const auto again = sample_ops(*kept);
    for (std::size_t i = 0; i < ra.size(); ++i) CHECK(same_bytes(again[i], ra[i]));
    CHECK(kept->validation_messages() == 0);
    const std::string log2 = captured_stderr([&] { kept.reset(); });
    CHECK_THAT(log2, !Catch::Contains("validation"));
}

// The stream finds which call had the bad index by reading the indices back after the run; when
// a later operator of the same stream overwrites them, the stream copies them aside first, so the
// message is still the CPU's.
TEST_CASE("vulkan: streams reuse the frames of finished ones, scratch and metadata included", "[vulkan]") {
    // one stream at a time takes one frame, whatever it records; two alive at once take two;
    // streams that throw, or are never submitted, give theirs back too. Every result is the CPU's.
    vk::context ctx;
    rng_t g(0xf4a3e5ull);
    using R = strix::scatter_reduction;
    const auto scatter_case = [&](std::int64_t n, std::int64_t size, R red, bool det) {
        host_tensor in(dtype::float32, shape{size}), upd(dtype::float32, shape{n}), idx(dtype::int32, shape{n});
        for (std::int64_t i = 0; i < size; ++i) reinterpret_cast<float*>(in.data())[i] = static_cast<float>(uni(g, -9, 9));
        for (std::int64_t i = 0; i < n; ++i) {
            reinterpret_cast<float*>(upd.data())[i] = static_cast<float>(uni(g, -99, 99)) / 8.0f;
            reinterpret_cast<std::int32_t*>(idx.data())[i] = static_cast<std::int32_t>(uni(g, 0, size - 1));
        }
        const strix::scatter_desc d{0, index_policy::error, red, det};
        const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
        host_tensor got(dtype::float32, shape{size});
        vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
        CHECK(same_bytes(got, want));
    };
    // the convenience calls hold at most staging_depth frames at once (a stream, or the staging
    // ring of an upload or download on a device whose memory the host cannot map); after the
    // first call, none is made
    scatter_case(10, 31, R::none, false);
    const std::size_t before = ctx.frames_made();
    CHECK(before <= static_cast<std::size_t>(std::max(2, vk::detail::staging_depth)));
    // scratch of growing and shrinking sizes: claims, winners, the deterministic sort
    for (const std::int64_t n : {10, 5000, 70000, 300, 70000, 10}) {
        INFO(n << " updates");
        scatter_case(n, 3 * n + 1, R::none, false);
        scatter_case(n, n / 3 + 1, R::add, true);
        scatter_case(n, n + 1, R::max, false);
    }
    CHECK(ctx.frames_made() == before);
    // a stream that threw while recording, and one never submitted, give their frames back
    const vk::device_tensor a(ctx, dtype::float32, {64}), b(ctx, dtype::float32, {64}), c(ctx, dtype::float32, {32});
    {
        vk::stream s(ctx);
        CHECK_THROWS_AS(s.copy(a.view(), c.view()), strix::error);
    }
    { vk::stream s(ctx); s.copy(a.view(), b.view()); }
    CHECK(ctx.frames_made() == before);
    // two streams alive at once: two frames, both reused afterwards
    {
        vk::stream s1(ctx), s2(ctx);
        s1.copy(a.view(), b.view());
        s2.copy(b.view(), a.view());
        s1.submit();
        s2.submit();
        s1.wait();
        s2.wait();
    }
    const std::size_t two = ctx.frames_made();
    CHECK(two - before <= 2);
    for (int i = 0; i < 20; ++i) {
        vk::stream s1(ctx), s2(ctx);
        s1.copy(a.view(), b.view());
        s1.run();
    }
    CHECK(ctx.frames_made() == two);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a recorded stream replays: new contents of its tensors, index errors per run", "[vulkan]") {
    // a decode loop: each run appends this step's row to a cache (scatter of one row at a
    // position held in a device tensor) and gathers the rows a step asks for; the host writes
    // the row, the position and the wanted rows between runs, and never records again
    vk::context ctx;
    constexpr std::int64_t rows = 16, width = 8;
    host_tensor cache(dtype::float32, shape{rows, width});
    std::memset(cache.data(), 0, cache.bytes());
    vk::device_tensor d_cache = vk::upload(ctx, cache.view());
    vk::device_tensor d_row(ctx, dtype::float32, {1, width}), d_pos(ctx, dtype::int64, {1, width}), d_want(ctx, dtype::int32, {3});
    vk::device_tensor d_out(ctx, dtype::float32, {3, width});
    vk::stream s(ctx);
    s.scatter(d_cache.view(), d_pos.view(), d_row.view(), d_cache.view(), strix::scatter_desc{0});
    s.gather(d_cache.view(), d_want.view(), d_out.view(), strix::gather_desc{0});
    rng_t g(0x5e9a7ull);
    for (std::int64_t step = 0; step < rows; ++step) {
        INFO("step " << step);
        host_tensor row(dtype::float32, shape{1, width}), pos(dtype::int64, shape{1, width}), want(dtype::int32, shape{3});
        for (std::int64_t j = 0; j < width; ++j) {
            reinterpret_cast<float*>(row.data())[j] = static_cast<float>(uni(g, -1000, 1000));
            reinterpret_cast<std::int64_t*>(pos.data())[j] = step;
        }
        for (int k = 0; k < 3; ++k) reinterpret_cast<std::int32_t*>(want.data())[k] = static_cast<std::int32_t>(uni(g, 0, step));
        vk::device_tensor t_row = vk::upload(ctx, row.view()), t_pos = vk::upload(ctx, pos.view()), t_want = vk::upload(ctx, want.view());
        { // new contents of the bound tensors, written by a stream of their own
            vk::stream w(ctx);
            w.copy(t_row.view(), d_row.view());
            w.copy(t_pos.view(), d_pos.view());
            w.copy(t_want.view(), d_want.view());
            w.run();
        }
        if (step == 0) s.run();
        else s.replay();
        s.wait();
        // the CPU: the same append, then the same gather
        strix::scatter(cache.view(), pos.view(), row.view(), cache.view(), strix::scatter_desc{0});
        const host_tensor expect = strix::gather(cache.view(), want.view(), strix::gather_desc{0});
        host_tensor got(dtype::float32, shape{3, width});
        vk::download(ctx, d_out, got.view());
        CHECK(same_bytes(got, expect));
    }
    // an index error in a later run is reported by that run's wait(), and the next clean run passes
    host_tensor bad(dtype::int32, shape{3});
    reinterpret_cast<std::int32_t*>(bad.data())[0] = 0;
    reinterpret_cast<std::int32_t*>(bad.data())[1] = static_cast<std::int32_t>(rows); // out of range
    reinterpret_cast<std::int32_t*>(bad.data())[2] = 1;
    vk::device_tensor t_bad = vk::upload(ctx, bad.view());
    { vk::stream w(ctx); w.copy(t_bad.view(), d_want.view()); w.run(); }
    s.replay();
    const outcome o = capture([&] { s.wait(); });
    CHECK(o.code == error_code::index_out_of_range);
    CHECK(o.what.find("index 16 at position [1]") != std::string::npos);
    reinterpret_cast<std::int32_t*>(bad.data())[1] = 2;
    vk::device_tensor t_good = vk::upload(ctx, bad.view());
    { vk::stream w(ctx); w.copy(t_good.view(), d_want.view()); w.run(); }
    s.replay();
    CHECK_NOTHROW(s.wait());
    // replaying before the last run was waited for is refused
    s.replay();
    CHECK_THROWS_AS(s.replay(), strix::error);
    s.wait();
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an operator whose output is empty still checks its indices", "[vulkan]") {
    // input (3, 0): every gather and scatter-nd of it moves nothing, yet index 5 must raise the
    // CPU's error under the `error` policy (numpy.take does), and pass under `clamp`
    vk::context ctx;
    host_tensor in(dtype::float32, shape{3, 0});
    for (const std::int64_t bad : {5, -4, 3}) {
        INFO("index " << bad);
        host_tensor idx(dtype::int64, shape{2}), tuple(dtype::int64, shape{2, 1}), upd(dtype::float32, shape{2, 0});
        for (auto* t : {&idx, &tuple}) {
            reinterpret_cast<std::int64_t*>(t->data())[0] = 1;
            reinterpret_cast<std::int64_t*>(t->data())[1] = bad;
        }
        host_tensor g_out(dtype::float32, shape{2, 0}), s_out(dtype::float32, shape{3, 0});
        const auto expect = [&](auto&& call, const char* op, strix::index_policy policy) {
            const outcome o = capture(call);
            INFO(op << ": " << o.what);
            if (policy == index_policy::clamp) {
                CHECK_FALSE(o.threw);
                return;
            }
            CHECK(o.code == error_code::index_out_of_range);
            CHECK(o.what.find(std::string("strix::") + op + ": index " + std::to_string(bad) + " at position") != std::string::npos);
            CHECK(o.what.find("size 3") != std::string::npos);
        };
        for (const auto policy : {index_policy::error, index_policy::clamp}) {
            expect([&] { vk::gather(ctx, in.view(), idx.view(), g_out.view(), strix::gather_desc{0, -1, policy}); }, "gather", policy);
            expect([&] { vk::gather_nd(ctx, in.view(), tuple.view(), g_out.view(), strix::gather_nd_desc{0, policy}); }, "gather-nd", policy);
            expect([&] { vk::scatter_nd(ctx, in.view(), tuple.view(), upd.view(), s_out.view(), strix::scatter_nd_desc{policy}); }, "scatter-nd", policy);
        }
    }
    // in range: no error
    host_tensor ok(dtype::int64, shape{1}), out(dtype::float32, shape{1, 0});
    reinterpret_cast<std::int64_t*>(ok.data())[0] = 2;
    CHECK_NOTHROW(vk::gather(ctx, in.view(), ok.view(), out.view(), strix::gather_desc{0}));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an index error is named even when a later operator overwrites the indices", "[vulkan]") {
    vk::context ctx;
    host_tensor x(dtype::float32, {4});
    host_tensor bad(dtype::int64, {2});
    bad.as<std::int64_t>()[1] = 7;
    const host_tensor good(dtype::int64, {2});
    const auto cpu = capture([&] { (void)strix::gather(x.view(), bad.view(), strix::gather_desc{}); });
    REQUIRE(cpu.code == error_code::index_out_of_range);
    const vk::device_tensor dx = vk::upload(ctx, x.view()), di = vk::upload(ctx, bad.view()), dg = vk::upload(ctx, good.view());
    const vk::device_tensor out(ctx, dtype::float32, {2});
    vk::stream s(ctx);
    s.gather(dx.view(), di.view(), out.view(), {});
    const vk::device_view one[] = {dg.view()};
    s.join(one, di.view(), {}); // the indices are reused as scratch afterwards
    const auto gpu = capture([&] { s.run(); });
    CHECK(gpu.threw);
    CHECK(gpu.code == error_code::index_out_of_range);
    CHECK(gpu.what == cpu.what);
    CHECK(ctx.validation_messages() == 0);
}

// More than 2^32 elements in one tensor (4 GiB of uint8): 64-bit offsets end to end. Hidden
// (run it with "[huge]") because it needs a device with several GiB of memory; the suite runs it
// on real GPUs.
TEST_CASE("vulkan: a tensor of more than 2^32 elements", "[.][huge]") {
    vk::context ctx;
    const std::int64_t n = (std::int64_t{1} << 32) + 4096;
    auto pattern = [](std::int64_t i) { return static_cast<std::uint8_t>((static_cast<std::uint64_t>(i) * 2654435761u) >> 13); };
    host_tensor x(dtype::uint8, {n});
    for (std::int64_t i = 0; i < n; ++i) x.as<std::uint8_t>()[i] = pattern(i);
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    // gather far past 2^32, pad both ends, scatter in place near the end
    host_tensor idx(dtype::int64, {4});
    const std::int64_t picks[4] = {n - 1, (std::int64_t{1} << 32) + 7, 3, -2};
    std::copy(picks, picks + 4, idx.as<std::int64_t>());
    const vk::device_tensor di = vk::upload(ctx, idx.view());
    const vk::device_tensor dg(ctx, dtype::uint8, {4});
    const vk::device_tensor dp(ctx, dtype::uint8, {n + 3});
    vk::stream s(ctx);
    s.gather(dx.view(), di.view(), dg.view(), {});
    s.pad(dx.view(), dp.view(), strix::pad_desc{strix::pad_mode::reflect, {1}, {2}});
    host_tensor uidx(dtype::int64, {1});
    uidx.as<std::int64_t>()[0] = n - 5;
    host_tensor upd(dtype::uint8, {1});
    upd.as<std::uint8_t>()[0] = 0xab;
    const vk::device_tensor dui = vk::upload(ctx, uidx.view()), du = vk::upload(ctx, upd.view());
    s.scatter(dx.view(), dui.view(), du.view(), dx.view(), {});
    s.run();
    host_tensor g(dtype::uint8, {4});
    vk::download(ctx, dg, g.view());
    CHECK(g.as<std::uint8_t>()[0] == pattern(n - 1));
    CHECK(g.as<std::uint8_t>()[1] == pattern((std::int64_t{1} << 32) + 7));
    CHECK(g.as<std::uint8_t>()[2] == pattern(3));
    CHECK(g.as<std::uint8_t>()[3] == pattern(n - 2));
    // the padded tensor's ends, read through small device views
    auto tail = [&](const vk::device_tensor& t, std::int64_t from, std::int64_t count) {
        vk::device_view v = t.view();
        v.address += static_cast<std::uint64_t>(from);
        v.sizes = strix::shape{count};
        return vk::stream::download_view(ctx, v);
    };
    const host_tensor pe = tail(dp, n + 3 - 8, 8);
    // output j maps to input j - 1; past the end, reflect: n + k -> n - 2 - k
    for (std::int64_t j = n + 3 - 8; j < n + 3; ++j) {
        const std::int64_t src = j - 1 < n ? j - 1 : 2 * (n - 1) - (j - 1);
        CHECK(pe.as<std::uint8_t>()[j - (n + 3 - 8)] == pattern(src));
    }
    const host_tensor xe = tail(dx, n - 6, 3);
    CHECK(xe.as<std::uint8_t>()[0] == pattern(n - 6));
    CHECK(xe.as<std::uint8_t>()[1] == 0xab);
    CHECK(xe.as<std::uint8_t>()[2] == pattern(n - 4));
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// A device the test makes itself with plain Vulkan (as an application would), with or without
/// the features strix needs, and a messenger of its own: a context that adopts it reports no
/// validation messages of its own, so the test counts them here.
struct own_device {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    VkPhysicalDeviceVulkan12Features f12 = vk::make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkPhysicalDeviceFeatures2 f2 = vk::make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
    VkDeviceQueueCreateInfo qi = vk::make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    VkDeviceCreateInfo info = vk::make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2);
    float priority = 1.0f;
    VkPhysicalDeviceMemoryProperties memory{};
    std::vector<std::pair<VkBuffer, VkDeviceMemory>> buffers;
    static inline int messages = 0;

    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* d, void*) {
        if (d->pMessageIdName && std::strncmp(d->pMessageIdName, "Loader", 6) == 0) return VK_FALSE;
        ++messages;
        std::fprintf(stderr, "validation (own device): %s\n", d->pMessage ? d->pMessage : "");
        return VK_FALSE;
    }

    own_device(bool buffer_device_address, bool int64) {
        REQUIRE(volkInitialize() == VK_SUCCESS);
        VkApplicationInfo app = vk::make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        app.apiVersion = VK_API_VERSION_1_2;
        const char* exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
        VkInstanceCreateInfo ici = vk::make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        ici.pApplicationInfo = &app;
        ici.enabledExtensionCount = 1;
        ici.ppEnabledExtensionNames = exts;
        REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
        volkLoadInstance(instance); // device functions too, through the loader's trampolines
        VkDebugUtilsMessengerCreateInfoEXT mi = vk::make<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
        mi.pfnUserCallback = on_message;
        auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        REQUIRE(create_messenger(instance, &mi, nullptr, &messenger) == VK_SUCCESS);
        // the device a context would pick
        const auto devices = vk::list_devices();
        const auto chosen = vk::choose_device(devices);
        std::uint32_t n = 0;
        vkEnumeratePhysicalDevices(instance, &n, nullptr);
        std::vector<VkPhysicalDevice> pds(n);
        vkEnumeratePhysicalDevices(instance, &n, pds.data());
        physical = pds.at(chosen);
        std::uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> qf(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, qf.data());
        while (!(qf.at(family).queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        qi.queueFamilyIndex = family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        f12.bufferDeviceAddress = buffer_device_address;
        f2.features.shaderInt64 = int64;
        info.queueCreateInfoCount = 1;
        info.pQueueCreateInfos = &qi;
        REQUIRE(vkCreateDevice(physical, &info, nullptr, &device) == VK_SUCCESS);
        vkGetDeviceQueue(device, family, 0, &queue);
        vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    }
    own_device(const own_device&) = delete;
    own_device& operator=(const own_device&) = delete;
    ~own_device() {
        for (auto [b, m] : buffers) {
            vkDestroyBuffer(device, b, nullptr);
            vkFreeMemory(device, m, nullptr);
        }
        vkDestroyDevice(device, nullptr);
        auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        destroy_messenger(instance, messenger, nullptr);
        vkDestroyInstance(instance, nullptr);
    }
    [[nodiscard]] vk::adopted_device adopt() const { return {instance, physical, device, family, queue, &info}; }

    /// A host-visible buffer of `bytes` that shaders address (the application's own).
    std::pair<VkBuffer, void*> make_buffer(VkDeviceSize bytes) {
        VkBufferCreateInfo bi = vk::make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        bi.size = bytes;
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        VkBuffer b = VK_NULL_HANDLE;
        REQUIRE(vkCreateBuffer(device, &bi, nullptr, &b) == VK_SUCCESS);
        VkMemoryRequirements req{};
        vkGetBufferMemoryRequirements(device, b, &req);
        std::uint32_t type = 0;
        const auto want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        while (!((req.memoryTypeBits >> type) & 1) || (memory.memoryTypes[type].propertyFlags & want) != want) ++type;
        VkMemoryAllocateFlagsInfo flags = vk::make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo ai = vk::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags);
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        VkDeviceMemory m = VK_NULL_HANDLE;
        REQUIRE(vkAllocateMemory(device, &ai, nullptr, &m) == VK_SUCCESS);
        REQUIRE(vkBindBufferMemory(device, b, m, 0) == VK_SUCCESS);
        void* p = nullptr;
        REQUIRE(vkMapMemory(device, m, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS);
        buffers.emplace_back(b, m);
        return {b, p};
    }
};

} // namespace

TEST_CASE("vulkan: a context adopts the application's device, checks its features and leaves it alive", "[vulkan]") {
    own_device::messages = 0;
    SECTION("without bufferDeviceAddress or shaderInt64, a clear error names the feature") {
        {
            own_device app(false, true);
            const outcome o = capture([&] { vk::context ctx(app.adopt()); });
            CHECK(o.code == error_code::unsupported);
            CHECK(o.what.find("bufferDeviceAddress") != std::string::npos);
        }
        {
            own_device app(true, false);
            const outcome o = capture([&] { vk::context ctx(app.adopt()); });
            CHECK(o.code == error_code::unsupported);
            CHECK(o.what.find("shaderInt64") != std::string::npos);
        }
        own_device app(true, true);
        vk::adopted_device no_info = app.adopt();
        no_info.create_info = nullptr;
        CHECK(capture([&] { vk::context ctx(no_info); }).what.find("create_info") != std::string::npos);
        vk::adopted_device bad_family = app.adopt();
        bad_family.queue_family = 1000;
        CHECK(capture([&] { vk::context ctx(bad_family); }).what.find("queue family 1000") != std::string::npos);
    }
    SECTION("its operators equal the CPU, its views wrap the application's buffers, and the device outlives it") {
        own_device app(true, true);
        rng_t g(0xad0b7ull);
        const host_tensor image = random_tensor(g, dtype::float32, shape{5, 7});
        const strix::pad_desc d{.mode = strix::pad_mode::symmetric, .start = {2, 1}, .end = {1, 3}};
        const host_tensor expect = strix::pad(image.view(), d);
        const auto [in_buf, in_host] = app.make_buffer(256 + image.bytes());
        const auto made = app.make_buffer(expect.bytes()); // (clang before 16 cannot capture a structured binding)
        const auto out_buf = made.first;
        const auto out_host = made.second;
        std::memcpy(static_cast<std::byte*>(in_host) + 256, image.data(), image.bytes());
        {
            vk::context ctx(app.adopt());
            CHECK(ctx.adopted());
            CHECK(ctx.handle() == app.device);
            // small storage was not enabled: the 32-bit word path
            CHECK_FALSE(ctx.small_storage());
            const vk::device_view in = vk::wrap(ctx, in_buf, 256, image.bytes(), dtype::float32, image.sizes());
            const vk::device_view out = vk::wrap(ctx, out_buf, 0, expect.bytes(), dtype::float32, expect.sizes());
            CHECK(in.owner == 0);
            vk::stream s(ctx);
            s.pad(in, out, d);
            s.run();
            CHECK(std::memcmp(out_host, expect.data(), expect.bytes()) == 0);
            // a strix tensor's data through upload and download on the adopted queue
            const vk::device_tensor t = vk::upload(ctx, image.view());
            host_tensor back(dtype::float32, image.sizes());
            vk::download(ctx, t, back.view());
            CHECK(same_bytes(back, image));
            // wrapping checks the range against the view and the buffer
            const outcome small = capture([&] { (void)vk::wrap(ctx, out_buf, 0, expect.bytes() - 4, dtype::float32, expect.sizes()); });
            CHECK(small.code == error_code::invalid_argument);
            CHECK(small.what.find("needs " + std::to_string(expect.bytes()) + " bytes") != std::string::npos);
            INFO(small.what);
            CHECK(small.what.find("shape [8,11]") != std::string::npos);
            const outcome beyond = capture([&] { (void)vk::wrap(ctx, out_buf, 64, 1 << 20, dtype::float32, shape{4}); });
            CHECK(beyond.code == error_code::invalid_argument);
            CHECK(beyond.what.find("too few") != std::string::npos);
            const outcome odd = capture([&] { (void)vk::wrap(ctx, out_buf, 2, 64, dtype::float32, shape{4}); });
            CHECK(odd.what.find("multiple of the element size") != std::string::npos);
            // negative strides: the lowest byte at the offset, coordinates 0 at the far end
            const vk::device_view reversed = vk::wrap(ctx, in_buf, 256, image.bytes(), dtype::float32, shape{5, 7}, std::array<std::int64_t, 8>{-7, -1});
            const host_tensor flipped = vk::stream::download_view(ctx, reversed);
            CHECK(std::memcmp(flipped.data(), image.data() + image.bytes() - 4, 4) == 0);
        }
        // the context is gone; the application's device still works
        const auto [b, p] = app.make_buffer(64);
        CHECK(b != VK_NULL_HANDLE);
    }
    CHECK(own_device::messages == 0);
}

TEST_CASE("vulkan: operators recorded into the application's command buffer, submitted by it, index errors checked after its fence", "[vulkan]") {
    own_device::messages = 0;
    own_device app(true, true);
    vk::context ctx(app.adopt());
    rng_t g(0xc0bdull);
    const host_tensor table = random_tensor(g, dtype::float32, shape{6, 4});
    host_tensor rows(dtype::int32, shape{3});
    const std::int32_t good[3] = {5, 0, 3}, bad[3] = {1, 6, 2};
    std::memcpy(rows.data(), good, sizeof good);
    const auto [table_buf, table_host] = app.make_buffer(table.bytes());
    const auto [rows_buf, rows_host] = app.make_buffer(16);
    const auto [copy_buf, copy_host] = app.make_buffer(3 * 4 * 4);
    std::memset(table_host, 0, table.bytes());
    const vk::device_view t = vk::wrap(ctx, table_buf, 0, table.bytes(), dtype::float32, table.sizes());
    const vk::device_view r = vk::wrap(ctx, rows_buf, 0, 12, dtype::int32, shape{3});
    const vk::device_tensor out(ctx, dtype::float32, shape{3, 4});

    VkCommandPoolCreateInfo pci = vk::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pci.queueFamilyIndex = app.family;
    VkCommandPool pool = VK_NULL_HANDLE;
    REQUIRE(vkCreateCommandPool(app.device, &pci, nullptr, &pool) == VK_SUCCESS);
    VkCommandBufferAllocateInfo cai = vk::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    cai.commandPool = pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    REQUIRE(vkAllocateCommandBuffers(app.device, &cai, &cmd) == VK_SUCCESS);
    VkFenceCreateInfo fci = vk::make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VkFence fence = VK_NULL_HANDLE;
    REQUIRE(vkCreateFence(app.device, &fci, nullptr, &fence) == VK_SUCCESS);
    {
        VkCommandBufferBeginInfo bi = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO); // reusable: submitted twice
        REQUIRE(vkBeginCommandBuffer(cmd, &bi) == VK_SUCCESS);
        // the application writes the table with its own command; strix's opening barrier orders it
        vkCmdUpdateBuffer(cmd, table_buf, 0, table.bytes(), table.data());
        vk::command_recorder rec(ctx, cmd);
        rec.gather(t, r, out.view(), strix::gather_desc{0});
        rec.finish();
        CHECK_THROWS_AS(rec.pad(t, t, strix::pad_desc{}), strix::error); // finished: no more recording
        const VkBufferCopy region{0, 0, 48};
        vkCmdCopyBuffer(cmd, out.storage().handle(), copy_buf, 1, &region);
        VkMemoryBarrier to_host = vk::make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0, nullptr);
        REQUIRE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
        VkSubmitInfo si = vk::make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        for (int run = 0; run < 3; ++run) {
            INFO("submission " << run);
            std::memcpy(rows_host, run == 1 ? bad : good, sizeof good);
            std::memcpy(rows.data(), run == 1 ? bad : good, sizeof good);
            REQUIRE(vkQueueSubmit(app.queue, 1, &si, fence) == VK_SUCCESS);
            REQUIRE(vkWaitForFences(app.device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
            REQUIRE(vkResetFences(app.device, 1, &fence) == VK_SUCCESS);
            if (run == 1) {
                const outcome o = capture([&] { rec.check(); });
                CHECK(o.code == error_code::index_out_of_range);
                CHECK(o.what.find("index 6 at position [1]") != std::string::npos);
                continue;
            }
            CHECK_NOTHROW(rec.check());
            const host_tensor expect = strix::gather(table.view(), rows.view(), strix::gather_desc{0});
            CHECK(std::memcmp(copy_host, expect.data(), expect.bytes()) == 0);
        }
    }
    vkDestroyFence(app.device, fence, nullptr);
    vkDestroyCommandPool(app.device, pool, nullptr);
    CHECK(own_device::messages == 0);
}

TEST_CASE("vulkan: small values a replayed stream reads are written in place by the host", "[vulkan]") {
    // the decode loop again, with the row, the position and the wanted rows in tensors the
    // host writes directly between runs: no copy streams, no recording
    vk::context ctx;
    constexpr std::int64_t rows = 12, width = 5;
    host_tensor cache(dtype::float32, shape{rows, width});
    std::memset(cache.data(), 0, cache.bytes());
    vk::device_tensor d_cache = vk::upload(ctx, cache.view());
    const vk::device_tensor d_row(ctx, dtype::float32, {1, width}, vk::memory::upload), d_pos(ctx, dtype::int64, {1, width}, vk::memory::upload),
        d_want(ctx, dtype::int32, {2}, vk::memory::upload), d_out(ctx, dtype::float32, {2, width}, vk::memory::upload);
    REQUIRE(d_row.host_visible());
    vk::stream s(ctx);
    s.scatter(d_cache.view(), d_pos.view(), d_row.view(), d_cache.view(), strix::scatter_desc{0});
    s.gather(d_cache.view(), d_want.view(), d_out.view(), strix::gather_desc{0});
    rng_t g(0x4057ull);
    for (std::int64_t step = 0; step < rows; ++step) {
        INFO("step " << step);
        const any_view row = d_row.host_view(), pos = d_pos.host_view(), want = d_want.host_view();
        for (std::int64_t j = 0; j < width; ++j) {
            static_cast<float*>(row.data())[j] = static_cast<float>(uni(g, -1000, 1000));
            static_cast<std::int64_t*>(pos.data())[j] = step;
        }
        for (int k = 0; k < 2; ++k) static_cast<std::int32_t*>(want.data())[k] = static_cast<std::int32_t>(uni(g, 0, step));
        s.replay(); // the first call submits
        s.wait();
        strix::scatter(cache.view(), any_cview(pos), any_cview(row), cache.view(), strix::scatter_desc{0});
        const host_tensor expect = strix::gather(cache.view(), any_cview(want), strix::gather_desc{0});
        CHECK(std::memcmp(d_out.host_view().data(), expect.data(), expect.bytes()) == 0); // read in place too
    }
    // a tensor in device memory has no host view on a GPU; on lavapipe every tensor has one
    const vk::device_tensor plain(ctx, dtype::float32, {4});
    if (!plain.host_visible()) {
        const outcome o = capture([&] { (void)plain.host_view(); });
        CHECK(o.code == error_code::invalid_argument);
        CHECK(o.what.find("memory::upload") != std::string::npos);
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: rebinding a recorded stream's operands records it again on the new views", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x2eb1dull);
    constexpr std::int64_t rows = 6, width = 7;
    const host_tensor table = random_tensor(g, dtype::float32, {rows, width});
    const vk::device_tensor d_table = vk::upload(ctx, table.view());
    const host_tensor fresh = random_tensor(g, dtype::float32, {1, width});
    const vk::device_tensor d_fresh = vk::upload(ctx, fresh.view());
    vk::device_tensor d_cache(ctx, dtype::float32, {rows, width});
    host_tensor zeros(dtype::float32, shape{rows, width});
    std::memset(zeros.data(), 0, zeros.bytes());
    { vk::stream w(ctx); const vk::device_tensor z = vk::upload(ctx, zeros.view()); w.copy(z.view(), d_cache.view()); w.run(); }
    const auto row_of = [&](const vk::device_tensor& t, std::int64_t r, std::int64_t n = 1) {
        vk::device_view v = t.view();
        v.address += static_cast<std::uint64_t>(r * width * 4);
        v.sizes = shape{n, width};
        return v;
    };
    // indices 0..3 in one tensor, its first 2 or 3 as views
    host_tensor idx(dtype::int32, shape{4});
    for (int k = 0; k < 4; ++k) reinterpret_cast<std::int32_t*>(idx.data())[k] = (5 * k + 1) % static_cast<int>(rows);
    const vk::device_tensor d_idx = vk::upload(ctx, idx.view());
    vk::device_view idx2 = d_idx.view(), idx3 = d_idx.view();
    idx2.sizes = shape{2};
    idx3.sizes = shape{3};
    vk::device_tensor d_out(ctx, dtype::float32, {3, width});
    vk::device_view out2 = d_out.view();
    out2.sizes = shape{2, width};

    vk::stream s(ctx);
    s.copy(d_fresh.view(), row_of(d_cache, 0)); // the decode loop's append: row 0, then row 1, ...
    s.gather(d_table.view(), idx2, out2, strix::gather_desc{0});
    s.run();
    host_tensor expect_cache(dtype::float32, shape{rows, width});
    std::memset(expect_cache.data(), 0, expect_cache.bytes());
    for (std::int64_t step = 1; step < 4; ++step) {
        INFO("step " << step);
        s.rebind({{row_of(d_cache, step - 1), row_of(d_cache, step)}});
        s.replay();
        s.wait();
    }
    for (std::int64_t r = 0; r < 4; ++r) std::memcpy(expect_cache.data() + r * width * 4, fresh.data(), width * 4);
    CHECK(same_bytes(vk::stream::download_view(ctx, d_cache.view()), expect_cache));
    CHECK(same_bytes(vk::stream::download_view(ctx, out2), strix::gather(table.view(), any_cview(idx.data(), dtype::int32, shape{2}), strix::gather_desc{0})));

    // a longer gather: its indices and its output rebound together, shapes and all
    s.rebind({{idx2, idx3}, {out2, d_out.view()}});
    s.replay();
    s.wait();
    CHECK(same_bytes(vk::stream::download_view(ctx, d_out.view()), strix::gather(table.view(), any_cview(idx.data(), dtype::int32, shape{3}), strix::gather_desc{0})));

    // bad use: an operand the stream does not have; views the rules refuse (the stream is then
    // as it was, and replays); a rebind while a run is in flight
    outcome o = capture([&] { s.rebind({{out2, d_out.view()}}); });
    CHECK(o.code == error_code::invalid_argument);
    CHECK(o.what.find("no recorded operator has the [2,7] float32 view") != std::string::npos);
    o = capture([&] { s.rebind({{idx3, idx2}}); }); // 2 indices for an output of 3 rows
    CHECK(o.code == error_code::rule_violation);
    CHECK(o.what.find("gather") != std::string::npos);
    s.replay();
    s.wait();
    CHECK(same_bytes(vk::stream::download_view(ctx, d_out.view()), strix::gather(table.view(), any_cview(idx.data(), dtype::int32, shape{3}), strix::gather_desc{0})));
    s.replay();
    o = capture([&] { s.rebind({{idx3, idx3}}); });
    CHECK(o.code == error_code::invalid_argument);
    CHECK(o.what.find("not waited for") != std::string::npos);
    s.wait();
    // a stream still recording is rebound and goes on recording
    vk::stream r(ctx);
    r.copy(d_fresh.view(), row_of(d_cache, 5));
    r.rebind({{row_of(d_cache, 5), row_of(d_cache, 4)}});
    r.copy(d_fresh.view(), row_of(d_cache, 5));
    r.run();
    CHECK(same_bytes(vk::stream::download_view(ctx, row_of(d_cache, 4, 2)), strix::join(std::vector<any_cview>{fresh.view(), fresh.view()}, strix::join_desc{0})));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: replaying a stream whose tensor was destroyed is a clear error", "[vulkan]") {
    vk::context ctx;
    auto in = std::make_unique<vk::device_tensor>(ctx, dtype::float32, shape{4, 4});
    vk::device_tensor out(ctx, dtype::float32, shape{6, 6});
    vk::stream s(ctx);
    s.pad(in->view(), out.view(), strix::pad_desc{.start = {1, 1}, .end = {1, 1}});
    s.run();
    s.replay();
    s.wait();
    in.reset();
    const outcome o = capture([&] { s.replay(); });
    CHECK(o.code == error_code::invalid_argument);
    CHECK(o.what.find("destroyed") != std::string::npos);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: upload and download move strided views in pieces through the staging ring", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x57a6eull);
    const int depth = vk::detail::staging_depth;
    const struct restore {
        int d;
        ~restore() { vk::detail::staging_depth = d; }
    } keep{depth};
    int ring = 2;
    for (const auto type : {dtype::uint8, dtype::float32, dtype::float64}) {
        // rings of 2, 3 and 4 slots, used round more than once by the smaller pieces
        vk::detail::staging_depth = ring++;
        const host_tensor base = random_tensor(g, type, shape{9, 10, 11});
        // a strided, reversed view of it: every other row, the last axis backwards
        const auto es = static_cast<std::int64_t>(strix::size_of(type));
        const any_cview whole = base.view();
        const any_cview view(static_cast<const std::byte*>(whole.data()) + 10 * es, type, shape{9, 5, 11}, {110, 22, -1});
        host_tensor packed(type, view.sizes());
        auto p = strix::detail::copy_plan(view, packed.view());
        strix::cpu::execute(p);
        for (const std::uint64_t limit : {std::uint64_t{7}, std::uint64_t{64}, std::uint64_t{1000}, std::uint64_t{1} << 20}) {
            INFO(strix::name(type) << ", pieces of at most " << limit << " bytes");
            const vk::detail::transfer_options opt{.limit = limit, .staged = true, .import = false};
            vk::device_tensor t(ctx, type, view.sizes());
            vk::detail::upload_into(ctx, t.storage(), 0, view, opt);
            host_tensor straight(type, view.sizes());
            vk::download(ctx, t, straight.view());
            CHECK(same_bytes(straight, packed));
            // and back into a strided host view, in pieces
            host_tensor target(type, shape{9, 10, 11});
            std::memset(target.data(), 0x5a, target.bytes());
            const any_view into(static_cast<std::byte*>(target.view().data()) + 10 * es, type, shape{9, 5, 11}, {110, 22, -1});
            vk::detail::download_from(ctx, t.storage(), 0, into, opt);
            host_tensor again(type, view.sizes());
            auto q = strix::detail::copy_plan(any_cview(into), again.view());
            strix::cpu::execute(q);
            CHECK(same_bytes(again, packed));
            // bytes outside the view keep their value
            CHECK(std::to_integer<int>(target.data()[11 * es]) == 0x5a); // row 1 of the base lies between the view's rows
        }
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: transfers from and to the context's own host memory go by one device copy", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x9177edull);
    const host_tensor data = random_tensor(g, dtype::float32, shape{6, 1000});
    // pinned memory: a memory::host tensor, written through its host view
    const vk::device_tensor pinned(ctx, dtype::float32, shape{6, 1000}, vk::memory::host);
    REQUIRE(pinned.host_visible());
    std::memcpy(pinned.host_view().data(), data.data(), data.bytes());
    // rows 1..4 of it (a dense range inside the buffer, at an offset) into a device tensor;
    // staged, so that lavapipe's mapped device memory does not take the host path
    const vk::detail::transfer_options opt{.limit = 4096, .staged = true, .import = false};
    const any_view all = pinned.host_view();
    const any_cview rows(static_cast<const std::byte*>(all.data()) + 1000 * 4, dtype::float32, shape{4, 1000});
    vk::device_tensor dev(ctx, dtype::float32, shape{4, 1000});
    vk::detail::upload_into(ctx, dev.storage(), 0, rows, opt);
    CHECK(ctx.frames_made() == 1); // one copy in one frame: no staging ring (two frames at least)
    // and back into the same place of the pinned tensor, cleared first: all of it as it was
    std::memset(static_cast<std::byte*>(all.data()) + 1000 * 4, 0, 4 * 1000 * 4);
    const any_view into(static_cast<std::byte*>(all.data()) + 1000 * 4, dtype::float32, shape{4, 1000});
    vk::detail::download_from(ctx, dev.storage(), 0, into, opt);
    CHECK(ctx.frames_made() == 1);
    CHECK(std::memcmp(all.data(), data.data(), data.bytes()) == 0);
    host_tensor back(dtype::float32, shape{4, 1000});
    vk::download(ctx, dev, back.view());
    CHECK(std::memcmp(back.data(), data.data() + 1000 * 4, back.bytes()) == 0);
    // a strided view of pinned memory is not one range: it goes through the staging ring
    const any_cview every_other(all.data(), dtype::float32, shape{3, 1000}, {2000, 1});
    vk::device_tensor odd(ctx, dtype::float32, shape{3, 1000});
    vk::detail::upload_into(ctx, odd.storage(), 0, every_other, opt);
    CHECK(ctx.frames_made() >= 2);
    host_tensor got(dtype::float32, shape{3, 1000});
    vk::download(ctx, odd, got.view());
    for (int r = 0; r < 3; ++r) CHECK(std::memcmp(got.data() + r * 4000, data.data() + 2 * r * 4000, 4000) == 0);
    // a range that only starts in the buffer is not taken for it; a destroyed buffer is forgotten
    const void* p = all.data();
    CHECK(ctx.find_mapped(p, pinned.storage().size()).first == pinned.storage().handle());
    CHECK(ctx.find_mapped(static_cast<const std::byte*>(p) + 16, pinned.storage().size()).first == VK_NULL_HANDLE);
    {
        const vk::device_tensor gone(ctx, dtype::float32, shape{64}, vk::memory::host);
        p = gone.host_view().data();
        CHECK(ctx.find_mapped(p, 256).first == gone.storage().handle());
    }
    CHECK(ctx.find_mapped(p, 256).first == VK_NULL_HANDLE);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: dense transfers copy straight from and to imported host memory, or through staging", "[vulkan]") {
    vk::context ctx;
    INFO(ctx.device().name << (ctx.can_import_host() ? " imports host memory" : " cannot import host memory"));
    rng_t g(0x1a9077ull);
    // 3 MiB and a bit, starting 4 bytes into a page-aligned block: pieces that begin and end
    // inside pages, imported (pieces of 1 MiB and more) or staged (smaller ones, or no import)
    constexpr std::uint64_t bytes = (3ull << 20) + 4100;
    std::vector<std::byte> block(bytes + 3 * 4096);
    auto* base = reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(block.data()) + 4095) / 4096 * 4096) + 4;
    for (std::uint64_t i = 0; i < bytes; ++i) base[i] = static_cast<std::byte>(g() & 0xff);
    const std::vector<std::byte> expect(base, base + bytes);
    const any_cview view(base, dtype::uint8, shape{static_cast<std::int64_t>(bytes)});
    for (const bool import : {true, false}) {
        for (const std::uint64_t limit : {std::uint64_t{1} << 20, std::uint64_t{3} << 19, std::uint64_t{20000}}) {
            INFO((import ? "import" : "staging") << ", pieces of at most " << limit << " bytes");
            const vk::detail::transfer_options opt{.limit = limit, .staged = true, .import = import};
            vk::device_tensor t(ctx, dtype::uint8, view.sizes());
            vk::detail::upload_into(ctx, t.storage(), 0, view, opt);
            host_tensor straight(dtype::uint8, view.sizes());
            vk::download(ctx, t, straight.view());
            CHECK(std::memcmp(straight.data(), expect.data(), bytes) == 0);
            // back into the block, the bytes either side of it untouched
            std::memset(base - 4, 0x5a, bytes + 8);
            vk::detail::download_from(ctx, t.storage(), 0, any_view(base, dtype::uint8, view.sizes()), opt);
            CHECK(std::memcmp(base, expect.data(), bytes) == 0);
            CHECK(std::to_integer<int>(base[-1]) == 0x5a);
            CHECK(std::to_integer<int>(base[bytes]) == 0x5a);
            std::memcpy(base, expect.data(), bytes);
        }
    }
    // an import covers the pages the range touches, and the range sits at the offset it reports
    if (ctx.can_import_host()) {
        std::uint64_t at = 0;
        const vk::buffer b = ctx.import_host(base + 100, 5000, &at);
        REQUIRE(b.handle() != VK_NULL_HANDLE);
        CHECK(at == (reinterpret_cast<std::uintptr_t>(base + 100) % ctx.device().host_import_alignment));
        CHECK(b.size() >= at + 5000);
    }
    CHECK(ctx.validation_messages() == 0);
}
