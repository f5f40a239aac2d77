#pragma once
/// The CPU's parallel pass over index tensors: whether every index lies in range, before any
/// output is written (strix/plan/indices.hpp resolves and names them).

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "strix/cpu/executor.hpp"
#include "strix/plan/indices.hpp"
#include "strix/small_vector.hpp"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace strix::detail {

/// Whether index `v` lies outside [-n, n) (signed) or [0, n) (unsigned), with one comparison:
/// signed indices are moved by n, so that [-n, n) becomes [0, 2n).
template <class I>
inline bool index_out_of_range(I v, std::int64_t n) {
    if constexpr (std::is_signed_v<I>)
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) + static_cast<std::uint64_t>(n) >= 2 * static_cast<std::uint64_t>(n);
    else return static_cast<std::uint64_t>(v) >= static_cast<std::uint64_t>(n);
}

/// Whether every one of the `len` contiguous indices of type I at `p` lies in [-n, n) ([0, n)
/// unsigned), with SSE2 and no comparison: moved by `shift` (n for signed types), an index x lies in
/// [0, m) (m = 2n signed, n unsigned) exactly when x - m borrows, and the borrow is the top bit
/// of (~x & m) | (~(x ^ m) & (x - m)) — subtractions and bitwise operations, 2 or 4 indices per
/// SSE2 instruction. g++ -O2 left the compare-and-or loop scalar, too slow for the check to
/// keep up with memory: it took a large share of a gather-elements' time
/// (bench/NOTES.md, "Figures behind the CPU executor's choices").
template <class I>
bool contiguous_in_range_sse2(const std::byte* p, std::int64_t len, std::int64_t n) {
    std::int64_t i = 0;
    bool bad = false;
#if defined(__SSE2__) || defined(_M_X64)
    const std::uint64_t shift = std::is_signed_v<I> ? static_cast<std::uint64_t>(n) : 0;
    const std::uint64_t m = std::is_signed_v<I> ? 2 * static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    if constexpr (sizeof(I) == 4) {
        // every 32-bit index is in range once m passes 2^32 - 1; below, 32-bit lanes suffice
        // (a signed index below -n wraps to at least 2^31 >= m)
        if (m > 0xffffffffu) return true;
    }
    constexpr bool wide = sizeof(I) == 8;
    const __m128i vs = wide ? _mm_set1_epi64x(static_cast<long long>(shift)) : _mm_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(shift)));
    const __m128i vm = wide ? _mm_set1_epi64x(static_cast<long long>(m)) : _mm_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(m)));
    auto below = [&](const std::byte* q) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
        const __m128i x = wide ? _mm_add_epi64(v, vs) : _mm_add_epi32(v, vs);
        const __m128i d = wide ? _mm_sub_epi64(x, vm) : _mm_sub_epi32(x, vm);
        return _mm_or_si128(_mm_andnot_si128(x, vm), _mm_andnot_si128(_mm_xor_si128(x, vm), d));
    };
    constexpr std::int64_t per = 64 / static_cast<std::int64_t>(sizeof(I)); // one line per step
    __m128i ok = _mm_set1_epi32(-1);
    for (; i + per <= len; i += per) {
        const std::byte* q = p + i * static_cast<std::int64_t>(sizeof(I));
        ok = _mm_and_si128(ok, _mm_and_si128(_mm_and_si128(below(q), below(q + 16)), _mm_and_si128(below(q + 32), below(q + 48))));
    }
    // the top bit of every lane (a 32-bit lane's, or a 64-bit lane's high half's)
    const int lanes = _mm_movemask_ps(_mm_castsi128_ps(ok));
    bad = wide ? (lanes & 0xa) != 0xa : lanes != 0xf;
#endif
    for (; i < len; ++i) {
        I v;
        std::memcpy(&v, p + i * static_cast<std::int64_t>(sizeof(I)), sizeof(I));
        bad |= index_out_of_range(v, n);
    }
    return !bad;
}

