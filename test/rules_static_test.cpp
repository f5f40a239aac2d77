// The operator rules as constant expressions: inferred static extents, the verdicts of the rule
// functions for every broken rule, and the same rules enforced at run time (dynamic extents and
// dtype-erased views), whose messages carry the rule's sentence, the operand, the axis and the
// shapes.

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <strix/strix.hpp>

namespace {

using strix::dextents;
using strix::dtype;
using strix::dynamic_extent;
using strix::extents;
using strix::gather_desc;
using strix::gather_rule;
using strix::host_tensor;
using strix::join_desc;
using strix::pad_desc;
using strix::pad_mode;
using strix::pad_rule;
using strix::rule;
using strix::scatter_desc;
using strix::scatter_rule;
using strix::shape;
using strix::tensor_view;
using strix::value_kind;
using strix::verdict;

template <class A, class B>
constexpr bool same_type = std::is_same_v<std::remove_cvref_t<A>, B>;

/// The output extents type of a gather, join, pad or scatter of static extents.
template <gather_desc D, class In, class Idx>
using gathered = std::remove_cvref_t<decltype(strix::gather_extents<D>(In{}, Idx{}))>;
template <join_desc D, class... In>
using joined = std::remove_cvref_t<decltype(strix::join_extents<D>(In{}...))>;
template <pad_desc D, class In>
using padded = std::remove_cvref_t<decltype(strix::pad_extents<D>(In{}))>;
template <scatter_desc D, class In, class Idx, class Upd>
using scattered = std::remove_cvref_t<decltype(strix::scatter_extents<D>(In{}, Idx{}, Upd{}))>;

/// True when `v` says rule `code` broke at `operand` and `axis`.
constexpr bool broke(const verdict& v, rule code, int operand, int axis) {
    return v.code == code && v.operand == operand && v.axis == axis;
}
/// ... and reports `value` as a `what`.
constexpr bool broke(const verdict& v, rule code, int operand, int axis, std::int64_t value, value_kind what) {
    return broke(v, code, operand, axis) && v.value == value && v.what == what;
}

/// join_rule over a braced list of shapes.
template <std::size_t N>
constexpr strix::inferred join_of(const shape (&shapes)[N], const join_desc& d) {
    return strix::join_rule(std::span<const shape>(shapes, N), d);
}

/// What the run-time check prints first: "strix::" and the rule's sentence, as static_assert does.
std::string sentence(rule r) { return "strix::" + std::string(strix::rule_text(r)); }

/// The message of the strix::error that `f` throws (a failed check when it throws none).
template <class F>
std::string message_of(F&& f) {
    try {
        std::forward<F>(f)();
    } catch (const strix::error& e) {
        CHECK(e.code() == strix::error_code::rule_violation);
        return e.what();
    }
    FAIL_CHECK("no strix::error was thrown");
    return {};
}

/// The message starts with the sentence of `r` and contains every one of `parts`.
void check_message(const std::string& message, rule r, std::initializer_list<std::string_view> parts) {
    INFO("message: " << message);
    CHECK_THAT(message, Catch::Matchers::StartsWith(sentence(r)));
    for (const auto part : parts) CHECK_THAT(message, Catch::Matchers::Contains(std::string(part)));
}

/// Zeroed host tensors (zero is a valid index on every non-empty axis).
host_tensor t(dtype type, const shape& s) { return host_tensor(type, s); }

} // namespace

// ---------------------------------------------------------------------------------------------
// gather

TEST_CASE("gather: static extents of the natural form", "[rules]") {
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 1}, extents<2, 3, 4>, extents<5>>, extents<2, 5, 4>>);
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 0}, extents<2, 3, 4>, extents<5>>, extents<5, 3, 4>>);
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 2}, extents<2, 3, 4>, extents<5>>, extents<2, 3, 5>>);
    // negative axes count from the end
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = -1}, extents<2, 3, 4>, extents<5>>, extents<2, 3, 5>>);
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = -3}, extents<2, 3, 4>, extents<5>>, extents<5, 3, 4>>);
    // the indices' whole shape replaces the axis
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 1}, extents<2, 3, 4>, extents<6, 7>>, extents<2, 6, 7, 4>>);
    // scalar indices drop the axis
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 1}, extents<2, 3, 4>, extents<>>, extents<2, 4>>);
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 0}, extents<3>, extents<>>, extents<>>);
    // empty indices and an empty input off the axis
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 0}, extents<3, 0>, extents<0>>, extents<0, 0>>);
    // rank 8 is the most an output may have
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 3}, extents<2, 1, 1, 3>, extents<1, 1, 1, 1, 4>>,
                                  extents<2, 1, 1, 1, 1, 1, 1, 4>>);

    constexpr auto e = strix::gather_extents<gather_desc{.axis = -2}>(extents<2, 3, 4>{}, extents<6, 7>{});
    STATIC_REQUIRE(e.is_static);
    STATIC_REQUIRE(e.rank == 4);
    STATIC_REQUIRE(e.to_shape() == shape{2, 6, 7, 4});
    STATIC_REQUIRE(e.extent(1) == 6);

    constexpr auto r = gather_rule(shape{2, 3, 4}, shape{6, 7}, gather_desc{.axis = 1});
    STATIC_REQUIRE(r.v.ok());
    STATIC_REQUIRE(r.out == shape{2, 6, 7, 4});
}

TEST_CASE("gather: static extents of the DirectML form (IndexDimensions)", "[rules]") {
    constexpr gather_desc a{.axis = 2, .index_dimensions = 2};
    constexpr gather_desc b{.axis = 1, .index_dimensions = 2};
    constexpr gather_desc c{.axis = 0, .index_dimensions = 1};
    constexpr gather_desc d{.axis = 1, .index_dimensions = 1};
    // the seed examples
    STATIC_REQUIRE(std::is_same_v<gathered<a, extents<1, 3, 3>, extents<1, 1, 2>>, extents<3, 1, 2>>);
    STATIC_REQUIRE(std::is_same_v<gathered<b, extents<1, 3, 2>, extents<1, 2, 2>>, extents<2, 2, 2>>);
    STATIC_REQUIRE(std::is_same_v<gathered<c, extents<3, 2>, extents<1, 4>>, extents<4, 2>>);
    STATIC_REQUIRE(std::is_same_v<gathered<d, extents<3, 2>, extents<1, 2>>, extents<3, 2>>);
    STATIC_REQUIRE(gather_rule(shape{1, 3, 3}, shape{1, 1, 2}, a).out == shape{3, 1, 2});
    STATIC_REQUIRE(gather_rule(shape{1, 3, 2}, shape{1, 2, 2}, b).out == shape{2, 2, 2});
    STATIC_REQUIRE(gather_rule(shape{3, 2}, shape{1, 4}, c).out == shape{4, 2});
    STATIC_REQUIRE(gather_rule(shape{3, 2}, shape{1, 2}, d).out == shape{3, 2});
    // negative axes, as the same gathers
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = -1, .index_dimensions = 2}, extents<1, 3, 3>, extents<1, 1, 2>>,
                                  extents<3, 1, 2>>);
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = -2, .index_dimensions = 1}, extents<3, 2>, extents<1, 4>>, extents<4, 2>>);
    // K = 1 keeps the rank and replaces the axis by the last index dimension
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 1, .index_dimensions = 1}, extents<2, 3, 4>, extents<1, 1, 5>>,
                                  extents<2, 5, 4>>);
    // K = 0: a single index; the axis disappears and a leading 1 keeps the rank
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 1, .index_dimensions = 0}, extents<2, 3>, extents<1, 1>>, extents<1, 2>>);
    // K = rank with enough leading 1s in the input
    STATIC_REQUIRE(std::is_same_v<gathered<gather_desc{.axis = 2, .index_dimensions = 3}, extents<1, 1, 5>, extents<2, 3, 4>>,
                                  extents<2, 3, 4>>);
}

