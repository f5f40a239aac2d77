#pragma once
/// The CPU executor of update plans (strix/plan/update_plan.hpp): scatter and scatter-nd.

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "strix/cpu/executor.hpp"
#include "strix/plan/update_plan.hpp"

namespace strix::cpu {

namespace detail {

/// Whether min/max take the update `u` over the accumulated `a` (floating point): a NaN stays
/// once there, a NaN update is taken, and -0 counts as smaller than +0 — so the result does not
/// depend on the order of the updates (NaN payloads aside).
template <class F>
bool takes_update(F a, F u, scatter_reduction r) {
    if (std::isnan(a)) return false;
    if (std::isnan(u)) return true;
    if (r == scatter_reduction::min) return u < a || (u == a && std::signbit(u));
    return u > a || (u == a && !std::signbit(u));
}

/// A bool element as the reductions read it: its byte, any byte but 0 true (a tensor of
/// dtype::boolean should hold 0 or 1, but its memory may hold anything, and loading another
/// byte as a C++ bool is undefined). The result is 0 or 1, as the devices' shaders make it.
struct bool_byte {
    std::uint8_t v;
};

/// Combines an update `u` into the element `acc` under reduction `r` (the CPU's definition, which
/// the devices follow bit for bit).
template <class T>
T combine(T acc, T u, scatter_reduction r) {
    if (r == scatter_reduction::none) return u;
    if constexpr (std::is_same_v<T, float16>) {
        const float a = static_cast<float>(acc), b = static_cast<float>(u);
        if (r == scatter_reduction::min || r == scatter_reduction::max) return takes_update(a, b, r) ? u : acc;
        // float32 has 24 >= 2 x 11 + 2 significand bits, so rounding to float32 and then to float16
        // equals one correct rounding of the exact sum or product
        const float x = r == scatter_reduction::add ? a + b : a * b;
        return std::isnan(x) ? float16::from_bits(0x7e00) : float16(x);
    } else if constexpr (strix::detail::is_narrow_float_v<T>) {
        // bfloat16 and the float8 types: the same in float32 (24 >= 2 x 8 + 2 bits), rounded
        // once to T; a NaN result, float8_e4m3fn's overflow included, is T's canonical NaN
        const float a = static_cast<float>(acc), b = static_cast<float>(u);
        if (r == scatter_reduction::min || r == scatter_reduction::max) return takes_update(a, b, r) ? u : acc;
        const T x(r == scatter_reduction::add ? a + b : a * b);
        return std::isnan(static_cast<float>(x)) ? T::nan() : x;
    } else if constexpr (std::is_same_v<T, bool_byte>) {
        // PyTorch's scatter_reduce on bool: add and max are a logical or, mul and min an and
        const bool a = acc.v != 0, b = u.v != 0;
        return {static_cast<std::uint8_t>(r == scatter_reduction::add || r == scatter_reduction::max ? (a || b) : (a && b))};
    } else if constexpr (std::is_floating_point_v<T>) {
        if (r == scatter_reduction::min || r == scatter_reduction::max) return takes_update(acc, u, r) ? u : acc;
        // a NaN result is the default quiet NaN: which operand's payload an addition passes on
        // depends on the compiler's operand order and on the device
        const T x = r == scatter_reduction::add ? acc + u : acc * u;
        return std::isnan(x) ? std::numeric_limits<T>::quiet_NaN() : x;
    } else {
        using U = std::make_unsigned_t<T>; // wrap around without undefined behaviour
        switch (r) {
        case scatter_reduction::add: return static_cast<T>(static_cast<U>(static_cast<U>(acc) + static_cast<U>(u)));
        case scatter_reduction::mul: return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(acc)) * static_cast<U>(u)));
        case scatter_reduction::min: return u < acc ? u : acc;
        default: return u > acc ? u : acc;
        }
    }
}

#if defined(__GNUC__)
#define STRIX_UNROLL_8 _Pragma("GCC unroll 8")
#else
#define STRIX_UNROLL_8
#endif

/// Output spans up to this many bytes stay in a core's L2 cache on the x86 servers measured:
/// scatter loops into them fetch no target ahead, which there cost more than it saved; past it
/// fetching ahead pays (bench/NOTES.md, "Figures behind the CPU executor's choices").
inline constexpr std::int64_t scatter_cached_span = 256 << 10;

