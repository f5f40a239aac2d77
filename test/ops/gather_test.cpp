// The tests of gather: numpy.take's natural form and DirectML's IndexDimensions form.
//
// This file is compiled into both test programs (through test/ops/moves.cpp). In the unit program
// it holds SPEC.md's seed examples and the operator's random cases against a reference written
// from its semantics; in the Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the
// device against the CPU, bit for bit. `[gather]` selects these tests in either program. A random
// case prints its seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {

/// GATHER, natural form: output = input[0..axis) ++ indices ++ input(axis..r) and
/// out[f] = in[f[0..axis), indices[f[axis..axis+q)], f[axis+q..]]. Every index is checked.
/// `dropped` describes the DirectML form, whose output is the natural one right-aligned to rank
/// r: the full coordinate f is `dropped` zeros followed by the output coordinate, or, for -1, the
/// output coordinate without its first entry (a leading 1 added by IndexDimensions 0).
ref_result gather_ref(const ref_view& in, const ref_view& idx, int axis, const shape& out_shape, int dropped) {
    ref_result res;
    const auto es = in.es();
    const int r = in.sizes.rank, q = idx.sizes.rank;
    const std::int64_t n = in.sizes[axis];
    res.data.resize(static_cast<std::size_t>(out_shape.count() * es));
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t) { resolve_ref(load_index(idx.at(c), idx.type), n, res.bad); });
    if (n == 0) return res;
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        std::array<std::int64_t, 2 * strix::max_rank> f{}; // the natural form's coordinate
        if (dropped >= 0)
            for (int i = 0; i < out_shape.rank; ++i) f[static_cast<std::size_t>(dropped + i)] = o[static_cast<std::size_t>(i)];
        else
            for (int i = 1; i < out_shape.rank; ++i) f[static_cast<std::size_t>(i - 1)] = o[static_cast<std::size_t>(i)];
        coords ic{};
        for (int j = 0; j < q; ++j) ic[static_cast<std::size_t>(j)] = f[static_cast<std::size_t>(axis + j)];
        bool bad = false;
        coords c{};
        for (int i = 0; i < axis; ++i) c[static_cast<std::size_t>(i)] = f[static_cast<std::size_t>(i)];
        c[static_cast<std::size_t>(axis)] = resolve_ref(load_index(idx.at(ic), idx.type), n, bad);
        for (int i = axis + 1; i < r; ++i) c[static_cast<std::size_t>(i)] = f[static_cast<std::size_t>(i - 1 + q)];
        std::memcpy(res.data.data() + lin * es, in.at(c), static_cast<std::size_t>(es));
    });
    return res;
}

void gather_natural_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int q = static_cast<int>(uni(g, 0, strix::max_rank - r + 1));
    shape in = random_shape(g, r), idx = random_shape(g, q);
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    auto out_shape = [&] {
        shape o;
        for (int i = 0; i < axis; ++i) o.push_back(in[i]);
        for (int j = 0; j < q; ++j) o.push_back(idx[j]);
        for (int i = axis + 1; i < r; ++i) o.push_back(in[i]);
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, idx);
    shrink(g, knobs, [&] { return std::max(in.count(), out_shape().count()); });
    const shape out = out_shape();
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_mode ic = random_index_mode(g);
    const auto policy = policy_of(ic);

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_mode::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf, idx_before = vidx.buf;
    const bool returning = chance(g, 1, 5);

    INFO("gather natural, seed " << seed << ", " << index_text(ic) << ", axis " << given_axis << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_desc desc{given_axis, -1, policy};
    if (in[axis] == 0 && idx.count() > 0) { // indices into an empty axis, read or not
        expect_error(error_code::rule_violation, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_ref(vin.ref(), vidx.ref(), axis, out);
    // Every index is checked, also those an empty output never reads (numpy.take refuses them too).
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::gather(vin.cview(), vidx.cview(), desc, config.opt); })) check_tensor(t, et, out, ref.data);
    } else {
        if (call_ok([&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); })) check_output(vout, out_before, ref.data);
    }
    CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
}

