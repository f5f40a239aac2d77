#pragma once
/// Element types, index types and the float16 storage type.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace strix {

namespace detail {

/// Rounds the binary64 or binary32 value with bit pattern `bits` to binary16, to nearest even.
/// `MantBits` and `Bias` describe the source format. Handles NaN (kept quiet, top payload bits
/// kept), infinities, overflow to infinity and gradual underflow into subnormals.
template <class U, int MantBits, int Bias>
constexpr std::uint16_t to_half_bits(U bits) noexcept {
    constexpr int total = sizeof(U) * 8;
    constexpr U abs_mask = ~(U(1) << (total - 1));
    constexpr U exp_all = (~U(0) & abs_mask) >> MantBits << MantBits;
    const auto sign = static_cast<std::uint16_t>((bits >> (total - 16)) & 0x8000u);
    const U ax = bits & abs_mask;
    if (ax >= exp_all) { // infinity or NaN
        if (ax == exp_all) return sign | 0x7c00u;
        return static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> (MantBits - 10)) & 0x3ffu));
    }
    const int exp = static_cast<int>(ax >> MantBits) - Bias; // unbiased exponent
    const U mant = ax & ((U(1) << MantBits) - 1);
    if (exp > 15) return sign | 0x7c00u;
    if (exp >= -14) { // normal half (may round up into the next binade or to infinity)
        const int drop = MantBits - 10;
        U h = (U(exp + 15) << 10) | (mant >> drop);
        const U rem = mant & ((U(1) << drop) - 1);
        const U half = U(1) << (drop - 1);
        if (rem > half || (rem == half && (h & 1))) ++h;
        return static_cast<std::uint16_t>(sign | h); // h == 0x7c00 is the correct infinity
    }
    if (exp < -25) return sign; // below half of the smallest subnormal: rounds to zero
    // subnormal half: value = m * 2^(exp - MantBits), unit 2^-24, so shift by MantBits - 24 - exp
    const U m = mant | (U(1) << MantBits);
    const int shift = MantBits - 24 - exp;
    U h = m >> shift;
    const U rem = m & ((U(1) << shift) - 1);
    const U half = U(1) << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return static_cast<std::uint16_t>(sign | h);
}

} // namespace detail

/// IEEE 754 binary16 storage type. Conversions round to nearest even and keep infinities, NaN
/// and subnormals; arithmetic is done by converting to float.
struct float16 {
    std::uint16_t bits = 0;

    constexpr float16() = default;
    /// Rounds `f` to the nearest float16 (ties to even).
    constexpr explicit float16(float f) noexcept
        : bits(detail::to_half_bits<std::uint32_t, 23, 127>(std::bit_cast<std::uint32_t>(f))) {}
    /// Rounds `d` to the nearest float16 directly (no double rounding through float).
    constexpr explicit float16(double d) noexcept
        : bits(detail::to_half_bits<std::uint64_t, 52, 1023>(std::bit_cast<std::uint64_t>(d))) {}
    /// The float16 with the given bit pattern.
    static constexpr float16 from_bits(std::uint16_t b) noexcept {
        float16 h;
        h.bits = b;
        return h;
    }
    /// Exact conversion to float.
    constexpr explicit operator float() const noexcept {
        const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
        const std::uint32_t exp = (bits >> 10) & 0x1fu;
        std::uint32_t mant = bits & 0x3ffu;
        if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
        if (exp == 0) {
            if (mant == 0) return std::bit_cast<float>(sign);
            std::uint32_t e = 113;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                --e;
            }
            return std::bit_cast<float>(sign | (e << 23) | ((mant & 0x3ffu) << 13));
        }
        return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
    }
    constexpr explicit operator double() const noexcept { return static_cast<float>(*this); }
    /// Bitwise equality (so +0 != -0 and NaN == NaN of the same payload).
    friend constexpr bool operator==(float16 a, float16 b) noexcept { return a.bits == b.bits; }
};

/// The eleven element types (DirectML's), in DirectML's order.
enum class dtype : std::uint8_t {
    float64, float32, float16, int64, int32, int16, int8, uint64, uint32, uint16, uint8,
};

/// Number of element types.
inline constexpr int dtype_count = 11;

