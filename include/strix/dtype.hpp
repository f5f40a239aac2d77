#pragma once
/// Element types, index types and the storage types of the narrow floats (float16, bfloat16,
/// float8_e4m3fn, float8_e5m2).

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

namespace detail {

/// Rounds `d` to nearest even in a binary format of `E` exponent and `M` mantissa bits (sign on
/// top, bias 2^(E-1) - 1, gradual underflow into subnormals), giving its bit pattern. `Finite`
/// formats (float8_e4m3fn) have no infinities and one NaN per sign, all ones: what rounds
/// past the largest finite value, an infinity and a NaN all become that NaN, of the value's
/// sign. The others (bfloat16, float8_e5m2) overflow to an infinity and make a NaN `nan` (with
/// the sign where `nan_signed`). A double holds every float exactly, so a float rounds once.
template <int E, int M, bool Finite>
constexpr std::uint32_t round_to_narrow(double d, std::uint32_t nan, bool nan_signed) noexcept {
    constexpr int bias = (1 << (E - 1)) - 1;
    constexpr std::uint32_t exp_all = ((1u << E) - 1u) << M;             // the all-ones exponent field
    constexpr std::uint32_t largest = Finite ? exp_all | ((1u << M) - 2u) // largest finite pattern
                                             : exp_all - 1u;
    const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
    const std::uint32_t sign = static_cast<std::uint32_t>(b >> 63) << (E + M);
    const std::uint64_t ax = b & ~(std::uint64_t{1} << 63);
    if (ax > 0x7ff0000000000000ull) return Finite ? sign | exp_all | ((1u << M) - 1u) : (nan_signed ? sign | nan : nan);
    if (ax == 0x7ff0000000000000ull) return Finite ? sign | exp_all | ((1u << M) - 1u) : sign | exp_all;
    if (ax == 0) return sign;
    int e = static_cast<int>(ax >> 52) - 1023;
    std::uint64_t s = ax & ((std::uint64_t{1} << 52) - 1);
    if (e == -1023) { // a double subnormal (far below every narrow format's smallest)
        e = -1022;
    } else {
        s |= std::uint64_t{1} << 52;
    }
    if (e > bias + 1) return Finite ? sign | exp_all | ((1u << M) - 1u) : sign | exp_all;
    // the pattern's units: 2^(e - M) for a normal value, 2^(1 - bias - M) below the normals
    int shift = 52 - M;
    std::uint64_t base = 0;
    if (e >= 1 - bias) base = static_cast<std::uint64_t>(e + bias - 1) << M; // plus s's leading 1 << M
    else shift += 1 - bias - e;
    if (shift >= 54) return sign; // below half the smallest subnormal
    std::uint64_t q = s >> shift;
    const std::uint64_t rest = s & ((std::uint64_t{1} << shift) - 1), half = std::uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;
    q += base;
    if (q > largest) return Finite ? sign | exp_all | ((1u << M) - 1u) : sign | exp_all;
    return sign | static_cast<std::uint32_t>(q);
}

/// The float value of a narrow format's pattern `b` (as round_to_narrow's), exactly. A NaN
/// keeps its sign and its mantissa's top bits, quiet where `quiet` (as PyTorch widens them).
template <int E, int M, bool Finite>
constexpr float widen_narrow(std::uint32_t b, bool quiet) noexcept {
    constexpr int bias = (1 << (E - 1)) - 1;
    const std::uint32_t sign = (b >> (E + M) & 1u) << 31;
    const std::uint32_t exp = b >> M & ((1u << E) - 1u), mant = b & ((1u << M) - 1u);
    const bool special = Finite ? exp == (1u << E) - 1u && mant == (1u << M) - 1u : exp == (1u << E) - 1u;
    if (special) {
        if (!Finite && mant == 0) return std::bit_cast<float>(sign | 0x7f800000u);
        return std::bit_cast<float>(sign | 0x7f800000u | (quiet ? 0x400000u : 0u) | mant << (23 - M));
    }
    if (exp == 0) { // zero or subnormal: mant x 2^(1 - bias - M), exact in float
        float v = static_cast<float>(mant);
        for (int k = 0; k < bias - 1 + M; ++k) v *= 0.5f;
        return sign ? -v : v;
    }
    return std::bit_cast<float>(sign | static_cast<std::uint32_t>(static_cast<int>(exp) - bias + 127) << 23 | mant << (23 - M));
}

} // namespace detail

