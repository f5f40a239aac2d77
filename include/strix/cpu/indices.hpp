#pragma once
/// The CPU's parallel pass over index tensors: whether every index lies in range, before any
/// output is written (strix/plan/indices.hpp resolves and names them).

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "strix/cpu/executor.hpp"
#include "strix/plan/indices.hpp"

namespace strix::detail {

/// Whether every index of `idx` lies in [-n, n) ([0, n) unsigned), checked on up to `opt`'s
/// threads. The check only says yes or no: when it says no, resolve_indices (one thread, C
/// order) finds the first bad index and throws its message, so messages do not depend on the
/// number of threads.
template <class = void>
bool indices_in_range(const any_cview& idx, std::int64_t n, const cpu::options& opt = {}) {
    const std::int64_t count = idx.count();
    if (count == 0) return true;
    const int t = cpu::detail::threads_for(opt, count * static_cast<std::int64_t>(idx.element_size()), count);
    std::vector<unsigned char> bad(static_cast<std::size_t>(t), 0);
    cpu::detail::with_index_type(idx.type(), [&](auto tag) {
        using I = decltype(tag);
        cpu::parallel_tasks(t, [&](int k) {
            bool b = false;
            for_each_run(idx, count * k / t, count * (k + 1) / t, [&](const std::byte* p, std::int64_t step, std::int64_t len) {
                // no early exit: a branch-free loop runs at the speed of memory
                auto out_of_range = [n](I v) {
                    if constexpr (std::is_signed_v<I>)
                        return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) + static_cast<std::uint64_t>(n) >= 2 * static_cast<std::uint64_t>(n);
                    else return static_cast<std::uint64_t>(v) >= static_cast<std::uint64_t>(n);
                };
                bool any = false;
                if (step == static_cast<std::int64_t>(sizeof(I))) { // contiguous: a loop the compiler vectorizes
                    for (std::int64_t i = 0; i < len; ++i) {
                        I v;
                        std::memcpy(&v, p + i * static_cast<std::int64_t>(sizeof(I)), sizeof(I));
                        any |= out_of_range(v);
                    }
                } else {
                    for (std::int64_t i = 0; i < len; ++i, p += step) {
                        I v;
                        std::memcpy(&v, p, sizeof(I));
                        any |= out_of_range(v);
                    }
                }
                b |= any;
            });
            bad[static_cast<std::size_t>(k)] = b;
        });
    });
    for (const auto b : bad)
        if (b) return false;
    return true;
}

} // namespace strix::detail
