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

/// What arithmetic an element type has.
enum class dtype_kind : std::uint8_t { floating, signed_integer, unsigned_integer };

/// The one list of element types, in DirectML's order (the values of `dtype`). Every property of
/// a type comes from its line here, none from its place in the enum:
///   X(enumerator, storage type, size in bytes, kind (dtype_kind), NumPy's descr,
///     DLPack's type code, the Vulkan reduce shader's arithmetic code)
/// The shader's codes (its TYPE): 0 float64, 1 float32, 2 float16 arithmetic, 3 signed and 4
/// unsigned integers of the element's size. Adding a type is a line here plus its arithmetic.
#define STRIX_ELEMENT_TYPES(X)                                                   \
    X(float64, double, 8, floating, "<f8", 2, 0)                                 \
    X(float32, float, 4, floating, "<f4", 2, 1)                                  \
    X(float16, ::strix::float16, 2, floating, "<f2", 2, 2)                       \
    X(int64, std::int64_t, 8, signed_integer, "<i8", 0, 3)                       \
    X(int32, std::int32_t, 4, signed_integer, "<i4", 0, 3)                       \
    X(int16, std::int16_t, 2, signed_integer, "<i2", 0, 3)                       \
    X(int8, std::int8_t, 1, signed_integer, "|i1", 0, 3)                         \
    X(uint64, std::uint64_t, 8, unsigned_integer, "<u8", 1, 4)                   \
    X(uint32, std::uint32_t, 4, unsigned_integer, "<u4", 1, 4)                   \
    X(uint16, std::uint16_t, 2, unsigned_integer, "<u2", 1, 4)                   \
    X(uint8, std::uint8_t, 1, unsigned_integer, "|u1", 1, 4)

/// The element types (DirectML's eleven), in DirectML's order.
enum class dtype : std::uint8_t {
#define STRIX_ENUMERATOR(n, ...) n,
    STRIX_ELEMENT_TYPES(STRIX_ENUMERATOR)
#undef STRIX_ENUMERATOR
};

/// Number of element types.
#define STRIX_COUNT_ONE(...) +1
inline constexpr int dtype_count = 0 STRIX_ELEMENT_TYPES(STRIX_COUNT_ONE);
#undef STRIX_COUNT_ONE

/// All element types, for iteration.
inline constexpr dtype all_dtypes[dtype_count] = {
#define STRIX_ENUMERATOR(n, ...) dtype::n,
    STRIX_ELEMENT_TYPES(STRIX_ENUMERATOR)
#undef STRIX_ENUMERATOR
};

/// The four index types.
inline constexpr dtype index_dtypes[4] = {dtype::int32, dtype::int64, dtype::uint32, dtype::uint64};

/// An element type's line of the list (STRIX_ELEMENT_TYPES).
struct dtype_info {
    std::string_view name;   ///< NumPy's name ("float32", "uint8", ...)
    std::size_t size;        ///< bytes per element
    dtype_kind kind;
    std::string_view npy;    ///< the descr NumPy writes ("<f4", "|u1", ...)
    std::uint8_t dlpack;     ///< DLPack's type code (kDLInt 0, kDLUInt 1, kDLFloat 2)
    std::uint32_t shader;    ///< the Vulkan reduce shader's arithmetic code (see the list)
};

namespace detail {
inline constexpr dtype_info dtype_lines[dtype_count] = {
#define STRIX_LINE(n, T, size, kind, npy, dlpack, shader) {#n, size, dtype_kind::kind, npy, dlpack, shader},
    STRIX_ELEMENT_TYPES(STRIX_LINE)
#undef STRIX_LINE
};
} // namespace detail

/// The line of `t`.
constexpr const dtype_info& info_of(dtype t) noexcept { return detail::dtype_lines[static_cast<int>(t)]; }

/// Size of one element in bytes.
constexpr std::size_t size_of(dtype t) noexcept { return info_of(t).size; }

/// NumPy's name of the type ("float32", "uint8", ...).
constexpr std::string_view name(dtype t) noexcept { return info_of(t).name; }

/// What arithmetic the type has.
constexpr dtype_kind kind_of(dtype t) noexcept { return info_of(t).kind; }

/// True for int32, int64, uint32 and uint64, the types an index tensor may have.
constexpr bool is_index_type(dtype t) noexcept {
    return t == dtype::int32 || t == dtype::int64 || t == dtype::uint32 || t == dtype::uint64;
}
/// True for the floating-point types.
constexpr bool is_float(dtype t) noexcept { return kind_of(t) == dtype_kind::floating; }
/// True for the signed integer types.
constexpr bool is_signed_int(dtype t) noexcept { return kind_of(t) == dtype_kind::signed_integer; }

namespace detail {
template <class T> struct dtype_of_impl;
#define STRIX_DTYPE_OF(n, T, ...) template <> struct dtype_of_impl<T> { static constexpr dtype value = dtype::n; };
STRIX_ELEMENT_TYPES(STRIX_DTYPE_OF)
#undef STRIX_DTYPE_OF
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
#define STRIX_VISIT_CASE(n, T, ...) case dtype::n: return f(type_tag<T>{});
        STRIX_ELEMENT_TYPES(STRIX_VISIT_CASE)
#undef STRIX_VISIT_CASE
    }
    // (no valid dtype comes here: taken as uint8, so that every path returns)
    return f(type_tag<std::uint8_t>{});
}

} // namespace strix
