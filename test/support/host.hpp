#pragma once
// The CPU harness: operands in strided buffers of random layout, the checks that compare an
// operator's result with its reference, and the parts of the reference that several operators
// share. Each operator's own reference and random case are in test/ops/<op>_test.cpp (declared at
// the end of this file, for the tests that run every operator, such as the thread tests).
//
// A reference is written from the operator's semantics in SPEC.md: plain coordinate loops that
// turn each multi-index into an element offset, independent of the library's plans.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "common.hpp"

namespace strix_test {

/// How the random cases run: the bound on any operand's elements, the bound on a buffer's slots
/// (larger layouts fall back to C order) and the executor's options. The large multi-threaded
/// test raises the bounds and asks for four threads.
struct run_config {
    std::int64_t max_elems = 4096;
    std::int64_t max_slots = 65536;
    std::int64_t max_size = 4; ///< largest size a random dimension starts with
    strix::cpu::options opt{};
};
inline run_config config;

/// Sets `config` for one scope.
struct config_scope {
    run_config saved = config;
    explicit config_scope(const run_config& c) { config = c; }
    ~config_scope() { config = saved; }
    config_scope(const config_scope&) = delete;
    config_scope& operator=(const config_scope&) = delete;
};

// ---------------------------------------------------------------------------------------------
// Shapes

/// `rank` sizes of 1 to config.max_size, each 0 instead one time in `zero_den`; the cases lower
/// them afterwards through knobs.
inline shape random_shape(rng_t& g, int rank, int zero_den = 24) { return random_dims(g, rank, zero_den, config.max_size); }

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
inline void add_knobs(std::vector<knob>& knobs, shape& s) {
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
inline strided make_strided(rng_t& g, dtype t, const shape& s, bool output) {
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
inline strided make_c_order(dtype t, const shape& s) {
    strided v;
    v.type = t;
    v.sizes = s;
    v.layout = "C";
    v.strides = strix::c_strides(s);
    v.buf.resize(static_cast<std::size_t>(std::max<std::int64_t>(s.count(), 1) * v.es()));
    return v;
}

inline void fill_random(rng_t& g, bytes& b) {
    for (std::size_t i = 0; i < b.size(); i += 8) {
        const std::uint64_t x = g();
        std::memcpy(b.data() + i, &x, std::min<std::size_t>(8, b.size() - i));
    }
}

/// Random bytes for elements of type `t`: any bits, but 0 or 1 for bool (what a reduction on
/// bools reads; the storage type holds nothing else).
inline void fill_random(rng_t& g, bytes& b, dtype t) {
    fill_random(g, b);
    if (t == dtype::boolean)
        for (auto& x : b) x &= std::byte{1};
}

// ---------------------------------------------------------------------------------------------
// Index values

struct index_value {
    bool is_signed = false;
    std::int64_t s = 0;
    std::uint64_t u = 0;
};

inline index_value load_index(const std::byte* p, dtype t) {
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
inline std::int64_t resolve_ref(const index_value& v, std::int64_t n, bool& bad) {
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
inline void fill_indices(rng_t& g, strided& idx, std::int64_t n) {
    for (std::int64_t k = 0; k < idx.slots(); ++k) store_index(idx.buf.data() + k * idx.es(), idx.type, valid_index(g, idx.type, n));
}

/// Like fill_indices, with only one or two distinct values, so that scatter targets collide.
inline void fill_colliding_indices(rng_t& g, strided& idx, std::int64_t n) {
    const std::int64_t a = uni(g, 0, std::max<std::int64_t>(n - 1, 0)), b = uni(g, 0, std::max<std::int64_t>(n - 1, 0));
    for (std::int64_t k = 0; k < idx.slots(); ++k)
        store_index(idx.buf.data() + k * idx.es(), idx.type, static_cast<std::uint64_t>(chance(g, 1, 2) ? a : b));
}

/// Overwrites the index at a random coordinate of the view with a value outside [-n, n) (signed)
/// or [0, n) (unsigned). Returns a description.
inline std::string inject_bad_index(rng_t& g, strided& idx, std::int64_t n) {
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

/// Compares the output view element by element with `expect` (row-major bytes of its shape), and
/// every buffer slot outside the view with `before`. Fails a check for the first difference.
inline void check_output(const strided& out, const bytes& before, const bytes& expect) {
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
inline void check_tensor(const host_tensor& t, dtype type, const shape& s, const bytes& expect) {
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
inline bytes read_view(const strided& v) {
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
/// The input coordinate a gather-nd / scatter-nd tuple at `tuple` (the first q-1 coordinates)
/// addresses: axes first..first+k-1 take the tuple's resolved indices.
inline void apply_tuple(const ref_view& idx, const coords& tuple, int first, const shape& target, coords& t, bool& bad) {
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
inline void check_all_tuples(const ref_view& idx, int first, const shape& target, bool& bad) {
    shape lead;
    for (int i = 0; i + 1 < idx.sizes.rank; ++i) lead.push_back(idx.sizes[i]);
    for_each_coord(lead, [&](const coords& c, std::int64_t) {
        coords t{};
        apply_tuple(idx, c, first, target, t, bad);
    });
}

/// GATHER-ND with b batch dimensions: out[o] = in[o[0..b), tuple(o[0..q-1)), o[q-1..)].
/// Index tuples: every element of the indices (a layout without aliasing) valid for the axis its
/// component addresses — axis first + j, of size target[first + j] — with only a few distinct
/// tuples when `colliding`. Then, for bad cases, one component out of range.
inline std::string fill_tuples(rng_t& g, strided& idx, int first, const shape& target, index_mode ic, bool colliding) {
    const int q = idx.sizes.rank;
    const std::int64_t salt = colliding ? uni(g, 0, 1000) : 0;
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t lin) {
        const std::int64_t n = target[first + static_cast<int>(c[static_cast<std::size_t>(q - 1)])];
        std::uint64_t v = valid_index(g, idx.type, n);
        if (colliding && n > 0) v = static_cast<std::uint64_t>((salt + (lin / idx.sizes[q - 1]) % 2) % n);
        store_index(idx.at(c), idx.type, v);
    });
    if (ic == index_mode::valid || idx.sizes.count() == 0) return "none";
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

// ---------------------------------------------------------------------------------------------
// Small tensors written out in full (the seed examples)

/// A C-order tensor of `s` holding `v`.
template <class T>
host_tensor make(shape s, std::vector<T> v) {
    host_tensor t(strix::dtype_of<T>, s);
    REQUIRE(static_cast<std::int64_t>(v.size()) == s.count());
    std::copy(v.begin(), v.end(), t.as<T>());
    return t;
}

/// A tensor's elements in C order.
template <class T>
std::vector<T> values(const host_tensor& t) {
    return {t.as<T>(), t.as<T>() + t.count()};
}

using fv = std::vector<float>;

// ---------------------------------------------------------------------------------------------
// Each operator's reference and random case (test/ops/<op>_test.cpp), for the tests that run
// them all: the reference's own check, and the executor on several threads (test/cpu_test.cpp)

/// GATHER, natural form (`dropped` describes the DirectML form: see test/ops/gather_test.cpp).
ref_result gather_ref(const ref_view& in, const ref_view& idx, int axis, const shape& out_shape, int dropped = 0);
void gather_natural_case(std::uint64_t seed, dtype et, dtype it);
void gather_directml_case(std::uint64_t seed, dtype et, dtype it);
ref_result gather_elements_ref(const ref_view& in, const ref_view& idx, int axis);
void gather_elements_case(std::uint64_t seed, dtype et, dtype it);
void gather_nd_case(std::uint64_t seed, dtype et, dtype it);
bytes join_ref(const std::vector<ref_view>& ins, int axis, const shape& out_shape);
void join_case(std::uint64_t seed, dtype et);
void split_case(std::uint64_t seed, dtype et);
std::int64_t pad_fold(pad_mode mode, std::int64_t j, std::int64_t n);
bytes pad_ref(const ref_view& in, pad_mode mode, const shape& start, const std::byte* fill, const shape& out_shape);
void pad_case(std::uint64_t seed, dtype et, pad_mode mode);
ref_result scatter_ref(const ref_view& in, const ref_view& idx, const ref_view& upd, int axis,
                       strix::scatter_reduction red = strix::scatter_reduction::none);
void scatter_case(std::uint64_t seed, dtype et, dtype it, strix::scatter_reduction red = strix::scatter_reduction::none);
void scatter_nd_case(std::uint64_t seed, dtype et, dtype it, strix::scatter_reduction red);

} // namespace strix_test
