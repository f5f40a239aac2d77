// float16 conversions, checked exhaustively against the compiler's own binary16 (_Float16).

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "strix/dtype.hpp"

using strix::float16;

namespace {
std::uint16_t bits_of(_Float16 h) {
    std::uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
}
_Float16 from_bits(std::uint16_t b) {
    _Float16 h;
    std::memcpy(&h, &b, 2);
    return h;
}
std::uint32_t bits_of(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
bool is_nan_bits(std::uint16_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu); }
} // namespace

TEST_CASE("float16 to float is exact for all 65536 bit patterns", "[float16]") {
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto h = static_cast<std::uint16_t>(b);
        const float ours = static_cast<float>(float16::from_bits(h));
        const float ref = static_cast<float>(from_bits(h));
        if (is_nan_bits(h)) {
            REQUIRE(ours != ours); // NaN stays NaN, with its payload's top bits
            REQUIRE((bits_of(ours) & 0x807fe000u) == (static_cast<std::uint32_t>(h & 0x8000u) << 16 | (std::uint32_t(h & 0x3ffu) << 13)));
        } else {
            INFO("bits " << b);
            REQUIRE(bits_of(ours) == bits_of(ref));
        }
    }
}

TEST_CASE("float to float16 round-trips every float16 value and rounds every tie to even", "[float16]") {
    for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto h = static_cast<std::uint16_t>(b);
        if (is_nan_bits(h)) {
            const float f = static_cast<float>(float16::from_bits(h));
            REQUIRE(is_nan_bits(float16(f).bits));
            REQUIRE(is_nan_bits(float16(static_cast<double>(f)).bits));
            continue;
        }
        const float f = static_cast<float>(float16::from_bits(h));
        INFO("bits " << b);
        REQUIRE(float16(f).bits == h);
        REQUIRE(float16(static_cast<double>(f)).bits == h);
        // the midpoint to the next float16 up (in magnitude) and values around it
        if ((h & 0x7fffu) < 0x7c00u) {
            const float next = static_cast<float>(float16::from_bits(static_cast<std::uint16_t>(h + 1)));
            if ((h & 0x7fffu) == 0x7bffu) continue; // the next one up is infinity
            const double mid = (static_cast<double>(f) + static_cast<double>(next)) / 2;
            const auto even = (h & 1u) ? static_cast<std::uint16_t>(h + 1) : h;
            REQUIRE(float16(mid).bits == even);
            REQUIRE(float16(static_cast<float>(mid)).bits == even); // the midpoint is exact in float
            REQUIRE(float16(std::nextafter(mid, 0.0)).bits == h); // just below the tie in magnitude
            REQUIRE(float16(std::nextafter(mid, mid * 4)).bits == static_cast<std::uint16_t>(h + 1)); // just above
            REQUIRE(bits_of(static_cast<_Float16>(mid)) == even);
        }
    }
}

TEST_CASE("float to float16 agrees with _Float16 on random and special floats", "[float16]") {
    std::mt19937 rng(12345);
    for (int i = 0; i < 2'000'000; ++i) {
        const std::uint32_t b = rng();
        float f;
        std::memcpy(&f, &b, 4);
        if (f != f) {
            REQUIRE(is_nan_bits(float16(f).bits));
            continue;
        }
        INFO("float bits " << b);
        REQUIRE(float16(f).bits == bits_of(static_cast<_Float16>(f)));
        const double d = static_cast<double>(f) * (1.0 + 1e-9);
        REQUIRE(float16(d).bits == bits_of(static_cast<_Float16>(d)));
    }
    const float specials[] = {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e10f, 5.9604645e-8f, 2.9802322e-8f,
                              2.9802326e-8f, 6.1035156e-5f, 6.1035152e-5f, INFINITY, -INFINITY, 1.0f, -2.5f};
    for (float f : specials) REQUIRE(float16(f).bits == bits_of(static_cast<_Float16>(f)));
    REQUIRE(float16(65520.0f).bits == 0x7c00u);           // rounds to infinity
    REQUIRE(float16(2.9802322e-8f).bits == 0x0000u);      // exactly half the smallest subnormal: ties to even (0)
    REQUIRE(float16(2.9802326e-8f).bits == 0x0001u);      // just above half: the smallest subnormal
    REQUIRE(float16(-0.0f).bits == 0x8000u);
}
