// Hostile inputs: sizes, sums and strides at the edge of 64 bits, indices that an empty output
// never reads, and fill values that do not fit their element type. Each case states what the
// independent truth is (64-bit arithmetic done by hand, NumPy's behaviour, IEEE rounding).

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "strix/strix.hpp"

using namespace strix;

namespace {

constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t small = std::numeric_limits<std::int64_t>::min();

/// Runs `f`, which must throw strix::error of `code`; returns the message.
template <class F>
std::string thrown(F&& f, error_code code) {
    try {
        f();
    } catch (const error& e) {
        CHECK(static_cast<int>(e.code()) == static_cast<int>(code));
        return e.what();
    }
    FAIL("no strix::error was thrown");
    return {};
}

template <class T>
any_cview cview(const std::vector<T>& v, const shape& s) {
    return any_view(const_cast<T*>(v.data()), dtype_of<T>, s);
}

} // namespace

// ---- pad: output sizes beyond 64 bits, and no map for an empty output ----

TEST_CASE("pad: an output size beyond 2^63 - 1 breaks a rule, naming the axis and the pads", "[hostile]") {
    // 3 + (2^63 - 1) + (2^63 - 1) does not fit in int64 (it wrapped to 1 before)
    const pad_desc d{pad_mode::constant, {big}, {big}};
    const inferred r = pad_rule(shape{3}, d);
    CHECK(r.v.code == rule::pad_output_size);
    CHECK(r.v.axis == 0);
    // a single pad of 2^63 - 1 on a non-empty axis overflows too; on an empty one it does not
    CHECK(pad_rule(shape{1}, pad_desc{pad_mode::constant, {0}, {big}}).v.code == rule::pad_output_size);
    CHECK(pad_rule(shape{0}, pad_desc{pad_mode::constant, {0}, {big}}).v.ok());
    CHECK(pad_rule(shape{0}, pad_desc{pad_mode::constant, {0}, {big}}).out == shape{big});

    std::vector<float> x = {1, 2, 3};
    const std::string m = thrown([&] { (void)pad(cview(x, {3}), d); }, error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("pad: the output's size on an axis would exceed 2^63 - 1"));
    CHECK_THAT(m, Catch::Contains("axis 0"));
    CHECK_THAT(m, Catch::Contains("input [3] float32"));
    CHECK_THAT(m, Catch::Contains("start [9223372036854775807], end [9223372036854775807]"));
}

TEST_CASE("pad: crops of -2^63 are refused without overflowing", "[hostile]") {
    // 3 - 2^63 - 2^63 is far below zero: more is cropped than the axis has
    const inferred r = pad_rule(shape{3}, pad_desc{pad_mode::constant, {small}, {small}});
    CHECK(r.v.code == rule::pad_crop);
    CHECK(r.v.axis == 0);
    // a crop and a pad that cancel exactly stay legal: 3 - 3 + (2^63 - 1)
    const inferred ok = pad_rule(shape{3}, pad_desc{pad_mode::constant, {-3}, {big}});
    CHECK(ok.v.ok());
    CHECK(ok.out == shape{big});
}

TEST_CASE("pad: an output whose element count exceeds 2^63 - 1 breaks a rule", "[hostile]") {
    // (1 + 2^40 + 2^40)^2 = about 2^82 elements, though each size fits
    const std::int64_t p = std::int64_t{1} << 40;
    const inferred r = pad_rule(shape{1, 1}, pad_desc{pad_mode::constant, {p, p}, {p, p}});
    CHECK(r.v.code == rule::pad_output_count);
    std::vector<float> x = {1};
    const std::string m = thrown([&] { (void)pad(cview(x, {1, 1}), pad_desc{pad_mode::constant, {p, p}, {p, p}}); }, error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("pad: the output would have more than 2^63 - 1 elements"));
    CHECK_THAT(m, Catch::Contains("input [1,1] float32"));
    // an empty axis keeps the count at zero however wide the others grow
    CHECK(pad_rule(shape{0, 1}, pad_desc{pad_mode::constant, {0, p}, {0, p}}).v.ok());
}