TEST_CASE("gather: static inputs give fully static extents, dynamic inputs dextents", "[rules]") {
    using static_out = decltype(strix::gather_extents<gather_desc{.axis = 1}>(extents<2, 3>{}, extents<4>{}));
    STATIC_REQUIRE(same_type<static_out, extents<2, 4>>);
    STATIC_REQUIRE(std::remove_cvref_t<static_out>::is_static);

    // one dynamic operand makes every output dimension dynamic; the rank stays static
    const auto e1 = strix::gather_extents<gather_desc{.axis = 1}>(dextents<2>(2, 3), extents<4>{});
    STATIC_REQUIRE(same_type<decltype(e1), dextents<2>>);
    REQUIRE(e1.to_shape() == shape{2, 4});

    const auto e2 = strix::gather_extents<gather_desc{.axis = 0}>(extents<2, 3>{}, extents<dynamic_extent, 5>(4));
    STATIC_REQUIRE(same_type<decltype(e2), dextents<3>>);
    REQUIRE(e2.to_shape() == shape{4, 5, 3});
    REQUIRE(e2 == extents<4, 5, 3>{});

    const auto e3 = strix::gather_extents<gather_desc{.axis = -1}>(extents<2, dynamic_extent>(3), extents<>{});
    STATIC_REQUIRE(same_type<decltype(e3), dextents<1>>);
    REQUIRE(e3.extent(0) == 2);

    // DirectML form: the input's rank
    const auto s1 = strix::gather_extents<gather_desc{.axis = 2, .index_dimensions = 2}>(dextents<3>(1, 3, 3), extents<1, 1, 2>{});
    STATIC_REQUIRE(same_type<decltype(s1), dextents<3>>);
    REQUIRE(s1.to_shape() == shape{3, 1, 2});
    const auto s2 = strix::gather_extents<gather_desc{.axis = 1, .index_dimensions = 2}>(extents<1, 3, 2>{}, dextents<3>(1, 2, 2));
    REQUIRE(s2.to_shape() == shape{2, 2, 2});
    const auto s3 = strix::gather_extents<gather_desc{.axis = 0, .index_dimensions = 1}>(dextents<2>(3, 2), dextents<2>(1, 4));
    STATIC_REQUIRE(same_type<decltype(s3), dextents<2>>);
    REQUIRE(s3.to_shape() == shape{4, 2});
    const auto s4 = strix::gather_extents<gather_desc{.axis = 1, .index_dimensions = 1}>(dextents<2>(3, 2), dextents<2>(1, 2));
    REQUIRE(s4.to_shape() == shape{3, 2});
}

TEST_CASE("gather: verdicts of broken rules in constant expressions", "[rules]") {
    STATIC_REQUIRE(broke(gather_rule(shape{}, shape{2}, gather_desc{}).v, rule::gather_input_rank, 0, -1));
    STATIC_REQUIRE(broke(gather_rule(shape{2, 3}, shape{4}, gather_desc{.axis = 2}).v, rule::gather_axis_range, 0, -1, 2,
                         value_kind::given_axis));
    STATIC_REQUIRE(broke(gather_rule(shape{2, 3}, shape{4}, gather_desc{.axis = -3}).v, rule::gather_axis_range, 0, -1, -3,
                         value_kind::given_axis));
    STATIC_REQUIRE(broke(gather_rule(shape{2, 1, 1, 1, 1}, shape{1, 1, 1, 1, 3}, gather_desc{}).v, rule::gather_output_rank, 1, 0, 9,
                         value_kind::rank));
    constexpr gather_desc k2{.axis = 2, .index_dimensions = 2};
    STATIC_REQUIRE(broke(gather_rule(shape{1, 3, 3}, shape{1, 2}, k2).v, rule::gather_k_same_rank, 1, -1, 2, value_kind::rank));
    STATIC_REQUIRE(broke(gather_rule(shape{1, 3, 3}, shape{2, 1, 2}, k2).v, rule::gather_k_leading_ones, 1, 0, 2, value_kind::size));
    // K = rank: no leading index dimensions to check, but the input needs K - 1 leading 1s
    STATIC_REQUIRE(broke(gather_rule(shape{1, 3, 3}, shape{1, 1, 2}, gather_desc{.axis = 2, .index_dimensions = 3}).v,
                         rule::gather_k_original_rank, 0, -1, 3, value_kind::index_dimensions));
    STATIC_REQUIRE(broke(gather_rule(shape{3, 3, 3}, shape{1, 1, 2}, k2).v, rule::gather_k_original_rank, 0, -1, 2,
                         value_kind::index_dimensions));
    STATIC_REQUIRE(broke(gather_rule(shape{3, 2}, shape{1, 2}, gather_desc{.axis = 1, .index_dimensions = 3}).v, rule::gather_k_range, 1,
                         -1, 3, value_kind::index_dimensions));
    STATIC_REQUIRE(broke(gather_rule(shape{1, 3, 3}, shape{1, 1, 2}, gather_desc{.axis = 0, .index_dimensions = 2}).v, rule::gather_k_crop,
                         0, 0, 2, value_kind::index_dimensions));
    // the element-type rules
    STATIC_REQUIRE(broke(strix::gather_type_rule(dtype::float32, dtype::float32, dtype::float32), rule::gather_index_type, 1, -1));
    STATIC_REQUIRE(broke(strix::gather_type_rule(dtype::float32, dtype::int16, dtype::float32), rule::gather_index_type, 1, -1));
    STATIC_REQUIRE(broke(strix::gather_type_rule(dtype::float32, dtype::int64, dtype::float64), rule::gather_dtype, 2, -1));
    for (const dtype i : strix::index_dtypes) CHECK(strix::gather_type_rule(dtype::uint8, i, dtype::uint8).ok());
}

