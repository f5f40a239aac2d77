// The tests of pad (DirectML Padding, ONNX Pad): constant, edge, reflect, symmetric and wrap, with crops.
//
// This file is compiled into both test programs (through test/ops/moves.cpp). In the unit program
// it holds SPEC.md's seed examples and the operator's random cases against a reference written
// from its semantics; in the Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the
// device against the CPU, bit for bit. `[pad]` selects these tests in either program. A random
// case prints its seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {
namespace {

double half_value(std::uint16_t h) {
    const int e = (h >> 10) & 0x1f;
    const int m = h & 0x3ff;
    const double v = e == 0x1f ? (m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity())
                     : e == 0  ? std::ldexp(m, -24)
                               : std::ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

struct fill_value {
    strix::scalar value;
    std::array<std::byte, 8> bits{}; ///< the element it must become
};

/// A random constant for pad and the element it must become: float16 values given as the exact
/// double of a half bit pattern; float32 values rounded as a C++ conversion does; float64 any bit
/// pattern; integer types as exact integers (2^62+1 included) or as doubles with a fraction,
/// truncated toward zero; bfloat16 and the float8 types as the exact value of any pattern (a NaN
/// becoming the type's canonical NaN); bool as 0 or 1.
fill_value random_fill(rng_t& g, dtype t) {
    return strix::visit(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_value f;
        if constexpr (std::is_same_v<T, strix::float16>) {
            std::uint16_t h = 0;
            switch (uni(g, 0, 4)) {
            case 0: h = 0x8000; break; // -0
            case 1: h = chance(g, 1, 2) ? 0x7c00 : 0xfc00; break;
            case 2: h = static_cast<std::uint16_t>(uni(g, 1, 0x3ff) | (chance(g, 1, 2) ? 0x8000 : 0)); break;
            default:
                do h = static_cast<std::uint16_t>(g()); while ((h & 0x7c00) == 0x7c00);
                break;
            }
            f.value = strix::scalar(half_value(h));
            std::memcpy(f.bits.data(), &h, 2);
        } else if constexpr (strix::detail::is_narrow_float_v<T>) { // bfloat16 and the float8 types
            // the exact value of a random pattern (zeros, subnormals, infinities where the type
            // has them; a NaN as a NaN, which becomes the type's canonical NaN)
            using B = decltype(T{}.bits);
            const B pattern = static_cast<B>(g());
            const float v = static_cast<float>(T::from_bits(pattern));
            f.value = strix::scalar(static_cast<double>(v));
            const B want = v != v ? T::nan().bits : pattern;
            std::memcpy(f.bits.data(), &want, sizeof(B));
        } else if constexpr (std::is_same_v<T, bool>) { // 0 or 1, as an integer or a double
            const bool one = chance(g, 1, 2);
            f.value = chance(g, 1, 2) ? strix::scalar(std::int64_t{one}) : strix::scalar(one ? 1.0 : 0.0);
            const std::uint8_t b = one ? 1 : 0;
            std::memcpy(f.bits.data(), &b, 1);
        } else if constexpr (std::is_same_v<T, double>) {
            std::uint64_t b = chance(g, 1, 6) ? std::uint64_t{1} << 63 : g(); // -0, or any pattern (NaNs included)
            double v;
            std::memcpy(&v, &b, 8);
            f.value = strix::scalar(v);
            std::memcpy(f.bits.data(), &b, 8);
        } else if constexpr (std::is_same_v<T, float>) {
            double v = 0;
            switch (uni(g, 0, 5)) {
            case 0: v = std::uniform_real_distribution<double>(-3e38, 3e38)(g); break;
            case 1: v = std::uniform_real_distribution<double>(-10, 10)(g); break;
            case 2: v = std::uniform_real_distribution<double>(-1e-40, 1e-40)(g); break; // float subnormals
            case 3: v = -0.0; break;
            case 4: v = chance(g, 1, 2) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(); break;
            default: v = std::numeric_limits<double>::quiet_NaN(); break;
            }
            f.value = strix::scalar(v);
            const auto fv = static_cast<float>(v);
            std::memcpy(f.bits.data(), &fv, 4);
        } else {
            using L = std::numeric_limits<T>;
            constexpr bool sgn = std::is_signed_v<T>;
            T expect{};
            switch (uni(g, 0, 3)) {
            case 0: { // an exact integer anywhere in the type's range
                expect = static_cast<T>(g());
                if constexpr (sgn) f.value = strix::scalar(static_cast<std::int64_t>(expect));
                else f.value = strix::scalar(static_cast<std::uint64_t>(expect));
                break;
            }
            case 1: { // a double with a fraction: truncates toward zero
                constexpr std::int64_t cap = std::int64_t{1} << 40; // keeps t + fraction exact enough
                const std::int64_t lo = sgn ? std::max<std::int64_t>(static_cast<std::int64_t>(L::min()), -cap) : 0;
                const std::int64_t hi = static_cast<std::int64_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(L::max()), cap));
                const std::int64_t tv = uni(g, lo, hi);
                const double frac = static_cast<double>(uni(g, 1, 99)) / 100.0;
                double v = static_cast<double>(tv) + (tv < 0 ? -frac : frac);
                if (tv == 0 && chance(g, 1, 2)) v = -frac; // truncates to 0, unsigned types too
                expect = static_cast<T>(tv);
                f.value = strix::scalar(v);
                break;
            }
            case 2: { // the extremes, exactly; 2^62+1 (not a double) for the 64-bit types
                if constexpr (sizeof(T) == 8) {
                    const std::uint64_t big = (std::uint64_t{1} << 62) + 1;
                    if constexpr (sgn) {
                        const auto v = chance(g, 1, 2) ? static_cast<std::int64_t>(big) : -static_cast<std::int64_t>(big);
                        expect = static_cast<T>(v);
                        f.value = strix::scalar(v);
                    } else {
                        expect = static_cast<T>(big);
                        f.value = strix::scalar(big);
                    }
                } else {
                    expect = chance(g, 1, 2) ? L::min() : L::max();
                    if constexpr (sgn) f.value = strix::scalar(static_cast<std::int64_t>(expect));
                    else f.value = strix::scalar(static_cast<std::uint64_t>(expect));
                }
                break;
            }
            default: { // small values such as 10.6 -> 10 and -3.7 -> -3
                const std::int64_t tv = uni(g, sgn ? -20 : 0, 20);
                const double frac = static_cast<double>(uni(g, 0, 9)) / 10.0;
                expect = static_cast<T>(tv);
                f.value = strix::scalar(static_cast<double>(tv) + (tv < 0 ? -frac : frac));
                break;
            }
            }
            std::memcpy(f.bits.data(), &expect, sizeof(T));
        }
        return f;
    });
}

} // namespace

