// The tests of scatter-nd (ONNX ScatterND), plain and with reductions.
//
// This file is compiled into both test programs (through test/ops/updates.cpp). In the unit
// program it holds the operator's random cases against a reference written from its semantics; in
// the Vulkan program, which defines STRIX_TEST_VULKAN, the operator on the device against the CPU,
// bit for bit. `[scatter_nd]` selects these tests in either program. A random case prints its seed
// when it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../support/host.hpp"
#include "../support/reduction.hpp"

namespace strix_test {
namespace {

/// SCATTER-ND: output = input, then every update u in row-major order combines into
/// output[tuple(u[0..q-1)), u[q-1..)].
ref_result scatter_nd_ref(const ref_view& in, const ref_view& idx, const ref_view& upd, strix::scatter_reduction red) {
    ref_result res;
    const auto es = in.es();
    const int q = idx.sizes.rank;
    const auto k = static_cast<int>(idx.sizes[q - 1]);
    res.data.resize(static_cast<std::size_t>(in.sizes.count() * es));
    for_each_coord(in.sizes, [&](const coords& c, std::int64_t lin) {
        std::memcpy(res.data.data() + lin * es, in.at(c), static_cast<std::size_t>(es));
    });
    check_all_tuples(idx, 0, in.sizes, res.bad);
    for_each_coord(upd.sizes, [&](const coords& u, std::int64_t) {
        coords t{};
        apply_tuple(idx, u, 0, in.sizes, t, res.bad);
        for (int i = k; i < in.sizes.rank; ++i) t[static_cast<std::size_t>(i)] = u[static_cast<std::size_t>(q - 1 + i - k)];
        combine_ref(res.data.data() + linear_of(in.sizes, t) * es, upd.at(u), in.type, red);
    });
    return res;
}

} // namespace

void scatter_nd_case(std::uint64_t seed, dtype et, dtype it, strix::scatter_reduction red) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int k = static_cast<int>(uni(g, 1, r));
    const int q = static_cast<int>(uni(g, 1, std::min(strix::max_rank, strix::max_rank - (r - k) + 1))); // updates rank (q-1) + (r-k) <= 8
    shape in = random_shape(g, r, 20), lead = random_shape(g, q - 1, 20);
    auto upd_shape = [&] {
        shape u = lead;
        for (int i = k; i < r; ++i) u.push_back(in[i]);
        return u;
    };
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, lead);
    shrink(g, knobs, [&] { return std::max(in.count(), upd_shape().count()); });
    shape idx = lead;
    idx.push_back(k);
    const shape upd = upd_shape();
    const index_mode ic = random_index_mode(g);
    const auto policy = policy_of(ic);
    const bool in_place = chance(g, 1, 3);
    const bool returning = !in_place && chance(g, 1, 5);

    strided vin = make_strided(g, et, in, in_place);
    fill_random(g, vin.buf, vin.type);
    strided vidx = make_strided(g, it, idx, true);
    fill_random(g, vidx.buf);
    const std::string injected = fill_tuples(g, vidx, 0, in, ic, chance(g, 1, 3));
    strided vupd = make_strided(g, et, upd, false);
    fill_random(g, vupd.buf, vupd.type);
    strided vout;
    if (!in_place) {
        vout = make_strided(g, et, in, true);
        fill_random(g, vout.buf, vout.type);
    }
    strided& target = in_place ? vin : vout;
    const bytes out_before = target.buf, in_before = vin.buf, idx_before = vidx.buf, upd_before = vupd.buf;

    INFO("scatter-nd, seed " << seed << ", reduction " << static_cast<int>(red) << ", " << index_text(ic) << (in_place ? ", in place" : "")
                             << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("updates " << vupd.describe());
    INFO("output " << (in_place ? std::string("the input") : vout.describe()));

    const strix::scatter_nd_desc desc{policy, red, chance(g, 1, 2)};
    auto call = [&] { strix::scatter_nd(vin.cview(), vidx.cview(), vupd.cview(), target.view(), desc, config.opt); };
    bool empty_axis = false;
    for (int j = 0; j < k; ++j) empty_axis |= in[j] == 0;
    if (empty_axis && lead.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(target.buf == out_before);
        return;
    }
    const ref_result ref = scatter_nd_ref(vin.ref(), vidx.ref(), vupd.ref(), red);
    if (policy == index_policy::error && ref.bad) {
        expect_error(error_code::index_out_of_range, call);
        CHECK(target.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::scatter_nd(vin.cview(), vidx.cview(), vupd.cview(), desc, config.opt); })) check_tensor(t, et, in, ref.data);
    } else if (call_ok(call)) {
        check_output(target, out_before, ref.data);
    }
    if (!in_place) CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
    CHECK(vupd.buf == upd_before);
}

} // namespace strix_test

