#pragma once
/// The CPU executor: runs move plans over ranges of output elements. Per output row it does a
/// handful of additions (no division or modulo); the innermost dimension runs as one memcpy when
/// it is contiguous on both sides, as a precomputed list of copy/fill segments when it is padded
/// (pad), and as an element loop of the element's own size otherwise (a memcpy of a constant
/// size compiles to one load and one store; a call per element was most of the time of pads and
/// gathers). Work is split over threads by elements, not rows, so that a plan of one long row
/// (a join or split along the outer axis) uses every thread too.

#include <cstring>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "strix/cpu/thread_pool.hpp"
#include "strix/dtype.hpp"
#include "strix/host_memory.hpp"
#include "strix/plan/move_plan.hpp"
#include "strix/small_vector.hpp"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace strix::cpu {

/// Options of the CPU executor.
struct options {
    /// Threads for one operator: 1 runs on the calling thread only, N > 1 on up to N threads
    /// (the caller and a pool's workers, started on first use), 0 on every hardware thread.
    /// Work is split by output elements, so one long row is shared too.
    int threads = 1;
    /// Bytes (one side of the copy) each thread should have at least: smaller operators use
    /// fewer threads, and under this size stay on the calling thread, where handing work over
    /// would cost more than it saves. Tests set 1 to split even tiny operators.
    std::int64_t min_bytes_per_thread = 256 << 10;
    /// Operators that write at least this many bytes (all threads together) write the whole
    /// cache lines of their contiguous runs with non-temporal stores: no read of each line before
    /// it is written, and the output does not evict the caches' contents. Smaller outputs stay in
    /// the caches for whatever reads them next. 0 streams always; a negative value never.
    /// Measured (`strix-bench`, NOTES.md): on one core of a 2-core Xeon VM streaming lost at
    /// 8 MiB written (0.86-0.91 of memcpy against 0.96-1.01) and won from 16 MiB (pads of 17.6 MB
    /// 0.82-0.96 against 0.75-0.80); on a 16-thread Xeon, pads of 137 MB on one thread 0.81-1.11
    /// against 0.69-0.78, and on 16 threads (4.3 MB each) 0.92-1.11 against 0.82-0.94.
    std::int64_t stream_min_bytes = 16 << 20;
    /// Whether a streamed operator builds dense output rows that are not whole aligned cache
    /// lines (pads, element gathers) in a 4 KiB buffer and writes them out as whole streamed
    /// lines, instead of streaming each row's whole lines and storing its partial ones in
    /// place. Measured with pads of 137 MB (bench/NOTES.md): staging took them from 0.64-0.79
    /// of memcpy to 0.90-1.18 on a Zen 4 EPYC core while the partial lines were stored as they
    /// came; since a padded row asks for its partial lines two rows ahead, unstaged pads run
    /// there at 1.31-1.43 (one thread) and 1.35-1.66 (two) against 1.01-1.16 and 1.18-1.35
    /// staged. On a Zen 5 EPYC staging halved them, and a Xeon runs them at 0.96-1.07
    /// unstaged. `automatic` (the library's choice) no longer stages on any processor.
    enum class staging { automatic, always, never };
    staging stage = staging::automatic;
    /// A gather-elements whose indices take at least this many bytes checks them into a copy
    /// narrowed to 1 or 2 bytes each (an axis of up to 256 or 65536 elements; 4- and 8-byte
    /// elements; where the processor has AVX2), which its gather then reads in place of the
    /// indices: the check before the first write reads every index, and large indices have left
    /// the caches when the gather reads them again. Negative: never. Measured on one Zen 4 EPYC
    /// core (32 MiB L3) with int64 indices along rows of 256: 8 MB of indices 0.95 -> 1.08 ms,
    /// 12 MB level, 48 MB 3.5 -> 3.4; two threads level at 8 MB, 1.05 -> 0.92 at 12, 2.5 -> 1.9 at 48.
    std::int64_t narrow_min_bytes = 16 << 20;
};

/// Frees the calling thread's scratch memory: the buffer that holds the narrowed copy of a large
/// gather-elements' checked indices (strix/ops/gather_elements.hpp), kept between calls because
/// a fresh one costs a page fault per page on every call. It holds a quarter or half of the
/// largest such output the thread has gathered into (1 or 2 bytes per element); it is freed
/// anyway when the thread ends. A thread's first call that could use a buffer larger than the
/// largest it has asked for goes without (those faults would cost a one-off call more than the
/// copy saves); the next such call makes it, and after a release a call makes it again.
inline void release_scratch();