/// The input coordinate that output position `j` (relative to the first input element) takes on
/// a dimension of `n`, or -1 for the fill value. Mirrors fold repeatedly, as numpy.pad does.
std::int64_t pad_fold(pad_mode mode, std::int64_t j, std::int64_t n) {
    if (j >= 0 && j < n) return j;
    switch (mode) {
    case pad_mode::constant: return -1;
    case pad_mode::edge: return j < 0 ? 0 : n - 1;
    case pad_mode::reflect:
        if (n == 1) return 0;
        while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
        return j;
    case pad_mode::symmetric:
        while (j < 0 || j >= n) j = j < 0 ? -j - 1 : 2 * n - 1 - j;
        return j;
    case pad_mode::wrap:
        while (j < 0) j += n;
        while (j >= n) j -= n;
        return j;
    }
    return -1;
}

/// PADDING: out[o] = in[fold(o - start)] per dimension, or the fill when any dimension has none.
bytes pad_ref(const ref_view& in, pad_mode mode, const shape& start, const std::byte* fill, const shape& out_shape) {
    const auto es = in.es();
    bytes out(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords c{};
        bool filled = false;
        for (int d = 0; d < out_shape.rank && !filled; ++d) {
            const std::int64_t s = pad_fold(mode, o[static_cast<std::size_t>(d)] - start[d], in.sizes[d]);
            filled = s < 0;
            c[static_cast<std::size_t>(d)] = s;
        }
        std::memcpy(out.data() + lin * es, filled ? fill : in.at(c), static_cast<std::size_t>(es));
    });
    return out;
}

