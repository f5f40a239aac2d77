// Randomized differential tests of gather, join, pad and scatter, and of the family beyond
// DirectML (gather-elements, gather-nd, split, scatter-nd, scatter reductions, wrap and crops).
//
// Each case builds random operands in strided buffers — C order, Fortran order, permuted,
// padded between elements, negative strides and, for inputs only, zero strides — runs the
// library, and compares every output element bit for bit with a naive reference written from the
// operator semantics in SPEC.md: plain coordinate loops that turn each multi-index into an element
// offset, independent of the library's plans. Every slot of the output buffer outside the output
// view must keep its sentinel bytes, and input buffers must not change.
//
// Every case has its own seed, printed on failure, so a failing case can be rerun alone.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "strix/strix.hpp"

namespace {

using strix::any_cview;
using strix::any_view;
using strix::dtype;
using strix::error_code;
using strix::host_tensor;
using strix::index_policy;
using strix::pad_mode;
using strix::shape;

using coords = std::array<std::int64_t, strix::max_rank>;
using rng_t = std::mt19937_64;
using bytes = std::vector<std::byte>;

/// How the random cases run: the bound on any operand's elements, the bound on a buffer's slots
/// (larger layouts fall back to C order) and the executor's options. The large multi-threaded
/// test raises the bounds and asks for four threads.
struct run_config {
    std::int64_t max_elems = 4096;
    std::int64_t max_slots = 65536;
    std::int64_t max_size = 4; ///< largest size a random dimension starts with
    strix::cpu::options opt{};
};
run_config config;

/// Sets `config` for one scope.
struct config_scope {
    run_config saved = config;
    explicit config_scope(const run_config& c) { config = c; }
    ~config_scope() { config = saved; }
    config_scope(const config_scope&) = delete;
    config_scope& operator=(const config_scope&) = delete;
};

// ---------------------------------------------------------------------------------------------
// Random numbers and text

std::int64_t uni(rng_t& g, std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

bool chance(rng_t& g, int num, int den) { return uni(g, 0, den - 1) < num; }

std::string str(const shape& s) { return strix::to_string(s); }

std::string str(const coords& c, int rank) {
    std::string r = "[";
    for (int i = 0; i < rank; ++i) {
        if (i) r += ',';
        r += std::to_string(c[static_cast<std::size_t>(i)]);
    }
    return r + "]";
}

std::string hex(const std::byte* p, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s = "0x";
    for (std::size_t i = n; i-- > 0;) { // little endian: most significant byte last in memory
        const auto b = static_cast<unsigned>(p[i]);
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

std::string mode_name(pad_mode m) {
    switch (m) {
    case pad_mode::constant: return "constant";
    case pad_mode::edge: return "edge";
    case pad_mode::reflect: return "reflect";
    case pad_mode::symmetric: return "symmetric";
    case pad_mode::wrap: return "wrap";
    }
    return "?";
}

std::string type_name(dtype t) { return std::string(strix::name(t)); }

// ---------------------------------------------------------------------------------------------
// Coordinates

/// Calls `f(coords, linear)` for every coordinate of `s` in row-major order.
template <class F>
void for_each_coord(const shape& s, F&& f) {
    const std::int64_t n = s.count();
    coords c{};
    for (std::int64_t lin = 0; lin < n; ++lin) {
        f(static_cast<const coords&>(c), lin);
        for (int d = s.rank - 1; d >= 0; --d) {
            auto& cd = c[static_cast<std::size_t>(d)];
            if (++cd < s[d]) break;
            cd = 0;
        }
    }
}

/// Row-major position of `c` in `s`.
std::int64_t linear_of(const shape& s, const coords& c) {
    std::int64_t lin = 0;
    for (int d = 0; d < s.rank; ++d) lin = lin * s[d] + c[static_cast<std::size_t>(d)];
    return lin;
}

shape random_shape(rng_t& g, int rank, int zero_den = 24) {
    shape s;
    for (int i = 0; i < rank; ++i) s.push_back(chance(g, 1, zero_den) ? 0 : uni(g, 1, config.max_size));
    return s;
}

/// A size that the case generator may lower, and how far.
struct knob {
    std::int64_t* value;
    std::int64_t min;
};

/// Lowers random knobs (halving large ones, decrementing small ones) until `count()` is at most
/// config.max_elems or nothing can be lowered.
template <class F>
void shrink(rng_t& g, const std::vector<knob>& knobs, F count) {
    while (count() > config.max_elems) {
        std::vector<knob> movable;
        for (const auto& k : knobs)
            if (*k.value > k.min) movable.push_back(k);
        if (movable.empty()) return;
        const auto& k = movable[static_cast<std::size_t>(uni(g, 0, static_cast<std::int64_t>(movable.size()) - 1))];
        *k.value = *k.value > 4 ? std::max(k.min, *k.value / 2) : *k.value - 1;
    }
}

/// Knobs for every dimension of `s`: sizes of 1 or more stay at least 1, zero sizes stay zero.
void add_knobs(std::vector<knob>& knobs, shape& s) {
    for (int i = 0; i < s.rank; ++i) {
        auto& d = s.dims[static_cast<std::size_t>(i)];
        knobs.push_back({&d, std::min<std::int64_t>(d, 1)});
    }
}

// ---------------------------------------------------------------------------------------------
// Strided operands

/// A read-only view of reference data: the address of coordinate 0 and element strides.
struct ref_view {
    const std::byte* origin = nullptr;
    dtype type = dtype::float32;
    shape sizes{};
    coords strides{};

    [[nodiscard]] std::int64_t es() const { return static_cast<std::int64_t>(strix::size_of(type)); }
    [[nodiscard]] const std::byte* at(const coords& c) const {
        std::int64_t off = 0;
        for (int i = 0; i < sizes.rank; ++i) off += c[static_cast<std::size_t>(i)] * strides[static_cast<std::size_t>(i)];
        return origin + off * es();
    }
};

/// An operand: a byte buffer and a strided view into it (coordinate 0 at element slot `base`).
struct strided {
    dtype type = dtype::float32;
    shape sizes{};
    coords strides{};
    std::int64_t base = 0;
    std::string layout;
    bytes buf;

    [[nodiscard]] std::int64_t es() const { return static_cast<std::int64_t>(strix::size_of(type)); }
    [[nodiscard]] std::int64_t slots() const { return static_cast<std::int64_t>(buf.size()) / es(); }
    [[nodiscard]] std::int64_t offset(const coords& c) const {
        std::int64_t off = base;
        for (int i = 0; i < sizes.rank; ++i) off += c[static_cast<std::size_t>(i)] * strides[static_cast<std::size_t>(i)];
        return off;
    }
    std::byte* at(const coords& c) { return buf.data() + offset(c) * es(); }
    [[nodiscard]] const std::byte* at(const coords& c) const { return buf.data() + offset(c) * es(); }
    [[nodiscard]] any_cview cview() const { return {buf.data() + base * es(), type, sizes, strides}; }
    any_view view() { return {buf.data() + base * es(), type, sizes, strides}; }
    [[nodiscard]] ref_view ref() const { return {buf.data() + base * es(), type, sizes, strides}; }
    [[nodiscard]] std::string describe() const {
        return type_name(type) + " " + str(sizes) + " " + layout + " strides " + str(strides, sizes.rank) + " base " +
               std::to_string(base) + " of " + std::to_string(slots()) + " slots";
    }
};

/// An operand of shape `s` in a random layout: C order, Fortran order, a permuted order, gaps
/// between elements and rows, negative strides, and — unless it is an output — zero strides.
/// The buffer has a few spare slots before and after the view.
strided make_strided(rng_t& g, dtype t, const shape& s, bool output) {
    static const char* const names[] = {"C", "Fortran", "permuted", "gapped", "negative", "mixed", "broadcast"};
    const int r = s.rank;
    int kind = static_cast<int>(uni(g, 0, output ? 5 : 6));
    for (;;) {
        strided v;
        v.type = t;
        v.sizes = s;
        v.layout = names[kind];
        std::array<int, strix::max_rank> order{}; // innermost dimension first
        for (int i = 0; i < r; ++i) order[static_cast<std::size_t>(i)] = r - 1 - i;
        if (kind == 1)
            for (int i = 0; i < r; ++i) order[static_cast<std::size_t>(i)] = i;
        if (kind == 2 || kind == 3 || kind >= 5) std::shuffle(order.begin(), order.begin() + r, g);
        const bool gaps = kind == 3 || kind >= 5;
        std::int64_t acc = gaps ? uni(g, 1, 3) : 1;
        for (int k = 0; k < r; ++k) {
            const int d = order[static_cast<std::size_t>(k)];
            v.strides[static_cast<std::size_t>(d)] = acc;
            acc = acc * std::max<std::int64_t>(s[d], 1) + (gaps && chance(g, 1, 2) ? uni(g, 1, 2) : 0);
        }
        if (kind == 4 || kind >= 5)
            for (int d = 0; d < r; ++d)
                if (kind == 4 ? chance(g, 2, 3) : chance(g, 1, 2)) v.strides[static_cast<std::size_t>(d)] *= -1;
        if (kind == 6)
            for (int d = 0; d < r; ++d)
                if (chance(g, 1, 3)) v.strides[static_cast<std::size_t>(d)] = 0;
        std::int64_t lo = 0, hi = 0;
        if (s.count() > 0)
            for (int d = 0; d < r; ++d) {
                const std::int64_t span = (s[d] - 1) * v.strides[static_cast<std::size_t>(d)];
                (span < 0 ? lo : hi) += span;
            }
        v.base = uni(g, 0, 3) - lo;
        const std::int64_t slots = v.base + hi + 1 + uni(g, 0, 3);
        if (slots > config.max_slots && kind != 0) { // keep buffers small: fall back to C order
            kind = 0;
            continue;
        }
        v.buf.resize(static_cast<std::size_t>(slots * v.es()));
        return v;
    }
}

/// A C-order operand with no spare slots.
strided make_c_order(dtype t, const shape& s) {
    strided v;
    v.type = t;
    v.sizes = s;
    v.layout = "C";
    v.strides = strix::c_strides(s);
    v.buf.resize(static_cast<std::size_t>(std::max<std::int64_t>(s.count(), 1) * v.es()));
    return v;
}

void fill_random(rng_t& g, bytes& b) {
    for (std::size_t i = 0; i < b.size(); i += 8) {
        const std::uint64_t x = g();
        std::memcpy(b.data() + i, &x, std::min<std::size_t>(8, b.size() - i));
    }
}

// ---------------------------------------------------------------------------------------------
// Index values

/// Stores the low bytes of `bits` as an index of type `t` (two's complement for negatives).
void store_index(std::byte* p, dtype t, std::uint64_t bits) {
    if (t == dtype::int32 || t == dtype::uint32) {
        const auto w = static_cast<std::uint32_t>(bits);
        std::memcpy(p, &w, 4);
    } else {
        std::memcpy(p, &bits, 8);
    }
}

struct index_value {
    bool is_signed = false;
    std::int64_t s = 0;
    std::uint64_t u = 0;
};

index_value load_index(const std::byte* p, dtype t) {
    index_value v;
    switch (t) {
    case dtype::int32: { std::int32_t w; std::memcpy(&w, p, 4); v.is_signed = true; v.s = w; break; }
    case dtype::int64: { std::memcpy(&v.s, p, 8); v.is_signed = true; break; }
    case dtype::uint32: { std::uint32_t w; std::memcpy(&w, p, 4); v.u = w; break; }
    default: std::memcpy(&v.u, p, 8); break;
    }
    return v;
}

/// The position an index addresses on an axis of `n` elements: a signed index in [-n, n) counts
/// from the end when negative, an unsigned one must lie in [0, n). Outside those ranges `bad` is
/// set and the index is clamped (negatives after adding n) into [0, n-1].
std::int64_t resolve_ref(const index_value& v, std::int64_t n, bool& bad) {
    if (v.is_signed) {
        std::int64_t x = v.s;
        if (x < 0) x += n;
        if (x >= 0 && x < n) return x;
        bad = true;
        return x < 0 ? 0 : n - 1;
    }
    if (v.u < static_cast<std::uint64_t>(n)) return static_cast<std::int64_t>(v.u);
    bad = true;
    return n - 1;
}

/// Writes a valid random index for an axis of `n` into every slot of the buffer (so zero and
/// negative strides always read valid values). Signed types get negatives too.
void fill_indices(rng_t& g, strided& idx, std::int64_t n) {
    const bool sgn = idx.type == dtype::int32 || idx.type == dtype::int64;
    for (std::int64_t k = 0; k < idx.slots(); ++k) {
        const std::int64_t v = n == 0 ? 0 : sgn ? uni(g, -n, n - 1) : uni(g, 0, n - 1);
        store_index(idx.buf.data() + k * idx.es(), idx.type, static_cast<std::uint64_t>(v));
    }
}

/// Like fill_indices, with only one or two distinct values, so that scatter targets collide.
void fill_colliding_indices(rng_t& g, strided& idx, std::int64_t n) {
    const std::int64_t a = uni(g, 0, std::max<std::int64_t>(n - 1, 0)), b = uni(g, 0, std::max<std::int64_t>(n - 1, 0));
    for (std::int64_t k = 0; k < idx.slots(); ++k)
        store_index(idx.buf.data() + k * idx.es(), idx.type, static_cast<std::uint64_t>(chance(g, 1, 2) ? a : b));
}

/// Overwrites the index at a random coordinate of the view with a value outside [-n, n) (signed)
/// or [0, n) (unsigned). Returns a description.
std::string inject_bad_index(rng_t& g, strided& idx, std::int64_t n) {
    coords c{};
    for (int d = 0; d < idx.sizes.rank; ++d) c[static_cast<std::size_t>(d)] = uni(g, 0, idx.sizes[d] - 1);
    std::uint64_t bits = 0;
    std::string text;
    switch (idx.type) {
    case dtype::int32:
    case dtype::int64: {
        const bool wide = idx.type == dtype::int64;
        std::int64_t v = 0;
        switch (uni(g, 0, 3)) {
        case 0: v = n + uni(g, 0, 3); break;
        case 1: v = -n - 1 - uni(g, 0, 3); break;
        case 2: v = wide ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int32_t>::max(); break;
        default: v = wide ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int32_t>::min(); break;
        }
        bits = static_cast<std::uint64_t>(v);
        text = std::to_string(v);
        break;
    }
    default: {
        const bool wide = idx.type == dtype::uint64;
        switch (uni(g, 0, 2)) {
        case 0: bits = static_cast<std::uint64_t>(n + uni(g, 0, 3)); break;
        case 1: bits = wide ? std::numeric_limits<std::uint64_t>::max() : std::numeric_limits<std::uint32_t>::max(); break;
        default: bits = wide ? std::uint64_t{1} << 63 : std::uint64_t{1} << 31; break; // negative if misread as signed
        }
        text = std::to_string(bits);
        break;
    }
    }
    store_index(idx.at(c), idx.type, bits);
    return "index " + text + " written at " + str(c, idx.sizes.rank);
}

// ---------------------------------------------------------------------------------------------
// Checking results

/// Compares the output view element by element with `expect` (row-major bytes of its shape), and
/// every buffer slot outside the view with `before`. Fails a check for the first difference.
void check_output(const strided& out, const bytes& before, const bytes& expect) {
    const auto es = out.es();
    std::vector<char> in_view(static_cast<std::size_t>(out.slots()), 0);
    std::int64_t wrong = 0, stray = 0;
    std::string first;
    for_each_coord(out.sizes, [&](const coords& c, std::int64_t lin) {
        const auto o = out.offset(c);
        in_view[static_cast<std::size_t>(o)] = 1;
        const std::byte* got = out.buf.data() + o * es;
        const std::byte* want = expect.data() + lin * es;
        if (std::memcmp(got, want, static_cast<std::size_t>(es)) != 0 && wrong++ == 0)
            first = "element " + str(c, out.sizes.rank) + " is " + hex(got, static_cast<std::size_t>(es)) + ", expected " +
                    hex(want, static_cast<std::size_t>(es));
    });
    for (std::int64_t k = 0; k < out.slots(); ++k) {
        if (in_view[static_cast<std::size_t>(k)]) continue;
        if (std::memcmp(out.buf.data() + k * es, before.data() + k * es, static_cast<std::size_t>(es)) != 0 && stray++ == 0 &&
            first.empty())
            first = "slot " + std::to_string(k) + " outside the output view was written";
    }
    INFO(first);
    CHECK(wrong == 0);
    CHECK(stray == 0);
}

/// Compares a returned tensor with the expected shape, type and row-major bytes.
void check_tensor(const host_tensor& t, dtype type, const shape& s, const bytes& expect) {
    REQUIRE(t.type() == type);
    REQUIRE(t.sizes() == s);
    REQUIRE(t.bytes() == expect.size());
    const auto es = static_cast<std::int64_t>(strix::size_of(type));
    std::int64_t wrong = 0;
    std::string first;
    for (std::int64_t k = 0; k < s.count(); ++k)
        if (std::memcmp(t.data() + k * es, expect.data() + k * es, static_cast<std::size_t>(es)) != 0 && wrong++ == 0)
            first = "element " + std::to_string(k) + " (row-major) is " + hex(t.data() + k * es, static_cast<std::size_t>(es)) +
                    ", expected " + hex(expect.data() + k * es, static_cast<std::size_t>(es));
    INFO(first);
    CHECK(wrong == 0);
}

/// The output view's elements in row-major order.
bytes read_view(const strided& v) {
    bytes b(static_cast<std::size_t>(v.sizes.count() * v.es()));
    for_each_coord(v.sizes, [&](const coords& c, std::int64_t lin) {
        std::memcpy(b.data() + lin * v.es(), v.at(c), static_cast<std::size_t>(v.es()));
    });
    return b;
}

/// Runs `f`, which must throw strix::error with `code`.
template <class F>
void expect_error(error_code code, F&& f) {
    try {
        f();
        FAIL_CHECK("no strix::error was thrown");
    } catch (const strix::error& e) {
        INFO("message: " << e.what());
        CHECK(e.code() == code);
    }
}

/// Runs `f`; an exception fails the check (the case goes on to its comparisons only if none).
template <class F>
bool call_ok(F&& f) {
    try {
        f();
        return true;
    } catch (const std::exception& e) {
        FAIL_CHECK("unexpected exception: " << e.what());
        return false;
    }
}

// ---------------------------------------------------------------------------------------------
// The reference: SPEC.md's semantics, element by element

struct ref_result {
    bytes data;       ///< the expected output, row-major
    bool bad = false; ///< some index lay out of range (the data then holds the clamped result)
};

/// GATHER, natural form: output = input[0..axis) ++ indices ++ input(axis..r) and
/// out[f] = in[f[0..axis), indices[f[axis..axis+q)], f[axis+q..]]. Every index is checked.
/// `dropped` describes the DirectML form, whose output is the natural one right-aligned to rank
/// r: the full coordinate f is `dropped` zeros followed by the output coordinate, or, for -1, the
/// output coordinate without its first entry (a leading 1 added by IndexDimensions 0).
ref_result gather_ref(const ref_view& in, const ref_view& idx, int axis, const shape& out_shape, int dropped = 0) {
    ref_result res;
    const auto es = in.es();
    const int r = in.sizes.rank, q = idx.sizes.rank;
    const std::int64_t n = in.sizes[axis];
    res.data.resize(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t) { resolve_ref(load_index(idx.at(c), idx.type), n, res.bad); });
    if (n == 0) return res;
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        std::array<std::int64_t, 2 * strix::max_rank> f{}; // the natural form's coordinate
        if (dropped >= 0)
            for (int i = 0; i < out_shape.rank; ++i) f[static_cast<std::size_t>(dropped + i)] = o[static_cast<std::size_t>(i)];
        else
            for (int i = 1; i < out_shape.rank; ++i) f[static_cast<std::size_t>(i - 1)] = o[static_cast<std::size_t>(i)];
        coords ic{};
        for (int j = 0; j < q; ++j) ic[static_cast<std::size_t>(j)] = f[static_cast<std::size_t>(axis + j)];
        bool bad = false;
        coords c{};
        for (int i = 0; i < axis; ++i) c[static_cast<std::size_t>(i)] = f[static_cast<std::size_t>(i)];
        c[static_cast<std::size_t>(axis)] = resolve_ref(load_index(idx.at(ic), idx.type), n, bad);
        for (int i = axis + 1; i < r; ++i) c[static_cast<std::size_t>(i)] = f[static_cast<std::size_t>(i - 1 + q)];
        std::memcpy(res.data.data() + lin * es, in.at(c), static_cast<std::size_t>(es));
    });
    return res;
}

/// JOIN: the inputs one after another along the axis.
bytes join_ref(const std::vector<ref_view>& ins, int axis, const shape& out_shape) {
    const auto es = ins[0].es();
    bytes out(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords c = o;
        std::size_t k = 0;
        auto& pos = c[static_cast<std::size_t>(axis)];
        while (pos >= ins[k].sizes[axis]) pos -= ins[k++].sizes[axis];
        std::memcpy(out.data() + lin * es, ins[k].at(c), static_cast<std::size_t>(es));
    });
    return out;
}

