// The tests of scatter (DirectML Scatter, ONNX ScatterElements), plain and with reductions.
//
// This file is compiled into both test programs (through test/ops/updates.cpp). In the unit
// program it holds SPEC.md's seed examples and the operator's random cases against a reference
// written from its semantics; in the Vulkan program, which defines STRIX_TEST_VULKAN, the operator
// on the device against the CPU, bit for bit. `[scatter]` selects these tests in either program. A
// random case prints its seed when it fails.

#ifndef STRIX_TEST_VULKAN

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../support/host.hpp"
#include "../support/reduction.hpp"

namespace strix_test {

/// SCATTER: output = input, then for every index position p in row-major order
/// output[p with p[axis] = indices[p]] = updates[p] (so the last duplicate wins), or combined
/// under a reduction.
ref_result scatter_ref(const ref_view& in, const ref_view& idx, const ref_view& upd, int axis,
                       strix::scatter_reduction red) {
    ref_result res;
    const auto es = in.es();
    res.data.resize(static_cast<std::size_t>(in.sizes.count() * es));
    for_each_coord(in.sizes, [&](const coords& c, std::int64_t lin) {
        std::memcpy(res.data.data() + lin * es, in.at(c), static_cast<std::size_t>(es));
    });
    const std::int64_t n = in.sizes[axis];
    if (n == 0) {
        res.bad = idx.sizes.count() > 0;
        return res;
    }
    for_each_coord(idx.sizes, [&](const coords& c, std::int64_t) {
        coords t = c;
        t[static_cast<std::size_t>(axis)] = resolve_ref(load_index(idx.at(c), idx.type), n, res.bad);
        combine_ref(res.data.data() + linear_of(in.sizes, t) * es, upd.at(c), in.type, red);
    });
    return res;
}

void scatter_case(std::uint64_t seed, dtype et, dtype it, strix::scatter_reduction red) {
    rng_t g(seed);
    const int r = static_cast<int>(uni(g, 1, 8));
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape in = random_shape(g, r, 20);
    if (in[axis] == 0 && chance(g, 3, 4)) in[axis] = uni(g, 1, config.max_size);
    shape idx;
    for (int i = 0; i < r; ++i) {
        if (i == axis) idx.push_back(chance(g, 1, 20) ? 0 : uni(g, 1, config.max_size + 1)); // may exceed the input: duplicates
        else if (chance(g, 1, 20)) idx.push_back(0);
        else idx.push_back(chance(g, 1, 2) ? in[i] : uni(g, std::min<std::int64_t>(in[i], 1), in[i]));
    }
    std::vector<knob> knobs;
    add_knobs(knobs, in);
    add_knobs(knobs, idx);
    shrink(g, knobs, [&] { return std::max(in.count(), idx.count()); });
    for (int i = 0; i < r; ++i)
        if (i != axis) idx[i] = std::min(idx[i], in[i]);
    const std::int64_t given_axis = chance(g, 1, 2) ? axis - r : axis;
    const index_mode ic = random_index_mode(g);
    const auto policy = policy_of(ic);
    const bool in_place = chance(g, 1, 3);
    const bool returning = !in_place && chance(g, 1, 5);

    strided vin = make_strided(g, et, in, in_place);
    fill_random(g, vin.buf, vin.type);
    strided vidx = make_strided(g, it, idx, false);
    if (chance(g, 1, 4)) fill_colliding_indices(g, vidx, in[axis]);
    else fill_indices(g, vidx, in[axis]);
    std::string injected = "none";
    if (ic != index_mode::valid && idx.count() > 0) injected = inject_bad_index(g, vidx, in[axis]);
    strided vupd = make_strided(g, et, idx, false);
    fill_random(g, vupd.buf, vupd.type);
    strided vout;
    if (!in_place) {
        vout = make_strided(g, et, in, true);
        fill_random(g, vout.buf, vout.type);
    }
    strided& target = in_place ? vin : vout;
    const bytes out_before = target.buf, in_before = vin.buf, idx_before = vidx.buf, upd_before = vupd.buf;

    INFO("scatter, seed " << seed << ", reduction " << static_cast<int>(red) << ", " << index_text(ic) << ", axis " << given_axis << (in_place ? ", in place" : "")
                          << (returning ? ", returning overload" : ""));
    INFO("input " << vin.describe());
    INFO("indices " << vidx.describe() << "; " << injected);
    INFO("updates " << vupd.describe());
    INFO("output " << (in_place ? std::string("the input") : vout.describe()));

    const strix::scatter_desc desc{given_axis, policy, red, chance(g, 1, 2)};
    if (in_place && in.count() > 0 && chance(g, 1, 6)) {
        // the output covers the input's elements in another order: not in place, but overlapping
        for (int i = 0; i < r; ++i)
            for (int j = i + 1; j < r; ++j) {
                auto& si = vin.strides[static_cast<std::size_t>(i)];
                auto& sj = vin.strides[static_cast<std::size_t>(j)];
                if (in[i] != in[j] || in[i] < 2 || si == sj) continue;
                coords swapped = vin.strides;
                std::swap(swapped[static_cast<std::size_t>(i)], swapped[static_cast<std::size_t>(j)]);
                const any_view alias(vin.buf.data() + vin.base * vin.es(), et, in, swapped);
                INFO("output: the input's buffer with strides " << str(swapped, r));
                expect_error(error_code::bad_view, [&] { strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), alias, desc, config.opt); });
                CHECK(vin.buf == in_before);
                return;
            }
    }
    const ref_result ref = scatter_ref(vin.ref(), vidx.ref(), vupd.ref(), axis, red);
    auto call = [&] { strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), target.view(), desc, config.opt); };
    if (in[axis] == 0 && idx.count() > 0) {
        expect_error(error_code::rule_violation, call);
        CHECK(target.buf == out_before);
    } else if (policy == index_policy::error && ref.bad) {
        // the returning overload writes a tensor of its own, but must throw all the same
        if (returning) expect_error(error_code::index_out_of_range, [&] { (void)strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), desc, config.opt); });
        else expect_error(error_code::index_out_of_range, call);
        CHECK(target.buf == out_before);
    } else if (returning) {
        host_tensor t;
        if (call_ok([&] { t = strix::scatter(vin.cview(), vidx.cview(), vupd.cview(), desc, config.opt); })) check_tensor(t, et, in, ref.data);
    } else if (call_ok(call)) {
        check_output(target, out_before, ref.data);
    }
    if (!in_place) CHECK(vin.buf == in_before);
    CHECK(vidx.buf == idx_before);
    CHECK(vupd.buf == upd_before);
}

} // namespace strix_test