void pad_case(std::uint64_t seed, dtype et, pad_mode mode) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    shape in, start, end;
    for (int i = 0; i < r; ++i) {
        const std::int64_t n = chance(g, 1, mode == pad_mode::constant ? 10 : 16) ? 0 : uni(g, 1, config.max_size);
        in.push_back(n);
        // a folding mode has nothing to fold from on an empty dimension: pad it by 0
        const std::int64_t wmax = n == 0 ? (mode == pad_mode::constant ? 3 : 0) : 3 * n;
        start.push_back(chance(g, 1, 3) ? 0 : uni(g, 0, wmax));
        end.push_back(chance(g, 1, 3) ? 0 : uni(g, 0, wmax));
        // sometimes crop: negative pads on one or both sides, keeping an element to fold from
        // when the other side pads in a folding mode
        if (n > 0 && chance(g, 1, 4)) {
            auto& s0 = start.dims[static_cast<std::size_t>(i)];
            auto& e0 = end.dims[static_cast<std::size_t>(i)];
            const bool crop_start = chance(g, 1, 2), crop_end = !crop_start || chance(g, 1, 3);
            const bool folds = mode != pad_mode::constant && ((!crop_start && s0 > 0) || (!crop_end && e0 > 0));
            std::int64_t avail = n - (folds ? 1 : 0);
            if (crop_start) {
                s0 = -uni(g, 0, avail);
                avail += s0;
            }
            if (crop_end) e0 = -uni(g, 0, avail);
        }
    }
    // crops larger than what shrinking left of the input are dropped (pads stay)
    auto settle = [&](int i, std::int64_t& s0, std::int64_t& e0) {
        const std::int64_t crop = (s0 < 0 ? -s0 : 0) + (e0 < 0 ? -e0 : 0);
        const bool folds = mode != pad_mode::constant && (s0 > 0 || e0 > 0);
        if (crop > in[i] - (folds ? 1 : 0)) {
            s0 = std::max<std::int64_t>(s0, 0);
            e0 = std::max<std::int64_t>(e0, 0);
        }
    };
    auto out_shape = [&] {
        shape o;
        for (int i = 0; i < r; ++i) {
            std::int64_t s0 = start[i], e0 = end[i];
            settle(i, s0, e0);
            o.push_back(in[i] + s0 + e0);
        }
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    for (int i = 0; i < r; ++i) {
        knobs.push_back({&start.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(start[i], 0)});
        knobs.push_back({&end.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(end[i], 0)});
    }
    shrink(g, knobs, [&] { return std::max(in.count(), out_shape().count()); });
    for (int i = 0; i < r; ++i) settle(i, start.dims[static_cast<std::size_t>(i)], end.dims[static_cast<std::size_t>(i)]);
    const shape out = out_shape();
    const fill_value fill = random_fill(g, et);

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf;
    const bool returning = chance(g, 1, 5);

    INFO("pad " << mode_name(mode) << ", seed " << seed << ", start " << str(start) << ", end " << str(end)
                << ", value " << fill.value.to_string() << " -> " << hex(fill.bits.data(), strix::size_of(et))
                << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("output " << vout.describe());

    strix::pad_desc desc;
    desc.mode = mode;
    desc.start = start;
    desc.end = end;
    desc.value = fill.value;
    // the reference pads the cropped input by the positive pads
    ref_view cropped = vin.ref();
    shape pos_start = start;
    for (int i = 0; i < r; ++i) {
        const std::int64_t s0 = start[i], e0 = end[i];
        if (s0 < 0) cropped.origin += -s0 * cropped.strides[static_cast<std::size_t>(i)] * cropped.es();
        cropped.sizes[i] = in[i] + std::min<std::int64_t>(s0, 0) + std::min<std::int64_t>(e0, 0);
        pos_start[i] = std::max<std::int64_t>(s0, 0);
    }
    const bytes expect = pad_ref(cropped, mode, pos_start, fill.bits.data(), out);
    if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::pad(vin.cview(), desc, config.opt); })) check_tensor(t, et, out, expect);
    } else {
        if (call_ok([&] { strix::pad(vin.cview(), vout.view(), desc, config.opt); })) check_output(vout, out_before, expect);
    }
    CHECK(vin.buf == in_before);
}

} // namespace strix_test

using namespace strix_test;

using namespace strix; // the seed examples call the operators unqualified

