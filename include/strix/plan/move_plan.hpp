#pragma once
/// The plan that gather, join and pad lower to: every output element is copied from one source
/// address (or filled), and that address is a sum of one term per output dimension — an affine
/// stride, a per-coordinate map (pad folds, `no_source` for fill) or a key into a table (gather).
/// Backend-neutral: the CPU executor runs it, and the Vulkan executor reads the same fields.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "strix/dtype.hpp"
#include "strix/shape.hpp"

namespace strix::plan {

/// A map entry meaning "no source element here: write the fill value".
inline constexpr std::int64_t no_source = std::numeric_limits<std::int64_t>::min();

/// One output dimension of a move plan. Strides are in bytes.
///
/// A mapped dimension (pad) is affine on [lo, hi) — the source term is (c - lo) * src — and
/// takes its term from `map` elsewhere: map[c] for c < lo, map[lo + c - hi] for c >= hi. So a
/// map holds only the padded coordinates, however large the dimension.
struct move_dim {
    std::int64_t size = 1;
    std::int64_t dst = 0;           ///< output stride
    std::int64_t src = 0;           ///< source stride of the affine term
    std::int64_t key = 0;           ///< stride of this dimension in the gather table's key
    bool mapped = false;            ///< whether `map`, `lo` and `hi` apply
    std::int64_t lo = 0, hi = 0;    ///< the affine range of a mapped dimension
    std::vector<std::int64_t> map;  ///< source offsets (or no_source) outside [lo, hi)

    [[nodiscard]] bool is_affine() const { return !mapped; }
    /// The source term of coordinate `c` (no_source: fill).
    [[nodiscard]] std::int64_t source(std::int64_t c) const {
        if (!mapped) return c * src;
        if (c < lo) return map[static_cast<std::size_t>(c)];
        if (c >= hi) return map[static_cast<std::size_t>(lo + c - hi)];
        return (c - lo) * src;
    }
};

/// A strided copy with per-dimension source maps and an optional gather table.
struct move_plan {
    int rank = 0;
    std::array<move_dim, max_rank> dims{};
    std::size_t elem = 0;               ///< bytes per element
    const std::byte* src = nullptr;     ///< source base (the affine and map terms are relative to it)
    std::byte* dst = nullptr;           ///< output base
    std::vector<std::int64_t> table;    ///< gather (CPU): source offset per key, already resolved
    /// gather (devices that read indices themselves): the key of a dimension is then a byte
    /// stride in the indices, and the source gains resolve(index at `index + key`) * axis_stride
    const std::byte* index = nullptr;
    dtype index_type = dtype::int64;
    std::int64_t axis_size = 0;
    std::int64_t axis_stride = 0;
    bool clamp = false;                 ///< index policy: clamp (else error)
    std::array<std::byte, 16> fill{};   ///< the fill element, for map entries that are no_source

    /// Number of elements written.
    [[nodiscard]] std::int64_t count() const {
        for (int i = 0; i < rank; ++i) // an empty plan's other sizes may multiply beyond 63 bits
            if (dims[static_cast<std::size_t>(i)].size == 0) return 0;
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= dims[static_cast<std::size_t>(i)].size;
        return n;
    }
};

/// Puts a plan in canonical form: drops size-1 dimensions, turns negative output strides of
/// affine dimensions positive, orders dimensions by output stride (largest first: every output
/// element is written once, so any order is correct and this one walks memory forward), and
/// merges neighbours that step together on every side. A rank-8 call often becomes rank 1 to 3.
inline void collapse(move_plan& p) {
    if (p.count() == 0) {
        p.rank = 0;
        return;
    }
    std::array<move_dim, max_rank> kept{};
    int n = 0;
    for (int i = 0; i < p.rank; ++i) {
        auto& d = p.dims[static_cast<std::size_t>(i)];
        if (d.size == 1) { // a single coordinate: fold its one term into the bases
            if (!d.is_affine()) {
                if (d.source(0) == no_source) { kept[static_cast<std::size_t>(n++)] = std::move(d); }
                else p.src += d.source(0);
            }
            continue;
        }
        if (d.dst < 0 && d.is_affine() && d.key == 0) {
            p.dst += (d.size - 1) * d.dst;
            p.src += (d.size - 1) * d.src;
            d.dst = -d.dst;
            d.src = -d.src;
        }
        kept[static_cast<std::size_t>(n++)] = std::move(d);
    }
    std::stable_sort(kept.begin(), kept.begin() + n, [](const move_dim& a, const move_dim& b) {
        const auto aa = a.dst < 0 ? -a.dst : a.dst, bb = b.dst < 0 ? -b.dst : b.dst;
        return aa > bb;
    });
    int m = 0;
    for (int i = 0; i < n; ++i) {
        auto& d = kept[static_cast<std::size_t>(i)];
        if (m > 0) {
            auto& o = p.dims[static_cast<std::size_t>(m - 1)];
            if (o.is_affine() && d.is_affine() && o.dst == d.dst * d.size && o.src == d.src * d.size &&
                o.key == d.key * d.size) {
                o.size *= d.size;
                o.dst = d.dst;
                o.src = d.src;
                o.key = d.key;
                continue;
            }
        }
        p.dims[static_cast<std::size_t>(m++)] = std::move(d);
    }
    for (int i = m; i < max_rank; ++i) p.dims[static_cast<std::size_t>(i)] = move_dim{};
    p.rank = m;
    if (m == 0) { // a single element
        p.rank = 1;
        p.dims[0] = move_dim{};
    }
}

} // namespace strix::plan
