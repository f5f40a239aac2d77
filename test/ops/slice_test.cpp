// The tests of slice (ONNX Slice, numpy's x[a:b:c], DirectML's SLICE1 windows).
//
// This file is compiled into both test programs (through the operator list: see test/meson.build).
// In the unit program it holds seed examples and random cases against a reference written from
// ONNX's semantics; in the Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the
// device against the CPU, bit for bit. `[slice]` selects these tests in either program. A random
// case prints its seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {
namespace {

constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();

/// The coordinates one axis of a slice reads, by walking the axis as ONNX's definition says:
/// negative bounds count from the end, then the start is clamped to [0, n] ([0, n - 1] stepping
/// down) and the end to [0, n] ([-1, n - 1] stepping down); read start, start + step, ... while
/// short of the end.
std::vector<std::int64_t> slice_walk(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t n) {
    auto wrap = [&](std::int64_t v) { return v < 0 ? v + n : v; };
    auto clamp = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : v > hi ? hi : v; };
    std::vector<std::int64_t> out;
    if (step > 0) {
        for (std::int64_t k = clamp(wrap(start), 0, n), e = clamp(wrap(end), 0, n); k < e; k = e - k > step ? k + step : e) out.push_back(k);
    } else if (n > 0) {
        const std::uint64_t mag = static_cast<std::uint64_t>(-(step + 1)) + 1; // |step| (INT64_MIN has no positive)
        for (std::int64_t k = clamp(wrap(start), 0, n - 1), e = clamp(wrap(end), -1, n - 1); k > e;
             k = static_cast<std::uint64_t>(k - e) > mag ? k + step : e)
            out.push_back(k);
    }
    return out;
}

/// A random bound: inside the axis, past either end, negative, or at the int64 limits.
std::int64_t random_bound(rng_t& g, std::int64_t n) {
    switch (uni(g, 0, 6)) {
    case 0: return lowest;
    case 1: return highest;
    case 2: return uni(g, -n - 3, -1);
    case 3: return uni(g, n, n + 3);
    default: return uni(g, 0, n);
    }
}

std::int64_t random_step(rng_t& g, std::int64_t n) {
    switch (uni(g, 0, 7)) {
    case 0: return lowest;
    case 1: return highest;
    case 2: return -uni(g, 1, n + 2);
    case 3: return -1;
    case 4: return 1;
    default: return uni(g, 1, n + 2);
    }
}

/// A random slice of an input of shape `s`: some axes (any order, negative or not), random
/// bounds and steps; axes or steps left out at times.
slice_desc random_slice(rng_t& g, const shape& s) {
    slice_desc d;
    const int r = s.rank;
    std::vector<int> order;
    for (int i = 0; i < r; ++i) order.push_back(i);
    for (int i = r - 1; i > 0; --i) std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(uni(g, 0, i))]);
    const bool prefix = chance(g, 1, 4); // no axes: the first n axes
    const int n = static_cast<int>(uni(g, 0, r));
    const bool unit_steps = chance(g, 1, 4);
    for (int k = 0; k < n; ++k) {
        const int axis = prefix ? k : order[static_cast<std::size_t>(k)];
        if (!prefix) d.axes.push_back(chance(g, 1, 2) ? axis : axis - r);
        d.starts.push_back(random_bound(g, s[axis]));
        d.ends.push_back(random_bound(g, s[axis]));
        if (!unit_steps) d.steps.push_back(random_step(g, s[axis]));
    }
    return d;
}