/// All element types, for iteration.
inline constexpr dtype all_dtypes[dtype_count] = {
    dtype::float64, dtype::float32, dtype::float16, dtype::int64, dtype::int32, dtype::int16,
    dtype::int8,    dtype::uint64,  dtype::uint32,  dtype::uint16, dtype::uint8,
};

/// The four index types.
inline constexpr dtype index_dtypes[4] = {dtype::int32, dtype::int64, dtype::uint32, dtype::uint64};

/// Size of one element in bytes.
constexpr std::size_t size_of(dtype t) noexcept {
    switch (t) {
    case dtype::float64: case dtype::int64: case dtype::uint64: return 8;
    case dtype::float32: case dtype::int32: case dtype::uint32: return 4;
    case dtype::float16: case dtype::int16: case dtype::uint16: return 2;
    case dtype::int8: case dtype::uint8: return 1;
    }
    return 0;
}

/// NumPy's name of the type ("float32", "uint8", ...).
constexpr std::string_view name(dtype t) noexcept {
    constexpr std::string_view names[dtype_count] = {"float64", "float32", "float16", "int64",
                                                     "int32",   "int16",   "int8",    "uint64",
                                                     "uint32",  "uint16",  "uint8"};
    return names[static_cast<int>(t)];
}

/// True for int32, int64, uint32 and uint64, the types an index tensor may have.
constexpr bool is_index_type(dtype t) noexcept {
    return t == dtype::int32 || t == dtype::int64 || t == dtype::uint32 || t == dtype::uint64;
}
/// True for float64, float32 and float16.
constexpr bool is_float(dtype t) noexcept {
    return t == dtype::float64 || t == dtype::float32 || t == dtype::float16;
}
/// True for the signed integer types.
constexpr bool is_signed_int(dtype t) noexcept {
    return t == dtype::int64 || t == dtype::int32 || t == dtype::int16 || t == dtype::int8;
}

namespace detail {
template <class T> struct dtype_of_impl;
template <> struct dtype_of_impl<double> { static constexpr dtype value = dtype::float64; };
template <> struct dtype_of_impl<float> { static constexpr dtype value = dtype::float32; };
template <> struct dtype_of_impl<float16> { static constexpr dtype value = dtype::float16; };
template <> struct dtype_of_impl<std::int64_t> { static constexpr dtype value = dtype::int64; };
template <> struct dtype_of_impl<std::int32_t> { static constexpr dtype value = dtype::int32; };
template <> struct dtype_of_impl<std::int16_t> { static constexpr dtype value = dtype::int16; };
template <> struct dtype_of_impl<std::int8_t> { static constexpr dtype value = dtype::int8; };
template <> struct dtype_of_impl<std::uint64_t> { static constexpr dtype value = dtype::uint64; };
template <> struct dtype_of_impl<std::uint32_t> { static constexpr dtype value = dtype::uint32; };
template <> struct dtype_of_impl<std::uint16_t> { static constexpr dtype value = dtype::uint16; };
template <> struct dtype_of_impl<std::uint8_t> { static constexpr dtype value = dtype::uint8; };
template <class T> concept has_dtype = requires { dtype_of_impl<T>::value; };
} // namespace detail

/// A C++ type that is one of the eleven element types (const allowed).
template <class T>
concept element = detail::has_dtype<std::remove_const_t<T>>;

/// The dtype of an element type.
template <element T>
inline constexpr dtype dtype_of = detail::dtype_of_impl<std::remove_const_t<T>>::value;

/// A tag carrying a type, for `visit`.
template <class T> struct type_tag { using type = T; };

/// Calls `f(type_tag<T>{})` with the C++ type of `t`.
template <class F>
constexpr decltype(auto) visit(dtype t, F&& f) {
    switch (t) {
    case dtype::float64: return f(type_tag<double>{});
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float16: return f(type_tag<float16>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::int16: return f(type_tag<std::int16_t>{});
    case dtype::int8: return f(type_tag<std::int8_t>{});
    case dtype::uint64: return f(type_tag<std::uint64_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::uint16: return f(type_tag<std::uint16_t>{});
    case dtype::uint8: break;
    }
    return f(type_tag<std::uint8_t>{});
}

} // namespace strix
