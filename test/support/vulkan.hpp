#pragma once
// The Vulkan harness: every differential case places its operands in byte arenas of random
// contents, with random strides and address offsets, and runs the same call on the CPU (the
// reference), on device views into device copies of the arenas and through the host convenience
// call; the three must agree byte for byte, bytes outside the output view included, or throw the
// same strix::error. Only the Vulkan test program includes this (STRIX_TEST_VULKAN).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "strix/vulkan.hpp"

#include "common.hpp"
#include "system.hpp"

namespace strix_test {

namespace vk = strix::vulkan;
using strides_t = coords;

// ---------------------------------------------------------------------------------------------
// Shapes and strides

/// Lowers random dimensions of `s` until it has at most `limit` elements.
inline void shrink_to(rng_t& g, shape& s, std::int64_t limit) {
    while (s.count() > limit) {
        const int i = static_cast<int>(uni(g, 0, s.rank - 1));
        if (s[i] > 1) --s[i];
    }
}

/// A shape of `rank` dimensions of 1..4 (now and then 0), with at most `limit` elements.
inline shape bounded_shape(rng_t& g, int rank, std::int64_t limit) {
    shape s = random_dims(g, rank, 40, 4);
    shrink_to(g, s, limit);
    return s;
}

/// Element strides for `s`: C, Fortran or a random order of the dimensions, sometimes with gaps
/// between them, some negated and — for inputs — some zero (broadcast). Without zeros the
/// dimensions nest, so an output never reaches one address twice.
inline strides_t random_strides(rng_t& g, const shape& s, bool input) {
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

/// C-order strides of a shape, each dimension `spread` times apart from the next outer one's
/// elements (spread 1: dense).
inline strides_t spread_strides(const shape& s, std::int64_t spread) {
    strides_t st{};
    std::int64_t step = 1;
    for (int i = s.rank - 1; i >= 0; --i) {
        st[static_cast<std::size_t>(i)] = step;
        step *= s[i] * spread;
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

inline std::string str(const placed& p) {
    std::ostringstream o;
    o << type_name(p.type) << ' ' << str(p.sizes) << " strides " << str(p.strides, p.sizes.rank) << " at arena " << p.arena << " + "
      << p.offset;
    return o.str();
}

/// Lowest and one-past-highest element offset a view reaches (0, 0 when it has no elements).
inline std::pair<std::int64_t, std::int64_t> reach(const shape& s, const strides_t& st) {
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
    /// An operand alone in a new arena, from its start (which the device aligns to 16 bytes or more).
    placed place_alone(dtype t, const shape& s, const strides_t& st) {
        const auto es = static_cast<std::int64_t>(strix::size_of(t));
        const auto [lo, hi] = reach(s, st);
        bytes.push_back((hi - lo) * es);
        return {bytes.size() - 1, -lo * es, t, s, st};
    }
};

/// A host tensor of random bytes (0 or 1 for bool: its storage type holds nothing else).
inline host_tensor random_tensor(rng_t& g, dtype t, const shape& s) {
    host_tensor h(t, s);
    for (std::size_t i = 0; i < h.bytes(); ++i) h.data()[i] = static_cast<std::byte>(g() >> 56);
    if (t == dtype::boolean)
        for (std::size_t i = 0; i < h.bytes(); ++i) h.data()[i] &= std::byte{1};
    return h;
}

using arenas = std::vector<host_tensor>;

/// Arenas of the layout's sizes, filled with random bytes.
inline arenas random_arenas(rng_t& g, const layout& l) {
    arenas a;
    for (const auto n : l.bytes) a.push_back(random_tensor(g, dtype::uint8, {std::max<std::int64_t>(n, 1)}));
    return a;
}

/// The arenas of bool operands made 0 or 1 throughout (call before writing index values).
inline void bool_bytes(arenas& mem, const std::vector<placed>& ops) {
    for (const placed& p : ops)
        if (p.type == dtype::boolean)
            for (std::size_t i = 0; i < mem[p.arena].bytes(); ++i) mem[p.arena].data()[i] &= std::byte{1};
}

inline arenas copy(const arenas& a) {
    arenas c;
    for (const auto& t : a) {
        host_tensor n(t.type(), t.sizes());
        std::memcpy(n.data(), t.data(), t.bytes());
        c.push_back(std::move(n));
    }
    return c;
}

inline any_view host_view(arenas& a, const placed& p) { return any_view(a[p.arena].data() + p.offset, p.type, p.sizes, p.strides); }

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

inline vk::device_view device_view(const std::vector<vk::device_tensor>& a, const placed& p) {
    // a view of the arena's buffer, placed within it (its origin and owner are the arena's)
    vk::device_view v = a[p.arena].view();
    v.address += static_cast<std::uint64_t>(p.offset);
    v.type = p.type;
    v.sizes = p.sizes;
    v.strides = p.strides;
    return v;
}

/// The elements of an operand in C order, copied one by one (independent of the library).
inline host_tensor pack(const arenas& a, const placed& p) {
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
inline bool same_bytes(const host_tensor& a, const host_tensor& b) {
    return a.type() == b.type() && a.sizes() == b.sizes() && (a.bytes() == 0 || std::memcmp(a.data(), b.data(), a.bytes()) == 0);
}

/// Position of the first byte where two arenas differ, -1 when they are equal.
inline std::int64_t first_difference(const host_tensor& a, const host_tensor& b) {
    if (a.bytes() != b.bytes()) return 0;
    if (std::memcmp(a.data(), b.data(), a.bytes()) == 0) return -1;
    for (std::size_t i = 0; i < a.bytes(); ++i)
        if (a.data()[i] != b.data()[i]) return static_cast<std::int64_t>(i);
    return -1;
}

/// Checks that every arena of `got` equals `want` byte for byte.
inline void check_same(const arenas& got, const arenas& want, const char* what) {
    REQUIRE(got.size() == want.size());
    for (std::size_t a = 0; a < got.size(); ++a) {
        INFO(what << ": arena " << a << " differs first at byte " << first_difference(got[a], want[a]));
        CHECK(first_difference(got[a], want[a]) == -1);
    }
}

/// Checks that no byte outside the elements of the `outs` changed from `initial`.
inline void check_untouched(const arenas& got, const arenas& initial, const std::vector<placed>& outs) {
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
// Index views

/// Fills the index view `v` for an axis of size `n`.
inline void fill_index_view(rng_t& g, const any_view& v, std::int64_t n, index_mode m, std::int64_t dup_range = 0) {
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

/// Fills index tuples (the last dimension of `v`) for axes first.. of `target`, each component
/// valid for its own axis; under index_mode::clamp half of them anywhere, under error one bad.
inline void fill_tuple_view(rng_t& g, const any_view& v, int first, const shape& target, index_mode m, bool colliding) {
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

/// Whether the device refuses a `red` reduction of `type` (where the CPU runs it): float64 add
/// and mul without shaderFloat64 (the baseline path, or a device without it).
inline bool refuses_reduction(const vk::context& ctx, dtype type, strix::scatter_reduction red) {
    return type == dtype::float64 && (red == strix::scatter_reduction::add || red == strix::scatter_reduction::mul) && !ctx.float64();
}

/// That refusal: unsupported, naming the operation and the missing feature.
inline void check_refusal(const outcome& o) {
    INFO(o.what);
    CHECK(o.threw);
    CHECK(o.code == error_code::unsupported);
    CHECK(o.what.find("float64 add and mul reductions need shaderFloat64") != std::string::npos);
}

inline void check_same_outcome(const outcome& got, const outcome& want, const char* what) {
    INFO(what << " threw: " << got.threw << " '" << got.what << "'; the CPU threw: " << want.threw << " '" << want.what << "'");
    REQUIRE(got.threw == want.threw);
    if (!want.threw) return;
    CHECK(got.code == want.code);
    CHECK(got.what == want.what);
}

/// Counts what a run of cases exercised.
struct tally {
    int cases = 0, failed_rules = 0, index_errors = 0;
    int tiled = 0; ///< streams that moved through a tile of the input (shaders/tile.comp)
    int rows = 0;  ///< streams whose scatter kept one winner per row (scatter.comp's PHASE 2)
    int wide_rows = 0; ///< of those, the ones whose row pass moved 16-byte pieces
    int direct = 0;    ///< streams whose scatter wrote its updates straight (unique indices: scatter.comp's PHASE 3)
    int wide_direct = 0; ///< of those, the ones that moved 16-byte pieces of rows
    int refused = 0; ///< float64 add and mul reductions the device refused (refuses_reduction)
};

using cpu_call = std::function<void(const host_operands&)>;
using stream_call = std::function<void(vk::stream&, const std::vector<vk::device_view>&)>;
using host_call = std::function<void(vk::context&, const host_operands&)>;

/// Runs one call on the CPU, on device views (one stream) and through the host convenience call,
/// all on copies of `initial`, and checks that the three agree byte for byte — or throw the same
/// strix::error. `ops[out]` is the operand the call writes (split: the last of those it writes,
/// the others being `also_written`).
inline void differential(vk::context& ctx, const arenas& initial, const std::vector<placed>& ops, std::size_t out, const cpu_call& cpu,
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
        vk::stream s(ctx, {.stats = true});
        og = capture([&] { dev(s, dviews); });
        t.tiled += s.stats().tiled > 0 ? 1 : 0;
        t.rows += s.stats().row_scatters > 0 ? 1 : 0;
        t.wide_rows += s.stats().row_piece_scatters > 0 ? 1 : 0;
        t.direct += s.stats().direct_scatters > 0 ? 1 : 0;
        t.wide_direct += s.stats().direct_piece_scatters > 0 ? 1 : 0;
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
    // the one call a device may refuse where the CPU runs it (refuses_reduction): refused
    // while recording, after the operator's rules (an index the CPU finds out of range is never
    // read), nothing written, and the same from the convenience call
    if ((!oc.threw || oc.code == error_code::index_out_of_range) && og.threw && og.what.find("need shaderFloat64") != std::string::npos && !ctx.float64()) {
        check_refusal(og);
        CHECK(!og.at_run);
        check_same(gpu_mem, initial, "a refused call wrote on the device");
        arenas host_mem = copy(initial);
        check_refusal(capture([&] { host(ctx, host_operands{host_mem, ops}); }));
        ++t.refused;
        return;
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
// What the tests run on

/// Every way a case chooses its indices.
inline constexpr index_mode index_modes[] = {index_mode::valid, index_mode::clamp, index_mode::error};

/// The element sizes a move's differential test runs through, and the type of case `k` of each.
/// A move copies bytes, so its shaders differ by element size only (the types' own rules, the
/// fill values among them, are the CPU's, tested in the unit program): the loops run each size
/// with every index type and mode, and case k takes the types of its size in turn, so that every
/// element type still runs, for about a quarter of the work of a loop over all 15.
inline constexpr std::size_t element_sizes[] = {8, 4, 2, 1};
inline dtype type_of_size(std::size_t bytes, std::uint64_t k) {
    std::vector<dtype> of;
    for (const dtype t : strix::all_dtypes)
        if (strix::size_of(t) == bytes) of.push_back(t);
    REQUIRE_FALSE(of.empty());
    return of[static_cast<std::size_t>(k % of.size())];
}

/// Whether elements of `bytes` bytes run other shaders on a context without 8/16-bit storage
/// (path 1, or small storage off): only 1- and 2-byte elements go through 32-bit words there;
/// wider ones run the default context's very shaders, so the differential tests leave them out.
inline bool words_path_differs(std::size_t bytes) { return bytes < 4; }

/// The seed of case `k` of a test.
inline std::uint64_t case_seed(std::uint64_t base, std::uint64_t k) { return base ^ (k * 0x9e3779b97f4a7c15ull); }

/// A context with 8/16-bit storage (the default) or without (the 32-bit word path for 1- and
/// 2-byte elements): the differential tests run on both.
inline vk::context_options storage_options(bool small) {
    vk::context_options o;
    o.small_storage = small;
    return o;
}

/// The paths a move's differential test runs on: 0, 8/16-bit storage; 1, 32-bit words only; 2,
/// 8/16-bit storage with every move located in 64-bit arithmetic and pad folds read from their
/// maps (the path of calls too large for 32-bit offsets; by default small calls take the 32-bit one).
inline vk::context_options path_options(int path) {
    vk::context_options o = storage_options(path != 1);
    o.always_addr64 = path == 2;
    return o;
}

/// The paths those tests run: all three, or in a reduced run (sanitized builds: the build sets
/// STRIX_TEST_REDUCED) 0 and 2, whose host code differs (32-bit records against 64-bit maps);
/// path 1 differs from 0 in the shaders, which a sanitizer does not see.
inline bool reduced_run() {
    const char* r = harness_env("STRIX_TEST_REDUCED");
    return r != nullptr && *r != '\0' && std::strcmp(r, "0") != 0;
}
inline std::vector<int> test_paths() { return reduced_run() ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2}; }
/// Whether combination `k` (counted from 1) of a differential test's loop runs on `path`: all of
/// them, or in a reduced run every other one on each of the two paths, so that together they
/// still cover every combination once, for half the work (a sanitized run's longest test).
inline bool runs_on(int path, std::uint64_t k) { return !reduced_run() || (k % 2 == 0) == (path == 2); }
/// A count a test expects at least `full` of; half that in a reduced run.
inline int at_least(int full) { return reduced_run() ? full / 2 : full; }
/// The storage modes of the scatter differential tests: both, or in a reduced run 8/16-bit
/// storage only (the other differs in the shaders).
inline std::vector<int> storage_modes() { return reduced_run() ? std::vector<int>{1} : std::vector<int>{1, 0}; }

/// A host tensor of indices in range for an axis of size n (negative ones too when signed).
inline host_tensor index_tensor(rng_t& g, dtype t, const shape& s, std::int64_t n) {
    host_tensor h(t, s);
    for_each_coord(s, [&](const coords& c) { write_index(h.view(), c, valid_index(g, t, n)); });
    return h;
}

inline host_tensor read_back(vk::context& ctx, const vk::device_tensor& t) {
    host_tensor h(t.type(), t.sizes());
    vk::download(ctx, t, h.view());
    return h;
}

} // namespace strix_test
