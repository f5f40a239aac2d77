// Fuzz target: every operator's rules, checks, lowering and CPU execution.
//
// An input decodes (see `decode` below; fuzz/make_ops_seeds.py writes inputs in this format) to
// an operator, a descriptor, element and index types and up to six operands, each with a shape
// of rank 0..8 (sizes small, huge, INT64_MAX or negative) and a layout (C, Fortran or explicit
// element strides: zero, negative, huge). Then:
//
//  * the rule function always runs on the shapes, huge ones included: it must not overflow
//    (the sanitizer's business) and, for operands without negative sizes, an accepted call
//    must infer an output of rank 0..8 with no negative size;
//  * each operand whose byte range fits a small budget gets a buffer of exactly that size (so
//    the address sanitizer catches any access outside it). When all operands fit, the CPU
//    operator runs; otherwise only the checks and the lowering run, over views placed at a
//    fake base address, and nothing is executed;
//  * every move plan produced is walked (wholly when small, else its corners and a sample):
//    each byte it would write must lie inside the output's range and each byte it would read
//    inside the input's (or the indices') range.
//
// Every call must either succeed or throw strix::error; any other exception or crash is a
// finding. With STRIX_FUZZ_SKIP_KNOWN=1 (or a list of names, see skip_known) in the environment,
// calls that reach bugs already reported (fuzz/README.md) are skipped, so a long run can look
// for others.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strix/strix.hpp"

namespace {

using i128 = __int128;
using strix::dtype;
using strix::shape;
using strides_t = std::array<std::int64_t, strix::max_rank>;

// Products of two 64-bit values fit in 128 bits, but sums of several of them may not: every
// product the checks add up is clamped to +-2^120 first (far beyond any address anyway).
constexpr i128 sat_limit = static_cast<i128>(1) << 120;
i128 mul(i128 a, std::int64_t b) {
    const i128 p = a * b; // |a| <= 2^64 here: callers pass int64 values or clamped sums
    return p > sat_limit ? sat_limit : p < -sat_limit ? -sat_limit : p;
}
i128 clamp(i128 a) { return a > sat_limit ? sat_limit : a < -sat_limit ? -sat_limit : a; }

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_ops: %s\n", what);
    std::abort();
}

