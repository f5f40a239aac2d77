#pragma once
// Coordinates: every test that walks a shape does it with this (it needs only strix/shape.hpp,
// so light tests such as the .npy ones can use it without the whole library).

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "strix/shape.hpp"

namespace strix_test {

/// A coordinate, or element strides: one entry per dimension.
using coords = std::array<std::int64_t, strix::max_rank>;

/// Calls `f(coords, linear)` — or `f(coords)` — for every coordinate of `s` in row-major order.
template <class F>
void for_each_coord(const strix::shape& s, F&& f) {
    const std::int64_t n = s.count();
    coords c{};
    for (std::int64_t lin = 0; lin < n; ++lin) {
        if constexpr (std::is_invocable_v<F&, const coords&, std::int64_t>) f(static_cast<const coords&>(c), lin);
        else f(static_cast<const coords&>(c));
        for (int d = s.rank - 1; d >= 0; --d) {
            auto& cd = c[static_cast<std::size_t>(d)];
            if (++cd < s[d]) break;
            cd = 0;
        }
    }
}

/// Row-major position of `c` in `s`.
inline std::int64_t linear_of(const strix::shape& s, const coords& c) {
    std::int64_t lin = 0;
    for (int d = 0; d < s.rank; ++d) lin = lin * s[d] + c[static_cast<std::size_t>(d)];
    return lin;
}

} // namespace strix_test
