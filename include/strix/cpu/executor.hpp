#pragma once
/// The CPU executor: runs move plans row by row. Per output row it does a handful of additions
/// (no division or modulo); the innermost dimension runs as one memcpy when it is contiguous on
/// both sides, as a precomputed list of copy/fill segments when it is mapped (pad), and as a
/// fixed-size element loop otherwise.

#include <cstring>
#include <thread>
#include <vector>

#include "strix/plan/move_plan.hpp"

namespace strix::cpu {

namespace detail {

template <std::size_t E>
inline void copy_elems(std::byte* dst, std::int64_t ds, const std::byte* src, std::int64_t ss, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i, dst += ds, src += ss) std::memcpy(dst, src, E);
}

/// Copies `n` elements of `elem` bytes between strided rows.
inline void copy_strided(std::size_t elem, std::byte* dst, std::int64_t ds, const std::byte* src, std::int64_t ss, std::int64_t n) {
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

/// Writes the fill element `n` times along a strided row.
inline void fill_strided(std::size_t elem, std::byte* dst, std::int64_t ds, const std::byte* fill, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i, dst += ds) std::memcpy(dst, fill, elem);
}

/// A piece of a mapped innermost row: `len` elements from output position `begin`, either
/// filled, copied as a run starting at source offset `src` with source stride `step`, or copied
/// element by element through the dimension's map (mirrored pads).
struct segment {
    enum kind_t : std::uint8_t { fill, run, each } kind;
    std::int64_t begin, len, src, step;
};

/// The segments of a mapped dimension: its pads grouped into fills, contiguous runs and single
/// elements, and the input's own range as one run.
inline std::vector<segment> segments_of(const plan::move_dim& d, std::int64_t elem) {
    std::vector<segment> s;
    auto add_mapped = [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t i = from; i < to;) {
            std::int64_t j = i + 1;
            const std::int64_t m = d.source(i);
            if (m == plan::no_source) {
                while (j < to && d.source(j) == plan::no_source) ++j;
                s.push_back({segment::fill, i, j - i, 0, 0});
            } else {
                while (j < to && d.source(j) != plan::no_source && d.source(j) == d.source(j - 1) + elem) ++j;
                if (j - i > 1) s.push_back({segment::run, i, j - i, m, elem});
                else if (!s.empty() && s.back().kind == segment::each && s.back().begin + s.back().len == i) s.back().len += 1;
                else s.push_back({segment::each, i, 1, 0, 0});
            }
            i = j;
        }
    };
    add_mapped(0, d.lo);
    if (d.hi > d.lo) s.push_back({segment::run, d.lo, d.hi - d.lo, 0, d.src});
    add_mapped(d.hi, d.size);
    return s;
}

} // namespace detail

