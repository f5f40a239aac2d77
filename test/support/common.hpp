#pragma once
// What every test file shares: random numbers and shapes, text for failure messages, index values
// and how a case chooses them (coordinates are in coords.hpp). The CPU harness (host.hpp) and the
// Vulkan one (vulkan.hpp) build on it; each helper is defined once, here or there.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "strix/strix.hpp"

#include "coords.hpp"

namespace strix_test {

using strix::any_cview;
using strix::any_view;
using strix::dtype;
using strix::error_code;
using strix::host_tensor;
using strix::index_policy;
using strix::pad_mode;
using strix::shape;

using rng_t = std::mt19937_64;
using bytes = std::vector<std::byte>;

// ---------------------------------------------------------------------------------------------
// Random numbers and text

inline std::int64_t uni(rng_t& g, std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

inline bool chance(rng_t& g, int num, int den) { return uni(g, 0, den - 1) < num; }

inline std::string str(const shape& s) { return strix::to_string(s); }

/// The first `rank` entries of a coordinate or of strides, as "[a,b,c]".
inline std::string str(const coords& c, int rank) {
    std::string r = "[";
    for (int i = 0; i < rank; ++i) { // one append per piece (GCC 12 warns falsely of overlap otherwise)
        if (i) r += ',';
        r += std::to_string(c[static_cast<std::size_t>(i)]);
    }
    return r + "]";
}

/// An element's bytes as a hexadecimal number.
inline std::string hex(const std::byte* p, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s = "0x";
    for (std::size_t i = n; i-- > 0;) { // little endian: most significant byte last in memory
        const auto b = static_cast<unsigned>(p[i]);
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

inline std::string mode_name(pad_mode m) {
    switch (m) {
    case pad_mode::constant: return "constant";
    case pad_mode::edge: return "edge";
    case pad_mode::reflect: return "reflect";
    case pad_mode::symmetric: return "symmetric";
    case pad_mode::wrap: return "wrap";
    }
    return "?";
}

inline std::string type_name(dtype t) { return std::string(strix::name(t)); }

// ---------------------------------------------------------------------------------------------
// Shapes

/// `rank` sizes of 1 to `max_size`, each 0 instead one time in `zero_den`.
inline shape random_dims(rng_t& g, int rank, int zero_den, std::int64_t max_size) {
    shape s;
    for (int i = 0; i < rank; ++i) s.push_back(chance(g, 1, zero_den) ? 0 : uni(g, 1, max_size));
    return s;
}

// ---------------------------------------------------------------------------------------------
// Index values

/// How a case chooses its indices, and the policy it calls the operator with.
enum class index_mode {
    valid, ///< all in range, policy error
    clamp, ///< some out of range, policy clamp
    error, ///< some out of range, policy error
};

inline const char* index_text(index_mode m) {
    return m == index_mode::valid ? "valid indices" : m == index_mode::clamp ? "out-of-range indices, clamp" : "out-of-range indices, error";
}

inline index_policy policy_of(index_mode m) { return m == index_mode::clamp ? index_policy::clamp : index_policy::error; }

/// Valid indices half of the time, out-of-range ones under either policy a quarter each.
inline index_mode random_index_mode(rng_t& g) {
    const auto k = uni(g, 0, 3);
    return k < 2 ? index_mode::valid : k == 2 ? index_mode::clamp : index_mode::error;
}

/// Stores the low bytes of `bits` as an index of type `t` (two's complement for negatives).
inline void store_index(std::byte* p, dtype t, std::uint64_t bits) {
    if (t == dtype::int32 || t == dtype::uint32) {
        const auto w = static_cast<std::uint32_t>(bits);
        std::memcpy(p, &w, 4);
    } else {
        std::memcpy(p, &bits, 8);
    }
}

/// Writes `bits` as the element of the index view `v` (of an index type) at `c`.
inline void write_index(const any_view& v, const coords& c, std::uint64_t bits) {
    store_index(static_cast<std::byte*>(v.address(c)), v.type(), bits);
}

/// An index in range for an axis of size n (0 when n is 0: nothing is in range then); negative
/// ones too for signed types.
inline std::uint64_t valid_index(rng_t& g, dtype t, std::int64_t n) {
    if (n <= 0) return 0;
    return static_cast<std::uint64_t>(strix::is_signed_int(t) ? uni(g, -n, n - 1) : uni(g, 0, n - 1));
}

/// An index outside [-n, n) (or [0, n)): just past either end, or an extreme of the type.
inline std::uint64_t bad_index(rng_t& g, dtype t, std::int64_t n) {
    const bool sign = strix::is_signed_int(t);
    switch (uni(g, 0, 3)) {
    case 0: return static_cast<std::uint64_t>(n + uni(g, 0, 2));
    case 1: return sign ? static_cast<std::uint64_t>(-n - 1 - uni(g, 0, 2)) : static_cast<std::uint64_t>(n + 1000);
    case 2:
        switch (t) {
        case dtype::int32: return static_cast<std::uint64_t>(static_cast<std::int64_t>(chance(g, 1, 2) ? INT32_MIN : INT32_MAX));
        case dtype::int64: return chance(g, 1, 2) ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(INT64_MAX);
        case dtype::uint32: return UINT32_MAX;
        default: return chance(g, 1, 2) ? UINT64_MAX : std::uint64_t{1} << 63;
        }
    default: // far out: beyond 2^32 for 8-byte types, the sign bit of a 4-byte one
        return strix::size_of(t) == 8 ? (static_cast<std::uint64_t>(n) + 5) << 33 | 7 : 0x80000007u;
    }
}

} // namespace strix_test
