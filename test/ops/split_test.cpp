// The tests of split (ONNX Split): into copies, and into views of the input.
//
// This file is compiled into both test programs (through test/ops/moves.cpp). In the unit program
// it holds the operator's random cases against a reference written from its semantics; in the
// Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the device against the CPU, bit
// for bit. `[split]` selects these tests in either program. A random case prints its seed when it
// fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {

void split_case(std::uint64_t seed, dtype et) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int m = static_cast<int>(uni(g, 1, chance(g, 1, 4) ? 11 : 5)); // past 4: more plans than the executor keeps inline
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape common = random_shape(g, r, 20);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(m));
    for (auto& a : sizes) a = chance(g, 1, 5) ? 0 : uni(g, 1, config.max_size);
    std::vector<knob> knobs;
    for (int i = 0; i < r; ++i)
        if (i != axis) knobs.push_back({&common.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(common[i], 1)});
    for (auto& a : sizes) knobs.push_back({&a, std::min<std::int64_t>(a, 1)});
    auto whole = [&] {
        shape s = common;
        s[axis] = 0;
        for (auto a : sizes) s[axis] += a;
        return s;
    };
    shrink(g, knobs, [&] { return whole().count(); });
    const shape in = whole();
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    const bytes in_before = vin.buf;
    std::vector<strided> outs;
    std::string described;
    for (int k = 0; k < m; ++k) {
        shape s = in;
        s[axis] = sizes[static_cast<std::size_t>(k)];
        outs.push_back(make_strided(g, et, s, true));
        fill_random(g, outs.back().buf);
        described += "\n  output " + std::to_string(k) + " " + outs.back().describe();
    }
    const int form = static_cast<int>(uni(g, 0, 2)); // 0: into views, 1: returning tensors, 2: split_views
    INFO("split, seed " << seed << ", axis " << given_axis << ", form " << form << described);
    INFO("input " << vin.describe());

    // the reference: output k holds the input's coordinates from the sum of the earlier sizes on
    auto expect_of = [&](int k, const shape& s) {
        std::int64_t at = 0;
        for (int j = 0; j < k; ++j) at += sizes[static_cast<std::size_t>(j)];
        bytes e(static_cast<std::size_t>(s.count() * vin.es()));
        for_each_coord(s, [&](const coords& c, std::int64_t lin) {
            coords t = c;
            t[static_cast<std::size_t>(axis)] += at;
            std::memcpy(e.data() + lin * vin.es(), vin.at(t), static_cast<std::size_t>(vin.es()));
        });
        return e;
    };
    const strix::split_desc desc{given_axis};
    if (form == 0) {
        std::vector<bytes> before;
        std::vector<any_view> views;
        for (auto& o : outs) {
            before.push_back(o.buf);
            views.push_back(o.view());
        }
        if (call_ok([&] { strix::split(vin.cview(), views, desc, config.opt); }))
            for (int k = 0; k < m; ++k) check_output(outs[static_cast<std::size_t>(k)], before[static_cast<std::size_t>(k)], expect_of(k, outs[static_cast<std::size_t>(k)].sizes));
    } else if (form == 1) {
        std::vector<host_tensor> ts;
        if (call_ok([&] { ts = strix::split(vin.cview(), sizes, desc, config.opt); })) {
            REQUIRE(ts.size() == sizes.size());
            for (int k = 0; k < m; ++k) check_tensor(ts[static_cast<std::size_t>(k)], et, outs[static_cast<std::size_t>(k)].sizes, expect_of(k, outs[static_cast<std::size_t>(k)].sizes));
        }
    } else {
        std::vector<any_cview> parts;
        if (call_ok([&] { parts = strix::split_views(vin.cview(), sizes, desc); })) {
            REQUIRE(parts.size() == sizes.size());
            for (int k = 0; k < m; ++k) {
                const auto& pv = parts[static_cast<std::size_t>(k)];
                const shape s = outs[static_cast<std::size_t>(k)].sizes;
                REQUIRE(pv.sizes() == s);
                const ref_view rv{static_cast<const std::byte*>(pv.data()), et, s, pv.strides()};
                bytes got(static_cast<std::size_t>(s.count() * vin.es()));
                for_each_coord(s, [&](const coords& c, std::int64_t lin) { std::memcpy(got.data() + lin * vin.es(), rv.at(c), static_cast<std::size_t>(vin.es())); });
                CHECK(got == expect_of(k, s));
            }
        }
    }
    CHECK(vin.buf == in_before);
}

} // namespace strix_test