TEST_CASE("padding seed examples", "[seed][pad]") {
    const auto x = make<float>({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8});
    auto run = [&](pad_mode m) {
        const auto y = pad(x.view(), pad_desc{m, {0, 0, 1, 2}, {0, 0, 3, 4}, scalar(9.0)});
        REQUIRE(y.sizes() == shape{1, 1, 8, 10});
        return values<float>(y);
    };
    CHECK(run(pad_mode::constant) == fv{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 5, 6, 7, 8, 9, 9, 9, 9,
                                        9, 9, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                                        9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9});
    CHECK(run(pad_mode::edge) == fv{1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
                                    1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
                                    5, 5, 5, 6, 7, 8, 8, 8, 8, 8, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8});
    CHECK(run(pad_mode::reflect) == fv{7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 7, 6, 5, 6, 7, 8, 7, 6, 5, 6,
                                       3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
                                       7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2});
    CHECK(run(pad_mode::symmetric) == fv{2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
                                         2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
                                         2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5});
    SECTION("SPEC.md's 1-D mirror examples, and wider pads fold periodically") {
        const auto v = make<std::int32_t>({4}, {1, 2, 3, 4});
        using iv = std::vector<std::int32_t>;
        CHECK(values<std::int32_t>(pad(v.view(), pad_desc{pad_mode::reflect, {2}, {4}})) == iv{3, 2, 1, 2, 3, 4, 3, 2, 1, 2});
        CHECK(values<std::int32_t>(pad(v.view(), pad_desc{pad_mode::symmetric, {2}, {4}})) == iv{2, 1, 1, 2, 3, 4, 4, 3, 2, 1});
        CHECK(values<std::int32_t>(pad(v.view(), pad_desc{pad_mode::reflect, {7}, {0}})) == iv{2, 1, 2, 3, 4, 3, 2, 1, 2, 3, 4});
        CHECK(values<std::int32_t>(pad(v.view(), pad_desc{pad_mode::symmetric, {0}, {9}})) == iv{1, 2, 3, 4, 4, 3, 2, 1, 1, 2, 3, 4, 4});
        const auto one = make<std::int32_t>({1}, {5});
        CHECK(values<std::int32_t>(pad(one.view(), pad_desc{pad_mode::reflect, {2}, {3}})) == iv{5, 5, 5, 5, 5, 5});
    }
    SECTION("the constant is exact in the element type; DirectML truncates fractional values for integers") {
        const auto v = make<std::int64_t>({1}, {0});
        const std::int64_t big = (std::int64_t{1} << 62) + 1;
        CHECK(values<std::int64_t>(pad(v.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(big)}))[0] == big);
        CHECK(values<std::int64_t>(pad(v.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(10.6)}))[0] == 10);
        CHECK(values<std::int64_t>(pad(v.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(-10.6)}))[0] == -10);
        const auto u = make<std::uint64_t>({1}, {0});
        CHECK(values<std::uint64_t>(pad(u.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(~std::uint64_t{0})}))[0] == ~std::uint64_t{0});
        const auto b = make<std::uint8_t>({1}, {0});
        CHECK_THROWS_WITH(pad(b.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(256)}), Catch::Contains("does not fit") && Catch::Contains("uint8"));
        CHECK_THROWS_WITH(pad(b.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(-1)}), Catch::Contains("does not fit"));
        const auto h = make<float16>({1}, {float16(0.0f)});
        CHECK(values<float16>(pad(h.view(), pad_desc{pad_mode::constant, {1}, {0}, scalar(0.1)}))[0].bits == float16(0.1).bits);
    }
}

TEST_CASE("random: pad in every mode, every element type", "[random][pad]") {
    rng_t seeds(0x70616400'00000004ULL);
    for (dtype et : strix::all_dtypes)
        for (pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap})
            for (int rep = 0; rep < 80; ++rep) pad_case(seeds(), et, mode);
}