// STRIX_FUZZ_SKIP_KNOWN: "1" or "all" skips every known finding, else a comma-separated list
// of their names (sums, strides, empty-count, null-offset, pad-maps, stride-wrap, empty-index).
bool skip_known(const char* name) {
    static const std::string v = [] {
        const char* e = std::getenv("STRIX_FUZZ_SKIP_KNOWN");
        return std::string(e && *e != '0' ? e : "");
    }();
    if (v.empty()) return false;
    if (v == "1" || v == "all") return true;
    const std::string n(name);
    for (std::size_t at = 0; at <= v.size();) {
        const std::size_t end = std::min(v.find(',', at), v.size());
        if (v.compare(at, end - at, n) == 0) return true;
        at = end + 1;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// decoding

constexpr std::int64_t interesting[32] = {
    0,
    1,
    -1,
    2,
    -2,
    255,
    256,
    65535,
    65536,
    INT32_MAX,
    std::int64_t{1} << 31,
    UINT32_MAX,
    std::int64_t{1} << 32,
    -(std::int64_t{1} << 31),
    -(std::int64_t{1} << 32),
    std::int64_t{1} << 40,
    std::int64_t{1} << 48,
    std::int64_t{1} << 53,
    (std::int64_t{1} << 61) + 1,
    (std::int64_t{1} << 62) - 1,
    std::int64_t{1} << 62,
    (std::int64_t{1} << 62) + (std::int64_t{1} << 61),
    -(std::int64_t{1} << 62),
    INT64_MAX,
    INT64_MAX - 1,
    INT64_MIN,
    INT64_MIN + 1,
    INT64_MAX / 2 + 1,
    INT64_MAX / 3,
    INT64_MAX / 8 + 1,
    1000003,
    -7,
};

// Reads the input from the front; past the end every byte is 0.
struct reader {
    const std::uint8_t* p;
    std::size_t n;
    std::uint8_t u8() {
        if (n == 0) return 0;
        --n;
        return *p++;
    }
    std::int64_t raw() {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= std::uint64_t{u8()} << (8 * i);
        return static_cast<std::int64_t>(v);
    }
    // 0x00-0xbf: `small(t)`; 0xc0-0xdf: an interesting value; 0xe0-0xff: 8 raw bytes follow
    template <class Small>
    std::int64_t value(Small small) {
        const std::uint8_t t = u8();
        if (t < 0xc0) return small(t);
        if (t < 0xe0) return interesting[t - 0xc0];
        return raw();
    }
    std::int64_t size() { return value([](std::uint8_t t) { return std::int64_t{t & 7}; }); }              // 0..7
    std::int64_t sval() { return value([](std::uint8_t t) { return std::int64_t{t % 17} - 8; }); }        // -8..8
};

enum op_kind : int { op_gather, op_join, op_pad, op_split, op_scatter, op_gather_elements, op_gather_nd, op_scatter_nd, op_slice, op_tile };
constexpr std::string_view op_names[] = {"gather", "join", "pad", "split", "scatter", "gather-elements", "gather-nd", "scatter-nd", "slice", "tile"};
constexpr int op_count = static_cast<int>(std::size(op_names));
// the fuzzer reaches every operator of the list (strix/ops/list.hpp) and only those
static_assert(op_count == strix::operator_count, "fuzz_ops: an operator of strix/ops/list.hpp has no op_kind here");
static_assert([] {
    bool all = true;
    strix::with_operators([&]<class D>() { all = all && std::find(std::begin(op_names), std::end(op_names), strix::op_traits<D>::name) != std::end(op_names); });
    return all;
}(), "fuzz_ops: op_names must be the names of the operators of strix/ops/list.hpp");

// flags (byte 1)
enum : std::uint8_t {
    f_layouts = 1,     // each operand has a layout byte (C, Fortran, explicit strides)
    f_alias = 2,       // place the output over the input (in place for the scatters)
    f_null_empty = 4,  // empty operands get no data pointer
    f_threads = 8,     // two threads, split even tiny work
    f_stream = 16,     // non-temporal stores always
    f_allocating = 32, // also the entry points that allocate their outputs
    f_views = 64,      // split: also split_views
    f_unique = 128,    // the scatters: unique_indices promised (true or not: a false promise
                       // must still touch nothing outside the output)
};

struct operand {
    shape s{};
    strides_t st{};
    dtype type = dtype::float32;
    int layout = 0; // 0 C, 1 Fortran, 2 explicit
    // placement
    bool representable = false; // the element count and byte offsets fit comfortably in 63 bits
    bool fits = false;          // and a buffer was allocated
    i128 lo = 0, hi = 0;        // byte offsets of the lowest and one past the highest byte
    std::unique_ptr<std::byte[]> buf;
    std::size_t len = 0;
    std::byte* data = nullptr;
    [[nodiscard]] std::size_t es() const { return strix::size_of(type); }
    [[nodiscard]] strix::any_cview cview() const { return {data, type, s, st}; }
    [[nodiscard]] strix::any_view view() const { return {data, type, s, st}; }
};

// C or Fortran strides of shapes whose element count overflows would themselves overflow:
// computed here without undefined behaviour (wrapping), since such views must be rejected anyway
strides_t wrapping_strides(const shape& s, bool fortran) {
    strides_t st{};
    std::uint64_t n = 1;
    for (int k = 0; k < s.rank; ++k) {
        const int i = fortran ? k : s.rank - 1 - k;
        st[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(n);
        n *= static_cast<std::uint64_t>(s[i]);
    }
    return st;
}

void set_layout_safe(operand& o) {
    if (o.layout == 2) return;
    o.st = wrapping_strides(o.s, o.layout == 1);
}

void read_operand(reader& in, operand& o, bool layouts) {
    o.s.rank = in.u8() % 9;
    for (int i = 0; i < o.s.rank; ++i) o.s[i] = in.size();
    o.layout = layouts ? in.u8() % 3 : 0;
    if (o.layout == 2)
        for (int i = 0; i < o.s.rank; ++i) o.st[static_cast<std::size_t>(i)] = in.sval();
    set_layout_safe(o);
}

// Replaces an operand's shape (its layout is kept: explicit strides stay, C/F are recomputed).
void reshape(operand& o, const shape& s) {
    o.s = s;
    set_layout_safe(o);
}

constexpr std::size_t budget = 1 << 20; // bytes of buffers per input, all operands together
const auto fake_base = static_cast<std::uintptr_t>(1) << 62;

void place(operand& o, std::size_t& used, bool null_empty) {
    const std::int64_t count = o.s.checked_count();
    o.data = reinterpret_cast<std::byte*>(fake_base); // until a buffer is found; never dereferenced
    if (count < 0) return; // not representable: the checks must reject it
    if (count == 0) {
        o.representable = o.fits = true;
        o.lo = o.hi = 0;
        static std::byte dummy[16];
        o.data = null_empty ? nullptr : dummy;
        return;
    }
    const i128 es = static_cast<i128>(o.es());
    i128 lo = 0, hi = 0;
    for (int i = 0; i < o.s.rank; ++i) {
        const i128 span = mul(static_cast<i128>(o.s[i]) - 1, o.st[static_cast<std::size_t>(i)]);
        (span < 0 ? lo : hi) += span;
    }
    o.lo = clamp(lo) * es;
    o.hi = (clamp(hi) + 1) * es;
    const i128 limit = static_cast<i128>(1) << 61;
    o.representable = o.lo >= -limit && o.hi <= limit;
    if (!o.representable) return;
    const i128 n = o.hi - o.lo;
    if (n <= static_cast<i128>(budget - used)) {
        o.len = static_cast<std::size_t>(n);
        used += o.len;
        o.buf.reset(new std::byte[o.len]);
        o.data = o.buf.get() - static_cast<std::ptrdiff_t>(o.lo);
        o.fits = true;
    }
}

// Fills every slot of an operand's buffer: indices from the input's tail, others a pattern.
void fill(operand& o, reader& in, bool is_index) {
    if (!o.buf) return;
    if (!is_index) {
        for (std::size_t i = 0; i < o.len; ++i) o.buf[i] = static_cast<std::byte>((i * 37 + 11) & 0xff);
        return;
    }
    const std::size_t es = o.es();
    for (std::size_t i = 0; i + es <= o.len; i += es) {
        const std::int64_t v = in.sval();
        std::memcpy(o.buf.get() + i, &v, es); // little-endian: the low bytes
    }
}

// ---------------------------------------------------------------------------------------------
// checking move plans

struct range {
    i128 lo = 0, hi = 0; // addresses [lo, hi)
    bool contains(i128 a, std::size_t n) const { return a >= lo && a + static_cast<i128>(n) <= hi; }
};

range range_of(const operand& o) {
    if (o.s.checked_count() == 0) return {};
    const auto base = static_cast<i128>(reinterpret_cast<std::uintptr_t>(o.data));
    return {base + o.lo, base + o.hi};
}

struct index_info {
    range where;
    std::size_t es = 0;
};

// The plan's address terms for one output coordinate; false when the plan is inconsistent.
void check_element(const strix::plan::move_plan& p, const std::array<std::int64_t, strix::max_rank>& c, const range& dst,
                   const range& src, const index_info* idx) {
    i128 d = static_cast<i128>(reinterpret_cast<std::uintptr_t>(p.dst));
    i128 s = static_cast<i128>(reinterpret_cast<std::uintptr_t>(p.src));
    i128 key = 0;
    bool fill = false;
    for (int i = 0; i < p.rank; ++i) {
        const auto& dim = p.dims[static_cast<std::size_t>(i)];
        const std::int64_t ci = c[static_cast<std::size_t>(i)];
        d = clamp(d + mul(ci, dim.dst));
        key = clamp(key + mul(ci, dim.key));
        if (!dim.padded) {
            s = clamp(s + mul(ci, dim.src));
            continue;
        }
        if (dim.lo < 0 || dim.hi < dim.lo || dim.hi > dim.size) finding("a padded dimension's affine range lies outside it");
        std::int64_t m;
        if (ci < dim.lo || ci >= dim.hi) {
            m = dim.source(ci); // the fold's term: a multiple of src by a source coordinate in [0, hi - lo)
            if (m != strix::plan::no_source && (dim.hi == dim.lo || m % (dim.src ? dim.src : 1) != 0 ||
                                                (dim.src != 0 && (m / dim.src < 0 || m / dim.src >= dim.hi - dim.lo))))
                finding("a padded dimension's fold leaves its source range");
        } else {
            m = 0;
            s = clamp(s + mul(static_cast<i128>(ci) - dim.lo, dim.src));
        }
        if (m == strix::plan::no_source) fill = true;
        else s += m;
    }
    if (!dst.contains(d, p.elem)) finding("a plan writes outside the output");
    if (fill) return;
    if (!p.table.empty()) {
        if (key < 0 || key >= static_cast<i128>(p.table.size())) finding("a plan's key lies outside its table");
        s += p.table[static_cast<std::size_t>(key)];
        if (!src.contains(s, p.elem)) finding("a plan reads outside the input");
    } else if (p.index != nullptr) {
        const i128 at = static_cast<i128>(reinterpret_cast<std::uintptr_t>(p.index)) + key;
        if (idx && !idx->where.contains(at, idx->es)) finding("a plan reads an index outside the indices");
        if (p.axis_size <= 0) finding("a plan reads indices into an empty axis");
        // the address is affine in the resolved index: its two extremes bound every other
        if (!src.contains(s, p.elem) || !src.contains(s + mul(static_cast<i128>(p.axis_size) - 1, p.axis_stride), p.elem))
            finding("a plan reads outside the input (at an extreme index)");
    } else if (!src.contains(s, p.elem)) {
        finding("a plan reads outside the input");
    }
}

// Walks a plan: every element when it is small, else its corners and a sample.
void walk(const strix::plan::move_plan& p, const range& dst, const range& src, const index_info* idx = nullptr) {
    if (p.rank == 0) return; // nothing to do
    if (p.rank < 0 || p.rank > strix::max_rank) finding("a plan with a rank outside 0..8");
    if (p.elem == 0 || p.elem > 16) finding("a plan with an odd element size");
    i128 count = 1;
    for (int i = 0; i < p.rank; ++i) {
        const auto sz = p.dims[static_cast<std::size_t>(i)].size;
        if (sz < 0) finding("a plan dimension of negative size");
        count *= sz; // at most 2^63 times a size: fits
        if (count > INT64_MAX) count = static_cast<i128>(INT64_MAX) + 1;
    }
    if (count == 0) return;
    if (count > INT64_MAX) finding("a plan with more elements than 64 bits count");
    std::array<std::int64_t, strix::max_rank> c{};
    if (count <= 4096) {
        for (i128 k = 0; k < count; ++k) {
            check_element(p, c, dst, src, idx);
            for (int i = p.rank - 1; i >= 0 && ++c[static_cast<std::size_t>(i)] == p.dims[static_cast<std::size_t>(i)].size; --i)
                c[static_cast<std::size_t>(i)] = 0;
        }
        return;
    }
    for (unsigned m = 0; m < (1u << p.rank); ++m) {
        for (int i = 0; i < p.rank; ++i) c[static_cast<std::size_t>(i)] = (m >> i) & 1 ? p.dims[static_cast<std::size_t>(i)].size - 1 : 0;
        check_element(p, c, dst, src, idx);
    }
    std::uint64_t x = 0x9e3779b97f4a7c15u;
    for (int k = 0; k < 1024; ++k) {
        for (int i = 0; i < p.rank; ++i) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            c[static_cast<std::size_t>(i)] = static_cast<std::int64_t>((x >> 11) % static_cast<std::uint64_t>(p.dims[static_cast<std::size_t>(i)].size));
        }
        check_element(p, c, dst, src, idx);
    }
}

// ---------------------------------------------------------------------------------------------
// the rules on their own

bool any_negative(std::initializer_list<const shape*> shapes) {
    for (const shape* s : shapes)
        for (int i = 0; i < s->rank; ++i)
            if ((*s)[i] < 0) return true;
    return false;
}

void check_inferred(const strix::inferred& r, bool inputs_negative) {
    if (!r.v.ok()) return;
    if (r.out.rank < 0 || r.out.rank > strix::max_rank) finding("a rule inferred a rank outside 0..8");
    if (inputs_negative) return;
    for (int i = 0; i < r.out.rank; ++i)
        if (r.out[i] < 0) finding("a rule accepted non-negative shapes and inferred a negative size");
}

// ---------------------------------------------------------------------------------------------
// known bugs (skipped only with STRIX_FUZZ_SKIP_KNOWN=1)

i128 total_pad(const shape& in, const strix::pad_desc& d) {
    i128 t = 0;
    for (int i = 0; i < in.rank && i < d.start.rank && i < d.end.rank; ++i) {
        t += d.start[i] > 0 ? d.start[i] : 0;
        t += d.end[i] > 0 ? d.end[i] : 0;
    }
    return t;
}

// a sum along an axis (join, split, pad) or an extent that overflows 63 bits
bool sum_overflows(std::span<const std::int64_t> v, std::int64_t base = 0) {
    i128 t = base;
    for (const auto x : v) {
        t += x;
        if (t > INT64_MAX || t < INT64_MIN) return true;
    }
    return false;
}

// a stride times the element size (or a size times a stride) that leaves 63 bits
bool strides_overflow(const operand& o) {
    const i128 es = static_cast<i128>(o.es());
    for (int i = 0; i < o.s.rank; ++i) {
        const i128 bytes = static_cast<i128>(o.st[static_cast<std::size_t>(i)]) * es;
        if (bytes > INT64_MAX || bytes < INT64_MIN) return true;
        const i128 big = bytes * (o.s[i] > 0 ? o.s[i] : 1);
        if (big > INT64_MAX || big < INT64_MIN) return true;
    }
    return false;
}

// a stride (in bytes) so large that one step from a real buffer leaves the address space: the
// executor advances its pointers once past the last element of a row, and that step wraps
bool stride_leaves_address_space(const operand& o) {
    for (int i = 0; i < o.s.rank; ++i) {
        const i128 b = static_cast<i128>(o.st[static_cast<std::size_t>(i)]) * static_cast<i128>(o.es());
        if (b > (static_cast<i128>(1) << 46) || b < -(static_cast<i128>(1) << 46)) return true;
    }
    return false;
}

// an empty shape (a size 0) whose other sizes multiply past 63 bits: shape::count() overflows
bool empty_count_overflows(const shape& s) {
    i128 n = 1;
    bool zero = false;
    for (int i = 0; i < s.rank; ++i) {
        if (s[i] == 0) zero = true;
        else if (s[i] > 0) {
            n *= s[i];
            if (n > INT64_MAX) n = static_cast<i128>(INT64_MAX) + 1;
        }
    }
    return zero && n > INT64_MAX;
}

// ---------------------------------------------------------------------------------------------

std::optional<std::size_t> bytes_of(const shape& s, dtype t) {
    const std::int64_t n = s.checked_count();
    if (n < 0) return std::nullopt;
    const i128 b = static_cast<i128>(n) * static_cast<i128>(strix::size_of(t));
    if (b > static_cast<i128>(budget)) return std::nullopt;
    return static_cast<std::size_t>(b);
}

bool tracing() {
    static const bool v = [] {
        const char* e = std::getenv("STRIX_FUZZ_TRACE");
        return e && *e && *e != '0';
    }();
    return v;
}

std::string text(const strides_t& st, int rank) {
    std::string r = "[";
    for (int i = 0; i < rank; ++i) r += (i ? "," : "") + std::to_string(st[static_cast<std::size_t>(i)]);
    return r + "]";
}

// Runs one call; only strix::error may leave it. With STRIX_FUZZ_TRACE=1 says what happened.
// True when the call returned.
template <class F>
bool expect_only_strix_errors(const char* what, F&& f) {
    if (tracing()) std::fprintf(stderr, "  %s ...\n", what);
    try {
        f();
        if (tracing()) std::fprintf(stderr, "  %s: ok\n", what);
        return true;
    } catch (const strix::error& e) {
        if (tracing()) std::fprintf(stderr, "  %s: strix::error: %s\n", what, e.what());
        return false;
    }
}

// Runs `eager` and then `chain`, each from the output buffer's bytes as they were: they must
// refuse alike and leave the same bytes (a refusal writes nothing, so after a refused eager call
// those are the bytes from before). `what` names the chain in findings. True when `eager` ran.
template <class Eager, class Chain>
bool same_as_eager(operand& out, const char* what, Eager&& eager, Chain&& chain) {
    const std::vector<std::byte> before(out.buf.get(), out.buf.get() + out.len);
    const bool eager_ok = expect_only_strix_errors("the eager step(s)", eager);
    const std::vector<std::byte> after(out.buf.get(), out.buf.get() + out.len);
    std::copy(before.begin(), before.end(), out.buf.get());
    const bool chain_ok = expect_only_strix_errors(what, chain);
    const std::string w(what);
    if (eager_ok != chain_ok) finding((w + (eager_ok ? ": refused what the eager call takes" : ": took what the eager call refuses")).c_str());
    if (!std::equal(after.begin(), after.end(), out.buf.get())) finding((w + ": the output's buffer differs from the eager call's").c_str());
    return eager_ok;
}

// The fuzzed step as a chain (strix/ops/chain.hpp; `lazy` returns the chain of the step) into the
// same output O as the eager call `into`; then, where the step was taken (its result then has
// O's shape, at most 2^20 elements here), the step and two more, reversals of O's first and last
// axes (slices of step -1 keep the shape), as one chain of three steps against the eager step
// into a temporary (`alloc`, its allocating call) and the two eager slices.
template <class Into, class Alloc, class Lazy>
void check_chains(operand& out, const strix::any_view& O, const strix::cpu::options& opt, Into&& into, Alloc&& alloc, Lazy&& lazy) {
    if (!out.buf) return; // (an output placed in another operand's buffer)
    if (!same_as_eager(out, "the step as a chain", into, [&] { strix::evaluate(lazy(), O, opt); })) return;
    if (O.rank() == 0 || O.sizes().checked_count() > (1 << 20)) return;
    constexpr auto end = std::numeric_limits<std::int64_t>::min();
    const strix::slice_desc first{.starts = {-1}, .ends = {end}, .axes = {0}, .steps = {-1}};
    const strix::slice_desc last{.starts = {-1}, .ends = {end}, .axes = {-1}, .steps = {-1}};
    same_as_eager(
        out, "the step and two reversals as a chain",
        [&] {
            const strix::host_tensor t = alloc();
            const strix::host_tensor u = strix::slice(t.view(), first, opt);
            strix::slice(u.view(), O, last, opt);
        },
        [&] { strix::evaluate(lazy().slice(first).slice(last), O, opt); });
}

// Whether an index of `x` (a view over a real buffer) lies outside its axis: [-n, n) for signed
// types, [0, n) for unsigned ones, where n = axis_size(coordinate in the last dimension).
template <class AxisSize>
bool has_bad_index(const operand& x, AxisSize axis_size) {
    if (!x.fits || x.s.checked_count() <= 0 || !strix::is_index_type(x.type)) return false;
    const std::int64_t count = x.s.checked_count();
    std::array<std::int64_t, strix::max_rank> c{};
    const auto es = static_cast<std::int64_t>(x.es());
    for (std::int64_t k = 0; k < count; ++k) {
        std::int64_t off = 0;
        for (int i = 0; i < x.s.rank; ++i) off += c[static_cast<std::size_t>(i)] * x.st[static_cast<std::size_t>(i)];
        const std::byte* p = x.data + off * es;
        const std::int64_t n = axis_size(x.s.rank ? c[static_cast<std::size_t>(x.s.rank - 1)] : 0);
        bool bad = n <= 0;
        if (x.type == dtype::int32 || x.type == dtype::int64) {
            std::int64_t v = 0;
            if (x.type == dtype::int32) { std::int32_t w; std::memcpy(&w, p, 4); v = w; } else std::memcpy(&v, p, 8);
            bad |= v < -n || v >= n;
        } else {
            std::uint64_t v = 0;
            if (x.type == dtype::uint32) { std::uint32_t w; std::memcpy(&w, p, 4); v = w; } else std::memcpy(&v, p, 8);
            bad |= v >= static_cast<std::uint64_t>(n);
        }
        if (bad) return true;
        for (int i = x.s.rank - 1; i >= 0 && ++c[static_cast<std::size_t>(i)] == x.s[i]; --i) c[static_cast<std::size_t>(i)] = 0;
    }
    return false;
}

// Under the `error` policy a call that returned must have had every index in range. `empty`:
// the call moves nothing (its output, or its updates, is empty).
void check_indices_were_checked(bool returned, strix::index_policy policy, bool bad, bool empty) {
    if (!returned || policy != strix::index_policy::error || !bad) return;
    if (empty && skip_known("empty-index")) return; // known: indices are not checked when nothing moves
    finding(empty ? "an out-of-range index was not reported (the call moves nothing)" : "an out-of-range index was not reported");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    reader in{data, size};
    const int op = in.u8() % op_count;
    const std::uint8_t flags = in.u8();
    const dtype type = strix::all_dtypes[in.u8() % strix::dtype_count];
    const std::uint8_t it = in.u8();
    const dtype itype = it < 0xc0 ? strix::index_dtypes[it % 4] : strix::all_dtypes[it % strix::dtype_count];
    const std::uint8_t ot = in.u8();
    const dtype otype = ot < 0xf0 ? type : strix::all_dtypes[ot % strix::dtype_count];
    const std::uint8_t ut = in.u8();
    const dtype utype = ut < 0xf0 ? type : strix::all_dtypes[ut % strix::dtype_count];
    const std::uint8_t decoded = in.u8(); // bit i: operand i keeps its decoded shape (else a consistent one)
    const int count = in.u8() % 5;        // join inputs, split outputs

    // the descriptor fields every operator picks from
    const std::int64_t axis = in.sval();
    const std::int64_t kd = in.sval();
    const int k = static_cast<int>(std::clamp<std::int64_t>(kd, -3, 10));
    const std::int64_t bd = in.sval();
    const int batch = static_cast<int>(std::clamp<std::int64_t>(bd, -3, 10));
    const auto policy = in.u8() & 1 ? strix::index_policy::clamp : strix::index_policy::error;
    const auto reduction = static_cast<strix::scatter_reduction>(in.u8() % 5);
    const auto mode = static_cast<strix::pad_mode>(in.u8() % 5);
    strix::scalar value;
    {
        const std::uint8_t vk = in.u8() % 3;
        const std::int64_t v = in.sval();
        if (vk == 0) value = strix::scalar(static_cast<double>(v) / 2);
        else if (vk == 1) value = strix::scalar(v);
        else value = strix::scalar(static_cast<std::uint64_t>(v));
    }
    shape pad_start, pad_end;
    {
        const std::uint8_t r = in.u8();
        pad_start.rank = pad_end.rank = r < 0xf0 ? -1 : r % 9; // -1: the input's rank, filled below
        std::array<std::int64_t, 8> a{}, b{};
        for (auto& x : a) x = in.sval();
        for (auto& x : b) x = in.sval();
        pad_start.dims = a;
        pad_end.dims = b;
    }

    // operands: gather-like  in, indices, out; join  in0..in(n-1), out; pad  in, out;
    // split  in, out0..out(n-1); scatters  in, indices, updates, out
    int n_ops = 3;
    if (op == op_join || op == op_split) n_ops = count + 1;
    if (op == op_pad || op == op_slice || op == op_tile) n_ops = 2;
    if (op == op_scatter || op == op_scatter_nd) n_ops = 4;
    std::vector<operand> o(static_cast<std::size_t>(n_ops));
    for (auto& x : o) read_operand(in, x, flags & f_layouts);
    auto keeps = [&](int i) { return (decoded >> std::min(i, 7)) & 1; };

    const bool gathers = op == op_gather || op == op_gather_elements || op == op_gather_nd;
    const bool scatters = op == op_scatter || op == op_scatter_nd;
    // types and consistent shapes where the input asks for them
    for (auto& x : o) x.type = type;
    if (gathers || scatters) o[1].type = itype;
    if (scatters) o[2].type = utype;
    if (op != op_join && op != op_split) o.back().type = otype;
    if (op == op_join && n_ops > 0) o.back().type = otype;
    if (op == op_split) for (std::size_t i = 1; i < o.size(); ++i) o[i].type = otype;

    const shape& S0 = o[0].s;
    if (pad_start.rank < 0) pad_start.rank = pad_end.rank = S0.rank;
    strix::gather_desc gd{axis, k, policy};
    strix::join_desc jd{axis};
    strix::pad_desc pd{mode, pad_start, pad_end, value};
    strix::split_desc sd{axis};
    strix::scatter_desc scd{axis, policy, reduction, false, (flags & f_unique) != 0};
    strix::gather_elements_desc ged{axis, policy};
    strix::gather_nd_desc gnd{batch, policy};
    strix::scatter_nd_desc snd{policy, reduction, false, (flags & f_unique) != 0};
    // slice: the pad counts as starts and ends; axes the first ones (mode even) or from `axis`
    // on, wrapping; steps from the end counts shifted by one (0 breaks a rule)
    strix::slice_desc sld{pad_start, pad_end, {}, {}};
    if (static_cast<int>(mode) % 2) { // (the decoded axis may be INT64_MIN: kept near the ranks first)
        const std::int64_t first = std::clamp<std::int64_t>(axis, -16, 16);
        for (int i = 0; i < pad_start.rank; ++i) sld.axes.push_back(S0.rank > 0 ? (first + i) % (S0.rank + 1) : first + i);
    }
    if (k >= 0)
        for (int i = 0; i < pad_start.rank; ++i) sld.steps.push_back(pad_end[(i + 1) % strix::max_rank]);
    const strix::tile_desc td{pad_start};

    // the rules, on the decoded shapes (huge ones included), and the consistent shapes
    switch (op) {
    case op_gather: {
        const auto r = strix::gather_rule(o[0].s, o[1].s, gd);
        check_inferred(r, any_negative({&o[0].s, &o[1].s}));
        if (!keeps(2) && r.v.ok()) reshape(o[2], r.out);
        break;
    }
    case op_join: {
        const int n = n_ops - 1;
        const int ax = strix::detail::normalize_axis(axis, S0.rank);
        for (int i = 1; i < n; ++i)
            if (!keeps(i) && ax >= 0) {
                shape s = S0;
                s[ax] = o[static_cast<std::size_t>(i)].s.rank > 0 ? o[static_cast<std::size_t>(i)].s[0] : S0[ax];
                reshape(o[static_cast<std::size_t>(i)], s);
            }
        std::vector<shape> shapes;
        std::vector<std::int64_t> along;
        for (int i = 0; i < n; ++i) {
            shapes.push_back(o[static_cast<std::size_t>(i)].s);
            if (ax >= 0 && o[static_cast<std::size_t>(i)].s.rank > ax) along.push_back(o[static_cast<std::size_t>(i)].s[ax]);
        }
        if (skip_known("sums") && sum_overflows(along)) return 0; // known: join_rule's sum overflows
        const auto r = strix::join_rule(shapes, jd);
        bool neg = false;
        for (const auto& s : shapes) neg |= any_negative({&s});
        check_inferred(r, neg);
        if (!keeps(n) && r.v.ok()) reshape(o.back(), r.out);
        break;
    }
    case op_pad: {
        if (skip_known("sums")) { // known: pad_rule's input + start + end overflows
            for (int i = 0; i < S0.rank && i < pd.start.rank && i < pd.end.rank; ++i) {
                const std::int64_t v[] = {pd.start[i], pd.end[i]};
                if (sum_overflows(v, S0[i])) return 0;
            }
        }
        const auto r = strix::pad_rule(o[0].s, pd);
        check_inferred(r, any_negative({&o[0].s}));
        if (!keeps(1) && r.v.ok()) reshape(o[1], r.out);
        break;
    }
    case op_slice: {
        const auto r = strix::slice_rule(o[0].s, sld);
        check_inferred(r, any_negative({&o[0].s}));
        if (!keeps(1) && r.v.ok()) reshape(o[1], r.out);
        break;
    }
    case op_tile: {
        const auto r = strix::tile_rule(o[0].s, td);
        check_inferred(r, any_negative({&o[0].s}));
        if (!keeps(1) && r.v.ok()) reshape(o[1], r.out);
        break;
    }
    case op_split: {
        const int ax = strix::detail::normalize_axis(axis, S0.rank);
        std::vector<std::int64_t> along;
        for (std::size_t i = 1; i < o.size(); ++i) {
            if (!keeps(static_cast<int>(i)) && ax >= 0) {
                shape s = S0;
                s[ax] = o[i].s.rank > 0 ? o[i].s[0] : 0;
                reshape(o[i], s);
            }
            if (ax >= 0 && o[i].s.rank > ax) along.push_back(o[i].s[ax]);
        }
        if (skip_known("sums") && sum_overflows(along)) return 0; // known: split_rule's sum overflows
        std::vector<shape> outs;
        for (std::size_t i = 1; i < o.size(); ++i) outs.push_back(o[i].s);
        (void)strix::split_rule(o[0].s, outs, sd);
        break;
    }
    case op_scatter: {
        if (!keeps(2)) reshape(o[2], o[1].s);
        if (!keeps(3)) reshape(o[3], o[0].s);
        const auto r = strix::scatter_rule(o[0].s, o[1].s, o[2].s, scd);
        check_inferred(r, any_negative({&o[0].s, &o[1].s, &o[2].s}));
        break;
    }
    case op_gather_elements: {
        const auto r = strix::gather_elements_rule(o[0].s, o[1].s, ged);
        check_inferred(r, any_negative({&o[0].s, &o[1].s}));
        if (!keeps(2) && r.v.ok()) reshape(o[2], r.out);
        break;
    }
    case op_gather_nd: {
        const auto r = strix::gather_nd_rule(o[0].s, o[1].s, gnd);
        check_inferred(r, any_negative({&o[0].s, &o[1].s}));
        if (!keeps(2) && r.v.ok()) reshape(o[2], r.out);
        break;
    }
    case op_scatter_nd: {
        const shape& I = o[1].s;
        if (!keeps(2) && I.rank >= 1 && I[I.rank - 1] >= 1 && I[I.rank - 1] <= S0.rank) {
            shape u;
            const auto kk = static_cast<int>(I[I.rank - 1]);
            for (int i = 0; i + 1 < I.rank && u.rank < strix::max_rank; ++i) u.push_back(I[i]);
            for (int i = kk; i < S0.rank && u.rank < strix::max_rank; ++i) u.push_back(S0[i]);
            reshape(o[2], u);
        }
        if (!keeps(3)) reshape(o[3], o[0].s);
        const auto r = strix::scatter_nd_rule(o[0].s, o[1].s, o[2].s, snd);
        check_inferred(r, any_negative({&o[0].s, &o[1].s, &o[2].s}));
        break;
    }
    default: break;
    }

    // placement: real buffers for what fits, a fake base for the rest
    std::size_t used = 0;
    for (auto& x : o) place(x, used, flags & f_null_empty);
    if (flags & f_alias && n_ops >= 2) {
        operand& a = o[0];
        operand& b = op == op_split ? o[1] : o.back();
        if (scatters && a.fits && b.s == a.s) { // in place: the output is the input
            b.st = a.st;
            b.lo = a.lo, b.hi = a.hi;
            b.buf.reset();
            b.data = a.data;
        } else if (a.fits && b.fits && a.buf && b.buf && b.hi - b.lo <= a.hi - a.lo) {
            b.buf.reset();
            b.data = a.buf.get() - static_cast<std::ptrdiff_t>(b.lo);
        }
    }
    for (std::size_t i = 0; i < o.size(); ++i) fill(o[i], in, (gathers || scatters) && i == 1);

    if (tracing()) {
        std::fprintf(stderr, "%s: axis %lld, index_dimensions %d, batch_dimensions %d, policy %s, reduction %d, pad mode %d, value %s,"
                             " pad start %s end %s, flags 0x%02x\n",
                     op_names[op].data(), static_cast<long long>(axis), k, batch, policy == strix::index_policy::clamp ? "clamp" : "error",
                     static_cast<int>(reduction), static_cast<int>(mode), value.to_string().c_str(), strix::to_string(pad_start).c_str(),
                     strix::to_string(pad_end).c_str(), flags);
        for (std::size_t i = 0; i < o.size(); ++i) {
            const auto& x = o[i];
            std::fprintf(stderr, "  operand %zu: %s %s strides %s%s%s\n", i, strix::to_string(x.s).c_str(), std::string(strix::name(x.type)).c_str(),
                         text(x.st, x.s.rank).c_str(), x.fits ? ", in a buffer" : x.representable ? ", too large: placed at a fake base" : ", not representable",
                         x.fits && x.len == 0 && x.s.checked_count() == 0 && !x.data ? " (null data)" : "");
            if (x.fits && x.buf && (gathers || scatters) && i == 1) {
                std::string v;
                const std::size_t es = x.es();
                for (std::size_t b = 0; b + es <= x.len && b < 32 * es; b += es) {
                    std::int64_t val = 0;
                    std::memcpy(&val, x.buf.get() + b, es);
                    if (strix::is_signed_int(x.type) && es == 4) val = static_cast<std::int32_t>(val);
                    v += (b ? " " : "") + std::to_string(val);
                }
                std::fprintf(stderr, "    index slots: %s%s\n", v.c_str(), x.len > 32 * es ? " ..." : "");
            }
        }
    }

    bool all_fit = true, all_representable = true;
    for (const auto& x : o) {
        all_fit &= x.fits;
        all_representable &= x.representable;
    }
    for (const auto& x : o) { // known: strides times the element size overflow in the views and
        // lowering; shape::count() of an empty shape overflows; a lowering offsets the null data of
        // an empty view; the executor's step past a row's end wraps the address space
        if (skip_known("strides") && strides_overflow(x)) return 0;
        if (skip_known("empty-count") && empty_count_overflows(x.s)) return 0;
        if (skip_known("stride-wrap") && x.fits && stride_leaves_address_space(x)) return 0;
        if (skip_known("null-offset") && (op == op_pad || op == op_join || op == op_split) && x.fits && !x.data && x.s.checked_count() == 0)
            return 0;
    }

    strix::cpu::options opt;
    if (flags & f_threads) {
        opt.threads = 2;
        opt.min_bytes_per_thread = 1;
    }
    if (flags & f_stream) opt.stream_min_bytes = 0;
    const bool allocating = flags & f_allocating;

    switch (op) {
    case op_gather: {
        const auto I = o[0].cview(), X = o[1].cview();
        const auto O = o[2].view();
        const index_info ii{range_of(o[1]), o[1].es()};
        if (all_fit) {
            const bool ok = expect_only_strix_errors("operator on views", [&] { strix::gather(I, X, O, gd, opt); });
            const int ax = strix::detail::normalize_axis(axis, I.rank());
            if (ok && ax >= 0)
                check_indices_were_checked(ok, policy, has_bad_index(o[1], [&](std::int64_t) { return I.size(ax); }), O.sizes().checked_count() == 0);
            check_chains(
                o[2], O, opt, [&] { strix::gather(I, X, O, gd, opt); }, [&] { return strix::gather(I, X, gd, opt); },
                [&] { return strix::lazy(I).gather(X, gd); });
        }
        expect_only_strix_errors("checks + lowering + plan walk", [&] {
            const auto ctx = strix::detail::check_gather(I, X, &O, gd);
            const auto p = strix::detail::lower_gather(I, X, O, gd, ctx, strix::detail::index_reading::device);
            if (all_representable) walk(p, range_of(o[2]), range_of(o[0]), &ii);
            if (all_fit) walk(strix::detail::lower_gather(I, X, O, gd, ctx), range_of(o[2]), range_of(o[0]));
        });
        if (allocating && all_fit) {
            const auto r = strix::gather_rule(I.sizes(), X.sizes(), gd);
            if (!r.v.ok() || bytes_of(r.out, type)) expect_only_strix_errors("allocating entry point", [&] { (void)strix::gather(I, X, gd, opt); });
        }
        break;
    }
    case op_gather_elements: {
        const auto I = o[0].cview(), X = o[1].cview();
        const auto O = o[2].view();
        const index_info ii{range_of(o[1]), o[1].es()};
        if (all_fit) {
            const bool ok = expect_only_strix_errors("operator on views", [&] { strix::gather_elements(I, X, O, ged, opt); });
            const int ax = strix::detail::normalize_axis(axis, I.rank());
            if (ok && ax >= 0)
                check_indices_were_checked(ok, policy, has_bad_index(o[1], [&](std::int64_t) { return I.size(ax); }), O.sizes().checked_count() == 0);
            // an index-driven step: the chain runs it as the operator into a temporary
            check_chains(
                o[2], O, opt, [&] { strix::gather_elements(I, X, O, ged, opt); }, [&] { return strix::gather_elements(I, X, ged, opt); },
                [&] { return strix::lazy(I).gather_elements(X, ged); });
        }
        expect_only_strix_errors("checks + lowering + plan walk", [&] {
            const auto ctx = strix::detail::check_gather_elements(I, X, &O, ged);
            const auto p = strix::detail::lower_gather_elements(I, X, O, ged, ctx, strix::detail::index_reading::device);
            if (all_representable) walk(p, range_of(o[2]), range_of(o[0]), &ii);
            if (all_fit) walk(strix::detail::lower_gather_elements(I, X, O, ged, ctx), range_of(o[2]), range_of(o[0]));
        });
        if (allocating && all_fit && bytes_of(X.sizes(), type)) expect_only_strix_errors("allocating entry point", [&] { (void)strix::gather_elements(I, X, ged, opt); });
        break;
    }
    case op_gather_nd: {
        const auto I = o[0].cview(), X = o[1].cview();
        const auto O = o[2].view();
        if (all_fit) {
            const bool ok = expect_only_strix_errors("operator on views", [&] { strix::gather_nd(I, X, O, gnd, opt); });
            check_chains(
                o[2], O, opt, [&] { strix::gather_nd(I, X, O, gnd, opt); }, [&] { return strix::gather_nd(I, X, gnd, opt); },
                [&] { return strix::lazy(I).gather_nd(X, gnd); });
            if (ok)
                check_indices_were_checked(ok, policy, has_bad_index(o[1], [&](std::int64_t j) { return I.size(gnd.batch_dimensions + static_cast<int>(j)); }),
                                           O.sizes().checked_count() == 0);
        }
        expect_only_strix_errors("checks + lowering + plan walk", [&] {
            const auto ctx = strix::detail::check_gather_nd(I, X, &O, gnd).context;
            if (!all_fit || O.count() == 0) return; // the table needs the indices' values
            const int q = X.rank();
            const auto axes = strix::detail::tuple_axes_of(I, gnd.batch_dimensions, X.size(q - 1));
            auto table = strix::detail::resolve_tuples(X, axes.n, axes.stride, gnd.policy, "gather-nd", axes.first, ctx);
            walk(strix::detail::lower_gather_nd(I, X.sizes(), O, gnd, std::move(table)), range_of(o[2]), range_of(o[0]));
        });
        if (allocating && all_fit) {
            const auto r = strix::gather_nd_rule(I.sizes(), X.sizes(), gnd);
            if (!r.v.ok() || bytes_of(r.out, type)) expect_only_strix_errors("allocating entry point", [&] { (void)strix::gather_nd(I, X, gnd, opt); });
        }
        break;
    }
    case op_join: {
        std::vector<strix::any_cview> ins;
        for (std::size_t i = 0; i + 1 < o.size(); ++i) ins.push_back(o[i].cview());
        const auto O = o.back().view();
        if (all_fit) expect_only_strix_errors("operator on views", [&] { strix::join(ins, O, jd, opt); });
        expect_only_strix_errors("checks + lowering + plan walks", [&] {
            const auto checked = strix::detail::check_join(ins, &O, jd);
            const auto plans = strix::detail::lower_join(ins, O, checked.axis);
            if (plans.size() != ins.size()) finding("join: not one plan per input");
            if (all_representable)
                for (std::size_t i = 0; i < plans.size(); ++i) walk(plans[i], range_of(o.back()), range_of(o[i]));
        });
        if (allocating && all_fit && !ins.empty()) {
            std::vector<shape> shapes;
            for (const auto& v : ins) shapes.push_back(v.sizes());
            const auto r = strix::join_rule(shapes, jd);
            // known: an empty result has no data, and lower_join offsets that null pointer
            const bool known = skip_known("null-offset") && r.v.ok() && r.out.checked_count() == 0 && ins.size() > 1;
            if (!known && (!r.v.ok() || bytes_of(r.out, type)))
                expect_only_strix_errors("allocating entry point", [&] { (void)strix::join(ins, jd, opt); });
        }
        break;
    }
    case op_pad: {
        const auto I = o[0].cview();
        const auto O = o[1].view();
        // the plan walk visits every output element: its cost follows the output's extent, which
        // the harness cannot allocate beyond this either
        if (total_pad(I.sizes(), pd) > (1 << 24)) return 0;
        if (all_fit) {
            expect_only_strix_errors("operator on views", [&] { strix::pad(I, O, pd, opt); });
            check_chains(
                o[1], O, opt, [&] { strix::pad(I, O, pd, opt); }, [&] { return strix::pad(I, pd, opt); }, [&] { return strix::lazy(I).pad(pd); });
        }
        expect_only_strix_errors("checks + lowering + plan walk", [&] {
            strix::detail::check_pad(I, &O, pd);
            const auto p = strix::detail::lower_pad(I, O, pd);
            if (all_representable) walk(p, range_of(o[1]), range_of(o[0]));
        });
        if (allocating && all_fit) {
            const auto r = strix::pad_rule(I.sizes(), pd);
            if (!r.v.ok() || bytes_of(r.out, type)) expect_only_strix_errors("allocating entry point", [&] { (void)strix::pad(I, pd, opt); });
        }
        break;
    }
    case op_slice:
    case op_tile: {
        const auto I = o[0].cview();
        const auto O = o[1].view();
        // the one generic path of the operators of one input (op_traits), as the library's
        // entry points take it: the checks, the lowering and the CPU run; the plan walk visits
        // every output element, so an output past 2^24 elements runs only the checks
        auto run = [&](const auto& d) {
            using T = strix::op_traits<std::decay_t<decltype(d)>>;
            const strix::any_cview ins[] = {I};
            const strix::any_view outs[] = {O};
            if (all_fit) {
                expect_only_strix_errors("operator on views", [&] { strix::detail::call_into(ins, outs, d, opt); });
                constexpr bool is_slice = std::is_same_v<std::decay_t<decltype(d)>, strix::slice_desc>;
                check_chains(
                    o[1], O, opt, [&] { strix::detail::call_into(ins, outs, d, opt); },
                    [&] {
                        if constexpr (is_slice) return strix::slice(I, d, opt);
                        else return strix::tile(I, d, opt);
                    },
                    [&] {
                        if constexpr (is_slice) return strix::lazy(I).slice(d);
                        else return strix::lazy(I).tile(d);
                    });
            }
            expect_only_strix_errors("checks + lowering + plan walk", [&] {
                const auto c = T::check(ins, outs, d);
                if (O.sizes().checked_count() > (1 << 24)) return;
                for (const auto& p : T::lower(ins, outs, d, c))
                    if (all_representable) walk(p, range_of(o[1]), range_of(o[0]));
            });
            if (allocating && all_fit) {
                struct probe_t {
                    shape out{};
                    bool ok = false;
                };
                const probe_t probe = [&] {
                    try {
                        return probe_t{T::check(ins, {}, d).out, true};
                    } catch (const strix::error&) {
                        return probe_t{};
                    }
                }();
                if (!probe.ok || (probe.out.checked_count() <= (1 << 24) && bytes_of(probe.out, type)))
                    expect_only_strix_errors("allocating entry point", [&] { (void)strix::detail::call_new(ins, d, opt); });
            }
        };
        if (op == op_slice) run(sld);
        else run(td);
        break;
    }
    case op_split: {
        const auto I = o[0].cview();
        std::vector<strix::any_view> outs;
        std::vector<std::int64_t> sizes;
        const int ax = strix::detail::normalize_axis(axis, I.rank());
        for (std::size_t i = 1; i < o.size(); ++i) {
            outs.push_back(o[i].view());
            sizes.push_back(ax >= 0 && o[i].s.rank > ax ? o[i].s[ax] : 0);
        }
        if (all_fit) expect_only_strix_errors("operator on views", [&] { strix::split(I, outs, sd, opt); });
        expect_only_strix_errors("checks + lowering + plan walks", [&] {
            strix::detail::check_split(I, outs, sd);
            const auto plans = strix::detail::lower_split(I, outs, sd);
            if (plans.size() != outs.size()) finding("split: not one plan per output");
            if (all_representable)
                for (std::size_t i = 0; i < plans.size(); ++i) walk(plans[i], range_of(o[i + 1]), range_of(o[0]));
        });
        if ((flags & f_views) && o[0].fits) {
            expect_only_strix_errors("split_views", [&] {
                const auto pieces = strix::split_views(I, sizes, sd);
                const range whole = range_of(o[0]);
                for (const auto& v : pieces) {
                    const std::int64_t n = v.sizes().checked_count();
                    if (n < 0) finding("split_views: a piece with an overflowing shape");
                    if (n == 0) continue;
                    i128 lo = 0, hi = 0;
                    for (int i = 0; i < v.rank(); ++i) {
                        const i128 span = mul(static_cast<i128>(v.size(i)) - 1, v.stride(i));
                        (span < 0 ? lo : hi) += span;
                    }
                    const i128 es = static_cast<i128>(v.element_size());
                    const i128 base = static_cast<i128>(reinterpret_cast<std::uintptr_t>(v.data()));
                    lo = clamp(lo), hi = clamp(hi);
                    if (hi - lo + 1 > static_cast<i128>(budget) || !whole.contains(base + lo * es, static_cast<std::size_t>((hi - lo + 1) * es)))
                        finding("split_views: a piece reaches outside the input");
                }
            });
        }
        if (allocating && o[0].fits && bytes_of(I.sizes(), type)) {
            bool small = true;
            const std::int64_t rest = ax >= 0 && I.size(ax) > 0 ? I.count() / I.size(ax) : 1;
            for (const auto s : sizes) small &= s >= 0 && static_cast<i128>(s) * rest <= static_cast<i128>(budget / I.element_size());
            if (small) expect_only_strix_errors("allocating entry point", [&] { (void)strix::split(I, sizes, sd, opt); });
        }
        break;
    }
    case op_scatter: {
        const auto I = o[0].cview(), X = o[1].cview(), U = o[2].cview();
        const auto O = o[3].view();
        if (all_fit) {
            const bool ok = expect_only_strix_errors("operator on views", [&] { strix::scatter(I, X, U, O, scd, opt); });
            // (not in place, which a chain's output never is; not with unique-indices, whose
            // false promise leaves a repeated target any one of its updates)
            if (!strix::detail::same_view(I, O) && !scd.unique_indices)
                check_chains(
                    o[3], O, opt, [&] { strix::scatter(I, X, U, O, scd, opt); }, [&] { return strix::scatter(I, X, U, scd, opt); },
                    [&] { return strix::lazy(I).scatter(X, U, scd); });
            const int ax = strix::detail::normalize_axis(axis, I.rank());
            if (ok && ax >= 0)
                check_indices_were_checked(ok, policy, has_bad_index(o[1], [&](std::int64_t) { return I.size(ax); }), U.sizes().checked_count() == 0);
        }
        else expect_only_strix_errors("checks only", [&] { (void)strix::detail::check_scatter(I, X, U, &O, scd); });
        if (allocating && o[0].fits && o[1].fits && o[2].fits && bytes_of(I.sizes(), type))
            expect_only_strix_errors("allocating entry point", [&] { (void)strix::scatter(I, X, U, scd, opt); });
        break;
    }
    case op_scatter_nd: {
        const auto I = o[0].cview(), X = o[1].cview(), U = o[2].cview();
        const auto O = o[3].view();
        if (all_fit) {
            const bool ok = expect_only_strix_errors("operator on views", [&] { strix::scatter_nd(I, X, U, O, snd, opt); });
            if (!strix::detail::same_view(I, O) && !snd.unique_indices)
                check_chains(
                    o[3], O, opt, [&] { strix::scatter_nd(I, X, U, O, snd, opt); }, [&] { return strix::scatter_nd(I, X, U, snd, opt); },
                    [&] { return strix::lazy(I).scatter_nd(X, U, snd); });
            if (ok)
                check_indices_were_checked(ok, policy, has_bad_index(o[1], [&](std::int64_t j) { return I.size(static_cast<int>(j)); }),
                                           U.sizes().checked_count() == 0);
        }
        else expect_only_strix_errors("checks only", [&] { (void)strix::detail::check_scatter_nd(I, X, U, &O, snd); });
        if (allocating && o[0].fits && o[1].fits && o[2].fits && bytes_of(I.sizes(), type))
            expect_only_strix_errors("allocating entry point", [&] { (void)strix::scatter_nd(I, X, U, snd, opt); });
        break;
    }
    default: break;
    }
    return 0;
}