using namespace strix_test;

TEST_CASE("random: split into 1 to 5 pieces (zero sizes included), as copies and as views", "[random][split]") {
    rng_t seeds(0x73706c69'0000000bULL);
    for (dtype et : strix::all_dtypes)
        for (int rep = 0; rep < 150; ++rep) split_case(seeds(), et);
}

#else // the Vulkan program

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A split into 1 to 4 pieces (zero sizes included); the differential harness checks the last
/// output's bytes and every arena.
void split_case(vk::context& ctx, rng_t& g, dtype type, int rank, tally& t) {
    const shape base = bounded_shape(g, rank, 128);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    const int n = static_cast<int>(uni(g, 1, 4));
    strix::split_desc d{chance(g, 1, 2) ? axis : axis - rank};
    shape in = base;
    in[axis] = 0;
    std::vector<shape> outs;
    for (int k = 0; k < n; ++k) {
        shape s = base;
        s[axis] = chance(g, 1, 5) ? 0 : uni(g, 1, 4);
        in[axis] += s[axis];
        outs.push_back(s);
    }
    INFO("split " << type_name(type) << " into " << n << ", axis " << d.axis);
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true)};
    for (const auto& s : outs) ops.push_back(l.place(g, type, s, false));
    const arenas mem = random_arenas(g, l);
    const auto nn = static_cast<std::size_t>(n);
    auto outputs = [&](const host_operands& v) {
        std::vector<any_view> o;
        for (std::size_t k = 1; k <= nn; ++k) o.push_back(v[k]);
        return o;
    };
    differential(
        ctx, mem, ops, nn, [&](const host_operands& v) { strix::split(v[0], outputs(v), d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.split(v[0], std::span(v.data() + 1, nn), d); },
        [&](vk::context& c, const host_operands& v) { vk::split(c, v[0], outputs(v), d); }, t, [&] {
            std::vector<std::size_t> others;
            for (std::size_t k = 1; k < nn; ++k) others.push_back(k);
            return others;
        }());
}

} // namespace

TEST_CASE("vulkan: split equals the CPU for every element type", "[vulkan][split]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("always 64-bit addressing " << ctx.always_addr64());
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : strix::all_dtypes)
        for (int rep = 0; rep < 4; ++rep) {
            const std::uint64_t seed = case_seed(0x5b1175eedull, k);
            const int rank = static_cast<int>(k % 8) + 1;
            ++k;
            if (!runs_on(path, k)) continue;
            INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
            rng_t g(seed);
            split_case(ctx, g, type, rank, t);
        }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: split_views cuts a device view without copying; the pieces work as operands", "[vulkan][split]") {
    vk::context ctx;
    rng_t g(0x5b11u);
    const host_tensor x = random_tensor(g, dtype::int16, {3, 7});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const std::int64_t sizes[] = {2, 0, 5};
    const auto parts = vk::split_views(dx.view(), sizes, {.axis = -1});
    REQUIRE(parts.size() == 3);
    CHECK(parts[1].sizes == shape{3, 0});
    CHECK(parts[2].address == dx.view().address + 2 * 2); // two int16 along the row
    const auto host_parts = strix::split(x.view(), sizes, {.axis = 1});
    for (std::size_t k = 0; k < 3; ++k) CHECK(same_bytes(vk::stream::download_view(ctx, parts[k]), host_parts[k]));
    // the same rules as on the host
    const std::int64_t bad[] = {2, 2};
    const outcome o = capture([&] { (void)vk::split_views(dx.view(), bad, {.axis = 1}); });
    CHECK(o.threw);
    CHECK_THAT(o.what, Catch::Matchers::StartsWith("strix::split: the sizes must add up to the input's size on the axis"));
}

#endif
