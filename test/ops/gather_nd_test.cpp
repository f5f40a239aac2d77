// The tests of gather-nd (ONNX GatherND), with batch dimensions.
//
// This file is compiled into both test programs (through test/ops/moves.cpp). In the unit program
// it holds the operator's random cases against a reference written from its semantics; in the
// Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the device against the CPU, bit
// for bit. `[gather_nd]` selects these tests in either program. A random case prints its seed when
// it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../support/host.hpp"

namespace strix_test {
namespace {

/// GATHER-ND with b batch dimensions: out[o] = in[o[0..b), tuple(o[0..q-1)), o[q-1..)].
ref_result gather_nd_ref(const ref_view& in, const ref_view& idx, int b, const shape& out_shape) {
    ref_result res;
    const auto es = in.es();
    const int q = idx.sizes.rank;
    const auto k = static_cast<int>(idx.sizes[q - 1]);
    res.data.resize(static_cast<std::size_t>(out_shape.count() * es));
    check_all_tuples(idx, b, in.sizes, res.bad);
    for_each_coord(out_shape, [&](const coords& o, std::int64_t lin) {
        coords t{};
        for (int i = 0; i < b; ++i) t[static_cast<std::size_t>(i)] = o[static_cast<std::size_t>(i)];
        apply_tuple(idx, o, b, in.sizes, t, res.bad);
        for (int i = b + k; i < in.sizes.rank; ++i) t[static_cast<std::size_t>(i)] = o[static_cast<std::size_t>(q - 1 + i - b - k)];
        std::memcpy(res.data.data() + lin * es, in.at(t), static_cast<std::size_t>(es));
    });
    return res;
}

} // namespace

void gather_nd_case(std::uint64_t seed, dtype et, dtype it) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int q = static_cast<int>(uni(g, 1, 8));
    const int b = static_cast<int>(uni(g, 0, std::min(q, r) - 1));
    const int kmax = std::min(r - b, strix::max_rank); // the output rank (q-1) + (r-b-k) must stay <= 8
    const int kmin = std::max(1, (q - 1) + (r - b) - strix::max_rank);
    if (kmin > kmax) return; // no valid tuple length for this draw
    const int k = static_cast<int>(uni(g, kmin, kmax));
    shape in = random_shape(g, r), lead = random_shape(g, q - 1);
    for (int i = 0; i < b; ++i) lead[i] = in[i];
    auto idx_shape = [&] {
        shape s = lead;
        for (int i = 0; i < b; ++i) s[i] = in[i];
        s.push_back(k);
        return s;
    };
    auto out_shape = [&] {
        shape o;
        for (int i = 0; i + 1 < q; ++i) o.push_back(i < b ? in[i] : lead[i]);
        for (int i = b + k; i < r; ++i) o.push_back(in[i]);
        return o;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    for (int i = b; i + 1 < q; ++i) knobs.push_back({&lead.dims[static_cast<std::size_t>(i)], std::min<std::int64_t>(lead[i], 1)});
    shrink(g, knobs, [&] { return std::max({in.count(), out_shape().count(), idx_shape().count()}); });
    const shape idx = idx_shape(), out = out_shape();
    const index_mode ic = random_index_mode(g);
    const auto policy = policy_of(ic);

    strided vin = make_strided(g, et, in, false);
    fill_random(g, vin.buf);
    strided vidx = make_strided(g, it, idx, true); // no aliasing: each component has its own axis
    fill_random(g, vidx.buf);
    const std::string injected = fill_tuples(g, vidx, b, in, ic, false);
    strided vout = make_strided(g, et, out, true);
    fill_random(g, vout.buf);
    const bytes out_before = vout.buf, in_before = vin.buf, idx_before = vidx.buf;
    const bool returning = chance(g, 1, 5);

    INFO("gather-nd, seed " << seed << ", " << index_text(ic) << ", batch dimensions " << b << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("output " << vout.describe());

    const strix::gather_nd_desc desc{b, policy};
    auto call = [&] { strix::gather_nd(vin.cview(), vidx.cview(), vout.view(), desc, config.opt); };
    bool empty_axis = false;
    for (int j = 0; j < k; ++j) empty_axis |= in[b + j] == 0;
    if (empty_axis && idx.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(vout.buf == out_before);
        return;
    }
    const ref_result ref = gather_nd_ref(vin.ref(), vidx.ref(), b, out);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(vout.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::gather_nd(vin.cview(), vidx.cview(), desc, config.opt); })) check_tensor(t, et, out, ref.data);
    } else if (call_ok(call)) {
        check_output(vout, out_before, ref.data);
    }
    CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
}

} // namespace strix_test

using namespace strix_test;

TEST_CASE("random: gather-nd with batch dimensions, every element and index type", "[random][gather_nd]") {
    rng_t seeds(0x67616e64'0000000aULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 60; ++rep) gather_nd_case(seeds(), et, it);
}

#else // the Vulkan program

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A gather-nd with 0 to 2 batch dimensions.
void gather_nd_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, index_mode m, tally& t) {
    const shape in = bounded_shape(g, rank, 256);
    const int b = static_cast<int>(uni(g, 0, std::min(2, rank - 1)));
    const int k = static_cast<int>(uni(g, 1, rank - b));
    shape idx;
    for (int i = 0; i < b; ++i) idx.push_back(in[i]);
    const int extra = static_cast<int>(uni(g, 0, std::min(2, strix::max_rank - (rank - b - k) - b)));
    for (int i = 0; i < extra; ++i) idx.push_back(chance(g, 1, 30) ? 0 : uni(g, 1, 3));
    idx.push_back(k);
    strix::gather_nd_desc d{b, policy_of(m)};
    const auto r = strix::gather_nd_rule(in, idx, d);
    REQUIRE(r.v.ok());
    INFO("gather-nd " << type_name(type) << " by " << type_name(itype) << " " << str(idx) << ", batch dimensions " << b << ", " << index_text(m));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, true), l.place(g, itype, idx, false), l.place(g, type, r.out, false)};
    arenas mem = random_arenas(g, l);
    fill_tuple_view(g, host_view(mem, ops[1]), b, in, m, false);
    differential(
        ctx, mem, ops, 2, [&](const host_operands& v) { strix::gather_nd(v[0], v[1], v[2], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather_nd(v[0], v[1], v[2], d); },
        [&](vk::context& c, const host_operands& v) { vk::gather_nd(c, v[0], v[1], v[2], d); }, t);
}

} // namespace

TEST_CASE("vulkan: gather-nd equals the CPU for every element and index type", "[vulkan][gather_nd]") {
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
                const std::uint64_t seed = case_seed(0x6a0d5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                ++k;
                if (!runs_on(path, k)) continue;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                gather_nd_case(ctx, g, type, itype, rank, m, t);
            }
    CHECK(t.index_errors > at_least(path == 1 ? 4 : 10)); // (path 1: the 1- and 2-byte half)
    CHECK(ctx.validation_messages() == 0);
}

#endif