/// The input coordinate that output position `j` (relative to the first input element) takes on
/// a dimension of `n`, or -1 for the fill value. Mirrors fold repeatedly, as numpy.pad does.
std::int64_t pad_fold(pad_mode mode, std::int64_t j, std::int64_t n) {
    if (j >= 0 && j < n) return j;
    switch (mode) {
    case pad_mode::constant: return -1;
    case pad_mode::edge: return j < 0 ? 0 : n - 1;
    case pad_mode::reflect:
        if (n == 1) return 0;
        while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
        return j;
    case pad_mode::symmetric:
        while (j < 0 || j >= n) j = j < 0 ? -j - 1 : 2 * n - 1 - j;
        return j;
    case pad_mode::wrap:
        while (j < 0) j += n;
        while (j >= n) j -= n;
        return j;
    }
    return -1;
}

/// PADDING: out[o] = in[fold(o - start)] per dimension, or the fill when any dimension has none.
bytes pad_ref(const ref_view& in, pad_mode mode, const shape& start, const std::byte* fill, const shape& out_shape) {
    const auto es = in.es();
    bytes out(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords c{};
        bool filled = false;
        for (int d = 0; d < out_shape.rank && !filled; ++d) {
            const std::int64_t s = pad_fold(mode, o[static_cast<std::size_t>(d)] - start[d], in.sizes[d]);
            filled = s < 0;
            c[static_cast<std::size_t>(d)] = s;
        }
        std::memcpy(out.data() + lin * es, filled ? fill : in.at(c), static_cast<std::size_t>(es));
    });
    return out;
}