void gather_directml_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int k = static_cast<int>(uni(g, 0, r));
    const int axis = static_cast<int>(uni(g, std::max(k - 1, 0), r - 1));
    shape in = random_shape(g, r);
    for (int i = 0; i + 1 < k; ++i) in[i] = 1; // the leading 1s the output drops
    shape tail = random_shape(g, k);            // the meaningful index dimensions
    // the output: input[k-1..axis) ++ tail ++ input(axis..r), or a leading 1 first for K = 0
    // (the natural form's shape, of rank r + k - 1, right-aligned to rank r)
    auto out_shape = [&] {
        shape o;
        if (k == 0) o.push_back(1);
        for (int i = std::max(k - 1, 0); i < axis; ++i) o.push_back(in[i]);
        for (int j = 0; j < k; ++j) o.push_back(tail[j]);
        for (int i = axis + 1; i < r; ++i) o.push_back(in[i]);
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, tail);
    shrink(g, knobs, [&] { return std::max(in.count(), out_shape().count()); });
    const shape out = out_shape();
    REQUIRE(out.rank == r);
    shape idx;
    for (int i = 0; i < r - k; ++i) idx.push_back(1);
    for (int j = 0; j < k; ++j) idx.push_back(tail[j]);
    // the natural form on the meaningful indices, where its rank r + k - 1 is at most 8
    const bool natural_fits = r + k - 1 <= strix::max_rank;
    shape natural;
    if (natural_fits) {
        for (int i = 0; i < k - 1; ++i) natural.push_back(1);
        for (int i = k == 0 ? 1 : 0; i < r; ++i) natural.push_back(out[i]);
    }

    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_mode ic = random_index_mode(g);
    const auto policy = policy_of(ic);
    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, false);
    fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_mode::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf;

    // the meaningful part of the indices: their last k dimensions
    ref_view tail_ref = vidx.ref();
    tail_ref.sizes = tail;
    coords tail_strides{};
    for (int j = 0; j < k; ++j) tail_strides[static_cast<std::size_t>(j)] = vidx.strides[static_cast<std::size_t>(r - k + j)];
    tail_ref.strides = tail_strides;
    const any_cview tail_view(tail_ref.origin, it, tail, tail_strides);

    INFO("gather DirectML form, seed " << seed << ", " << index_text(ic) << ", axis " << given_axis << ", IndexDimensions " << k);
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_desc desc{given_axis, k, policy};
    const strix::gather_desc natural_desc{given_axis, -1, policy};
    if (in[axis] == 0 && idx.count() > 0) { // indices into an empty axis, read or not
        expect_error(error_code::rule_violation, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_ref(vin.ref(), tail_ref, axis, out, k - 1);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, [&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); });
        CHECK(vout.buf == out_before);
        if (natural_fits)
            expect_error(error_code::index_out_of_range, [&] { (void)strix::gather(vin.cview(), tail_view, natural_desc, config.opt); });
        return;
    }
    if (!call_ok([&] { strix::gather(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); })) return;
    check_output(vout, out_before, ref.data);
    // the natural form on the meaningful indices gives the same elements, reshaped
    host_tensor t;
    if (natural_fits && call_ok([&] { t = strix::gather(vin.cview(), tail_view, natural_desc, config.opt); })) {
        check_tensor(t, et, natural, ref.data);
        check_tensor(t, et, natural, read_view(vout));
    }
}

} // namespace strix_test

using namespace strix_test;

using namespace strix; // the seed examples call the operators unqualified

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

TEST_CASE("random: gather, natural form, every element and index type", "[random][gather]") {
    rng_t seeds(0x67617468'65720001ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 100; ++rep) gather_natural_case(seeds(), et, it);
}

TEST_CASE("random: gather, DirectML IndexDimensions form, every element and index type", "[random][gather]") {
    rng_t seeds(0x67617468'65720002ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 50; ++rep) gather_directml_case(seeds(), et, it);
}

#else // the Vulkan program

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A gather with random shapes and strides: natural form, or DirectML's with index_dimensions.
void gather_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, bool directml, index_mode m, tally& t) {
    shape in, idx;
    strix::gather_desc d;
    d.policy = policy_of(m);
    int axis = 0;
    if (!directml) {
        in = bounded_shape(g, rank, 256);
        idx = bounded_shape(g, static_cast<int>(uni(g, 0, std::min(3, 9 - rank))), 24);
        axis = static_cast<int>(uni(g, 0, rank - 1));
    } else {
        const int k = static_cast<int>(uni(g, 0, rank));
        in = bounded_shape(g, rank, 256);
        for (int i = 0; i + 1 < k; ++i) in[i] = 1;
        axis = static_cast<int>(uni(g, std::max(k - 1, 0), rank - 1));
        for (int i = 0; i < rank; ++i) idx.push_back(i < rank - k ? 1 : (chance(g, 1, 40) ? 0 : uni(g, 1, 4)));
        shrink_to(g, idx, 24);
        d.index_dimensions = k;
    }
    d.axis = chance(g, 1, 2) ? axis : axis - rank;
    const auto r = strix::gather_rule(in, idx, d);
    REQUIRE(r.v.ok());
    INFO("gather " << type_name(type) << " by " << type_name(itype) << ", axis " << d.axis << ", index_dimensions " << d.index_dimensions
                   << ", " << index_text(m));

    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, itype, idx, true), l.place(g, type, r.out, false)};
    arenas mem = random_arenas(g, l);
    // every index element (in the DirectML form the leading dimensions have size 1)
    fill_index_view(g, host_view(mem, ops[1]), in[axis], m);
    differential(
        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather(v[0], v[1], v[2], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather(v[0], v[1], v[2], d); },
        [&](vk::context& c, const host_operands& v) { vk::gather(c, v[0], v[1], v[2], d); }, t);
}

} // namespace