/// Combines the `n` updates of one row whose indices (type I, checked: none is clamped) and
/// updates (T) are contiguous into their targets, in order: update i goes to out + i * o_step + resolve(index i) *
/// axis_step. Eight updates a step, the index and update streams fetched 2 KiB and 1 KiB ahead
/// once a step, and where `Unit` (the axis's elements adjacent: a scatter along a contiguous
/// axis) the index scaled by a constant: the loop is bound by its instructions, not by memory.
/// With `ahead` (outputs past scatter_cached_span), each target is computed 32 updates before
/// its own, fetched for writing and kept in a ring. On reductions both the unrolling with a
/// constant scale and the ring beat the simpler loop (an update a step, strides read at run
/// time). Without a reduction, a store per update and nothing else, neither the ring (the store
/// buffer holds the misses in flight there, and the ring's stores take its entries: it lost)
/// nor this loop gained, so plain scatter keeps the loop below apply_updates'
/// (bench/NOTES.md, "Figures behind the CPU executor's choices").
template <class T, class I, scatter_reduction red, bool Unit>
void combine_row(std::byte* out, const std::byte* ix, const std::byte* u, std::int64_t n, std::int64_t o_step, std::int64_t axis_n,
                 std::int64_t axis_step, bool ahead) {
    constexpr auto es = static_cast<std::int64_t>(sizeof(T));
    constexpr auto is = static_cast<std::int64_t>(sizeof(I));
    const std::int64_t step = Unit ? es : axis_step;
    // the target of the update whose index is at x and whose row offset is o
    auto at = [=](const std::byte* x, std::byte* o) { return o + read_index<I, false>(x, axis_n) * step; };
    auto apply = [](std::byte* to, const std::byte* from) {
        T v, a;
        std::memcpy(&v, from, sizeof(T));
        std::memcpy(&a, to, sizeof(T));
        a = combine(a, v, red);
        std::memcpy(to, &a, sizeof(T));
    };
    constexpr std::int64_t group = 8, dist = 32; // dist: how many updates ahead the ring runs
    std::int64_t i = 0;
    const std::byte* v = u;
    if (ahead && n > dist) {
        std::byte* ring[dist];
        for (std::int64_t j = 0; j < dist; ++j) {
            ring[j] = at(ix + j * is, out + j * o_step);
            __builtin_prefetch(ring[j], 1);
        }
        const std::byte* xa = ix + dist * is; // the index `dist` updates ahead, and its row offset
        std::byte* oa = out + dist * o_step;
        for (; i + group <= n - dist; i += group, xa += group * is, oa += group * o_step, v += group * es) {
            __builtin_prefetch(xa + 2048);
            __builtin_prefetch(v + 1024);
            std::byte** r = ring + (i & (dist - 1));
            STRIX_UNROLL_8
            for (std::int64_t j = 0; j < group; ++j) {
                std::byte* const t = r[j];
                std::byte* const next = at(xa + j * is, oa + j * o_step);
                r[j] = next;
                __builtin_prefetch(next, 1);
                apply(t, v + j * es);
            }
        }
        // the targets still in the ring, then (fewer than a group) the rest as they come
        const std::int64_t held = i + dist;
        for (; i < n; ++i, v += es) apply(i < held ? ring[i & (dist - 1)] : at(ix + i * is, out + i * o_step), v);
        return;
    }
    const std::byte* x = ix;
    std::byte* o = out;
    for (; i + group <= n; i += group, x += group * is, o += group * o_step, v += group * es) {
        __builtin_prefetch(x + 2048);
        __builtin_prefetch(v + 1024);
        STRIX_UNROLL_8
        for (std::int64_t j = 0; j < group; ++j) apply(at(x + j * is, o + j * o_step), v + j * es);
    }
    for (; i < n; ++i, x += is, o += o_step, v += es) apply(at(x, o), v);
}

#undef STRIX_UNROLL_8

/// A share of an update plan's updates: coordinates [begin, end) of the updates' dimension `dim`,
/// or every update where `dim` is negative.
struct update_part {
    int dim = -1;
    std::int64_t begin = 0, end = 0;
};