using namespace strix_test;

TEST_CASE("random: scatter-nd, every reduction, element and index type", "[random][scatter_nd]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x73636e64'0000000dULL);
    for (dtype et : strix::all_dtypes)
        for (R red : {R::none, R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < 40; ++rep) scatter_nd_case(seeds(), et, strix::index_dtypes[rep % 4], red);
}

TEST_CASE("scatter-nd without a reduction copies only the slices its tuples leave", "[scatter_nd]") {
    // C-order inputs and outputs whose slices span 256 bytes or more skip copying the slices the
    // updates replace (detail::copy_unreplaced_slices). Slices of 63, 64, 65 and 1000 float32
    // (under, at and over the limit; not whole lines), one and two index axes, tuples that
    // repeat, negative, clamped and bad indices, one and three threads, streamed and plain
    // stores, an output that starts as garbage: each equals the reference, and a bad index under
    // `error` leaves the output as it was.
    rng_t g(0x736b6970'00000001ULL);
    for (int k : {1, 2})
        for (std::int64_t inner : {63, 64, 65, 1000})
            for (int threads : {1, 3})
                for (std::int64_t stream_min : {std::int64_t{0}, std::int64_t{-1}})
                    for (index_mode m : {index_mode::valid, index_mode::clamp, index_mode::error})
                        for (dtype it : {dtype::int64, dtype::int32, dtype::uint32}) {
                            const shape out_shape = k == 1 ? shape{37, inner} : shape{5, 9, inner};
                            const std::int64_t tuples = uni(g, 1, 60);
                            INFO(k << " index axes, slices of " << inner << ", " << tuples << " tuples by " << type_name(it) << ", "
                                   << threads << " threads, " << (stream_min == 0 ? "streamed" : "plain") << ", " << index_text(m));
                            strided in = make_c_order(dtype::float32, out_shape);
                            fill_random(g, in.buf, in.type);
                            strided out = make_c_order(dtype::float32, out_shape);
                            fill_random(g, out.buf, out.type);
                            strided idx = make_c_order(it, shape{tuples, k});
                            const std::string injected = fill_tuples(g, idx, 0, out_shape, m, chance(g, 1, 2));
                            INFO("bad index: " << injected);
                            strided upd = make_c_order(dtype::float32, shape{tuples, inner});
                            fill_random(g, upd.buf, upd.type);
                            const bytes out_before = out.buf;
                            const ref_result ref = scatter_nd_ref(in.ref(), idx.ref(), upd.ref(), strix::scatter_reduction::none);
                            strix::cpu::options opt;
                            opt.threads = threads;
                            opt.min_bytes_per_thread = 1;
                            opt.stream_min_bytes = stream_min;
                            const strix::scatter_nd_desc d{policy_of(m)};
                            auto call = [&] { strix::scatter_nd(in.cview(), idx.cview(), upd.cview(), out.view(), d, opt); };
                            if (m == index_mode::error) {
                                REQUIRE(ref.bad);
                                expect_error(error_code::index_out_of_range, call);
                                CHECK(out.buf == out_before);
                            } else if (call_ok(call)) {
                                check_output(out, out_before, ref.data);
                            }
                        }
}

TEST_CASE("scatter-nd's slice-skipping copy: which calls take it, and what it leaves", "[scatter_nd]") {
    // Rows 0 and 2 of a [4, 64] float32 output are replaced: rows 1 and 3 come from the input,
    // rows 0 and 2 keep what the output held. Slices under 256 bytes, a transposed output or
    // input, and no tuples take the plain copy (false, nothing written).
    const shape s{4, 64};
    auto fill = [](strided& v, float x) {
        for (std::int64_t i = 0; i < v.sizes.count(); ++i) {
            const float y = x + static_cast<float>(i);
            std::memcpy(v.buf.data() + i * 4, &y, 4);
        }
    };
    strided in = make_c_order(dtype::float32, s), out = make_c_order(dtype::float32, s);
    fill(in, 1000.0f);
    fill(out, -1.0f);
    const std::vector<std::int64_t> offsets{0, 2 * 256, 2 * 256};
    strix::cpu::options opt;
    REQUIRE(strix::detail::copy_unreplaced_slices(in.cview(), out.view(), 1, offsets, opt));
    for (std::int64_t i = 0; i < s.count(); ++i) {
        float y;
        std::memcpy(&y, out.buf.data() + i * 4, 4);
        const std::int64_t row = i / 64;
        INFO("element " << i);
        CHECK(y == (row == 1 || row == 3 ? 1000.0f : -1.0f) + static_cast<float>(i));
    }
    const bytes before = out.buf;
    const shape narrow{4, 63};
    strided in2 = make_c_order(dtype::float32, narrow), out2 = make_c_order(dtype::float32, narrow);
    CHECK_FALSE(strix::detail::copy_unreplaced_slices(in2.cview(), out2.view(), 1, offsets, opt));
    // the same [4, 64] in column-major order, as the output and as the input
    const strix::any_view tout(out.view().data(), dtype::float32, s, {1, 4});
    const strix::any_cview tin(in.cview().data(), dtype::float32, s, {1, 4});
    CHECK_FALSE(strix::detail::copy_unreplaced_slices(in.cview(), tout, 1, offsets, opt));
    CHECK_FALSE(strix::detail::copy_unreplaced_slices(tin, out.view(), 1, offsets, opt));
    CHECK_FALSE(strix::detail::copy_unreplaced_slices(in.cview(), out.view(), 1, {}, opt));
    CHECK(out.buf == before);
}

// unique_indices: the caller's promise that no two updates share a target. The CPU then shares
// the updates among its threads along any dimension (the index's too: scatter-nd's rows by row,
// where without the promise each row is split by columns); the results equal the naive
// references (scatter_ref, scatter_nd_ref) on one and two threads, every reduction, in and out of
// place. A false promise leaves a repeated target with one of its updates' values (no reduction).
TEST_CASE("scatter and scatter-nd with unique indices: any order, any thread", "[scatter_nd][scatter]") {
    using R = strix::scatter_reduction;
    rng_t g(0x0171e5'00000002ULL);
    for (const int threads : {1, 2})
        for (const R red : {R::none, R::add, R::max})
            for (const bool in_place : {false, true}) {
                INFO(threads << " threads, reduction " << static_cast<int>(red) << (in_place ? ", in place" : ""));
                strix::cpu::options opt;
                opt.threads = threads;
                opt.min_bytes_per_thread = 1; // shared from the first byte
                // scatter-nd: 1500 distinct rows of a [2000, 64] table (the first of a
                // permutation), written from the end at random
                {
                    const dtype et = red == R::none ? dtype::float32 : dtype::int32;
                    strided in = make_c_order(et, shape{2000, 64});
                    fill_random(g, in.buf, in.type);
                    strided idx = make_c_order(dtype::int64, shape{1500, 1});
                    std::vector<std::int64_t> perm(2000);
                    for (std::int64_t i = 0; i < 2000; ++i) perm[static_cast<std::size_t>(i)] = i;
                    std::shuffle(perm.begin(), perm.end(), g);
                    for (std::int64_t j = 0; j < 1500; ++j) {
                        const std::int64_t v = perm[static_cast<std::size_t>(j)] - (chance(g, 1, 3) ? 2000 : 0);
                        std::memcpy(idx.buf.data() + j * 8, &v, 8);
                    }
                    strided upd = make_c_order(et, shape{1500, 64});
                    fill_random(g, upd.buf, upd.type);
                    const ref_result ref = scatter_nd_ref(in.ref(), idx.ref(), upd.ref(), red);
                    REQUIRE_FALSE(ref.bad);
                    const strix::scatter_nd_desc d{.reduction = red, .unique_indices = true};
                    if (in_place) {
                        strix::scatter_nd(in.cview(), idx.cview(), upd.cview(), in.view(), d, opt);
                        CHECK(in.buf == ref.data);
                    } else {
                        check_tensor(strix::scatter_nd(in.cview(), idx.cview(), upd.cview(), d, opt), et, shape{2000, 64}, ref.data);
                    }
                    // the plan is shared by rows where the promise is made, by columns where not
                    strix::any_view out = in.view();
                    auto p = strix::detail::lower_scatter_nd(idx.cview().sizes(), upd.cview(), out, d, {}, nullptr, 0);
                    CHECK(strix::cpu::detail::shared_dim(p, 2) == 0);
                    p.unique = false;
                    CHECK(strix::cpu::detail::shared_dim(p, 2) == 1);
                }
                // scatter along each axis of [300, 70] int16, each line's indices distinct
                for (const int axis : {0, 1}) {
                    const shape s{300, 70}, is = axis == 0 ? shape{250, 70} : shape{300, 50};
                    strided in = make_c_order(dtype::int16, s);
                    fill_random(g, in.buf, in.type);
                    strided idx = make_c_order(dtype::int32, is);
                    std::vector<std::int32_t> perm(static_cast<std::size_t>(s[axis]));
                    const std::int64_t lines = is[1 - axis], along = is[axis];
                    for (std::int64_t l = 0; l < lines; ++l) {
                        for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::int32_t>(i);
                        std::shuffle(perm.begin(), perm.end(), g);
                        for (std::int64_t j = 0; j < along; ++j) {
                            const std::int64_t at = axis == 0 ? j * is[1] + l : l * is[1] + j;
                            std::memcpy(idx.buf.data() + at * 4, &perm[static_cast<std::size_t>(j)], 4);
                        }
                    }
                    strided upd = make_c_order(dtype::int16, is);
                    fill_random(g, upd.buf, upd.type);
                    const ref_result ref = scatter_ref(in.ref(), idx.ref(), upd.ref(), axis, red);
                    const strix::scatter_desc d{.axis = axis, .reduction = red, .unique_indices = true};
                    INFO("scatter along axis " << axis);
                    if (in_place) {
                        strix::scatter(in.cview(), idx.cview(), upd.cview(), in.view(), d, opt);
                        CHECK(in.buf == ref.data);
                    } else {
                        check_tensor(strix::scatter(in.cview(), idx.cview(), upd.cview(), d, opt), dtype::int16, s, ref.data);
                    }
                }
            }
    // a false promise on two threads: rows 0..3 of [8, 300] float32 receive 40 updates each
    strix::cpu::options opt;
    opt.threads = 2;
    opt.min_bytes_per_thread = 1;
    std::vector<float> table(8 * 300), upd(160 * 300);
    for (std::size_t i = 0; i < upd.size(); ++i) upd[i] = static_cast<float>(i);
    std::vector<std::int64_t> rows(160);
    for (std::size_t j = 0; j < rows.size(); ++j) rows[j] = static_cast<std::int64_t>(j % 4);
    strix::scatter_nd(strix::any_cview(table.data(), dtype::float32, {8, 300}), strix::any_cview(rows.data(), dtype::int64, {160, 1}),
                      strix::any_cview(upd.data(), dtype::float32, {160, 300}), strix::any_view(table.data(), dtype::float32, {8, 300}),
                      strix::scatter_nd_desc{.unique_indices = true}, opt);
    for (std::int64_t r = 0; r < 8; ++r)
        for (std::int64_t e = 0; e < 300; ++e) {
            const float got = table[static_cast<std::size_t>(r * 300 + e)];
            // update j holds j * 300 + e at element e; row r's are j = r, r + 4, ...
            const auto j = static_cast<std::int64_t>(got) / 300;
            const bool ok = r < 4 ? (static_cast<std::int64_t>(got) % 300 == e && j % 4 == r && j < 160) : got == 0.0f;
            if (!ok) FAIL("row " << r << ", element " << e << " holds " << got);
        }
}

#else // the Vulkan program

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// Whether a reduction of `type` is exact in any order: everything but float add and mul.
bool order_free(dtype type, strix::scatter_reduction red) {
    return !strix::is_float(type) || red == strix::scatter_reduction::min || red == strix::scatter_reduction::max ||
           red == strix::scatter_reduction::none;
}

/// A scatter-nd, in place or out of place, tuples colliding now and then. Float add and mul run
/// deterministic (bit-identical to the CPU); the rest either way.
void scatter_nd_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, strix::scatter_reduction red, index_mode m,
                     bool in_place, tally& t) {
    const shape in = bounded_shape(g, rank, 256);
    const int k = static_cast<int>(uni(g, 1, rank));
    shape lead;
    const int extra = static_cast<int>(uni(g, 0, std::min(2, strix::max_rank - (rank - k))));
    for (int i = 0; i < extra; ++i) lead.push_back(chance(g, 1, 30) ? 0 : uni(g, 1, 4));
    shape idx = lead, upd = lead;
    idx.push_back(k);
    for (int i = k; i < rank; ++i) upd.push_back(in[i]);
    strix::scatter_nd_desc d{policy_of(m), red, !order_free(type, red) || chance(g, 1, 2)};
    INFO("scatter-nd " << type_name(type) << " by " << type_name(itype) << " " << str(idx) << ", reduction " << static_cast<int>(red)
                       << (d.deterministic ? ", deterministic" : "") << ", " << index_text(m) << (in_place ? ", in place" : ""));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, !in_place), l.place(g, itype, idx, false), l.place(g, type, upd, true)};
    if (!in_place) ops.push_back(l.place(g, type, in, false));
    arenas mem = random_arenas(g, l);
    bool_bytes(mem, ops);
    fill_tuple_view(g, host_view(mem, ops[1]), 0, in, m, chance(g, 1, 2));
    const std::size_t out = in_place ? 0 : 3;
    differential(
        ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter_nd(v[0], v[1], v[2], v[out], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter_nd(v[0], v[1], v[2], v[out], d); },
        [&](vk::context& c, const host_operands& v) { vk::scatter_nd(c, v[0], v[1], v[2], v[out], d); }, t);
}

} // namespace

