#pragma once
/// Composition of moves: a tensor that a chain of moves (slices, crops, pads, tiles, a gather)
/// makes from one source, held as the source side of a move plan — one term per dimension of
/// the tensor it stands for, nothing per coordinate. Each step rewrites the terms of the
/// dimensions it touches:
///
///   slice   an affine term: its base moves to the first element and its stride scales by the
///           step (a gathered dimension: the same on its key); a folded term: its affine range
///           shifts (step 1), or becomes affine where the window lies inside that range
///   pad     an affine term becomes a folded one on [start, start + n); a constant pad of a
///           dimension already padded with the same constant widens that range
///   gather  an affine dimension is replaced by the indices' dimensions, whose terms are keys
///           into the indices (read where they lie, as devices read them)
///
/// A step whose terms do not compose says so (returns false): a pad or gather of a gathered
/// dimension, a second gather, a fold of a folded dimension, a strided slice across a fold, a
/// second constant of another value. The chain then materialises what it has composed so far
/// and goes on from that tensor (strix/ops/chain.hpp). The plan's output side is set last
/// (`finish`), for an output of the composed shape.

#include <array>
#include <cstddef>
#include <cstdint>

#include "strix/plan/move_plan.hpp"

namespace strix::plan {

/// A tensor made by moves from one source (see above): `p`'s dims are its dimensions (uncollapsed,
/// one per dimension, sizes its extents; their output strides unset), `p.src` the source base
/// the terms add to, and the gather fields of `p` the one gather composed, if any.
struct composed {
    move_plan p;
    bool fill_bound = false; ///< whether a constant pad has fixed `p.fill`

    /// The source of `rank` dimensions of `sizes` with byte strides `strides`, at `base`.
    static composed of(const std::byte* base, std::size_t elem, int rank, const std::int64_t* sizes, const std::int64_t* strides) {
        composed c;
        c.p.rank = rank;
        c.p.elem = elem;
        c.p.src = base;
        for (int i = 0; i < rank; ++i) {
            auto& d = c.p.dims[static_cast<std::size_t>(i)];
            d.size = sizes[i];
            d.src = strides[i];
        }
        return c;
    }

    [[nodiscard]] move_dim& dim(int i) { return p.dims[static_cast<std::size_t>(i)]; }
    [[nodiscard]] const move_dim& dim(int i) const { return p.dims[static_cast<std::size_t>(i)]; }
    /// Whether every dimension is affine and nothing is gathered: the tensor is a strided view
    /// of its source.
    [[nodiscard]] bool is_view() const {
        if (p.index) return false;
        for (int i = 0; i < p.rank; ++i)
            if (dim(i).padded) return false;
        return true;
    }

    /// Keeps `count` coordinates of dimension `i` from `first`, `step` apart (the clamped window
    /// of a slice, or a crop with step 1). False where it does not compose.
    bool slice(int i, std::int64_t first, std::int64_t step, std::int64_t count) {
        move_dim& d = dim(i);
        if (count == 0) { // an empty tensor: nothing is read, any terms will do
            d = move_dim{};
            d.size = 0;
            return true;
        }
        if (count == 1) step = 1; // (one coordinate: the step is never taken)
        if (!d.padded) {
            p.src = moved(p.src, first * d.src);
            d.src *= step;
            if (d.key != 0) {
                p.index = moved(p.index, first * d.key);
                d.key *= step;
            }
            d.size = count;
            return true;
        }
        const std::int64_t last = first + (count - 1) * step;
        if (first >= d.lo && first < d.hi && last >= d.lo && last < d.hi) { // inside the source's range: affine
            p.src = moved(p.src, (first - d.lo) * d.src);
            d.src *= step;
            d.padded = false;
            d.size = count;
            return true;
        }
        if (step != 1) return false;
        // the executors take an affine range inside the dimension, [lo, hi) within [0, size)
        std::int64_t lo = d.lo - first, hi = d.hi - first;
        if (lo < 0 || hi > count) {
            // a window that cuts into the source's range: only a constant fold is the same on
            // what is left of it (the others fold by its ends and length)
            if (d.fold != pad_mode::constant) return false;
            const std::int64_t a = lo < 0 ? 0 : lo, b = hi > count ? count : hi;
            if (a >= b) lo = hi = 0; // all fill
            else {
                p.src = moved(p.src, (a - lo) * d.src);
                lo = a;
                hi = b;
            }
        }
        d.lo = lo;
        d.hi = hi;
        d.size = count;
        return true;
    }

