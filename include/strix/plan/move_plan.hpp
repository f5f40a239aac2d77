#pragma once
/// The plan that gather, join and pad lower to: every output element is copied from one source
/// address (or filled), and that address is a sum of one term per output dimension — an affine
/// stride, a fold of a padded dimension (a pad_mode: `no_source` where it fills), or a key into
/// a table (gather). Backend-neutral: the CPU executor runs it, and the Vulkan encoder reads the
/// same fields. A plan holds nothing per coordinate, so its size does not grow with the pads.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "strix/dtype.hpp"
#include "strix/modes.hpp"
#include "strix/shape.hpp"

namespace strix::plan {

/// The source term "no source element here: write the fill value".
inline constexpr std::int64_t no_source = std::numeric_limits<std::int64_t>::min();

/// The source coordinate of coordinate `j` of a dimension of `n` source elements at [0, n),
/// folded as `mode` pads it where j lies outside (-1: the fill value). Periodic folds, so any
/// pad width works (numpy.pad's behaviour). Periods are unsigned: 2n fits in 64 bits for any n an
/// axis may have, where it may not in int64.
constexpr std::int64_t fold_source(pad_mode mode, std::int64_t j, std::int64_t n) {
    if (j >= 0 && j < n) return j;
    // a mod p in [0, p), for any int64 a and p > 0 (no negation of a that could overflow)
    auto mod = [](std::int64_t a, std::uint64_t p) -> std::uint64_t {
        if (a >= 0) return static_cast<std::uint64_t>(a) % p;
        return p - 1 - static_cast<std::uint64_t>(-(a + 1)) % p;
    };
    const auto un = static_cast<std::uint64_t>(n);
    switch (mode) {
    case pad_mode::constant: return -1;
    case pad_mode::edge: return j < 0 ? 0 : n - 1;
    case pad_mode::reflect: {
        if (n == 1) return 0;
        const std::uint64_t p = 2 * (un - 1), m = mod(j, p);
        return static_cast<std::int64_t>(m < un ? m : p - m);
    }
    case pad_mode::symmetric: {
        const std::uint64_t p = 2 * un, m = mod(j, p);
        return static_cast<std::int64_t>(m < un ? m : p - 1 - m);
    }
    case pad_mode::wrap: return static_cast<std::int64_t>(mod(j, un));
    }
    return -1;
}

/// One output dimension of a move plan. Strides are in bytes.
///
/// A padded dimension is affine on [lo, hi) — the source term is (c - lo) * src — and folds the
/// coordinates outside it onto [lo, hi) as `fold` says: the term of c is
/// fold_source(fold, c - lo, hi - lo) * src, or no_source where the fold fills.
struct move_dim {
    std::int64_t size = 1;
    std::int64_t dst = 0;           ///< output stride
    std::int64_t src = 0;           ///< source stride of the affine term
    std::int64_t key = 0;           ///< stride of this dimension in the gather table's key
    bool padded = false;            ///< whether `lo`, `hi` and `fold` apply
    pad_mode fold = pad_mode::constant;
    std::int64_t lo = 0, hi = 0;    ///< the affine range of a padded dimension

    [[nodiscard]] bool is_affine() const { return !padded; }
    /// The source term of coordinate `c` (no_source: fill).
    [[nodiscard]] std::int64_t source(std::int64_t c) const {
        if (!padded) return c * src;
        if (c >= lo && c < hi) return (c - lo) * src;
        const std::int64_t s = fold_source(fold, c - lo, hi - lo);
        return s < 0 ? no_source : s * src;
    }
};

/// A strided copy with per-dimension folds and an optional gather table.
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
    std::array<std::byte, 16> fill{};   ///< the fill element, where a term is no_source

    /// Number of elements written.
    [[nodiscard]] std::int64_t count() const {
        for (int i = 0; i < rank; ++i) // an empty plan's other sizes may multiply beyond 63 bits
            if (dims[static_cast<std::size_t>(i)].size == 0) return 0;
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= dims[static_cast<std::size_t>(i)].size;
        return n;
    }
};

/// `base` moved by `bytes`, computed in integers: an operand with no element may have no data
/// (a null base) and a device operand's base is a device address, where pointer arithmetic
/// would be undefined; only a plan that reads or writes through the result needs it to point
/// into memory.
template <class B>
B* moved(B* base, std::int64_t bytes) {
    return reinterpret_cast<B*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(bytes));
}

/// Puts a plan in canonical form: drops size-1 dimensions, turns negative output strides of
/// affine dimensions positive, orders dimensions by output stride (largest first: every output
/// element is written once, so any order is correct and this one walks memory forward), and
/// merges neighbours that step together on every side. A rank-8 call often becomes rank 1 to 3.
template <class = void>
void collapse(move_plan& p) {
    const int rank = p.rank;
    if (p.count() == 0) {
        p.rank = 0;
        return;
    }
    // in place (every step writes at or before the place it reads): a copy of the dimensions and
    // the zeroing of one were much of a small operator's planning
    auto& dims = p.dims;
    int n = 0;
    for (int i = 0; i < rank; ++i) {
        move_dim d = dims[static_cast<std::size_t>(i)];
        if (d.size == 1) { // a single coordinate: fold its one term into the bases
            if (!d.is_affine()) {
                if (d.source(0) == no_source) { dims[static_cast<std::size_t>(n++)] = d; }
                else p.src = moved(p.src, d.source(0));
            }
            continue;
        }
        if (d.dst < 0 && d.is_affine() && d.key == 0) {
            p.dst = moved(p.dst, (d.size - 1) * d.dst);
            p.src = moved(p.src, (d.size - 1) * d.src);
            d.dst = -d.dst;
            d.src = -d.src;
        }
        dims[static_cast<std::size_t>(n++)] = d;
    }
    // largest output stride first, stable (an insertion sort of at most 8)
    auto magnitude = [](const move_dim& d) { return d.dst < 0 ? -d.dst : d.dst; };
    for (int i = 1; i < n; ++i) {
        const move_dim d = dims[static_cast<std::size_t>(i)];
        int j = i;
        for (; j > 0 && magnitude(dims[static_cast<std::size_t>(j - 1)]) < magnitude(d); --j)
            dims[static_cast<std::size_t>(j)] = dims[static_cast<std::size_t>(j - 1)];
        dims[static_cast<std::size_t>(j)] = d;
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const move_dim d = dims[static_cast<std::size_t>(i)];
        if (m > 0) {
            auto& o = dims[static_cast<std::size_t>(m - 1)];
            if (o.is_affine() && d.is_affine() && o.dst == d.dst * d.size && o.src == d.src * d.size &&
                o.key == d.key * d.size) {
                o.size *= d.size;
                o.dst = d.dst;
                o.src = d.src;
                o.key = d.key;
                continue;
            }
        }
        dims[static_cast<std::size_t>(m++)] = d;
    }
    // the dimensions past the rank stay as a new plan has them (the others already are)
    for (int i = m; i < rank; ++i) dims[static_cast<std::size_t>(i)] = move_dim{};
    p.rank = m;
    if (m == 0) { // a single element
        p.rank = 1;
        dims[0] = move_dim{};
    }
}

} // namespace strix::plan