TEST_CASE("pad: an empty output moves nothing, however wide the pads", "[hostile]") {
    // a (0,1) input padded by 1000 on axis 1: the output (0,2001) has no element, so the plan
    // is empty (its lowering once computed 2000 map entries)
    const any_cview in(nullptr, dtype::float32, shape{0, 1});
    const any_view out(nullptr, dtype::float32, shape{0, 2001});
    const pad_desc d{pad_mode::constant, {0, 1000}, {0, 1000}};
    detail::check_pad(in, &out, d);
    const plan::move_plan p = detail::lower_pad(in, out, d);
    CHECK(p.rank == 0); // nothing to run

    // 2^40 each side: a 128-byte .npy file's worth of output, which must not need gigabytes
    const std::int64_t w = std::int64_t{1} << 40;
    const auto y = pad(in, pad_desc{pad_mode::edge, {0, 0}, {0, 0}});
    CHECK(y.sizes() == shape{0, 1});
    const auto z = pad(in, pad_desc{pad_mode::constant, {0, w}, {0, w}});
    CHECK(z.sizes() == shape{0, 2 * w + 1});
    CHECK(z.count() == 0);
}

TEST_CASE("allocating calls with an empty output whose other sizes multiply past 2^63 do no overflowing stride arithmetic", "[hostile]") {
    // the new tensor's C-order strides saturate at 2^63 - 1 (its shape has no element, so it is
    // a valid shape); times the element size they overflowed in the copy plan (fuzz_ops, under
    // UBSan: the sanitized build runs this test)
    const std::int64_t big = std::int64_t{1} << 40, wide = std::int64_t{1} << 30;
    const any_cview in(nullptr, dtype::int16, shape{0, big, 1}, {1, 1, 1});
    const auto y = pad(in, pad_desc{pad_mode::constant, {0, 0, 0}, {0, 0, wide}});
    CHECK(y.sizes() == shape{0, big, wide + 1});
    CHECK(y.count() == 0);
    const any_cview grid(nullptr, dtype::int16, shape{0, big, wide}, {1, 1, 1});
    const any_cview none(nullptr, dtype::int64, shape{0, big, wide}, {1, 1, 1});
    const any_cview upd(nullptr, dtype::int16, shape{0, big, wide}, {1, 1, 1});
    // scatter checks the new tensor as its output view, and (2^63 - 1) x 2 bytes is past any
    // reach: a strix::error, as the fuzz targets allow (an empty result would do as well)
    try {
        const auto z = scatter(grid, none, upd, scatter_desc{1});
        CHECK(z.sizes() == shape{0, big, wide});
    } catch (const strix::error& err) {
        CHECK(err.code() == error_code::bad_view);
    }
    const auto e = gather_elements(grid, none, gather_elements_desc{2});
    CHECK(e.sizes() == shape{0, big, wide});
    // join locates each input's slice of the new tensor: the second input starts 2^62 elements
    // along the axis, 2^63 bytes in (fuzz_ops under UBSan); an empty input is not located
    const std::int64_t half = std::int64_t{1} << 62;
    const std::vector<any_cview> parts{any_cview(nullptr, dtype::int16, shape{0, half, 1}, {0, 0, 0}),
                                       any_cview(nullptr, dtype::int16, shape{0, 1, 1}, {0, 0, 0})};
    try {
        const auto j = join(parts, join_desc{1});
        CHECK(j.sizes() == shape{0, half + 1, 1});
    } catch (const strix::error& err) {
        CHECK(err.code() == error_code::bad_view);
    }
}

TEST_CASE("pad: an empty input (no data) padded into an output with negative strides", "[hostile]") {
    // a constant pad of a (0, 4) input: every output element is the fill, and the input has no
    // data. The plan turned the output's negative stride on axis 1 positive and moved the
    // input's null base by the same dimension's input stride: pointer arithmetic on null, which
    // clang's UBSan reports (fuzz_ops, which replays the input every run) and GCC's does not.
    // Expected: NumPy's np.pad of an empty array, all fill.
    const any_cview in(nullptr, dtype::float32, shape{0, 4});
    std::vector<float> buf(2 * 4 + 2, -1.0f);
    // (2, 4) written backwards on both axes, one sentinel each side
    const any_view out(buf.data() + 8, dtype::float32, shape{2, 4}, {-4, -1});
    pad(in, out, pad_desc{pad_mode::constant, {1, 0}, {1, 0}, scalar(2.5)});
    CHECK(buf.front() == -1.0f);
    CHECK(buf.back() == -1.0f);
    for (std::size_t i = 1; i + 1 < buf.size(); ++i) CHECK(buf[i] == 2.5f);
}