// A gather on a middle axis whose rows lie 64 KiB or more apart: unlike gather-elements, it reads
// whole rows in place (coalesced), never through a tile of the input (shaders/tile.comp); checked
// against the CPU with valid, clamped and out-of-range indices, dense and strided.
TEST_CASE("vulkan: gather on an axis of far-apart rows equals the CPU, rows read in place", "[vulkan][gather][tile]") {
    struct tile_case {
        dtype type;
        shape in, idx;
        int axis;
        const char* what;
    };
    const tile_case cases[] = {
        {dtype::float32, {4, 200, 128}, {300}, 1, "rows of 512 bytes moved as 16-byte elements"},
        {dtype::float64, {2, 150, 60}, {15, 20}, 1, "two index dimensions, 8-byte elements"},
        {dtype::int8, {4, 200, 400}, {300}, 1, "1-byte elements, rows widened to 16 bytes"},
    };
    vk::context ctx;
    rng_t g(0x7153ull);
    tally t;
    for (const auto& c : cases)
        for (const dtype itype : {dtype::int32, dtype::int64})
            for (const index_mode m : index_modes)
                for (const bool dense : {true, false}) {
                    INFO(c.what << ": " << type_name(c.type) << " " << str(c.in) << " by " << type_name(itype) << " " << str(c.idx)
                                << ", axis " << c.axis << ", " << index_text(m) << (dense ? ", dense" : ", strided"));
                    const strix::gather_desc d{c.axis, -1, policy_of(m)};
                    const auto r = strix::gather_rule(c.in, c.idx, d);
                    REQUIRE(r.v.ok());
                    layout l{false};
                    const std::int64_t spread = dense ? 1 : 2;
                    std::vector<placed> ops{l.place_alone(c.type, c.in, spread_strides(c.in, spread)), l.place_alone(itype, c.idx, spread_strides(c.idx, spread)),
                                            l.place_alone(c.type, r.out, spread_strides(r.out, spread))};
                    arenas mem = random_arenas(g, l);
                    fill_index_view(g, host_view(mem, ops[1]), c.in[c.axis], m);
                    const int before = t.tiled;
                    differential(
                        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather(v[0], v[1], v[2], d); },
                        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather(v[0], v[1], v[2], d); },
                        [&](vk::context& cx, const host_operands& v) { vk::gather(cx, v[0], v[1], v[2], d); }, t);
                    CHECK(t.tiled == before);
                }
    CHECK(t.index_errors > 0);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: gather equals the CPU for every element and index type, both forms", "[vulkan][gather]") {
    const int path = GENERATE(from_range(test_paths()));
    const bool small = path != 1;
    vk::context ctx(path_options(path));
    INFO("always 64-bit addressing " << ctx.always_addr64());
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const std::size_t bytes : element_sizes)
        for (const dtype itype : strix::index_dtypes)
            for (const index_mode m : index_modes)
                for (const bool directml : {false, true}) {
                    if (path == 1 && !words_path_differs(bytes)) continue;
                    const dtype type = type_of_size(bytes, k);
                    const std::uint64_t seed = case_seed(0x6a7e5eedull, k);
                    const int rank = static_cast<int>(k % 8) + 1;
                    ++k;
                    if (!runs_on(path, k)) continue;
                    INFO("seed " << seed << ", rank " << rank);
                    rng_t g(seed);
                    gather_case(ctx, g, type, itype, rank, directml, m, t);
                }
    CHECK(t.index_errors > at_least(path == 1 ? 8 : 20)); // (path 1: the 1- and 2-byte half)
    CHECK(ctx.validation_messages() == 0);
}

#endif
