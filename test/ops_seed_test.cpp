// Every example of the specification's seed pages (DirectML gather, join, padding and scatter,
// with SPEC.md's two corrections), through the run-time API and the typed API.

#include <catch2/catch.hpp>

#include <vector>

#include "strix/strix.hpp"

using namespace strix;

namespace {
template <class T>
host_tensor make(shape s, std::vector<T> v) {
    host_tensor t(dtype_of<T>, s);
    REQUIRE(static_cast<std::int64_t>(v.size()) == s.count());
    std::copy(v.begin(), v.end(), t.as<T>());
    return t;
}
template <class T>
std::vector<T> values(const host_tensor& t) {
    return {t.as<T>(), t.as<T>() + t.count()};
}
using fv = std::vector<float>;
} // namespace

TEST_CASE("gather seed examples", "[seed][gather]") {
    const auto x32 = make<float>({3, 2}, {1, 2, 3, 4, 5, 6});
    SECTION("1: 1-D remapping") {
        const auto y = gather(make<float>({4}, {11, 12, 13, 14}).view(), make<std::uint32_t>({5}, {3, 1, 3, 0, 2}).view(), {0, 1});
        CHECK(y.sizes() == shape{5});
        CHECK(values<float>(y) == fv{14, 12, 14, 11, 13});
    }
    SECTION("2: rows, IndexDimensions 1") {
        const auto y = gather(x32.view(), make<std::uint32_t>({1, 4}, {0, 1, 1, 2}).view(), {0, 1});
        CHECK(y.sizes() == shape{4, 2});
        CHECK(values<float>(y) == fv{1, 2, 3, 4, 3, 4, 5, 6});
    }
    SECTION("3: swap columns (printed with IndexDimensions 2, which the rank rule forbids; its data is K = 1)") {
        const auto idx = make<std::uint32_t>({1, 2}, {1, 0});
        const auto y = gather(x32.view(), idx.view(), {1, 1});
        CHECK(y.sizes() == shape{3, 2});
        CHECK(values<float>(y) == fv{2, 1, 4, 3, 6, 5});
        CHECK_THROWS_WITH(gather(x32.view(), idx.view(), {1, 2}),
                          Catch::Contains("originalRank(input) + IndexDimensions - 1 must not exceed the rank"));
    }
    SECTION("4: nested indices, axis 2, K 2") {
        const auto y = gather(make<float>({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}).view(), make<std::uint32_t>({1, 1, 2}, {0, 2}).view(), {2, 2});
        CHECK(y.sizes() == shape{3, 1, 2});
        CHECK(values<float>(y) == fv{1, 3, 4, 6, 7, 9});
    }
    SECTION("5: nested indices, axis 1, K 2") {
        const auto y = gather(make<float>({1, 3, 2}, {1, 2, 3, 4, 5, 6}).view(), make<std::uint32_t>({1, 2, 2}, {0, 1, 1, 2}).view(), {1, 2});
        CHECK(y.sizes() == shape{2, 2, 2});
        CHECK(values<float>(y) == fv{1, 2, 3, 4, 3, 4, 5, 6});
    }
    SECTION("natural form: numpy.take with negative indices and a negative axis") {
        const auto y = gather(x32.view(), make<std::int64_t>({2, 2}, {0, -1, 1, 0}).view(), {-1});
        CHECK(y.sizes() == shape{3, 2, 2});
        CHECK(values<float>(y) == fv{1, 2, 2, 1, 3, 4, 4, 3, 5, 6, 6, 5});
    }
    SECTION("out of range: error names position and value; clamp clamps") {
        const auto idx = make<std::int32_t>({3}, {0, 7, -4});
        CHECK_THROWS_WITH(gather(x32.view(), idx.view(), {0}), Catch::Contains("index 7 at position [1]") && Catch::Contains("axis 0 of size 3"));
        const auto y = gather(x32.view(), idx.view(), {0, -1, index_policy::clamp});
        CHECK(values<float>(y) == fv{1, 2, 5, 6, 1, 2});
    }
}