TEST_CASE("gather: the same rules at run time name the operand, the axis and the shapes", "[rules]") {
    SECTION("axis out of range, dynamic extents") {
        constexpr verdict v = gather_rule(shape{2, 3}, shape{4}, gather_desc{.axis = 2}).v;
        STATIC_REQUIRE(v.code == rule::gather_axis_range);
        const auto m = message_of([] { (void)strix::gather_extents<gather_desc{.axis = 2}>(dextents<2>(2, 3), dextents<1>(4)); });
        check_message(m, v.code, {"operand input", "axis given as 2", "input [2,3]", "indices [4]"});
    }
    SECTION("axis out of range, erased views") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int64, {4}), out = t(dtype::float32, {2, 4});
        const auto m = message_of([&] { strix::gather(in.view(), idx.view(), out.view(), gather_desc{.axis = -3}); });
        check_message(m, rule::gather_axis_range, {"operand input", "axis given as -3", "input [2,3] float32", "indices [4] int64", "output [2,4] float32"});
    }
    SECTION("scalar input") {
        auto in = t(dtype::float32, {}), idx = t(dtype::int64, {4});
        const auto m = message_of([&] { (void)strix::gather(in.view(), idx.view()); });
        check_message(m, rule::gather_input_rank, {"operand input", "input [] float32"});
    }
    SECTION("output rank over 8") {
        constexpr verdict v = gather_rule(shape{2, 1, 1, 1, 1}, shape{1, 1, 1, 1, 3}, gather_desc{}).v;
        auto in = t(dtype::float32, {2, 1, 1, 1, 1}), idx = t(dtype::int32, {1, 1, 1, 1, 3});
        const auto m = message_of([&] { (void)strix::gather(in.view(), idx.view()); });
        check_message(m, v.code, {"operand indices", "axis 0", "rank 9", "input [2,1,1,1,1]", "indices [1,1,1,1,3] int32"});
    }
    SECTION("IndexDimensions: the indices' rank") {
        static constexpr gather_desc d{.axis = 2, .index_dimensions = 2};
        const auto m = message_of([] { (void)strix::gather_extents<d>(dextents<3>(1, 3, 3), dextents<2>(1, 2)); });
        check_message(m, rule::gather_k_same_rank, {"operand indices", "rank 2", "input [1,3,3]", "indices [1,2]"});
    }
    SECTION("IndexDimensions: leading ones of the indices") {
        static constexpr gather_desc d{.axis = 2, .index_dimensions = 2};
        STATIC_REQUIRE(gather_rule(shape{1, 3, 3}, shape{2, 1, 2}, d).v.code == rule::gather_k_leading_ones);
        auto in = t(dtype::float32, {1, 3, 3}), idx = t(dtype::int64, {2, 1, 2}), out = t(dtype::float32, {3, 1, 2});
        const auto m = message_of([&] { strix::gather(in.view(), idx.view(), out.view(), d); });
        check_message(m, rule::gather_k_leading_ones, {"operand indices", "axis 0", "size 2", "input [1,3,3] float32", "indices [2,1,2] int64"});
    }
    SECTION("IndexDimensions: original rank") {
        static constexpr gather_desc d{.axis = 2, .index_dimensions = 2};
        const auto m = message_of([] { (void)strix::gather_extents<d>(dextents<3>(3, 3, 3), extents<1, 1, 2>{}); });
        check_message(m, rule::gather_k_original_rank, {"operand input", "IndexDimensions 2", "input [3,3,3]", "indices [1,1,2]"});
    }
    SECTION("IndexDimensions: range") {
        static constexpr gather_desc d{.axis = 1, .index_dimensions = 3};
        const auto m = message_of([] { (void)strix::gather_extents<d>(dextents<2>(3, 2), dextents<2>(1, 2)); });
        check_message(m, rule::gather_k_range, {"operand indices", "IndexDimensions 3", "input [3,2]", "indices [1,2]"});
    }
    SECTION("IndexDimensions: crop") {
        static constexpr gather_desc d{.axis = 0, .index_dimensions = 2};
        const auto m = message_of([] { (void)strix::gather_extents<d>(dextents<3>(1, 3, 3), dextents<3>(1, 1, 2)); });
        check_message(m, rule::gather_k_crop, {"operand input", "axis 0", "input [1,3,3]", "indices [1,1,2]"});
    }
    SECTION("float indices") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::float32, {4}), out = t(dtype::float32, {2, 4});
        const auto m = message_of([&] { strix::gather(in.view(), idx.view(), out.view(), gather_desc{.axis = 1}); });
        check_message(m, rule::gather_index_type, {"operand indices", "indices [4] float32"});
    }
    SECTION("output element type") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::uint64, {4}), out = t(dtype::float64, {2, 4});
        const auto m = message_of([&] { strix::gather(in.view(), idx.view(), out.view(), gather_desc{.axis = 1}); });
        check_message(m, rule::gather_dtype, {"operand output", "input [2,3] float32", "output [2,4] float64"});
    }
    SECTION("output shape") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int64, {4}), out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::gather(in.view(), idx.view(), out.view(), gather_desc{.axis = 1}); });
        check_message(m, rule::gather_output_shape, {"operand output", "input [2,3]", "indices [4]", "output [2,3]"});
    }
    SECTION("output shape, typed views with dynamic extents") {
        std::vector<float> in(6), out(6);
        std::vector<std::int64_t> idx(4);
        const tensor_view<const float, dextents<2>> input(in.data(), dextents<2>(2, 3));
        const tensor_view<const std::int64_t, dextents<1>> indices(idx.data(), dextents<1>(4));
        const tensor_view<float, dextents<2>> output(out.data(), dextents<2>(2, 3));
        const auto m = message_of([&] { strix::gather<gather_desc{.axis = 1}>(input, indices, output); });
        check_message(m, rule::gather_output_shape, {"operand output", "input [2,3] float32", "indices [4] int64", "output [2,3] float32"});
    }
    SECTION("empty axis") {
        auto in = t(dtype::float32, {0, 3}), idx = t(dtype::int64, {2}), out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::gather(in.view(), idx.view(), out.view(), gather_desc{.axis = 0}); });
        check_message(m, rule::gather_empty_axis, {"axis 0", "input [0,3]", "indices [2]"});
    }
}

// ---------------------------------------------------------------------------------------------
// join

TEST_CASE("join: static extents", "[rules]") {
    STATIC_REQUIRE(std::is_same_v<joined<join_desc{.axis = 0}, extents<2, 3>, extents<4, 3>>, extents<6, 3>>);
    STATIC_REQUIRE(std::is_same_v<joined<join_desc{.axis = 1}, extents<2, 3>, extents<2, 4>, extents<2, 0>>, extents<2, 7>>);
    STATIC_REQUIRE(std::is_same_v<joined<join_desc{.axis = -1}, extents<2, 3>, extents<2, 4>>, extents<2, 7>>);
    STATIC_REQUIRE(std::is_same_v<joined<join_desc{.axis = -2}, extents<2, 3>, extents<4, 3>>, extents<6, 3>>);
    STATIC_REQUIRE(std::is_same_v<joined<join_desc{.axis = 0}, extents<5>>, extents<5>>);
    STATIC_REQUIRE(joined<join_desc{.axis = 0}, extents<5>>::is_static);
    STATIC_REQUIRE(join_of({shape{1, 2, 3}, shape{1, 2, 4}, shape{1, 2, 5}}, join_desc{.axis = 2}).out == shape{1, 2, 12});

    const auto e = strix::join_extents<join_desc{.axis = 1}>(dextents<2>(2, 3), extents<2, 4>{});
    STATIC_REQUIRE(same_type<decltype(e), dextents<2>>);
    REQUIRE(e.to_shape() == shape{2, 7});
    const auto e1 = strix::join_extents<join_desc{.axis = -3}>(dextents<3>(1, 2, 3), dextents<3>(4, 2, 3), extents<0, 2, 3>{});
    STATIC_REQUIRE(same_type<decltype(e1), dextents<3>>);
    REQUIRE(e1.to_shape() == shape{5, 2, 3});
}

TEST_CASE("join: verdicts of broken rules in constant expressions", "[rules]") {
    STATIC_REQUIRE(broke(strix::join_rule(std::span<const shape>{}, join_desc{}).v, rule::join_no_inputs, -1, -1));
    STATIC_REQUIRE(broke(join_of({shape{2, 3}, shape{2, 3}}, join_desc{.axis = 2}).v, rule::join_axis_range, 0, -1, 2, value_kind::given_axis));
    STATIC_REQUIRE(broke(join_of({shape{2, 3}}, join_desc{.axis = -3}).v, rule::join_axis_range, 0, -1, -3, value_kind::given_axis));
    STATIC_REQUIRE(broke(join_of({shape{}, shape{}}, join_desc{.axis = 0}).v, rule::join_axis_range, 0, -1, 0, value_kind::given_axis));
    STATIC_REQUIRE(broke(join_of({shape{2, 3}, shape{1, 2, 3}}, join_desc{.axis = 0}).v, rule::join_rank, 1, -1, 3, value_kind::rank));
    STATIC_REQUIRE(broke(join_of({shape{2, 3}, shape{2, 3}, shape{4, 3}}, join_desc{.axis = 1}).v, rule::join_off_axis, 2, 0, 4,
                         value_kind::size));
    STATIC_REQUIRE(broke(join_of({shape{2, 3, 4}, shape{2, 9, 5}}, join_desc{.axis = 1}).v, rule::join_off_axis, 1, 2, 5, value_kind::size));
}

