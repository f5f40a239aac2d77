// The tests of gather-elements (ONNX GatherElements).
//
// This file is compiled into both test programs (through test/ops/moves.cpp). In the unit program
// it holds the operator's random cases against a reference written from its semantics; in the
// Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the device against the CPU, bit
// for bit. `[gather_elements]` selects these tests in either program. A random case prints its
// seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {

/// GATHER-ELEMENTS: out[c] = in[c with c[axis] = indices[c]] over the indices' shape.
ref_result gather_elements_ref(const ref_view& in, const ref_view& idx, int axis) {
    ref_result res;
    const auto es = in.es();
    res.data.resize(static_cast<std::size_t>(idx.sizes.count() * es));
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t lin) {
        coords t = c;
        t[static_cast<std::size_t>(axis)] = resolve_ref(load_index(idx.at(c), idx.type), in.sizes[axis], res.bad);
        std::memcpy(res.data.data() + lin * es, in.at(t), static_cast<std::size_t>(es));
    });
    return res;
}

void gather_elements_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape in = random_shape(g, r), idx;
    for (int i = 0; i < r; ++i)
        idx.push_back(i == axis ? (chance(g, 1, 20) ? 0 : uni(g, 1, config.max_size + 1)) : uni(g, std::min<std::int64_t>(in[i], 1), in[i]));
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, idx);
    shrink(g, knobs, [&] { return std::max(in.count(), idx.count()); });
    for (int i = 0; i < r; ++i)
        if (i != axis) idx[i] = std::min(idx[i], in[i]);
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_mode ic = random_index_mode(g);
    const auto policy = policy_of(ic);

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_mode::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vout = make_strided(g, et, idx, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf, idx_before = vidx.buf;
    const bool returning = chance(g, 1, 5);

    INFO("gather-elements, seed " << seed << ", " << index_text(ic) << ", axis " << given_axis << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_elements_desc desc{given_axis, policy};
    auto call = [&] { strix::gather_elements(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); };
    if (in[axis] == 0 && idx.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_elements_ref(vin.ref(), vidx.ref(), axis);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(vout.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::gather_elements(vin.cview(), vidx.cview(), desc, config.opt); })) check_tensor(t, et, idx, ref.data);
    } else if (call_ok(call)) {
        check_output(vout, out_before, ref.data);
    }
    CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
}

} // namespace strix_test

using namespace strix_test;

TEST_CASE("random: gather-elements, every element and index type", "[random][gather_elements]") {
    rng_t seeds(0x67656c65'00000009ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 60; ++rep) gather_elements_case(seeds(), et, it);
}

#else // the Vulkan program

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A gather-elements: indices of the input's rank, not larger off the axis.
void gather_elements_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, index_mode m, tally& t) {
    const shape in = bounded_shape(g, rank, 256);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    shape idx = in;
    for (int i = 0; i < rank; ++i) idx[i] = i == axis ? (chance(g, 1, 20) ? 0 : uni(g, 1, 5)) : uni(g, std::min<std::int64_t>(in[i], 1), in[i]);
    shrink_to(g, idx, 64);
    strix::gather_elements_desc d{chance(g, 1, 2) ? axis : axis - rank, policy_of(m)};
    INFO("gather-elements " << type_name(type) << " by " << type_name(itype) << ", axis " << d.axis << ", " << index_text(m));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, itype, idx, true), l.place(g, type, idx, false)};
    arenas mem = random_arenas(g, l);
    fill_index_view(g, host_view(mem, ops[1]), in[axis], m);
    differential(
        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather_elements(v[0], v[1], v[2], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather_elements(v[0], v[1], v[2], d); },
        [&](vk::context& c, const host_operands& v) { vk::gather_elements(c, v[0], v[1], v[2], d); }, t);
}

} // namespace