#ifdef STRIX_X86_AVX2
/// The same with AVX2, 16 indices per step, for processors that have it (chosen at run time: the
/// library is built for the x86-64 baseline). The SSE2 version spends about seven operations on
/// two int64 indices, well below the core's read rate on indices in the caches; here an index
/// moved into [0, m) is in range exactly when, moved once more by the sign bit, it lies below m
/// moved likewise as a signed integer (a signed compare of unsigned values): an add and a
/// compare per vector, at about the core's read rate (bench/NOTES.md, "Figures behind the CPU
/// executor's choices").
/// GCC's vector types rather than <immintrin.h>, whose parse is a heavy cost to every including
/// file.
///
/// With `out` (N a 1- or 2-byte unsigned type, I unsigned, n at most N's count of values) it
/// also writes each index as an N, in order (a compact copy): what the check reads anyway, in
/// an eighth or a quarter of int64's bytes, for a kernel that would otherwise read the indices
/// again (see indices_compacted). Where an index is out of range its compact value is
/// meaningless.
template <class I, class N = void>
__attribute__((target("avx2"))) bool contiguous_in_range_avx2(const std::byte* p, std::int64_t len, std::int64_t n, N* out = nullptr) {
    constexpr bool wide = sizeof(I) == 8;
    constexpr bool compacts = !std::is_void_v<N>;
    using lane = std::conditional_t<wide, std::int64_t, std::int32_t>;
    using ulane = std::make_unsigned_t<lane>;
    typedef lane vec __attribute__((vector_size(32)));
    typedef ulane uvec __attribute__((vector_size(32)));
    typedef std::uint32_t v8u32 __attribute__((vector_size(32)));
    typedef std::uint8_t v32u8 __attribute__((vector_size(32)));
    typedef std::uint8_t v16u8 __attribute__((vector_size(16)));
    typedef std::uint16_t v16u16 __attribute__((vector_size(32)));
    const std::uint64_t shift = std::is_signed_v<I> ? static_cast<std::uint64_t>(n) : 0;
    const std::uint64_t m = std::is_signed_v<I> ? 2 * static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    if constexpr (!wide && !compacts) {
        if (m > 0xffffffffu) return true; // as in the SSE2 version
    }
    constexpr ulane top = ulane{1} << (sizeof(lane) * 8 - 1);
    // adding the top bit flips it: unsigned order becomes signed order (unsigned lanes wrap)
    const auto vs = static_cast<ulane>(static_cast<ulane>(shift) + top);
    const auto vm = static_cast<lane>(static_cast<ulane>(static_cast<ulane>(m) + top));
    vec ok = vec{} - 1;
    std::int64_t i = 0;
    for (; i + 16 <= len; i += 16) { // 16 indices a step: 2 vectors of int32, 4 of int64
        const std::byte* q = p + i * static_cast<std::int64_t>(sizeof(I));
        uvec a, b, c, d;
        std::memcpy(&a, q, 32); // unaligned loads
        std::memcpy(&b, q + 32, 32);
        ok &= (reinterpret_cast<vec>(a + vs) < vm) & (reinterpret_cast<vec>(b + vs) < vm); // -1 where in range
        if constexpr (wide) {
            std::memcpy(&c, q + 64, 32);
            std::memcpy(&d, q + 96, 32);
            ok &= (reinterpret_cast<vec>(c + vs) < vm) & (reinterpret_cast<vec>(d + vs) < vm);
        }
        if constexpr (compacts) {
            // the low 32 bits of each index (of int64's, the even halves), then their low bytes
            v8u32 x, y;
            if constexpr (wide) {
                x = __builtin_shufflevector(reinterpret_cast<v8u32>(a), reinterpret_cast<v8u32>(b), 0, 2, 4, 6, 8, 10, 12, 14);
                y = __builtin_shufflevector(reinterpret_cast<v8u32>(c), reinterpret_cast<v8u32>(d), 0, 2, 4, 6, 8, 10, 12, 14);
            } else {
                x = reinterpret_cast<v8u32>(a);
                y = reinterpret_cast<v8u32>(b);
            }
            if constexpr (sizeof(N) == 1) {
                const v16u8 r = __builtin_shufflevector(reinterpret_cast<v32u8>(x), reinterpret_cast<v32u8>(y), 0, 4, 8, 12, 16, 20, 24, 28, 32, 36,
                                                        40, 44, 48, 52, 56, 60);
                std::memcpy(out + i, &r, sizeof r);
            } else {
                const v16u16 r = __builtin_shufflevector(reinterpret_cast<v16u16>(x), reinterpret_cast<v16u16>(y), 0, 2, 4, 6, 8, 10, 12, 14, 16,
                                                         18, 20, 22, 24, 26, 28, 30);
                std::memcpy(out + i, &r, sizeof r);
            }
        }
    }
    bool bad = false;
    for (std::size_t k = 0; k < 32 / sizeof(lane); ++k) bad |= ok[k] == 0;
    for (; i < len; ++i) {
        I v;
        std::memcpy(&v, p + i * static_cast<std::int64_t>(sizeof(I)), sizeof(I));
        bad |= index_out_of_range(v, n);
        if constexpr (compacts) out[i] = static_cast<N>(v);
    }
    return !bad;
}
#endif