TEST_CASE("join: the same rules at run time name the operand, the axis and the shapes", "[rules]") {
    SECTION("off the axis, dynamic extents") {
        constexpr verdict v = join_of({shape{2, 3}, shape{4, 3}}, join_desc{.axis = 1}).v;
        STATIC_REQUIRE(v.code == rule::join_off_axis);
        const auto m = message_of([] { (void)strix::join_extents<join_desc{.axis = 1}>(dextents<2>(2, 3), dextents<2>(4, 3)); });
        check_message(m, v.code, {"operand input", "axis 0", "size 4", "[2,3]", "[4,3]"});
    }
    SECTION("off the axis, erased views name the input") {
        auto a = t(dtype::int16, {2, 3}), b = t(dtype::int16, {2, 3}), c = t(dtype::int16, {4, 3}), out = t(dtype::int16, {2, 9});
        const strix::any_cview ins[] = {a.view(), b.view(), c.view()};
        const auto m = message_of([&] { strix::join(ins, out.view(), join_desc{.axis = 1}); });
        check_message(m, rule::join_off_axis, {"operand input 2", "axis 0", "size 4", "input 0 [2,3] int16", "input 2 [4,3] int16", "output [2,9]"});
    }
    SECTION("axis out of range") {
        const auto m = message_of([] { (void)strix::join_extents<join_desc{.axis = 2}>(dextents<2>(2, 3), extents<2, 3>{}); });
        check_message(m, rule::join_axis_range, {"operand input", "axis given as 2", "[2,3]"});
    }
    SECTION("rank") {
        auto a = t(dtype::float32, {2, 3}), b = t(dtype::float32, {1, 2, 3});
        const strix::any_cview ins[] = {a.view(), b.view()};
        const auto m = message_of([&] { (void)strix::join(ins, join_desc{.axis = 0}); });
        check_message(m, rule::join_rank, {"operand input 1", "rank 3", "input 0 [2,3]", "input 1 [1,2,3]"});
    }
    SECTION("no inputs") {
        auto out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::join(std::span<const strix::any_cview>{}, out.view(), join_desc{}); });
        check_message(m, rule::join_no_inputs, {"output [2,3]"});
    }
    SECTION("element types") {
        auto a = t(dtype::float32, {2, 3}), b = t(dtype::int32, {2, 4}), out = t(dtype::float32, {2, 7});
        const strix::any_cview ins[] = {a.view(), b.view()};
        const auto m = message_of([&] { strix::join(ins, out.view(), join_desc{.axis = 1}); });
        check_message(m, rule::join_dtype, {"operand input 1", "input 1 [2,4] int32"});
    }
    SECTION("output shape") {
        auto a = t(dtype::float32, {2, 3}), b = t(dtype::float32, {2, 4}), out = t(dtype::float32, {2, 6});
        const strix::any_cview ins[] = {a.view(), b.view()};
        const auto m = message_of([&] { strix::join(ins, out.view(), join_desc{.axis = -1}); });
        check_message(m, rule::join_output_shape, {"operand output", "input 0 [2,3]", "input 1 [2,4]", "output [2,6]"});
    }
    SECTION("output shape, typed views with dynamic extents") {
        std::vector<float> a(6), b(8), out(12);
        const tensor_view<const float, dextents<2>> first(a.data(), dextents<2>(2, 3));
        const tensor_view<const float, extents<2, 4>> second(b.data());
        const tensor_view<float, dextents<2>> output(out.data(), dextents<2>(2, 6));
        const auto m = message_of([&] { strix::join<join_desc{.axis = 1}>(output, first, second); });
        check_message(m, rule::join_output_shape, {"operand output", "output [2,6]"});
    }
}

// ---------------------------------------------------------------------------------------------
// pad

TEST_CASE("pad: static extents", "[rules]") {
    STATIC_REQUIRE(std::is_same_v<padded<pad_desc{.start = {1, 0}, .end = {0, 2}}, extents<2, 3>>, extents<3, 5>>);
    STATIC_REQUIRE(std::is_same_v<padded<pad_desc{.start = {0, 0}, .end = {0, 0}}, extents<2, 3>>, extents<2, 3>>);
    STATIC_REQUIRE(std::is_same_v<padded<pad_desc{.mode = pad_mode::reflect, .start = {5}, .end = {7}}, extents<2>>, extents<14>>);
    STATIC_REQUIRE(std::is_same_v<padded<pad_desc{.mode = pad_mode::symmetric, .start = {1, 0}, .end = {1, 0}}, extents<2, 0>>,
                                  extents<4, 0>>);
    STATIC_REQUIRE(std::is_same_v<padded<pad_desc{.start = {0, 2}, .end = {0, 1}}, extents<2, 0>>, extents<2, 3>>); // constant mode
    STATIC_REQUIRE(std::is_same_v<padded<pad_desc{}, extents<>>, extents<>>);
    STATIC_REQUIRE(pad_rule(shape{2, 3, 4}, pad_desc{.start = {1, 2, 3}, .end = {3, 2, 1}}).out == shape{6, 7, 8});

    const auto e = strix::pad_extents<pad_desc{.start = {1, 0}, .end = {0, 2}}>(dextents<2>(2, 3));
    STATIC_REQUIRE(same_type<decltype(e), dextents<2>>);
    REQUIRE(e.to_shape() == shape{3, 5});
    const auto e1 = strix::pad_extents<pad_desc{.start = {1, 1, 1}, .end = {0, 0, 0}}>(extents<dynamic_extent, 2, 2>(5));
    STATIC_REQUIRE(same_type<decltype(e1), dextents<3>>);
    REQUIRE(e1.to_shape() == shape{6, 3, 3});
}

TEST_CASE("pad: verdicts of broken rules in constant expressions", "[rules]") {
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.start = {1, 1, 1}, .end = {0, 0}}).v, rule::pad_count, 0, -1, 3,
                         value_kind::start_count));
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.start = {1, 1}, .end = {0}}).v, rule::pad_count, 0, -1, 1, value_kind::end_count));
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.start = {1, -2}, .end = {0, -2}}).v, rule::pad_crop, 0, 1, -2, value_kind::pad));
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.start = {-3, 0}, .end = {0, 0}}).v, rule::pad_crop, 0, 0, -3, value_kind::pad));
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.start = {0, 0}, .end = {-1, -4}}).v, rule::pad_crop, 0, 1, -4, value_kind::pad));
    // negative pads crop: [2,3] with start {1,-1}, end {0,-1} is [3,1]; cropping everything is allowed
    STATIC_REQUIRE(pad_rule(shape{2, 3}, pad_desc{.start = {1, -1}, .end = {0, -1}}).out == shape{3, 1});
    STATIC_REQUIRE(pad_rule(shape{2, 3}, pad_desc{.start = {-1, -3}, .end = {-1, 0}}).out == shape{0, 0});
    // folding modes need an element left after the crop when they pad
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.mode = pad_mode::wrap, .start = {0, -3}, .end = {0, 1}}).v, rule::pad_empty_source,
                         0, 1));
    STATIC_REQUIRE(pad_rule(shape{2, 3}, pad_desc{.mode = pad_mode::wrap, .start = {0, -2}, .end = {0, 5}}).out == shape{2, 6});
    STATIC_REQUIRE(broke(pad_rule(shape{2, 0}, pad_desc{.mode = pad_mode::reflect, .start = {0, 1}, .end = {0, 1}}).v,
                         rule::pad_empty_source, 0, 1));
    STATIC_REQUIRE(broke(pad_rule(shape{0, 2}, pad_desc{.mode = pad_mode::edge, .start = {0, 0}, .end = {1, 0}}).v, rule::pad_empty_source,
                         0, 0));
    STATIC_REQUIRE(broke(pad_rule(shape{2, 0}, pad_desc{.mode = pad_mode::symmetric, .start = {0, 1}, .end = {0, 0}}).v,
                         rule::pad_empty_source, 0, 1));
    STATIC_REQUIRE(pad_rule(shape{2, 0}, pad_desc{.mode = pad_mode::constant, .start = {0, 1}, .end = {0, 1}}).v.ok());
}