namespace detail {

/// The calling thread's scratch buffer (see release_scratch).
struct scratch_buffer {
    strix::detail::host_block block; ///< on huge pages from 4 MiB (host_huge_pages)
    std::size_t asked = 0; ///< the most bytes a call has asked for (repeated_scratch)
};

inline scratch_buffer& thread_scratch() {
    thread_local scratch_buffer s;
    return s;
}

/// At least `bytes` of the calling thread's scratch memory (contents undefined), grown as
/// needed. One user at a time: nothing the executor runs asks for it again.
inline std::byte* scratch(std::size_t bytes) {
    scratch_buffer& s = thread_scratch();
    if (s.block.size() < bytes) {
        s.block.reset(); // the old buffer goes first: the two never coexist
        s.block = strix::detail::host_block(bytes);
    }
    return s.block.data();
}

/// `bytes` of the calling thread's scratch memory where the thread has asked for as many before
/// (or holds them already), else nullptr, noting the request: a new buffer's pages fault in the
/// first time it is written. On 4 KiB pages 32 MiB took 13.8-14.4 ms on a Zen 4 VM, which made
/// a one-off gather-elements along the last axis of 16384x1024 take 39 ms instead of 21 without
/// the copy (18.5 ms with the copy once the buffer exists); on huge pages (host_huge_pages) such
/// a call takes 16-22 ms, but a virtual machine's host may have to back fresh memory first
/// (100 ms and more seen), which only a repeated caller should risk.
inline std::byte* repeated_scratch(std::size_t bytes) {
    scratch_buffer& s = thread_scratch();
    if (s.block.size() < bytes && s.asked < bytes) {
        s.asked = bytes;
        return nullptr;
    }
    return scratch(bytes);
}

/// Whether a streamed operator run under `opt` stages its partial lines (options::stage).
inline bool stages(const options& opt) { return opt.stage == options::staging::always; }

/// How many of `opt`'s threads an operator moving `bytes` bytes in `items` pieces uses.
template <class = void>
int threads_for(const options& opt, std::int64_t bytes, std::int64_t items) {
    const std::int64_t grain = std::max<std::int64_t>(opt.min_bytes_per_thread, 1);
    const std::int64_t t = std::min<std::int64_t>({thread_count(opt.threads), bytes / grain + 1, items});
    return static_cast<int>(std::max<std::int64_t>(t, 1));
}

/// The first of [0, n) in part k of `parts` near-equal parts: floor(n * k / parts), without
/// forming n * k (k <= parts; parts times parts must fit in 64 bits).
constexpr std::int64_t part_start(std::int64_t n, std::int64_t k, std::int64_t parts) {
    return n / parts * k + n % parts * k / parts;
}

/// Splits [0, n) into `t` near-equal parts and runs f(begin, end) for each, in parallel.
template <class F>
void parallel_ranges(int t, std::int64_t n, const F& f) {
    if (t <= 1) {
        f(std::int64_t{0}, n);
        return;
    }
    parallel_tasks(t, [&](int i) { f(part_start(n, i, t), part_start(n, i + 1, t)); });
}

template <std::size_t E>
inline void copy_elems(std::byte* dst, std::int64_t ds, const std::byte* src, std::int64_t ss, std::int64_t n) {
    // indexed, not stepped: a step past the last element may leave the address space (a size-1
    // dimension may have any stride)
    for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, E);
}

template <std::size_t E>
inline void fill_elems(std::byte* dst, std::int64_t ds, const std::byte* fill, std::int64_t n) {
    std::byte f[E];
    std::memcpy(f, fill, E);
    if (ds == static_cast<std::int64_t>(E)) {
        // contiguous: a loop the compiler turns into vector stores (the strided one stays scalar)
        for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + i * static_cast<std::int64_t>(E), f, E);
        return;
    }
    for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, f, E);
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
/// Kernels with an AVX2 version chosen at run time (the library is built for the x86-64
/// baseline): the streamed copy below and the index check (strix/cpu/indices.hpp).
#define STRIX_X86_AVX2 1
#endif