TEST_CASE("pad: a padded dimension is its fold, not a list of its coordinates", "[hostile]") {
    // the plan of a pad holds nothing per coordinate: lowering pads of 2^40 on each side of a
    // one-element axis (never run: the output's memory does not exist) takes no memory or time
    // beyond the plan, and every padded term is the fold's
    const std::int64_t w = std::int64_t{1} << 40;
    std::int32_t x = 7;
    const any_cview in(&x, dtype::int32, shape{1});
    std::int32_t sink = 0;
    const any_view out(&sink, dtype::int32, shape{2 * w + 1});
    for (const pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap}) {
        const plan::move_plan p = detail::lower_pad(in, out, pad_desc{mode, {w}, {w}});
        REQUIRE(p.rank == 1);
        const auto& d = p.dims[0];
        CHECK(d.padded);
        CHECK(d.fold == mode);
        CHECK((d.lo == w && d.hi == w + 1 && d.size == 2 * w + 1));
        for (const std::int64_t c : {std::int64_t{0}, w - 1, w + 1, 2 * w}) CHECK(d.source(c) == (mode == pad_mode::constant ? plan::no_source : 0));
        CHECK(d.source(w) == 0);
    }
}

// ---- join and split: sums of sizes beyond 64 bits ----

TEST_CASE("join: sizes on the axis that add up beyond 2^63 - 1 break a rule", "[hostile]") {
    // four (2^62, 0) inputs: 4 * 2^62 = 2^64 wrapped to (0, 0) before
    const std::int64_t q = std::int64_t{1} << 62;
    const shape shapes[] = {{q, 0}, {q, 0}, {q, 0}, {q, 0}};
    const inferred r = join_rule(shapes, join_desc{0});
    CHECK(r.v.code == rule::join_output_size);
    CHECK(r.v.operand == 1); // 2^62 + 2^62 = 2^63 is already one too many
    CHECK(r.v.axis == 0);

    const any_cview in(nullptr, dtype::uint8, shape{q, 0});
    const any_cview ins[] = {in, in, in, in};
    const std::string m = thrown([&] { (void)join(ins, join_desc{0}); }, error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("join: the output's size on the join axis would exceed 2^63 - 1"));
    CHECK_THAT(m, Catch::Contains("operand input 1, axis 0"));
    CHECK_THAT(m, Catch::Contains("input 0 [4611686018427387904,0] uint8"));
    // 2^62 + (2^62 - 1) is exactly the largest size
    const shape two[] = {{q, 0}, {q - 1, 0}};
    CHECK(join_rule(two, join_desc{0}).v.ok());
    CHECK(join_rule(two, join_desc{0}).out == shape{big, 0});
}

TEST_CASE("join: an output whose element count exceeds 2^63 - 1 breaks a rule", "[hostile]") {
    // (2^30 + 2^30) x 2^32 = 2^63 elements, from two inputs of 2^62 elements each
    const std::int64_t h = std::int64_t{1} << 30, w = std::int64_t{1} << 32;
    const shape shapes[] = {{h, w}, {h, w}};
    CHECK(join_rule(shapes, join_desc{0}).v.code == rule::join_output_count);
    const shape fits[] = {{h / 2, w}, {h / 2, w}};
    CHECK(join_rule(fits, join_desc{0}).v.ok());
}

TEST_CASE("split: sizes that add up beyond 2^63 - 1 break the sum rule", "[hostile]") {
    // (2^63 - 1) + (2^63 - 1) + 2 = 2^64 wrapped to the input's size 0 before
    const std::int64_t sizes[] = {big, big, 2};
    const shape outs[] = {{big, 0}, {big, 0}, {2, 0}};
    const verdict v = split_rule(shape{0, 0}, outs, split_desc{0});
    CHECK(v.code == rule::split_sizes_sum);
    CHECK(v.what == value_kind::sum_beyond);

    const any_cview in(nullptr, dtype::uint8, shape{0, 0});
    const std::string m = thrown([&] { (void)split(in, sizes, split_desc{0}); }, error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("split: the sizes must add up to the input's size on the axis"));
    CHECK_THAT(m, Catch::Contains("axis 0, sizes add up to more than 9223372036854775807"));
    CHECK_THAT(m, Catch::Contains("sizes [9223372036854775807,9223372036854775807,2]"));
    CHECK_THROWS_AS(split_views(in, sizes, split_desc{0}), error);
}