// Shapes whose gathered axis spans 64 KiB or more, which the device moves through a tile of the
// input in shared memory (shaders/tile.comp), and neighbours that it must not: the choice is
// checked, and every result against the CPU (valid, clamped and out-of-range indices, every index
// type, dense and strided views).
TEST_CASE("vulkan: gather-elements through a tile of the input equals the CPU", "[vulkan][gather_elements][tile]") {
    struct tile_case {
        dtype type;
        shape in, idx;
        int axis;
        bool tiled;  // dense operands take the tile path
        const char* what;
    };
    const tile_case cases[] = {
        {dtype::float32, {3, 300, 60}, {3, 200, 50}, 1, true, "a middle axis, rows 240 bytes apart, one element per invocation"},
        {dtype::float32, {2, 300, 64}, {2, 200, 64}, 1, true, "a middle axis, 16-byte moves (rows of 64 elements)"},
        {dtype::int64, {2, 130, 70}, {2, 130, 70}, 1, true, "8-byte elements, two per 16-byte move"},
        {dtype::float32, {40, 500}, {200, 500}, 0, true, "the outer axis, split into 5 pieces of 40 rows"},
        {dtype::float32, {3, 300, 60}, {3, 100, 50}, 1, false, "fewer indices than half the axis: read in place"},
        {dtype::float32, {3, 60, 60}, {3, 60, 60}, 1, false, "an axis spanning 14 KB: read in place"},
        {dtype::float16, {3, 300, 60}, {3, 200, 50}, 1, false, "2-byte elements: read in place"},
        {dtype::float32, {300, 60, 4}, {300, 60, 4}, 2, false, "the innermost axis: read in place"},
    };
    vk::context ctx;
    REQUIRE(ctx.tile_words() >= 4096);
    rng_t g(0x711e5ull);
    tally t;
    int expect = 0, n = -1;
    for (const auto& c : cases)
        for (const dtype itype : {dtype::int32, dtype::uint64}) // signed 4-byte and unsigned 8-byte; the others in the random test
            for (const index_mode m : index_modes)
                for (const bool dense : {true, false}) {
                    // a sanitized run (reduced): one index mode per case and index type, in turn
                    ++n;
                    if (reduced_run() && (n / 2) % 3 != (n / 6) % 3) continue;
                    INFO(c.what << ": " << type_name(c.type) << " " << str(c.in) << " by " << type_name(itype) << " " << str(c.idx)
                                << ", axis " << c.axis << ", " << index_text(m) << (dense ? ", dense" : ", strided"));
                    const strix::gather_elements_desc d{c.axis, policy_of(m)};
                    layout l{false};
                    // strided: every operand spread out, so the plan keeps its dimensions
                    const std::int64_t spread = dense ? 1 : 2;
                    std::vector<placed> ops{l.place_alone(c.type, c.in, spread_strides(c.in, spread)), l.place_alone(itype, c.idx, spread_strides(c.idx, spread)),
                                            l.place_alone(c.type, c.idx, spread_strides(c.idx, spread))};
                    arenas mem = random_arenas(g, l);
                    fill_index_view(g, host_view(mem, ops[1]), c.in[c.axis], m);
                    const int before = t.tiled;
                    differential(
                        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather_elements(v[0], v[1], v[2], d); },
                        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather_elements(v[0], v[1], v[2], d); },
                        [&](vk::context& cx, const host_operands& v) { vk::gather_elements(cx, v[0], v[1], v[2], d); }, t);
                    if (dense) CHECK(t.tiled - before == (c.tiled ? 1 : 0));
                    expect += dense && c.tiled ? 1 : 0;
                }
    CHECK(t.tiled >= expect);
    CHECK(t.index_errors > 0);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: gather-elements equals the CPU for every element and index type", "[vulkan][gather_elements]") {
    const int path = GENERATE(from_range(test_paths()));
    vk::context ctx(path_options(path));
    INFO("always 64-bit addressing " << ctx.always_addr64());
    tally t;
    std::uint64_t k = 0;
    for (const std::size_t bytes : element_sizes)
        for (const dtype itype : strix::index_dtypes)
            for (const index_mode m : index_modes) {
                if (path == 1 && !words_path_differs(bytes)) continue;
                const dtype type = type_of_size(bytes, k);
                const std::uint64_t seed = case_seed(0x6e1e5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                gather_elements_case(ctx, g, type, itype, rank, m, t);
            }
    CHECK(t.index_errors > at_least(path == 1 ? 4 : 10)); // (path 1: the 1- and 2-byte half)
    CHECK(ctx.validation_messages() == 0);
}

#endif