/// Applies the updates of `part`, in C order of the updates: update u goes to the output element
/// at (sum of coordinate times dst) + its target offset. With `stream`, whole contiguous rows
/// (scatter-nd of slices, no reduction) write their whole lines with non-temporal stores.
template <class T, class I, scatter_reduction red>
void apply_updates(const plan::update_plan& p, const update_part& part, bool stream) {
    const int r = p.rank;
    std::array<plan::update_dim, max_rank> dims = p.dims;
    // where the walk starts: the part's first coordinate on its dimension
    std::int64_t uo0 = 0, oo0 = 0, key0 = 0;
    if (part.dim >= 0) {
        auto& d = dims[static_cast<std::size_t>(part.dim)];
        uo0 = part.begin * d.src;
        oo0 = part.begin * d.dst;
        key0 = part.begin * d.key;
        d.size = part.end - part.begin;
    }
    std::int64_t n = 1;
    for (int d = 0; d < r; ++d) n *= dims[static_cast<std::size_t>(d)].size;
    if (n == 0) return;
    std::array<std::int64_t, max_rank> c{};
    const std::byte* ub = p.src;
    std::byte* ob = p.dst;
    std::int64_t uo = uo0, oo = oo0, key = key0;
    const plan::update_dim last = r ? dims[static_cast<std::size_t>(r - 1)] : plan::update_dim{};
    const std::int64_t inner = last.size, us = last.src, os = last.dst, ks = last.key;
    const std::int64_t* table = p.table.empty() ? nullptr : p.table.data();
    const std::byte* index = p.index;
    const std::int64_t an = p.axis_size, ast = p.axis_stride;
    const bool clamp = p.clamp;
    auto target = [&](std::int64_t o, std::int64_t kk) { return o + (table ? table[kk] : read_index<I>(index + kk, an, clamp) * ast); };
    constexpr auto es = static_cast<std::int64_t>(sizeof(T));
    auto combine_at = [&](std::byte* to, const std::byte* from) {
        if constexpr (red == scatter_reduction::none) {
            std::memcpy(to, from, sizeof(T));
        } else {
            T v, a;
            std::memcpy(&v, from, sizeof(T));
            std::memcpy(&a, to, sizeof(T));
            a = combine(a, v, red);
            std::memcpy(to, &a, sizeof(T));
        }
    };
    // walks the rows (all but the innermost dimension), calling f(update row, output offset, key)
    auto each_row = [&](auto&& f) {
        std::int64_t uo = uo0, oo = oo0, key = key0;
        std::array<std::int64_t, max_rank> c{};
        for (std::int64_t k = 0; k < n; k += inner) {
            f(ub + uo, oo, key);
            for (int d = r - 2; d >= 0; --d) {
                const auto& dd = dims[static_cast<std::size_t>(d)];
                auto& cd = c[static_cast<std::size_t>(d)];
                uo += dd.src;
                oo += dd.dst;
                key += dd.key;
                if (++cd < dd.size) break;
                uo -= dd.size * dd.src;
                oo -= dd.size * dd.dst;
                key -= dd.size * dd.key;
                cd = 0;
            }
        }
    };
    if (ks == 0 && os == es && us == es) {
        // every row goes to one contiguous run of the output (scatter-nd of rows): a copy, or
        // a combining loop, per row instead of a target per element. Rows that repeat a
        // target still apply in C order.
        each_row([&](const std::byte* u, std::int64_t o, std::int64_t kk) {
            const std::int64_t t = target(o, kk);
            if constexpr (red == scatter_reduction::none) {
                copy_run(ob + t, u, static_cast<std::size_t>(inner * es), stream);
            } else {
                for (std::int64_t x = 0; x < inner * es; x += es) combine_at(ob + t + x, u + x);
            }
        });
        if (stream && red == scatter_reduction::none) stream_fence();
        return;
    }
    if (!table && inner >= 64) {
        // long rows of indices read in place: each target's line is fetched for writing `ahead`
        // updates before its update is applied, with no branch on the target: nearer the bare
        // loop's floor than the blocks below come (bench/NOTES.md, "Figures behind the CPU
        // executor's choices")
        constexpr std::int64_t ahead = 32;
        const bool fetch_targets = p.span_hi - p.span_lo > scatter_cached_span;
        auto rows = [&](auto clamped) {
            each_row([&](const std::byte* u, std::int64_t o, std::int64_t kk) {
                // locals, not captures: the output's stores (bytes) may alias anything whose
                // address escaped, and every captured value would be loaded again per update
                std::byte* const out = ob + o;
                const std::byte* const ix = index + kk;
                const std::int64_t n_row = inner, o_step = os, k_step = ks, u_step = us, axis_n = an, axis_step = ast;
                auto at = [=](std::int64_t i) { return i * o_step + read_index<I, decltype(clamped)::value>(ix + i * k_step, axis_n) * axis_step; };
                std::int64_t i = 0;
                // the index and update streams are fetched 2 KiB and 1 KiB ahead, every 8th
                // update: the hardware prefetcher lost them among the random targets
                // (bench/NOTES.md, "Figures behind the CPU executor's choices")
                if constexpr (red != scatter_reduction::none && !decltype(clamped)::value) {
                    if (k_step == static_cast<std::int64_t>(sizeof(I)) && u_step == es) {
                        // a reduction over contiguous, checked indices and contiguous updates:
                        // the row kernel, its index scaled by a constant where the axis is
                        // contiguous (clamped indices take the loop below: compiling the kernel
                        // for them too cost every program that scatters more than it would save)
                        if (axis_step == es) combine_row<T, I, red, true>(out, ix, u, n_row, o_step, axis_n, axis_step, fetch_targets);
                        else combine_row<T, I, red, false>(out, ix, u, n_row, o_step, axis_n, axis_step, fetch_targets);
                        return;
                    }
                }
                for (; i < n_row - ahead; ++i) {
                    if ((i & 7) == 0) {
                        __builtin_prefetch(ix + i * k_step + 2048);
                        __builtin_prefetch(u + i * u_step + 1024);
                    }
                    __builtin_prefetch(out + at(i + ahead), 1);
                    combine_at(out + at(i), u + i * u_step);
                }
                for (; i < n_row; ++i) combine_at(out + at(i), u + i * u_step);
            });
        };
        if (clamp) rows(std::true_type{});
        else rows(std::false_type{});
        return;
    }
    // Targets are random addresses: each block's targets are computed and prefetched one block
    // before they are written, so that many cache misses are in flight instead of one or two.
    constexpr std::int64_t block = 32;
    std::int64_t tg[2][block];
    const std::byte* us_at[2] = {nullptr, nullptr};
    std::int64_t len[2] = {0, 0};
    auto apply_block = [&](int slot) {
        const std::byte* u = us_at[slot];
        const std::int64_t* t = tg[slot];
        if constexpr (red == scatter_reduction::none) {
            for (std::int64_t j = 0; j < len[slot]; ++j) std::memcpy(ob + t[j], u + j * us, sizeof(T)); // indexed: no step past the last update
        } else {
            for (std::int64_t j = 0; j < len[slot]; ++j) {
                T v, a;
                std::memcpy(&v, u + j * us, sizeof(T));
                std::memcpy(&a, ob + t[j], sizeof(T));
                a = combine(a, v, red);
                std::memcpy(ob + t[j], &a, sizeof(T));
            }
        }
        len[slot] = 0;
    };
    int cur = 0;
    for (std::int64_t k = 0; k < n;) {
        const std::byte* u = ub + uo;
        std::int64_t o = oo, kk = key;
        for (std::int64_t i0 = 0; i0 < inner; i0 += block) {
            const std::int64_t m = std::min(block, inner - i0);
            std::int64_t* t = tg[cur];
            for (std::int64_t j = 0; j < m; ++j, o += os, kk += ks) {
                t[j] = target(o, kk);
                __builtin_prefetch(ob + t[j], 1);
            }
            us_at[cur] = u + i0 * us; // indexed: no step past the row's last update
            len[cur] = m;
            cur ^= 1;
            if (len[cur]) apply_block(cur); // the previous block, in order
        }
        k += inner;
        for (int d = r - 2; d >= 0; --d) {
            const auto& dd = dims[static_cast<std::size_t>(d)];
            auto& cd = c[static_cast<std::size_t>(d)];
            uo += dd.src;
            oo += dd.dst;
            key += dd.key;
            if (++cd < dd.size) break;
            uo -= dd.size * dd.src;
            oo -= dd.size * dd.dst;
            key -= dd.size * dd.key;
            cd = 0;
        }
    }
    cur ^= 1;
    if (len[cur]) apply_block(cur);
}

