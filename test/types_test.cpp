// bfloat16, bool and the two float8 types against what PyTorch 2.11 computes: conversions
// checked exhaustively (every bfloat16 and float8 pattern widened; float32 values at, below and
// above every rounding boundary narrowed) and PyTorch's scatter_reduce on bool and bfloat16,
// from the vectors scripts/type_vectors.py wrote on a machine with PyTorch (test/vectors/types);
// PyTorch rounds a bfloat16 sum or product once per target, strix once per combination, which
// the test shows by naive loops of both;
// then the fill rules of the README, and the list's name for each.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

// (strix.hpp, not the operators' own headers: with STRIX_SEPARATE_KERNELS, as the test program
// is built, it declares the CPU kernels compiled elsewhere, which saves compiling them here)
#include "strix/strix.hpp"
#include "strix/io/npy.hpp"
#include "strix/scalar.hpp"

#ifndef STRIX_TEST_VECTORS
#error "the build passes STRIX_TEST_VECTORS, the directory test/vectors"
#endif

using strix::dtype;

namespace {

strix::host_tensor load(const std::string& name) {
    return strix::io::read_npy(std::string(STRIX_TEST_VECTORS) + "/types/" + name).storage;
}

template <class T>
const T* elements(const strix::host_tensor& t, dtype want) {
    REQUIRE(t.type() == want);
    return reinterpret_cast<const T*>(t.data());
}

float float_of(std::uint32_t b) { return std::bit_cast<float>(b); }
bool is_nan32(std::uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }

/// Narrowing float32 to T against PyTorch's answers: bit for bit, but for NaN inputs, where
/// PyTorch's answer depends on its code path (bfloat16: 0x7fc0 scalar, 0xffff vectorized), only
/// that a NaN comes out.
template <class T>
void check_narrowing(const std::uint32_t* in, const strix::host_tensor& want, std::size_t n, int& checked) {
    for (std::size_t i = 0; i < n; ++i) {
        const T got(float_of(in[i]));
        std::uint32_t w = 0;
        std::memcpy(&w, want.data() + i * sizeof(T), sizeof(T));
        if (is_nan32(in[i])) {
            if (!std::isnan(static_cast<float>(got))) FAIL("input 0x" << std::hex << in[i] << " gives a number, 0x" << +got.bits);
            continue;
        }
        if (got.bits != w) FAIL("input 0x" << std::hex << in[i] << " (" << float_of(in[i]) << ") gives 0x" << +got.bits << ", PyTorch 0x" << w);
        ++checked;
    }
}

} // namespace

TEST_CASE("types: bfloat16 conversions equal PyTorch's for every pattern and rounding boundary", "[types]") {
    const strix::host_tensor wide = load("bfloat16_to_float32.npy");
    REQUIRE(wide.count() == 65536);
    const auto* w = elements<std::uint32_t>(wide, dtype::uint32);
    for (std::uint32_t p = 0; p < 65536; ++p) {
        const std::uint32_t got = std::bit_cast<std::uint32_t>(static_cast<float>(strix::bfloat16::from_bits(static_cast<std::uint16_t>(p))));
        if (got != w[p]) FAIL("bfloat16 0x" << std::hex << p << " widens to 0x" << got << ", PyTorch 0x" << w[p]);
    }
    // (p << 16) | low for low 0x7fff, 0x8000, 0x8001: just below, at and just above each boundary
    const strix::host_tensor narrow = load("float32_to_bfloat16.npy");
    REQUIRE(narrow.count() == 65536 * 3);
    REQUIRE(narrow.type() == dtype::uint16);
    std::vector<std::uint32_t> in;
    for (std::uint32_t p = 0; p < 65536; ++p)
        for (const std::uint32_t low : {0x7fffu, 0x8000u, 0x8001u}) in.push_back(p << 16 | low);
    int checked = 0;
    check_narrowing<strix::bfloat16>(in.data(), narrow, in.size(), checked);
    CHECK(checked > 190000);
    // and the rounding the vectors show: ties to even, a carry into the exponent, to infinity
    CHECK(strix::bfloat16(float_of(0x3f808000u)).bits == 0x3f80); // a tie, even stays
    CHECK(strix::bfloat16(float_of(0x3f818000u)).bits == 0x3f82); // a tie, odd rounds up
    CHECK(strix::bfloat16(float_of(0x7f7fffffu)).bits == 0x7f80); // past the largest: infinity
    CHECK(strix::bfloat16(float_of(0x00008000u)).bits == 0x0000); // half the smallest subnormal, a tie to even zero
}