/// Whether the processor this runs on has AVX2 (and the system saves its registers): a load
/// and a test per call.
inline bool cpu_has_avx2() {
#ifdef STRIX_X86_AVX2
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

#ifdef STRIX_X86_AVX2
/// Copies the `lines` whole 64-byte lines at `s` to the line-aligned `d` with AVX2: two 32-byte
/// loads and two non-temporal stores a line, the first `fetch` lines each fetching the source
/// 1 KiB ahead. Chosen at run time (copy_run). Against SSE2's four of each, a gather of 8192
/// random 4 KiB rows on one Zen 4 EPYC core took 2.59-2.96 ms instead of 3.45-3.87 (a memcpy of
/// the same bytes 2.96-3.39): each row starts on a new page, whose misses the hardware
/// prefetcher does not cover, and half the instructions per line let the core keep twice the
/// lines in flight. (GCC's and clang's vector types and built-ins, not <immintrin.h>, whose
/// parse costs every including file 0.5 s.)
__attribute__((target("avx2"))) inline void stream_lines_avx2(std::byte* d, const std::byte* s, std::size_t lines, std::size_t fetch) {
    typedef long long v4di __attribute__((vector_size(32)));
    for (std::size_t k = 0; k < lines; ++k, d += 64, s += 64) {
        if (k < fetch) __builtin_prefetch(s + 1024);
        v4di a, b;
        std::memcpy(&a, s, 32);
        std::memcpy(&b, s + 32, 32);
#ifdef __clang__
        __builtin_nontemporal_store(a, reinterpret_cast<v4di*>(d));
        __builtin_nontemporal_store(b, reinterpret_cast<v4di*>(d + 32));
#else
        __builtin_ia32_movntdq256(reinterpret_cast<v4di*>(d), a);
        __builtin_ia32_movntdq256(reinterpret_cast<v4di*>(d + 32), b);
#endif
    }
}
#endif

/// Copies n contiguous bytes. With `stream`, the whole 64-byte lines of the destination are
/// written with non-temporal stores, which do not read the line first, and the partial lines at
/// either end with plain ones, so no line gets both. A large memcpy avoids those reads too (it
/// uses string moves), which row-sized memcpy calls do not: measured on one core of a Xeon VM,
/// pads of 137 MB ran at 0.74-0.79 of memcpy with plain stores and 0.93-1.03 streamed.
/// Streamed stores need stream_fence() before another thread may read them.
/// The streamed copy fetches its source 1 KiB ahead, past the run's end too where `past_end`:
/// splits and joins read on there (kept inside the run, a split along the innermost axis, 1 KiB
/// runs, lost a third at two threads). A caller whose next run starts elsewhere (random rows)
/// passes false and fetches that run's start itself: the 1 KiB past each 4 KiB row is a table
/// row nobody reads. Keeping the fetch inside the row took a gather of 8192 random rows of
/// 16384x1024 on one Zen 4 EPYC core from 3.27 to 2.98 ms (strix-bench, nine rounds in turns;
/// a bare loop of the copy with the L3 emptied before each run: 7-10%).
template <class = void>
void copy_run(std::byte* d, const std::byte* s, std::size_t n, bool stream, bool past_end = true) {
#if defined(__SSE2__) || defined(_M_X64)
    const std::size_t head = (64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63;
    if (stream && n >= head + 64) {
        std::memcpy(d, s, head);
        std::size_t k = head;
#ifdef STRIX_X86_AVX2
        if (cpu_has_avx2()) {
            const std::size_t lines = (n - head) / 64;
            stream_lines_avx2(d + head, s + head, lines, past_end ? lines : (n > head + 1024 ? (n - head - 1024 + 63) / 64 : 0));
            k += lines * 64;
        }
#endif
        for (; k + 64 <= n; k += 64) {
            if (past_end || k + 1024 < n) _mm_prefetch(reinterpret_cast<const char*>(s + k + 1024), _MM_HINT_T0); // measured: +5% at 512 MiB, +20% at 32 MiB
            const auto* from = reinterpret_cast<const __m128i*>(s + k);
            auto* to = reinterpret_cast<__m128i*>(d + k);
            const __m128i a = _mm_loadu_si128(from), b = _mm_loadu_si128(from + 1), c = _mm_loadu_si128(from + 2), e = _mm_loadu_si128(from + 3);
            _mm_stream_si128(to, a);
            _mm_stream_si128(to + 1, b);
            _mm_stream_si128(to + 2, c);
            _mm_stream_si128(to + 3, e);
        }
        std::memcpy(d + k, s + k, n - k);
        return;
    }
#else
    (void)stream;
#endif
    std::memcpy(d, s, n);
}

/// Fetches the first 1 KiB (or the `bytes` there are) of a run that starts where the hardware
/// prefetcher cannot guess (a gathered row, the next slices a scatter leaves): what a caller of
/// copy_run with `past_end` false does for its next run while it copies this one.
inline void fetch_run_start(const std::byte* p, std::int64_t bytes) {
    const std::int64_t span = bytes < 1024 ? bytes : 1024;
    for (std::int64_t q = 0; q < span; q += 64) __builtin_prefetch(p + q);
}

/// Orders streamed stores before whatever follows (a pool worker's completion signal).
template <class = void>
void stream_fence() {
#if defined(__SSE2__) || defined(_M_X64)
    _mm_sfence();
#endif
}

/// Copies `n` elements of `elem` bytes between strided rows.
template <class = void>
void copy_strided(std::size_t elem, std::byte* dst, std::int64_t ds, const std::byte* src, std::int64_t ss, std::int64_t n) {
    if (ds == static_cast<std::int64_t>(elem) && ss == ds) {
        std::memcpy(dst, src, static_cast<std::size_t>(n) * elem);
        return;
    }
    switch (elem) {
    case 1: copy_elems<1>(dst, ds, src, ss, n); break;
    case 2: copy_elems<2>(dst, ds, src, ss, n); break;
    case 4: copy_elems<4>(dst, ds, src, ss, n); break;
    case 8: copy_elems<8>(dst, ds, src, ss, n); break;
    default: copy_elems<16>(dst, ds, src, ss, n); break;
    }
}

/// A piece of a padded innermost row: `len` elements from output position `begin`, either
/// filled, copied as a run starting at source offset `src` with source stride `step`, or copied
/// element by element (mirrored pads) from the source offsets terms[src], terms[src + 1], ...
struct segment {
    enum kind_t : std::uint8_t { fill, run, each } kind;
    std::int64_t begin, len, src, step;
};

using segment_list = strix::detail::small_vector<segment, 4>; ///< a row's segments (a pad of one period on each side: 3)
using term_list = strix::detail::small_vector<std::int64_t, 8>;  ///< the source offsets of `each` segments' elements

/// The segments of a padded dimension: its pads grouped into fills, contiguous runs and single
/// elements (whose source offsets go to `terms`: the fold is computed once per plan, not per
/// row), and the input's own range as one run, listed first.
template <class = void>
segment_list segments_of(const plan::move_dim& d, std::int64_t elem, term_list& terms) {
    segment_list s;
    auto add_padded = [&](std::int64_t from, std::int64_t to) {
        std::int64_t prev = 0;
        for (std::int64_t i = from; i < to;) {
            std::int64_t j = i + 1;
            const std::int64_t m = d.source(i);
            if (m == plan::no_source) {
                while (j < to && d.source(j) == plan::no_source) ++j;
                s.push_back({segment::fill, i, j - i, 0, 0});
            } else {
                for (prev = m; j < to; ++j) {
                    const std::int64_t next = d.source(j);
                    if (next == plan::no_source || next != prev + elem) break;
                    prev = next;
                }
                if (j - i > 1) {
                    s.push_back({segment::run, i, j - i, m, elem});
                } else {
                    if (!(!s.empty() && s.back().kind == segment::each && s.back().begin + s.back().len == i))
                        s.push_back({segment::each, i, 0, static_cast<std::int64_t>(terms.size()), 0});
                    s.back().len += 1;
                    terms.push_back(m);
                }
            }
            i = j;
        }
    };
    // the input's range first: a wrap pad reads the row's far end, which the hardware
    // prefetcher has not fetched before the row is read front to back (a stall per row, pads
    // of wrap mode at 0.74-0.83 of memcpy where the others ran at 0.94-1.10 on an AMD EPYC)
    if (d.hi > d.lo) s.push_back({segment::run, d.lo, d.hi - d.lo, 0, d.src});
    add_padded(0, d.lo);
    add_padded(d.hi, d.size);
    return s;
}

/// Reads an index of type I at `p` and maps it into [0, n): negatives count from the end, and
/// under `Clamp` anything outside is clamped. Without `Clamp` the index must be valid (the
/// operators check every index before running a plan), and the mapping has no branch.
template <class I, bool Clamp>
inline std::int64_t read_index(const std::byte* p, std::int64_t n) {
    I v;
    std::memcpy(&v, p, sizeof(I));
    if constexpr (std::is_signed_v<I>) {
        std::int64_t x = v;
        if constexpr (Clamp) {
            if (x < 0) x += n;
            return x < 0 ? 0 : (x >= n ? n - 1 : x);
        } else {
            return x + ((x >> 63) & n);
        }
    } else {
        const std::uint64_t x = v;
        if constexpr (Clamp) return x >= static_cast<std::uint64_t>(n) ? n - 1 : static_cast<std::int64_t>(x);
        else return static_cast<std::int64_t>(x);
    }
}

template <class I>
inline std::int64_t read_index(const std::byte* p, std::int64_t n, bool clamp) {
    return clamp ? read_index<I, true>(p, n) : read_index<I, false>(p, n);
}

/// Software prefetch of the next row's source, spread over the current row: one line (or a few)
/// per line of indices, so that the misses go out a few at a time while this row's loads run.
/// The row's source is read in the indices' order, which the hardware prefetcher cannot follow.
/// Issued all at once at the row's start, the 64 prefetches of a 4 KiB row stalled behind the
/// core's few outstanding misses: a gather along the last axis of 16384 x 1024 float32 (one
/// Zen 4 core, in turns) took 34-37 ms that way and 24-28 spread (addresses as integers: past
/// the input's end they are hints that never fault).
struct spread_prefetch {
    std::uintptr_t at = 0, end = 0;
    std::int64_t per_block = 0; ///< lines per block of indices
    spread_prefetch(const std::byte* next, std::int64_t span, std::int64_t blocks)
        : at(reinterpret_cast<std::uintptr_t>(next)), end(at + static_cast<std::uintptr_t>(span)),
          per_block(span > 0 ? (span / 64 + std::max<std::int64_t>(blocks, 1) - 1) / std::max<std::int64_t>(blocks, 1) : 0) {}
    void step() {
        for (std::int64_t k = 0; k < per_block && at < end; ++k, at += 64) __builtin_prefetch(reinterpret_cast<const void*>(at));
    }
    void rest() {
        for (; at < end; at += 64) __builtin_prefetch(reinterpret_cast<const void*>(at));
    }
};

#ifdef STRIX_X86_AVX2
/// Whether gather_lanes_avx2 takes a row of E-byte elements, I indices into an axis of n
/// elements `astride` bytes apart: 4- and 8-byte elements along a contiguous axis (the
/// hardware gather scales by the element size), 32-bit indices only where the axis fits them.
template <std::size_t E, class I>
inline bool gather_lanes_fit(std::int64_t n, std::int64_t astride) {
    return (E == 4 || E == 8) && astride == static_cast<std::int64_t>(E) && (sizeof(I) == 8 || n <= 0x7fffffff);
}

/// Gathers `count` (a multiple of the indices per 64-byte line) elements of one row:
/// out[i] = base[resolve(ix[i])], with AVX2's gather instructions, 4 or 8 elements each, the
/// indices resolved (negatives moved by n, or clamped) 4 or 8 to a vector. Chosen at run time.
/// On one Zen 4 core a gather along the last axis of 16384 x 1024 float32 (int64 indices, a
/// permutation per row) took 21-22 ms against 25-28 for the scalar loop with the same
/// prefetching (in turns, a busy machine). GCC's and clang's vector types and built-ins, not
/// <immintrin.h> (see stream_lines_avx2).
// GCC and clang name the gather built-ins differently
#ifdef __clang__
#define STRIX_GATHER(gcc, clang) __builtin_ia32_##clang
#else
#define STRIX_GATHER(gcc, clang) __builtin_ia32_##gcc
#endif
// zero-extending 8 bytes or 8 shorts to 32-bit lanes: GCC 12 lowers __builtin_convertvector of
// them to scalar code, so it takes its built-in (clang has no such built-in)
#ifdef __clang__
#define STRIX_WIDEN(op, as, v) __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7), vidx)
#else
#define STRIX_WIDEN(op, as, v) __builtin_ia32_##op(reinterpret_cast<as>(v))
#endif
template <std::size_t E, class I, bool Clamp>
__attribute__((target("avx2"))) void gather_lanes_avx2(std::byte* out, const std::byte* base, const std::byte* ix, std::int64_t n,
                                                       std::int64_t count, spread_prefetch& pf) {
    constexpr bool wide = sizeof(I) == 8;
    // 1- and 2-byte indices (narrowed copies, unsigned) widen to 32-bit lanes as they load
    constexpr bool narrow = sizeof(I) < 4;
    using lane = std::conditional_t<std::is_signed_v<I>, std::conditional_t<wide, std::int64_t, std::int32_t>,
                                    std::conditional_t<wide, std::uint64_t, std::uint32_t>>;
    typedef lane vidx __attribute__((vector_size(32)));
    typedef unsigned char v16qu __attribute__((vector_size(16)));
    typedef unsigned short v8hu __attribute__((vector_size(16)));
    typedef long long v2di __attribute__((vector_size(16)));
    typedef char v16qi __attribute__((vector_size(16), unused)); // GCC's built-ins' argument types
    typedef short v8hi __attribute__((vector_size(16), unused));
    typedef float v8sf __attribute__((vector_size(32)));
    typedef float v4sf __attribute__((vector_size(16)));
    typedef double v4df __attribute__((vector_size(32)));
    typedef long long v4di __attribute__((vector_size(32)));
    typedef int v4si __attribute__((vector_size(16)));
    typedef int v8si __attribute__((vector_size(32)));
    const auto vn = static_cast<lane>(n);
    // in place: GCC notes an ABI change for 32-byte vectors passed by value
    auto resolve = [&](vidx& x) {
        if constexpr (std::is_signed_v<lane>) x += (x < 0) & vn; // comparisons give -1 where true
        if constexpr (Clamp) {
            if constexpr (std::is_signed_v<lane>) x &= ~(x < 0);
            const vidx hi = x > static_cast<lane>(vn - 1);
            x = (x & ~hi) | (static_cast<lane>(vn - 1) & hi);
        }
    };
    constexpr std::int64_t per = 64 / static_cast<std::int64_t>(sizeof(I)); // indices per line
    constexpr std::int64_t lanes = narrow ? 8 : 32 / static_cast<std::int64_t>(sizeof(I)); // per vector of indices
    for (std::int64_t i = 0; i < count; i += per) {
        __builtin_prefetch(ix + 2048);
        pf.step();
        for (std::int64_t j = 0; j < per; j += lanes, ix += lanes * static_cast<std::int64_t>(sizeof(I))) {
            vidx x;
            if constexpr (sizeof(I) == 1) {
                long long q;
                std::memcpy(&q, ix, 8);
                const v2di v = {q, 0};
                x = reinterpret_cast<vidx>(STRIX_WIDEN(pmovzxbd256, v16qi, reinterpret_cast<v16qu>(v)));
            } else if constexpr (sizeof(I) == 2) {
                v8hu v;
                std::memcpy(&v, ix, 16);
                x = reinterpret_cast<vidx>(STRIX_WIDEN(pmovzxwd256, v8hi, v));
            } else {
                std::memcpy(&x, ix, 32);
            }
            resolve(x);
            std::byte* o = out + (i + j) * static_cast<std::int64_t>(E);
            if constexpr (E == 4 && wide) {
                v4sf m, g;
                std::memset(&m, 0xff, sizeof m);
                g = STRIX_GATHER(gatherdiv4sf256, gatherq_ps256)(v4sf{}, reinterpret_cast<const float*>(base), reinterpret_cast<v4di>(x), m, 4);
                std::memcpy(o, &g, 16);
            } else if constexpr (E == 4) {
                v8sf m, g;
                std::memset(&m, 0xff, sizeof m);
                g = STRIX_GATHER(gathersiv8sf, gatherd_ps256)(v8sf{}, reinterpret_cast<const float*>(base), reinterpret_cast<v8si>(x), m, 4);
                std::memcpy(o, &g, 32);
            } else if constexpr (wide) {
                v4df m, g;
                std::memset(&m, 0xff, sizeof m);
                g = STRIX_GATHER(gatherdiv4df, gatherq_pd256)(v4df{}, reinterpret_cast<const double*>(base), reinterpret_cast<v4di>(x), m, 8);
                std::memcpy(o, &g, 32);
            } else {
                // eight 32-bit indices, two gathers of four 8-byte elements
                const v8si xi = reinterpret_cast<v8si>(x);
                const v4si halves[2] = {{xi[0], xi[1], xi[2], xi[3]}, {xi[4], xi[5], xi[6], xi[7]}};
                v4df m;
                std::memset(&m, 0xff, sizeof m);
                for (int h = 0; h < 2; ++h) {
                    const v4df g = STRIX_GATHER(gathersiv4df, gatherd_pd256)(v4df{}, reinterpret_cast<const double*>(base), halves[h], m, 8);
                    std::memcpy(o + 32 * h, &g, 32);
                }
            }
        }
    }
}
#undef STRIX_GATHER
#undef STRIX_WIDEN
#endif

/// Gathers output elements [a, b) of one row whose source is keyed per element: out[i] =
/// base[i * ss + resolve(index at ix + i * ks) * astride]. `next` and `span`: the next row's
/// source to prefetch (span 0: none). `lanes` false keeps to the scalar loop (its test).
template <std::size_t E, class I, bool Clamp>
inline void gather_row(std::byte* out, std::int64_t ds, const std::byte* base, std::int64_t ss, const std::byte* ix, std::int64_t ks,
                       std::int64_t n, std::int64_t astride, std::int64_t a, std::int64_t b, const std::byte* next, std::int64_t span,
                       bool lanes = true) {
#ifndef STRIX_X86_AVX2
    (void)lanes; // no AVX2 version on this target
#endif
    out += a * ds;
    base += a * ss;
    ix += a * ks;
    constexpr std::int64_t per = 64 / static_cast<std::int64_t>(sizeof(I)); // indices per line
    spread_prefetch pf(next, span, (b - a) / per);
    if (ds == static_cast<std::int64_t>(E) && ks == static_cast<std::int64_t>(sizeof(I)) && ss == 0) { // the common layout: pointers step by constants
        std::int64_t i = a;
#ifdef STRIX_X86_AVX2
        if (lanes && gather_lanes_fit<E, I>(n, astride) && cpu_has_avx2()) {
            const std::int64_t whole = (b - a) / per * per;
            gather_lanes_avx2<E, I, Clamp>(out, base, ix, n, whole, pf);
            i += whole;
            out += whole * static_cast<std::int64_t>(E);
            ix += whole * static_cast<std::int64_t>(sizeof(I));
        }
#endif
        // the indices are fetched 2 KiB ahead, one line at a time: the hardware prefetcher left
        // the loop waiting on them (gather-elements along the last axis, one core of a Zen 5
        // EPYC: 0.34-0.37 of memcpy -> 0.43-0.47; 4 and 8 KiB ahead alike, 1 KiB 0.40-0.42)
        for (; i + per <= b; i += per) {
            __builtin_prefetch(ix + 2048);
            pf.step();
            for (std::int64_t j = 0; j < per; ++j, out += E, ix += sizeof(I)) std::memcpy(out, base + read_index<I, Clamp>(ix, n) * astride, E);
        }
        for (; i < b; ++i, out += E, ix += sizeof(I)) std::memcpy(out, base + read_index<I, Clamp>(ix, n) * astride, E);
        pf.rest();
        return;
    }
    pf.rest();
    for (std::int64_t i = 0; i < b - a; ++i) std::memcpy(out + i * ds, base + i * ss + read_index<I, Clamp>(ix + i * ks, n) * astride, E);
}

/// Calls f(type_tag-like I{}) with the C++ type of an index dtype.
template <class F>
inline decltype(auto) with_index_type(dtype t, F&& f) {
    switch (t) {
    case dtype::int32: return f(std::int32_t{});
    case dtype::uint32: return f(std::uint32_t{});
    case dtype::uint64: return f(std::uint64_t{});
    default: return f(std::int64_t{});
    }
}

/// Output bytes a staged walk collects before it writes them out (see cursor): measured on one
/// core of an AMD EPYC (Zen 4), pads of 137 MB took 4.3-4.4 ms staged in 4 or 8 KiB pieces,
/// 6.3-7.0 in 16 or 32 KiB (the source's lines then leave the 32 KiB L1), and 6.2-10.7 ms written
/// in place, against 3.5 ms for one streamed copy of the same bytes.
inline constexpr std::int64_t stage_bytes = 4096;

struct cursor;

/// What a worker needs besides the plan: what follows from the plan alone, found once per call.
struct run_state {
    const plan::move_plan* p = nullptr;
    segment_list segs;        ///< the innermost dimension's segments when it is padded
    term_list terms;          ///< their single elements' source offsets
    bool stream = false;       ///< contiguous runs bypass the caches (copy_run)
    /// The output is dense and rows of at most stage_bytes are not written as whole aligned
    /// lines (pads, fills, element gathers, rows not a multiple of 64 bytes): they are built in a
    /// small buffer and written out as whole lines with streamed stores (cursor).
    bool staged = false;
    bool has_map = false;                 ///< an outer dimension maps its source (a pad)
    std::array<std::int64_t, max_rank> step{}; ///< each outer dimension's affine source step
    std::int64_t pf_span = 0, pf_step = 0;     ///< prefetch for rows gathered element by element
    void (*start)(const run_state&, cursor&, std::int64_t) = nullptr; ///< for the plan's types
    void (*walk)(const run_state&, cursor&, std::int64_t) = nullptr;
};

/// Where a walk over a plan's output elements (C order of the collapsed plan) stands, kept
/// between calls: a join or split walks its plans row by row in turn, and each call goes on
/// where the last stopped instead of finding its place again.
///
/// A staged walk (run_state::staged) writes into `buf` the output bytes from plan offset
/// `wbase` on; the bytes from `wlo` to `whi` are not yet written out. Once stage_bytes have
/// gathered, every whole line goes out with streamed stores and the partial last line moves to
/// the front of the buffer. On an AMD EPYC (Zen 4) a plain store into a line next to streamed ones cost
/// far more than its share: pads whose 1,048-byte rows leave a partial line at either end ran
/// at 0.65-0.80 of memcpy, where staged they run at about the rate of one long streamed copy
/// (Zen 4, before padded rows asked for their partial lines ahead; options::stage now leaves it
/// off unless asked for).
struct cursor {
    std::array<std::int64_t, max_rank> c{};
    std::int64_t dst = 0, src = 0, key = 0, col = 0;
    std::byte* buf = nullptr;
    std::int64_t wbase = 0, wlo = 0, whi = 0;
};

/// Bytes a staged cursor's buffer needs: a partial line carried over, stage_bytes, one row.
inline constexpr std::size_t stage_buffer_bytes = 64 + 2 * stage_bytes + 64;

/// Writes a staged cursor's collected bytes out: the whole lines, or with `all` everything.
template <class = void>
void flush_stage(const run_state& st, cursor& w, bool all) {
    std::byte* const base = st.p->dst;
    std::int64_t end = w.whi;
    if (!all) end -= static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(base + end) & 63);
    if (end <= w.wlo) return;
    copy_run(base + w.wlo, w.buf + (w.wlo - w.wbase), static_cast<std::size_t>(end - w.wlo), true);
    std::memmove(w.buf, w.buf + (end - w.wbase), static_cast<std::size_t>(w.whi - end));
    w.wbase = w.wlo = end;
}

/// Places cursor `w` at output element e0.
template <std::size_t E, class I>
void start_walk(const run_state& st, cursor& w, std::int64_t e0) {
    const plan::move_plan& p = *st.p;
    const int outer = p.rank - 1;
    const std::int64_t inner = p.dims[static_cast<std::size_t>(outer)].size;
    std::int64_t r = e0 / inner;
    w.col = e0 - r * inner;
    // coordinates of the first row (one division per dimension, once per walk)
    for (int d = outer - 1; d >= 0; --d) {
        const auto sz = p.dims[static_cast<std::size_t>(d)].size;
        w.c[static_cast<std::size_t>(d)] = r % sz;
        r /= sz;
    }
    w.dst = w.src = w.key = 0;
    for (int d = 0; d < outer; ++d) {
        const auto& dd = p.dims[static_cast<std::size_t>(d)];
        const std::int64_t cd = w.c[static_cast<std::size_t>(d)];
        w.dst += cd * dd.dst;
        w.src += cd * st.step[static_cast<std::size_t>(d)];
        w.key += cd * dd.key;
    }
    w.wbase = w.dst;
    w.wlo = w.whi = w.dst + w.col * static_cast<std::int64_t>(E);
}

/// Runs the next n output elements of cursor `w`, with elements of E bytes and indices (plans
/// that read indices themselves) of type I.
template <std::size_t E, class I>
void walk(const run_state& st, cursor& w, std::int64_t n) {
    using plan::no_source;
    const plan::move_plan& p = *st.p;
    const int outer = p.rank - 1;
    const auto& in = p.dims[static_cast<std::size_t>(outer)];
    const std::int64_t inner = in.size;
    const bool table = !p.table.empty();
    const bool reads = !table && p.index != nullptr;
    const std::int64_t n_axis = p.axis_size, a_stride = p.axis_stride;
    const bool clamp = p.clamp, staged = st.staged, has_map = st.has_map;
    const std::int64_t ds = in.dst, ss = in.src;
    const auto& step = st.step;

    for (std::int64_t left = n; left > 0;) {
        if (w.col == inner) {
            // next row
            w.col = 0;
            for (int d = outer - 1; d >= 0; --d) {
                const auto& dd = p.dims[static_cast<std::size_t>(d)];
                auto& cd = w.c[static_cast<std::size_t>(d)];
                const std::int64_t sd = step[static_cast<std::size_t>(d)];
                w.dst += dd.dst;
                w.src += sd;
                w.key += dd.key;
                if (++cd < dd.size) break;
                w.dst -= dd.size * dd.dst;
                w.src -= dd.size * sd;
                w.key -= dd.size * dd.key;
                cd = 0;
            }
        }
        const std::int64_t a = w.col, b = std::min(inner, w.col + left);
        // a staged walk's rows follow each other in its buffer (the output is dense)
        std::byte* out = staged ? w.buf + (w.dst - w.wbase) : p.dst + w.dst;
        const std::int64_t key = w.key;
        std::int64_t s = w.src;
        bool fill_row = false;
        if (has_map) {
            for (int d = 0; d < outer; ++d) {
                const auto& dd = p.dims[static_cast<std::size_t>(d)];
                if (dd.is_affine()) continue;
                const auto m = dd.source(w.c[static_cast<std::size_t>(d)]);
                if (m == no_source) { fill_row = true; break; }
                s += m;
            }
        }
        if (fill_row) {
            fill_elems<E>(out + a * ds, ds, p.fill.data(), b - a);
        } else if (in.key != 0 && table) {
            // gather along the innermost output dimension: one table lookup per element (plus an
            // affine term for gather-elements, whose indices walk the input's other axes too)
            const std::int64_t* t = p.table.data() + key;
            const std::byte* base = p.src + s;
            for (std::int64_t i = a; i < b; ++i) std::memcpy(out + i * ds, base + i * ss + t[i * in.key], E);
        } else if (in.key != 0 && reads) {
            // the same, resolving each index where it lies instead of through a table
            // the row's source is read in the indices' order, which defeats the hardware
            // prefetcher: fetch the next row's axis (the likely next source) ahead of time
            const std::byte* next = st.pf_span > 0 ? p.src + s + st.pf_step : nullptr;
            if (clamp) gather_row<E, I, true>(out, ds, p.src + s, ss, p.index + key, in.key, n_axis, a_stride, a, b, next, st.pf_span);
            else gather_row<E, I, false>(out, ds, p.src + s, ss, p.index + key, in.key, n_axis, a_stride, a, b, next, st.pf_span);
        } else {
            bool rows_apart = false; // the next row's source is not where this one's ends
            if (table) s += p.table[static_cast<std::size_t>(key)];
            else if (reads) {
                s += read_index<I>(p.index + key, n_axis, clamp) * a_stride;
                // rows gathered whole (an embedding lookup): the next row starts at a random
                // place the hardware prefetcher cannot guess; fetch its first lines now
                rows_apart = !has_map && outer > 0 && b - a == inner;
                if (rows_apart && w.c[static_cast<std::size_t>(outer - 1)] + 1 < p.dims[static_cast<std::size_t>(outer - 1)].size) {
                    const auto& od = p.dims[static_cast<std::size_t>(outer - 1)];
                    const std::byte* next = p.src + w.src + step[static_cast<std::size_t>(outer - 1)] +
                                            read_index<I>(p.index + key + od.key, n_axis, clamp) * a_stride + a * ss;
                    fetch_run_start(next, inner * static_cast<std::int64_t>(E));
                }
            }
            // a staged walk writes its buffer with plain stores: it goes out streamed as a whole
            const bool stream = st.stream && !staged;
            if (in.is_affine()) {
                if (ds == static_cast<std::int64_t>(E) && ss == ds) copy_run(out + a * E, p.src + s + a * E, static_cast<std::size_t>(b - a) * E, stream, !rows_apart);
                else copy_elems<E>(out + a * ds, ds, p.src + s + a * ss, ss, b - a);
            } else {
                // A padded row's first and last lines are partial, shared with the rows beside
                // it and written with plain stores, each of which has to read its line first:
                // ask for the lines of the row two ahead now, so that those reads are under way
                // before the stores reach them. Measured on a 2-core Xeon VM (family 6 model
                // 207), pads of 137 MB by 3 on the last axes, in turns with memcpy: one thread
                // 0.72-0.78 -> 1.04-1.23, two threads 0.65-0.77 -> 0.91-1.28 (bench/NOTES.md).
                // (addresses as integers: past the output's end they are hints that never fault)
                if (stream && b - a == inner) {
                    const auto at = reinterpret_cast<std::uintptr_t>(out) + static_cast<std::uintptr_t>(2 * inner * ds);
                    __builtin_prefetch(reinterpret_cast<const void*>(at), 1);
                    __builtin_prefetch(reinterpret_cast<const void*>(at + static_cast<std::uintptr_t>(inner * ds - 1)), 1);
                }
                for (const auto& seg : st.segs) {
                    const std::int64_t lo = std::max(a, seg.begin), hi = std::min(b, seg.begin + seg.len);
                    if (lo >= hi) continue;
                    std::byte* o = out + lo * ds;
                    if (seg.kind == segment::fill) fill_elems<E>(o, ds, p.fill.data(), hi - lo);
                    else if (seg.kind == segment::run) {
                        const std::byte* from = p.src + s + seg.src + (lo - seg.begin) * seg.step;
                        // short runs (the pads of wrap mode) inline: a library call costs more than the copy
                        if (ds == static_cast<std::int64_t>(E) && seg.step == ds && (hi - lo) * static_cast<std::int64_t>(E) >= 64)
                            copy_run(o, from, static_cast<std::size_t>(hi - lo) * E, stream);
                        else copy_elems<E>(o, ds, from, seg.step, hi - lo);
                    } else {
                        const std::int64_t* t = st.terms.data() + seg.src + (lo - seg.begin);
                        for (std::int64_t i = 0; i < hi - lo; ++i) std::memcpy(o + i * ds, p.src + s + t[i], E);
                    }
                }
            }
        }
        left -= b - a;
        w.col = b;
        if (staged) {
            w.whi = w.dst + b * static_cast<std::int64_t>(E);
            if (w.whi - w.wbase >= stage_bytes) flush_stage(st, w, false);
        }
    }
}

/// Whether consecutive output elements of `p` (C order) lie next to each other in memory.
template <class = void>
bool dense_output(const plan::move_plan& p) {
    std::int64_t s = static_cast<std::int64_t>(p.elem);
    for (int d = p.rank - 1; d >= 0; --d) {
        const auto& dd = p.dims[static_cast<std::size_t>(d)];
        if (dd.size != 1 && dd.dst != s) return false;
        s *= dd.size;
    }
    return true;
}

/// Fills `st` (fresh) with the run state of collapsed plan `p` (rank >= 1), its walk chosen for
/// its types.
template <bool Narrow>
void prepare(run_state& st, const plan::move_plan& p, bool stream, bool stage) {
    st.p = &p;
    const int outer = p.rank - 1;
    const auto& in = p.dims[static_cast<std::size_t>(outer)];
    const auto elem = static_cast<std::int64_t>(p.elem);
    if (!in.is_affine()) st.segs = segments_of(in, elem, st.terms);
    for (int d = 0; d < outer; ++d) {
        const auto& dd = p.dims[static_cast<std::size_t>(d)];
        st.step[static_cast<std::size_t>(d)] = dd.is_affine() ? dd.src : 0;
        st.has_map |= !dd.is_affine();
    }
    st.stream = stream;
    const std::int64_t row = in.size * elem;
    const bool whole_lines = (reinterpret_cast<std::uintptr_t>(p.dst) & 63) == 0 && row % 64 == 0;
    st.staged = stage && stream && row <= stage_bytes && dense_output(p) && (reinterpret_cast<std::uintptr_t>(p.dst) % p.elem) == 0 &&
                (!whole_lines || !in.is_affine() || in.key != 0 || st.has_map);
    // prefetching for rows gathered element by element: the span of a contiguous axis (up to
    // 16 KiB) at the next row's source, when the last outer dimension steps the source affinely
    const bool reads = p.table.empty() && p.index != nullptr;
    if (reads && in.key != 0 && outer > 0 && p.axis_stride == elem && in.src == 0 && p.dims[static_cast<std::size_t>(outer - 1)].is_affine()) {
        st.pf_step = st.step[static_cast<std::size_t>(outer - 1)];
        st.pf_span = p.axis_size * p.axis_stride <= (16 << 10) ? p.axis_size * p.axis_stride : 0;
    }
    auto by_size = [&](auto idx) {
        using I = decltype(idx);
        switch (p.elem) {
        case 1: st.start = start_walk<1, I>; st.walk = walk<1, I>; break;
        case 2: st.start = start_walk<2, I>; st.walk = walk<2, I>; break;
        case 4: st.start = start_walk<4, I>; st.walk = walk<4, I>; break;
        case 8: st.start = start_walk<8, I>; st.walk = walk<8, I>; break;
        default: st.start = start_walk<16, I>; st.walk = walk<16, I>; break;
        }
    };
    // the index type matters only to plans that read indices; the others take one instantiation.
    // 1- and 2-byte indices, the narrowed copies of checked indices (strix/cpu/indices.hpp),
    // only where asked for (Narrow) and for 4- and 8-byte elements, which gather-elements
    // alone makes (narrowed_index_width): four walks more, in the programs that call it only
    auto narrow = [&](auto idx) {
        using I = decltype(idx);
        st.start = p.elem == 8 ? start_walk<8, I> : start_walk<4, I>;
        st.walk = p.elem == 8 ? walk<8, I> : walk<4, I>;
    };
    if (!reads) by_size(std::int64_t{});
    else if (Narrow && p.index_type == dtype::uint8) narrow(std::uint8_t{});
    else if (Narrow && p.index_type == dtype::uint16) narrow(std::uint16_t{});
    else with_index_type(p.index_type, by_size);
}

} // namespace detail