    /// Pads dimension `i` by `before` and `after` (both >= 0) as `mode` folds; a constant pad's
    /// fill is `fill` (the element's bytes). False where it does not compose.
    bool pad(int i, pad_mode mode, std::int64_t before, std::int64_t after, const std::array<std::byte, 16>& fill) {
        if (before == 0 && after == 0) return true;
        move_dim& d = dim(i);
        if (d.key != 0) return false;
        if (mode == pad_mode::constant && fill_bound && fill != p.fill) return false;
        if (d.padded) {
            if (mode != pad_mode::constant || d.fold != pad_mode::constant) return false;
        } else {
            d.padded = true;
            d.fold = mode;
            d.lo = 0;
            d.hi = d.size;
        }
        d.lo += before;
        d.hi += before;
        d.size += before + after;
        if (mode == pad_mode::constant) {
            p.fill = fill;
            fill_bound = true;
        }
        return true;
    }

    /// Replaces dimension `axis` by `k` dimensions of the indices at `index` (`sizes`, byte
    /// strides `strides`) of type `type`, each index choosing a coordinate of `axis`; `drop`
    /// leading dimensions of the result are 1s that go (DirectML's form with K > 1 crops them:
    /// they must be dimensions before `axis` of size 1). False where it does not compose.
    bool gather(int axis, const std::byte* index, dtype type, int k, const std::int64_t* sizes, const std::int64_t* strides, bool clamp,
                int drop = 0, bool keep_one = false) {
        const move_dim a = dim(axis);
        if (p.index || a.padded || a.key != 0) return false;
        std::array<move_dim, max_rank> full{};
        int n = 0;
        for (int i = 0; i < axis; ++i) full[static_cast<std::size_t>(n++)] = dim(i);
        for (int j = 0; j < k; ++j) {
            move_dim g;
            g.size = sizes[j];
            g.key = strides[j];
            full[static_cast<std::size_t>(n++)] = g;
        }
        for (int i = axis + 1; i < p.rank; ++i) full[static_cast<std::size_t>(n++)] = dim(i);
        // DirectML's K = 0 keeps rank by a leading 1; K > 1 drops leading 1s of the input
        int r = 0;
        std::array<move_dim, max_rank> out{};
        if (keep_one) out[static_cast<std::size_t>(r++)] = move_dim{};
        for (int i = drop; i < n; ++i) out[static_cast<std::size_t>(r++)] = full[static_cast<std::size_t>(i)];
        for (int i = 0; i < r; ++i) p.dims[static_cast<std::size_t>(i)] = out[static_cast<std::size_t>(i)];
        for (int i = r; i < max_rank; ++i) p.dims[static_cast<std::size_t>(i)] = move_dim{};
        p.rank = r;
        p.index = index;
        p.index_type = type;
        p.axis_size = a.size;
        p.axis_stride = a.src;
        p.clamp = clamp;
        return true;
    }

    /// The move plan that writes this tensor into an output at `dst` with byte strides
    /// `strides` (of this tensor's shape), collapsed.
    [[nodiscard]] move_plan finish(std::byte* dst, const std::int64_t* strides) const {
        move_plan q = p;
        q.dst = dst;
        const bool empty = q.count() == 0;
        for (int i = 0; i < q.rank; ++i) q.dims[static_cast<std::size_t>(i)].dst = empty ? 0 : strides[i];
        if (empty) q.index = nullptr;
        collapse(q);
        return q;
    }
};

} // namespace strix::plan