// ---- gather and gather-nd: output element counts beyond 64 bits ----

TEST_CASE("gather: an output of more than 2^63 - 1 elements breaks a rule", "[hostile]") {
    // input (2^32, 2^20) gathered on axis 1 by 2^32 indices: 2^64 output elements
    const std::int64_t a = std::int64_t{1} << 32, b = std::int64_t{1} << 20;
    const inferred r = gather_rule(shape{a, b}, shape{a}, gather_desc{1});
    CHECK(r.v.code == rule::gather_output_count);
    CHECK(gather_rule(shape{a, b}, shape{a / 2}, gather_desc{1}).v.code == rule::gather_output_count); // 2^63
    CHECK(gather_rule(shape{a, b}, shape{a / 4}, gather_desc{1}).v.ok());                              // 2^62

    // broadcast views (stride 0) make such operands without memory
    const float one = 1;
    const std::int64_t zero = 0;
    const any_cview in(&one, dtype::float32, shape{a, b}, {0, 0});
    const any_cview idx(&zero, dtype::int64, shape{a}, {0});
    const std::string m = thrown([&] { (void)gather(in, idx, gather_desc{1}); }, error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("gather: the output would have more than 2^63 - 1 elements"));
    CHECK_THAT(m, Catch::Contains("input [4294967296,1048576] float32, indices [4294967296] int64"));
}

TEST_CASE("gather-nd: an output of more than 2^63 - 1 elements breaks a rule", "[hostile]") {
    // indices (2^32, 1) into input (2, 2^32): output (2^32, 2^32)
    const std::int64_t a = std::int64_t{1} << 32;
    CHECK(gather_nd_rule(shape{2, a}, shape{a, 1}, gather_nd_desc{}).v.code == rule::gather_nd_output_count);
    CHECK(gather_nd_rule(shape{2, a}, shape{a / 4, 1}, gather_nd_desc{}).v.ok());
}

TEST_CASE("extents: sizes whose product exceeds 2^63 - 1 are refused", "[hostile]") {
    const std::int64_t q = std::int64_t{1} << 62;
    CHECK_THROWS_WITH(dextents<2>(q, 4), Catch::Contains("more than 2^63 - 1 elements"));
    CHECK_THROWS_WITH(dextents<2>(shape{q, 4}), Catch::Contains("more than 2^63 - 1 elements"));
    CHECK(dextents<2>(q, 1).extent(0) == q);
    CHECK(dextents<3>(q, 4, 0).extent(1) == 4); // an empty tensor counts no elements
    // C-order strides of an absurd shape do not overflow (the shape is refused where it is used)
    const auto st = c_strides(shape{2, q, 4});
    CHECK(st[2] == 1);
    CHECK(st[1] == 4);
}

// ---- indices of an empty output are still checked ----

TEST_CASE("gather: out-of-range indices are an error even when the output is empty", "[hostile]") {
    // NumPy: numpy.take(numpy.zeros((3, 0)), [5], axis=0) raises "index 5 is out of bounds for
    // axis 0 with size 3"; with [2] it returns an array of shape (1, 0)
    const any_cview in(nullptr, dtype::float32, shape{3, 0});
    const std::vector<std::int64_t> bad = {5}, good = {2}, neg = {-3}, neg_bad = {-4};
    const std::string m = thrown([&] { (void)gather(in, cview(bad, {1}), gather_desc{0}); }, error_code::index_out_of_range);
    CHECK_THAT(m, Catch::Contains("gather: index 5 at position [0] of the indices is out of range for axis 0 of size 3"));
    CHECK_THAT(m, Catch::Contains("input [3,0] float32"));
    CHECK(gather(in, cview(good, {1}), gather_desc{0}).sizes() == shape{1, 0});
    CHECK(gather(in, cview(neg, {1}), gather_desc{0}).sizes() == shape{1, 0});
    CHECK_THROWS_AS(gather(in, cview(neg_bad, {1}), gather_desc{0}), error);
    // under clamp nothing is read and nothing is wrong
    CHECK(gather(in, cview(bad, {1}), gather_desc{0, -1, index_policy::clamp}).sizes() == shape{1, 0});
    // the first bad index in C order is named, as for a non-empty output
    const std::vector<std::uint32_t> two = {1, 2, 7, 9};
    const std::string m2 = thrown([&] { (void)gather(in, cview(two, {2, 2}), gather_desc{0}); }, error_code::index_out_of_range);
    CHECK_THAT(m2, Catch::Contains("index 7 at position [1,0]"));
    // the DirectML form names positions in the meaningful dimensions of the indices
    const any_cview in3(nullptr, dtype::float32, shape{1, 3, 0});
    const std::string m3 = thrown([&] { (void)gather(in3, cview(two, {1, 1, 4}), gather_desc{1, 1}); }, error_code::index_out_of_range);
    CHECK_THAT(m3, Catch::Contains("index 7 at position [2]"));
}