template <std::size_t N>
struct unsigned_of_size;
template <>
struct unsigned_of_size<1> { using type = std::uint8_t; };
template <>
struct unsigned_of_size<2> { using type = std::uint16_t; };
template <>
struct unsigned_of_size<4> { using type = std::uint32_t; };
template <>
struct unsigned_of_size<8> { using type = std::uint64_t; };

/// The unsigned integer type of T's size.
template <class T>
using same_size_unsigned = typename unsigned_of_size<sizeof(T)>::type;

/// The share of worker `k` of `t` in an update plan, split along `dim`: updates that differ in
/// the coordinate of a dimension whose output stride is not zero never meet (the index decides
/// only the other output coordinates, and the output does not overlap itself), so each element
/// still sees its updates in C order and the result is the single-threaded one bit for bit,
/// duplicates and reductions included. Shares of a dimension under 64 bytes apart start on a
/// multiple of 64 bytes' worth of coordinates, so that workers rarely share a cache line.
inline update_part share_of(const plan::update_plan& p, int dim, int k, int t) {
    const auto& d = p.dims[static_cast<std::size_t>(dim)];
    const std::int64_t step = d.dst < 0 ? -d.dst : d.dst;
    const std::int64_t unit = step > 0 && step < 64 && 64 % step == 0 ? 64 / step : 1;
    auto edge = [&](int j) { return j == t ? d.size : part_start(d.size / unit, j, t) * unit; };
    return {dim, edge(k), edge(k + 1)};
}