TEST_CASE("vulkan: scatter-nd equals the CPU for every reduction, element and index type", "[vulkan][scatter_nd]") {
    using R = strix::scatter_reduction;
    const bool small = GENERATE(from_range(storage_modes())) != 0;
    vk::context ctx(storage_options(small));
    tally t;
    std::uint64_t k = 0;
    // every element type with every reduction (the arithmetic differs by type), twice, the index
    // mode in turn (the modes differ only in the index checks, run by each type in several modes)
    // (a sanitized run: each case once, and each type with every other reduction, in turn)
    int turn = 0;
    for (const dtype type : strix::all_dtypes)
        for (const R red : {R::none, R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < (reduced_run() ? 1 : 2); ++rep) {
                if (!small && !words_path_differs(strix::size_of(type))) continue;
                if (reduced_run() && ++turn % 2 == 0) continue;
                const index_mode m = index_modes[k % 3];
                const std::uint64_t seed = case_seed(0x5c0d5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                const dtype itype = strix::index_dtypes[k % 4];
                ++k;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                scatter_nd_case(ctx, g, type, itype, rank, red, m, chance(g, 1, 2), t);
            }
    CHECK(t.index_errors > 10);
    CHECK(ctx.validation_messages() == 0);
}

// Slices that lie contiguous in the output keep one winner per slice, not per element
// (scatter.comp's rows): checked against the CPU with repeated tuples (the last wins), every
// index mode, dense and gapped outputs, in and out of place; and the choice itself.
TEST_CASE("vulkan: scatter-nd of rows keeps one winner per row", "[vulkan][scatter_nd]") {
    struct row_case {
        dtype type;
        shape table, idx; // idx's last size is the tuple length k
        bool rows;        // takes the row path
        bool wide;        // and writes its rows in 16-byte pieces (whole pieces, aligned, contiguous)
        const char* what;
    };
    const row_case cases[] = {
        {dtype::float32, {300, 40}, {50, 1}, true, true, "rows of 40 floats"},
        {dtype::int8, {400, 24}, {60, 1}, true, false, "rows of 24 bytes"},
        {dtype::float64, {20, 30, 8}, {40, 2}, true, true, "two-index tuples, slices of 8"},
        {dtype::float32, {30, 64}, {10, 2}, false, false, "tuples of every axis: single elements"},
        {dtype::float16, {400, 24}, {70, 1}, true, true, "rows of 24 halves (48 bytes)"},
        // at most 4 target slots per update, where elements without rows take claims: rows
        // move a fraction of the claims' bytes (encoder::choose_scatter's model)
        {dtype::float32, {100, 40}, {60, 1}, true, true, "rows of 40 floats over most of the table"},
        {dtype::int16, {50, 12}, {80, 1}, true, false, "rows of 12 halves, rows repeated"},
    };
    vk::context ctx;
    rng_t g(0x5c0d0ull);
    tally t;
    for (const auto& c : cases)
        for (const index_mode m : index_modes)
            for (const bool gapped : {false, true})
                for (const bool in_place : {false, true}) {
                    INFO(c.what << ": " << type_name(c.type) << " " << str(c.table) << " by " << str(c.idx) << ", " << index_text(m)
                                << (gapped ? ", gapped output" : ", dense") << (in_place ? ", in place" : ""));
                    const int k = static_cast<int>(c.idx[c.idx.rank - 1]);
                    shape upd;
                    for (int i = 0; i + 1 < c.idx.rank; ++i) upd.push_back(c.idx[i]);
                    for (int i = k; i < c.table.rank; ++i) upd.push_back(c.table[i]);
                    const strix::scatter_nd_desc d{policy_of(m), strix::scatter_reduction::none, false};
                    layout l{false};
                    const strides_t out_strides = spread_strides(c.table, gapped ? 2 : 1);
                    std::vector<placed> ops{l.place_alone(c.type, c.table, in_place ? out_strides : spread_strides(c.table, 1)),
                                            l.place_alone(dtype::int64, c.idx, spread_strides(c.idx, 1)),
                                            l.place_alone(c.type, upd, spread_strides(upd, 1))};
                    if (!in_place) ops.push_back(l.place_alone(c.type, c.table, out_strides));
                    arenas mem = random_arenas(g, l);
                    bool_bytes(mem, ops);
                    fill_tuple_view(g, host_view(mem, ops[1]), 0, c.table, m, true);
                    const std::size_t out = in_place ? 0 : 3;
                    const int before = t.rows, wide_before = t.wide_rows;
                    differential(
                        ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter_nd(v[0], v[1], v[2], v[out], d); },
                        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter_nd(v[0], v[1], v[2], v[out], d); },
                        [&](vk::context& cx, const host_operands& v) { vk::scatter_nd(cx, v[0], v[1], v[2], v[out], d); }, t);
                    CHECK(t.rows - before == (c.rows ? 1 : 0));
                    CHECK(t.wide_rows - wide_before == (c.wide ? 1 : 0));
                }
    CHECK(t.index_errors > 0);
    CHECK(ctx.validation_messages() == 0);
}

