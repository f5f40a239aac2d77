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

/// bfloat16 and the float8 types, by other means than strix's (strix/dtype.hpp rounds from a
/// double's fields): bfloat16 by the carry trick on float32's bits, the float8 types by the
/// nearest of their 256 values, ties to the even pattern.
inline float bf16_value(std::uint16_t b) {
    const std::uint32_t x = std::uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}
inline std::uint16_t bf16_round(float f) {
    if (std::isnan(f)) return 0x7fc0;
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u); // a carry out of the mantissa rounds into the exponent, up to infinity
    return static_cast<std::uint16_t>(x >> 16);
}
/// The value of float8 pattern `b` with `e` exponent and `m` mantissa bits (e4m3fn: finite).
inline double f8_value(std::uint8_t b, int e, int m, bool finite) {
    const int bias = (1 << (e - 1)) - 1, ex = (b >> m) & ((1 << e) - 1), mant = b & ((1 << m) - 1);
    const bool neg = (b & 0x80) != 0;
    if (finite && ex == (1 << e) - 1 && mant == (1 << m) - 1) return std::numeric_limits<double>::quiet_NaN();
    if (!finite && ex == (1 << e) - 1) return mant ? std::numeric_limits<double>::quiet_NaN() : (neg ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
    const double v = ex == 0 ? std::ldexp(mant, 1 - bias - m) : std::ldexp(mant + (1 << m), ex - bias - m);
    return neg ? -v : v;
}
inline std::uint8_t f8_round(float f, int e, int m, bool finite) {
    if (std::isnan(f)) return 0x7f;
    const std::uint8_t sign = std::signbit(f) ? 0x80 : 0;
    const double a = std::fabs(static_cast<double>(f));
    const int top = finite ? 0x7f : ((1 << e) - 1) << m; // past the largest finite pattern: NaN (e4m3fn) or infinity
    int best = 0;
    for (int p = 1; p < top; ++p) { // patterns ascend with their values
        const double d = std::fabs(f8_value(static_cast<std::uint8_t>(p), e, m, finite) - a), bd = std::fabs(f8_value(static_cast<std::uint8_t>(best), e, m, finite) - a);
        if (d < bd || (d == bd && (p & 1) == 0)) best = p;
    }
    // where the next pattern's value would be (480 for e4m3fn, 65536 for e5m2): nearer to it, or
    // as near and it even (e5m2's infinity), is past the largest
    const double last = f8_value(static_cast<std::uint8_t>(top - 1), e, m, finite), past = 2 * last - f8_value(static_cast<std::uint8_t>(top - 2), e, m, finite);
    if (std::isinf(a) || std::fabs(past - a) < std::fabs(last - a) || (!finite && std::fabs(past - a) == std::fabs(last - a))) return static_cast<std::uint8_t>(sign | top);
    return static_cast<std::uint8_t>(sign | best);
}

/// One reduction step on the bits of a bfloat16 or float8 element: float32 arithmetic, one
/// rounding, a NaN (e4m3fn's overflow too) the canonical one; min/max on the values.
template <class Bits, class Value, class Round>
Bits reduce_narrow(Bits a, Bits b, strix::scatter_reduction red, Value value, Round round, Bits nan) {
    using R = strix::scatter_reduction;
    if (red == R::none) return b;
    const float x = static_cast<float>(value(a)), y = static_cast<float>(value(b));
    if (red == R::add || red == R::mul) {
        const Bits r = round(red == R::add ? x + y : x * y);
        return std::isnan(static_cast<double>(value(r))) ? nan : r;
    }
    if (std::isnan(x)) return a;
    if (std::isnan(y)) return b;
    if (red == R::min) return (y < x || (y == x && std::signbit(y))) ? b : a;
    return (y > x || (y == x && !std::signbit(y))) ? b : a;
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
    case dtype::bfloat16: {
        std::uint16_t a, b;
        std::memcpy(&a, acc, 2);
        std::memcpy(&b, u, 2);
        const std::uint16_t r = reduce_narrow<std::uint16_t>(a, b, red, bf16_value, bf16_round, 0x7fc0);
        std::memcpy(acc, &r, 2);
        break;
    }
    case dtype::float8_e4m3fn:
    case dtype::float8_e5m2: {
        const bool e4 = t == dtype::float8_e4m3fn;
        const std::uint8_t a = static_cast<std::uint8_t>(*acc), b = static_cast<std::uint8_t>(*u);
        const auto value = [&](std::uint8_t v) { return f8_value(v, e4 ? 4 : 5, e4 ? 3 : 2, e4); };
        const auto round = [&](float f) { return f8_round(f, e4 ? 4 : 5, e4 ? 3 : 2, e4); };
        *acc = static_cast<std::byte>(reduce_narrow<std::uint8_t>(a, b, red, value, round, 0x7f));
        break;
    }
    case dtype::boolean: { // PyTorch's scatter_reduce on bool: add and max or, mul and min and
        using R = strix::scatter_reduction;
        const bool a = *acc != std::byte{0}, b = *u != std::byte{0};
        const bool r = red == R::none ? b : (red == R::add || red == R::max) ? (a || b) : (a && b);
        *acc = static_cast<std::byte>(r ? 1 : 0);
        break;
    }
    }
}

} // namespace strix_test