/// Runs output rows [row_begin, row_end) of a collapsed plan (a row is one coordinate of all
/// dimensions but the innermost).
inline void run_rows(const plan::move_plan& p, std::int64_t row_begin, std::int64_t row_end,
                     const std::vector<detail::segment>& inner_segments) {
    using plan::no_source;
    const int outer = p.rank - 1;
    const auto& in = p.dims[static_cast<std::size_t>(outer)];
    std::array<std::int64_t, max_rank> c{};
    // coordinates of row_begin (one division per dimension, once per call)
    std::int64_t r = row_begin;
    for (int d = outer - 1; d >= 0; --d) {
        const auto sz = p.dims[static_cast<std::size_t>(d)].size;
        c[static_cast<std::size_t>(d)] = r % sz;
        r /= sz;
    }
    std::int64_t dst = 0, src = 0, key = 0;
    // the affine source step of each outer dimension (a mapped one adds its term per row)
    std::array<std::int64_t, max_rank> step{};
    for (int d = 0; d < outer; ++d) {
        const auto& dd = p.dims[static_cast<std::size_t>(d)];
        step[static_cast<std::size_t>(d)] = dd.is_affine() ? dd.src : 0;
        dst += c[static_cast<std::size_t>(d)] * dd.dst;
        src += c[static_cast<std::size_t>(d)] * step[static_cast<std::size_t>(d)];
        key += c[static_cast<std::size_t>(d)] * dd.key;
    }
    bool has_map = false;
    for (int d = 0; d < outer; ++d) has_map |= !p.dims[static_cast<std::size_t>(d)].is_affine();

    for (std::int64_t row = row_begin; row < row_end; ++row) {
        std::byte* out = p.dst + dst;
        std::int64_t s = src;
        bool fill_row = false;
        if (has_map) {
            for (int d = 0; d < outer; ++d) {
                const auto& dd = p.dims[static_cast<std::size_t>(d)];
                if (dd.is_affine()) continue;
                const auto m = dd.source(c[static_cast<std::size_t>(d)]);
                if (m == no_source) { fill_row = true; break; }
                s += m;
            }
        }
        if (fill_row) {
            detail::fill_strided(p.elem, out, in.dst, p.fill.data(), in.size);
        } else if (!p.table.empty() && in.key != 0) {
            // gather along the innermost output dimension: one table lookup per element (plus an
            // affine term for gather-elements, whose indices walk the input's other axes too)
            const std::int64_t* t = p.table.data() + key;
            const std::byte* base = p.src + s;
            for (std::int64_t i = 0; i < in.size; ++i, out += in.dst, base += in.src)
                std::memcpy(out, base + t[i * in.key], p.elem); // elem is 1..16
        } else {
            if (!p.table.empty()) s += p.table[static_cast<std::size_t>(key)];
            if (in.is_affine()) {
                detail::copy_strided(p.elem, out, in.dst, p.src + s, in.src, in.size);
            } else {
                for (const auto& seg : inner_segments) {
                    std::byte* o = out + seg.begin * in.dst;
                    if (seg.kind == detail::segment::fill) detail::fill_strided(p.elem, o, in.dst, p.fill.data(), seg.len);
                    else if (seg.kind == detail::segment::run) detail::copy_strided(p.elem, o, in.dst, p.src + s + seg.src, seg.step, seg.len);
                    else for (std::int64_t i = seg.begin; i < seg.begin + seg.len; ++i, o += in.dst)
                        std::memcpy(o, p.src + s + in.source(i), p.elem);
                }
            }
        }
        // next row
        for (int d = outer - 1; d >= 0; --d) {
            const auto& dd = p.dims[static_cast<std::size_t>(d)];
            auto& cd = c[static_cast<std::size_t>(d)];
            const std::int64_t sd = step[static_cast<std::size_t>(d)];
            dst += dd.dst;
            src += sd;
            key += dd.key;
            if (++cd < dd.size) break;
            dst -= dd.size * dd.dst;
            src -= dd.size * sd;
            key -= dd.size * dd.key;
            cd = 0;
        }
    }
}

/// Options of the CPU executor.
struct options {
    /// Worker threads for one operator (1: the calling thread only). Work is split by output
    /// rows; small operators always run on the calling thread.
    int threads = 1;
};

/// Runs a collapsed move plan.
inline void execute(const plan::move_plan& p, const options& opt = {}) {
    if (p.rank == 0 || p.count() == 0) return;
    const auto& in = p.dims[static_cast<std::size_t>(p.rank - 1)];
    const auto segs = in.is_affine() ? std::vector<detail::segment>{} : detail::segments_of(in, static_cast<std::int64_t>(p.elem));
    const std::int64_t rows = p.count() / in.size;
    const std::int64_t bytes = p.count() * static_cast<std::int64_t>(p.elem);
    const int t = static_cast<int>(std::min<std::int64_t>({opt.threads, rows, bytes / (256 << 10) + 1}));
    if (t <= 1) {
        run_rows(p, 0, rows, segs);
        return;
    }
    std::vector<std::thread> pool;
    for (int i = 1; i < t; ++i) pool.emplace_back([&, i] { run_rows(p, rows * i / t, rows * (i + 1) / t, segs); });
    run_rows(p, 0, rows / t, segs);
    for (auto& th : pool) th.join();
}

} // namespace strix::cpu