/// One scatter reduction step on values of C++ type T: ONNX's none/add/mul/min/max, integers
/// wrapping around, a NaN sum or product being the default quiet NaN, and for floats the min/max
/// rule of the README (a NaN stays, a NaN update is taken, -0 < +0).
template <class T>
T reduce_ref(T a, T b, strix::scatter_reduction red) {
    using R = strix::scatter_reduction;
    if (red == R::none) return b;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, _Float16>) {
        if (red == R::add || red == R::mul) { // a NaN result is the default quiet NaN (positive, no payload)
            const T v = static_cast<T>(red == R::add ? a + b : a * b);
            return std::isnan(static_cast<double>(v)) ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : v;
        }
        const double x = static_cast<double>(a), y = static_cast<double>(b);
        if (std::isnan(x)) return a;
        if (std::isnan(y)) return b;
        if (red == R::min) return (y < x || (y == x && std::signbit(y))) ? b : a;
        return (y > x || (y == x && !std::signbit(y))) ? b : a;
    } else {
        const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
        if (red == R::add) return static_cast<T>(ua + ub);
        if (red == R::mul) return static_cast<T>(ua * ub);
        if (red == R::min) return std::min(a, b);
        return std::max(a, b);
    }
}

/// Combines the update at `u` into the element at `acc` (type `t`).
void combine_ref(std::byte* acc, const std::byte* u, dtype t, strix::scatter_reduction red) {
    auto step = [&]<class T>(T) {
        T a, b;
        std::memcpy(&a, acc, sizeof(T));
        std::memcpy(&b, u, sizeof(T));
        const T r = reduce_ref(a, b, red);
        std::memcpy(acc, &r, sizeof(T));
    };
    switch (t) {
    case dtype::float64: step(double{}); break;
    case dtype::float32: step(float{}); break;
    case dtype::float16: step(_Float16{}); break;
    case dtype::int64: step(std::int64_t{}); break;
    case dtype::int32: step(std::int32_t{}); break;
    case dtype::int16: step(std::int16_t{}); break;
    case dtype::int8: step(std::int8_t{}); break;
    case dtype::uint64: step(std::uint64_t{}); break;
    case dtype::uint32: step(std::uint32_t{}); break;
    case dtype::uint16: step(std::uint16_t{}); break;
    case dtype::uint8: step(std::uint8_t{}); break;
    }
}

/// SCATTER: output = input, then for every index position p in row-major order
/// output[p with p[axis] = indices[p]] = updates[p] (so the last duplicate wins), or combined
/// under a reduction.
ref_result scatter_ref(const ref_view& in, const ref_view& idx, const ref_view& upd, int axis,
                       strix::scatter_reduction red = strix::scatter_reduction::none) {
    ref_result res;
    const auto es = in.es();
    res.data.resize(static_cast<std::size_t>(in.sizes.count() * es));
    for_each_coord(in.sizes, [&](const coords& c, std::int64_t lin) {
        std::memcpy(res.data.data() + lin * es, in.at(c), static_cast<std::size_t>(es));
    });
    const std::int64_t n = in.sizes[axis];
    if (n == 0) {
        res.bad = idx.sizes.count() > 0;
        return res;
    }
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t) {
        coords t = c;
        t[static_cast<std::size_t>(axis)] = resolve_ref(load_index(idx.at(c), idx.type), n, res.bad);
        combine_ref(res.data.data() + linear_of(in.sizes, t) * es, upd.at(c), in.type, red);
    });
    return res;
}

// ---------------------------------------------------------------------------------------------
// Pad fill values

double half_value(std::uint16_t h) {
    const int e = (h >> 10) & 0x1f;
    const int m = h & 0x3ff;
    const double v = e == 0x1f ? (m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity())
                     : e == 0  ? std::ldexp(m, -24)
                               : std::ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

struct fill_value {
    strix::scalar value;
    std::array<std::byte, 8> bits{}; ///< the element it must become
};

/// A random constant for pad and the element it must become: float16 values given as the exact
/// double of a half bit pattern; float32 values rounded as a C++ conversion does; float64 any bit
/// pattern; integer types as exact integers (2^62+1 included) or as doubles with a fraction,
/// truncated toward zero.
fill_value random_fill(rng_t& g, dtype t) {
    return strix::visit(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_value f;
        if constexpr (std::is_same_v<T, strix::float16>) {
            std::uint16_t h = 0;
            switch (uni(g, 0, 4)) {
            case 0: h = 0x8000; break; // -0
            case 1: h = chance(g, 1, 2) ? 0x7c00 : 0xfc00; break;
            case 2: h = static_cast<std::uint16_t>(uni(g, 1, 0x3ff) | (chance(g, 1, 2) ? 0x8000 : 0)); break;
            default:
                do h = static_cast<std::uint16_t>(g()); while ((h & 0x7c00) == 0x7c00);
                break;
            }
            f.value = strix::scalar(half_value(h));
            std::memcpy(f.bits.data(), &h, 2);
        } else if constexpr (std::is_same_v<T, double>) {
            std::uint64_t b = chance(g, 1, 6) ? std::uint64_t{1} << 63 : g(); // -0, or any pattern (NaNs included)
            double v;
            std::memcpy(&v, &b, 8);
            f.value = strix::scalar(v);
            std::memcpy(f.bits.data(), &b, 8);
        } else if constexpr (std::is_same_v<T, float>) {
            double v = 0;
            switch (uni(g, 0, 5)) {
            case 0: v = std::uniform_real_distribution<double>(-3e38, 3e38)(g); break;
            case 1: v = std::uniform_real_distribution<double>(-10, 10)(g); break;
            case 2: v = std::uniform_real_distribution<double>(-1e-40, 1e-40)(g); break; // float subnormals
            case 3: v = -0.0; break;
            case 4: v = chance(g, 1, 2) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(); break;
            default: v = std::numeric_limits<double>::quiet_NaN(); break;
            }
            f.value = strix::scalar(v);
            const auto fv = static_cast<float>(v);
            std::memcpy(f.bits.data(), &fv, 4);
        } else {
            using L = std::numeric_limits<T>;
            constexpr bool sgn = std::is_signed_v<T>;
            T expect{};
            switch (uni(g, 0, 3)) {
            case 0: { // an exact integer anywhere in the type's range
                expect = static_cast<T>(g());
                if constexpr (sgn) f.value = strix::scalar(static_cast<std::int64_t>(expect));
                else f.value = strix::scalar(static_cast<std::uint64_t>(expect));
                break;
            }
            case 1: { // a double with a fraction: truncates toward zero
                constexpr std::int64_t cap = std::int64_t{1} << 40; // keeps t + fraction exact enough
                const std::int64_t lo = sgn ? std::max<std::int64_t>(static_cast<std::int64_t>(L::min()), -cap) : 0;
                const std::int64_t hi = static_cast<std::int64_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(L::max()), cap));
                const std::int64_t tv = uni(g, lo, hi);
                const double frac = static_cast<double>(uni(g, 1, 99)) / 100.0;
                double v = static_cast<double>(tv) + (tv < 0 ? -frac : frac);
                if (tv == 0 && chance(g, 1, 2)) v = -frac; // truncates to 0, unsigned types too
                expect = static_cast<T>(tv);
                f.value = strix::scalar(v);
                break;
            }
            case 2: { // the extremes, exactly; 2^62+1 (not a double) for the 64-bit types
                if constexpr (sizeof(T) == 8) {
                    const std::uint64_t big = (std::uint64_t{1} << 62) + 1;
                    if constexpr (sgn) {
                        const auto v = chance(g, 1, 2) ? static_cast<std::int64_t>(big) : -static_cast<std::int64_t>(big);
                        expect = static_cast<T>(v);
                        f.value = strix::scalar(v);
                    } else {
                        expect = static_cast<T>(big);
                        f.value = strix::scalar(big);
                    }
                } else {
                    expect = chance(g, 1, 2) ? L::min() : L::max();
                    if constexpr (sgn) f.value = strix::scalar(static_cast<std::int64_t>(expect));
                    else f.value = strix::scalar(static_cast<std::uint64_t>(expect));
                }
                break;
            }
            default: { // small values such as 10.6 -> 10 and -3.7 -> -3
                const std::int64_t tv = uni(g, sgn ? -20 : 0, 20);
                const double frac = static_cast<double>(uni(g, 0, 9)) / 10.0;
                expect = static_cast<T>(tv);
                f.value = strix::scalar(static_cast<double>(tv) + (tv < 0 ? -frac : frac));
                break;
            }
            }
            std::memcpy(f.bits.data(), &expect, sizeof(T));
        }
        return f;
    });
}

// ---------------------------------------------------------------------------------------------
// Cases

/// What a case does with the indices: valid ones (under `error`), out-of-range ones under
/// `clamp`, or out-of-range ones under `error`.
enum class index_case { valid, clamp_bad, error_bad };

index_case random_index_case(rng_t& g) {
    const auto k = uni(g, 0, 3);
    return k < 2 ? index_case::valid : k == 2 ? index_case::clamp_bad : index_case::error_bad;
}

std::string case_name(index_case c) {
    return c == index_case::valid ? "valid indices" : c == index_case::clamp_bad ? "out-of-range indices, clamp" : "out-of-range indices, error";
}

void gather_natural_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int q = static_cast<int>(uni(g, 0, strix::max_rank - r + 1));
    shape in = random_shape(g, r), idx = random_shape(g, q);
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    auto out_shape = [&] {
        shape o;
        for (int i = 0; i < axis; ++i) o.push_back(in[i]);
        for (int j = 0; j < q; ++j) o.push_back(idx[j]);
        for (int i = axis + 1; i < r; ++i) o.push_back(in[i]);
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, idx);
    shrink(g, knobs, [&] { return std::max(in.count(), out_shape().count()); });
    const shape out = out_shape();
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_case ic = random_index_case(g);
    const auto policy = ic == index_case::clamp_bad ? index_policy::clamp : index_policy::error;

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_case::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf, idx_before = vidx.buf;
    const bool returning = chance(g, 1, 5);

    INFO("gather natural, seed " << seed << ", " << case_name(ic) << ", axis " << given_axis << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_desc desc{given_axis, -1, policy};
    if (in[axis] == 0 && idx.count() > 0) { // indices into an empty axis, read or not
        expect_error(error_code::rule_violation, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_ref(vin.ref(), vidx.ref(), axis, out);
    // Every index is checked, also those an empty output never reads (numpy.take refuses them too).
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::gather(vin.cview(), vidx.cview(), desc, config.opt); })) check_tensor(t, et, out, ref.data);
    } else {
        if (call_ok([&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); })) check_output(vout, out_before, ref.data);
    }
    CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
}