TEST_CASE("pad: the same rules at run time name the operand, the axis and the shapes", "[rules]") {
    SECTION("crop beyond the axis, dynamic extents") {
        static constexpr pad_desc d{.start = {1, -2}, .end = {0, -2}};
        constexpr verdict v = pad_rule(shape{2, 3}, d).v;
        STATIC_REQUIRE(v.code == rule::pad_crop);
        const auto m = message_of([] { (void)strix::pad_extents<d>(dextents<2>(2, 3)); });
        check_message(m, v.code, {"operand input", "axis 1", "pad -2", "input [2,3]"});
    }
    SECTION("crop beyond the axis, erased views") {
        auto in = t(dtype::uint8, {2, 3}), out = t(dtype::uint8, {3, 2});
        const auto m = message_of([&] { strix::pad(in.view(), out.view(), pad_desc{.start = {1, 0}, .end = {0, -4}}); });
        check_message(m, rule::pad_crop, {"operand input", "axis 1", "pad -4", "input [2,3] uint8", "output [3,2] uint8",
                                          "start [1,0]", "end [0,-4]"});
    }
    SECTION("counts") {
        auto in = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { (void)strix::pad(in.view(), pad_desc{.start = {1, 1, 1}, .end = {0, 0}}); });
        check_message(m, rule::pad_count, {"operand input", "start count 3", "input [2,3]", "start [1,1,1]", "end [0,0]"});
        const auto m2 = message_of([] { (void)strix::pad_extents<pad_desc{.start = {1, 1}, .end = {0}}>(dextents<2>(2, 3)); });
        check_message(m2, rule::pad_count, {"operand input", "end count 1", "input [2,3]"});
    }
    SECTION("reflect on an empty dimension") {
        static constexpr pad_desc d{.mode = pad_mode::reflect, .start = {0, 1}, .end = {0, 1}};
        const auto m = message_of([] { (void)strix::pad_extents<d>(extents<2, dynamic_extent>(0)); });
        check_message(m, rule::pad_empty_source, {"operand input", "axis 1", "input [2,0]"});
    }
    SECTION("constant out of the element type's range") {
        auto in = t(dtype::uint8, {2}), out = t(dtype::uint8, {4});
        const auto m = message_of([&] { strix::pad(in.view(), out.view(), pad_desc{.start = {1}, .end = {1}, .value = 300}); });
        check_message(m, rule::pad_value_range, {"value 300", "uint8"});
    }
    SECTION("output element type") {
        auto in = t(dtype::uint8, {2, 3}), out = t(dtype::int8, {4, 5});
        const auto m = message_of([&] { strix::pad(in.view(), out.view(), pad_desc{.start = {1, 1}, .end = {1, 1}}); });
        check_message(m, rule::pad_dtype, {"operand output", "input [2,3] uint8", "output [4,5] int8"});
    }
    SECTION("output shape") {
        auto in = t(dtype::float32, {2, 3}), out = t(dtype::float32, {3, 6});
        const auto m = message_of([&] { strix::pad(in.view(), out.view(), pad_desc{.start = {1, 0}, .end = {0, 2}}); });
        check_message(m, rule::pad_output_shape, {"operand output", "input [2,3]", "output [3,6]"});
    }
    SECTION("output shape, typed views with dynamic extents") {
        std::vector<float> in(6), out(18);
        const tensor_view<const float, dextents<2>> input(in.data(), dextents<2>(2, 3));
        const tensor_view<float, dextents<2>> output(out.data(), dextents<2>(3, 6));
        const auto m = message_of([&] { strix::pad<pad_desc{.start = {1, 0}, .end = {0, 2}}>(input, output); });
        check_message(m, rule::pad_output_shape, {"operand output", "input [2,3] float32", "output [3,6] float32"});
    }
}

// ---------------------------------------------------------------------------------------------
// scatter

TEST_CASE("scatter: static extents", "[rules]") {
    STATIC_REQUIRE(std::is_same_v<scattered<scatter_desc{.axis = 0}, extents<2, 3>, extents<1, 3>, extents<1, 3>>, extents<2, 3>>);
    STATIC_REQUIRE(std::is_same_v<scattered<scatter_desc{.axis = -1}, extents<2, 3>, extents<2, 5>, extents<2, 5>>, extents<2, 3>>);
    STATIC_REQUIRE(std::is_same_v<scattered<scatter_desc{.axis = 1}, extents<2, 3>, extents<0, 0>, extents<0, 0>>, extents<2, 3>>);
    STATIC_REQUIRE(scatter_rule(shape{4, 5, 6}, shape{1, 2, 3}, shape{1, 2, 3}, scatter_desc{.axis = -2}).out == shape{4, 5, 6});

    // dynamic operands: the output has the input's extents type and values
    const auto e = strix::scatter_extents<scatter_desc{.axis = 0}>(dextents<2>(2, 3), extents<1, 3>{}, dextents<2>(1, 3));
    STATIC_REQUIRE(same_type<decltype(e), dextents<2>>);
    REQUIRE(e.to_shape() == shape{2, 3});
    const auto e1 = strix::scatter_extents<scatter_desc{.axis = 1}>(extents<2, dynamic_extent>(3), dextents<2>(2, 5), dextents<2>(2, 5));
    STATIC_REQUIRE(same_type<decltype(e1), extents<2, dynamic_extent>>);
    REQUIRE(e1.to_shape() == shape{2, 3});
}

TEST_CASE("scatter: verdicts of broken rules in constant expressions", "[rules]") {
    STATIC_REQUIRE(broke(scatter_rule(shape{}, shape{}, shape{}, scatter_desc{}).v, rule::scatter_input_rank, 0, -1));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{1, 3}, shape{1, 3}, scatter_desc{.axis = -3}).v, rule::scatter_axis_range, 0, -1,
                         -3, value_kind::given_axis));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{1, 3}, shape{1, 3}, scatter_desc{.axis = 2}).v, rule::scatter_axis_range, 0, -1,
                         2, value_kind::given_axis));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{3}, shape{3}, scatter_desc{}).v, rule::scatter_rank, 1, -1, 1, value_kind::rank));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{1, 3}, shape{1, 1, 3}, scatter_desc{}).v, rule::scatter_rank, 2, -1, 3,
                         value_kind::rank));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{1, 3}, shape{1, 2}, scatter_desc{}).v, rule::scatter_updates_shape, 2, 1, 2,
                         value_kind::size));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{3, 1}, shape{3, 1}, scatter_desc{.axis = 1}).v, rule::scatter_indices_larger, 1,
                         0, 3, value_kind::size));
    STATIC_REQUIRE(broke(scatter_rule(shape{2, 3}, shape{1, 4}, shape{1, 4}, scatter_desc{.axis = 0}).v, rule::scatter_indices_larger, 1,
                         1, 4, value_kind::size));
    STATIC_REQUIRE(broke(strix::scatter_type_rule(dtype::float32, dtype::float32, dtype::float32, dtype::float32), rule::scatter_index_type,
                         1, -1));
    STATIC_REQUIRE(broke(strix::scatter_type_rule(dtype::float32, dtype::int32, dtype::float64, dtype::float32), rule::scatter_dtype, 2, -1));
    STATIC_REQUIRE(broke(strix::scatter_type_rule(dtype::float32, dtype::int32, dtype::float32, dtype::float16), rule::scatter_dtype, 3, -1));
    STATIC_REQUIRE(strix::scatter_type_rule(dtype::int8, dtype::uint64, dtype::int8, dtype::int8).ok());
}

