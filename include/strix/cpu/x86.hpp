#pragma once
/// The processor-specific pieces of the CPU executor: streamed (non-temporal) stores, software
/// prefetching, and the AVX2 kernels chosen at run time on x86-64 (written with GCC's and
/// clang's vector types and built-ins). Elsewhere the copies fall back to memcpy.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace strix::cpu::detail {

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
/// 1 KiB ahead. Chosen at run time (copy_run). Against SSE2's four of each it gathers random
/// rows clearly faster, faster than a memcpy of the same bytes: each row starts on a new page,
/// whose misses the hardware prefetcher does not cover, and half the instructions per line let
/// the core keep twice the lines in flight (bench/NOTES.md, "Figures behind the CPU executor's
/// choices"). (GCC's and clang's vector types and built-ins, not <immintrin.h>, whose parse is a heavy
/// cost to every including file.)
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
/// uses string moves), which row-sized memcpy calls do not: streamed, rows copy at about a large
/// memcpy's rate, where plain stores fall well behind.
/// Streamed stores need stream_fence() before another thread may read them.
/// The streamed copy fetches its source 1 KiB ahead, past the run's end too where `past_end`:
/// splits and joins read on there (kept inside the run, splits along the innermost axis in
/// short runs lost much of their rate on two threads). A caller whose next run starts
/// elsewhere (random rows) passes false and fetches that run's start itself: the 1 KiB past
/// each 4 KiB row is a table row nobody reads, and keeping the fetch inside the row made such
/// gathers faster (bench/NOTES.md, "Figures behind the CPU executor's choices").
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
            if (past_end || k + 1024 < n) _mm_prefetch(reinterpret_cast<const char*>(s + k + 1024), _MM_HINT_T0); // pays at every size measured (bench/NOTES.md)
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

/// Software prefetch of the next row's source, spread over the current row: one line (or a few)
/// per line of indices, so that the misses go out a few at a time while this row's loads run.
/// The row's source is read in the indices' order, which the hardware prefetcher cannot follow.
/// Issued all at once at the row's start, the 64 prefetches of a 4 KiB row stall behind the
/// core's few outstanding misses, and a gather along the last axis ran much slower that way
/// (bench/NOTES.md, "Figures behind the CPU executor's choices"). (Addresses as integers: past
/// the input's end they are hints that never fault.)
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
/// indices resolved (negatives moved by n, or clamped) 4 or 8 to a vector. Chosen at run time:
/// faster than the scalar loop with the same prefetching on the gathers measured
/// (bench/NOTES.md, "Figures behind the CPU executor's choices"). GCC's and clang's vector
/// types and built-ins, not <immintrin.h> (see stream_lines_avx2).
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
    // 1- and 2-byte indices (compact copies, unsigned) widen to 32-bit lanes as they load
    constexpr bool compact = sizeof(I) < 4;
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
    constexpr std::int64_t lanes = compact ? 8 : 32 / static_cast<std::int64_t>(sizeof(I)); // per vector of indices
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

} // namespace strix::cpu::detail