void gather_directml_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int k = static_cast<int>(uni(g, 0, r));
    const int axis = static_cast<int>(uni(g, std::max(k - 1, 0), r - 1));
    shape in = random_shape(g, r);
    for (int i = 0; i + 1 < k; ++i) in[i] = 1; // the leading 1s the output drops
    shape tail = random_shape(g, k);            // the meaningful index dimensions
    // the output: input[k-1..axis) ++ tail ++ input(axis..r), or a leading 1 first for K = 0
    // (the natural form's shape, of rank r + k - 1, right-aligned to rank r)
    auto out_shape = [&] {
        shape o;
        if (k == 0) o.push_back(1);
        for (int i = std::max(k - 1, 0); i < axis; ++i) o.push_back(in[i]);
        for (int j = 0; j < k; ++j) o.push_back(tail[j]);
        for (int i = axis + 1; i < r; ++i) o.push_back(in[i]);
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, tail);
    shrink(g, knobs, [&] { return std::max(in.count(), out_shape().count()); });
    const shape out = out_shape();
    REQUIRE(out.rank == r);
    shape idx;
    for (int i = 0; i < r - k; ++i) idx.push_back(1);
    for (int j = 0; j < k; ++j) idx.push_back(tail[j]);
    // the natural form on the meaningful indices, where its rank r + k - 1 is at most 8
    const bool natural_fits = r + k - 1 <= strix::max_rank;
    shape natural;
    if (natural_fits) {
        for (int i = 0; i < k - 1; ++i) natural.push_back(1);
        for (int i = k == 0 ? 1 : 0; i < r; ++i) natural.push_back(out[i]);
    }

    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_case ic = random_index_case(g);
    const auto policy = ic == index_case::clamp_bad ? index_policy::clamp : index_policy::error;
    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_case::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf;

    // the meaningful part of the indices: their last k dimensions
    ref_view tail_ref = vidx.ref();
    tail_ref.sizes = tail;
    coords tail_strides{};
    for (int j = 0; j < k; ++j) tail_strides[static_cast<std::size_t>(j)] = vidx.strides[static_cast<std::size_t>(r - k + j)];
    tail_ref.strides = tail_strides;
    const any_cview tail_view(tail_ref.origin, it, tail, tail_strides);

    INFO("gather DirectML form, seed " << seed << ", " << case_name(ic) << ", axis " << given_axis << ", IndexDimensions " << k);
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_desc desc{given_axis, k, policy};
    const strix::gather_desc natural_desc{given_axis, -1, policy};
    if (in[axis] == 0 && idx.count() > 0) { // indices into an empty axis, read or not
        expect_error(error_code::rule_violation, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_ref(vin.ref(), tail_ref, axis, out, k - 1);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
        if (natural_fits)
            expect_error(error_code::index_out_of_range, [&] { (void)strix::gather(vin.cview(), tail_view, natural_desc, config.opt); });
        return;
    }
    if (!call_ok([&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); })) return;
    check_output(vout, out_before, ref.data);
    // the natural form on the meaningful indices gives the same elements, reshaped
    host_tensor t;
    if (natural_fits && call_ok([&] { t = strix::gather(vin.cview(), tail_view, natural_desc, config.opt); })) {
        check_tensor(t, et, natural, ref.data);
        check_tensor(t, et, natural, read_view(vout));
    }
}

void join_case(std::uint64_t seed, dtype et) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int m = static_cast<int>(uni(g, 1, 4));
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape common = random_shape(g, r, 20);
    std::vector<std::int64_t> along(static_cast<std::size_t>(m));
    for (auto& a : along) a = chance(g, 1, 6) ? 0 : uni(g, 1, config.max_size);
    std::vector<knob> knobs;
    for (int i = 0; i < r; ++i)
        if (i != axis) knobs.push_back({&common.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(common[i], 1)});
    for (auto& a : along) knobs.push_back({&a, std::min<std::int64_t>(a, 1)});
    auto total = [&] {
        std::int64_t n = 0;
        for (auto a : along) n += a;
        shape s = common;
        s[axis] = n;
        return s;
    };
    shrink(g, knobs, [&] { return total().count(); });
    const shape out = total();
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;

    std::vector<strided> ins;
    std::string described;
    for (int k = 0; k < m; ++k) {
        shape s = common;
        s[axis] = along[static_cast<std::size_t>(k)];
        ins.push_back(make_strided(g, et, s, false));
        fill_random(g, ins.back().buf);
        described += "\n  input " + std::to_string(k) + " " + ins.back().describe();
    }
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf;
    const bool returning = chance(g, 1, 5);

    INFO("join, seed " << seed << ", axis " << given_axis << (returning ? ", returning overload" : "") << described);
    INFO("output " << vout.describe());

    std::vector<any_cview> views;
    std::vector<ref_view> refs;
    for (const auto& v : ins) {
        views.push_back(v.cview());
        refs.push_back(v.ref());
    }
    const bytes expect = join_ref(refs, axis, out);
    const strix::join_desc desc{given_axis};
    if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::join(views, desc, config.opt); })) check_tensor(t, et, out, expect);
    } else {
        if (call_ok([&] { strix::join(views, vout.view(), desc, config.opt); })) check_output(vout, out_before, expect);
    }
}

void pad_case(std::uint64_t seed, dtype et, pad_mode mode) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    shape in, start, end;
    for (int i = 0; i < r; ++i) {
        const std::int64_t n = chance(g, 1, mode == pad_mode::constant ? 10 : 16) ? 0 : uni(g, 1, config.max_size);
        in.push_back(n);
        // a folding mode has nothing to fold from on an empty dimension: pad it by 0
        const std::int64_t wmax = n == 0 ? (mode == pad_mode::constant ? 3 : 0) : 3 * n;
        start.push_back(chance(g, 1, 3) ? 0 : uni(g, 0, wmax));
        end.push_back(chance(g, 1, 3) ? 0 : uni(g, 0, wmax));
        // sometimes crop: negative pads on one or both sides, keeping an element to fold from
        // when the other side pads in a folding mode
        if (n > 0 && chance(g, 1, 4)) {
            auto& s0 = start.dims[static_cast<std::size_t>(i)];
            auto& e0 = end.dims[static_cast<std::size_t>(i)];
            const bool crop_start = chance(g, 1, 2), crop_end = !crop_start || chance(g, 1, 3);
            const bool folds = mode != pad_mode::constant && ((!crop_start && s0 > 0) || (!crop_end && e0 > 0));
            std::int64_t avail = n - (folds ? 1 : 0);
            if (crop_start) {
                s0 = -uni(g, 0, avail);
                avail += s0;
            }
            if (crop_end) e0 = -uni(g, 0, avail);
        }
    }
    // crops larger than what shrinking left of the input are dropped (pads stay)
    auto settle = [&](int i, std::int64_t& s0, std::int64_t& e0) {
        const std::int64_t crop = (s0 < 0 ? -s0 : 0) + (e0 < 0 ? -e0 : 0);
        const bool folds = mode != pad_mode::constant && (s0 > 0 || e0 > 0);
        if (crop > in[i] - (folds ? 1 : 0)) {
            s0 = std::max<std::int64_t>(s0, 0);
            e0 = std::max<std::int64_t>(e0, 0);
        }
    };
    auto out_shape = [&] {
        shape o;
        for (int i = 0; i < r; ++i) {
            std::int64_t s0 = start[i], e0 = end[i];
            settle(i, s0, e0);
            o.push_back(in[i] + s0 + e0);
        }
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    for (int i = 0; i < r; ++i) {
        knobs.push_back({&start.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(start[i], 0)});
        knobs.push_back({&end.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(end[i], 0)});
    }
    shrink(g, knobs, [&] { return std::max(in.count(), out_shape().count()); });
    for (int i = 0; i < r; ++i) settle(i, start.dims[static_cast<std::size_t>(i)], end.dims[static_cast<std::size_t>(i)]);
    const shape out = out_shape();
    const fill_value fill = random_fill(g, et);

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf;
    const bool returning = chance(g, 1, 5);

    INFO("pad " << mode_name(mode) << ", seed " << seed << ", start " << str(start) << ", end " << str(end)
                << ", value " << fill.value.to_string() << " -> " << hex(fill.bits.data(), strix::size_of(et))
                << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("output " << vout.describe());

    strix::pad_desc desc;
    desc.mode = mode;
    desc.start = start;
    desc.end = end;
    desc.value = fill.value;
    // the reference pads the cropped input by the positive pads
    ref_view cropped = vin.ref();
    shape pos_start = start;
    for (int i = 0; i < r; ++i) {
        const std::int64_t s0 = start[i], e0 = end[i];
        if (s0 < 0) cropped.origin += -s0 * cropped.strides[static_cast<std::size_t>(i)] * cropped.es();
        cropped.sizes[i] = in[i] + std::min<std::int64_t>(s0, 0) + std::min<std::int64_t>(e0, 0);
        pos_start[i] = std::max<std::int64_t>(s0, 0);
    }
    const bytes expect = pad_ref(cropped, mode, pos_start, fill.bits.data(), out);
    if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::pad(vin.cview(), desc, config.opt); })) check_tensor(t, et, out, expect);
    } else {
        if (call_ok([&] { strix::pad(vin.cview(), vout.view(), desc, config.opt); })) check_output(vout, out_before, expect);
    }
    CHECK(vin.buf == in_before);
}

