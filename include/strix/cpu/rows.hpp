#pragma once
/// The pieces the CPU executor's walks (strix/cpu/walk.hpp) build an output row from: element
/// copies and fills, the segments of a padded row, and rows gathered through indices.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "strix/cpu/x86.hpp"
#include "strix/dtype.hpp"
#include "strix/plan/move_plan.hpp"
#include "strix/small_vector.hpp"

namespace strix::cpu::detail {

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
segment_list segments_of(const plan::move_dim& d, std::int64_t /*elem*/, term_list& terms) {
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
                    if (next == plan::no_source || next != prev + d.src) break;
                    prev = next;
                }
                if (j - i > 1) { // (forward at the source's own stride: a wrap of a strided source too)
                    s.push_back({segment::run, i, j - i, m, d.src});
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
    // prefetcher has not fetched before the row is read front to back (a stall per row, which
    // left pads of wrap mode well behind the other modes: bench/NOTES.md, "Figures behind the
    // CPU executor's choices")
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
        // the loop waiting on them; nearer gained less, farther no more (bench/NOTES.md,
        // "Figures behind the CPU executor's choices")
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

} // namespace strix::cpu::detail
