#pragma once
/// The CPU executor's walks over a move plan's output elements: the state found once per plan
/// (run_state), where a walk stands (cursor), and the walk itself, chosen per element size and
/// index type (prepare).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strix/cpu/rows.hpp"
#include "strix/cpu/x86.hpp"
#include "strix/dtype.hpp"
#include "strix/plan/move_plan.hpp"

namespace strix::cpu::detail {

/// Output bytes a staged walk collects before it writes them out (see cursor): few enough that
/// the source lines the walk read are still in the L1 cache when the piece goes out; larger
/// pieces were markedly slower (bench/NOTES.md, "Figures behind the CPU executor's choices").
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
/// the front of the buffer. On some processors a plain store into a line next to streamed ones
/// cost far more than its share, and pads whose rows leave a partial line at either end ran
/// well behind a copy, where staged they ran at about the rate of one long streamed copy (that
/// was before padded rows asked for their partial lines ahead; options::stage now leaves it off
/// unless asked for; bench/NOTES.md, "Figures behind the CPU executor's choices").
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
                // before the stores reach them: a large gain on pads, on one thread and on two
                // (bench/NOTES.md, "Figures behind the CPU executor's choices").
                // (addresses as integers: past the output's end they are hints that never fault)
                if (stream && b - a == inner) {
                    const auto at = reinterpret_cast<std::uintptr_t>(out) + static_cast<std::uintptr_t>(2 * inner * ds);
                    __builtin_prefetch(reinterpret_cast<const void*>(at), 1);
                    __builtin_prefetch(reinterpret_cast<const void*>(at + static_cast<std::uintptr_t>(inner * ds - 1)), 1);
                }
                // A wrap pad of a strided source (a tile of a slice) into a contiguous row that
                // this call writes whole: its pads read the row's own copy of the period, written
                // first (the source's range is the first segment) and still in cache, where the
                // elements lie next to each other, instead of the source again, element by element
                const bool again = ds == static_cast<std::int64_t>(E) && in.fold == pad_mode::wrap && in.src != ds && in.src != 0 && a == 0 && b == inner;
                for (const auto& seg : st.segs) {
                    const std::int64_t lo = std::max(a, seg.begin), hi = std::min(b, seg.begin + seg.len);
                    if (lo >= hi) continue;
                    std::byte* o = out + lo * ds;
                    if (seg.kind == segment::fill) fill_elems<E>(o, ds, p.fill.data(), hi - lo);
                    else if (again && seg.kind == segment::run && seg.begin != in.lo) {
                        const std::byte* from = out + (in.lo + seg.src / in.src + (lo - seg.begin)) * ds;
                        copy_run(o, from, static_cast<std::size_t>(hi - lo) * E, stream);
                    } else if (seg.kind == segment::run) {
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
template <bool Compact>
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
    // 1- and 2-byte indices, the compact copies of checked indices (strix/cpu/indices.hpp),
    // only where asked for (Compact) and for 4- and 8-byte elements, which gather-elements
    // alone makes (compact_index_width): four walks more, in the programs that call it only
    auto compact = [&](auto idx) {
        using I = decltype(idx);
        st.start = p.elem == 8 ? start_walk<8, I> : start_walk<4, I>;
        st.walk = p.elem == 8 ? walk<8, I> : walk<4, I>;
    };
    if (!reads) by_size(std::int64_t{});
    else if (Compact && p.index_type == dtype::uint8) compact(std::uint8_t{});
    else if (Compact && p.index_type == dtype::uint16) compact(std::uint16_t{});
    else with_index_type(p.index_type, by_size);
}

} // namespace strix::cpu::detail