void scatter_case(std::uint64_t seed, dtype et, dtype it, strix::scatter_reduction red = strix::scatter_reduction::none) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape in = random_shape(g, r, 20);
    if (in[axis] == 0 && chance(g, 3, 4)) in[axis] = uni(g, 1, config.max_size);
    shape idx;
    for (int i = 0; i < r; ++i) {
        if (i == axis) idx.push_back(chance(g, 1, 20) ? 0 : uni(g, 1, config.max_size + 1)); // may exceed the input: duplicates
        else if (chance(g, 1, 20)) idx.push_back(0);
        else idx.push_back(chance(g, 1, 2) ? in[i] : uni(g, std::min<std::int64_t>(in[i], 1), in[i]));
    }
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, idx);
    shrink(g, knobs, [&] { return std::max(in.count(), idx.count()); });
    for (int i = 0; i < r; ++i)
        if (i != axis) idx[i] = std::min(idx[i], in[i]);
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_case ic = random_index_case(g);
    const auto policy = ic == index_case::clamp_bad ? index_policy::clamp : index_policy::error;
    const bool in_place = chance(g, 1, 3);
    const bool returning = !in_place && chance(g, 1, 5);

    strided vin = make_strided(g, et, in, in_place);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    if (chance(g, 1, 4)) fill_colliding_indices(g, vidx, in[axis]);
    else fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_case::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vupd = make_strided(g, et, idx, false);
    fill_random(g, vupd.buf);
    strided vout;
    if (!in_place) {
        vout = make_strided(g, et, in, true);
        fill_random(g, vout.buf);
    }
    strided& target = in_place ? vin : vout;
    const bytes out_before = target.buf, in_before = vin.buf, idx_before = vidx.buf, upd_before = vupd.buf;

    INFO("scatter, seed " << seed << ", reduction " << static_cast<int>(red) << ", " << case_name(ic) << ", axis " << given_axis << (in_place ? ", in place" : "")
                          << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("updates " << vupd.describe());
    INFO("output " << (in_place ? std::string("the input") : vout.describe()));

    const strix::scatter_desc desc{given_axis, policy, red, chance(g, 1, 2)};
    if (in_place && in.count() > 0 && chance(g, 1, 6)) {
        // the output covers the input's elements in another order: not in place, but overlapping
        for (int i = 0; i < r; ++i)
            for (int j = i + 1; j < r; ++j) {
                auto& si = vin.strides[static_cast<std::size_t>(i)];
                auto& sj = vin.strides[static_cast<std::size_t>(j)];
                if (in[i] != in[j] || in[i] < 2 || si == sj) continue;
                coords swapped = vin.strides;
                std::swap(swapped[static_cast<std::size_t>(i)], swapped[static_cast<std::size_t>(j)]);
                const any_view alias(vin.buf.data() + vin.base * vin.es(), et, in, swapped);
                INFO("output: the input's buffer with strides " << str(swapped, r));
                expect_error(error_code::bad_view, [&] { strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), alias, desc, config.opt); });
                CHECK(vin.buf == in_before);
                return;
            }
    }
    const ref_result ref = scatter_ref(vin.ref(), vidx.ref(), vupd.ref(), axis, red);
    auto call = [&] { strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), target.view(), desc, config.opt); };
    if (in[axis] == 0 && idx.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(target.buf == out_before);
    } else if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(target.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), desc, config.opt); })) check_tensor(t, et, in, ref.data);
    } else if (call_ok(call)) {
        check_output(target, out_before, ref.data);
    }
    if (!in_place) CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
    CHECK(vupd.buf == upd_before);
}

// ---------------------------------------------------------------------------------------------
// The family: gather-elements, gather-nd, split, scatter-nd (references and cases)

/// GATHER-ELEMENTS: out[c] = in[c with c[axis] = indices[c]] over the indices' shape.
ref_result gather_elements_ref(const ref_view& in, const ref_view& idx, int axis) {
    ref_result res;
    const auto es = in.es();
    res.data.resize(static_cast<std::size_t>(idx.sizes.count() * es));
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t lin) {
        coords t = c;
        t[static_cast<std::size_t>(axis)] = resolve_ref(load_index(idx.at(c), idx.type), in.sizes[axis], res.bad);
        std::memcpy(res.data.data() + lin * es, in.at(t), static_cast<std::size_t>(es));
    });
    return res;
}

/// The input coordinate a gather-nd / scatter-nd tuple at `tuple` (the first q-1 coordinates)
/// addresses: axes first..first+k-1 take the tuple's resolved indices.
void apply_tuple(const ref_view& idx, const coords& tuple, int first, const shape& target, coords& t, bool& bad) {
    const int q = idx.sizes.rank;
    coords ic = tuple;
    for (std::int64_t j = 0; j < idx.sizes[q - 1]; ++j) {
        ic[static_cast<std::size_t>(q - 1)] = j;
        const int a = first + static_cast<int>(j);
        t[static_cast<std::size_t>(a)] = resolve_ref(load_index(idx.at(ic), idx.type), target[a], bad);
    }
}

/// Sets `bad` when any tuple of `idx` (into the axes of `target` from `first`) is out of range,
/// whether or not a slice it selects has elements.
void check_all_tuples(const ref_view& idx, int first, const shape& target, bool& bad) {
    shape lead;
    for (int i = 0; i + 1 < idx.sizes.rank; ++i) lead.push_back(idx.sizes[i]);
    for_each_coord(lead, [&](const coords& c, std::int64_t) {
        coords t{};
        apply_tuple(idx, c, first, target, t, bad);
    });
}

/// GATHER-ND with b batch dimensions: out[o] = in[o[0..b), tuple(o[0..q-1)), o[q-1..)].
ref_result gather_nd_ref(const ref_view& in, const ref_view& idx, int b, const shape& out_shape) {
    ref_result res;
    const auto es = in.es();
    const int q = idx.sizes.rank;
    const auto k = static_cast<int>(idx.sizes[q - 1]);
    res.data.resize(static_cast<std::size_t>(out_shape.count() * es));
    check_all_tuples(idx, b, in.sizes, res.bad);
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords t{};
        for (int i = 0; i < b; ++i) t[static_cast<std::size_t>(i)] = o[static_cast<std::size_t>(i)];
        apply_tuple(idx, o, b, in.sizes, t, res.bad);
        for (int i = b + k; i < in.sizes.rank; ++i) t[static_cast<std::size_t>(i)] = o[static_cast<std::size_t>(q - 1 + i - b - k)];
        std::memcpy(res.data.data() + lin * es, in.at(t), static_cast<std::size_t>(es));
    });
    return res;
}

/// SCATTER-ND: output = input, then every update u in row-major order combines into
/// output[tuple(u[0..q-1)), u[q-1..)].
ref_result scatter_nd_ref(const ref_view& in, const ref_view& idx, const ref_view& upd, strix::scatter_reduction red) {
    ref_result res;
    const auto es = in.es();
    const int q = idx.sizes.rank;
    const auto k = static_cast<int>(idx.sizes[q - 1]);
    res.data.resize(static_cast<std::size_t>(in.sizes.count() * es));
    for_each_coord(in.sizes, [&](const coords& c, std::int64_t lin) {
        std::memcpy(res.data.data() + lin * es, in.at(c), static_cast<std::size_t>(es));
    });
    check_all_tuples(idx, 0, in.sizes, res.bad);
    for_each_coord(upd.sizes, [&](const coords& u, std::int64_t) {
        coords t{};
        apply_tuple(idx, u, 0, in.sizes, t, res.bad);
        for (int i = k; i < in.sizes.rank; ++i) t[static_cast<std::size_t>(i)] = u[static_cast<std::size_t>(q - 1 + i - k)];
        combine_ref(res.data.data() + linear_of(in.sizes, t) * es, upd.at(u), in.type, red);
    });
    return res;
}

/// Index tuples: every element of the indices (a layout without aliasing) valid for the axis its
/// component addresses — axis first + j, of size target[first + j] — with only a few distinct
/// tuples when `colliding`. Then, for bad cases, one component out of range.
std::string fill_tuples(rng_t& g, strided& idx, int first, const shape& target, index_case ic, bool colliding) {
    const int q = idx.sizes.rank;
    const bool sgn = idx.type == dtype::int32 || idx.type == dtype::int64;
    const std::int64_t salt = colliding ? uni(g, 0, 1000) : 0;
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t lin) {
        const std::int64_t n = target[first + static_cast<int>(c[static_cast<std::size_t>(q - 1)])];
        std::int64_t v = n == 0 ? 0 : sgn ? uni(g, -n, n - 1) : uni(g, 0, n - 1);
        if (colliding && n > 0) v = (salt + (lin / idx.sizes[q - 1]) % 2) % n;
        store_index(idx.at(c), idx.type, static_cast<std::uint64_t>(v));
    });
    if (ic == index_case::valid || idx.sizes.count() == 0) return "none";
    coords c{};
    for (int d = 0; d < q; ++d) c[static_cast<std::size_t>(d)] = uni(g, 0, idx.sizes[d] - 1);
    // a one-element view of that component, so inject_bad_index writes there
    strided one = idx;
    const std::int64_t n = target[first + static_cast<int>(c[static_cast<std::size_t>(q - 1)])];
    one.base = idx.offset(c);
    one.sizes = shape{1};
    one.strides = coords{1};
    const std::string text = inject_bad_index(g, one, n);
    idx.buf = one.buf;
    return text + " (component of position " + str(c, q) + ")";
}

void gather_elements_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape in = random_shape(g, r), idx;
    for (int i = 0; i < r; ++i)
        idx.push_back(i == axis ? (chance(g, 1, 20) ? 0 : uni(g, 1, config.max_size + 1)) : uni(g, std::min<std::int64_t>(in[i], 1), in[i]));
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, idx);
    shrink(g, knobs, [&] { return std::max(in.count(), idx.count()); });
    for (int i = 0; i < r; ++i)
        if (i != axis) idx[i] = std::min(idx[i], in[i]);
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_case ic = random_index_case(g);
    const auto policy = ic == index_case::clamp_bad ? index_policy::clamp : index_policy::error;

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_case::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vout = make_strided(g, et, idx, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf, idx_before = vidx.buf;
    const bool returning = chance(g, 1, 5);

    INFO("gather-elements, seed " << seed << ", " << case_name(ic) << ", axis " << given_axis << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_elements_desc desc{given_axis, policy};
    auto call = [&] { strix::gather_elements(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); };
    if (in[axis] == 0 && idx.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_elements_ref(vin.ref(), vidx.ref(), axis);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(vout.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::gather_elements(vin.cview(), vidx.cview(), desc, config.opt); })) check_tensor(t, et, idx, ref.data);
    } else if (call_ok(call)) {
        check_output(vout, out_before, ref.data);
    }
    CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
}

void gather_nd_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int q = static_cast<int>(uni(g, 1, 8));
    const int b = static_cast<int>(uni(g, 0, std::min(q, r) - 1));
    const int kmax = std::min(r - b, strix::max_rank); // the output rank (q-1) + (r-b-k) must stay <= 8
    const int kmin = std::max(1, (q - 1) + (r - b) - strix::max_rank);
    if (kmin > kmax) return; // no valid tuple length for this draw
    const int k = static_cast<int>(uni(g, kmin, kmax));
    shape in = random_shape(g, r), lead = random_shape(g, q - 1);
    for (int i = 0; i < b; ++i) lead[i] = in[i];
    auto idx_shape = [&] {
        shape s = lead;
        for (int i = 0; i < b; ++i) s[i] = in[i];
        s.push_back(k);
        return s;
    };
    auto out_shape = [&] {
        shape o;
        for (int i = 0; i + 1 < q; ++i) o.push_back(i < b ? in[i] : lead[i]);
        for (int i = b + k; i < r; ++i) o.push_back(in[i]);
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    for (int i = b; i + 1 < q; ++i) knobs.push_back({&lead.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(lead[i], 1)});
    shrink(g, knobs, [&] { return std::max({in.count(), out_shape().count(), idx_shape().count()}); });
    const shape idx = idx_shape(), out = out_shape();
    const index_case ic = random_index_case(g);
    const auto policy = ic == index_case::clamp_bad ? index_policy::clamp : index_policy::error;

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, true); // no aliasing: each component has its own axis
    fill_random(g, vidx.buf);
    const std::string injected = fill_tuples(g, vidx, b, in, ic, false);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf, idx_before = vidx.buf;
    const bool returning = chance(g, 1, 5);

    INFO("gather-nd, seed " << seed << ", " << case_name(ic) << ", batch dimensions " << b << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_nd_desc desc{b, policy};
    auto call = [&] { strix::gather_nd(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); };
    bool empty_axis = false;
    for (int j = 0; j < k; ++j) empty_axis |= in[b + j] == 0;
    if (empty_axis && idx.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_nd_ref(vin.ref(), vidx.ref(), b, out);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(vout.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::gather_nd(vin.cview(), vidx.cview(), desc, config.opt); })) check_tensor(t, et, out, ref.data);
    } else if (call_ok(call)) {
        check_output(vout, out_before, ref.data);
    }
    CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
}

