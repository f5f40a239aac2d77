#pragma once
/// scalar: a number that keeps what it was given — a double, or an exact 64-bit integer — so a
/// fill value converts exactly into every element type (int64 values beyond 2^53 included).

#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "strix/dtype.hpp"

namespace strix {

/// A number of one of three kinds. Structural, so descriptors holding one stay template arguments.
struct scalar {
    enum class kind : std::uint8_t { floating, signed_integer, unsigned_integer };
    kind k = kind::floating;
    double f = 0;
    std::int64_t i = 0;
    std::uint64_t u = 0;

    constexpr scalar() = default;
    constexpr scalar(double v) : k(kind::floating), f(v) {}
    constexpr scalar(float v) : k(kind::floating), f(v) {}
    template <std::signed_integral T>
    constexpr scalar(T v) : k(kind::signed_integer), i(v) {}
    template <std::unsigned_integral T>
    constexpr scalar(T v) : k(kind::unsigned_integer), u(v) {}

    /// As text, exactly.
    [[nodiscard]] std::string to_string() const {
        if (k == kind::signed_integer) return std::to_string(i);
        if (k == kind::unsigned_integer) return std::to_string(u);
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", f);
        return buf;
    }
};

namespace detail {

/// `s` as an element of type `T`: floats round to nearest; for integer types a floating value
/// truncates toward zero (DirectML) and an integer is taken exactly. Empty when the value does
/// not fit `T` (or is NaN or infinite for an integer type).
template <class T>
constexpr std::optional<T> scalar_as(const scalar& s) {
    if constexpr (std::is_same_v<T, float16>) {
        if (s.k == scalar::kind::floating) return float16(s.f);
        if (s.k == scalar::kind::signed_integer) return float16(static_cast<double>(s.i)); // |i| > 2^53 is far beyond float16
        return float16(static_cast<double>(s.u));
    } else if constexpr (std::is_floating_point_v<T>) {
        if (s.k == scalar::kind::floating) return static_cast<T>(s.f);
        if (s.k == scalar::kind::signed_integer) return static_cast<T>(s.i); // correctly rounded conversion
        return static_cast<T>(s.u);
    } else {
        using lim = std::numeric_limits<T>;
        if (s.k == scalar::kind::floating) {
            if (!(s.f == s.f) || s.f == std::numeric_limits<double>::infinity() || s.f == -std::numeric_limits<double>::infinity()) return std::nullopt;
            // truncation must land in [lo, hi): compare against exact powers of two
            const double lo = std::is_signed_v<T> ? -std::ldexp(1.0, lim::digits) : 0.0;
            const double hi = std::ldexp(1.0, lim::digits);
            if (!((s.f >= lo || s.f > lo - 1.0) && s.f < hi)) return std::nullopt;
            if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<std::int64_t>(s.f));
            else return static_cast<T>(static_cast<std::uint64_t>(s.f));
        } else if (s.k == scalar::kind::signed_integer) {
            if constexpr (std::is_signed_v<T>) {
                if (s.i < static_cast<std::int64_t>(lim::min()) || s.i > static_cast<std::int64_t>(lim::max())) return std::nullopt;
            } else {
                if (s.i < 0 || static_cast<std::uint64_t>(s.i) > static_cast<std::uint64_t>(lim::max())) return std::nullopt;
            }
            return static_cast<T>(s.i);
        } else {
            if (s.u > static_cast<std::uint64_t>(lim::max())) return std::nullopt;
            return static_cast<T>(s.u);
        }
    }
}

/// Writes `s` as one element of type `t` into `out` (16 bytes of room); false when it does not fit.
inline bool scalar_bytes(const scalar& s, dtype t, std::byte* out) {
    return visit(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto v = scalar_as<T>(s);
        if (!v) return false;
        std::memcpy(out, &*v, sizeof(T));
        return true;
    });
}

} // namespace detail
} // namespace strix