/// bfloat16 storage type: float32's sign, 8 exponent bits and top 7 mantissa bits. Conversions
/// round to nearest even, overflow to an infinity and keep subnormals; a NaN becomes 0x7fc0
/// (PyTorch's scalar conversion does the same; its vectorized one writes 0xffff).
struct bfloat16 {
    std::uint16_t bits = 0;

    constexpr bfloat16() = default;
    constexpr explicit bfloat16(float f) noexcept : bfloat16(static_cast<double>(f)) {}
    /// Rounds `d` directly (no double rounding through float).
    constexpr explicit bfloat16(double d) noexcept : bits(static_cast<std::uint16_t>(detail::round_to_narrow<8, 7, false>(d, 0x7fc0u, false))) {}
    static constexpr bfloat16 from_bits(std::uint16_t b) noexcept {
        bfloat16 h;
        h.bits = b;
        return h;
    }
    /// The canonical NaN (a NaN sum, product or fill).
    static constexpr bfloat16 nan() noexcept { return from_bits(0x7fc0u); }
    constexpr bool is_infinite_or_nan() const noexcept { return (bits & 0x7f80u) == 0x7f80u; }
    /// Exact conversion to float (a NaN keeps its bits).
    constexpr explicit operator float() const noexcept { return std::bit_cast<float>(std::uint32_t{bits} << 16); }
    constexpr explicit operator double() const noexcept { return static_cast<float>(*this); }
    friend constexpr bool operator==(bfloat16 a, bfloat16 b) noexcept { return a.bits == b.bits; }
};

/// float8_e4m3fn storage type (OCP FP8 E4M3): 4 exponent bits (bias 7) and 3 mantissa bits,
/// largest finite value 448, no infinities, NaN only 0x7f and 0xff. Conversions round to
/// nearest even; a value that rounds past 448, an infinity and a NaN become the NaN of its sign
/// (as PyTorch converts).
struct float8_e4m3fn {
    std::uint8_t bits = 0;

    constexpr float8_e4m3fn() = default;
    constexpr explicit float8_e4m3fn(float f) noexcept : float8_e4m3fn(static_cast<double>(f)) {}
    constexpr explicit float8_e4m3fn(double d) noexcept : bits(static_cast<std::uint8_t>(detail::round_to_narrow<4, 3, true>(d, 0x7fu, true))) {}
    static constexpr float8_e4m3fn from_bits(std::uint8_t b) noexcept {
        float8_e4m3fn h;
        h.bits = b;
        return h;
    }
    static constexpr float8_e4m3fn nan() noexcept { return from_bits(0x7fu); }
    constexpr bool is_infinite_or_nan() const noexcept { return (bits & 0x7fu) == 0x7fu; }
    constexpr explicit operator float() const noexcept { return detail::widen_narrow<4, 3, true>(bits, false); }
    constexpr explicit operator double() const noexcept { return static_cast<float>(*this); }
    friend constexpr bool operator==(float8_e4m3fn a, float8_e4m3fn b) noexcept { return a.bits == b.bits; }
};

/// float8_e5m2 storage type (OCP FP8 E5M2): 5 exponent bits (bias 15) and 2 mantissa bits,
/// largest finite value 57344, infinities 0x7c and 0xfc. Conversions round to nearest even and
/// overflow to an infinity; a NaN becomes 0x7f of its sign (as PyTorch converts).
struct float8_e5m2 {
    std::uint8_t bits = 0;

    constexpr float8_e5m2() = default;
    constexpr explicit float8_e5m2(float f) noexcept : float8_e5m2(static_cast<double>(f)) {}
    constexpr explicit float8_e5m2(double d) noexcept : bits(static_cast<std::uint8_t>(detail::round_to_narrow<5, 2, false>(d, 0x7fu, true))) {}
    static constexpr float8_e5m2 from_bits(std::uint8_t b) noexcept {
        float8_e5m2 h;
        h.bits = b;
        return h;
    }
    static constexpr float8_e5m2 nan() noexcept { return from_bits(0x7fu); }
    constexpr bool is_infinite_or_nan() const noexcept { return (bits & 0x7cu) == 0x7cu; }
    constexpr explicit operator float() const noexcept { return detail::widen_narrow<5, 2, false>(bits, true); }
    constexpr explicit operator double() const noexcept { return static_cast<float>(*this); }
    friend constexpr bool operator==(float8_e5m2 a, float8_e5m2 b) noexcept { return a.bits == b.bits; }
};