TEST_CASE("types: float8 conversions equal PyTorch's for every pattern and rounding boundary", "[types]") {
    for (const std::string name : {"float8_e4m3fn", "float8_e5m2"}) {
        INFO(name);
        const bool e4 = name == "float8_e4m3fn";
        const strix::host_tensor wide = load(name + "_to_float32.npy");
        REQUIRE(wide.count() == 256);
        const auto* w = elements<std::uint32_t>(wide, dtype::uint32);
        for (std::uint32_t p = 0; p < 256; ++p) {
            const auto b = static_cast<std::uint8_t>(p);
            const float f = e4 ? static_cast<float>(strix::float8_e4m3fn::from_bits(b)) : static_cast<float>(strix::float8_e5m2::from_bits(b));
            if (std::bit_cast<std::uint32_t>(f) != w[p]) FAIL(name << " 0x" << std::hex << p << " widens to 0x" << std::bit_cast<std::uint32_t>(f) << ", PyTorch 0x" << w[p]);
        }
        // every (p << 16), then the midpoints between neighbouring values and the floats next to them
        const strix::host_tensor in = load("float32_to_" + name + "_in.npy"), want = load("float32_to_" + name + ".npy");
        REQUIRE(in.count() == want.count());
        REQUIRE(in.count() > 65536 + 500);
        REQUIRE(want.type() == dtype::uint8);
        const auto* x = elements<std::uint32_t>(in, dtype::uint32);
        int checked = 0;
        if (e4) check_narrowing<strix::float8_e4m3fn>(x, want, static_cast<std::size_t>(in.count()), checked);
        else check_narrowing<strix::float8_e5m2>(x, want, static_cast<std::size_t>(in.count()), checked);
        CHECK(checked > 60000);
    }
    // what the vectors hold: e4m3fn's 464 is a tie that goes to 448 (0x7e), anything above is
    // its NaN; e5m2's 61440 is a tie that goes to infinity
    CHECK(strix::float8_e4m3fn(464.0f).bits == 0x7e);
    CHECK(strix::float8_e4m3fn(464.5f).bits == 0x7f);
    CHECK(strix::float8_e4m3fn(-1e9f).bits == 0xff);
    CHECK(strix::float8_e5m2(61439.0f).bits == 0x7b);
    CHECK(strix::float8_e5m2(61440.0f).bits == 0x7c);
}