namespace {

// Index tuples of distinct targets: the leading rows of a random permutation of the cells of the
// target's first k axes (k: the tuples' length), signed ones written from the end at random;
// under `error` one tuple entry is made out of range (the call must then throw, writing nothing).
void fill_unique_tuples(rng_t& g, const any_view& v, const shape& target, index_mode m) {
    const int q = v.rank();
    const auto k = static_cast<int>(v.size(q - 1));
    std::int64_t cells = 1;
    for (int i = 0; i < k; ++i) cells *= target[i];
    std::vector<std::int64_t> perm(static_cast<std::size_t>(cells));
    for (std::int64_t i = 0; i < cells; ++i) perm[static_cast<std::size_t>(i)] = i;
    std::shuffle(perm.begin(), perm.end(), g);
    std::int64_t entry = 0; // C order: tuple entry / k is the tuple's number
    for_each_coord(v.sizes(), [&](const coords& c) {
        const int axis = static_cast<int>(c[static_cast<std::size_t>(q - 1)]);
        std::int64_t rest = perm[static_cast<std::size_t>(entry / k)];
        for (int i = k - 1; i > axis; --i) rest /= target[i];
        std::int64_t x = rest % target[axis];
        if (strix::is_signed_int(v.type()) && chance(g, 1, 3)) x -= target[axis];
        write_index(v, c, static_cast<std::uint64_t>(x));
        ++entry;
    });
    if (m == index_mode::error && v.count() > 0) {
        coords c{};
        for (int i = 0; i < q; ++i) c[static_cast<std::size_t>(i)] = uni(g, 0, v.size(i) - 1);
        write_index(v, c, bad_index(g, v.type(), target[static_cast<int>(c[static_cast<std::size_t>(q - 1)])]));
    }
}

} // namespace

