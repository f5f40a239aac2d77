#pragma once
/// How the CPU executor shares an operator among threads: how many it takes, and its split of a
/// range into near-equal parts run on the pool (strix/cpu/thread_pool.hpp).

#include <algorithm>
#include <cstdint>

#include "strix/cpu/options.hpp"
#include "strix/cpu/thread_pool.hpp"

namespace strix::cpu::detail {

/// How many of `opt`'s threads an operator moving `bytes` bytes in `items` pieces uses.
template <class = void>
int threads_for(const options& opt, std::int64_t bytes, std::int64_t items) {
    const std::int64_t grain = std::max<std::int64_t>(opt.min_bytes_per_thread, 1);
    const std::int64_t t = std::min<std::int64_t>({thread_count(opt.threads), bytes / grain + 1, items});
    return static_cast<int>(std::max<std::int64_t>(t, 1));
}

/// The first of [0, n) in part k of `parts` near-equal parts: floor(n * k / parts), without
/// forming n * k (k <= parts; parts times parts must fit in 64 bits).
constexpr std::int64_t part_start(std::int64_t n, std::int64_t k, std::int64_t parts) {
    return n / parts * k + n % parts * k / parts;
}

/// Splits [0, n) into `t` near-equal parts and runs f(begin, end) for each, in parallel.
template <class F>
void parallel_ranges(int t, std::int64_t n, const F& f) {
    if (t <= 1) {
        f(std::int64_t{0}, n);
        return;
    }
    parallel_tasks(t, [&](int i) { f(part_start(n, i, t), part_start(n, i + 1, t)); });
}

} // namespace strix::cpu::detail