TEST_CASE("gather: indices into an axis of size 0 break a rule even when the output is empty", "[hostile]") {
    // NumPy: numpy.take(numpy.zeros((0, 0)), [0], axis=0) raises (an index into an empty axis)
    const any_cview in(nullptr, dtype::float32, shape{0, 0});
    const std::vector<std::int64_t> idx = {0};
    for (const auto policy : {index_policy::error, index_policy::clamp}) {
        const std::string m = thrown([&] { (void)gather(in, cview(idx, {1}), gather_desc{0, -1, policy}); }, error_code::rule_violation);
        CHECK_THAT(m, Catch::Contains("gather: cannot gather from an axis of size 0"));
    }
    // no indices, no problem
    const std::vector<std::int64_t> none;
    CHECK(gather(in, cview(none, {0}), gather_desc{0}).sizes() == shape{0, 0});
}

TEST_CASE("gather-nd and scatter-nd: out-of-range tuples are an error even when nothing moves", "[hostile]") {
    // input (3, 0): a tuple [5] selects a row of no elements, but row 5 does not exist
    const any_cview in(nullptr, dtype::float32, shape{3, 0});
    const std::vector<std::int64_t> bad = {1, 5}, good = {1, 2};
    const std::string m = thrown([&] { (void)gather_nd(in, cview(bad, {2, 1}), gather_nd_desc{}); }, error_code::index_out_of_range);
    CHECK_THAT(m, Catch::Contains("gather-nd: index 5 at position [1,0] of the indices is out of range for axis 0 of size 3"));
    CHECK(gather_nd(in, cview(good, {2, 1}), gather_nd_desc{}).sizes() == shape{2, 0});

    const any_cview upd(nullptr, dtype::float32, shape{2, 0});
    const std::string m2 = thrown([&] { (void)scatter_nd(in, cview(bad, {2, 1}), upd, scatter_nd_desc{}); }, error_code::index_out_of_range);
    CHECK_THAT(m2, Catch::Contains("scatter-nd: index 5 at position [1,0] of the indices is out of range for axis 0 of size 3"));
    CHECK(scatter_nd(in, cview(good, {2, 1}), upd, scatter_nd_desc{}).sizes() == shape{3, 0});
    CHECK(scatter_nd(in, cview(bad, {2, 1}), upd, scatter_nd_desc{index_policy::clamp}).sizes() == shape{3, 0});
}

TEST_CASE("gather-elements and scatter: indices are checked whenever there are any", "[hostile]") {
    // their output (or updates) has the indices' shape, so indices exist only where elements
    // move; an empty axis elsewhere in the input is fine
    const any_cview in(nullptr, dtype::float32, shape{3, 0});
    const std::vector<std::int64_t> none;
    CHECK(gather_elements(in, cview(none, {1, 0}), gather_elements_desc{0}).sizes() == shape{1, 0});
    std::vector<float> x = {1, 2, 3};
    const std::vector<std::int64_t> bad = {5};
    const std::vector<float> u = {9};
    const std::string m = thrown([&] { (void)scatter(cview(x, {3, 1}), cview(bad, {1, 1}), cview(u, {1, 1}), scatter_desc{0}); },
                                 error_code::index_out_of_range);
    CHECK_THAT(m, Catch::Contains("scatter: index 5 at position [0,0]"));
    const std::string m2 = thrown([&] { (void)gather_elements(cview(x, {3, 1}), cview(bad, {1, 1}), gather_elements_desc{0}); },
                                  error_code::index_out_of_range);
    CHECK_THAT(m2, Catch::Contains("gather-elements: index 5 at position [0,0]"));
}