TEST_CASE("types: scatter reductions on bool and bfloat16 equal PyTorch's scatter_reduce", "[types]") {
    using R = strix::scatter_reduction;
    const std::pair<const char*, R> reds[] = {{"sum", R::add}, {"prod", R::mul}, {"amax", R::max}, {"amin", R::min}};
    for (const std::string type : {"bool", "bfloat16"}) {
        const strix::host_tensor in = load("reduce_" + type + "_input.npy"), idx = load("reduce_" + type + "_index.npy"),
                                 src = load("reduce_" + type + "_src.npy");
        const dtype t = type == "bool" ? dtype::boolean : dtype::bfloat16;
        // bfloat16 comes as its bits (<u2): the same bytes, seen as bfloat16
        const strix::any_cview x(in.data(), t, in.sizes()), u(src.data(), t, src.sizes());
        for (const auto& [torch_name, red] : reds) {
            INFO(type << " " << torch_name);
            const strix::host_tensor want = load("reduce_" + type + "_" + torch_name + ".npy");
            REQUIRE(want.bytes() == in.bytes());
            // PyTorch folds the updates in index order (one thread): the deterministic fold's
            // order, and the atomics' result too where the order cannot show (bool, min, max)
            const bool rounds = t == dtype::bfloat16 && (red == R::add || red == R::mul);
            for (const bool det : {true, false}) {
                if (!det && rounds) continue; // (order shows: deterministic only)
                const strix::host_tensor got = strix::scatter(x, idx.view(), u, strix::scatter_desc{0, strix::index_policy::error, red, det});
                if (!rounds) {
                    CHECK(std::memcmp(got.data(), want.data(), want.bytes()) == 0);
                    continue;
                }
                // bfloat16 sum and prod: PyTorch keeps each target's running value in float32
                // and rounds it once at the end, strix rounds after every combination (as its
                // atomics must, and as it does for float16). Both, by a naive loop here: that
                // PyTorch's answer is the first shows the difference is only that
                const auto* in_bits = reinterpret_cast<const std::uint16_t*>(in.data());
                const auto* up_bits = reinterpret_cast<const std::uint16_t*>(src.data());
                const auto* ix = reinterpret_cast<const std::int64_t*>(idx.data());
                const auto widen = [](std::uint16_t b) { return std::bit_cast<float>(std::uint32_t{b} << 16); };
                const auto round = [](float f) { // the carry trick (no NaN arises here)
                    const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
                    return static_cast<std::uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
                };
                std::vector<float> running(static_cast<std::size_t>(in.count()));
                std::vector<std::uint16_t> stepwise(in_bits, in_bits + in.count());
                for (std::size_t k = 0; k < running.size(); ++k) running[k] = widen(in_bits[k]);
                for (std::int64_t k = 0; k < idx.count(); ++k) {
                    const auto j = static_cast<std::size_t>(ix[k]);
                    const float v = widen(up_bits[k]);
                    running[j] = red == R::add ? running[j] + v : running[j] * v;
                    stepwise[j] = round(red == R::add ? widen(stepwise[j]) + v : widen(stepwise[j]) * v);
                }
                const auto* torch_bits = reinterpret_cast<const std::uint16_t*>(want.data());
                const auto* got_bits = reinterpret_cast<const std::uint16_t*>(got.data());
                int differ = 0;
                for (std::size_t k = 0; k < running.size(); ++k) {
                    CHECK(torch_bits[k] == round(running[k]));
                    CHECK(got_bits[k] == stepwise[k]);
                    differ += torch_bits[k] != got_bits[k];
                }
                CHECK(differ > 0); // (the vectors do tell the two apart)
            }
        }
    }
}