namespace detail {
/// The floats narrower than float32, stored as their bits and computed in float32.
template <class T>
inline constexpr bool is_narrow_float_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float8_e4m3fn> || std::is_same_v<T, float8_e5m2>;
} // namespace detail

/// What arithmetic an element type has.
enum class dtype_kind : std::uint8_t { floating, signed_integer, unsigned_integer, boolean };

/// The one list of element types: DirectML's eleven in its order, then the four that machine
/// learning added (the values of `dtype`). Every property of a type comes from its line here,
/// none from its place in the enum:
///   X(enumerator, storage type, size in bytes, kind (dtype_kind), NumPy's descr (for bfloat16
///     and the float8 types the one np.save writes for ml_dtypes' arrays), DLPack's type code,
///     the Vulkan reduce shader's arithmetic code, the name)
/// The shader's codes (its TYPE): 0 float64, 1 float32, 2 float16 arithmetic, 3 signed and 4
/// unsigned integers of the element's size, 5 bfloat16, 6 float8_e4m3fn, 7 float8_e5m2, 8
/// bool. Adding a type is a line here plus its arithmetic.
#define STRIX_ELEMENT_TYPES(X)                                                             \
    X(float64, double, 8, floating, "<f8", 2, 0, "float64")                                \
    X(float32, float, 4, floating, "<f4", 2, 1, "float32")                                 \
    X(float16, ::strix::float16, 2, floating, "<f2", 2, 2, "float16")                      \
    X(int64, std::int64_t, 8, signed_integer, "<i8", 0, 3, "int64")                        \
    X(int32, std::int32_t, 4, signed_integer, "<i4", 0, 3, "int32")                        \
    X(int16, std::int16_t, 2, signed_integer, "<i2", 0, 3, "int16")                        \
    X(int8, std::int8_t, 1, signed_integer, "|i1", 0, 3, "int8")                           \
    X(uint64, std::uint64_t, 8, unsigned_integer, "<u8", 1, 4, "uint64")                   \
    X(uint32, std::uint32_t, 4, unsigned_integer, "<u4", 1, 4, "uint32")                   \
    X(uint16, std::uint16_t, 2, unsigned_integer, "<u2", 1, 4, "uint16")                   \
    X(uint8, std::uint8_t, 1, unsigned_integer, "|u1", 1, 4, "uint8")                      \
    X(bfloat16, ::strix::bfloat16, 2, floating, "<V2", 4, 5, "bfloat16")                   \
    X(boolean, bool, 1, boolean, "|b1", 6, 8, "bool")                                      \
    X(float8_e4m3fn, ::strix::float8_e4m3fn, 1, floating, "<V1", 10, 6, "float8_e4m3fn")   \
    X(float8_e5m2, ::strix::float8_e5m2, 1, floating, "<f1", 12, 7, "float8_e5m2")

/// The element types: DirectML's eleven in its order, then bfloat16, bool and the two float8 types.
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
    std::string_view name;   ///< NumPy's name ("float32", "uint8", "bool"; ml_dtypes' "bfloat16", ...)
    std::size_t size;        ///< bytes per element
    dtype_kind kind;
    std::string_view npy;    ///< the descr NumPy writes ("<f4", "|u1", ...)
    std::uint8_t dlpack;     ///< DLPack's type code (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6, kDLFloat8_e4m3fn 10, kDLFloat8_e5m2 12)
    std::uint32_t shader;    ///< the Vulkan reduce shader's arithmetic code (see the list)
};

namespace detail {
inline constexpr dtype_info dtype_lines[dtype_count] = {
#define STRIX_LINE(n, T, size, kind, npy, dlpack, shader, text) {text, size, dtype_kind::kind, npy, dlpack, shader},
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

/// A C++ type that is one of the element types (const allowed).
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