using namespace strix_test;

using namespace strix; // the seed examples call the operators unqualified

TEST_CASE("scatter seed examples", "[seed][scatter]") {
    SECTION("1: 1-D, duplicates: the last in row-major order wins") {
        const auto y = scatter(make<float>({5}, {0, 1, 2, 3, 4}).view(), make<std::uint32_t>({4}, {3, 1, 3, 0}).view(),
                               make<float>({4}, {5, 6, 7, 8}).view(), {0});
        CHECK(values<float>(y) == fv{8, 6, 2, 7, 4});
    }
    SECTION("2: 2-D, axis 0, with the input corrected to [3,3]") {
        const auto y = scatter(make<float>({3, 3}, fv(9, 0.0f)).view(), make<std::uint32_t>({2, 3}, {1, 0, 2, 0, 2, 1}).view(),
                               make<float>({2, 3}, {10, 11, 12, 20, 21, 22}).view(), {0});
        CHECK(values<float>(y) == fv{20, 11, 0, 10, 0, 22, 0, 21, 12});
    }
    SECTION("in place, and indices smaller than the input off the axis (ONNX ScatterElements)") {
        auto x = make<float>({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
        scatter(x.view(), make<std::int64_t>({1, 2}, {-1, 0}).view(), make<float>({1, 2}, {1.5f, 2.5f}).view(), x.view(), {1});
        CHECK(values<float>(x) == fv{2.5f, 0, 0, 1.5f, 0, 0, 0, 0});
    }
    SECTION("an out-of-range index under error changes nothing, even in place") {
        auto x = make<float>({4}, {1, 2, 3, 4});
        CHECK_THROWS_WITH(scatter(x.view(), make<std::int32_t>({2}, {1, 4}).view(), make<float>({2}, {9, 9}).view(), x.view(), {0}),
                          Catch::Contains("scatter: index 4 at position [1]"));
        CHECK(values<float>(x) == fv{1, 2, 3, 4});
    }
}

TEST_CASE("random: scatter, every element and index type, in and out of place", "[random][scatter]") {
    rng_t seeds(0x73636174'00000006ULL);
    for (dtype et : strix::all_dtypes)
        for (dtype it : strix::index_dtypes)
            for (int rep = 0; rep < 100; ++rep) scatter_case(seeds(), et, it);
}

TEST_CASE("random: scatter reductions, every element type", "[random][scatter]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x72656475'0000000cULL);
    for (dtype et : strix::all_dtypes)
        for (R red : {R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < 40; ++rep) scatter_case(seeds(), et, strix::index_dtypes[rep % 4], red);
}

TEST_CASE("scatter along rows of 64 and more updates: every reduction, index type and policy", "[scatter]") {
    // rows this long take the CPU's row kernel (eight updates a step); outputs past
    // scatter_cached_span also fetch each target's line for writing 32 updates ahead, a
    // reduction keeping the targets in a ring. The end of each row (rows not a multiple of
    // eight, shorter and longer than the ring), duplicates, negative and clamped indices
    // included. Along axis 1 a row's targets differ only by their index (a constant scale);
    // along axis 0 each update of a row has its own column too (the axis a row apart).
    using R = strix::scatter_reduction;
    rng_t g(0x6c6f6e67'00000001ULL);
    for (bool wide : {false, true})
        for (int axis : {1, 0})
            for (dtype et : {dtype::float32, dtype::int64})
                for (dtype it : strix::index_dtypes)
                    for (R red : {R::none, R::add, R::mul, R::min, R::max})
                        for (bool clamp : {false, true})
                            for (std::int64_t row : {64, 65, 97, 700}) {
                                INFO("axis " << axis << ", " << type_name(et) << " by " << type_name(it) << ", reduction " << static_cast<int>(red)
                                             << (clamp ? ", clamp" : "") << ", rows of " << row << (wide ? ", output past the cached span" : ""));
                                const auto es = static_cast<std::int64_t>(strix::size_of(et));
                                const std::int64_t span = strix::cpu::detail::scatter_cached_span;
                                const std::int64_t n = axis == 1 ? (wide ? span / (3 * es) + 40 : row + 40) : (wide ? span / (row * es) + 2 : 5);
                                const shape in_shape = axis == 1 ? shape{3, n} : shape{n, row};
                                strided in = make_c_order(et, in_shape);
                                fill_random(g, in.buf, in.type);
                                strided upd = make_c_order(et, shape{3, row});
                                fill_random(g, upd.buf, upd.type);
                                strided idx = make_c_order(it, shape{3, row});
                                if (row == 97) fill_colliding_indices(g, idx, n);
                                else fill_indices(g, idx, n);
                                if (clamp)
                                    for (int k = 0; k < 5; ++k) inject_bad_index(g, idx, n);
                                const ref_result ref = scatter_ref(in.ref(), idx.ref(), upd.ref(), axis, red);
                                REQUIRE(ref.bad == clamp);
                                const strix::scatter_desc d{axis, clamp ? index_policy::clamp : index_policy::error, red};
                                check_tensor(strix::scatter(in.cview(), idx.cview(), upd.cview(), d), et, in_shape, ref.data);
                            }
}

TEST_CASE("scatter checks every index before the caller sees a write, each of its three ways", "[scatter]") {
    // Under index_policy::error, into an output, in place and through the returning overload,
    // on short rows and rows of 64 and more (the pipelined loop), outputs smaller and larger
    // than the indices, every index type, three reductions: a bad index just past either end
    // of the range at the first, a middle or the last position names that position and leaves
    // the output as it was; with none, each way gives the reference's result.
    using R = strix::scatter_reduction;
    rng_t g(0x63686b64'00000001ULL);
    for (dtype it : strix::index_dtypes)
        for (R red : {R::none, R::add, R::max})
            for (std::int64_t row : {8, 64, 300})
                for (std::int64_t n : {2, 400})
                    for (int bad_at : {-1, 0, 1, 2}) {
                        const std::int64_t count = 2 * row, pos = bad_at < 0 ? -1 : bad_at == 0 ? 0 : bad_at == 1 ? row + 1 : count - 1;
                        const bool is_signed = it == dtype::int32 || it == dtype::int64;
                        const std::int64_t bad_value = is_signed && (pos & 1) ? -n - 1 : n;
                        INFO(type_name(it) << ", reduction " << static_cast<int>(red) << ", rows of " << row << ", " << n << " targets, bad index "
                                           << (pos < 0 ? std::string("none") : std::to_string(bad_value) + " at " + std::to_string(pos)));
                        const shape in_shape{2, n}, idx_shape{2, row};
                        strided in = make_c_order(dtype::float32, in_shape);
                        fill_random(g, in.buf, in.type);
                        strided upd = make_c_order(dtype::float32, idx_shape);
                        fill_random(g, upd.buf, upd.type);
                        strided idx = make_c_order(it, idx_shape);
                        fill_colliding_indices(g, idx, n);
                        if (pos >= 0) store_index(idx.buf.data() + pos * idx.es(), it, bad_value);
                        strided out = make_c_order(dtype::float32, in_shape);
                        fill_random(g, out.buf, out.type);
                        const bytes out_before = out.buf, in_before = in.buf;
                        const strix::scatter_desc d{1, index_policy::error, red};
                        const ref_result ref = scatter_ref(in.ref(), idx.ref(), upd.ref(), 1, red);
                        REQUIRE(ref.bad == (pos >= 0));
                        if (pos >= 0) {
                            const std::string where = "index " + std::to_string(bad_value) + " at position [" + std::to_string(pos / row) + "," +
                                                      std::to_string(pos % row) + "]";
                            for (int way = 0; way < 3; ++way) {
                                INFO((way == 0 ? "into an output" : way == 1 ? "in place" : "returning"));
                                try {
                                    if (way == 0) strix::scatter(in.cview(), idx.cview(), upd.cview(), out.view(), d);
                                    else if (way == 1) strix::scatter(in.view(), idx.cview(), upd.cview(), in.view(), d);
                                    else (void)strix::scatter(in.cview(), idx.cview(), upd.cview(), d);
                                    FAIL_CHECK("no strix::error was thrown");
                                } catch (const strix::error& e) {
                                    CHECK(e.code() == error_code::index_out_of_range);
                                    CHECK_THAT(e.what(), Catch::Contains(where));
                                }
                                CHECK(out.buf == out_before);
                                CHECK(in.buf == in_before);
                            }
                        } else {
                            strix::scatter(in.cview(), idx.cview(), upd.cview(), out.view(), d);
                            check_output(out, out_before, ref.data);
                            check_tensor(strix::scatter(in.cview(), idx.cview(), upd.cview(), d), dtype::float32, in_shape, ref.data);
                            strix::scatter(in.view(), idx.cview(), upd.cview(), in.view(), d);
                            CHECK(in.buf == ref.data);
                        }
                    }
}

TEST_CASE("scatter reductions on bool read any byte but 0 as true and write 0 or 1", "[scatter]") {
    // A bool tensor should hold 0 or 1, but its memory may hold other bytes (a fuzzer's input
    // did: 38): the reductions read the byte, true where it is not 0, without loading it as a
    // C++ bool (undefined, and caught by UBSan), and write 0 or 1; without a reduction the
    // update's byte moves as it is
    using R = strix::scatter_reduction;
    const std::uint8_t in[6] = {0, 38, 1, 0, 200, 7};
    const std::uint8_t upd[4] = {38, 0, 2, 0};
    const std::int64_t idx[4] = {0, 1, 3, 5};
    const std::uint8_t want_or[6] = {1, 1, 1, 1, 200, 1}, want_and[6] = {0, 0, 1, 0, 200, 0}, want_none[6] = {38, 0, 1, 2, 200, 0};
    for (const R red : {R::none, R::add, R::mul, R::min, R::max}) {
        INFO("reduction " << static_cast<int>(red));
        std::uint8_t out[6] = {};
        strix::scatter(strix::any_cview(in, dtype::boolean, {6}), strix::any_cview(idx, dtype::int64, {4}), strix::any_cview(upd, dtype::boolean, {4}),
                       strix::any_view(out, dtype::boolean, {6}), strix::scatter_desc{0, index_policy::error, red});
        const std::uint8_t* want = red == R::none ? want_none : red == R::add || red == R::max ? want_or : want_and;
        CHECK(std::memcmp(out, want, 6) == 0);
        // scatter-nd's rows take the same combine
        std::uint8_t out_nd[6] = {};
        const std::int64_t tuples[2] = {0, 2};
        strix::scatter_nd(strix::any_cview(in, dtype::boolean, {3, 2}), strix::any_cview(tuples, dtype::int64, {2, 1}),
                          strix::any_cview(upd, dtype::boolean, {2, 2}), strix::any_view(out_nd, dtype::boolean, {3, 2}),
                          strix::scatter_nd_desc{index_policy::error, red});
        const std::uint8_t row_or[6] = {1, 1, 1, 0, 1, 1}, row_and[6] = {0, 0, 1, 0, 1, 0}, row_none[6] = {38, 0, 1, 0, 2, 0};
        CHECK(std::memcmp(out_nd, red == R::none ? row_none : red == R::add || red == R::max ? row_or : row_and, 6) == 0);
    }
}

#else // the Vulkan program

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "../support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A context whose deterministic reductions mark their targets with a bit each (`bits`: what a
/// context does for outputs of 4M elements and more) or with a word each.
struct slot_map_context {
    explicit slot_map_context(bool bits) : ctx(options(bits)) {}
    static vk::context_options options(bool bits) {
        vk::context_options o;
        if (bits) o.slot_bits_from = 1;
        return o;
    }
    vk::context ctx;
};

/// Whether the device's scatter of (in, idx, upd) under `d`, into a fresh host tensor, is the
/// CPU's bit for bit.
bool scatter_as_cpu(vk::context& ctx, const host_tensor& in, const host_tensor& idx, const host_tensor& upd, const strix::scatter_desc& d) {
    const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
    host_tensor got(want.type(), want.sizes());
    vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
    return same_bytes(got, want);
}

/// A scatter: indices as large as the input off the axis (DirectML) or smaller (ONNX), index
/// values from a small range so that targets repeat, in place or out of place.
void scatter_case(vk::context& ctx, rng_t& g, dtype type, dtype itype, int rank, index_mode m, bool in_place, tally& t,
                  strix::scatter_reduction red = strix::scatter_reduction::none) {
    const shape in = bounded_shape(g, rank, 256);
    const int axis = static_cast<int>(uni(g, 0, rank - 1));
    strix::scatter_desc d{chance(g, 1, 2) ? axis : axis - rank, policy_of(m), red, false};
    // float add and mul run deterministic (bit-identical to the CPU); the rest either way
    d.deterministic = (strix::is_float(type) && (red == strix::scatter_reduction::add || red == strix::scatter_reduction::mul)) || chance(g, 1, 2);
    shape idx = in;
    for (int i = 0; i < rank; ++i)
        idx[i] = i == axis ? (chance(g, 1, 20) ? 0 : uni(g, 1, 5)) : chance(g, 1, 2) || in[i] == 0 ? in[i] : uni(g, chance(g, 1, 20) ? 0 : 1, in[i]);
    shrink_to(g, idx, 64);
    INFO("scatter " << type_name(type) << " by " << type_name(itype) << ", axis " << d.axis << ", reduction " << static_cast<int>(red)
                    << (d.deterministic ? ", deterministic" : "") << ", " << index_text(m)
                    << (in_place ? ", in place" : ", out of place"));
    layout l{chance(g, 1, 2)};
    std::vector<placed> ops{l.place(g, type, in, !in_place), l.place(g, itype, idx, true), l.place(g, type, idx, true)};
    if (!in_place) ops.push_back(l.place(g, type, in, false));
    arenas mem = random_arenas(g, l);
    bool_bytes(mem, ops);
    fill_index_view(g, host_view(mem, ops[1]), in[axis], m, chance(g, 1, 2) ? 2 : 0);
    const std::size_t out = in_place ? 0 : 3;
    differential(
        ctx, mem, ops, out, [&](const host_operands& v) { strix::scatter(v[0], v[1], v[2], v[out], d); },
        [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter(v[0], v[1], v[2], v[out], d); },
        [&](vk::context& c, const host_operands& v) { vk::scatter(c, v[0], v[1], v[2], v[out], d); }, t);
}

/// The bits of a float (float32 or float64) as an unsigned integer, and back.
template <class F>
using float_bits_t = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
template <class F>
F float_from_bits(std::uint64_t b) { return std::bit_cast<F>(static_cast<float_bits_t<F>>(b)); }

/// Float add onto targets that a flushing atomic or a device NaN would get wrong (NaN payloads,
/// subnormals, -0, overflow), each given updates whose sums are the same in every order, some
/// through the native add (finite, |u| >= 2^low: -100 for float32, -900 for float64) and some
/// through the compare-and-swap loop (zeros, subnormals, tiny values, NaN), 20 times.
template <class F>
void check_native_float_add(vk::context& ctx, int low) {
    using B = float_bits_t<F>;
    const auto quiet = static_cast<B>(sizeof(F) == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull); // the CPU's quiet NaN
    const B sign = B{1} << (sizeof(F) * 8 - 1);
    const F tiny = std::numeric_limits<F>::denorm_min(), big = std::numeric_limits<F>::max();
    const F lo = std::ldexp(F(1), low), below = std::ldexp(F(1), low - 10), inf = std::numeric_limits<F>::infinity();
    const std::vector<F> targets = {float_from_bits<F>(quiet | 1), float_from_bits<F>(sign | quiet), 3 * tiny, F(-0.0), inf, big, F(1), -lo, tiny, F(5)};
    const std::vector<std::pair<int, F>> updates = {
        {0, F(1)}, {0, F(2)},              // NaN payloads become the CPU's quiet NaN
        {1, F(1)},                         //
        {2, lo},                           // a subnormal target: the sum rounds to the update
        {3, F(1)}, {3, F(-1)},             // -0: +0 in every order
        {4, F(1)}, {4, F(5)},              // infinity stays
        {5, big}, {5, F(1)},               // overflow to infinity in every order
        {6, tiny}, {6, below}, {6, F(2)}, {6, F(0)}, // below 2^low: the CAS loop; the sum is 3
        {7, lo},                           // exact cancellation to +0, not a subnormal
        {8, F(1)}, {8, float_from_bits<F>(quiet | 5)}, // a NaN update on a subnormal target
        {9, float_from_bits<F>(sign | quiet | 3)}, {9, F(1)}, {9, F(4)}}; // a NaN update among native adds
    const dtype type = sizeof(F) == 4 ? dtype::float32 : dtype::float64;
    const auto n = static_cast<std::int64_t>(updates.size());
    host_tensor in(type, {static_cast<std::int64_t>(targets.size())}), upd(type, {n}), idx(dtype::int64, {n});
    std::copy(targets.begin(), targets.end(), in.as<F>());
    for (std::int64_t i = 0; i < n; ++i) {
        idx.as<std::int64_t>()[i] = updates[static_cast<std::size_t>(i)].first;
        upd.as<F>()[i] = updates[static_cast<std::size_t>(i)].second;
    }
    const strix::scatter_desc d{0, index_policy::error, strix::scatter_reduction::add, false};
    const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
    CHECK(std::bit_cast<B>(want.as<F>()[0]) == quiet); // the reference is what the comments say
    CHECK(want.as<F>()[2] == lo);
    CHECK(std::bit_cast<B>(want.as<F>()[7]) == 0u);
    for (int rep = 0; rep < 20; ++rep) { // atomics race differently from run to run
        host_tensor got(type, in.sizes());
        vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
        INFO("run " << rep);
        CHECK(same_bytes(got, want));
    }
}

} // namespace

TEST_CASE("vulkan: scatter equals the CPU for every element and index type, in and out of place", "[vulkan][scatter]") {
    const bool small = GENERATE(from_range(storage_modes())) != 0;
    vk::context ctx(storage_options(small));
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    if (!small) REQUIRE_FALSE(ctx.small_storage());
    tally t;
    std::uint64_t k = 0;
    for (const std::size_t bytes : element_sizes)
        for (const dtype itype : strix::index_dtypes)
            for (const index_mode m : index_modes)
                for (const bool in_place : {false, true}) {
                    if (!small && !words_path_differs(bytes)) continue;
                    const dtype type = type_of_size(bytes, k);
                    const std::uint64_t seed = case_seed(0x5ca77e5eedull, k);
                    const int rank = static_cast<int>(k % 8) + 1;
                    ++k;
                    INFO("seed " << seed << ", rank " << rank);
                    rng_t g(seed);
                    scatter_case(ctx, g, type, itype, rank, m, in_place, t);
                }
    CHECK(t.index_errors > (small ? 20 : 8)); // (without small storage: the 1- and 2-byte half)
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: scatter reductions equal the CPU for every element type", "[vulkan][scatter]") {
    using R = strix::scatter_reduction;
    const bool small = GENERATE(from_range(storage_modes())) != 0;
    vk::context ctx(storage_options(small));
    tally t;
    std::uint64_t k = 0;
    // every element type with every reduction (the arithmetic differs by type), the index mode
    // in turn: the modes differ in the index checks, which the plain scatter's test runs in full
    // (a sanitized run: each case once, and each type with two of the reductions, add and min
    // or mul and max, by the parity of its number)
    for (const dtype type : strix::all_dtypes)
        for (const R red : {R::add, R::mul, R::min, R::max})
            for (int rep = 0; rep < (reduced_run() ? 1 : 2); ++rep) {
                if (!small && !words_path_differs(strix::size_of(type))) continue;
                if (reduced_run() && (static_cast<int>(red) + static_cast<int>(type)) % 2 == 1) continue;
                const index_mode m = index_modes[k % 3];
                const std::uint64_t seed = case_seed(0x7ed5eedull, k);
                const int rank = static_cast<int>(k % 8) + 1;
                const dtype itype = strix::index_dtypes[k % 4];
                ++k;
                INFO("seed " << seed << ", rank " << rank << ", small storage " << ctx.small_storage());
                rng_t g(seed);
                scatter_case(ctx, g, type, itype, rank, m, chance(g, 1, 2), t, red);
            }
    CHECK(t.index_errors > (reduced_run() ? 4 : 10)); // (a reduced run has half the cases)
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: float add and mul with atomics, in any order, on values whose results are exact", "[vulkan][scatter]") {
    // many updates onto few targets: small integers (sums exact in every float type), and powers
    // of two for mul (products exact while they stay in range)
    using R = strix::scatter_reduction;
    const bool native = GENERATE(true, false); // float32 add: the device's float atomic where it has one
    vk::context_options opt;
    opt.float_atomics = native;
    vk::context ctx(opt);
    INFO("native float32 atomic add " << ctx.float32_atomic_add());
    rng_t g(0xf10a7ull);
    for (const dtype type : {dtype::float64, dtype::float32, dtype::float16, dtype::bfloat16})
        for (const R red : {R::add, R::mul})
            for (const bool det : {false, true}) {
                INFO(type_name(type) << (red == R::add ? " add" : " mul") << (det ? ", deterministic" : ", atomics"));
                const shape in_shape{7, 5}, idx_shape{300, 5};
                host_tensor in(type, in_shape), upd(type, idx_shape), idx(dtype::int32, idx_shape);
                auto put = [&](host_tensor& tt, std::int64_t i, double v) {
                    strix::visit(type, [&]<class T>(strix::type_tag<T>) { reinterpret_cast<T*>(tt.data())[i] = static_cast<T>(v); });
                };
                for (std::int64_t i = 0; i < in.sizes().count(); ++i) put(in, i, red == R::add ? static_cast<double>(uni(g, -8, 8)) : 1.0);
                for (std::int64_t i = 0; i < upd.sizes().count(); ++i) {
                    put(upd, i, red == R::add ? static_cast<double>(uni(g, -3, 3)) : (chance(g, 1, 3) ? (chance(g, 1, 2) ? 2.0 : 0.5) : 1.0));
                    reinterpret_cast<std::int32_t*>(idx.data())[i] = static_cast<std::int32_t>(uni(g, 0, 6));
                }
                const strix::scatter_desc d{0, index_policy::error, red, det};
                const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
                host_tensor got(type, in_shape);
                if (refuses_reduction(ctx, type, red)) { // (the baseline path)
                    check_refusal(capture([&] { vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d); }));
                    continue;
                }
                vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
                CHECK(same_bytes(got, want));
            }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: deterministic reductions fold any number of updates per target in C order", "[vulkan][scatter]") {
    // 1 to 1,000,000 updates onto one target and onto three, every reduction, scatter and
    // scatter-nd: bit for bit the CPU's left fold in update order. Float sums and products of
    // random values depend on that order; min and max meet NaNs of different payloads, where the
    // first one in update order wins. Without 64-bit atomics the 8-byte reductions take the same
    // path without being asked to. (A target's run once stopped after about 4,400 updates on a
    // device whose loops end after 65535 iterations in all.)
    using R = strix::scatter_reduction;
    // The half without 64-bit atomics also marks the targets with a bit each, not a word.
    const bool no_int64_atomics = GENERATE(false, true);
    vk::context_options opt;
    opt.int64_atomics = !no_int64_atomics;
    if (no_int64_atomics) opt.slot_bits_from = 1;
    vk::context ctx(opt);
    rng_t g(0xd37e4ull);
    const bool reduced = harness_env("STRIX_TEST_REDUCED") != nullptr;
    for (const std::int64_t n : {1, 4401, 5000, 100000, 1000000})
        for (const bool few : {false, true})
            for (const dtype type : {dtype::float32, dtype::float16, dtype::float64, dtype::int64, dtype::uint8}) {
                if (no_int64_atomics && strix::size_of(type) != 8) continue;
                // a million updates: float32, and int64 where it takes this path unasked
                if (n == 1000000 && type != (no_int64_atomics ? dtype::int64 : dtype::float32)) continue;
                // a sanitized build stops at 100,000 on one target (still 25 chunks on a CPU device)
                // and leaves out 5,000 (4,401 is the count past the device's loop limit)
                if (reduced && (n == 1000000 || n == 5000 || (n == 100000 && few))) continue;
                for (const R red : {R::add, R::mul, R::min, R::max}) {
                    const bool nd = (n + static_cast<std::int64_t>(red)) % 2 == 1; // scatter-nd for half the cases
                    INFO(n << " updates onto " << (few ? "three targets" : "one target") << ", " << type_name(type) << ", reduction "
                           << static_cast<int>(red) << (nd ? ", scatter-nd" : ", scatter") << (no_int64_atomics ? ", no 64-bit atomics" : ""));
                    const shape in_shape{8};
                    host_tensor in(type, in_shape), upd(type, shape{n}), idx(dtype::int64, nd ? shape{n, 1} : shape{n});
                    auto put = [&](host_tensor& tt, std::int64_t i, double v) {
                        strix::visit(type, [&]<class T>(strix::type_tag<T>) { reinterpret_cast<T*>(tt.data())[i] = static_cast<T>(v); });
                    };
                    for (std::int64_t i = 0; i < 8; ++i) put(in, i, red == R::mul ? 1.0 : static_cast<double>(uni(g, 0, 9)));
                    std::uniform_real_distribution<double> real(-4, 4);
                    for (std::int64_t i = 0; i < n; ++i) {
                        double v = 0;
                        if (!strix::is_float(type)) v = static_cast<double>(uni(g, 0, red == R::mul ? 3 : 200));
                        else if (red == R::mul) v = 1.0 + real(g) / 4096.0;
                        else v = real(g);
                        put(upd, i, v);
                        reinterpret_cast<std::int64_t*>(idx.data())[i] = few ? std::array<std::int64_t, 3>{0, 3, 7}[static_cast<std::size_t>(uni(g, 0, 2))] : 5;
                    }
                    if (strix::is_float(type) && (red == R::min || red == R::max))
                        for (int k = 0; k < 3 && n > 10; ++k) { // quiet NaNs with payloads 1, 2, 3
                            const auto i = uni(g, 0, n - 1);
                            if (type == dtype::float32) reinterpret_cast<std::uint32_t*>(upd.data())[i] = 0x7fc00000u + static_cast<std::uint32_t>(k + 1);
                            if (type == dtype::float64) reinterpret_cast<std::uint64_t*>(upd.data())[i] = 0x7ff8000000000000ull + static_cast<std::uint64_t>(k + 1);
                            if (type == dtype::float16) reinterpret_cast<std::uint16_t*>(upd.data())[i] = static_cast<std::uint16_t>(0x7e00 + k + 1);
                        }
                    host_tensor want(type, in_shape), got(type, in_shape);
                    if (refuses_reduction(ctx, type, red)) { // (the baseline path)
                        check_refusal(capture([&] {
                            if (nd) vk::scatter_nd(ctx, in.view(), idx.view(), upd.view(), got.view(), strix::scatter_nd_desc{index_policy::error, red, true});
                            else vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), strix::scatter_desc{0, index_policy::error, red, true});
                        }));
                        continue;
                    }
                    if (nd) {
                        const strix::scatter_nd_desc d{index_policy::error, red, true};
                        want = strix::scatter_nd(in.view(), idx.view(), upd.view(), d);
                        vk::scatter_nd(ctx, in.view(), idx.view(), upd.view(), got.view(), strix::scatter_nd_desc{index_policy::error, red, !no_int64_atomics});
                    } else {
                        const strix::scatter_desc d{0, index_policy::error, red, true};
                        want = strix::scatter(in.view(), idx.view(), upd.view(), d);
                        vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), strix::scatter_desc{0, index_policy::error, red, !no_int64_atomics});
                    }
                    CHECK(same_bytes(got, want));
                }
            }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: deterministic reductions onto distinct targets, and with one target repeated", "[vulkan][scatter]") {
    // A permutation of the rows per column (every target once: the device applies each update
    // at once and skips the sort), then the same with one update moved onto another's target
    // (one slot repeats: the sort and the fold in C order). Bit for bit the CPU's, every
    // element type and reduction, float values whose sums and products round. Targets marked
    // with a word each, then with a bit each (as outputs of 4M elements and more are).
    using R = strix::scatter_reduction;
    const bool bits = GENERATE(false, true);
    slot_map_context map(bits);
    vk::context& ctx = map.ctx;
    rng_t g(0xd15717ull);
    const std::int64_t rows = 64, cols = 33;
    for (const bool repeat : {false, true})
        for (const dtype type : strix::all_dtypes)
            for (const R red : {R::add, R::mul, R::min, R::max}) {
                if (refuses_reduction(ctx, type, red)) continue; // (refused: see the tests above)
                // the map does not depend on the element type: the bit map with three of them,
                // and in a sanitized run (reduced) the distinct targets too, which skip the fold
                const bool three = bits || (!repeat && reduced_run());
                if (three && type != dtype::float32 && type != dtype::float16 && type != dtype::int64) continue;
                INFO(type_name(type) << ", reduction " << static_cast<int>(red) << (repeat ? ", one target repeated" : ", distinct targets") << (bits ? ", a bit per target" : ", a word per target"));
                const host_tensor in = random_tensor(g, type, {rows, cols}), upd = random_tensor(g, type, {rows, cols});
                host_tensor idx(dtype::int64, {rows, cols});
                auto* ix = reinterpret_cast<std::int64_t*>(idx.data());
                for (std::int64_t c = 0; c < cols; ++c) {
                    std::vector<std::int64_t> perm(static_cast<std::size_t>(rows));
                    std::iota(perm.begin(), perm.end(), 0);
                    std::shuffle(perm.begin(), perm.end(), g);
                    for (std::int64_t r = 0; r < rows; ++r) ix[r * cols + c] = perm[static_cast<std::size_t>(r)];
                }
                if (repeat) ix[(rows - 1) * cols + 5] = ix[5]; // the last row's update in column 5 onto the first row's target
                CHECK(scatter_as_cpu(ctx, in, idx, upd, strix::scatter_desc{0, index_policy::error, red, true}));
            }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: deterministic reductions fold runs as long as the indexed dimensions allow", "[vulkan][scatter]") {
    // The fold records a dispatch per chunk of the longest run a target can have, which only
    // the dimensions the index decides bound (the others have output terms): 4,500 to 5,000
    // updates onto each target of a column (or row) here, more than one chunk on a CPU device,
    // while the other dimensions number 2 or 3. A bound taken from those, or from too few
    // chunks, leaves the later updates out. Float32 sums of random values: bit for bit the
    // CPU's C-order fold only when every update is folded, in order. Targets marked with a word
    // each, then with a bit each.
    using R = strix::scatter_reduction;
    const bool bits = GENERATE(false, true);
    slot_map_context map(bits);
    vk::context& ctx = map.ctx;
    rng_t g(0xb0b0ull);
    struct run_case {
        shape updates, output;
        int axis; // -1: scatter-nd, tuples of one index over the updates' first dimension
    };
    const run_case cases[] = {{{5000, 3}, {4, 3}, 0}, {{3, 5000}, {3, 2}, 1}, {{2, 4500, 2}, {2, 3, 2}, 1}, {{5000, 3}, {6, 3}, -1}};
    for (const auto& c : cases)
        for (const bool few : {false, true}) {
            INFO((c.axis < 0 ? "scatter-nd" : "scatter along axis " + std::to_string(c.axis)) << ", updates " << str(c.updates) << " into "
                                                                                               << str(c.output) << (few ? ", two targets per line" : ", one")
                                                                                               << (bits ? ", a bit per target" : ", a word per target"));
            const host_tensor in = random_tensor(g, dtype::float32, c.output);
            host_tensor upd(dtype::float32, c.updates);
            std::uniform_real_distribution<float> real(-4, 4);
            for (std::int64_t i = 0; i < upd.sizes().count(); ++i) upd.as<float>()[i] = real(g);
            const std::int64_t axis_size = c.output[c.axis < 0 ? 0 : c.axis];
            host_tensor idx(dtype::int64, c.axis < 0 ? shape{c.updates[0], 1} : c.updates);
            for (std::int64_t i = 0; i < idx.sizes().count(); ++i) idx.as<std::int64_t>()[i] = few ? uni(g, 0, 1) : axis_size - 1;
            host_tensor want(dtype::float32, c.output), got(dtype::float32, c.output);
            if (c.axis < 0) {
                const strix::scatter_nd_desc d{index_policy::error, R::add, true};
                want = strix::scatter_nd(in.view(), idx.view(), upd.view(), d);
                vk::scatter_nd(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
            } else {
                const strix::scatter_desc d{c.axis, index_policy::error, R::add, true};
                want = strix::scatter(in.view(), idx.view(), upd.view(), d);
                vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
            }
            CHECK(same_bytes(got, want));
        }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: float32 reductions keep subnormal operands and results, as the CPU does", "[vulkan][scatter]") {
    // subnormal updates added to, and multiplied with, normal and subnormal elements: a device
    // that flushed them would give 0, or NaN for infinity times a flushed subnormal
    using R = strix::scatter_reduction;
    vk::context ctx;
    INFO("device " << ctx.device().name << ", float32 subnormals kept " << ctx.device().denorm_preserve32);
    const float tiny = std::numeric_limits<float>::denorm_min(), small = std::numeric_limits<float>::min();
    const float in_values[] = {small, -small, tiny, std::numeric_limits<float>::infinity(), 1.0f, -tiny, 0.0f, 3.0f * tiny};
    const float upd_values[] = {-tiny, tiny, tiny * 5, tiny, tiny, -small / 2, tiny, small / 4};
    host_tensor in(dtype::float32, {8}), upd(dtype::float32, {8}), idx(dtype::int32, {8});
    for (int i = 0; i < 8; ++i) {
        in.as<float>()[i] = in_values[i];
        upd.as<float>()[i] = upd_values[i];
        idx.as<std::int32_t>()[i] = i;
    }
    for (const R red : {R::add, R::mul})
        for (const bool det : {false, true}) {
            INFO((red == R::add ? "add" : "mul") << (det ? ", deterministic" : ", atomics"));
            CHECK(scatter_as_cpu(ctx, in, idx, upd, strix::scatter_desc{0, index_policy::error, red, det}));
        }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: float atomic add uses the device's float atomic only where its sum is the CPU's", "[vulkan][scatter]") {
    // float32 and float64, with the native adds and without
    const bool native = GENERATE(true, false);
    vk::context_options opt;
    opt.float_atomics = native;
    vk::context ctx(opt);
    INFO("device " << ctx.device().name << ", native float32 atomic add " << ctx.float32_atomic_add() << ", float64 "
                   << ctx.float64_atomic_add());
    if (!native) REQUIRE_FALSE(ctx.float32_atomic_add());
    if (!native) REQUIRE_FALSE(ctx.float64_atomic_add());
    {
        INFO("float32");
        check_native_float_add<float>(ctx, -100);
    }
    if (ctx.float64()) {
        INFO("float64");
        check_native_float_add<double>(ctx, -900);
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: plain scatter claims its targets in one atomic per update, fusing the copy where it can", "[vulkan][scatter]") {
    // the claim path (reduce.comp, PHASE 4 and 5) against the CPU, and the path it replaces on
    // the same calls: random bytes (NaN payloads included), many duplicates or none, in and out
    // of place, strided outputs whose gaps must stay untouched, outputs that share their first
    // and last 32-bit words with other bytes, 1-, 2-, 4- and 8-byte elements, and too many
    // slots per update
    const bool claims = GENERATE(true, false);
    vk::context_options opt;
    opt.scatter_claims = claims;
    vk::context ctx(opt);
    CHECK(ctx.scatter_claims() == claims);
    INFO("claims " << claims << ", device " << ctx.device().name << ", 64-bit atomics " << ctx.int64_atomics());
    struct scase {
        const char* what;
        dtype type;
        shape in, idx;
        int axis;
        bool in_place, strided;
        std::int64_t offset; ///< elements before the output in its buffer
        bool takes_claims;
    };
    const scase cases[] = {
        {"many duplicates, out of place (fused copy)", dtype::float32, {4096}, {6000}, 0, false, false, 0, true},
        {"a permutation, out of place (fused copy)", dtype::int32, {3000}, {3000}, 0, false, false, 0, true},
        {"in place, inner axis", dtype::uint32, {64, 100}, {64, 120}, 1, true, false, 0, true},
        {"a strided output, outer axis", dtype::float32, {50, 40}, {30, 40}, 0, false, true, 0, true},
        {"more than 4 slots per update", dtype::float32, {100000}, {100}, 0, false, false, 0, false},
        {"2-byte elements, fused copy, a ragged last word", dtype::float16, {4097}, {6000}, 0, false, false, 0, true},
        {"2-byte elements one element into their buffer, strided", dtype::int16, {50, 41}, {30, 41}, 0, false, true, 1, true},
        {"1-byte elements in place, 3 into their buffer", dtype::uint8, {999}, {1500}, 0, true, false, 3, true},
        {"8-byte elements, fused copy", dtype::float64, {2048}, {3000}, 0, false, false, 0, true},
        {"8-byte elements, inner axis, strided", dtype::int64, {20, 30}, {20, 50}, 1, false, true, 0, true},
    };
    rng_t g(0xc1a1e5ull);
    for (const scase& c : cases) {
        INFO(c.what);
        const host_tensor x = random_tensor(g, c.type, c.in);
        host_tensor idx = c.idx == c.in && c.in.rank == 1 ? host_tensor(dtype::int64, c.idx) : index_tensor(g, dtype::int64, c.idx, c.in[c.axis]);
        if (c.idx == c.in && c.in.rank == 1) { // a permutation: no duplicate target
            std::vector<std::int64_t> perm(static_cast<std::size_t>(c.in[0]));
            std::iota(perm.begin(), perm.end(), std::int64_t{0});
            std::shuffle(perm.begin(), perm.end(), g);
            std::memcpy(idx.data(), perm.data(), perm.size() * 8);
        }
        const host_tensor upd = random_tensor(g, c.type, c.idx);
        const strix::scatter_desc d{c.axis};
        // the output: c.offset elements into a buffer of random bytes, with 3 more after it;
        // strided, every other column of a twice-as-wide matrix; in place, the input itself
        std::array<std::int64_t, strix::max_rank> strides = strix::c_strides(c.in);
        if (c.strided) strides = {c.in[1] * 2, 2};
        const std::int64_t span = c.strided ? c.in[0] * c.in[1] * 2 : c.in.count();
        host_tensor want = random_tensor(g, c.type, {c.offset + span + 3});
        const auto es = static_cast<std::int64_t>(strix::size_of(c.type));
        const strix::any_view hout(want.data() + c.offset * es, c.type, c.in, strides);
        const vk::device_tensor dx = vk::upload(ctx, x.view()), didx = vk::upload(ctx, idx.view()), dupd = vk::upload(ctx, upd.view());
        const vk::device_tensor dout = vk::upload(ctx, want.view());
        vk::device_view out = dout.view();
        out.address += static_cast<std::uint64_t>(c.offset * es);
        out.sizes = c.in;
        out.strides = strides;
        strix::scatter(c.in_place ? strix::any_cview(hout) : x.view(), idx.view(), upd.view(), hout, d);
        vk::stream s(ctx, {.stats = true});
        s.scatter(c.in_place ? out : dx.view(), didx.view(), dupd.view(), out, d);
        CHECK(s.stats().claim_scatters == (claims && c.takes_claims ? 1 : 0));
        s.run();
        CHECK(same_bytes(read_back(ctx, dout), want));
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: bool reductions read any byte but 0 as true, as the CPU does", "[vulkan][scatter]") {
    // bool tensors holding bytes other than 0 and 1 (see the CPU's test): the device's result,
    // atomics and the deterministic path, bit for bit the CPU's
    using R = strix::scatter_reduction;
    vk::context ctx;
    rng_t g(0xb001ull);
    host_tensor in(dtype::boolean, {64}), upd(dtype::boolean, {256}), idx(dtype::int64, {256});
    for (std::int64_t i = 0; i < 64; ++i) reinterpret_cast<std::uint8_t*>(in.data())[i] = static_cast<std::uint8_t>(uni(g, 0, 3) == 0 ? 0 : uni(g, 1, 255));
    for (std::int64_t i = 0; i < 256; ++i) {
        reinterpret_cast<std::uint8_t*>(upd.data())[i] = static_cast<std::uint8_t>(uni(g, 0, 1) == 0 ? 0 : uni(g, 1, 255));
        reinterpret_cast<std::int64_t*>(idx.data())[i] = uni(g, 0, 63);
    }
    for (const bool deterministic : {false, true})
        for (const R red : {R::add, R::mul, R::min, R::max}) {
            INFO("reduction " << static_cast<int>(red) << (deterministic ? ", deterministic" : ""));
            CHECK(scatter_as_cpu(ctx, in, idx, upd, strix::scatter_desc{0, index_policy::error, red, deterministic}));
        }
    CHECK(ctx.validation_messages() == 0);
}

#endif
