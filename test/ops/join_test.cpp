// The tests of join (DirectML Join, ONNX Concat).
//
// This file is compiled into both test programs (through test/ops/moves.cpp). In the unit program
// it holds SPEC.md's seed examples and the operator's random cases against a reference written
// from its semantics; in the Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the
// device against the CPU, bit for bit. `[join]` selects these tests in either program. A random
// case prints its seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {

/// JOIN: the inputs one after another along the axis.
bytes join_ref(const std::vector<ref_view>& ins, int axis, const shape& out_shape) {
    const auto es = ins[0].es();
    bytes out(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords c = o;
        std::size_t k = 0;
        auto& pos = c[static_cast<std::size_t>(axis)];
        while (pos >= ins[k].sizes[axis]) pos -= ins[k++].sizes[axis];
        std::memcpy(out.data() + lin * es, ins[k].at(c), static_cast<std::size_t>(es));
    });
    return out;
}

void join_case(std::uint64_t seed, dtype et) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int m = static_cast<int>(uni(g, 1, chance(g, 1, 4) ? 11 : 4)); // past 4: more plans than the executor keeps inline
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape common = random_shape(g, r, 20);
    std::vector<std::int64_t> along(static_cast<std::size_t>(m));
    for (auto& a : along) a = chance(g, 1, 6) ? 0 : uni(g, 1, config.max_size);
    std::vector<knob> knobs;
    for (int i = 0; i < r; ++i)
        if (i != axis) knobs.push_back({&common.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(common[i], 1)});
    for (auto& a : along) knobs.push_back({&a, std::min<std::int64_t>(a, 1)});
    auto total = [&] {
        std::int64_t n = 0;
        for (auto a : along) n += a;
        shape s = common;
        s[axis] = n;
        return s;
    };
    shrink(g, knobs, [&] { return total().count(); });
    const shape out = total();
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;

    std::vector<strided> ins;
    std::string described;
    for (int k = 0; k < m; ++k) {
        shape s = common;
        s[axis] = along[static_cast<std::size_t>(k)];
        ins.push_back(make_strided(g, et, s, false));
        fill_random(g, ins.back().buf);
        described += "\n  input " + std::to_string(k) + " " + ins.back().describe();
    }
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf;
    const bool returning = chance(g, 1, 5);

    INFO("join, seed " << seed << ", axis " << given_axis << (returning ? ", returning overload" : "") << described);
    INFO("output " << vout.describe());

    std::vector<any_cview> views;
    std::vector<ref_view> refs;
    for (const auto& v : ins) {
        views.push_back(v.cview());
        refs.push_back(v.ref());
    }
    const bytes expect = join_ref(refs, axis, out);
    const strix::join_desc desc{given_axis};
    if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::join(views, desc, config.opt); })) check_tensor(t, et, out, expect);
    } else {
        if (call_ok([&] { strix::join(views, vout.view(), desc, config.opt); })) check_output(vout, out_before, expect);
    }
}

} // namespace strix_test

using namespace strix_test;

using namespace strix; // the seed examples call the operators unqualified

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

TEST_CASE("random: join of 1 to 4 inputs, every element type", "[random][join]") {
    rng_t seeds(0x6a6f696e'00000003ULL);
    for (dtype et : strix::all_dtypes)
        for (int rep = 0; rep < 200; ++rep) join_case(seeds(), et);
}

#else // the Vulkan program

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A join of `n` inputs with random axis sizes (0 included).
void join_case(vk::context& ctx, rng_t& g, dtype type, int rank, int n, tally& t) {
    const shape base = bounded_shape(g, rank, 128);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    strix::join_desc d{chance(g, 1, 2) ? axis : axis - rank};
    INFO("join " << n << " inputs of " << type_name(type) << ", axis " << d.axis);
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops;
    std::vector<shape> shapes;
    for (int k = 0; k < n; ++k) {
        shape s = base;
        s[axis] = chance(g, 1, 6) ? 0 : uni(g, 1, 4);
        shapes.push_back(s);
        ops.push_back(l.place(g, type, s, true));
    }
    const auto r = strix::join_rule(shapes, d);
    REQUIRE(r.v.ok());
    ops.push_back(l.place(g, type, r.out, false));
    const arenas mem = random_arenas(g, l);
    const auto nn = static_cast<std::size_t>(n);
    differential(
        ctx, mem, ops, nn, [&](const host_operands& v) { strix::join(v.inputs(nn), v[nn], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.join(std::span(v.data(), nn), v[nn], d); },
        [&](vk::context& c, const host_operands& v) { vk::join(c, v.inputs(nn), v[nn], d); }, t);
}

} // namespace

TEST_CASE("vulkan: join of 1 to 4 inputs equals the CPU for every element type", "[vulkan][join]") {
    const int path = GENERATE(from_range(test_paths()));
    const bool small = path != 1;
    vk::context ctx(path_options(path));
    INFO("always 64-bit addressing " << ctx.always_addr64());
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : strix::all_dtypes)
        for (int n = 1; n <= 4; ++n)
            for (int rep = 0; rep < 2; ++rep) {
                const std::uint64_t seed = case_seed(0x701115eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                join_case(ctx, g, type, rank, n, t);
            }
    CHECK(ctx.validation_messages() == 0);
}

// The copies of a join write disjoint parts of one output: nothing orders them.
TEST_CASE("vulkan: the parts of one join need no barrier between them", "[vulkan][join]") {
    vk::context ctx;
    rng_t g(0x701dull);
    const host_tensor x = random_tensor(g, dtype::uint16, {3, 4});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor out(ctx, dtype::uint16, {3, 12});
    vk::stream s(ctx, {.stats = true});
    const vk::device_view parts[] = {dx.view(), dx.view(), dx.view()};
    s.join(parts, out.view(), {1});
    CHECK(s.stats().barriers == 0);
    s.run();
    const any_cview hparts[] = {x.view(), x.view(), x.view()};
    CHECK(same_bytes(read_back(ctx, out), strix::join(hparts, {1})));
    CHECK(ctx.validation_messages() == 0);
}

#endif
