// The tests of tile (ONNX Tile, numpy.tile with one repeat count per dimension).
//
// This file is compiled into both test programs (through the operator list: see test/meson.build).
// In the unit program it holds seed examples and random cases against a reference written from
// the definition (output coordinate modulo the input's size); in the Vulkan program, which
// defines STRIX_TEST_VULKAN, the operator on the device against the CPU, bit for bit. `[tile]`
// selects these tests in either program. A random case prints its seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {
namespace {

void tile_case(std::uint64_t seed, dtype et) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 6));
    const shape in_shape = random_dims(g, r, 10, 5);
    strix::tile_desc d;
    shape out_shape;
    for (int i = 0; i < r; ++i) {
        d.repeats.push_back(chance(g, 1, 8) ? 0 : uni(g, 1, 4));
        out_shape.push_back(in_shape[i] * d.repeats[i]);
    }
    std::vector<knob> knobs;
    for (int i = 0; i < r; ++i) knobs.push_back({&d.repeats.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(d.repeats[i], 1)});
    shrink(g, knobs, [&] {
        shape s;
        for (int i = 0; i < r; ++i) s.push_back(in_shape[i] * d.repeats[i]);
        return s.count();
    });
    out_shape = shape{};
    for (int i = 0; i < r; ++i) out_shape.push_back(in_shape[i] * d.repeats[i]);

    strided in = make_strided(g, et, in_shape, false);
    fill_random(g, in.buf);
    strided out = make_strided(g, et, out_shape, true);
    fill_random(g, out.buf);
    const bytes before = out.buf;
    const ref_view ri = in.ref();
    const auto es = ri.es();
    bytes expect(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords c{};
        for (int i = 0; i < r; ++i) c[static_cast<std::size_t>(i)] = o[static_cast<std::size_t>(i)] % in_shape[i];
        std::memcpy(expect.data() + lin * es, ri.at(c), static_cast<std::size_t>(es));
    });
    const bool returning = chance(g, 1, 4);
    INFO("tile, seed " << seed << ", input " << in.describe() << ", repeats " << str(d.repeats) << (returning ? ", returning overload" : ""));
    INFO("output " << out.describe());
    if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::tile(in.cview(), d, config.opt); })) check_tensor(t, et, out_shape, expect);
    } else {
        if (call_ok([&] { strix::tile(in.cview(), out.view(), d, config.opt); })) check_output(out, before, expect);
    }
}

} // namespace
} // namespace strix_test

using namespace strix_test;

TEST_CASE("tile seed examples", "[seed][tile]") {
    using strix::tile;
    const auto x = make<std::int32_t>({2, 2}, {1, 2, 3, 4});
    const auto a = tile(x.view(), {.repeats = {2, 3}});
    CHECK(a.sizes() == shape{4, 6});
    CHECK(values<std::int32_t>(a) == std::vector<std::int32_t>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
    CHECK(tile(x.view(), {.repeats = {0, 5}}).sizes() == shape{0, 10});
    CHECK(values<std::int32_t>(tile(x.view(), {.repeats = {1, 1}})) == std::vector<std::int32_t>{1, 2, 3, 4});
    CHECK_THROWS_WITH(tile(x.view(), {.repeats = {2}}),
                      Catch::Contains("tile: the repeats must have one entry per dimension of the input") && Catch::Contains("entry count 1"));
    CHECK_THROWS_WITH(tile(x.view(), {.repeats = {1, -1}}),
                      Catch::Contains("tile: a repeat count must not be negative") && Catch::Contains("axis 1") && Catch::Contains("repeat -1"));
    CHECK_THROWS_WITH(tile(x.view(), {.repeats = {std::numeric_limits<std::int64_t>::max() / 2 + 1, 1}}),
                      Catch::Contains("tile: the output's size on an axis would exceed 2^63 - 1") && Catch::Contains("axis 0"));
    CHECK_THROWS_WITH(tile(x.view(), {.repeats = {std::int64_t{1} << 61, std::int64_t{1} << 2}}),
                      Catch::Contains("tile: the output would have more than 2^63 - 1 elements"));
    auto wrong = make<std::int32_t>({4, 4}, std::vector<std::int32_t>(16));
    CHECK_THROWS_WITH(tile(x.view(), wrong.view(), {.repeats = {2, 3}}),
                      Catch::Contains("tile: the output's shape is not the inferred shape") && Catch::Contains("output [4,4]"));
    static_assert(strix::tile_rule(shape{3, 0, 2}, {.repeats = {2, 7, 0}}).out == shape{6, 0, 0});
}

TEST_CASE("tile typed views: the rules at compile time", "[seed][tile]") {
    const std::uint8_t src[3] = {7, 8, 9};
    std::uint8_t dst[12] = {};
    constexpr strix::tile_desc d{.repeats = {2, 2}};
    static_assert(strix::tile_extents<d>(strix::extents<1, 3>{}) == strix::extents<2, 6>{});
    strix::tile<d>(strix::tensor_view<const std::uint8_t, strix::extents<1, 3>>(src), strix::tensor_view<std::uint8_t, strix::extents<2, 6>>(dst));
    CHECK(std::vector<std::uint8_t>(dst, dst + 12) == std::vector<std::uint8_t>{7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9});
}

TEST_CASE("random: tile with repeats 0 to 4, every element type", "[random][tile]") {
    rng_t seeds(0x74696c65'00000001ULL);
    for (dtype et : strix::all_dtypes)
        for (int rep = 0; rep < 150; ++rep) tile_case(seeds(), et);
}

#else // the Vulkan program

#include <cstdint>

#include "../support/vulkan.hpp"

using namespace strix_test;

TEST_CASE("vulkan: tile equals the CPU for every element type", "[vulkan][tile]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : strix::all_dtypes)
        for (int rep = 0; rep < 3; ++rep) {
            const std::uint64_t seed = case_seed(0x711eull, k);
            const int rank = static_cast<int>(k % 5) + 1;
            ++k;
            if (!runs_on(path, k)) continue;
            INFO("seed " << seed << ", rank " << rank);
            rng_t g(seed);
            const shape s = bounded_shape(g, rank, 48);
            strix::tile_desc d;
            for (int i = 0; i < rank; ++i) d.repeats.push_back(chance(g, 1, 10) ? 0 : uni(g, 1, 3));
            INFO("tile of " << type_name(type) << " " << str(s) << ", repeats " << str(d.repeats));
            layout l{chance(g, 1, 2)};
            std::vector<placed> ops{l.place(g, type, s, true)};
            ops.push_back(l.place(g, type, strix::tile_rule(s, d).out, false));
            const arenas mem = random_arenas(g, l);
            differential(
                ctx, mem, ops, 1, [&](const host_operands& v) { strix::tile(v[0], v[1], d); },
                [&](vk::stream& st, const std::vector<vk::device_view>& v) { st.tile(v[0], v[1], d); },
                [&](vk::context& c, const host_operands& v) { vk::tile(c, v[0], v[1], d); }, t);
        }
    CHECK(ctx.validation_messages() == 0);
}

#endif