TEST_CASE("types: fill values of the new types convert once and refuse what the type cannot hold", "[types]") {
    const auto as = [](dtype t, const strix::scalar& s) -> std::optional<std::uint32_t> {
        std::array<std::byte, 16> b{};
        if (!strix::detail::scalar_bytes(s, t, b.data())) return std::nullopt;
        std::uint32_t v = 0;
        std::memcpy(&v, b.data(), strix::size_of(t));
        return v;
    };
    // bfloat16: correctly rounded from the double (no detour through float), its range
    CHECK(as(dtype::bfloat16, 1.0) == 0x3f80u);
    CHECK(as(dtype::bfloat16, 1.0 + 0x1p-8) == 0x3f80u);           // a tie, to even
    CHECK(as(dtype::bfloat16, 1.0 + 0x1p-8 + 0x1p-40) == 0x3f81u); // just past it (float would round the tail away)
    CHECK(as(dtype::bfloat16, -0.0) == 0x8000u);
    CHECK(as(dtype::bfloat16, std::ldexp(1.0, -133)) == 0x0001u); // the smallest subnormal
    CHECK(as(dtype::bfloat16, 3.3895313892515355e38) == 0x7f7fu);  // the largest finite
    CHECK_FALSE(as(dtype::bfloat16, 3.4e38));                      // rounds to infinity: refused
    CHECK_FALSE(as(dtype::bfloat16, 1e300));
    CHECK(as(dtype::bfloat16, -INFINITY) == 0xff80u); // an infinity given as such stays one
    CHECK(as(dtype::bfloat16, NAN) == 0x7fc0u);       // NaN: the canonical one
    CHECK(as(dtype::bfloat16, -NAN) == 0x7fc0u);
    CHECK(as(dtype::bfloat16, std::int64_t{-3}) == 0xc040u);
    // float8_e4m3fn: no infinity, 448 the largest
    CHECK(as(dtype::float8_e4m3fn, 448.0) == 0x7eu);
    CHECK(as(dtype::float8_e4m3fn, -448.0) == 0xfeu);
    CHECK(as(dtype::float8_e4m3fn, 464.0) == 0x7eu); // a tie between 448 and the NaN's place: to 448
    CHECK_FALSE(as(dtype::float8_e4m3fn, 464.5));
    CHECK_FALSE(as(dtype::float8_e4m3fn, 500.0));
    CHECK_FALSE(as(dtype::float8_e4m3fn, INFINITY));
    CHECK(as(dtype::float8_e4m3fn, NAN) == 0x7fu);
    CHECK(as(dtype::float8_e4m3fn, 0x1p-9) == 0x01u); // the smallest subnormal
    CHECK(as(dtype::float8_e4m3fn, 0x1p-10) == 0x00u); // half of it: a tie, to even zero
    CHECK(as(dtype::float8_e4m3fn, 0x1.0000000000001p-10) == 0x01u);
    CHECK(as(dtype::float8_e4m3fn, std::uint64_t{3}) == 0x44u);
    // float8_e5m2: 57344 the largest, infinities kept
    CHECK(as(dtype::float8_e5m2, 57344.0) == 0x7bu);
    CHECK(as(dtype::float8_e5m2, 61439.0) == 0x7bu);
    CHECK_FALSE(as(dtype::float8_e5m2, 61440.0)); // a tie to infinity: refused
    CHECK(as(dtype::float8_e5m2, INFINITY) == 0x7cu);
    CHECK(as(dtype::float8_e5m2, -INFINITY) == 0xfcu);
    CHECK(as(dtype::float8_e5m2, NAN) == 0x7fu);
    CHECK(as(dtype::float8_e5m2, 0x1p-16) == 0x01u);
    // bool: 0 and 1 only, as integers or doubles
    CHECK(as(dtype::boolean, std::int64_t{1}) == 1u);
    CHECK(as(dtype::boolean, std::uint64_t{0}) == 0u);
    CHECK(as(dtype::boolean, 1.0) == 1u);
    CHECK(as(dtype::boolean, -0.0) == 0u);
    CHECK_FALSE(as(dtype::boolean, std::int64_t{2}));
    CHECK_FALSE(as(dtype::boolean, std::int64_t{-1}));
    CHECK_FALSE(as(dtype::boolean, 0.5));
    CHECK_FALSE(as(dtype::boolean, NAN));
    // a pad refuses such a fill, naming the operator, the type and the value
    strix::host_tensor m(dtype::float8_e4m3fn, {2});
    std::string what;
    try {
        (void)strix::pad(m.view(), strix::pad_desc{strix::pad_mode::constant, {1}, {1}, 500.0});
    } catch (const strix::error& e) {
        what = e.what();
    }
    CHECK_THAT(what, Catch::Contains("float8_e4m3fn"));
    CHECK_THAT(what, Catch::Contains("500"));
}

TEST_CASE("types: the list names the new types as NumPy, ml_dtypes and PyTorch do", "[types]") {
    CHECK(strix::name(dtype::bfloat16) == "bfloat16");
    CHECK(strix::name(dtype::boolean) == "bool");
    CHECK(strix::name(dtype::float8_e4m3fn) == "float8_e4m3fn");
    CHECK(strix::name(dtype::float8_e5m2) == "float8_e5m2");
    CHECK(strix::dtype_of<bool> == dtype::boolean);
    CHECK(strix::dtype_of<strix::bfloat16> == dtype::bfloat16);
    CHECK(strix::size_of(dtype::float8_e5m2) == 1);
    CHECK(strix::is_float(dtype::float8_e4m3fn));
    CHECK_FALSE(strix::is_float(dtype::boolean));
    CHECK_FALSE(strix::is_signed_int(dtype::boolean));
}