/// Whether every one of the `len` contiguous indices of type I at `p` lies in range: AVX2 where
/// the processor has it, else SSE2 (x86-64's baseline), else one by one.
template <class I>
bool contiguous_in_range(const std::byte* p, std::int64_t len, std::int64_t n) {
#ifdef STRIX_X86_AVX2
    if (cpu::detail::cpu_has_avx2()) return contiguous_in_range_avx2<I>(p, len, n);
#endif
    return contiguous_in_range_sse2<I>(p, len, n);
}

/// The unsigned index type of an index type's size (int64 -> uint64, int32 -> uint32).
inline dtype unsigned_index_type(dtype t) {
    return t == dtype::int64 ? dtype::uint64 : (t == dtype::int32 ? dtype::uint32 : t);
}

/// The parallel pass behind indices_in_range and indices_compacted: whether every index of `idx`
/// lies in [-n, n) ([0, n) unsigned; with `nonnegative`, in [0, n) whatever the type), on up to
/// `opt`'s threads; with `out`, each index is also written as an N at its C-order place.
template <class N>
bool scan_indices(const any_cview& idx, std::int64_t n, const cpu::options& opt, bool nonnegative, N* out) {
    const std::int64_t count = idx.count();
    if (count == 0) return true;
    const int t = cpu::detail::threads_for(opt, count * static_cast<std::int64_t>(idx.element_size()), count);
    small_vector<unsigned char, 16> bad(static_cast<std::size_t>(t)); // each task writes its own
    // [0, n) is the unsigned types' range: a signed index read as unsigned lies in it exactly
    // when it is non-negative and below n, once n is no more than the count of the signed
    // type's non-negative values (a negative int32 read as uint32 lies below 2^32)
    const dtype as = nonnegative ? unsigned_index_type(idx.type()) : idx.type();
    if (nonnegative && idx.type() == dtype::int32) n = std::min<std::int64_t>(n, std::int64_t{1} << 31);
    auto scan = [&](auto tag) {
        using I = decltype(tag);
        cpu::parallel_tasks(t, [&](int k) {
            bool b = false;
            const std::int64_t e0 = cpu::detail::part_start(count, k, t);
            N* o = nullptr;
            if constexpr (!std::is_void_v<N>) o = out + e0;
            for_each_run(idx, e0, cpu::detail::part_start(count, k + 1, t), [&](const std::byte* p, std::int64_t step, std::int64_t len) {
                // no early exit: a branch-free loop runs at the speed of memory
                bool any = false, vector = false;
                if (step == static_cast<std::int64_t>(sizeof(I))) { // contiguous: a vector loop
                    if constexpr (std::is_void_v<N>) {
                        any = !contiguous_in_range<I>(p, len, n);
                        vector = true;
                    }
#ifdef STRIX_X86_AVX2
                    else if (cpu::detail::cpu_has_avx2()) { // compacting: AVX2 only
                        any = !contiguous_in_range_avx2<I>(p, len, n, o);
                        vector = true;
                    }
#endif
                }
                if (!vector)
                    for (std::int64_t i = 0; i < len; ++i, p += step) {
                        I v;
                        std::memcpy(&v, p, sizeof(I));
                        any |= index_out_of_range(v, n);
                        if constexpr (!std::is_void_v<N>) o[i] = static_cast<N>(v);
                    }
                if constexpr (!std::is_void_v<N>) o += len;
                b |= any;
            });
            bad[static_cast<std::size_t>(k)] = b;
        });
    };
    // a compacting scan reads its indices as unsigned: two types, not four (compile time)
    if constexpr (std::is_void_v<N>) cpu::detail::with_index_type(as, scan);
    else if (as == dtype::uint32) scan(std::uint32_t{});
    else scan(std::uint64_t{});
    for (const auto b : bad)
        if (b) return false;
    return true;
}

