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

/// Applies the updates whose target lies at output byte offsets [lo, hi) (relative to p.dst), in
/// C order of the updates: update u goes to the output element at (sum of coordinate times dst)
/// + its target offset. Every worker walks all updates and applies only its own targets, so
/// each element still sees its updates in C order, whatever the number of workers: the results
/// are the single-threaded ones bit for bit, duplicates and reductions included.
template <class T, class I, scatter_reduction red>
void apply_updates_range(const plan::update_plan& p, std::int64_t lo, std::int64_t hi) {
    const int r = p.rank;
    const std::int64_t n = p.count();
    if (n == 0) return;
    std::array<std::int64_t, max_rank> c{};
    const std::byte* ub = p.src;
    std::byte* ob = p.dst;
    std::int64_t uo = 0, oo = 0, key = 0;
    const plan::update_dim last = r ? p.dims[static_cast<std::size_t>(r - 1)] : plan::update_dim{};
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
        std::int64_t uo = 0, oo = 0, key = 0;
        std::array<std::int64_t, max_rank> c{};
        for (std::int64_t k = 0; k < n; k += inner) {
            f(ub + uo, oo, key);
            for (int d = r - 2; d >= 0; --d) {
                const auto& dd = p.dims[static_cast<std::size_t>(d)];
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
            const std::int64_t a = std::max(t, lo), b = std::min(t + inner * es, hi);
            if (a >= b) return;
            if constexpr (red == scatter_reduction::none) {
                std::memcpy(ob + a, u + (a - t), static_cast<std::size_t>(b - a));
            } else {
                for (std::int64_t x = a; x < b; x += es) combine_at(ob + x, u + (x - t));
            }
        });
        return;
    }
    if (!table && inner >= 64 && lo <= p.span_lo && hi >= p.span_hi) {
        // long rows of indices read in place, every target this worker's: each target's line
        // is fetched for writing `ahead` updates before its update is applied, with no branch
        // on the target (a single core of an AMD EPYC, 1M float32 updates into 4 MB: 2.35 ms
        // through the blocks below, against a floor of 1.5-1.7 ms for the bare loop)
        constexpr std::int64_t ahead = 32;
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
                // update: the hardware prefetcher lost them among the random targets (column
                // permutations of [1024, 4096] without a reduction, one core of a Zen 5 EPYC:
                // 14.7-15.1 -> 11.6-11.7 ms; 1M unique targets and the adds unchanged)
                if constexpr (red != scatter_reduction::none) {
                    if (k_step == static_cast<std::int64_t>(sizeof(I)) && u_step == es) {
                        // a reduction over contiguous indices and updates: a load, the
                        // combination and a store per update. Each target is computed once,
                        // `ahead` updates before its own, fetched and kept in a ring, and the
                        // pointers step by constants (1M float32 adds onto 64K targets, one
                        // Zen 5 core: 1.76-1.79 -> 1.33-1.34 ms; column permutations of [1024,
                        // 4096] 25.1-26.1 -> 20.3-23.4 ms). Without a reduction, a store per
                        // update and nothing else, the ring lost (11.8 -> 14.4 ms on the
                        // column permutations): the store buffer holds the misses in flight
                        // there, and the ring's stores take its entries.
                        std::byte* ring[ahead];
                        for (std::int64_t j = 0; j < ahead; ++j) {
                            ring[j] = out + at(j);
                            __builtin_prefetch(ring[j], 1);
                        }
                        const std::byte* x = ix + ahead * static_cast<std::int64_t>(sizeof(I));
                        const std::byte* v = u;
                        std::byte* o = out + ahead * o_step;
                        for (; i < n_row - ahead; ++i, x += sizeof(I), v += es, o += o_step) {
                            if ((i & 7) == 0) {
                                __builtin_prefetch(x + 2048);
                                __builtin_prefetch(v + 1024);
                            }
                            std::byte* const t = ring[i % ahead];
                            std::byte* const next = o + read_index<I, decltype(clamped)::value>(x, axis_n) * axis_step;
                            ring[i % ahead] = next;
                            __builtin_prefetch(next, 1);
                            combine_at(t, v);
                        }
                        for (; i < n_row; ++i, v += es) combine_at(ring[i % ahead], v);
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
            for (std::int64_t j = 0; j < len[slot]; ++j) // indexed: no step past the last update
                if (t[j] >= lo && t[j] < hi) std::memcpy(ob + t[j], u + j * us, sizeof(T));
        } else {
            for (std::int64_t j = 0; j < len[slot]; ++j) {
                if (t[j] < lo || t[j] >= hi) continue;
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
                // only this worker's targets: a prefetch for writing takes the line from the
                // cache of the worker that owns it
                if (t[j] >= lo && t[j] < hi) __builtin_prefetch(ob + t[j], 1);
            }
            us_at[cur] = u + i0 * us; // indexed: no step past the row's last update
            len[cur] = m;
            cur ^= 1;
            if (len[cur]) apply_block(cur); // the previous block, in order
        }
        k += inner;
        for (int d = r - 2; d >= 0; --d) {
            const auto& dd = p.dims[static_cast<std::size_t>(d)];
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

} // namespace detail

/// Runs an update plan: its updates in C order. The walk can split the output's addresses among
/// workers (see apply_updates_range), but measured on a 2-core host two workers ran 4-8 times
/// slower than one: each random write then moves its cache line between the cores' caches (the
/// pool does not pin a part to a core, and the copy before splits the output differently). So
/// the updates apply on the calling thread; `max_workers` is kept for hosts where that pays.
/// (A template, so that its 220 type x index x reduction kernels are compiled only in the
/// programs that scatter: see compile cost in bench/NOTES.md.)
template <class = void>
void execute(const plan::update_plan& p, const options& opt = {}) {
    const std::int64_t n = p.count();
    if (n == 0) return;
    const auto es = static_cast<std::int64_t>(size_of(p.type));
    constexpr int max_workers = 1;
    const int t = std::min(detail::threads_for(opt, n * es, n), max_workers);
    const std::int64_t lo = p.span_lo, range = p.span_hi - p.span_lo;
    // the reduction as a template argument, so that an update costs no branch on it (1M float32
    // adds onto 64K targets, one core of a 2-core VM: 3.16-3.18 ms -> 2.94-3.09 ms)
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
    visit(p.type, [&]<class T>(type_tag<T>) {
        detail::with_index_type(p.table.empty() ? p.index_type : dtype::int64, [&](auto tag) {
            using I = decltype(tag);
            with_reduction([&](auto r) {
                parallel_tasks(t, [&](int k) {
                    // owners' ranges: element-aligned pieces of the output's span
                    const std::int64_t a = lo + range / es * k / t * es, b = k + 1 == t ? p.span_hi : lo + range / es * (k + 1) / t * es;
                    detail::apply_updates_range<T, I, decltype(r)::value>(p, a, b);
                });
            });
        });
    });
}

} // namespace strix::cpu
