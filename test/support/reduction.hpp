#pragma once
// The reference's reduction step for scatter and scatter-nd, in the compiler's own arithmetic
// (float16 as _Float16): apart from the rest of the harness, because clang before 15 has no
// _Float16 on x86-64 and scripts/clang_check.sh leaves out the files that include this one.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common.hpp"

namespace strix_test {

/// One scatter reduction step on values of C++ type T: ONNX's none/add/mul/min/max, integers
/// wrapping around, a NaN sum or product being the default quiet NaN, and for floats the min/max
/// rule of the README (a NaN stays, a NaN update is taken, -0 < +0).
template <class T>
T reduce_ref(T a, T b, strix::scatter_reduction red) {
    using R = strix::scatter_reduction;
    if (red == R::none) return b;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, _Float16>) {
        if (red == R::add || red == R::mul) { // a NaN result is the default quiet NaN (positive, no payload)
            const T v = static_cast<T>(red == R::add ? a + b : a * b);
            return std::isnan(static_cast<double>(v)) ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : v;
        }
        const double x = static_cast<double>(a), y = static_cast<double>(b);
        if (std::isnan(x)) return a;
        if (std::isnan(y)) return b;
        if (red == R::min) return (y < x || (y == x && std::signbit(y))) ? b : a;
        return (y > x || (y == x && !std::signbit(y))) ? b : a;
    } else {
        const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
        if (red == R::add) return static_cast<T>(ua + ub);
        if (red == R::mul) return static_cast<T>(ua * ub);
        if (red == R::min) return std::min(a, b);
        return std::max(a, b);
    }
}

/// Combines the update at `u` into the element at `acc` (type `t`).
inline void combine_ref(std::byte* acc, const std::byte* u, dtype t, strix::scatter_reduction red) {
    auto step = [&]<class T>(T) {
        T a, b;
        std::memcpy(&a, acc, sizeof(T));
        std::memcpy(&b, u, sizeof(T));
        const T r = reduce_ref(a, b, red);
        std::memcpy(acc, &r, sizeof(T));
    };
    switch (t) {
    case dtype::float64: step(double{}); break;
    case dtype::float32: step(float{}); break;
    case dtype::float16: step(_Float16{}); break;
    case dtype::int64: step(std::int64_t{}); break;
    case dtype::int32: step(std::int32_t{}); break;
    case dtype::int16: step(std::int16_t{}); break;
    case dtype::int8: step(std::int8_t{}); break;
    case dtype::uint64: step(std::uint64_t{}); break;
    case dtype::uint32: step(std::uint32_t{}); break;
    case dtype::uint16: step(std::uint16_t{}); break;
    case dtype::uint8: step(std::uint8_t{}); break;
    }
}

} // namespace strix_test