TEST_CASE("join seed examples", "[seed][join]") {
    const auto a = make<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
    const auto b = make<float>({1, 1, 2, 4}, {7, 8, 9, 10, 11, 12, 13, 14});
    const any_cview ab[] = {a.view(), b.view()};
    const auto y = join(ab, {3});
    CHECK(y.sizes() == shape{1, 1, 2, 7});
    CHECK(values<float>(y) == fv{1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14});
    CHECK_THROWS_WITH(join(ab, {2}), Catch::Contains("join: the inputs must have equal sizes on every axis but the join axis") &&
                                         Catch::Contains("operand input 1") && Catch::Contains("axis 3") && Catch::Contains("[1,1,2,4]"));

    const auto j0 = make<float>({1, 1, 2, 2}, {1, 2, 3, 4});
    const auto j1 = make<float>({1, 1, 2, 2}, {5, 6, 7, 8});
    const auto j2 = make<float>({1, 1, 2, 2}, {9, 10, 11, 12});
    const any_cview three[] = {j0.view(), j1.view(), j2.view()};
    CHECK(join(three, {1}).sizes() == shape{1, 3, 2, 2});
    CHECK(values<float>(join(three, {1})) == fv{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    CHECK(join(three, {2}).sizes() == shape{1, 1, 6, 2});
    CHECK(values<float>(join(three, {2})) == fv{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    CHECK(join(three, {3}).sizes() == shape{1, 1, 2, 6});
    CHECK(values<float>(join(three, {-1})) == fv{1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12});
    const any_cview one[] = {j1.view()};
    CHECK(values<float>(join(one, {0})) == fv{5, 6, 7, 8});
}

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

TEST_CASE("scatter seed examples", "[seed][scatter]") {
    SECTION("1: 1-D, duplicates: the last in row-major order wins") {
        const auto y = scatter(make<float>({5}, {0, 1, 2, 3, 4}).view(), make<std::uint32_t>({4}, {3, 1, 3, 0}).view(),
                               make<float>({4}, {5, 6, 7, 8}).view(), {0});
        CHECK(values<float>(y) == fv{8, 6, 2, 7, 4});
    }
    SECTION("2: 2-D, axis 0, with the input corrected to [3,3]") {
        const auto y = scatter(make<float>({3, 3}, fv(9, 0.0f)).view(), make<std::uint32_t>({2, 3}, {1, 0, 2, 0, 2, 1}).view(),
                               make<float>({2, 3}, {10, 11, 12, 20, 21, 22}).view(), {0});
        CHECK(values<float>(y) == fv{20, 11, 0, 10, 0, 22, 0, 21, 12});
    }
    SECTION("in place, and indices smaller than the input off the axis (ONNX ScatterElements)") {
        auto x = make<float>({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
        scatter(x.view(), make<std::int64_t>({1, 2}, {-1, 0}).view(), make<float>({1, 2}, {1.5f, 2.5f}).view(), x.view(), {1});
        CHECK(values<float>(x) == fv{2.5f, 0, 0, 1.5f, 0, 0, 0, 0});
    }
    SECTION("an out-of-range index under error changes nothing, even in place") {
        auto x = make<float>({4}, {1, 2, 3, 4});
        CHECK_THROWS_WITH(scatter(x.view(), make<std::int32_t>({2}, {1, 4}).view(), make<float>({2}, {9, 9}).view(), x.view(), {0}),
                          Catch::Contains("scatter: index 4 at position [1]"));
        CHECK(values<float>(x) == fv{1, 2, 3, 4});
    }
}

TEST_CASE("typed views with static extents run the same operators", "[seed][typed]") {
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const std::int32_t idx[2] = {2, 0};
    float out[4] = {};
    gather<gather_desc{1}>(tensor_view<const float, extents<2, 3>>(in), tensor_view<const std::int32_t, extents<2>>(idx),
                           tensor_view<float, extents<2, 2>>(out));
    CHECK(fv(out, out + 4) == fv{3, 1, 6, 4});

    float joined[12] = {};
    join<join_desc{0}>(tensor_view<float, extents<4, 3>>(joined), tensor_view<const float, extents<2, 3>>(in),
                       tensor_view<const float, extents<2, 3>>(in));
    CHECK(fv(joined, joined + 12) == fv{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});

    float padded[8] = {};
    pad<pad_desc{pad_mode::edge, {0, 1}, {0, 0}}>(tensor_view<const float, extents<2, 3>>(in), tensor_view<float, extents<2, 4>>(padded));
    CHECK(fv(padded, padded + 8) == fv{1, 1, 2, 3, 4, 4, 5, 6});

    float scattered[6] = {};
    const std::int64_t sidx[2] = {1, 0};
    const float upd[2] = {7, 8};
    scatter<scatter_desc{0}>(tensor_view<const float, extents<2, 3>>(in), tensor_view<const std::int64_t, extents<2, 1>>(sidx),
                             tensor_view<const float, extents<2, 1>>(upd), tensor_view<float, extents<2, 3>>(scattered));
    CHECK(fv(scattered, scattered + 6) == fv{8, 2, 3, 7, 5, 6});

    // dynamic extents: the same call, checked at run time
    const tensor_view<const float, dextents<2>> din(in, dextents<2>(2, 3));
    float dout[4] = {};
    gather<gather_desc{1}>(din, tensor_view<const std::int32_t, dextents<1>>(idx, dextents<1>(2)), tensor_view<float, dextents<2>>(dout, dextents<2>(2, 2)));
    CHECK(fv(dout, dout + 4) == fv{3, 1, 6, 4});
    CHECK_THROWS_WITH(gather<gather_desc{1}>(din, tensor_view<const std::int32_t, dextents<1>>(idx, dextents<1>(2)),
                                             tensor_view<float, dextents<2>>(dout, dextents<2>(2, 1))),
                      Catch::Contains("gather: the output's shape is not the inferred shape") && Catch::Contains("output [2,1]"));
}