TEST_CASE("scatter: the same rules at run time name the operand, the axis and the shapes", "[rules]") {
    SECTION("indices larger than the input, dynamic extents") {
        constexpr verdict v = scatter_rule(shape{2, 3}, shape{3, 1}, shape{3, 1}, scatter_desc{.axis = 1}).v;
        STATIC_REQUIRE(v.code == rule::scatter_indices_larger);
        const auto m = message_of([] {
            (void)strix::scatter_extents<scatter_desc{.axis = 1}>(dextents<2>(2, 3), dextents<2>(3, 1), dextents<2>(3, 1));
        });
        check_message(m, v.code, {"operand indices", "axis 0", "size 3", "input [2,3]", "indices [3,1]", "updates [3,1]"});
    }
    SECTION("indices larger than the input, erased views") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int64, {3, 1}), upd = t(dtype::float32, {3, 1}), out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::scatter(in.view(), idx.view(), upd.view(), out.view(), scatter_desc{.axis = 1}); });
        check_message(m, rule::scatter_indices_larger, {"operand indices", "axis 0", "size 3", "input [2,3] float32", "indices [3,1] int64",
                                                        "updates [3,1] float32", "output [2,3] float32"});
    }
    SECTION("scalar input") {
        auto in = t(dtype::float32, {}), idx = t(dtype::int64, {}), upd = t(dtype::float32, {});
        const auto m = message_of([&] { (void)strix::scatter(in.view(), idx.view(), upd.view()); });
        check_message(m, rule::scatter_input_rank, {"operand input", "input [] float32"});
    }
    SECTION("axis out of range") {
        const auto m = message_of([] {
            (void)strix::scatter_extents<scatter_desc{.axis = -3}>(dextents<2>(2, 3), dextents<2>(1, 3), dextents<2>(1, 3));
        });
        check_message(m, rule::scatter_axis_range, {"operand input", "axis given as -3", "input [2,3]", "indices [1,3]"});
    }
    SECTION("ranks") {
        const auto m = message_of([] { (void)strix::scatter_extents<scatter_desc{}>(dextents<2>(2, 3), dextents<1>(3), dextents<1>(3)); });
        check_message(m, rule::scatter_rank, {"operand indices", "rank 1", "input [2,3]", "indices [3]", "updates [3]"});
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int64, {1, 3}), upd = t(dtype::float32, {1, 1, 3});
        const auto m2 = message_of([&] { (void)strix::scatter(in.view(), idx.view(), upd.view()); });
        check_message(m2, rule::scatter_rank, {"operand updates", "rank 3", "updates [1,1,3] float32"});
    }
    SECTION("updates shape") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int32, {1, 3}), upd = t(dtype::float32, {1, 2}), out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::scatter(in.view(), idx.view(), upd.view(), out.view(), scatter_desc{.axis = 0}); });
        check_message(m, rule::scatter_updates_shape, {"operand updates", "axis 1", "size 2", "indices [1,3] int32", "updates [1,2] float32"});
    }
    SECTION("index type") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int16, {1, 3}), upd = t(dtype::float32, {1, 3}), out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::scatter(in.view(), idx.view(), upd.view(), out.view()); });
        check_message(m, rule::scatter_index_type, {"operand indices", "indices [1,3] int16"});
    }
    SECTION("element types") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int32, {1, 3}), upd = t(dtype::float64, {1, 3}), out = t(dtype::float32, {2, 3});
        const auto m = message_of([&] { strix::scatter(in.view(), idx.view(), upd.view(), out.view()); });
        check_message(m, rule::scatter_dtype, {"operand updates", "updates [1,3] float64"});
        auto upd2 = t(dtype::float32, {1, 3}), out2 = t(dtype::float16, {2, 3});
        const auto m2 = message_of([&] { strix::scatter(in.view(), idx.view(), upd2.view(), out2.view()); });
        check_message(m2, rule::scatter_dtype, {"operand output", "output [2,3] float16"});
    }
    SECTION("output shape") {
        auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int64, {1, 3}), upd = t(dtype::float32, {1, 3}), out = t(dtype::float32, {3, 2});
        const auto m = message_of([&] { strix::scatter(in.view(), idx.view(), upd.view(), out.view()); });
        check_message(m, rule::scatter_output_shape, {"operand output", "input [2,3]", "output [3,2]"});
    }
    SECTION("output shape, typed views with dynamic extents") {
        std::vector<float> in(6), upd(3), out(6);
        std::vector<std::int64_t> idx(3);
        const tensor_view<const float, dextents<2>> input(in.data(), dextents<2>(2, 3));
        const tensor_view<const std::int64_t, extents<1, 3>> indices(idx.data());
        const tensor_view<const float, extents<1, 3>> updates(upd.data());
        const tensor_view<float, dextents<2>> output(out.data(), dextents<2>(3, 2));
        const auto m = message_of([&] { strix::scatter<scatter_desc{.axis = 0}>(input, indices, updates, output); });
        check_message(m, rule::scatter_output_shape, {"operand output", "input [2,3] float32", "output [3,2] float32"});
    }
    SECTION("empty axis") {
        auto in = t(dtype::float32, {2, 0}), idx = t(dtype::int64, {2, 1}), upd = t(dtype::float32, {2, 1}), out = t(dtype::float32, {2, 0});
        const auto m = message_of([&] { strix::scatter(in.view(), idx.view(), upd.view(), out.view(), scatter_desc{.axis = 1}); });
        check_message(m, rule::scatter_empty_axis, {"axis 1", "input [2,0]", "indices [2,1]"});
    }
}

// ---------------------------------------------------------------------------------------------
// the rule vocabulary

TEST_CASE("rules: every rule has its operator's sentence", "[rules]") {
    STATIC_REQUIRE(strix::rule_text(rule::gather_axis_range) == "gather: the axis must lie in [-rank, rank) of the input");
    STATIC_REQUIRE(strix::rule_text(rule::join_off_axis) == "join: the inputs must have equal sizes on every axis but the join axis");
    STATIC_REQUIRE(strix::rule_text(rule::pad_crop) == "pad: negative pads must not remove more elements than the axis has");
    STATIC_REQUIRE(strix::rule_text(rule::scatter_updates_shape) == "scatter: the updates must have the shape of the indices");
    STATIC_REQUIRE(strix::rule_text(rule::ok) == "ok");
    // every code after `ok` has a sentence that starts with its operator (or is the rank rule)
    for (int c = static_cast<int>(rule::rank_range); c <= static_cast<int>(rule::copy_shape); ++c) {
        const std::string_view s = strix::rule_text(static_cast<rule>(c));
        INFO("rule " << c << ": " << s);
        CHECK(s != "unknown rule");
        bool named = static_cast<rule>(c) == rule::rank_range;
        named = named || s.starts_with("copy: ");
        strix::with_operators([&]<class D>() { named = named || s.starts_with(std::string(strix::op_traits<D>::name) + ": "); });
        CHECK(named);
    }
    STATIC_REQUIRE(verdict{}.ok());
    STATIC_REQUIRE(!verdict{rule::pad_crop}.ok());
}

// ---------------------------------------------------------------------------------------------
// the family: gather-elements, gather-nd, split, scatter-nd

namespace {
using strix::gather_elements_desc;
using strix::gather_elements_rule;
using strix::gather_nd_desc;
using strix::gather_nd_rule;
using strix::scatter_nd_desc;
using strix::scatter_nd_rule;
using strix::split_desc;
using strix::split_rule;

template <std::size_t N>
constexpr verdict split_of(const shape& in, const shape (&outs)[N], const split_desc& d) {
    return split_rule(in, std::span<const shape>(outs, N), d);
}
} // namespace

