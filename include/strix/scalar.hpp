#pragma once
/// scalar: a number that keeps what it was given — a double, or an exact 64-bit integer — so a
/// fill value converts exactly into every element type (int64 values beyond 2^53 included).

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "strix/dtype.hpp"
#include "strix/error.hpp"

namespace strix {

/// A number of one of three kinds. Structural, so descriptors holding one stay template arguments.
struct scalar {
    enum class kind : std::uint8_t { floating, signed_integer, unsigned_integer };
    kind k = kind::floating;
    double f = 0;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    /// A finite number too large for a double (text such as "1e400"; see parse_scalar): `f` is
    /// then the infinity of its sign, and the value fits no element type.
    bool beyond_double = false;

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
        if (beyond_double) return f < 0 ? "beyond -1.7976931348623157e+308" : "beyond 1.7976931348623157e+308";
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", f);
        return buf;
    }
};

namespace detail {

/// `s` as an element of type `T`: floats round to nearest even; for integer types a floating
/// value truncates toward zero (DirectML) and an integer is taken exactly; bool takes 0 and 1
/// only. Empty when the value does not fit `T`: a finite value that rounds beyond the type's
/// largest finite value (70000 for float16, 1e300 for float32, 57344 + 4096 for float8_e5m2,
/// 464.5 for float8_e4m3fn, "1e400" for every type), NaN or an infinity for an integer type, an
/// infinity for float8_e4m3fn (which has none), anything but 0 and 1 for bool. An infinity or
/// NaN given as such stays one in the other floating types (bfloat16 and the float8 types take
/// their canonical NaN: 0x7fc0, 0x7f).
template <class T>
constexpr std::optional<T> scalar_as(const scalar& s) {
    if (s.beyond_double) return std::nullopt;
    if constexpr (std::is_same_v<T, float16>) {
        double v = s.f;
        if (s.k == scalar::kind::signed_integer) v = static_cast<double>(s.i); // |i| > 2^53 is far beyond float16
        else if (s.k == scalar::kind::unsigned_integer) v = static_cast<double>(s.u);
        const float16 h(v);
        const bool finite = v - v == 0; // neither infinite nor NaN
        if (finite && (h.bits & 0x7fffu) == 0x7c00u) return std::nullopt; // rounded to an infinity
        return h;
    } else if constexpr (detail::is_narrow_float_v<T>) { // bfloat16 and the float8 types
        double v = s.f;
        if (s.k == scalar::kind::signed_integer) v = static_cast<double>(s.i); // |i| > 2^53 is far beyond them all
        else if (s.k == scalar::kind::unsigned_integer) v = static_cast<double>(s.u);
        if (v != v) return T::nan(); // a NaN fill is the type's canonical NaN
        const T h(v);
        const bool finite = v - v == 0;
        // a finite value that rounds past the largest finite one (to an infinity, or to
        // float8_e4m3fn's NaN), and an infinity where the type has none
        if (h.is_infinite_or_nan() && (finite || (h.bits & 0x7fu) == 0x7fu)) return std::nullopt;
        return h;
    } else if constexpr (std::is_same_v<T, bool>) { // 0 or 1, nothing else
        if (s.k == scalar::kind::signed_integer && (s.i == 0 || s.i == 1)) return s.i == 1;
        if (s.k == scalar::kind::unsigned_integer && s.u <= 1) return s.u == 1;
        if (s.k == scalar::kind::floating && (s.f == 0 || s.f == 1)) return s.f == 1;
        return std::nullopt;
    } else if constexpr (std::is_floating_point_v<T>) {
        if (s.k == scalar::kind::floating) {
            if constexpr (std::is_same_v<T, float>) {
                // finite doubles of magnitude 2^128 - 2^103 and more round to an infinity in float
                // (and the language leaves their conversion undefined): compare before converting
                const double overflow = 0x1.ffffffp+127;
                const bool finite = s.f - s.f == 0;
                if (finite && (s.f >= overflow || s.f <= -overflow)) return std::nullopt;
            }
            return static_cast<T>(s.f);
        }
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
template <class = void>
bool scalar_bytes(const scalar& s, dtype t, std::byte* out) {
    return visit(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto v = scalar_as<T>(s);
        if (!v) return false;
        std::memcpy(out, &*v, sizeof(T));
        return true;
    });
}

} // namespace detail

/// Reads a number from text, as a command line gives a fill value: an integer literal (digits
/// with an optional sign) stays exact — int64, or uint64 beyond it — and anything else is read
/// as a double (strtod: "10.6", "-1e-3", "inf", "nan", hexadecimal floats). A finite literal too
/// large for a double ("1e400") is kept as such (scalar::beyond_double), so that using it as a
/// fill value is refused instead of becoming an infinity. Throws strix::error (invalid_argument)
/// when the text is not a number, has surrounding spaces, or is an integer beyond 64 bits.
template <class = void>
scalar parse_scalar(std::string_view text) {
    const std::string s(text);
    bool integer = !s.empty();
    for (std::size_t k = 0; k < s.size(); ++k)
        integer &= (s[k] >= '0' && s[k] <= '9') || (k == 0 && (s[k] == '-' || s[k] == '+') && s.size() > 1);
    if (integer) {
        const char* b = s.data() + (s[0] == '+' ? 1 : 0);
        const char* e = s.data() + s.size();
        std::int64_t i = 0;
        if (auto [p, ec] = std::from_chars(b, e, i); ec == std::errc() && p == e) return scalar(i);
        std::uint64_t u = 0;
        if (auto [p, ec] = std::from_chars(b, e, u); ec == std::errc() && p == e) return scalar(u);
        throw error(error_code::invalid_argument, "strix: the value " + s + " is beyond 64-bit integers");
    }
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
        throw error(error_code::invalid_argument, "strix: the value '" + s + "' is not a number");
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    const bool overflow = errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL);
    if (end != s.c_str() + s.size()) throw error(error_code::invalid_argument, "strix: the value '" + s + "' is not a number");
    scalar r(d);
    r.beyond_double = overflow;
    return r;
}

} // namespace strix