TEST_CASE("random: pad rejects what it cannot fill, writing nothing", "[random][pad]") {
    rng_t g(0x70616400'00000005ULL);
    for (dtype et : strix::all_dtypes) {
        INFO("element type " << type_name(et));
        // a folding mode on an empty, padded dimension
        for (pad_mode mode : {pad_mode::edge, pad_mode::reflect, pad_mode::symmetric}) {
            INFO("mode " << mode_name(mode));
            strided vin = make_strided(g, et, shape{2, 0, 3}, false);
            strided vout = make_strided(g, et, shape{2, 2, 3}, true);
            fill_random(g, vout.buf);
            const bytes before = vout.buf;
            strix::pad_desc d;
            d.mode = mode;
            d.start = shape{0, 1, 0};
            d.end = shape{0, 1, 0};
            expect_error(error_code::rule_violation, [&] { strix::pad(vin.cview(), vout.view(), d); });
            CHECK(vout.buf == before);
        }
    }
    // constants that do not fit the element type
    const std::pair<dtype, strix::scalar> misfits[] = {
        {dtype::uint8, strix::scalar(256.0)},
        {dtype::uint8, strix::scalar(std::int64_t{-1})},
        {dtype::int8, strix::scalar(-129.0)},
        {dtype::int8, strix::scalar(std::int64_t{128})},
        {dtype::int16, strix::scalar(std::uint64_t{40000})},
        {dtype::uint16, strix::scalar(65536.5)},
        {dtype::int32, strix::scalar(std::numeric_limits<double>::quiet_NaN())},
        {dtype::uint32, strix::scalar(-std::numeric_limits<double>::infinity())},
        {dtype::int64, strix::scalar(9.3e18)},
        {dtype::uint64, strix::scalar(std::int64_t{-1})},
        {dtype::uint64, strix::scalar(1.8446744073709552e19)}, // 2^64
    };
    for (const auto& [type, value] : misfits) {
        INFO("element type " << type_name(type) << ", value " << value.to_string());
        strided vin = make_strided(g, type, shape{3}, false);
        strided vout = make_strided(g, type, shape{5}, true);
        fill_random(g, vout.buf);
        const bytes before = vout.buf;
        strix::pad_desc d;
        d.start = shape{1};
        d.end = shape{1};
        d.value = value;
        expect_error(error_code::rule_violation, [&] { strix::pad(vin.cview(), vout.view(), d); });
        CHECK(vout.buf == before);
    }
}

#else // the Vulkan program

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A constant for pad: mostly one that fits the element type, given as a double or an exact
/// integer; now and then NaN, an infinity or a value that does not fit (rejected alike).
strix::scalar random_value(rng_t& g, dtype type) {
    if (strix::is_float(type)) {
        switch (uni(g, 0, 3)) {
        case 0: return std::bit_cast<double>(g());
        case 1: return chance(g, 1, 2) ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
        case 2: return uni(g, -1000000, 1000000);
        default: return static_cast<double>(uni(g, -1000, 1000)) / 7.0;
        }
    }
    const auto bits = static_cast<int>(strix::size_of(type) * 8);
    const bool sign = strix::is_signed_int(type);
    switch (uni(g, 0, 5)) {
    case 0: return static_cast<double>(uni(g, -100, 100)) + 0.6;         // truncates (DirectML)
    case 1: return sign ? std::int64_t{-1} << (bits - 1) : std::int64_t{0};  // the smallest value
    case 2: return sign ? static_cast<std::uint64_t>(INT64_MAX) >> (64 - bits) : UINT64_MAX >> (64 - bits); // the largest
    case 3: return chance(g, 1, 2) ? strix::scalar(std::int64_t{-1}) : strix::scalar(std::uint64_t{1} << std::min(bits, 63)); // may not fit
    default: return uni(g, sign ? -50 : 0, 100);
    }
}

/// A pad in mode `mode`, with pads up to 3 wide and now and then wider than the input.
void pad_case(vk::context& ctx, rng_t& g, dtype type, int rank, pad_mode mode, tally& t) {
    const shape in = bounded_shape(g, rank, 96);
    strix::pad_desc d{mode, in, in, random_value(g, type)};
    for (int i = 0; i < rank; ++i) {
        const bool wide = chance(g, 1, 6);
        d.start[i] = wide ? uni(g, 3, 9) : uni(g, 0, 2);
        d.end[i] = wide ? uni(g, 0, 9) : uni(g, 0, 2);
        if (mode != pad_mode::constant && in[i] == 0 && !chance(g, 1, 16)) d.start[i] = d.end[i] = 0; // now and then rejected
        if (in[i] > 0 && chance(g, 1, 5)) { // crop one side (sometimes beyond the axis: rejected alike)
            auto& side = chance(g, 1, 2) ? d.start[i] : d.end[i];
            side = -uni(g, 1, in[i] + (chance(g, 1, 10) ? 1 : 0));
        }
    }
    auto out_count = [&] {
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= std::max<std::int64_t>(in[i] + d.start[i] + d.end[i], 0);
        return n;
    };
    while (out_count() > 1536) {
        const int i = static_cast<int>(uni(g, 0, rank - 1));
        if (d.start[i] > 0) --d.start[i];
        else if (d.end[i] > 0) --d.end[i];
    }
    INFO("pad " << type_name(type) << ' ' << mode_name(mode) << ", start " << str(d.start) << ", end " << str(d.end) << ", value "
                << d.value.to_string());
    const auto r = strix::pad_rule(in, d);
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, type, r.v.ok() ? r.out : in, false)};
    const arenas mem = random_arenas(g, l);
    differential(
        ctx, mem, ops, 1, [&](const host_operands& v) { strix::pad(v[0], v[1], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.pad(v[0], v[1], d); },
        [&](vk::context& c, const host_operands& v) { vk::pad(c, v[0], v[1], d); }, t);
}

} // namespace