TEST_CASE("gather-elements: the output has the indices' shape; verdicts of broken rules", "[rules]") {
    STATIC_REQUIRE(gather_elements_rule(shape{2, 3}, shape{5, 3}, {.axis = 0}).out == shape{5, 3});
    STATIC_REQUIRE(gather_elements_rule(shape{2, 3}, shape{1, 7}, {.axis = -1}).out == shape{1, 7});
    STATIC_REQUIRE(gather_elements_rule(shape{2, 3}, shape{0, 2}, {.axis = 0}).out == shape{0, 2});
    STATIC_REQUIRE(broke(gather_elements_rule(shape{}, shape{}, {}).v, rule::gather_elements_input_rank, 0, -1));
    STATIC_REQUIRE(broke(gather_elements_rule(shape{2, 3}, shape{2, 3}, {.axis = -3}).v, rule::gather_elements_axis_range, 0, -1, -3,
                         value_kind::given_axis));
    STATIC_REQUIRE(broke(gather_elements_rule(shape{2, 3}, shape{3}, {}).v, rule::gather_elements_rank, 1, -1, 1, value_kind::rank));
    STATIC_REQUIRE(broke(gather_elements_rule(shape{2, 3}, shape{9, 4}, {.axis = 0}).v, rule::gather_elements_indices_larger, 1, 1, 4,
                         value_kind::size));
    STATIC_REQUIRE(broke(strix::gather_elements_type_rule(dtype::float32, dtype::int16, dtype::float32), rule::gather_elements_index_type, 1, -1));
    STATIC_REQUIRE(broke(strix::gather_elements_type_rule(dtype::float32, dtype::int32, dtype::float64), rule::gather_elements_dtype, 2, -1));
}

TEST_CASE("gather-elements: run-time messages name the operand, the axis and the shapes", "[rules]") {
    auto in = t(dtype::float32, {2, 3}), idx = t(dtype::int64, {2, 4}), out = t(dtype::float32, {2, 4});
    check_message(message_of([&] { strix::gather_elements(in.view(), idx.view(), out.view(), {.axis = 0}); }), rule::gather_elements_indices_larger,
                  {"operand indices", "axis 1", "size 4", "input [2,3] float32", "indices [2,4] int64", "output [2,4] float32"});
    auto idx2 = t(dtype::int64, {2, 3}), out2 = t(dtype::float32, {3, 2});
    check_message(message_of([&] { strix::gather_elements(in.view(), idx2.view(), out2.view(), {.axis = 1}); }),
                  rule::gather_elements_output_shape, {"operand output", "output [3,2] float32"});
    auto empty = t(dtype::float32, {0, 3}), some = t(dtype::int32, {1, 3}), o3 = t(dtype::float32, {1, 3});
    check_message(message_of([&] { strix::gather_elements(empty.view(), some.view(), o3.view(), {.axis = 0}); }),
                  rule::gather_elements_empty_axis, {"axis 0", "input [0,3] float32"});
}

TEST_CASE("gather-nd: inferred shapes and verdicts of broken rules", "[rules]") {
    STATIC_REQUIRE(gather_nd_rule(shape{2, 3}, shape{4, 2}, {}).out == shape{4});
    STATIC_REQUIRE(gather_nd_rule(shape{2, 3}, shape{4, 1}, {}).out == shape{4, 3});
    STATIC_REQUIRE(gather_nd_rule(shape{2, 3, 4}, shape{2, 5, 1}, {.batch_dimensions = 1}).out == shape{2, 5, 4});
    STATIC_REQUIRE(gather_nd_rule(shape{2, 3, 4}, shape{2, 2}, {.batch_dimensions = 1}).out == shape{2});
    STATIC_REQUIRE(gather_nd_rule(shape{5}, shape{1}, {}).out == shape{}); // a scalar
    STATIC_REQUIRE(broke(gather_nd_rule(shape{}, shape{1}, {}).v, rule::gather_nd_input_rank, 0, -1));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2}, shape{}, {}).v, rule::gather_nd_indices_rank, 1, -1));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, 3}, shape{2, 1}, {.batch_dimensions = 2}).v, rule::gather_nd_batch_range, 1, -1, 2,
                         value_kind::batch_dimensions));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, 3}, shape{2, 1}, {.batch_dimensions = -1}).v, rule::gather_nd_batch_range, 1, -1));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, 3}, shape{3, 1}, {.batch_dimensions = 1}).v, rule::gather_nd_batch_shape, 1, 0, 3, value_kind::size));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, 3}, shape{4, 3}, {}).v, rule::gather_nd_tuple_length, 1, 1, 3, value_kind::tuple_length));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, 3}, shape{4, 0}, {}).v, rule::gather_nd_tuple_length, 1, 1, 0, value_kind::tuple_length));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, 3, 4}, shape{1, 1, 1, 1, 1, 1, 1, 1}, {}).v, rule::gather_nd_output_rank, 1, -1, 9, value_kind::rank));
}

TEST_CASE("gather-nd: run-time messages name the operand, the axis and the shapes", "[rules]") {
    auto in = t(dtype::int16, {2, 3}), idx = t(dtype::int64, {4, 3}), out = t(dtype::int16, {4});
    check_message(message_of([&] { strix::gather_nd(in.view(), idx.view(), out.view()); }), rule::gather_nd_tuple_length,
                  {"operand indices", "axis 1", "index tuple length 3", "input [2,3] int16", "indices [4,3] int64", "batch dimensions 0"});
    auto empty = t(dtype::int16, {2, 0}), tuples = t(dtype::int32, {4, 2}), o = t(dtype::int16, {4});
    check_message(message_of([&] { strix::gather_nd(empty.view(), tuples.view(), o.view()); }), rule::gather_nd_empty_axis,
                  {"axis 1", "input [2,0] int16"});
}

TEST_CASE("split: verdicts of broken rules", "[rules]") {
    STATIC_REQUIRE(split_of(shape{5, 3}, {shape{2, 3}, shape{0, 3}, shape{3, 3}}, {}).ok());
    STATIC_REQUIRE(split_of(shape{5, 3}, {shape{5, 1}, shape{5, 2}}, {.axis = -1}).ok());
    STATIC_REQUIRE(broke(split_rule(shape{}, {}, {}), rule::split_input_rank, 0, -1));
    STATIC_REQUIRE(broke(split_of(shape{5, 3}, {shape{5, 3}}, {.axis = 2}), rule::split_axis_range, 0, -1, 2, value_kind::given_axis));
    STATIC_REQUIRE(broke(split_rule(shape{5, 3}, {}, {}), rule::split_no_outputs, -1, -1));
    STATIC_REQUIRE(broke(split_of(shape{5, 3}, {shape{5}}, {}), rule::split_rank, 1, -1, 1, value_kind::rank));
    STATIC_REQUIRE(broke(split_of(shape{5, 3}, {shape{2, 3}, shape{3, 4}}, {}), rule::split_off_axis, 2, 1, 4, value_kind::size));
    STATIC_REQUIRE(broke(split_of(shape{5, 3}, {shape{6, 3}, shape{-1, 3}}, {}), rule::split_negative_size, 2, 0, -1, value_kind::size));
    STATIC_REQUIRE(broke(split_of(shape{5, 3}, {shape{2, 3}, shape{2, 3}}, {}), rule::split_sizes_sum, 0, 0, 4, value_kind::sum));
}

TEST_CASE("split: run-time messages name the operand, the axis and the shapes", "[rules]") {
    auto in = t(dtype::uint8, {5, 3});
    const std::int64_t bad_sum[] = {2, 2};
    check_message(message_of([&] { (void)strix::split(in.view(), bad_sum); }), rule::split_sizes_sum,
                  {"operand input", "axis 0", "sizes add up to 4", "input [5,3] uint8", "output 0 [2,3]", "output 1 [2,3]", "sizes [2,2]"});
    const std::int64_t negative[] = {7, -2};
    check_message(message_of([&] { (void)strix::split_views(strix::any_cview(in.view()), negative); }), rule::split_negative_size,
                  {"operand output 1", "axis 0", "size -2"});
    auto a = t(dtype::uint8, {2, 3}), b = t(dtype::uint16, {3, 3});
    const strix::any_view outs[] = {a.view(), b.view()};
    check_message(message_of([&] { strix::split(in.view(), outs); }), rule::split_dtype, {"operand output 1", "output 1 [3,3] uint16"});
}