void split_case(std::uint64_t seed, dtype et) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int m = static_cast<int>(uni(g, 1, 5));
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape common = random_shape(g, r, 20);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(m));
    for (auto& a : sizes) a = chance(g, 1, 5) ? 0 : uni(g, 1, config.max_size);
    std::vector<knob> knobs;
    for (int i = 0; i < r; ++i)
        if (i != axis) knobs.push_back({&common.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(common[i], 1)});
    for (auto& a : sizes) knobs.push_back({&a, std::min<std::int64_t>(a, 1)});
    auto whole = [&] {
        shape s = common;
        s[axis] = 0;
        for (auto a : sizes) s[axis] += a;
        return s;
    };
    shrink(g, knobs, [&] { return whole().count(); });
    const shape in = whole();
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    const bytes in_before = vin.buf;
    std::vector<strided> outs;
    std::string described;
    for (int k = 0; k < m; ++k) {
        shape s = in;
        s[axis] = sizes[static_cast<std::size_t>(k)];
        outs.push_back(make_strided(g, et, s, true));
        fill_random(g, outs.back().buf);
        described += "\n  output " + std::to_string(k) + " " + outs.back().describe();
    }
    const int form = static_cast<int>(uni(g, 0, 2)); // 0: into views, 1: returning tensors, 2: split_views
    INFO("split, seed " << seed << ", axis " << given_axis << ", form " << form << described);
    INFO("input " << vin.describe());

    // the reference: output k holds the input's coordinates from the sum of the earlier sizes on
    auto expect_of = [&](int k, const shape& s) {
        std::int64_t at = 0;
        for (int j = 0; j < k; ++j) at += sizes[static_cast<std::size_t>(j)];
        bytes e(static_cast<std::size_t>(s.count() * vin.es()));
        for_each_coord(s, [&](const coords& c, std::int64_t lin) {
            coords t = c;
            t[static_cast<std::size_t>(axis)] += at;
            std::memcpy(e.data() + lin * vin.es(), vin.at(t), static_cast<std::size_t>(vin.es()));
        });
        return e;
    };
    const strix::split_desc desc{given_axis};
    if (form == 0) {
        std::vector<bytes> before;
        std::vector<any_view> views;
        for (auto& o : outs) {
            before.push_back(o.buf);
            views.push_back(o.view());
        }
        if (call_ok([&] { strix::split(vin.cview(), views, desc, config.opt); }))
            for (int k = 0; k < m; ++k) check_output(outs[static_cast<std::size_t>(k)], before[static_cast<std::size_t>(k)], expect_of(k, outs[static_cast<std::size_t>(k)].sizes));
    } else if (form == 1) {
        std::vector<host_tensor> ts;
        if (call_ok([&] { ts = strix::split(vin.cview(), sizes, desc, config.opt); })) {
            REQUIRE(ts.size() == sizes.size());
            for (int k = 0; k < m; ++k) check_tensor(ts[static_cast<std::size_t>(k)], et, outs[static_cast<std::size_t>(k)].sizes, expect_of(k, outs[static_cast<std::size_t>(k)].sizes));
        }
    } else {
        std::vector<any_cview> parts;
        if (call_ok([&] { parts = strix::split_views(vin.cview(), sizes, desc); })) {
            REQUIRE(parts.size() == sizes.size());
            for (int k = 0; k < m; ++k) {
                const auto& pv = parts[static_cast<std::size_t>(k)];
                const shape s = outs[static_cast<std::size_t>(k)].sizes;
                REQUIRE(pv.sizes() == s);
                const ref_view rv{static_cast<const std::byte*>(pv.data()), et, s, pv.strides()};
                bytes got(static_cast<std::size_t>(s.count() * vin.es()));
                for_each_coord(s, [&](const coords& c, std::int64_t lin) { std::memcpy(got.data() + lin * vin.es(), rv.at(c), static_cast<std::size_t>(vin.es())); });
                CHECK(got == expect_of(k, s));
            }
        }
    }
    CHECK(vin.buf == in_before);
}

void scatter_nd_case(std::uint64_t seed, dtype et, dtype it, strix::scatter_reduction red) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int k = static_cast<int>(uni(g, 1, r));
    const int q = static_cast<int>(uni(g, 1, std::min(strix::max_rank, strix::max_rank - (r - k) + 1))); // updates rank (q-1) + (r-k) <= 8
    shape in = random_shape(g, r, 20), lead = random_shape(g, q - 1, 20);
    auto upd_shape = [&] {
        shape u = lead;
        for (int i = k; i < r; ++i) u.push_back(in[i]);
        return u;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, lead);
    shrink(g, knobs, [&] { return std::max(in.count(), upd_shape().count()); });
    shape idx = lead;
    idx.push_back(k);
    const shape upd = upd_shape();
    const index_case ic = random_index_case(g);
    const auto policy = ic == index_case::clamp_bad ? index_policy::clamp : index_policy::error;
    const bool in_place = chance(g, 1, 3);
    const bool returning = !in_place && chance(g, 1, 5);

    strided vin = make_strided(g, et, in, in_place);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, true);
    fill_random(g, vidx.buf);
    const std::string injected = fill_tuples(g, vidx, 0, in, ic, chance(g, 1, 3));
    strided vupd = make_strided(g, et, upd, false);
    fill_random(g, vupd.buf);
    strided vout;
    if (!in_place) {
        vout = make_strided(g, et, in, true);
        fill_random(g, vout.buf);
    }
    strided& target = in_place ? vin : vout;
    const bytes out_before = target.buf, in_before = vin.buf, idx_before = vidx.buf, upd_before = vupd.buf;

    INFO("scatter-nd, seed " << seed << ", reduction " << static_cast<int>(red) << ", " << case_name(ic) << (in_place ? ", in place" : "")
                             << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("updates " << vupd.describe());
    INFO("output " << (in_place ? std::string("the input") : vout.describe()));

    const strix::scatter_nd_desc desc{policy, red, chance(g, 1, 2)};
    auto call = [&] { strix::scatter_nd(vin.cview(), vidx.cview(), vupd.cview(), target.view(), desc, config.opt); };
    bool empty_axis = false;
    for (int j = 0; j < k; ++j) empty_axis |= in[j] == 0;
    if (empty_axis && lead.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(target.buf == out_before);
        return;
    }
    const ref_result ref = scatter_nd_ref(vin.ref(), vidx.ref(), vupd.ref(), red);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(target.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::scatter_nd(vin.cview(), vidx.cview(), vupd.cview(), desc, config.opt); })) check_tensor(t, et, in, ref.data);
    } else if (call_ok(call)) {
        check_output(target, out_before, ref.data);
    }
    if (!in_place) CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
    CHECK(vupd.buf == upd_before);
}


} // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("random: the reference follows the SPEC examples", "[random]") {
    // pad: [1,2,3,4] padded 2/4
    const std::int64_t reflect[] = {2, 1, 0, 1, 2, 3, 2, 1, 0, 1};   // [3,2,1,2,3,4,3,2,1,2]
    const std::int64_t symmetric[] = {1, 0, 0, 1, 2, 3, 3, 2, 1, 0}; // [2,1,1,2,3,4,4,3,2,1]
    for (int o = 0; o < 10; ++o) {
        CHECK(pad_fold(pad_mode::reflect, o - 2, 4) == reflect[o]);
        CHECK(pad_fold(pad_mode::symmetric, o - 2, 4) == symmetric[o]);
        CHECK(pad_fold(pad_mode::reflect, o - 2, 1) == 0);
        CHECK(pad_fold(pad_mode::edge, o - 2, 4) == std::clamp<std::int64_t>(o - 2, 0, 3));
    }
    CHECK(pad_fold(pad_mode::constant, -1, 4) == -1);

    // gather, DirectML form: input {1,3,3} = 1..9, indices {1,1,2} = [[[0,2]]], axis 2, K 2
    // -> output {3,1,2} = [[[1,3]],[[4,6]],[[7,9]]]
    float input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::int32_t indices[2] = {0, 2};
    const ref_view in_ref{reinterpret_cast<const std::byte*>(input), dtype::float32, shape{3, 3}, strix::c_strides(shape{3, 3})};
    const ref_view idx_ref{reinterpret_cast<const std::byte*>(indices), dtype::int32, shape{1, 2}, strix::c_strides(shape{1, 2})};
    const ref_result ref = gather_ref(in_ref, idx_ref, 1, shape{3, 1, 2});
    const float want[6] = {1, 3, 4, 6, 7, 9};
    REQUIRE(ref.data.size() == sizeof want);
    CHECK(std::memcmp(ref.data.data(), want, sizeof want) == 0);
    float out[6] = {};
    strix::gather(any_cview(input, dtype::float32, shape{1, 3, 3}), any_cview(indices, dtype::int32, shape{1, 1, 2}),
                  any_view(out, dtype::float32, shape{3, 1, 2}), strix::gather_desc{2, 2});
    CHECK(std::memcmp(out, want, sizeof want) == 0);

    // scatter: {3,3} zeros, indices [[1,0,2],[0,2,1]], updates [[10,11,12],[20,21,22]], axis 0
    std::int32_t zeros[9] = {}, sidx[6] = {1, 0, 2, 0, 2, 1}, upd[6] = {10, 11, 12, 20, 21, 22};
    const auto s33 = strix::c_strides(shape{3, 3}), s23 = strix::c_strides(shape{2, 3});
    const ref_result sref = scatter_ref({reinterpret_cast<const std::byte*>(zeros), dtype::int32, shape{3, 3}, s33},
                                        {reinterpret_cast<const std::byte*>(sidx), dtype::int32, shape{2, 3}, s23},
                                        {reinterpret_cast<const std::byte*>(upd), dtype::int32, shape{2, 3}, s23}, 0);
    const std::int32_t swant[9] = {20, 11, 0, 10, 0, 22, 0, 21, 12};
    REQUIRE(sref.data.size() == sizeof swant);
    CHECK(std::memcmp(sref.data.data(), swant, sizeof swant) == 0);
}