/// The updates' dimension to share among workers: the outermost one with an output stride (see
/// share_of) that has a coordinate for every worker, else the longest such; -1 where none has
/// (a scatter of one dimension, scatter-nd's tuples of every coordinate: their updates may meet
/// anywhere, and run on one thread — split by output range they ran several times slower, every
/// worker walking every update and each random write moving its line between the cores' caches:
/// bench/NOTES.md, "Figures behind the CPU executor's choices"). Updates promised unique
/// (update_plan::unique) never meet: every dimension qualifies, the index's too (scatter-nd's
/// rows are then shared by row, not each row by columns).
inline int shared_dim(const plan::update_plan& p, int t) {
    int best = -1;
    for (int d = 0; d < p.rank; ++d) {
        const auto& dd = p.dims[static_cast<std::size_t>(d)];
        if ((dd.dst == 0 && !p.unique) || dd.size < 2) continue;
        if (dd.size >= t) return d;
        if (best < 0 || dd.size > p.dims[static_cast<std::size_t>(best)].size) best = d;
    }
    return best;
}

} // namespace detail

namespace detail {

/// The update plan's kernels for element type T (every index type and reduction), run on `t`
/// workers shared along `dim` (see execute below). A template of its own per element type, so
/// that a build may compile the 220 type x index x reduction kernels in several files
/// (strix/cpu/kernels_instance.hpp, STRIX_KERNELS_PART).
template <class T>
void execute_updates(const plan::update_plan& p, int t, int dim, bool stream) {
    // the reduction as a template argument, so that an update costs no branch on it, which
    // made the adds measurably faster (bench/NOTES.md, "Figures behind the CPU executor's choices")
    auto with_reduction = [&](auto f) {
        using R = scatter_reduction;
        switch (p.reduction) {
        case R::none: return f(std::integral_constant<R, R::none>{});
        case R::add: return f(std::integral_constant<R, R::add>{});
        case R::mul: return f(std::integral_constant<R, R::mul>{});
        case R::min: return f(std::integral_constant<R, R::min>{});
        case R::max: return f(std::integral_constant<R, R::max>{});
        }
    };
    with_index_type(p.table.empty() ? p.index_type : dtype::int64, [&](auto tag) {
        using I = decltype(tag);
        with_reduction([&](auto r) {
            constexpr scatter_reduction red = decltype(r)::value;
            // without a reduction only the element's size matters: one kernel per size
            // serves every type of it (float32, int32 and uint32 alike); bool reduces its
            // bytes (bool_byte)
            using E = std::conditional_t<red == scatter_reduction::none, same_size_unsigned<T>,
                                         std::conditional_t<std::is_same_v<T, bool>, bool_byte, T>>;
            if (t == 1) return apply_updates<E, I, red>(p, {}, stream);
            parallel_tasks(t, [&](int k) { apply_updates<E, I, red>(p, share_of(p, dim, k, t), stream); });
        });
    });
}

} // namespace detail

/// Runs an update plan: its updates in C order, shared among workers along a dimension whose
/// updates never meet (detail::shared_dim), else on the calling thread.
/// (A template, so that its 220 type x index x reduction kernels are compiled only in the
/// programs that scatter: see compile cost in bench/NOTES.md.)
template <class = void>
void execute(const plan::update_plan& p, const options& opt = {}) {
    const std::int64_t n = p.count();
    if (n == 0) return;
    const auto es = static_cast<std::int64_t>(size_of(p.type));
    int t = detail::threads_for(opt, n * es, n);
    const int dim = t > 1 ? detail::shared_dim(p, t) : -1;
    if (dim < 0) t = 1;
    else t = static_cast<int>(std::min<std::int64_t>(t, p.dims[static_cast<std::size_t>(dim)].size));
    const bool stream = opt.stream_min_bytes >= 0 && n * es >= opt.stream_min_bytes;
    visit(p.type, [&]<class T>(type_tag<T>) { detail::execute_updates<T>(p, t, dim, stream); });
}

} // namespace strix::cpu