TEST_CASE("scatter-nd: verdicts of broken rules", "[rules]") {
    STATIC_REQUIRE(scatter_nd_rule(shape{3, 4}, shape{2, 1}, shape{2, 4}).out == shape{3, 4});
    STATIC_REQUIRE(scatter_nd_rule(shape{3, 4}, shape{5, 2}, shape{5}).v.ok());
    STATIC_REQUIRE(scatter_nd_rule(shape{3, 4}, shape{2}, shape{}).v.ok()); // one tuple, one element
    STATIC_REQUIRE(broke(scatter_nd_rule(shape{}, shape{1}, shape{}).v, rule::scatter_nd_input_rank, 0, -1));
    STATIC_REQUIRE(broke(scatter_nd_rule(shape{3}, shape{}, shape{}).v, rule::scatter_nd_indices_rank, 1, -1));
    STATIC_REQUIRE(broke(scatter_nd_rule(shape{3, 4}, shape{2, 3}, shape{2}).v, rule::scatter_nd_tuple_length, 1, 1, 3, value_kind::tuple_length));
    STATIC_REQUIRE(broke(scatter_nd_rule(shape{3, 4}, shape{2, 1}, shape{2}).v, rule::scatter_nd_updates_shape, 2, -1, 1, value_kind::rank));
    STATIC_REQUIRE(broke(scatter_nd_rule(shape{3, 4}, shape{2, 1}, shape{2, 5}).v, rule::scatter_nd_updates_shape, 2, 1, 5, value_kind::size));
    STATIC_REQUIRE(broke(strix::scatter_nd_type_rule(dtype::int8, dtype::float32, dtype::int8, dtype::int8), rule::scatter_nd_index_type, 1, -1));
    STATIC_REQUIRE(broke(strix::scatter_nd_type_rule(dtype::int8, dtype::int32, dtype::uint8, dtype::int8), rule::scatter_nd_dtype, 2, -1));
    STATIC_REQUIRE(broke(strix::scatter_nd_type_rule(dtype::int8, dtype::int32, dtype::int8, dtype::uint8), rule::scatter_nd_dtype, 3, -1));
}

TEST_CASE("scatter-nd: run-time messages name the operand, the axis and the shapes", "[rules]") {
    auto in = t(dtype::float64, {3, 4}), idx = t(dtype::uint32, {2, 1}), upd = t(dtype::float64, {2, 3}), out = t(dtype::float64, {3, 4});
    check_message(message_of([&] { strix::scatter_nd(in.view(), idx.view(), upd.view(), out.view()); }), rule::scatter_nd_updates_shape,
                  {"operand updates", "axis 1", "size 3", "input [3,4] float64", "indices [2,1] uint32", "updates [2,3] float64"});
    auto empty = t(dtype::float64, {0, 4}), upd2 = t(dtype::float64, {2, 4});
    check_message(message_of([&] { (void)strix::scatter_nd(empty.view(), idx.view(), upd2.view()); }), rule::scatter_nd_empty_axis,
                  {"axis 0", "input [0,4] float64"});
}

TEST_CASE("family: index errors name the operator, the position and the value", "[rules]") {
    auto in = t(dtype::float32, {2, 3});
    host_tensor idx(dtype::int64, {2, 2});
    auto* p = reinterpret_cast<std::int64_t*>(idx.data());
    p[0] = 1;
    p[1] = 2;
    p[2] = 0;
    p[3] = -4; // tuple [0, -4] on axis 1 of size 3
    try {
        (void)strix::gather_nd(in.view(), idx.view());
        FAIL("no error");
    } catch (const strix::error& e) {
        CHECK(e.code() == strix::error_code::index_out_of_range);
        CHECK_THAT(std::string(e.what()), Catch::Matchers::StartsWith("strix::gather-nd: index -4 at position [1,1] of the indices is out of range for axis 1 of size 3"));
    }
    host_tensor eidx(dtype::uint32, {1, 3});
    reinterpret_cast<std::uint32_t*>(eidx.data())[2] = 2;
    reinterpret_cast<std::uint32_t*>(eidx.data())[1] = 5;
    try {
        (void)strix::gather_elements(in.view(), eidx.view(), {.axis = 0});
        FAIL("no error");
    } catch (const strix::error& e) {
        CHECK_THAT(std::string(e.what()), Catch::Matchers::StartsWith("strix::gather-elements: index 5 at position [0,1] of the indices is out of range for axis 0 of size 2"));
    }
    // clamp: the same tuple reads the last element of the axis
    const auto clamped = strix::gather_nd(in.view(), idx.view(), {.policy = strix::index_policy::clamp});
    CHECK(clamped.sizes() == shape{2});
}

// ---------------------------------------------------------------------------------------------
// sizes and counts beyond 64 bits: checked arithmetic, in constant expressions as at run time

TEST_CASE("overflow: every size sum and element count is checked in constant expressions", "[rules]") {
    constexpr std::int64_t big = INT64_MAX, q = std::int64_t{1} << 62, g = std::int64_t{1} << 32;
    // pad: a size, a crop, an element count
    STATIC_REQUIRE(broke(pad_rule(shape{3}, pad_desc{.start = {big}, .end = {big}}).v, rule::pad_output_size, 0, 0, big, value_kind::pad));
    STATIC_REQUIRE(broke(pad_rule(shape{2, 3}, pad_desc{.start = {0, 1}, .end = {0, big}}).v, rule::pad_output_size, 0, 1, big, value_kind::pad));
    STATIC_REQUIRE(broke(pad_rule(shape{3}, pad_desc{.start = {INT64_MIN}, .end = {INT64_MIN}}).v, rule::pad_crop, 0, 0, INT64_MIN, value_kind::pad));
    STATIC_REQUIRE(broke(pad_rule(shape{1, 1}, pad_desc{.start = {g, g}, .end = {0, 0}}).v, rule::pad_output_count, 0, -1));
    STATIC_REQUIRE(pad_rule(shape{1, 1}, pad_desc{.start = {g, g / 4}, .end = {0, 0}}).out == shape{g + 1, g / 4 + 1});
    STATIC_REQUIRE(pad_rule(shape{3}, pad_desc{.start = {-3}, .end = {big}}).out == shape{big});
    // join: the sum on the axis, then the element count
    STATIC_REQUIRE(broke(join_of({shape{q, 0}, shape{q, 0}}, join_desc{.axis = 0}).v, rule::join_output_size, 1, 0, q, value_kind::size));
    STATIC_REQUIRE(join_of({shape{q, 0}, shape{q - 1, 0}}, join_desc{.axis = 0}).out == shape{big, 0});
    STATIC_REQUIRE(broke(join_of({shape{g / 4, g}, shape{g / 4, g}}, join_desc{.axis = 0}).v, rule::join_output_count, 2, 0));
    // split: a sum beyond 2^63 - 1 never equals the input's size
    STATIC_REQUIRE(broke(split_of(shape{0, 0}, {shape{big, 0}, shape{big, 0}, shape{2, 0}}, {}), rule::split_sizes_sum, 0, 0, big,
                         value_kind::sum_beyond));
    // gather and gather-nd: outputs of 2^64 elements from operands that fit
    STATIC_REQUIRE(broke(gather_rule(shape{g, 1 << 20}, shape{g}, gather_desc{.axis = 1}).v, rule::gather_output_count, 1, 1));
    STATIC_REQUIRE(broke(gather_rule(shape{1, g, 2}, shape{1, 1, g}, gather_desc{.axis = 2, .index_dimensions = 1}).v, rule::gather_output_count,
                         1, 2));
    STATIC_REQUIRE(broke(gather_nd_rule(shape{2, g}, shape{g, 1}, gather_nd_desc{}).v, rule::gather_nd_output_count, 1, -1));
    // an empty dimension keeps every count at zero
    STATIC_REQUIRE(gather_rule(shape{g, 0}, shape{g}, gather_desc{.axis = 0}).v.ok());
    STATIC_REQUIRE(shape{q, 4, 0}.checked_count() == 0);
    STATIC_REQUIRE(shape{q, 4}.checked_count() == -1);
    STATIC_REQUIRE(strix::c_strides(shape{2, q, 4})[0] == big); // saturated, never wrapped
}