TEST_CASE("vulkan: pad in every mode equals the CPU for every element type", "[vulkan][pad]") {
    const int path = GENERATE(from_range(test_paths()));
    const bool small = path != 1;
    vk::context ctx(path_options(path));
    INFO("always 64-bit addressing " << ctx.always_addr64());
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const std::size_t bytes : element_sizes)
        for (const pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap})
            for (int rep = 0; rep < 3; ++rep) {
                if (path == 1 && !words_path_differs(bytes)) continue;
                const dtype type = type_of_size(bytes, k);
                const std::uint64_t seed = case_seed(0x9ad5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                pad_case(ctx, g, type, rank, mode, t);
            }
    CHECK(t.failed_rules > 0); // values that do not fit and empty sources were rejected alike
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: pad folds computed in 32-bit arithmetic equal the tables and the CPU", "[vulkan][pad]") {
    // every mode, on chunks that cross row ends (rows of VEC + 1 elements and more), pads wider
    // than a fold's period, a single-element reflect, crops, mapped outer axes, and an output
    // that is no whole number of chunks (one element per invocation); each on the default
    // path (32-bit, folds computed) and on the 64-bit one (folds read from tables)
    // pads wider than one period of the input are left to the tables (the shader's fold takes no
    // division): `folds` lists the modes folded in the shader
    const std::vector<pad_mode> all_modes = {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap};
    struct pad_geometry {
        dtype type;
        shape in;
        shape start, end;
        std::vector<pad_mode> folds;
    };
    const pad_geometry cases[] = {
        {dtype::float32, {2, 3, 3}, {0, 1, 2}, {0, 2, 2}, all_modes},  // rows of 7 float32: chunks of 4 cross row ends
        {dtype::float32, {4, 2}, {3, 5}, {9, 7}, {pad_mode::constant, pad_mode::edge}}, // several periods
        {dtype::float32, {3, 1}, {0, 4}, {0, 3}, all_modes}, // one element: every fold repeats it, as edge does
        {dtype::float32, {6, 10}, {-1, 2}, {1, -3}, all_modes},         // crops; 54 elements: one per invocation
        {dtype::float32, {3, 4, 8}, {1, 2, 3}, {2, 1, 1}, all_modes},   // every axis mapped, fill rows
        {dtype::float32, {3, 5}, {2, 5}, {1, 5}, all_modes},            // pads of exactly one period (wrap)
        {dtype::int8, {2, 20}, {1, 1}, {1, 3}, all_modes},              // chunks of 16 over rows of 24
        {dtype::float64, {2, 3}, {0, 2}, {0, 2}, all_modes},            // chunks of 2 over rows of 7
        {dtype::float16, {4, 5}, {0, 3}, {0, 4}, all_modes},            // chunks of 8 over rows of 12
    };
    rng_t g(0xf01d5ull);
    for (const bool wide_asked : {false, true}) {
        vk::context_options o;
        o.always_addr64 = wide_asked;
        vk::context ctx(o);
        const bool wide = ctx.always_addr64(); // (the baseline path has no 64-bit moves: never)
        for (const auto& c : cases) {
            const host_tensor x = random_tensor(g, c.type, c.in);
            const vk::device_tensor dx = vk::upload(ctx, x.view());
            int mapped = 0;
            for (int i = 0; i < c.in.rank; ++i) mapped += c.start[i] != 0 || c.end[i] != 0 ? 1 : 0;
            for (const pad_mode mode : all_modes) {
                const bool folded = !wide && std::find(c.folds.begin(), c.folds.end(), mode) != c.folds.end();
                const strix::pad_desc d{mode, c.start, c.end, strix::scalar(3)};
                INFO("wide " << wide << ", " << strix::name(c.type) << " " << str(c.in) << " mode " << static_cast<int>(mode) << ", start "
                             << str(c.start) << ", end " << str(c.end));
                const host_tensor want = strix::pad(x.view(), d);
                const vk::device_tensor out(ctx, c.type, want.sizes());
                vk::stream s(ctx, {.stats = true});
                s.pad(dx.view(), out.view(), d);
                CHECK(s.stats().addr32 == (wide ? 0 : 1));
                CHECK(s.stats().folded == (folded ? mapped : 0));
                s.run();
                CHECK(same_bytes(read_back(ctx, out), want));
            }
        }
        CHECK(ctx.validation_messages() == 0);
    }
}

#endif