// unique_indices: distinct targets promised, every update written in one pass (scatter.comp's
// PHASE 3), rows in 16-byte pieces where they allow: equal to the CPU (the exact, ordered call)
// for scatter-nd and scatter, every index mode, dense and gapped outputs, in and out of place;
// reductions keep their own paths. Then a false promise: a repeated target holds one of its
// updates, and nothing else changes.
TEST_CASE("vulkan: scatters with unique indices write every update in one pass", "[vulkan][scatter_nd]") {
    struct unique_case {
        dtype type;
        shape table, idx; // scatter-nd: idx's last size is the tuple length; scatter (axis >= 0): idx is the updates' shape
        int axis;         // -1: scatter-nd
        strix::scatter_reduction red;
        bool wide; // its updates are written in 16-byte pieces
        const char* what;
    };
    using R = strix::scatter_reduction;
    const unique_case cases[] = {
        {dtype::float32, {300, 40}, {50, 1}, -1, R::none, true, "rows of 40 floats"},
        {dtype::int8, {400, 24}, {60, 1}, -1, R::none, false, "rows of 24 bytes"},
        {dtype::float64, {20, 30, 8}, {40, 2}, -1, R::none, true, "two-index tuples, slices of 8"},
        {dtype::float32, {30, 64}, {10, 2}, -1, R::none, false, "tuples of every axis: single elements"},
        {dtype::bfloat16, {400, 24}, {70, 1}, -1, R::none, true, "rows of 24 bfloat16 (48 bytes)"},
        {dtype::int32, {200, 16}, {150, 1}, -1, R::add, false, "an add, which keeps its path"},
        {dtype::float32, {40, 33}, {40, 33}, 0, R::none, false, "scatter along axis 0, a permutation per column"},
        {dtype::uint16, {17, 50}, {17, 20}, 1, R::none, false, "scatter along the last axis, distinct per row"},
    };
    vk::context ctx;
    rng_t g(0x0171e5ull);
    tally t;
    for (const auto& c : cases)
        for (const index_mode m : index_modes)
            for (const bool gapped : {false, true})
                for (const bool in_place : {false, true}) {
                    INFO(c.what << ": " << type_name(c.type) << " " << str(c.table) << " by " << str(c.idx) << ", " << index_text(m)
                                << (gapped ? ", gapped output" : ", dense") << (in_place ? ", in place" : ""));
                    const bool nd = c.axis < 0;
                    shape upd;
                    if (nd) {
                        const int k = static_cast<int>(c.idx[c.idx.rank - 1]);
                        for (int i = 0; i + 1 < c.idx.rank; ++i) upd.push_back(c.idx[i]);
                        for (int i = k; i < c.table.rank; ++i) upd.push_back(c.table[i]);
                    } else {
                        upd = c.idx;
                    }
                    layout l{false};
                    const strides_t out_strides = spread_strides(c.table, gapped ? 2 : 1);
                    std::vector<placed> ops{l.place_alone(c.type, c.table, in_place ? out_strides : spread_strides(c.table, 1)),
                                            l.place_alone(nd ? dtype::int64 : dtype::int32, c.idx, spread_strides(c.idx, 1)),
                                            l.place_alone(c.type, upd, spread_strides(upd, 1))};
                    if (!in_place) ops.push_back(l.place_alone(c.type, c.table, out_strides));
                    arenas mem = random_arenas(g, l);
                    bool_bytes(mem, ops);
                    const any_view iv = host_view(mem, ops[1]);
                    if (nd) {
                        fill_unique_tuples(g, iv, c.table, m);
                    } else { // a permutation along the axis at every other coordinate
                        const auto n = c.table[c.axis];
                        std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
                        shape lines = c.idx;
                        lines.dims[static_cast<std::size_t>(c.axis)] = 1;
                        for_each_coord(lines, [&](const coords& at) {
                            for (std::int64_t i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
                            std::shuffle(perm.begin(), perm.end(), g);
                            coords w = at;
                            for (std::int64_t j = 0; j < c.idx[c.axis]; ++j) {
                                w[static_cast<std::size_t>(c.axis)] = j;
                                write_index(iv, w, static_cast<std::uint64_t>(perm[static_cast<std::size_t>(j)] - (chance(g, 1, 3) ? n : 0)));
                            }
                        });
                        if (m == index_mode::error) {
                            coords w{};
                            for (int i = 0; i < c.idx.rank; ++i) w[static_cast<std::size_t>(i)] = uni(g, 0, c.idx[i] - 1);
                            write_index(iv, w, bad_index(g, dtype::int32, n));
                        }
                    }
                    const std::size_t out = in_place ? 0 : 3;
                    const int before = t.direct, wide_before = t.wide_direct;
                    if (nd) {
                        const strix::scatter_nd_desc d{.policy = policy_of(m), .reduction = c.red, .unique_indices = true};
                        differential(
                            ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter_nd(v[0], v[1], v[2], v[out], d); },
                            [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter_nd(v[0], v[1], v[2], v[out], d); },
                            [&](vk::context& cx, const host_operands& v) { vk::scatter_nd(cx, v[0], v[1], v[2], v[out], d); }, t);
                    } else {
                        const strix::scatter_desc d{.axis = c.axis, .policy = policy_of(m), .reduction = c.red, .unique_indices = true};
                        differential(
                            ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter(v[0], v[1], v[2], v[out], d); },
                            [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter(v[0], v[1], v[2], v[out], d); },
                            [&](vk::context& cx, const host_operands& v) { vk::scatter(cx, v[0], v[1], v[2], v[out], d); }, t);
                    }
                    // the direct pass is recorded (behind the index check's guard where one fails)
                    CHECK(t.direct - before == (c.red == R::none ? 1 : 0));
                    CHECK(t.wide_direct - wide_before == (c.red == R::none && c.wide ? 1 : 0));
                }
    CHECK(t.index_errors > 0);

    // a false promise: rows 1 and 3 each get two updates, row 5 one; every element of a repeated
    // row holds one of its updates' elements, every other row its own value
    std::vector<float> table(8 * 6), upd(5 * 6);
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
    for (std::size_t i = 0; i < upd.size(); ++i) upd[i] = 1000.0f + static_cast<float>(i);
    const std::int64_t rows[5] = {1, 3, 1, 5, 3};
    const std::vector<float> before = table;
    vk::scatter_nd(ctx, strix::any_cview(table.data(), dtype::float32, {8, 6}), strix::any_cview(rows, dtype::int64, {5, 1}),
                   strix::any_cview(upd.data(), dtype::float32, {5, 6}), strix::any_view(table.data(), dtype::float32, {8, 6}),
                   strix::scatter_nd_desc{.unique_indices = true});
    for (std::int64_t r = 0; r < 8; ++r)
        for (std::int64_t e = 0; e < 6; ++e) {
            const float got = table[static_cast<std::size_t>(r * 6 + e)];
            bool one_of = false, any = false;
            for (int j = 0; j < 5; ++j)
                if (rows[j] == r) {
                    any = true;
                    one_of |= got == upd[static_cast<std::size_t>(j * 6 + e)];
                }
            INFO("row " << r << ", element " << e << ": " << got);
            CHECK((any ? one_of : got == before[static_cast<std::size_t>(r * 6 + e)]));
        }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: without float64 arithmetic, float32 reductions run in float32 and float64 add is refused clearly", "[vulkan][scatter_nd]") {
    using R = strix::scatter_reduction;
    vk::context_options opt;
    opt.float64 = false;
    vk::context ctx(opt);
    REQUIRE_FALSE(ctx.float64());
    // float32 arithmetic itself is exact only where the device keeps subnormals (lavapipe does;
    // many GPUs flush them, which the README states for devices without float64)
    const bool keeps = ctx.device().denorm_preserve32 || ctx.device().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    INFO("device " << ctx.device().name << (keeps ? " keeps" : " flushes") << " float32 subnormals");
    std::vector<dtype> types{dtype::float16, dtype::int16};
    if (keeps) types.push_back(dtype::float32);
    tally t;
    std::uint64_t k = 0;
    for (const dtype type : types)
        for (const R red : {R::add, R::mul, R::max})
            for (int rep = 0; rep < (reduced_run() ? 1 : 2); ++rep) { // (as above)
                const std::uint64_t seed = case_seed(0xf640ull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                const bool in_place = reduced_run() ? k % 2 == 0 : rep == 0;
                ++k;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                scatter_nd_case(ctx, g, type, dtype::int32, rank, red, index_mode::valid, in_place, t);
            }
    host_tensor in(dtype::float64, {4}), idx(dtype::int64, {2}), upd(dtype::float64, {2}), out(dtype::float64, {4});
    const outcome o = capture([&] { vk::scatter(ctx, in.view(), idx.view(), upd.view(), out.view(), {0, index_policy::error, R::add, true}); });
    CHECK(o.threw);
    CHECK(o.code == error_code::unsupported);
    CHECK_THAT(o.what, Catch::Matchers::Contains("float64 add and mul reductions need shaderFloat64"));
    // min and max compare bits: no float64 arithmetic needed
    CHECK_FALSE(capture([&] { vk::scatter(ctx, in.view(), idx.view(), upd.view(), out.view(), {0, index_policy::error, R::max, false}); }).threw);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: without 64-bit atomics, 8-byte reductions take the deterministic path", "[vulkan][scatter_nd]") {
    using R = strix::scatter_reduction;
    vk::context_options opt;
    opt.int64_atomics = false;
    vk::context ctx(opt);
    REQUIRE_FALSE(ctx.int64_atomics());
    tally t;
    std::uint64_t k = 0;
    // (in and out of place each; a sanitized run once, in place for every other case)
    for (const dtype type : {dtype::float64, dtype::int64, dtype::uint64, dtype::int32, dtype::uint8})
        for (const R red : {R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < (reduced_run() ? 1 : 2); ++rep) {
                const std::uint64_t seed = case_seed(0x64a7ull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                const bool in_place = reduced_run() ? k % 2 == 0 : rep == 0;
                ++k;
                INFO("seed " << seed << ", rank " << rank);
                rng_t g(seed);
                scatter_nd_case(ctx, g, type, dtype::int64, rank, red, index_mode::valid, in_place, t);
            }
    CHECK(ctx.validation_messages() == 0);
}

#endif