/// Whether every index of `idx` lies in [-n, n) ([0, n) unsigned; with `nonnegative`, in [0, n)
/// whatever the type), checked on up to `opt`'s threads. The check only says yes or no: when it
/// says no, resolve_indices (one thread, C order) finds the first bad index and throws its
/// message, so messages do not depend on the number of threads.
template <class = void>
bool indices_in_range(const any_cview& idx, std::int64_t n, const cpu::options& opt = {}, bool nonnegative = false) {
    return scan_indices<void>(idx, n, opt, nonnegative, nullptr);
}

/// Whether every index of `idx` lies in [0, n) (n at most N's count of values), writing each
/// as an N (uint8_t or uint16_t) at its C-order place in `out` (idx.count() of them) as it
/// checks: a compact copy of the indices. An operator whose kernel reads every index again after the check (gather-elements)
/// then reads the compact copy: on int64 indices an eighth or a quarter of the bytes. When it
/// says no, `out` holds nothing of use.
template <class N>
bool indices_compacted(const any_cview& idx, std::int64_t n, const cpu::options& opt, N* out) {
    static_assert(std::is_same_v<N, std::uint8_t> || std::is_same_v<N, std::uint16_t>);
    return scan_indices<N>(idx, n, opt, true, out);
}

/// The check an operator runs under index_policy::error before its first write. True when every
/// index of `idx` lies in [0, n): its kernels may then read them as their unsigned type
/// (unsigned_index_type), with no move of negatives per element. Else every index must lie in
/// [-n, n) (a second pass, for indices that count from the end); `fail()` is called when one
/// does not, and must throw.
template <class F>
bool indices_checked(const any_cview& idx, std::int64_t n, const cpu::options& opt, F&& fail) {
    if (indices_in_range(idx, n, opt, true)) return true;
    if (!indices_in_range(idx, n, opt)) fail();
    return false;
}

/// Runs plan `p`, whose executor reads and resolves each index of `idx` where it lies (into an
/// axis of `n`): under index_policy::error every index is checked first (`fail()` throws, naming
/// the first bad one in C order), and when all lie in [0, n) the kernels read them unsigned.
template <class F>
void execute_indexed(plan::move_plan p, const any_cview& idx, std::int64_t n, index_policy policy, const cpu::options& opt, F&& fail) {
    if (policy == index_policy::error && indices_checked(idx, n, opt, fail)) p.index_type = unsigned_index_type(p.index_type);
    cpu::execute(p, opt);
}

} // namespace strix::detail