/// Runs the collapsed plans of one join or split (disjoint outputs) together, in blocks that
/// each hold the same fraction of every plan: one row of each where rows are at least 4 KiB
/// together, else as many rows as make 4 KiB. A join or split along an inner axis then reads
/// and writes every array front to back, all plans in turn, where plan after plan would sweep
/// the shared array once per plan. Measured on one core: a Xeon ran 4 inputs along the
/// innermost axis at 0.46 of memcpy plan after plan; an AMD EPYC split 4 outputs from rows of
/// 4 KiB in 8.5-9.9 ms in blocks of 64 rows per plan and 3.9 ms row by row (a streamed copy of
/// the same bytes: 3.7-4.1 ms). A plan of one long row (a join along the outer axis) keeps
/// plan after plan. Threads take contiguous runs of blocks; there are at least as many blocks
/// as threads, so a single long row is split too.
template <bool Narrow = false>
void execute_together(std::span<const plan::move_plan> plans, const options& opt = {}) {
    strix::detail::small_vector<detail::run_state, 4> states;
    std::int64_t bytes = 0, most = 0, rows = 0;
    for (const auto& p : plans) {
        if (p.rank == 0 || p.count() == 0) continue;
        bytes += p.count() * static_cast<std::int64_t>(p.elem);
        most = std::max(most, p.count());
        rows = std::max(rows, p.count() / p.dims[static_cast<std::size_t>(p.rank - 1)].size);
    }
    if (most == 0) return;
    const bool stream = opt.stream_min_bytes >= 0 && bytes >= opt.stream_min_bytes, stage = detail::stages(opt);
    for (const auto& p : plans)
        if (p.rank != 0 && p.count() != 0) detail::prepare<Narrow>(states.emplace_back(), p, stream, stage);
    const int t = detail::threads_for(opt, bytes, most);
    // at most 2^24 blocks, so that part() cannot overflow
    const std::int64_t blocks = states.size() == 1 ? t : std::max<std::int64_t>(std::min({rows, bytes / 4096, std::int64_t{1} << 24}), t);
    // the first element of block k of a plan of n
    auto part = [blocks](std::int64_t n, std::int64_t k) { return detail::part_start(n, k, blocks); };
    detail::parallel_ranges(t, blocks, [&](std::int64_t a, std::int64_t b) {
        strix::detail::small_vector<detail::cursor, 4> cur(states.size());
        std::vector<std::byte> stage;
        std::size_t staged = 0;
        for (const auto& st : states) staged += st.staged ? 1 : 0;
        if (staged) stage.resize(staged * detail::stage_buffer_bytes + 64);
        std::byte* next_buf = stage.data() + ((64 - (reinterpret_cast<std::uintptr_t>(stage.data()) & 63)) & 63);
        for (std::size_t i = 0; i < states.size(); ++i) {
            const auto& st = states[i];
            if (st.staged) {
                cur[i].buf = next_buf;
                next_buf += detail::stage_buffer_bytes;
            }
            st.start(st, cur[i], part(st.p->count(), a));
        }
        for (std::int64_t k = a; k < b; ++k)
            for (std::size_t i = 0; i < states.size(); ++i) {
                const auto& st = states[i];
                const std::int64_t n = st.p->count();
                st.walk(st, cur[i], part(n, k + 1) - part(n, k));
            }
        for (std::size_t i = 0; i < states.size(); ++i)
            if (states[i].staged) detail::flush_stage(states[i], cur[i], true);
        if (stream) detail::stream_fence();
    });
}

/// Runs a collapsed move plan (split by elements, so that one long row uses every thread too).
/// `Narrow`: the plan may read 1- or 2-byte indices (a narrowed copy, see prepare).
template <bool Narrow = false>
void execute(const plan::move_plan& p, const options& opt = {}) { execute_together<Narrow>(std::span<const plan::move_plan>(&p, 1), opt); }

inline void release_scratch() {
    detail::thread_scratch().block.reset();
}

} // namespace strix::cpu