void slice_case(std::uint64_t seed, dtype et) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 6));
    shape in_shape = random_dims(g, r, 12, 9);
    const slice_desc d = random_slice(g, in_shape);
    // the reference's own walk of every axis
    std::vector<std::vector<std::int64_t>> picks(static_cast<std::size_t>(r));
    for (int i = 0; i < r; ++i)
        for (std::int64_t k = 0; k < in_shape[i]; ++k) picks[static_cast<std::size_t>(i)].push_back(k);
    for (int k = 0; k < d.starts.rank; ++k) {
        const std::int64_t given = d.axes.rank ? d.axes[k] : k;
        const int axis = static_cast<int>(given < 0 ? given + r : given);
        picks[static_cast<std::size_t>(axis)] = slice_walk(d.starts[k], d.ends[k], d.steps.rank ? d.steps[k] : 1, in_shape[axis]);
    }
    shape out_shape;
    for (const auto& p : picks) out_shape.push_back(static_cast<std::int64_t>(p.size()));

    const strided in = [&] {
        strided v = make_strided(g, et, in_shape, false);
        fill_random(g, v.buf);
        return v;
    }();
    strided out = make_strided(g, et, out_shape, true);
    fill_random(g, out.buf);
    const bytes before = out.buf;
    const ref_view ri = in.ref();
    const auto es = ri.es();
    bytes expect(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords c{};
        for (int i = 0; i < r; ++i) c[static_cast<std::size_t>(i)] = picks[static_cast<std::size_t>(i)][static_cast<std::size_t>(o[static_cast<std::size_t>(i)])];
        std::memcpy(expect.data() + lin * es, ri.at(c), static_cast<std::size_t>(es));
    });
    const bool returning = chance(g, 1, 4);
    INFO("slice, seed " << seed << ", input " << in.describe() << ", starts " << str(d.starts) << ", ends " << str(d.ends) << ", axes "
                        << str(d.axes) << ", steps " << str(d.steps) << (returning ? ", returning overload" : ""));
    INFO("output " << out.describe());
    CHECK(strix::slice_rule(in_shape, d).out == out_shape);
    if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::slice(in.cview(), d, config.opt); })) check_tensor(t, et, out_shape, expect);
    } else {
        if (call_ok([&] { strix::slice(in.cview(), out.view(), d, config.opt); })) check_output(out, before, expect);
    }
}

} // namespace
} // namespace strix_test

using namespace strix_test;

TEST_CASE("slice seed examples", "[seed][slice]") {
    using strix::slice;
    // ONNX's examples: x[0:3:1, 0:10:1] ... the slices its node tests name
    const auto x = make<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    const auto a = slice(x.view(), {.starts = {1, 0}, .ends = {2, 3}, .axes = {0, 1}, .steps = {1, 2}});
    CHECK(a.sizes() == shape{1, 2});
    CHECK(values<float>(a) == fv{5, 7});
    const auto b = slice(x.view(), {.starts = {0, 1}, .ends = {-1, 1000}});
    CHECK(b.sizes() == shape{1, 3});
    CHECK(values<float>(b) == fv{2, 3, 4});
    // negative steps: the whole axis backwards, INT64_MIN as the end
    const auto c = slice(x.view(), {.starts = {-1}, .ends = {std::numeric_limits<std::int64_t>::min()}, .axes = {1}, .steps = {-1}});
    CHECK(values<float>(c) == fv{4, 3, 2, 1, 8, 7, 6, 5});
    const auto e = slice(x.view(), {.starts = {20}, .ends = {0}, .axes = {-1}, .steps = {-2}}); // start clamped to 3
    CHECK(values<float>(e) == fv{4, 2, 8, 6});
    // empty windows: start at or past the end
    CHECK(slice(x.view(), {.starts = {3}, .ends = {1}, .axes = {1}}).sizes() == shape{2, 0});
    // DirectML's SLICE1 windows: offsets, sizes, strides (negative: the window read backwards)
    const auto w = slice(x.view(), strix::slice_window({0, 1}, {2, 3}, {1, -2}));
    CHECK(values<float>(w) == fv{4, 2, 8, 6});
    const auto w0 = slice(x.view(), strix::slice_window({1, 0}, {1, 4}, {-1, -3}));
    CHECK(values<float>(w0) == fv{8, 5});
    // the rules, with the operator, operand, axis and values named
    CHECK_THROWS_WITH(slice(x.view(), {.starts = {0}, .ends = {1}, .axes = {0}, .steps = {0}}),
                      Catch::Contains("slice: a step must not be 0") && Catch::Contains("axis 0") && Catch::Contains("input [2,4]"));
    CHECK_THROWS_WITH(slice(x.view(), {.starts = {0, 0}, .ends = {1, 1}, .axes = {1, -1}}),
                      Catch::Contains("slice: an axis may be sliced only once") && Catch::Contains("axis 1"));
    CHECK_THROWS_WITH(slice(x.view(), {.starts = {0}, .ends = {1}, .axes = {2}}),
                      Catch::Contains("slice: an axis must lie in [-rank, rank)") && Catch::Contains("axis given as 2"));
    CHECK_THROWS_WITH(slice(x.view(), {.starts = {0, 0}, .ends = {1}}),
                      Catch::Contains("slice: starts and ends must have one entry per sliced axis") && Catch::Contains("entry count 1"));
    auto wrong = make<float>({2, 2}, {0, 0, 0, 0});
    CHECK_THROWS_WITH(slice(x.view(), wrong.view(), {.starts = {0}, .ends = {1}}),
                      Catch::Contains("slice: the output's shape is not the inferred shape") && Catch::Contains("output [2,2]"));
    // a step of INT64_MIN and one of INT64_MAX: one element each way
    const auto big = slice(x.view(), {.starts = {3, 1}, .ends = {0, 2}, .axes = {1, 0}, .steps = {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}});
    CHECK(values<float>(big) == fv{8});
    // the rules at compile time
    static_assert(strix::slice_rule(shape{5, 7}, {.starts = {-1}, .ends = {-6}, .axes = {1}, .steps = {-2}}).out == shape{5, 3});
    static_assert(strix::slice_rule(shape{5}, {.starts = {0}, .ends = {1}, .axes = {0}, .steps = {0}}).v.code == strix::rule::slice_step_zero);
    // the rule at 64 bits' ends: a negative extent (which the views refuse) and bounds near
    // INT64_MIN stay defined (the fuzzer once found the extent added to a start there)
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min() + 1, hi = std::numeric_limits<std::int64_t>::max();
    static_assert(strix::slice_rule(shape{lo}, {.starts = {lo}, .ends = {lo}}).out == shape{0});
    static_assert(strix::slice_rule(shape{lo}, {.starts = {lo}, .ends = {lo}, .steps = {-1}}).out == shape{0});
    // a SLICE1 window whose offset plus size passes 64 bits reads to the axis's end
    CHECK(values<float>(slice(x.view(), strix::slice_window({0, 2}, {2, hi}, {1, 1}))) == fv{3, 4, 7, 8});
    CHECK(values<float>(slice(x.view(), strix::slice_window({0, 2}, {2, hi}, {1, -1}))) == fv{4, 3, 8, 7});
}