// ---- fill values that do not fit ----

TEST_CASE("pad: a finite fill value that overflows a floating type is refused", "[hostile]") {
    // IEEE round-to-nearest (NumPy agrees): float16(65519) = 65504, float16(65520) = inf,
    // float16(70000) = inf; float32 overflows from 2^128 - 2^103 on
    std::vector<float> x = {1};
    std::array<std::byte, 16> out{};
    CHECK_FALSE(detail::scalar_bytes(scalar(70000), dtype::float16, out.data()));
    CHECK_FALSE(detail::scalar_bytes(scalar(70000.0), dtype::float16, out.data()));
    CHECK_FALSE(detail::scalar_bytes(scalar(-65520.0), dtype::float16, out.data()));
    CHECK_FALSE(detail::scalar_bytes(scalar(std::uint64_t{1} << 40), dtype::float16, out.data()));
    REQUIRE(detail::scalar_bytes(scalar(65519.0), dtype::float16, out.data()));
    std::uint16_t bits;
    std::memcpy(&bits, out.data(), 2);
    CHECK(bits == 0x7bff); // 65504
    REQUIRE(detail::scalar_bytes(scalar(65504), dtype::float16, out.data()));
    std::memcpy(&bits, out.data(), 2);
    CHECK(bits == 0x7bff);

    const double edge = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    CHECK_FALSE(detail::scalar_bytes(scalar(edge), dtype::float32, out.data()));
    CHECK_FALSE(detail::scalar_bytes(scalar(-1e300), dtype::float32, out.data()));
    REQUIRE(detail::scalar_bytes(scalar(std::nextafter(edge, 0.0)), dtype::float32, out.data()));
    float f;
    std::memcpy(&f, out.data(), 4);
    CHECK(f == std::numeric_limits<float>::max());
    CHECK(detail::scalar_bytes(scalar(1e300), dtype::float64, out.data()));

    // through the operator: the rule's sentence, the value and the element type
    std::vector<float16> hx = {float16(1.0)};
    const std::string m = thrown([&] { (void)pad(cview(hx, {1}), pad_desc{pad_mode::constant, {1}, {0}, scalar(70000)}); },
                                 error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("pad: the constant value does not fit the element type (value 70000, element type float16)"));
    const std::string m2 = thrown([&] { (void)pad(cview(x, {1}), pad_desc{pad_mode::constant, {1}, {0}, scalar(1e300)}); },
                                  error_code::rule_violation);
    CHECK_THAT(m2, Catch::Contains("element type float32"));
}

TEST_CASE("pad: infinity and NaN given as such stay allowed", "[hostile]") {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<float> x = {1};
    const auto y = pad(cview(x, {1}), pad_desc{pad_mode::constant, {1}, {1}, scalar(-inf)});
    CHECK(y.as<float>()[0] == -std::numeric_limits<float>::infinity());
    CHECK(y.as<float>()[1] == 1);
    std::vector<float16> hx = {float16(1.0)};
    const auto z = pad(cview(hx, {1}), pad_desc{pad_mode::constant, {0}, {1}, parse_scalar("inf")});
    CHECK(z.as<float16>()[1].bits == 0x7c00);
    const auto n = pad(cview(x, {1}), pad_desc{pad_mode::constant, {0}, {1}, parse_scalar("nan")});
    CHECK(std::isnan(n.as<float>()[1]));
}