TEST_CASE("random: gather, natural form, every element and index type", "[random]") {
    rng_t seeds(0x67617468'65720001ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 100; ++rep) gather_natural_case(seeds(), et, it);
}

TEST_CASE("random: gather, DirectML IndexDimensions form, every element and index type", "[random]") {
    rng_t seeds(0x67617468'65720002ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 50; ++rep) gather_directml_case(seeds(), et, it);
}

TEST_CASE("random: join of 1 to 4 inputs, every element type", "[random]") {
    rng_t seeds(0x6a6f696e'00000003ULL);
    for (dtype et : strix::all_dtypes)
        for (int rep = 0; rep < 200; ++rep) join_case(seeds(), et);
}

TEST_CASE("random: pad in every mode, every element type", "[random]") {
    rng_t seeds(0x70616400'00000004ULL);
    for (dtype et : strix::all_dtypes)
        for (pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap})
            for (int rep = 0; rep < 80; ++rep) pad_case(seeds(), et, mode);
}

TEST_CASE("random: pad rejects what it cannot fill, writing nothing", "[random]") {
    rng_t g(0x70616400'00000005ULL);
    for (dtype et : strix::all_dtypes) {
        INFO("element type " << type_name(et));
        // a folding mode on an empty, padded dimension
        for (pad_mode mode : {pad_mode::edge, pad_mode::reflect, pad_mode::symmetric}) {
            INFO("mode " << mode_name(mode));
            strided vin = make_strided(g, et, shape{2, 0, 3}, false);
            strided vout = make_strided(g, et, shape{2, 2, 3}, true);
            fill_random(g, vout.buf);
            const bytes before = vout.buf;
            strix::pad_desc d;
            d.mode = mode;
            d.start = shape{0, 1, 0};
            d.end = shape{0, 1, 0};
            expect_error(error_code::rule_violation, [&] { strix::pad(vin.cview(), vout.view(), d); });
            CHECK(vout.buf == before);
        }
    }
    // constants that do not fit the element type
    const std::pair<dtype, strix::scalar> misfits[] = {
        {dtype::uint8, strix::scalar(256.0)},
        {dtype::uint8, strix::scalar(std::int64_t{-1})},
        {dtype::int8, strix::scalar(-129.0)},
        {dtype::int8, strix::scalar(std::int64_t{128})},
        {dtype::int16, strix::scalar(std::uint64_t{40000})},
        {dtype::uint16, strix::scalar(65536.5)},
        {dtype::int32, strix::scalar(std::numeric_limits<double>::quiet_NaN())},
        {dtype::uint32, strix::scalar(-std::numeric_limits<double>::infinity())},
        {dtype::int64, strix::scalar(9.3e18)},
        {dtype::uint64, strix::scalar(std::int64_t{-1})},
        {dtype::uint64, strix::scalar(1.8446744073709552e19)}, // 2^64
    };
    for (const auto& [type, value] : misfits) {
        INFO("element type " << type_name(type) << ", value " << value.to_string());
        strided vin = make_strided(g, type, shape{3}, false);
        strided vout = make_strided(g, type, shape{5}, true);
        fill_random(g, vout.buf);
        const bytes before = vout.buf;
        strix::pad_desc d;
        d.start = shape{1};
        d.end = shape{1};
        d.value = value;
        expect_error(error_code::rule_violation, [&] { strix::pad(vin.cview(), vout.view(), d); });
        CHECK(vout.buf == before);
    }
}

TEST_CASE("random: scatter, every element and index type, in and out of place", "[random]") {
    rng_t seeds(0x73636174'00000006ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 100; ++rep) scatter_case(seeds(), et, it);
}

TEST_CASE("random: larger random cases on four threads", "[random]") {
    // up to 65536 elements of 8 bytes: the executor splits such operands over several threads
    run_config big;
    big.max_elems = 65536;
    big.max_slots = 1 << 20;
    big.max_size = 48;
    big.opt.threads = 4;
    const config_scope scope(big);
    rng_t seeds(0x74687265'61647308ULL);
    for (int rep = 0; rep < 12; ++rep)
        for (dtype et : {dtype::float64, dtype::int64}) {
            gather_natural_case(seeds(), et, dtype::int64);
            gather_directml_case(seeds(), et, dtype::uint32);
            join_case(seeds(), et);
            pad_case(seeds(), et, static_cast<pad_mode>(rep % 5));
            scatter_case(seeds(), et, dtype::int32, static_cast<strix::scatter_reduction>(rep % 5));
            gather_elements_case(seeds(), et, dtype::uint64);
            gather_nd_case(seeds(), et, dtype::int32);
            split_case(seeds(), et);
            scatter_nd_case(seeds(), et, dtype::int64, static_cast<strix::scatter_reduction>(rep % 5));
        }
}

TEST_CASE("random: four threads give the single-threaded result on large operands", "[random]") {
    rng_t g(0x74687265'61647307ULL);
    const strix::cpu::options one{1}, four{4};
    const shape s{256, 1024};
    strided in = make_c_order(dtype::float32, s);
    fill_random(g, in.buf);
    // the same input read through negative strides
    strided flipped = in;
    flipped.strides = {-1024, -1};
    flipped.base = s.count() - 1;

    SECTION("pad") {
        for (pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric}) {
            INFO("mode " << mode_name(mode));
            strix::pad_desc d;
            d.mode = mode;
            d.start = shape{3, 70};
            d.end = shape{60, 5};
            d.value = strix::scalar(1.5);
            const float fill = 1.5f;
            const shape out{319, 1099};
            for (const strided* src : {&in, &flipped}) {
                const bytes expect = pad_ref(src->ref(), mode, d.start, reinterpret_cast<const std::byte*>(&fill), out);
                const host_tensor t1 = strix::pad(src->cview(), d, one);
                const host_tensor t4 = strix::pad(src->cview(), d, four);
                check_tensor(t1, dtype::float32, out, expect);
                check_tensor(t4, dtype::float32, out, expect);
                // a Fortran-order output with a sentinel around it
                strided vout = make_c_order(dtype::float32, out);
                vout.strides = strix::f_strides(out);
                vout.base = 3;
                vout.buf.resize(vout.buf.size() + 6 * sizeof(float));
                fill_random(g, vout.buf);
                const bytes before = vout.buf;
                strix::pad(src->cview(), vout.view(), d, four);
                check_output(vout, before, expect);
            }
        }
    }
    SECTION("gather") {
        for (int axis : {0, 1, -1}) {
            INFO("axis " << axis);
            const int a = axis < 0 ? axis + 2 : axis;
            const std::int64_t n = s[a];
            strided idx = make_c_order(a == 0 ? dtype::int64 : dtype::int32, a == 0 ? shape{300} : shape{2, 900});
            fill_indices(g, idx, n);
            shape out = a == 0 ? shape{300, 1024} : shape{256, 2, 900};
            for (const strided* src : {&in, &flipped}) {
                const ref_result ref = gather_ref(src->ref(), idx.ref(), a, out);
                REQUIRE_FALSE(ref.bad);
                const strix::gather_desc d{axis};
                check_tensor(strix::gather(src->cview(), idx.cview(), d, one), dtype::float32, out, ref.data);
                check_tensor(strix::gather(src->cview(), idx.cview(), d, four), dtype::float32, out, ref.data);
            }
        }
    }
    SECTION("join") {
        strided other = make_c_order(dtype::float32, shape{256, 300});
        fill_random(g, other.buf);
        strided tall = make_c_order(dtype::float32, shape{100, 1024});
        fill_random(g, tall.buf);
        const any_cview wide_views[] = {in.cview(), other.cview(), flipped.cview()};
        const bytes wide = join_ref({in.ref(), other.ref(), flipped.ref()}, 1, shape{256, 2348});
        check_tensor(strix::join(wide_views, strix::join_desc{1}, one), dtype::float32, shape{256, 2348}, wide);
        check_tensor(strix::join(wide_views, strix::join_desc{-1}, four), dtype::float32, shape{256, 2348}, wide);
        const any_cview tall_views[] = {flipped.cview(), tall.cview()};
        const bytes stacked = join_ref({flipped.ref(), tall.ref()}, 0, shape{356, 1024});
        check_tensor(strix::join(tall_views, strix::join_desc{0}, one), dtype::float32, shape{356, 1024}, stacked);
        check_tensor(strix::join(tall_views, strix::join_desc{0}, four), dtype::float32, shape{356, 1024}, stacked);
    }
    SECTION("scatter") {
        strided idx = make_c_order(dtype::uint32, shape{200, 1024});
        fill_indices(g, idx, 256);
        strided upd = make_c_order(dtype::float32, shape{200, 1024});
        fill_random(g, upd.buf);
        for (const strided* src : {&in, &flipped}) {
            const ref_result ref = scatter_ref(src->ref(), idx.ref(), upd.ref(), 0);
            const strix::scatter_desc d{0};
            check_tensor(strix::scatter(src->cview(), idx.cview(), upd.cview(), d, one), dtype::float32, s, ref.data);
            check_tensor(strix::scatter(src->cview(), idx.cview(), upd.cview(), d, four), dtype::float32, s, ref.data);
        }
    }
}

TEST_CASE("random: gather-elements, every element and index type", "[random]") {
    rng_t seeds(0x67656c65'00000009ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 60; ++rep) gather_elements_case(seeds(), et, it);
}

TEST_CASE("random: gather-nd with batch dimensions, every element and index type", "[random]") {
    rng_t seeds(0x67616e64'0000000aULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 60; ++rep) gather_nd_case(seeds(), et, it);
}

TEST_CASE("random: split into 1 to 5 pieces (zero sizes included), as copies and as views", "[random]") {
    rng_t seeds(0x73706c69'0000000bULL);
    for (dtype et : strix::all_dtypes)
        for (int rep = 0; rep < 150; ++rep) split_case(seeds(), et);
}

TEST_CASE("random: scatter reductions, every element type", "[random]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x72656475'0000000cULL);
    for (dtype et : strix::all_dtypes)
        for (R red : {R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < 40; ++rep) scatter_case(seeds(), et, strix::index_dtypes[rep % 4], red);
}

TEST_CASE("random: scatter-nd, every reduction, element and index type", "[random]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x73636e64'0000000dULL);
    for (dtype et : strix::all_dtypes)
        for (R red : {R::none, R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < 40; ++rep) scatter_nd_case(seeds(), et, strix::index_dtypes[rep % 4], red);
}

// ---------------------------------------------------------------------------------------------
// Threads: the executor splits by elements (a row may be shared by several threads), scatter
// splits the output's addresses among workers, and index checks run on every thread. Operators
// this small stay on one thread by default; min_bytes_per_thread = 1 splits them anyway, so
// rows are fewer than threads, single rows are cut into pieces and pad's mapped rows and gather
// tables are entered in the middle.

TEST_CASE("random: every operator on 2, 3 and 7 threads, split below a row", "[random]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x73706c74'0000000eULL);
    for (int threads : {2, 3, 7}) {
        run_config split;
        split.opt.threads = threads;
        split.opt.min_bytes_per_thread = 1;
        const config_scope scope(split);
        INFO("threads " << threads);
        for (int rep = 0; rep < 40; ++rep)
            for (dtype et : {dtype::float32, dtype::int8, dtype::float16, dtype::float64}) {
                const dtype it = strix::index_dtypes[rep % 4];
                gather_natural_case(seeds(), et, it);
                gather_directml_case(seeds(), et, it);
                join_case(seeds(), et);
                pad_case(seeds(), et, static_cast<pad_mode>(rep % 5));
                scatter_case(seeds(), et, it, static_cast<R>(rep % 5));
                gather_elements_case(seeds(), et, it);
                gather_nd_case(seeds(), et, it);
                split_case(seeds(), et);
                scatter_nd_case(seeds(), et, it, static_cast<R>((rep + 2) % 5));
            }
    }
}

TEST_CASE("random: single long rows and short outer dimensions on 2, 3 and 7 threads", "[random]") {
    rng_t g(0x6c6f6e67'0000000fULL);
    for (int threads : {2, 3, 7}) {
        INFO("threads " << threads);
        const strix::cpu::options opt{threads, 1};
        // join and split along the outer axis: every input's plan is one contiguous row
        const shape part{1, 1001}, whole{3, 1001};
        std::vector<strided> parts;
        for (int i = 0; i < 3; ++i) {
            parts.push_back(make_c_order(dtype::float32, part));
            fill_random(g, parts.back().buf);
        }
        const any_cview views[] = {parts[0].cview(), parts[1].cview(), parts[2].cview()};
        const bytes joined = join_ref({parts[0].ref(), parts[1].ref(), parts[2].ref()}, 0, whole);
        check_tensor(strix::join(views, strix::join_desc{0}, opt), dtype::float32, whole, joined);
        strided all = make_c_order(dtype::float32, whole);
        all.buf = joined;
        std::vector<host_tensor> outs;
        for (int i = 0; i < 3; ++i) outs.emplace_back(dtype::float32, part);
        std::vector<any_view> out_views;
        for (auto& t : outs) out_views.push_back(t.view());
        strix::split(all.cview(), out_views, strix::split_desc{0}, opt);
        for (int i = 0; i < 3; ++i) check_tensor(outs[static_cast<std::size_t>(i)], dtype::float32, part, read_view(parts[static_cast<std::size_t>(i)]));

        // pad of a [2, 997] input: two mapped rows (fills, mirrored elements and runs) and fill rows
        strided in = make_c_order(dtype::int16, shape{2, 997});
        fill_random(g, in.buf);
        for (pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap}) {
            INFO("pad mode " << static_cast<int>(mode));
            strix::pad_desc d;
            d.mode = mode;
            d.start = shape{1, 300};
            d.end = shape{1, 301};
            d.value = strix::scalar(7);
            const std::int16_t fill = 7;
            if (mode == pad_mode::reflect || mode == pad_mode::symmetric || mode == pad_mode::wrap) {
                d.start = shape{1, 5};
                d.end = shape{1, 6};
            }
            const shape o{4, 997 + d.start[1] + d.end[1]};
            const bytes expect = pad_ref(in.ref(), mode, d.start, reinterpret_cast<const std::byte*>(&fill), o);
            check_tensor(strix::pad(in.cview(), d, opt), dtype::int16, o, expect);
        }

        // gather along the last axis and gather-elements: one row, per-element indices
        strided src = make_c_order(dtype::float64, shape{1, 3001});
        fill_random(g, src.buf);
        for (dtype it : strix::index_dtypes) {
            INFO("index type " << type_name(it));
            strided idx = make_c_order(it, shape{2999});
            fill_indices(g, idx, 3001);
            const ref_result ref = gather_ref(src.ref(), idx.ref(), 1, shape{1, 2999});
            REQUIRE_FALSE(ref.bad);
            check_tensor(strix::gather(src.cview(), idx.cview(), strix::gather_desc{1}, opt), dtype::float64, shape{1, 2999}, ref.data);
            strided eidx = make_c_order(it, shape{1, 2500});
            fill_indices(g, eidx, 3001);
            const ref_result eref = gather_elements_ref(src.ref(), eidx.ref(), 1);
            REQUIRE_FALSE(eref.bad);
            check_tensor(strix::gather_elements(src.cview(), eidx.cview(), strix::gather_elements_desc{-1}, opt), dtype::float64, shape{1, 2500},
                         eref.data);
            // scatter of one row with collisions: the last update in C order wins, and adds combine in order
            strided upd = make_c_order(dtype::float64, shape{1, 2500});
            fill_random(g, upd.buf);
            strided cidx = make_c_order(it, shape{1, 2500});
            fill_colliding_indices(g, cidx, 3001);
            for (auto red : {strix::scatter_reduction::none, strix::scatter_reduction::add}) {
                const ref_result sref = scatter_ref(src.ref(), cidx.ref(), upd.ref(), 1, red);
                check_tensor(strix::scatter(src.cview(), cidx.cview(), upd.cview(), strix::scatter_desc{1, index_policy::error, red}, opt),
                             dtype::float64, shape{1, 3001}, sref.data);
            }
        }
    }
}

// Streamed stores: outputs of at least cpu::options::stream_min_bytes per thread write whole
// cache lines with non-temporal stores and the partial lines at each run's ends with plain ones.
// stream_min_bytes = 0 streams these small cases, so runs start and end at every offset.

TEST_CASE("random: streamed stores on 1 and 3 threads", "[random]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x7374726d'00000012ULL);
    for (int threads : {1, 3}) {
        run_config streamed;
        streamed.opt.threads = threads;
        streamed.opt.min_bytes_per_thread = 1;
        streamed.opt.stream_min_bytes = 0;
        streamed.max_size = 48;
        streamed.max_elems = 1 << 16;
        streamed.max_slots = 1 << 18;
        const config_scope scope(streamed);
        INFO("threads " << threads);
        for (int rep = 0; rep < 15; ++rep)
            for (dtype et : {dtype::int8, dtype::float32, dtype::float64}) {
                const dtype it = strix::index_dtypes[rep % 4];
                gather_natural_case(seeds(), et, it);
                join_case(seeds(), et);
                split_case(seeds(), et);
                pad_case(seeds(), et, static_cast<pad_mode>(rep % 5));
                gather_nd_case(seeds(), et, it);
                scatter_case(seeds(), et, it, static_cast<R>(rep % 5));
            }
    }

    // rows of 1 to 300 bytes whose outputs start at every offset within a cache line: a constant
    // pad of [3, w] int8 by `lo` in front and 2 behind on the last axis
    rng_t g(0x7374726d'00000013ULL);
    const strix::cpu::options opt{1, 1, 0};
    for (std::int64_t w = 1; w <= 300; w += (w < 140 ? 1 : 7))
        for (std::int64_t lo : {0, 1, 7, 31, 63, 64, 65}) {
            INFO("width " << w << ", pad " << lo);
            strided in = make_c_order(dtype::int8, shape{3, w});
            fill_random(g, in.buf);
            strix::pad_desc d;
            d.start = shape{0, lo};
            d.end = shape{0, 2};
            d.value = strix::scalar(-5);
            const std::int8_t fill = -5;
            const shape o{3, w + lo + 2};
            check_tensor(strix::pad(in.cview(), d, opt), dtype::int8, o, pad_ref(in.ref(), pad_mode::constant, d.start, reinterpret_cast<const std::byte*>(&fill), o));
        }
}

TEST_CASE("random: out-of-range indices name the first bad one whatever the number of threads", "[random]") {
    rng_t g(0x62616469'00000010ULL);
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const strix::error& e) {
            CHECK(e.code() == error_code::index_out_of_range);
            return std::string(e.what());
        }
        FAIL("no error");
        return std::string();
    };
    for (dtype it : strix::index_dtypes) {
        INFO("index type " << type_name(it));
        strided in = make_c_order(dtype::float32, shape{40, 50});
        fill_random(g, in.buf);
        strided idx = make_c_order(it, shape{40, 50});
        fill_indices(g, idx, 50);
        // two bad indices: the first in C order lies in the first thread's part, the second in
        // the last one's (which would finish first if the check stopped at any bad index)
        const bool is_signed = it == dtype::int32 || it == dtype::int64;
        store_index(idx.at(coords{3, 7}), it, static_cast<std::uint64_t>(is_signed ? -51 : 50));
        store_index(idx.at(coords{39, 1}), it, 77);
        strided out = make_c_order(dtype::float32, shape{40, 50});
        const bytes before = out.buf;
        strided upd = make_c_order(dtype::float32, shape{40, 50});
        std::string first;
        for (int threads : {1, 2, 3, 7}) {
            INFO("threads " << threads);
            const strix::cpu::options opt{threads, 1};
            const std::string ge =
                message([&] { strix::gather_elements(in.cview(), idx.cview(), out.view(), strix::gather_elements_desc{1}, opt); });
            CHECK(out.buf == before);
            const std::string ga = message([&] { (void)strix::gather(in.cview(), idx.cview(), strix::gather_desc{1}, opt); });
            const std::string sc = message([&] { strix::scatter(in.cview(), idx.cview(), upd.cview(), out.view(), strix::scatter_desc{1}, opt); });
            CHECK(out.buf == before);
            CHECK(ge.find(std::string("index ") + (is_signed ? "-51" : "50") + " at position [3,7]") != std::string::npos);
            CHECK(ga.find("at position [3,7]") != std::string::npos);
            CHECK(sc.find("at position [3,7]") != std::string::npos);
            const std::string all = ge + "|" + ga + "|" + sc;
            if (threads == 1) first = all;
            else CHECK(all == first);
        }
    }
}

TEST_CASE("random: the pool runs many small jobs, nested and concurrent callers and throwing tasks", "[random]") {
    // nested use from inside a task and callers on several threads fall back to threads of their own
    std::atomic<int> sum{0};
    strix::cpu::parallel_tasks(4, [&](int i) {
        strix::cpu::parallel_tasks(3, [&](int j) { sum += i * 10 + j; });
    });
    CHECK(sum == (0 + 10 + 20 + 30) * 3 + 4 * 3);
    std::vector<std::thread> callers;
    std::atomic<int> count{0};
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            for (int k = 0; k < 200; ++k) strix::cpu::parallel_tasks(3, [&](int) { ++count; });
        });
    for (auto& t : callers) t.join();
    CHECK(count == 4 * 200 * 3);
    // an exception from a task reaches the caller once every task has finished
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(strix::cpu::parallel_tasks(5,
                                                 [&](int i) {
                                                     ++ran;
                                                     if (i == 3) throw std::runtime_error("task 3");
                                                 }),
                      "task 3");
    CHECK(ran == 5);
    CHECK(strix::cpu::thread_count(0) >= 1);
    CHECK(strix::cpu::thread_count(-3) == 1);
}