TEST_CASE("slice typed views: the rules at compile time", "[seed][slice]") {
    float src[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    float dst[4] = {};
    constexpr strix::slice_desc d{.starts = {2, 3}, .ends = {0, 0}, .axes = {0, 1}, .steps = {-1, -2}};
    static_assert(strix::slice_extents<d>(strix::extents<3, 4>{}) == strix::extents<2, 2>{});
    strix::slice<d>(strix::tensor_view<const float, strix::extents<3, 4>>(src), strix::tensor_view<float, strix::extents<2, 2>>(dst));
    CHECK(std::vector<float>(dst, dst + 4) == fv{11, 9, 7, 5});
}

TEST_CASE("random: slice with any bounds, axes and steps, every element type", "[random][slice]") {
    rng_t seeds(0x736c6963'00000001ULL);
    for (dtype et : strix::all_dtypes)
        for (int rep = 0; rep < 150; ++rep) slice_case(seeds(), et);
}

#else // the Vulkan program

#include <cstdint>
#include <limits>

#include "../support/vulkan.hpp"

using namespace strix_test;

TEST_CASE("vulkan: slice equals the CPU for every element type", "[vulkan][slice]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : strix::all_dtypes)
        for (int rep = 0; rep < 3; ++rep) {
            const std::uint64_t seed = case_seed(0x511ceull, k);
            const int rank = static_cast<int>(k % 6) + 1;
            ++k;
            if (!runs_on(path, k)) continue;
            INFO("seed " << seed << ", rank " << rank);
            rng_t g(seed);
            const shape s = bounded_shape(g, rank, 96);
            strix::slice_desc d;
            for (int i = 0; i < rank; ++i) {
                if (chance(g, 1, 3)) continue;
                const std::int64_t n = s[i];
                d.axes.push_back(chance(g, 1, 2) ? i : i - rank);
                const std::int64_t step = chance(g, 1, 2) ? uni(g, 1, 3) : -uni(g, 1, 3);
                d.steps.push_back(step);
                d.starts.push_back(chance(g, 1, 5) ? (step > 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max())
                                                   : uni(g, -n - 1, n + 1));
                d.ends.push_back(chance(g, 1, 5) ? (step > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min())
                                                 : uni(g, -n - 1, n + 1));
            }
            INFO("slice of " << type_name(type) << " " << str(s) << ", starts " << str(d.starts) << ", ends " << str(d.ends) << ", axes "
                             << str(d.axes) << ", steps " << str(d.steps));
            layout l{chance(g, 1, 2)};
            std::vector<placed> ops{l.place(g, type, s, true)};
            ops.push_back(l.place(g, type, strix::slice_rule(s, d).out, false));
            const arenas mem = random_arenas(g, l);
            differential(
                ctx, mem, ops, 1, [&](const host_operands& v) { strix::slice(v[0], v[1], d); },
                [&](vk::stream& st, const std::vector<vk::device_view>& v) { st.slice(v[0], v[1], d); },
                [&](vk::context& c, const host_operands& v) { vk::slice(c, v[0], v[1], d); }, t);
        }
    CHECK(ctx.validation_messages() == 0);
}

#endif