TEST_CASE("parse_scalar: integers stay exact, finite text beyond float64 is remembered", "[hostile]") {
    CHECK(parse_scalar("300").k == scalar::kind::signed_integer);
    CHECK(parse_scalar("-9223372036854775808").i == small);
    CHECK(parse_scalar("+7").i == 7);
    CHECK(parse_scalar("18446744073709551615").u == std::numeric_limits<std::uint64_t>::max());
    CHECK(parse_scalar("10.6").f == 10.6);
    CHECK(parse_scalar("-inf").f == -std::numeric_limits<double>::infinity());
    CHECK_FALSE(parse_scalar("-inf").beyond_double);
    CHECK(parse_scalar("1e-400").f == 0.0); // underflow is a tiny value, not an overflow
    const scalar s = parse_scalar("1e400");
    CHECK(s.beyond_double);
    CHECK(parse_scalar("-1e400").beyond_double);
    std::array<std::byte, 16> out{};
    for (const dtype t : all_dtypes) CHECK_FALSE(detail::scalar_bytes(s, t, out.data()));
    CHECK_THAT(s.to_string(), Catch::Contains("1.7976931348623157e+308"));
    CHECK_THROWS_AS(parse_scalar(""), error);
    CHECK_THROWS_AS(parse_scalar("12x"), error);
    CHECK_THROWS_AS(parse_scalar(" 1"), error);
    CHECK_THROWS_WITH(parse_scalar("99999999999999999999"), Catch::Contains("beyond 64-bit integers"));

    std::vector<float> x = {1};
    const std::string m = thrown([&] { (void)pad(cview(x, {1}), pad_desc{pad_mode::constant, {1}, {0}, s}); }, error_code::rule_violation);
    CHECK_THAT(m, Catch::Contains("pad: the constant value does not fit the element type"));
    CHECK_THAT(m, Catch::Contains("float32"));
}

// ---- views whose strides reach beyond 64-bit byte offsets ----

TEST_CASE("views: strides that reach beyond 64-bit byte offsets are refused", "[hostile]") {
    // 2 * 2^62 elements of 4 bytes = 2^65 bytes from the first element to the last
    std::vector<float> x = {1, 2, 3, 4};
    const std::int64_t q = std::int64_t{1} << 62;
    const any_cview wide(x.data(), dtype::float32, shape{3}, {q});
    const std::vector<std::int64_t> one = {1};
    std::vector<float> y(1);
    const any_view out(y.data(), dtype::float32, shape{1});
    const std::string m = thrown([&] { gather(wide, cview(one, {1}), out, gather_desc{0}); }, error_code::bad_view);
    CHECK_THAT(m, Catch::Contains("gather: the input view [3] with strides [4611686018427387904]"));
    CHECK_THAT(m, Catch::Contains("beyond 64-bit byte offsets"));
    // the same through a typed view
    const tensor_view<const float, extents<3>> typed(x.data(), {}, {q});
    CHECK_THROWS_AS(gather<gather_desc{0}>(typed, tensor_view<const std::int64_t, extents<1>>(one.data()), tensor_view<float, extents<1>>(y.data())),
                    error);
    // a size-1 dimension reaches nothing with its stride, but stride times element size must
    // still be a byte offset
    const any_cview lone(x.data(), dtype::float32, shape{1}, {q});
    CHECK_THROWS_WITH(gather(lone, cview(std::vector<std::int64_t>{0}, {1}), out, gather_desc{0}), Catch::Contains("beyond 64-bit byte offsets"));
    const any_cview lowest(x.data(), dtype::float32, shape{1}, {small});
    CHECK_THROWS_AS(pad(lowest, out, pad_desc{pad_mode::constant, {0}, {0}}), error);
    // an output: its overlap test must not overflow either
    const any_view wide_out(y.data(), dtype::float32, shape{2, 2}, {q, 1});
    CHECK_THROWS_WITH(pad(cview(x, {2, 2}), wide_out, pad_desc{pad_mode::constant, {0, 0}, {0, 0}}),
                      Catch::Contains("pad: the output view [2,2] with strides [4611686018427387904,1]"));
    // a view that fits exactly is still fine: 2^61 - 1 bytes of stride 2^59 elements of 4 bytes
    const any_cview fits(x.data(), dtype::float32, shape{2}, {std::int64_t{1} << 59});
    CHECK_NOTHROW(detail::check_view("gather", "input", fits, false));
}

TEST_CASE("views: element counts whose bytes exceed 2^63 - 1 are refused", "[hostile]") {
    // 2^61 float64 elements broadcast from one: 2^64 bytes of output if it were written
    const double one = 1;
    const any_cview b(&one, dtype::float64, shape{std::int64_t{1} << 61}, {0});
    CHECK_THROWS_WITH(detail::check_view("pad", "input", b, false), Catch::Contains("pad: the input view [2305843009213693952]"));
    const any_cview fits(&one, dtype::float64, shape{std::int64_t{1} << 59}, {0});
    CHECK_NOTHROW(detail::check_view("pad", "input", fits, false));
}
