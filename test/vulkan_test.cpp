// Tests of the Vulkan backend beyond one operator: rejected calls, streams and their barriers,
// how moves are encoded (16-byte elements and chunks, the 32-bit path), tensors larger than one
// binding, devices, the pipeline cache, threads, leaks, replay and rebinding, the application's
// own device and command buffers, and transfers. Each operator's GPU-vs-CPU cases are in
// test/ops/<op>_test.cpp; the differential harness is test/support/vulkan.hpp.
//
// CI runs them on Mesa's lavapipe with the Khronos validation layer enabled
// (VK_LOADER_LAYERS_ENABLE='*validation'); any message the layer reports fails the test case
// that caused it (every case ends by checking context::validation_messages()).

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "support/vulkan.hpp"

using namespace strix_test;

// ---------------------------------------------------------------------------------------------
// Rejected calls

namespace {

/// Runs a call that breaks a rule on the CPU, on device views and through the host convenience
/// call: all three must throw the same strix::error and write nothing.
void rejected(vk::context& ctx, rng_t& g, layout& l, const std::vector<placed>& ops, std::size_t out, const cpu_call& cpu,
              const stream_call& dev, const host_call& host, error_code want) {
    const arenas mem = random_arenas(g, l);
    tally t;
    differential(ctx, mem, ops, out, cpu, dev, host, t);
    CHECK(t.failed_rules == 1);
    // the CPU's error, for the record
    arenas m = copy(mem);
    const outcome o = capture([&] { cpu(host_operands{m, ops}); });
    INFO(o.what);
    CHECK(o.code == want);
}

placed c_order(layout& l, rng_t& g, dtype t, const shape& s) { return l.place(g, t, s, strix::c_strides(s)); }

} // namespace

TEST_CASE("vulkan: calls that break a rule throw the CPU's error on device views, before recording anything", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x5e1ec7ull);
    const auto f32 = dtype::float32, i64 = dtype::int64;
    auto gather_cpu = [](strix::gather_desc d) { return [d](const host_operands& v) { strix::gather(v[0], v[1], v[2], d); }; };
    auto gather_dev = [](strix::gather_desc d) {
        return [d](vk::stream& s, const std::vector<vk::device_view>& v) { s.gather(v[0], v[1], v[2], d); };
    };
    auto gather_host = [](strix::gather_desc d) { return [d](vk::context& c, const host_operands& v) { vk::gather(c, v[0], v[1], v[2], d); }; };
    auto run_gather = [&](dtype it, const shape& in, const shape& idx, dtype ot, const shape& out, strix::gather_desc d, error_code want,
                          bool overlap_input = false) {
        layout l;
        std::vector<placed> ops{c_order(l, g, f32, in), c_order(l, g, it, idx), c_order(l, g, ot, out)};
        if (overlap_input) ops[2].offset = ops[0].offset + 4;
        rejected(ctx, g, l, ops, 2, gather_cpu(d), gather_dev(d), gather_host(d), want);
    };
    SECTION("gather") {
        run_gather(i64, {3, 4}, {2}, f32, {4, 2}, {0}, error_code::rule_violation);                   // output shape
        run_gather(i64, {3, 4}, {2}, f32, {2, 4}, {2}, error_code::rule_violation);                   // axis
        run_gather(f32, {3, 4}, {2}, f32, {2, 4}, {0}, error_code::rule_violation);                   // index type
        run_gather(i64, {3, 4}, {2}, dtype::int32, {2, 4}, {0}, error_code::rule_violation);          // output type
        run_gather(i64, {3, 4}, {2, 2}, f32, {3, 2}, {1, 1}, error_code::rule_violation);             // leading index dims
        run_gather(i64, {0, 3}, {2}, f32, {2, 3}, {0}, error_code::rule_violation);                   // empty axis
        run_gather(i64, {3, 4}, {2}, f32, {2, 4}, {0}, error_code::bad_view, true);                   // output overlaps input
    }
    SECTION("an output that reaches an element twice") {
        layout l;
        std::vector<placed> ops{c_order(l, g, f32, {3, 4}), c_order(l, g, i64, {2}), l.place(g, f32, {2, 4}, strides_t{0, 1})};
        rejected(ctx, g, l, ops, 2, gather_cpu({}), gather_dev({}), gather_host({}), error_code::bad_view);
    }
    SECTION("join") {
        auto run_join = [&](const std::vector<shape>& ins, dtype t1, const shape& out, strix::join_desc d, error_code want) {
            layout l;
            std::vector<placed> ops;
            for (std::size_t k = 0; k < ins.size(); ++k) ops.push_back(c_order(l, g, k == 1 ? t1 : f32, ins[k]));
            ops.push_back(c_order(l, g, f32, out));
            const auto n = ins.size();
            rejected(
                ctx, g, l, ops, n, [&](const host_operands& v) { strix::join(v.inputs(n), v[n], d); },
                [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.join(std::span(v.data(), n), v[n], d); },
                [&](vk::context& c, const host_operands& v) { vk::join(c, v.inputs(n), v[n], d); }, want);
        };
        run_join({{2, 3}, {2, 4}}, f32, {4, 3}, {0}, error_code::rule_violation);          // off-axis sizes
        run_join({{2, 3}, {2, 4}}, f32, {2, 6}, {1}, error_code::rule_violation);          // output shape
        run_join({{2, 3}, {2, 4}}, dtype::uint32, {2, 7}, {-1}, error_code::rule_violation); // element types
        run_join({{2, 3}, {2, 3, 1}}, f32, {2, 6}, {1}, error_code::rule_violation);       // ranks
        run_join({{2, 3}}, f32, {2, 3}, {-3}, error_code::rule_violation);                 // axis
    }
    SECTION("pad") {
        auto run_pad = [&](dtype t, const shape& in, const shape& out, const strix::pad_desc& d) {
            layout l;
            std::vector<placed> ops{c_order(l, g, t, in), c_order(l, g, t, out)};
            rejected(
                ctx, g, l, ops, 1, [&](const host_operands& v) { strix::pad(v[0], v[1], d); },
                [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.pad(v[0], v[1], d); },
                [&](vk::context& c, const host_operands& v) { vk::pad(c, v[0], v[1], d); }, error_code::rule_violation);
        };
        run_pad(f32, {2, 3}, {4, 5}, {pad_mode::constant, {1}, {1}, 0.0});                  // pad counts
        run_pad(f32, {2, 3}, {2, 5}, {pad_mode::edge, {0, 1}, {-1, 1}, 0.0});              // negative pad
        run_pad(dtype::uint8, {2, 3}, {4, 5}, {pad_mode::constant, {1, 1}, {1, 1}, 300}); // value does not fit
        run_pad(dtype::int64, {2, 3}, {4, 5}, {pad_mode::constant, {1, 1}, {1, 1}, std::numeric_limits<double>::quiet_NaN()});
        run_pad(f32, {2, 0}, {2, 2}, {pad_mode::reflect, {0, 1}, {0, 1}, 0.0});            // nothing to fold
        run_pad(f32, {2, 3}, {4, 4}, {pad_mode::symmetric, {1, 1}, {1, 1}, 0.0});          // output shape
    }
    SECTION("scatter") {
        auto run_scatter = [&](const shape& in, dtype it, const shape& idx, dtype ut, const shape& upd, const shape& out, strix::scatter_desc d,
                               error_code want, bool overlap_updates = false) {
            layout l;
            std::vector<placed> ops{c_order(l, g, f32, in), c_order(l, g, it, idx), c_order(l, g, ut, upd), c_order(l, g, f32, out)};
            if (overlap_updates) ops[3].offset = ops[2].offset;
            rejected(
                ctx, g, l, ops, 3, [&](const host_operands& v) { strix::scatter(v[0], v[1], v[2], v[3], d); },
                [&](vk::stream& s, const std::vector<vk::device_view>& v) { s.scatter(v[0], v[1], v[2], v[3], d); },
                [&](vk::context& c, const host_operands& v) { vk::scatter(c, v[0], v[1], v[2], v[3], d); }, want);
        };
        run_scatter({3, 4}, i64, {2, 4}, f32, {2, 3}, {3, 4}, {0}, error_code::rule_violation);          // updates shape
        run_scatter({3, 4}, i64, {2, 5}, f32, {2, 5}, {3, 4}, {0}, error_code::rule_violation);          // indices larger
        run_scatter({3, 4}, i64, {2, 4}, dtype::int32, {2, 4}, {3, 4}, {0}, error_code::rule_violation); // updates type
        run_scatter({3, 4}, f32, {2, 4}, f32, {2, 4}, {3, 4}, {0}, error_code::rule_violation);          // index type
        run_scatter({3, 4}, i64, {2, 4}, f32, {2, 4}, {4, 3}, {0}, error_code::rule_violation);          // output shape
        run_scatter({3, 4}, i64, {2, 4}, f32, {2, 4}, {3, 4}, {2}, error_code::rule_violation);          // axis
        run_scatter({0, 4}, i64, {2, 4}, f32, {2, 4}, {0, 4}, {0}, error_code::rule_violation);          // empty axis
        run_scatter({2, 4}, i64, {2, 4}, f32, {2, 4}, {2, 4}, {0}, error_code::bad_view, true);          // output overlaps updates
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a stream that threw while recording stays usable", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xca11ull);
    host_tensor x(dtype::int16, {4, 5});
    for (std::size_t i = 0; i < x.bytes(); ++i) x.data()[i] = static_cast<std::byte>(g());
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor bad(ctx, dtype::int16, {3, 3});
    const vk::device_tensor good(ctx, dtype::int16, {6, 8});
    const strix::pad_desc d{pad_mode::edge, {1, 2}, {1, 1}, 0};
    vk::stream s(ctx, {.stats = true});
    CHECK_THROWS_AS(s.pad(dx.view(), bad.view(), d), strix::error);
    CHECK(s.stats().dispatches == 0);
    s.pad(dx.view(), good.view(), d);
    s.run();
    host_tensor got(dtype::int16, {6, 8});
    vk::download(ctx, good, got.view());
    const host_tensor want = strix::pad(x.view(), d);
    CHECK(same_bytes(got, want));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a submitted stream refuses more work", "[vulkan]") {
    vk::context ctx;
    const vk::device_tensor a(ctx, dtype::float32, {4, 3});
    const vk::device_tensor b(ctx, dtype::float32, {6, 3});
    const vk::device_tensor idx(ctx, dtype::int32, {2, 3});
    const vk::device_tensor upd(ctx, dtype::float32, {2, 3});
    const vk::device_tensor c(ctx, dtype::float32, {4, 3});
    const host_tensor zeros(dtype::int32, {2, 3});
    {
        const vk::device_tensor z = vk::upload(ctx, zeros.view());
        vk::stream s(ctx, {.stats = true});
        s.pad(a.view(), b.view(), {pad_mode::constant, {1, 0}, {1, 0}, 0.0});
        s.submit();
        CHECK_THROWS_AS(s.submit(), strix::error);
        CHECK_THROWS_AS(s.pad(a.view(), b.view(), {pad_mode::edge, {1, 0}, {1, 0}, 0.0}), strix::error);
        const vk::device_view parts[] = {a.view(), upd.view()};
        CHECK_THROWS_AS(s.join(parts, b.view(), {0}), strix::error);
        CHECK_THROWS_AS(s.gather(a.view(), z.view(), b.view(), {0, 2}), strix::error);
        CHECK_THROWS_AS(s.scatter(a.view(), z.view(), upd.view(), c.view(), {0}), strix::error);
        s.wait();
        CHECK(s.stats().dispatches == 1);
    }
    CHECK(ctx.validation_messages() == 0);
}

// A scatter in place does not pass through the check that refuses work after submit: it records
// into the submitted command buffer (the validation layer reports it) instead of throwing.
TEST_CASE("vulkan: a submitted stream refuses an in-place scatter", "[vulkan]") {
    vk::context ctx;
    host_tensor zeros(dtype::int32, {2, 3});
    const vk::device_tensor a(ctx, dtype::float32, {4, 3});
    const vk::device_tensor z = vk::upload(ctx, zeros.view());
    const vk::device_tensor upd(ctx, dtype::float32, {2, 3});
    {
        vk::stream s(ctx);
        s.submit();
        CHECK_THROWS_AS(s.scatter(a.view(), z.view(), upd.view(), a.view(), {0}), strix::error);
        s.wait();
    }
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Streams

TEST_CASE("vulkan: one stream runs a chain of operators, with barriers only where one depends on another", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x57eaull);
    const host_tensor x = random_tensor(g, dtype::float32, {5, 6});
    const vk::device_tensor dx = vk::upload(ctx, x.view());

    SECTION("pad, gather from the padded tensor, join, scatter into the join") {
        const strix::pad_desc pd{pad_mode::reflect, {1, 2}, {1, 1}, 0.0};
        const host_tensor idx = index_tensor(g, dtype::int64, {6}, 9);
        const host_tensor sidx = index_tensor(g, dtype::int32, {2, 6}, 12);
        const host_tensor upd = random_tensor(g, dtype::float32, {2, 6});
        // the CPU chain
        const host_tensor p = strix::pad(x.view(), pd);
        const host_tensor gt = strix::gather(p.view(), idx.view(), {1});
        const any_cview parts[] = {gt.view(), x.view()};
        host_tensor j = strix::join(parts, {0});
        strix::scatter(j.view(), sidx.view(), upd.view(), j.view(), {0});
        const host_tensor e = strix::pad(x.view(), {pad_mode::symmetric, {0, 3}, {2, 0}, 0.0});
        // the same chain in one stream
        const vk::device_tensor didx = vk::upload(ctx, idx.view()), dsidx = vk::upload(ctx, sidx.view()), dupd = vk::upload(ctx, upd.view());
        const vk::device_tensor dp(ctx, dtype::float32, {7, 9}), dg(ctx, dtype::float32, {7, 6}), dj(ctx, dtype::float32, {12, 6}),
            de(ctx, dtype::float32, {7, 9});
        vk::stream s(ctx, {.stats = true});
        s.pad(dx.view(), dp.view(), pd);
        s.pad(dx.view(), de.view(), {pad_mode::symmetric, {0, 3}, {2, 0}, 0.0}); // independent of the first
        CHECK(s.stats().barriers == 0);
        s.gather(dp.view(), didx.view(), dg.view(), {1});
        CHECK(s.stats().barriers == 1); // reads what the first pad wrote
        const vk::device_view dparts[] = {dg.view(), dx.view()};
        s.join(dparts, dj.view(), {0});
        const int before_scatter = s.stats().barriers;
        CHECK(before_scatter == 2); // the join reads what the gather wrote; its two parts need none between them
        s.scatter(dj.view(), dsidx.view(), dupd.view(), dj.view(), {0});
        CHECK(s.stats().barriers > before_scatter);
        // pad, pad, gather's index check and move, two join parts, scatter's index check and two passes
        CHECK(s.stats().dispatches == 9);
        s.run();
        CHECK(same_bytes(read_back(ctx, dp), p));
        CHECK(same_bytes(read_back(ctx, dg), gt));
        CHECK(same_bytes(read_back(ctx, dj), j));
        CHECK(same_bytes(read_back(ctx, de), e));
    }
    SECTION("operators that share only what they read need no barrier") {
        const host_tensor idx = index_tensor(g, dtype::uint32, {3, 2}, 6);
        const vk::device_tensor didx = vk::upload(ctx, idx.view());
        const vk::device_tensor a(ctx, dtype::float32, {7, 8}), b(ctx, dtype::float32, {5, 3, 2}), c(ctx, dtype::float32, {5, 6}),
            d(ctx, dtype::float32, {5, 7});
        vk::stream s(ctx, {.stats = true});
        s.pad(dx.view(), a.view(), {pad_mode::edge, {1, 1}, {1, 1}, 0.0});
        // (clamped: under the error policy the gather's own index check comes first, behind a barrier)
        s.gather(dx.view(), didx.view(), b.view(), {1, -1, index_policy::clamp});
        const vk::device_view one[] = {dx.view()};
        s.join(one, c.view(), {1});
        s.pad(dx.view(), d.view(), {pad_mode::constant, {0, 1}, {0, 0}, 2.5});
        CHECK(s.stats().barriers == 0);
        CHECK(s.stats().dispatches == 4);
        s.run();
        CHECK(same_bytes(read_back(ctx, a), strix::pad(x.view(), {pad_mode::edge, {1, 1}, {1, 1}, 0.0})));
        CHECK(same_bytes(read_back(ctx, b), strix::gather(x.view(), idx.view(), {1})));
        CHECK(same_bytes(read_back(ctx, c), x));
        CHECK(same_bytes(read_back(ctx, d), strix::pad(x.view(), {pad_mode::constant, {0, 1}, {0, 0}, 2.5})));
    }
    SECTION("overwriting what an earlier operator reads waits for it") {
        const host_tensor y = random_tensor(g, dtype::float32, {5, 6});
        const vk::device_tensor dy = vk::upload(ctx, y.view());
        const vk::device_tensor a(ctx, dtype::float32, {6, 6});
        vk::stream s(ctx, {.stats = true});
        s.pad(dx.view(), a.view(), {pad_mode::symmetric, {1, 0}, {0, 0}, 0.0}); // reads x
        const vk::device_view one[] = {dy.view()};
        s.join(one, dx.view(), {0}); // then overwrites x
        CHECK(s.stats().barriers == 1);
        s.run();
        CHECK(same_bytes(read_back(ctx, a), strix::pad(x.view(), {pad_mode::symmetric, {1, 0}, {0, 0}, 0.0})));
        CHECK(same_bytes(read_back(ctx, dx), y));
    }
    SECTION("submit and wait separately") {
        const vk::device_tensor a(ctx, dtype::float32, {5, 10});
        vk::stream s(ctx);
        s.pad(dx.view(), a.view(), {pad_mode::reflect, {0, 4}, {0, 0}, 0.0});
        s.submit();
        s.wait();
        CHECK(same_bytes(read_back(ctx, a), strix::pad(x.view(), {pad_mode::reflect, {0, 4}, {0, 0}, 0.0})));
    }
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// A C-order view of `sizes` elements of `t` at byte `offset` of a device tensor's buffer.
vk::device_view at_byte(const vk::device_tensor& buf, std::int64_t offset, dtype t, const shape& sizes) {
    vk::device_view v = buf.view();
    v.address += static_cast<std::uint64_t>(offset);
    v.type = t;
    v.sizes = sizes;
    v.strides = strix::c_strides(sizes);
    return v;
}

} // namespace

TEST_CASE("vulkan: barriers follow the bytes operators touch, not the buffers", "[vulkan]") {
    const bool small = GENERATE(true, false);
    vk::context ctx(storage_options(small));
    rng_t g(0xb7e5ull);
    // one buffer of 64 bytes holding several uint8 tensors; a, b are sources elsewhere
    const host_tensor initial = random_tensor(g, dtype::uint8, {64});
    const host_tensor a = random_tensor(g, dtype::uint8, {10}), b = random_tensor(g, dtype::uint8, {10});
    const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
    const vk::device_tensor buf = vk::upload(ctx, initial.view());
    host_tensor want(dtype::uint8, {64});
    std::memcpy(want.data(), initial.data(), 64);
    auto cpu_view = [&](std::int64_t offset, const shape& sizes) { return any_view(want.data() + offset, dtype::uint8, sizes); };
    const strix::pad_desc edge{pad_mode::edge, {1}, {1}, 0};
    vk::stream s(ctx, {.stats = true});
    SECTION("writes to neighbouring bytes, then a read of the first one's bytes") {
        s.pad(da.view(), at_byte(buf, 0, dtype::uint8, {12}), edge);  // bytes [0, 12)
        s.pad(db.view(), at_byte(buf, 12, dtype::uint8, {12}), edge); // bytes [12, 24): no hazard
        CHECK(s.stats().barriers == 0);
        const vk::device_view one[] = {at_byte(buf, 11, dtype::uint8, {2})}; // reads bytes 11 and 12
        s.join(one, at_byte(buf, 30, dtype::uint8, {2}), {0});
        CHECK(s.stats().barriers == 1);
        strix::pad(a.view(), cpu_view(0, {12}), edge);
        strix::pad(b.view(), cpu_view(12, {12}), edge);
        const any_cview cone[] = {cpu_view(11, {2})};
        strix::join(cone, cpu_view(30, {2}), {0});
    }
    SECTION("a write that overlaps an earlier write by one byte comes after it") {
        s.pad(da.view(), at_byte(buf, 0, dtype::uint8, {12}), edge);                            // [0, 12)
        s.pad(db.view(), at_byte(buf, 11, dtype::uint8, {12}), {pad_mode::reflect, {2}, {0}, 0}); // [11, 23)
        CHECK(s.stats().barriers == 1);
        strix::pad(a.view(), cpu_view(0, {12}), edge);
        strix::pad(b.view(), cpu_view(11, {12}), {pad_mode::reflect, {2}, {0}, 0});
    }
    SECTION("a write over bytes an earlier operator reads waits for the read") {
        const vk::device_view one[] = {at_byte(buf, 40, dtype::uint8, {8})};
        s.join(one, at_byte(buf, 0, dtype::uint8, {8}), {0}); // reads [40, 48)
        s.pad(da.view(), at_byte(buf, 36, dtype::uint8, {12}), edge); // writes [36, 48)
        CHECK(s.stats().barriers == 1);
        const any_cview cone[] = {cpu_view(40, {8})};
        strix::join(cone, cpu_view(0, {8}), {0});
        strix::pad(a.view(), cpu_view(36, {12}), edge);
    }
    s.run();
    CHECK(same_bytes(read_back(ctx, buf), want));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: contiguous rows move in 16-byte elements, contiguous outputs in 16-byte chunks", "[vulkan]") {
    const bool small = GENERATE(true, false);
    vk::context ctx(storage_options(small));
    INFO("device " << ctx.device().name << ", small storage " << ctx.small_storage());
    rng_t g(0xc0a1e5ceull);
    for (const dtype type : strix::all_dtypes) {
        const std::int64_t e = static_cast<std::int64_t>(strix::size_of(type));
        INFO(strix::name(type));
        // a join of rows of 64 bytes along the outer axis: each input's plan is regrouped
        const host_tensor a = random_tensor(g, type, {5, 64 / e}), b = random_tensor(g, type, {3, 64 / e});
        const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
        const vk::device_tensor joined(ctx, type, {8, 64 / e});
        // a pad whose output ([4, 12, 16]) is a whole number of 16-byte chunks
        const host_tensor x = random_tensor(g, type, {4, 6, 10});
        const vk::device_tensor dx = vk::upload(ctx, x.view());
        const strix::pad_desc pd{strix::pad_mode::reflect, {0, 3, 3}, {0, 3, 3}, {}};
        const vk::device_tensor padded(ctx, type, {4, 12, 16});
        // a gather along the last axis (indices read per element) into a chunked output
        const host_tensor idx = index_tensor(g, dtype::int32, {8}, 10);
        const vk::device_tensor didx = vk::upload(ctx, idx.view());
        const vk::device_tensor gathered(ctx, type, {4, 6, 8});
        // long rows whose middle is copied from a run at every misalignment (the shifted loads)
        const host_tensor w = random_tensor(g, type, {3, 5, 67});
        const vk::device_tensor dw = vk::upload(ctx, w.view());
        const strix::pad_desc wd{strix::pad_mode::symmetric, {0, 1, 5}, {0, 2, 8}, {}};
        const vk::device_tensor wide_pad(ctx, type, {3, 8, 80});
        // a pad whose output ([3, 7, 11], an odd count) is not: one element per invocation
        const vk::device_tensor odd(ctx, type, {3, 7, 11});
        const strix::pad_desc od{strix::pad_mode::edge, {-1, 1, 0}, {0, 0, 1}, {}};
        vk::stream s(ctx, {.stats = true});
        const vk::device_view parts[] = {da.view(), db.view()};
        s.join(parts, joined.view(), {0});
        CHECK(s.stats().regrouped == 2);
        s.pad(dx.view(), padded.view(), pd);
        s.gather(dx.view(), didx.view(), gathered.view(), {2});
        // (the baseline path, whose moves are all 32-bit ones, chunks only rows of a chunk or
        // more: not the 8-byte rows of 1-byte elements)
        const int short_rows = ctx.full_path() || e > 1 ? 1 : 0;
        CHECK(s.stats().chunked == 1 + short_rows);
        s.pad(dx.view(), odd.view(), od);
        CHECK(s.stats().chunked == 1 + short_rows);
        CHECK(s.stats().regrouped == 2);
        s.pad(dw.view(), wide_pad.view(), wd);
        CHECK(s.stats().chunked == 2 + short_rows);
        s.run();
        const any_cview hparts[] = {a.view(), b.view()};
        CHECK(same_bytes(read_back(ctx, joined), strix::join(hparts, {0})));
        CHECK(same_bytes(read_back(ctx, padded), strix::pad(x.view(), pd)));
        CHECK(same_bytes(read_back(ctx, gathered), strix::gather(x.view(), idx.view(), {2})));
        CHECK(same_bytes(read_back(ctx, odd), strix::pad(x.view(), od)));
        CHECK(same_bytes(read_back(ctx, wide_pad), strix::pad(w.view(), wd)));
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: many work groups of unrolled 16-byte moves, chunks and copies, with ragged ends", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x5eed16ull);
    // sizes that leave a partial group and a partial unroll at the end
    const host_tensor x = random_tensor(g, dtype::float32, {3, 1001, 37});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const host_tensor y = random_tensor(g, dtype::float32, {5, 1001, 37});
    const vk::device_tensor dy = vk::upload(ctx, y.view());
    const vk::device_tensor copied(ctx, dtype::float32, {3, 1001, 37});   // 111111 elements: not whole chunks, a move
    const vk::device_tensor joined(ctx, dtype::float32, {8, 1001, 37});   // rows of 148 bytes: regrouped into 4-byte elements only
    const host_tensor z = random_tensor(g, dtype::float16, {3, 700, 96});
    const vk::device_tensor dz = vk::upload(ctx, z.view());
    const vk::device_tensor zcopy(ctx, dtype::float16, {3, 700, 96});     // 16-byte copy shader, 25200 chunks
    const vk::device_tensor zjoin(ctx, dtype::float16, {6, 700, 96});     // regrouped into 16-byte elements
    const strix::pad_desc pd{strix::pad_mode::wrap, {0, 5, 3}, {0, 4, 5}, {}};
    const vk::device_tensor zpad(ctx, dtype::float16, {3, 709, 104});     // chunks of 8 halves
    vk::stream s(ctx, {.stats = true});
    s.copy(dx.view(), copied.view());
    const vk::device_view xy[] = {dx.view(), dy.view()};
    s.join(xy, joined.view(), {0});
    s.copy(dz.view(), zcopy.view());
    const vk::device_view zz[] = {dz.view(), dz.view()};
    s.join(zz, zjoin.view(), {0});
    s.pad(dz.view(), zpad.view(), pd);
    CHECK(s.stats().plain_copies == 1);
    s.run();
    CHECK(same_bytes(read_back(ctx, copied), x));
    const any_cview hxy[] = {x.view(), y.view()};
    CHECK(same_bytes(read_back(ctx, joined), strix::join(hxy, {0})));
    CHECK(same_bytes(read_back(ctx, zcopy), z));
    const any_cview hzz[] = {z.view(), z.view()};
    CHECK(same_bytes(read_back(ctx, zjoin), strix::join(hzz, {0})));
    CHECK(same_bytes(read_back(ctx, zpad), strix::pad(z.view(), pd)));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: long rows of 16-byte elements, located once per row", "[vulkan]") {
    // an invocation's unrolled 16-byte elements lie 256 apart: in one row when the row is long
    // enough (its terms and per-row index found once), past the row's end otherwise
    vk::context ctx;
    rng_t g(0x10ca7edull);
    // row gathers: rows of 4400 bytes (275 elements: the unrolled ones straddle rows) and of 16 KiB
    for (const std::int64_t cols : {1100, 4096}) {
        INFO("columns " << cols);
        const host_tensor table = random_tensor(g, dtype::float32, {40, cols});
        const vk::device_tensor dtable = vk::upload(ctx, table.view());
        for (const dtype it : {dtype::int32, dtype::int64}) {
            host_tensor idx = index_tensor(g, it, {37}, 40);
            write_index(idx.view(), coords{5}, static_cast<std::uint64_t>(-3)); // a negative index counts from the end
            const vk::device_tensor didx = vk::upload(ctx, idx.view());
            const vk::device_tensor out(ctx, dtype::float32, {37, cols});
            vk::stream s(ctx, {.stats = true});
            s.gather(dtable.view(), didx.view(), out.view(), {0});
            CHECK(s.stats().regrouped == 1);
            s.run();
            CHECK(same_bytes(read_back(ctx, out), strix::gather(table.view(), idx.view(), {0})));
        }
        // an index out of range in the middle of the rows is still reported
        host_tensor bad = index_tensor(g, dtype::int64, {37}, 40);
        write_index(bad.view(), coords{30}, 40);
        const vk::device_tensor dbad = vk::upload(ctx, bad.view());
        const vk::device_tensor out(ctx, dtype::float32, {37, cols});
        const auto cpu = capture([&] { (void)strix::gather(table.view(), bad.view(), {0}); });
        REQUIRE(cpu.threw);
        vk::stream s(ctx);
        s.gather(dtable.view(), dbad.view(), out.view(), {0});
        const auto gpu = capture([&] { s.run(); });
        CHECK(gpu.threw);
        CHECK(gpu.what == cpu.what);
    }
    // pads of the outer axes over rows of exactly 256 elements: mapped outer terms and fill rows
    const host_tensor x = random_tensor(g, dtype::float32, {3, 4, 1024});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    for (const pad_mode mode : {pad_mode::constant, pad_mode::reflect, pad_mode::wrap}) {
        INFO("pad mode " << static_cast<int>(mode));
        const strix::pad_desc pd{mode, {1, 2, 0}, {2, 1, 0}, strix::scalar(2.5)};
        const vk::device_tensor padded(ctx, dtype::float32, {6, 7, 1024});
        vk::stream s(ctx, {.stats = true});
        s.pad(dx.view(), padded.view(), pd);
        CHECK(s.stats().regrouped == 1);
        s.run();
        CHECK(same_bytes(read_back(ctx, padded), strix::pad(x.view(), pd)));
    }
    // a join along the innermost axis of rows of 8 KiB per input
    const host_tensor a = random_tensor(g, dtype::float32, {3, 2048}), b = random_tensor(g, dtype::float32, {3, 2048});
    const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
    const vk::device_tensor joined(ctx, dtype::float32, {3, 4096});
    vk::stream s(ctx, {.stats = true});
    const vk::device_view parts[] = {da.view(), db.view()};
    s.join(parts, joined.view(), {1});
    CHECK(s.stats().regrouped == 2);
    s.run();
    const any_cview hparts[] = {a.view(), b.view()};
    CHECK(same_bytes(read_back(ctx, joined), strix::join(hparts, {1})));
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// move.comp's fold() as the shader computes it, read back: for each fold (FOLD forced on the
/// 32-bit path) and source of n = 1 .. max_n elements, the source coordinate (-1: fill) of
/// every j in [-pads, n + pads).
struct shader_folds {
    std::vector<std::int32_t> values;
    [[nodiscard]] std::int64_t at(pad_mode fold, std::int64_t n, std::int64_t j) const;
};

/// Records move.comp on one-dimensional pads with the fold forced (encoder::route_move's
/// choice otherwise), to run the shader's own fold where the host would not let it.
class fold_probe : public vk::detail::encoder {
public:
    static constexpr std::int64_t max_n = 6, pads = 15, row = max_n + 2 * pads;
    explicit fold_probe(vk::context& ctx) : encoder(ctx, VK_NULL_HANDLE) {}

    /// The plan of the pad of source row n (lo = pads) into output row k, folded `as`.
    void add(std::uint64_t source, std::uint64_t output, std::size_t k, std::int64_t n, pad_mode as) {
        strix::plan::move_plan p;
        p.rank = 1;
        p.elem = 4;
        p.src = reinterpret_cast<const std::byte*>(source);
        p.dst = reinterpret_cast<std::byte*>(output + k * row * 4);
        p.fill.fill(std::byte{0xff}); // -1
        auto& d = p.dims[0];
        d.padded = true;
        d.fold = as;
        d.dst = d.src = 4;
        d.lo = pads;
        d.hi = pads + n;
        d.size = pads + n + pads;
        move_route r = route_move(p);
        REQUIRE(r.addr32); // FOLD applies on the 32-bit path only
        r.fold = as;
        const std::uint64_t first = output + k * row * 4;
        record_routed_move(p, r, {}, {first, first + static_cast<std::uint64_t>(d.size) * 4}, true);
    }
    void run() {
        end_own();
        submit_own("fold_probe");
        wait_own();
    }
    void begin() { begin_own(); }
};

std::int64_t shader_folds::at(pad_mode fold, std::int64_t n, std::int64_t j) const {
    const auto k = static_cast<std::size_t>(static_cast<int>(fold) * fold_probe::max_n + (n - 1));
    return values[k * static_cast<std::size_t>(fold_probe::row) + static_cast<std::size_t>(fold_probe::pads + j)];
}

shader_folds run_shader_folds(vk::context& ctx, std::span<const pad_mode> modes) {
    // the source: 0, 1, 2, ... (a fold that leaves its period reads past n, not past this)
    host_tensor src(dtype::int32, {64});
    for (std::int32_t i = 0; i < 64; ++i) std::memcpy(src.data() + 4 * i, &i, 4);
    const vk::device_tensor dsrc = vk::upload(ctx, src.view());
    const std::int64_t rows = static_cast<std::int64_t>(modes.size()) * fold_probe::max_n;
    const vk::device_tensor out(ctx, dtype::int32, {rows, fold_probe::row});
    {
        fold_probe probe(ctx);
        probe.begin();
        for (const pad_mode as : modes)
            for (std::int64_t n = 1; n <= fold_probe::max_n; ++n)
                probe.add(dsrc.view().address, out.view().address, static_cast<std::size_t>(static_cast<int>(as) * fold_probe::max_n + (n - 1)), n, as);
        probe.run();
    }
    const host_tensor h = read_back(ctx, out);
    shader_folds f;
    f.values.resize(static_cast<std::size_t>(rows * fold_probe::row));
    std::memcpy(f.values.data(), h.data(), f.values.size() * 4);
    return f;
}

} // namespace

TEST_CASE("vulkan: the 32-bit path is taken only where every offset fits in an int", "[vulkan]") {
    namespace plan = strix::plan;
    constexpr std::int64_t limit = std::int64_t{1} << 31;
    // [3, 8] float32 rows; the outer stride decides whether the source offsets reach 2^31
    auto rows = [](std::int64_t outer_src) {
        plan::move_plan p;
        p.rank = 2;
        p.elem = 4;
        p.dims[0].size = 3;
        p.dims[0].dst = 32;
        p.dims[0].src = outer_src;
        p.dims[1].size = 8;
        p.dims[1].dst = 4;
        p.dims[1].src = 4;
        return p;
    };
    const std::int64_t edge = (limit - 28) / 2; // 2 * edge + 7 * 4 == 2^31
    CHECK(vk::detail::fits_addr32(rows(edge - 1), 4));
    CHECK_FALSE(vk::detail::fits_addr32(rows(edge), 4));
    CHECK(vk::detail::fits_addr32(rows(-(edge - 1)), 4)); // negative strides count by their size
    CHECK_FALSE(vk::detail::fits_addr32(rows(-edge), 4));
    CHECK_FALSE(vk::detail::fits_addr32(rows(limit * 4), 1)); // no overflow on huge strides
    auto p = rows(32);
    CHECK(vk::detail::fits_addr32(p, 4));
    CHECK(vk::detail::fits_addr32(p, 8));
    CHECK_FALSE(vk::detail::fits_addr32(p, 16)); // rows of 8 elements: a chunk of 16 would cross two row ends
    p.dims[0].dst = edge;                         // output offsets
    CHECK_FALSE(vk::detail::fits_addr32(p, 1));
    p = rows(32);
    p.dims[0].key = limit / 2; // gather-table keys (2 * key == 2^31)
    CHECK_FALSE(vk::detail::fits_addr32(p, 1));
    p.dims[0].key = limit / 2 - 1;
    CHECK(vk::detail::fits_addr32(p, 1));
    // a padded dimension counts the terms of its source coordinates [0, hi - lo) (not its fill)
    p = rows(32);
    auto& m = p.dims[1];
    m.padded = true;
    m.fold = pad_mode::reflect;
    m.lo = 1;
    m.hi = 3; // terms 0 and src
    m.src = 20;
    CHECK(vk::detail::fits_addr32(p, 4));
    m.src = limit - 65; // with the outer axis's 2 * 32
    CHECK(vk::detail::fits_addr32(p, 4));
    m.src = limit - 64;
    CHECK_FALSE(vk::detail::fits_addr32(p, 4));
    m.src = -(limit - 64);
    CHECK_FALSE(vk::detail::fits_addr32(p, 4));
    // fewer than 2^31 elements
    plan::move_plan big;
    big.rank = 1;
    big.elem = 1;
    big.dims[0].size = limit - 1;
    big.dims[0].dst = big.dims[0].src = 1;
    CHECK(vk::detail::fits_addr32(big, 1));
    big.dims[0].size = limit;
    CHECK_FALSE(vk::detail::fits_addr32(big, 1));

    // the shader folds a padded dimension exactly where its fold gives every padded coordinate
    // the plan's own term: move.comp itself, run with each fold forced, against plan::fold_source
    // on every geometry of up to 15 padded coordinates on each side of 1 to 6 source elements,
    // in every mode
    const pad_mode modes[] = {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap};
    auto padded = [](pad_mode mode, std::int64_t before, std::int64_t n, std::int64_t after) {
        plan::move_dim d;
        d.padded = true;
        d.fold = mode;
        d.src = 12;
        d.lo = before;
        d.hi = before + n;
        d.size = before + n + after;
        return d;
    };
    vk::context ctx;
    const shader_folds folds = run_shader_folds(ctx, modes);
    std::int64_t folded = 0, tables = 0;
    for (const pad_mode mode : modes) {
        for (std::int64_t n = 1; n <= fold_probe::max_n; ++n) {
            for (std::int64_t before = 0; before <= fold_probe::pads; ++before) {
                for (std::int64_t after = 0; after <= fold_probe::pads; ++after) {
                    const plan::move_dim d = padded(mode, before, n, after);
                    for (const pad_mode as : modes) { // the shader's fold `as` for a dimension padded in `mode`
                        bool exact = true;
                        for (std::int64_t j = -before; j < n + after; ++j)
                            if (j < 0 || j >= n) exact = exact && folds.at(as, n, j) == plan::fold_source(mode, j, n);
                        INFO("mode " << static_cast<int>(mode) << " folded as " << static_cast<int>(as) << ", pads " << before << " + " << n << " + " << after);
                        // another fold counts only where it has to (a one-element source, which every
                        // fold but constant repeats): otherwise it may match by accident, as
                        // symmetric and reflect do on pads of one element
                        if (as == mode || (n == 1 && mode != pad_mode::constant && as != pad_mode::constant)) {
                            // never a fold the shader gets wrong, and never the tables where it gets
                            // the fold right, but for reflect's pads that end at j = 2p: there its
                            // arithmetic (m = p, p - m = 0) happens to be right, which the
                            // precondition leaves out
                            const bool folds = vk::detail::shader_folds(d, as);
                            const bool reflect_at_2p = as == pad_mode::reflect && n > 1 && n + after - 1 == 2 * (2 * n - 2);
                            CHECK((!folds || exact));
                            CHECK((folds || !exact || reflect_at_2p));
                        } else {
                            CHECK_FALSE(vk::detail::shader_folds(d, as));
                        }
                        if (as == mode) (exact ? folded : tables) += 1;
                    }
                }
            }
        }
    }
    CHECK(folded > 0);
    CHECK(tables > 0); // pads beyond one period take the tables
    for (const pad_mode mode : modes) {
        plan::move_plan q = rows(32);
        q.dims[1] = padded(mode, 4, 5, 5); // within one period of 5 elements in every mode
        CHECK(vk::detail::plan_fold(q) == mode);
        q.dims[0] = padded(mode, 1, 2, 1);
        CHECK(vk::detail::plan_fold(q) == mode); // every padded dimension folds alike
        q.dims[0] = padded(mode, 7, 3, 8);
        const bool beyond_a_period = vk::detail::plan_fold(q).has_value();
        CHECK(beyond_a_period == (mode == pad_mode::constant || mode == pad_mode::edge));
    }
    CHECK_FALSE(vk::detail::plan_fold(rows(32)).has_value()); // nothing padded
    plan::move_plan mixed = rows(32);
    mixed.dims[0] = padded(pad_mode::wrap, 1, 3, 1);
    mixed.dims[1] = padded(pad_mode::reflect, 1, 8, 1);
    CHECK_FALSE(vk::detail::plan_fold(mixed).has_value());
    plan::move_dim huge;
    huge.padded = true;
    huge.size = huge.hi = std::int64_t{1} << 30; // too many coordinates to fold in an int
    CHECK_FALSE(vk::detail::shader_folds(huge));

    // the 32-bit path divides by multiplying: exact for every dividend below 2^31
    rng_t g(0xd171de5ull);
    std::vector<std::int64_t> divisors = {1, 2, 3, 5, 7, 10, 262, 641, 1024, 1139, 65537, 1000003, (limit >> 1) - 1, (limit >> 1) + 1, limit - 2, limit - 1};
    for (int k = 0; k < 40; ++k) divisors.push_back(uni(g, 1, limit - 1));
    std::int64_t wrong = 0;
    for (const std::int64_t d : divisors) {
        const auto [m, sh] = vk::detail::divider(d);
        std::vector<std::int64_t> xs = {0, 1, d - 1, d, d + 1, limit - 1, limit - 2, (limit - 1) / d * d, (limit - 1) / d * d - 1};
        for (int k = 0; k < 2000; ++k) {
            const std::int64_t q = uni(g, 0, (limit - 1) / d);
            xs.push_back(q * d + (k % 3 == 0 ? 0 : k % 3 == 1 ? d - 1 : uni(g, 0, d - 1)));
        }
        for (const std::int64_t x : xs) {
            if (x < 0 || x >= limit) continue;
            const std::uint64_t got = (static_cast<std::uint64_t>(x) * m) >> sh;
            if (got != static_cast<std::uint64_t>(x / d)) {
                if (++wrong < 5) FAIL_CHECK("x " << x << " / d " << d << ": " << got << ", not " << x / d);
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: stream::copy runs contiguous views as the 16-byte copy shader and any others as a move", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xc0b1ull);
    const host_tensor x = random_tensor(g, dtype::float16, {6, 40});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor plain(ctx, dtype::float16, {6, 40});
    const vk::device_tensor transposed(ctx, dtype::float16, {40, 6});
    vk::device_view tv = transposed.view(); // the same shape as x, written in Fortran order
    tv.sizes = {6, 40};
    tv.strides = {1, 6};
    vk::stream s(ctx, {.stats = true});
    s.copy(dx.view(), plain.view());
    CHECK(s.stats().plain_copies == 1);
    s.copy(dx.view(), tv);
    CHECK(s.stats().plain_copies == 1);
    s.run();
    CHECK(same_bytes(read_back(ctx, plain), x));
    host_tensor expect(dtype::float16, {40, 6});
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 40; ++j) std::memcpy(expect.data() + (j * 6 + i) * 2, x.data() + (i * 40 + j) * 2, 2);
    CHECK(same_bytes(read_back(ctx, transposed), expect));
    // the rules: same shape and type, no overlap
    vk::stream bad(ctx, {.stats = true});
    const vk::device_tensor other(ctx, dtype::float32, {6, 40});
    CHECK_THROWS_WITH(bad.copy(dx.view(), other.view()), Catch::Contains("strix::copy: the output must have the input's element type") &&
                                                              Catch::Contains("[6,40] float16") && Catch::Contains("[6,40] float32"));
    const vk::device_tensor wrong_shape(ctx, dtype::float16, {40, 6});
    CHECK_THROWS_WITH(bad.copy(dx.view(), wrong_shape.view()), Catch::Contains("strix::copy: the output must have the input's shape") &&
                                                                   Catch::Contains("input [6,40] float16, output [40,6] float16"));
    vk::device_view shifted = dx.view();
    shifted.address += 2;
    shifted.sizes = {6, 39};
    vk::device_view head = dx.view();
    head.sizes = {6, 39};
    CHECK_THROWS_WITH(bad.copy(head, shifted), Catch::Contains("strix::copy") && Catch::Contains("overlap"));
    CHECK(bad.stats().dispatches == 0);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an out-of-range index in a stream of several operators names the offending call", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xbad1ull);
    const host_tensor x = random_tensor(g, dtype::int8, {4, 5});
    host_tensor good = index_tensor(g, dtype::int64, {3}, 4);
    host_tensor bad = index_tensor(g, dtype::int32, {2, 2}, 5);
    write_index(bad.view(), coords{1, 0}, static_cast<std::uint64_t>(-6));
    const vk::device_tensor dx = vk::upload(ctx, x.view()), dgood = vk::upload(ctx, good.view()), dbad = vk::upload(ctx, bad.view());
    const vk::device_tensor a(ctx, dtype::int8, {3, 5}), b(ctx, dtype::int8, {4, 2, 2});
    const auto cpu = capture([&] { (void)strix::gather(x.view(), bad.view(), {1}); });
    REQUIRE(cpu.threw);
    REQUIRE(cpu.code == error_code::index_out_of_range);
    vk::stream s(ctx);
    s.gather(dx.view(), dgood.view(), a.view(), {0});
    s.gather(dx.view(), dbad.view(), b.view(), {-1});
    const auto gpu = capture([&] { s.run(); });
    CHECK(gpu.threw);
    CHECK(gpu.code == error_code::index_out_of_range);
    CHECK(gpu.what == cpu.what);
    CHECK(same_bytes(read_back(ctx, a), strix::gather(x.view(), good.view(), {0}))); // the good call ran
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Tensors larger than one storage-buffer binding

TEST_CASE("vulkan: tensors larger than maxStorageBufferRange", "[vulkan]") {
    vk::context ctx;
    INFO("maxStorageBufferRange " << ctx.device().max_storage_buffer_range);
    // two float32 halves of 70 MiB joined into 140 MiB, more than lavapipe's 128 MiB range
    const std::int64_t cols = 1024, rows = 17920;
    host_tensor a(dtype::float32, {rows, cols}), b(dtype::float32, {rows, cols});
    auto* pa = a.as<float>();
    auto* pb = b.as<float>();
    for (std::int64_t i = 0; i < rows * cols; ++i) {
        pa[i] = static_cast<float>(i);
        pb[i] = -static_cast<float>(i) - 0.5f;
    }
    const vk::device_tensor da = vk::upload(ctx, a.view()), db = vk::upload(ctx, b.view());
    const vk::device_tensor joined(ctx, dtype::float32, {2 * rows, cols});
    const any_cview parts[] = {a.view(), b.view()};
    host_tensor want = strix::join(parts, {0});

    // rows near the end, beyond the first 128 MiB: gathered and scattered into, in place
    rng_t g(0xb16ull);
    host_tensor rows_idx(dtype::int64, {3});
    const std::int64_t picks[] = {-1, 2 * rows - 3000, 40000 - 2 * rows};
    std::memcpy(rows_idx.data(), picks, sizeof picks);
    host_tensor upd = random_tensor(g, dtype::float32, {2, cols});
    host_tensor sidx(dtype::uint32, {2, cols});
    for (std::int64_t i = 0; i < 2 * cols; ++i) sidx.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(2 * rows - 1 - (i % 7) * 500);
    const vk::device_tensor drows = vk::upload(ctx, rows_idx.view()), dupd = vk::upload(ctx, upd.view()), dsidx = vk::upload(ctx, sidx.view());
    const vk::device_tensor picked(ctx, dtype::float32, {3, cols});
    {
        // on the baseline path (and lavapipe's 128 MiB) the tensor is bound as windows: the join
        // and the scatter in pieces, the gather, whose rows may lie anywhere, once per window
        vk::stream s(ctx, {.stats = true});
        const vk::device_view dparts[] = {da.view(), db.view()};
        s.join(dparts, joined.view(), {0});
        s.gather(joined.view(), drows.view(), picked.view(), {0});
        s.scatter(joined.view(), dsidx.view(), dupd.view(), joined.view(), {0});
        s.run();
        if (!ctx.full_path() && joined.bytes() > ctx.device().max_storage_buffer_range) CHECK(s.stats().source_windows >= 2);
        else CHECK(s.stats().source_windows == 0);
    }
    const host_tensor want_picked = strix::gather(want.view(), rows_idx.view(), {0});
    strix::scatter(want.view(), sidx.view(), upd.view(), want.view(), {0});
    CHECK(same_bytes(read_back(ctx, picked), want_picked));
    const host_tensor got = read_back(ctx, joined);
    REQUIRE(got.bytes() == want.bytes());
    CHECK(got.bytes() > (128u << 20));
    // the last element first (the one a 32-bit range would miss), then everything
    CHECK(std::memcmp(got.data() + got.bytes() - 4, want.data() + want.bytes() - 4, 4) == 0);
    CHECK(same_bytes(got, want));
    CHECK(ctx.validation_messages() == 0);
}

// The baseline path binds operands through descriptors, at most maxStorageBufferRange bytes each
// (128 MiB on lavapipe): moves over larger tensors run in pieces, each bound as windows.
TEST_CASE("vulkan: the baseline path moves tensors larger than one binding in windows", "[vulkan]") {
    vk::context_options opt;
    opt.profile = vk::path_profile::baseline;
    vk::context ctx(opt);
    REQUIRE_FALSE(ctx.full_path());
    const std::uint64_t range = ctx.device().max_storage_buffer_range;
    INFO("maxStorageBufferRange " << range);
    // (a sanitized build, STRIX_TEST_REDUCED, runs a quarter of the sizes: still past lavapipe's 128 MiB)
    const std::int64_t scale = harness_env("STRIX_TEST_REDUCED") ? 4 : 1;
    const auto fill = [](host_tensor& t) {
        auto* w = reinterpret_cast<std::uint32_t*>(t.data());
        for (std::uint64_t i = 0; i < t.bytes() / 4; ++i) w[i] = static_cast<std::uint32_t>(i * 2654435761u) ^ static_cast<std::uint32_t>(i >> 7);
    };
    SECTION("a pad to 1 GiB: reflected rows before and after, columns around each row") {
        host_tensor x(dtype::float32, {200 / scale, 1024, 1022});
        fill(x);
        const strix::pad_desc d{strix::pad_mode::reflect, {28 / scale, 0, 1}, {28 / scale, 0, 1}, {}};
        const host_tensor want = strix::pad(x.view(), d);
        CHECK(want.bytes() >= (std::uint64_t{1024} << 20) / static_cast<std::uint64_t>(scale));
        const vk::device_tensor dx = vk::upload(ctx, x.view());
        const vk::device_tensor out(ctx, dtype::float32, want.sizes());
        vk::stream s(ctx, {.stats = true});
        s.pad(dx.view(), out.view(), d);
        s.run();
        if (want.bytes() > range) CHECK(s.stats().dispatches > 2); // in pieces (a device whose range holds it binds it whole)
        const host_tensor got = read_back(ctx, out);
        CHECK(same_bytes(got, want));
    }
    SECTION("a constant pad whose fill rows and copied rows lie past the first binding") {
        host_tensor x(dtype::uint16, {600 / std::min<std::int64_t>(scale, 2), 256, 1000});
        fill(x);
        const strix::pad_desc d{strix::pad_mode::constant, {40, 0, 12}, {40, 0, 12}, strix::scalar(7)};
        const host_tensor want = strix::pad(x.view(), d);
        const vk::device_tensor dx = vk::upload(ctx, x.view());
        const vk::device_tensor out(ctx, dtype::uint16, want.sizes());
        vk::stream s(ctx);
        s.pad(dx.view(), out.view(), d);
        s.run();
        CHECK(same_bytes(read_back(ctx, out), want));
    }
    SECTION("a gather of rows whose output is 600 MiB, by int64 indices, and a join of two halves") {
        host_tensor table(dtype::float32, {5000, 1024});
        fill(table);
        host_tensor idx(dtype::int64, {160000 / scale});
        rng_t g(0x600ull);
        for (std::int64_t i = 0; i < idx.sizes().count(); ++i) idx.as<std::int64_t>()[i] = uni(g, -5000, 4999);
        const host_tensor want = strix::gather(table.view(), idx.view(), {0});
        CHECK(want.bytes() >= (std::uint64_t{600} << 20) / static_cast<std::uint64_t>(scale));
        const vk::device_tensor dt = vk::upload(ctx, table.view()), di = vk::upload(ctx, idx.view());
        const vk::device_tensor out(ctx, dtype::float32, want.sizes());
        // the output joined with itself along the rows: twice its size, read in windows too
        const vk::device_tensor twice(ctx, dtype::float32, {2 * want.sizes()[0], 1024});
        vk::stream s(ctx);
        s.gather(dt.view(), di.view(), out.view(), {0});
        const vk::device_view halves[] = {out.view(), out.view()};
        s.join(halves, twice.view(), {0});
        s.run();
        CHECK(same_bytes(read_back(ctx, out), want));
        const any_cview parts[] = {want.view(), want.view()};
        CHECK(same_bytes(read_back(ctx, twice), strix::join(parts, {0})));
    }
    SECTION("gathers from a source larger than one binding: rows, gather-nd, 1-byte gather-elements") {
        // (not scaled down: the source must stay past lavapipe's 128 MiB; the outputs are small)
        host_tensor table(dtype::float32, {40000, 1024}); // 164 MB
        fill(table);
        rng_t g(0x5eedull);
        host_tensor idx(dtype::int64, {3000});
        for (std::int64_t i = 0; i < idx.sizes().count(); ++i) idx.as<std::int64_t>()[i] = uni(g, -40000, 39999);
        host_tensor nd_idx(dtype::int32, {500, 2}); // (row, column) pairs: single elements
        for (std::int64_t i = 0; i < 500; ++i) {
            nd_idx.as<std::int32_t>()[2 * i] = static_cast<std::int32_t>(uni(g, 0, 39999));
            nd_idx.as<std::int32_t>()[2 * i + 1] = static_cast<std::int32_t>(uni(g, 0, 1023));
        }
        host_tensor bytes(dtype::uint8, {150'000'000});
        fill(bytes);
        host_tensor byte_idx(dtype::uint32, {20000});
        for (std::int64_t i = 0; i < byte_idx.sizes().count(); ++i) byte_idx.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(uni(g, 0, 149'999'999));
        const host_tensor want_rows = strix::gather(table.view(), idx.view(), {0});
        const host_tensor want_nd = strix::gather_nd(table.view(), nd_idx.view(), strix::gather_nd_desc{});
        const host_tensor want_bytes = strix::gather_elements(bytes.view(), byte_idx.view(), {0});
        const vk::device_tensor dt = vk::upload(ctx, table.view()), di = vk::upload(ctx, idx.view()), dnd = vk::upload(ctx, nd_idx.view());
        const vk::device_tensor db = vk::upload(ctx, bytes.view()), dbi = vk::upload(ctx, byte_idx.view());
        const vk::device_tensor rows(ctx, dtype::float32, want_rows.sizes()), nd(ctx, dtype::float32, want_nd.sizes());
        const vk::device_tensor picked(ctx, dtype::uint8, want_bytes.sizes());
        vk::stream s(ctx, {.stats = true});
        s.gather(dt.view(), di.view(), rows.view(), {0});
        s.gather_nd(dt.view(), dnd.view(), nd.view(), strix::gather_nd_desc{});
        s.gather_elements(db.view(), dbi.view(), picked.view(), {0});
        s.run();
        if (table.bytes() > range) CHECK(s.stats().source_windows >= 4);
        CHECK(same_bytes(read_back(ctx, rows), want_rows));
        CHECK(same_bytes(read_back(ctx, nd), want_nd));
        CHECK(same_bytes(read_back(ctx, picked), want_bytes));
        // out-of-range indices under the error policy: one error, the output untouched, whatever
        // the window their neighbours lie in
        idx.as<std::int64_t>()[1234] = 40000;
        const vk::device_tensor bad = vk::upload(ctx, idx.view());
        vk::stream e(ctx);
        e.gather(dt.view(), bad.view(), rows.view(), {0});
        const outcome o = capture([&] { e.run(); });
        CHECK(o.code == error_code::index_out_of_range);
        CHECK(same_bytes(read_back(ctx, rows), want_rows));
    }
    SECTION("a scatter into a 300 MiB tensor, in place and out of place, targets repeated") {
        host_tensor x(dtype::float32, {77000 / std::min<std::int64_t>(scale, 2), 1024});
        fill(x);
        rng_t g(0x300ull);
        const std::int64_t rows = x.sizes()[0];
        // every row of the updates lands on one of a few rows spread over the whole output, many twice
        host_tensor idx(dtype::int32, {3000, 1024});
        for (std::int64_t i = 0; i < idx.sizes().count(); ++i) idx.as<std::int32_t>()[i] = static_cast<std::int32_t>(uni(g, 0, 40) * (rows / 41) + uni(g, 0, 1) - (uni(g, 0, 3) == 0 ? rows : 0));
        // and the rows around 128 MiB, where lavapipe's first window ends, mid-row
        for (std::int64_t i = 0; i < 3 * 1024; ++i) idx.as<std::int32_t>()[i] = static_cast<std::int32_t>(32766 + i / 1024);
        host_tensor upd(dtype::float32, {3000, 1024});
        fill(upd);
        // no NaN (a float max of two NaNs keeps the one it met first, so order would show below)
        for (host_tensor* t : {&x, &upd}) {
            auto* w = reinterpret_cast<std::uint32_t*>(t->data());
            for (std::uint64_t i = 0; i < t->bytes() / 4; ++i)
                if ((w[i] & 0x7f800000u) == 0x7f800000u) w[i] &= ~0x40000000u;
        }
        const strix::scatter_desc d{0};
        const host_tensor want = strix::scatter(x.view(), idx.view(), upd.view(), d);
        const vk::device_tensor dx = vk::upload(ctx, x.view()), di = vk::upload(ctx, idx.view()), du = vk::upload(ctx, upd.view());
        const vk::device_tensor out(ctx, dtype::float32, x.sizes());
        vk::stream s(ctx);
        s.scatter(dx.view(), di.view(), du.view(), out.view(), d); // out of place: the copy in windows, then the updates
        s.scatter(dx.view(), di.view(), du.view(), dx.view(), d);  // in place
        s.run();
        CHECK(same_bytes(read_back(ctx, out), want));
        CHECK(same_bytes(read_back(ctx, dx), want));
        // reductions onto it: with atomics, once per window of the output (max of values without
        // NaN: the same result in any order); a deterministic one is refused, naming the limit,
        // before it records
        const strix::scatter_desc m{0, strix::index_policy::error, strix::scatter_reduction::max};
        host_tensor want_max = strix::scatter(want.view(), idx.view(), upd.view(), m);
        vk::stream r(ctx, {.stats = true});
        r.scatter(dx.view(), di.view(), du.view(), dx.view(), m);
        r.run();
        CHECK(same_bytes(read_back(ctx, dx), want_max));
        // and an int32 add on the same bytes less the first element and the last 1023 (exact in
        // any order): the output starts 4 bytes into its buffer, so each window's binding starts
        // 4 bytes before the bytes it owns, and a target combined by two windows would show
        const std::int64_t cols = x.sizes()[1];
        const shape int_shape{rows - 1, cols};
        const auto dev_int = [&](vk::device_view v, std::int64_t skip, const shape& sh) {
            v.type = dtype::int32;
            v.address += static_cast<std::uint64_t>(skip * 4);
            v.sizes = sh;
            v.strides = strix::c_strides(sh);
            return v;
        };
        host_tensor idx_int(dtype::int32, idx.sizes()); // every index within rows - 1
        for (std::int64_t i = 0; i < idx.sizes().count(); ++i) {
            const std::int32_t v = idx.as<std::int32_t>()[i];
            idx_int.as<std::int32_t>()[i] = static_cast<std::int32_t>(std::min<std::int64_t>(v < 0 ? v + rows : v, rows - 2));
        }
        const strix::scatter_desc a{0, strix::index_policy::error, strix::scatter_reduction::add};
        host_tensor& want_add = want_max; // (checked above: now the add's expected bytes)
        const strix::any_view want_int(want_add.data() + 4, dtype::int32, int_shape);
        strix::scatter(strix::any_cview(want_int), idx_int.view(), strix::any_cview(upd.data(), dtype::int32, upd.sizes()), want_int, a);
        const vk::device_tensor di_int = vk::upload(ctx, idx_int.view());
        vk::stream r2(ctx, {.stats = true});
        r2.scatter(dev_int(dx.view(), 1, int_shape), di_int.view(), dev_int(du.view(), 0, upd.sizes()), dev_int(dx.view(), 1, int_shape), a);
        r2.run();
        CHECK(same_bytes(read_back(ctx, dx), want_add));
        if (want.bytes() > range) {
            CHECK(r.stats().target_windows >= 2);
            CHECK(r2.stats().target_windows >= 2);
        }
        // a deterministic float32 add (order shows in the bits: the CPU's C order, window by
        // window) and an int64 add (8-byte elements: sorted by target without 64-bit atomics)
        // onto the same bytes, with the first 400 rows of updates (every window keys them all)
        const std::int64_t some = 400;
        const strix::scatter_desc det{0, strix::index_policy::error, strix::scatter_reduction::add, true};
        const shape some_idx{some, cols};
        const strix::any_cview idx_some(idx.data(), dtype::int32, some_idx), upd_some(upd.data(), dtype::float32, some_idx);
        host_tensor want_det = strix::scatter(want_add.view(), idx_some, upd_some, det);
        vk::stream r3(ctx, {.stats = true});
        vk::device_view di_some = di.view(), du_some = du.view();
        di_some.sizes = du_some.sizes = some_idx;
        r3.scatter(dx.view(), di_some, du_some, dx.view(), det);
        r3.run();
        CHECK(same_bytes(read_back(ctx, dx), want_det));
        const shape long_shape{rows, cols / 2}, long_upd{some, cols / 2};
        host_tensor idx_long(dtype::int32, long_upd); // within the rows, many repeated
        for (std::int64_t i = 0; i < long_upd.count(); ++i) idx_long.as<std::int32_t>()[i] = idx_int.as<std::int32_t>()[i];
        const strix::scatter_desc a64{0, strix::index_policy::error, strix::scatter_reduction::add};
        strix::scatter(strix::any_cview(want_det.data(), dtype::int64, long_shape), idx_long.view(), strix::any_cview(upd.data(), dtype::int64, long_upd),
                       strix::any_view(want_det.data(), dtype::int64, long_shape), a64);
        const vk::device_tensor di_long = vk::upload(ctx, idx_long.view());
        vk::device_view dx_long = dx.view(), du_long = du.view();
        dx_long.type = du_long.type = dtype::int64;
        dx_long.sizes = long_shape;
        dx_long.strides = strix::c_strides(long_shape);
        du_long.sizes = long_upd;
        du_long.strides = strix::c_strides(long_upd);
        vk::stream r4(ctx, {.stats = true});
        r4.scatter(dx_long, di_long.view(), du_long, dx_long, a64);
        r4.run();
        CHECK(same_bytes(read_back(ctx, dx), want_det));
        if (want.bytes() > range) {
            CHECK(r3.stats().target_windows >= 2);
            if (!ctx.int64_atomics()) CHECK(r4.stats().target_windows >= 2);
        }
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: every element type in its uses: an embedding table, a mask padded and joined, a cache appended and read", "[vulkan]") {
    // bfloat16 weights, bool masks and float8 caches are what the last four types of the list
    // are for; each use runs here for every type of the list, the device against the CPU, and
    // the CPU against what the use must give (rows of the table, the mask's own bytes)
    vk::context ctx;
    rng_t g(0x44ull);
    for (const dtype t : strix::all_dtypes) {
        INFO(type_name(t));
        const auto random = [&](const shape& s) { return random_tensor(g, t, s); }; // (bools 0 or 1)
        const auto es = static_cast<std::int64_t>(strix::size_of(t));
        // an embedding table [50, 24] and 7 token ids
        const host_tensor table = random({50, 24});
        host_tensor ids(dtype::int64, {7});
        for (std::int64_t i = 0; i < 7; ++i) ids.as<std::int64_t>()[i] = uni(g, 0, 49);
        const host_tensor rows = strix::gather(table.view(), ids.view(), strix::gather_desc{0});
        for (std::int64_t i = 0; i < 7; ++i)
            CHECK(std::memcmp(rows.data() + i * 24 * es, table.data() + ids.as<std::int64_t>()[i] * 24 * es, static_cast<std::size_t>(24 * es)) == 0);
        host_tensor rows_vk(t, rows.sizes());
        vk::gather(ctx, table.view(), ids.view(), rows_vk.view(), strix::gather_desc{0});
        CHECK(same_bytes(rows_vk, rows));
        // a mask [5, 6] padded by one on every side with zeros, then joined with another along axis 0
        const host_tensor mask = random({5, 6}), more = random({3, 8});
        const strix::pad_desc pd{strix::pad_mode::constant, {1, 1}, {1, 1}, 0.0};
        const host_tensor padded = strix::pad(mask.view(), pd);
        for (std::int64_t r = 0; r < 5; ++r)
            CHECK(std::memcmp(padded.data() + ((r + 1) * 8 + 1) * es, mask.data() + r * 6 * es, static_cast<std::size_t>(6 * es)) == 0);
        host_tensor padded_vk(t, padded.sizes()), joined_vk(t, {10, 8});
        vk::pad(ctx, mask.view(), padded_vk.view(), pd);
        CHECK(same_bytes(padded_vk, padded));
        host_tensor joined(t, {10, 8});
        const strix::any_cview parts[] = {padded.view(), more.view()};
        strix::join(parts, joined.view(), strix::join_desc{0});
        vk::join(ctx, parts, joined_vk.view(), strix::join_desc{0});
        CHECK(same_bytes(joined_vk, joined));
        // a cache [1, 2, 9, 8] and one step [1, 2, 1, 8] appended along the sequence, then
        // positions 0, 9 and 4 read back
        const host_tensor cache = random({1, 2, 9, 8}), step = random({1, 2, 1, 8});
        host_tensor longer(t, {1, 2, 10, 8}), longer_vk(t, {1, 2, 10, 8});
        const strix::any_cview kv[] = {cache.view(), step.view()};
        strix::join(kv, longer.view(), strix::join_desc{2});
        vk::join(ctx, kv, longer_vk.view(), strix::join_desc{2});
        CHECK(same_bytes(longer_vk, longer));
        CHECK(std::memcmp(longer.data() + 9 * 8 * es, step.data(), static_cast<std::size_t>(8 * es)) == 0);
        host_tensor pos(dtype::int32, {3});
        pos.as<std::int32_t>()[0] = 0, pos.as<std::int32_t>()[1] = 9, pos.as<std::int32_t>()[2] = 4;
        const host_tensor read = strix::gather(longer.view(), pos.view(), strix::gather_desc{2});
        host_tensor read_vk(t, read.sizes());
        vk::gather(ctx, longer_vk.view(), pos.view(), read_vk.view(), strix::gather_desc{2});
        CHECK(same_bytes(read_vk, read));
    }
    CHECK(ctx.validation_messages() == 0);
}

// ---------------------------------------------------------------------------------------------
// Devices, pipeline cache, threads, leaks

namespace {

std::vector<host_tensor> sample_ops(vk::context& ctx) {
    rng_t g(0x5a3bull);
    const host_tensor x = random_tensor(g, dtype::float16, {4, 3, 5});
    const host_tensor idx = index_tensor(g, dtype::int64, {2, 2}, 3);
    const host_tensor sidx = index_tensor(g, dtype::uint64, {4, 3, 2}, 5);
    const host_tensor upd = random_tensor(g, dtype::float16, {4, 3, 2});
    std::vector<host_tensor> r;
    r.emplace_back(dtype::float16, shape{4, 2, 2, 5});
    vk::gather(ctx, x.view(), idx.view(), r.back().view(), {1});
    r.emplace_back(dtype::float16, shape{6, 3, 9});
    vk::pad(ctx, x.view(), r.back().view(), {pad_mode::symmetric, {1, 0, 4}, {1, 0, 0}, 0.0});
    r.emplace_back(dtype::float16, shape{4, 3, 5});
    vk::scatter(ctx, x.view(), sidx.view(), upd.view(), r.back().view(), {2});
    return r;
}

} // namespace

TEST_CASE("vulkan: choosing the device by index, by name and through STRIX_VULKAN_DEVICE", "[vulkan]") {
    // list_devices() before any context exists (and, in a case below, while one is alive)
    const auto devices = vk::list_devices();
    REQUIRE(!devices.empty());
    const auto usable = std::find_if(devices.begin(), devices.end(), [](const vk::device_info& d) { return d.unusable.empty(); });
    REQUIRE(usable != devices.end());
    const vk::device_info dev = *usable; // index 0 (lavapipe) in CI
    const std::string index = std::to_string(dev.index);
    SECTION("a name that matches nothing") {
        const auto o = capture([&] { (void)vk::choose_device(devices, std::string("no-such-gpu-4711")); });
        CHECK(o.threw);
        CHECK(o.code == error_code::unsupported);
        CHECK_THAT(o.what, Catch::Contains("no-such-gpu-4711"));
        CHECK_THAT(o.what, Catch::Contains(dev.name)); // the devices present are listed
        const auto past = capture([&] { (void)vk::choose_device(devices, std::to_string(devices.size())); });
        CHECK(past.threw);
        CHECK_THAT(past.what, Catch::Contains("'" + std::to_string(devices.size()) + "'"));
        vk::context_options opt;
        opt.device = "no-such-gpu-4711";
        const auto ctx = capture([&] { vk::context c(opt); });
        CHECK(ctx.threw);
        CHECK_THAT(ctx.what, Catch::Contains("no-such-gpu-4711"));
    }
    SECTION("by index and by part of the name, in any case") {
        vk::context_options opt;
        opt.device = index;
        vk::context by_index(opt);
        CHECK(by_index.device().index == dev.index);
        CHECK(by_index.device().name == dev.name);
        std::string part = dev.name.size() > 2 ? dev.name.substr(1, dev.name.size() - 2) : dev.name; // a part, in capitals
        for (auto& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        opt.device = part;
        vk::context by_name(opt);
        CHECK(by_name.device().name == dev.name);
        CHECK(same_bytes(sample_ops(by_index)[1], sample_ops(by_name)[1]));
        CHECK(by_index.validation_messages() == 0);
        CHECK(by_name.validation_messages() == 0);
    }
    SECTION("the environment variable, and the option over it") {
        // a stand-in environment (the process's is left alone): the variable fills the default
        static std::string named;
        const vk::context_options::lookup env = [](const char* name) -> const char* {
            return std::string_view(name) == "STRIX_VULKAN_DEVICE" ? named.c_str() : nullptr;
        };
        {
            named = "no-such-gpu-4711";
            vk::context_options opt(env);
            CHECK(opt.device == named);
            const auto c = capture([&] { vk::context ctx(opt); });
            CHECK(c.threw);
            CHECK_THAT(c.what, Catch::Contains("no-such-gpu-4711"));
            opt.device = index;
            vk::context explicit_choice(opt); // the option wins over the environment
            CHECK(explicit_choice.device().index == dev.index);
            CHECK(explicit_choice.validation_messages() == 0);
        }
        {
            named = index;
            const vk::context_options opt(env);
            CHECK(vk::choose_device(devices, opt.device) == dev.index);
            vk::context ctx(opt);
            CHECK(ctx.device().index == dev.index);
            CHECK(ctx.validation_messages() == 0);
        }
        named.clear(); // empty: unset
        CHECK_FALSE(vk::context_options(env).device.has_value());
    }
}

// list_devices() loads volk's instance functions from a short-lived instance without the
// debug-utils extension; a context alive at that moment then calls a null
// vkDestroyDebugUtilsMessengerEXT when it is destroyed (a crash).
TEST_CASE("vulkan: list_devices while a context is alive", "[vulkan]") {
    {
        vk::context ctx;
        CHECK(!vk::list_devices().empty());
        CHECK(ctx.validation_messages() == 0);
    }
    SUCCEED("the context was destroyed");
}

TEST_CASE("vulkan: a saved pipeline cache is loaded by a new context", "[vulkan]") {
    const auto path = temp_file("strix_vulkan_test_cache");
    struct remove_file {
        std::filesystem::path p;
        ~remove_file() { std::filesystem::remove(p); }
    } cleanup{path};
    std::vector<host_tensor> first;
    {
        vk::context_options opt;
        opt.pipeline_cache = path.string(); // no such file yet: starts empty
        vk::context ctx(opt);
        first = sample_ops(ctx);
        CHECK(ctx.pipeline_count() > 0);
        ctx.save_pipeline_cache(path.string());
        CHECK(ctx.validation_messages() == 0);
    }
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 0);
    {
        vk::context_options opt;
        opt.pipeline_cache = path.string();
        vk::context ctx(opt);
        const auto again = sample_ops(ctx);
        REQUIRE(again.size() == first.size());
        for (std::size_t i = 0; i < again.size(); ++i) CHECK(same_bytes(again[i], first[i]));
        CHECK(ctx.validation_messages() == 0);
    }
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f << "not a pipeline cache";
    }
    {
        vk::context_options opt;
        opt.pipeline_cache = path.string(); // a foreign file: ignored
        vk::context ctx(opt);
        const auto again = sample_ops(ctx);
        for (std::size_t i = 0; i < again.size(); ++i) CHECK(same_bytes(again[i], first[i]));
        CHECK(ctx.validation_messages() == 0);
    }
}

TEST_CASE("vulkan: four threads with their own streams share one context", "[vulkan]") {
    vk::context ctx;
    constexpr int threads = 4, rounds = 12;
    std::vector<std::string> failures(threads);
    std::vector<int> done(threads, 0);
    auto work = [&](int id) {
        try {
            rng_t g(0x7472ull + static_cast<std::uint64_t>(id));
            for (int r = 0; r < rounds; ++r) {
                const dtype t = strix::all_dtypes[static_cast<std::size_t>(id * rounds + r) % strix::dtype_count];
                const host_tensor x = random_tensor(g, t, {3, 4, 5});
                vk::device_tensor dx = vk::upload(ctx, x.view());
                vk::stream s(ctx);
                host_tensor want;
                vk::device_tensor out;
                switch ((id + r) % 4) {
                case 0: {
                    const host_tensor idx = index_tensor(g, strix::index_dtypes[static_cast<std::size_t>(r % 4)], {2, 3}, 4);
                    const vk::device_tensor di = vk::upload(ctx, idx.view());
                    want = strix::gather(x.view(), idx.view(), {1});
                    out = vk::device_tensor(ctx, t, want.sizes());
                    s.gather(dx.view(), di.view(), out.view(), {1});
                    s.run();
                    break;
                }
                case 1: {
                    const any_cview parts[] = {x.view(), x.view()};
                    want = strix::join(parts, {2});
                    out = vk::device_tensor(ctx, t, want.sizes());
                    const vk::device_view dparts[] = {dx.view(), dx.view()};
                    s.join(dparts, out.view(), {2});
                    s.run();
                    break;
                }
                case 2: {
                    const strix::pad_desc d{static_cast<pad_mode>(r % 4), {1, 0, 6}, {2, 1, 0}, 1};
                    want = strix::pad(x.view(), d);
                    out = vk::device_tensor(ctx, t, want.sizes());
                    s.pad(dx.view(), out.view(), d);
                    s.run();
                    break;
                }
                default: {
                    const host_tensor idx = index_tensor(g, strix::index_dtypes[static_cast<std::size_t>(r % 4)], {3, 4, 2}, 5);
                    const host_tensor upd = random_tensor(g, t, {3, 4, 2});
                    const vk::device_tensor di = vk::upload(ctx, idx.view()), du = vk::upload(ctx, upd.view());
                    want = strix::scatter(x.view(), idx.view(), upd.view(), {-1});
                    s.scatter(dx.view(), di.view(), du.view(), dx.view(), {-1});
                    s.run();
                    out = std::move(dx);
                    break;
                }
                }
                host_tensor got(t, want.sizes());
                vk::download(ctx, out, got.view());
                if (!same_bytes(got, want) && failures[static_cast<std::size_t>(id)].empty())
                    failures[static_cast<std::size_t>(id)] = "round " + std::to_string(r) + " (" + type_name(t) + ") differs from the CPU";
                ++done[static_cast<std::size_t>(id)];
            }
        } catch (const std::exception& e) {
            failures[static_cast<std::size_t>(id)] = e.what();
        }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back(work, i);
    for (auto& th : pool) th.join();
    for (int i = 0; i < threads; ++i) {
        INFO("thread " << i << ": " << failures[static_cast<std::size_t>(i)]);
        CHECK(failures[static_cast<std::size_t>(i)].empty());
        CHECK(done[static_cast<std::size_t>(i)] == rounds);
    }
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// Runs `f` with stderr (file descriptor 2) sent to a temporary file, and returns what was
/// written there. The validation layer's reports of leaked objects arrive while the device and
/// the instance are destroyed, after a context can be asked for its message count; the context
/// prints every message to stderr, so this is where they can be seen.
template <class F>
std::string captured_stderr(F&& f) {
    const auto path = temp_file("strix_vulkan_test_stderr");
    std::FILE* file = std::fopen(path.string().c_str(), "w+");
    REQUIRE(file != nullptr);
    std::fflush(stderr);
    const int saved = dup_fd(2);
    dup2_fd(file_fd(file), 2);
    struct restore {
        int saved;
        std::FILE* file;
        ~restore() {
            std::fflush(stderr);
            dup2_fd(saved, 2);
            close_fd(saved);
            std::fclose(file);
        }
    };
    {
        const restore r{saved, file};
        f();
    }
    std::string text;
    {
        std::ifstream in(path);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::filesystem::remove(path);
    return text;
}

} // namespace

TEST_CASE("vulkan: destroying a context after every kind of use leaves no Vulkan object behind", "[vulkan]") {
    int messages = -1;
    const std::string log = captured_stderr([&] {
        vk::context ctx;
        rng_t g(0x1eafull);
        (void)sample_ops(ctx);
        const host_tensor x = random_tensor(g, dtype::uint8, {6, 7});
        host_tensor idx = index_tensor(g, dtype::int64, {3, 7}, 6);
        write_index(idx.view(), coords{2, 3}, 99);
        const host_tensor upd = random_tensor(g, dtype::uint8, {3, 7});
        const vk::device_tensor dx = vk::upload(ctx, x.view()), di = vk::upload(ctx, idx.view()), du = vk::upload(ctx, upd.view());
        const vk::device_tensor out(ctx, dtype::uint8, {6, 7}), padded(ctx, dtype::uint8, {8, 9});
        { // an index error reported by run()
            vk::stream s(ctx);
            s.scatter(dx.view(), di.view(), du.view(), out.view(), {0});
            CHECK_THROWS_AS(s.run(), strix::error);
        }
        { // never submitted
            vk::stream s(ctx);
            s.pad(dx.view(), padded.view(), {pad_mode::edge, {1, 1}, {1, 1}, 0});
        }
        { // submitted, never waited for
            vk::stream s(ctx);
            s.pad(dx.view(), padded.view(), {pad_mode::reflect, {1, 1}, {1, 1}, 0});
            s.submit();
        }
        (void)vk::stream::download_view(ctx, padded.view());
        {
            const vk::buffer b = ctx.create_buffer(100, vk::memory::host);
            CHECK(b.mapped() != nullptr);
        }
        messages = ctx.validation_messages();
    });
    CHECK(messages == 0);
    INFO(log);
    CHECK_THAT(log, !Catch::Contains("validation"));
}

TEST_CASE("vulkan: two contexts alive at once, destroyed in either order", "[vulkan]") {
    const bool first_goes_first = GENERATE(true, false);
    auto a = std::make_unique<vk::context>();
    auto b = std::make_unique<vk::context>(storage_options(false));
    const auto ra = sample_ops(*a);
    const auto rb = sample_ops(*b);
    for (std::size_t i = 0; i < ra.size(); ++i) CHECK(same_bytes(ra[i], rb[i]));
    CHECK(a->validation_messages() == 0);
    CHECK(b->validation_messages() == 0);
    auto& gone = first_goes_first ? a : b;
    auto& kept = first_goes_first ? b : a;
    const std::string log = captured_stderr([&] { gone.reset(); });
    CHECK_THAT(log, !Catch::Contains("validation"));
    const auto again = sample_ops(*kept);
    for (std::size_t i = 0; i < ra.size(); ++i) CHECK(same_bytes(again[i], ra[i]));
    CHECK(kept->validation_messages() == 0);
    const std::string log2 = captured_stderr([&] { kept.reset(); });
    CHECK_THAT(log2, !Catch::Contains("validation"));
}

// The stream finds which call had the bad index by reading the indices back after the run; when
// a later operator of the same stream overwrites them, the stream copies them aside first, so the
// message is still the CPU's.
TEST_CASE("vulkan: streams reuse the frames of finished ones, scratch and metadata included", "[vulkan]") {
    // one stream at a time takes one frame, whatever it records; two alive at once take two;
    // streams that throw, or are never submitted, give theirs back too. Every result is the CPU's.
    vk::context ctx;
    rng_t g(0xf4a3e5ull);
    using R = strix::scatter_reduction;
    const auto scatter_case = [&](std::int64_t n, std::int64_t size, R red, bool det) {
        host_tensor in(dtype::float32, shape{size}), upd(dtype::float32, shape{n}), idx(dtype::int32, shape{n});
        for (std::int64_t i = 0; i < size; ++i) reinterpret_cast<float*>(in.data())[i] = static_cast<float>(uni(g, -9, 9));
        for (std::int64_t i = 0; i < n; ++i) {
            reinterpret_cast<float*>(upd.data())[i] = static_cast<float>(uni(g, -99, 99)) / 8.0f;
            reinterpret_cast<std::int32_t*>(idx.data())[i] = static_cast<std::int32_t>(uni(g, 0, size - 1));
        }
        const strix::scatter_desc d{0, index_policy::error, red, det};
        const host_tensor want = strix::scatter(in.view(), idx.view(), upd.view(), d);
        host_tensor got(dtype::float32, shape{size});
        vk::scatter(ctx, in.view(), idx.view(), upd.view(), got.view(), d);
        CHECK(same_bytes(got, want));
    };
    // the convenience calls hold at most staging_depth frames at once (a stream, or the staging
    // ring of an upload or download on a device whose memory the host cannot map); after the
    // first call, none is made
    scatter_case(10, 31, R::none, false);
    const std::size_t before = ctx.frames_made();
    CHECK(before <= static_cast<std::size_t>(std::max(2, vk::detail::staging_depth)));
    // scratch of growing and shrinking sizes: claims, winners, the deterministic sort
    for (const std::int64_t n : {10, 5000, 70000, 300, 70000, 10}) {
        INFO(n << " updates");
        scatter_case(n, 3 * n + 1, R::none, false);
        scatter_case(n, n / 3 + 1, R::add, true);
        scatter_case(n, n + 1, R::max, false);
    }
    CHECK(ctx.frames_made() == before);
    // a stream that threw while recording, and one never submitted, give their frames back
    const vk::device_tensor a(ctx, dtype::float32, {64}), b(ctx, dtype::float32, {64}), c(ctx, dtype::float32, {32});
    {
        vk::stream s(ctx);
        CHECK_THROWS_AS(s.copy(a.view(), c.view()), strix::error);
    }
    { vk::stream s(ctx); s.copy(a.view(), b.view()); }
    CHECK(ctx.frames_made() == before);
    // two streams alive at once: two frames, both reused afterwards
    {
        vk::stream s1(ctx), s2(ctx);
        s1.copy(a.view(), b.view());
        s2.copy(b.view(), a.view());
        s1.submit();
        s2.submit();
        s1.wait();
        s2.wait();
    }
    const std::size_t two = ctx.frames_made();
    CHECK(two - before <= 2);
    for (int i = 0; i < 20; ++i) {
        vk::stream s1(ctx), s2(ctx);
        s1.copy(a.view(), b.view());
        s1.run();
    }
    CHECK(ctx.frames_made() == two);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a recorded stream replays: new contents of its tensors, index errors per run", "[vulkan]") {
    // a decode loop: each run appends this step's row to a cache (scatter of one row at a
    // position held in a device tensor) and gathers the rows a step asks for; the host writes
    // the row, the position and the wanted rows between runs, and never records again
    vk::context ctx;
    constexpr std::int64_t rows = 16, width = 8;
    host_tensor cache(dtype::float32, shape{rows, width});
    std::memset(cache.data(), 0, cache.bytes());
    vk::device_tensor d_cache = vk::upload(ctx, cache.view());
    vk::device_tensor d_row(ctx, dtype::float32, {1, width}), d_pos(ctx, dtype::int64, {1, width}), d_want(ctx, dtype::int32, {3});
    vk::device_tensor d_out(ctx, dtype::float32, {3, width});
    vk::stream s(ctx);
    s.scatter(d_cache.view(), d_pos.view(), d_row.view(), d_cache.view(), strix::scatter_desc{0});
    s.gather(d_cache.view(), d_want.view(), d_out.view(), strix::gather_desc{0});
    rng_t g(0x5e9a7ull);
    for (std::int64_t step = 0; step < rows; ++step) {
        INFO("step " << step);
        host_tensor row(dtype::float32, shape{1, width}), pos(dtype::int64, shape{1, width}), want(dtype::int32, shape{3});
        for (std::int64_t j = 0; j < width; ++j) {
            reinterpret_cast<float*>(row.data())[j] = static_cast<float>(uni(g, -1000, 1000));
            reinterpret_cast<std::int64_t*>(pos.data())[j] = step;
        }
        for (int k = 0; k < 3; ++k) reinterpret_cast<std::int32_t*>(want.data())[k] = static_cast<std::int32_t>(uni(g, 0, step));
        vk::device_tensor t_row = vk::upload(ctx, row.view()), t_pos = vk::upload(ctx, pos.view()), t_want = vk::upload(ctx, want.view());
        { // new contents of the bound tensors, written by a stream of their own
            vk::stream w(ctx);
            w.copy(t_row.view(), d_row.view());
            w.copy(t_pos.view(), d_pos.view());
            w.copy(t_want.view(), d_want.view());
            w.run();
        }
        if (step == 0) s.run();
        else s.replay();
        s.wait();
        // the CPU: the same append, then the same gather
        strix::scatter(cache.view(), pos.view(), row.view(), cache.view(), strix::scatter_desc{0});
        const host_tensor expect = strix::gather(cache.view(), want.view(), strix::gather_desc{0});
        host_tensor got(dtype::float32, shape{3, width});
        vk::download(ctx, d_out, got.view());
        CHECK(same_bytes(got, expect));
    }
    // an index error in a later run is reported by that run's wait(), and the next clean run passes
    host_tensor bad(dtype::int32, shape{3});
    reinterpret_cast<std::int32_t*>(bad.data())[0] = 0;
    reinterpret_cast<std::int32_t*>(bad.data())[1] = static_cast<std::int32_t>(rows); // out of range
    reinterpret_cast<std::int32_t*>(bad.data())[2] = 1;
    vk::device_tensor t_bad = vk::upload(ctx, bad.view());
    { vk::stream w(ctx); w.copy(t_bad.view(), d_want.view()); w.run(); }
    s.replay();
    const outcome o = capture([&] { s.wait(); });
    CHECK(o.code == error_code::index_out_of_range);
    CHECK(o.what.find("index 16 at position [1]") != std::string::npos);
    reinterpret_cast<std::int32_t*>(bad.data())[1] = 2;
    vk::device_tensor t_good = vk::upload(ctx, bad.view());
    { vk::stream w(ctx); w.copy(t_good.view(), d_want.view()); w.run(); }
    s.replay();
    CHECK_NOTHROW(s.wait());
    // replaying before the last run was waited for is refused
    s.replay();
    CHECK_THROWS_AS(s.replay(), strix::error);
    s.wait();
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an operator whose output is empty still checks its indices", "[vulkan]") {
    // input (3, 0): every gather and scatter-nd of it moves nothing, yet index 5 must raise the
    // CPU's error under the `error` policy (numpy.take does), and pass under `clamp`
    vk::context ctx;
    host_tensor in(dtype::float32, shape{3, 0});
    for (const std::int64_t bad : {5, -4, 3}) {
        INFO("index " << bad);
        host_tensor idx(dtype::int64, shape{2}), tuple(dtype::int64, shape{2, 1}), upd(dtype::float32, shape{2, 0});
        for (auto* t : {&idx, &tuple}) {
            reinterpret_cast<std::int64_t*>(t->data())[0] = 1;
            reinterpret_cast<std::int64_t*>(t->data())[1] = bad;
        }
        host_tensor g_out(dtype::float32, shape{2, 0}), s_out(dtype::float32, shape{3, 0});
        const auto expect = [&](auto&& call, const char* op, strix::index_policy policy) {
            const outcome o = capture(call);
            INFO(op << ": " << o.what);
            if (policy == index_policy::clamp) {
                CHECK_FALSE(o.threw);
                return;
            }
            CHECK(o.code == error_code::index_out_of_range);
            CHECK(o.what.find(std::string("strix::") + op + ": index " + std::to_string(bad) + " at position") != std::string::npos);
            CHECK(o.what.find("size 3") != std::string::npos);
        };
        for (const auto policy : {index_policy::error, index_policy::clamp}) {
            expect([&] { vk::gather(ctx, in.view(), idx.view(), g_out.view(), strix::gather_desc{0, -1, policy}); }, "gather", policy);
            expect([&] { vk::gather_nd(ctx, in.view(), tuple.view(), g_out.view(), strix::gather_nd_desc{0, policy}); }, "gather-nd", policy);
            expect([&] { vk::scatter_nd(ctx, in.view(), tuple.view(), upd.view(), s_out.view(), strix::scatter_nd_desc{policy}); }, "scatter-nd", policy);
        }
    }
    // in range: no error
    host_tensor ok(dtype::int64, shape{1}), out(dtype::float32, shape{1, 0});
    reinterpret_cast<std::int64_t*>(ok.data())[0] = 2;
    CHECK_NOTHROW(vk::gather(ctx, in.view(), ok.view(), out.view(), strix::gather_desc{0}));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an index error is named even when a later operator overwrites the indices", "[vulkan]") {
    vk::context ctx;
    host_tensor x(dtype::float32, {4});
    host_tensor bad(dtype::int64, {2});
    bad.as<std::int64_t>()[1] = 7;
    const host_tensor good(dtype::int64, {2});
    const auto cpu = capture([&] { (void)strix::gather(x.view(), bad.view(), strix::gather_desc{}); });
    REQUIRE(cpu.code == error_code::index_out_of_range);
    const vk::device_tensor dx = vk::upload(ctx, x.view()), di = vk::upload(ctx, bad.view()), dg = vk::upload(ctx, good.view());
    const vk::device_tensor out(ctx, dtype::float32, {2});
    vk::stream s(ctx);
    s.gather(dx.view(), di.view(), out.view(), {});
    const vk::device_view one[] = {dg.view()};
    s.join(one, di.view(), {}); // the indices are reused as scratch afterwards
    const auto gpu = capture([&] { s.run(); });
    CHECK(gpu.threw);
    CHECK(gpu.code == error_code::index_out_of_range);
    CHECK(gpu.what == cpu.what);
    CHECK(ctx.validation_messages() == 0);
}

// More than 2^32 elements in one tensor (4 GiB of uint8): 64-bit offsets end to end. Hidden
// (run it with "[huge]") because it needs a device with several GiB of memory; the suite runs it
// on real GPUs.
TEST_CASE("vulkan: a tensor of more than 2^32 elements", "[.][huge]") {
    vk::context ctx;
    const std::int64_t n = (std::int64_t{1} << 32) + 4096;
    auto pattern = [](std::int64_t i) { return static_cast<std::uint8_t>((static_cast<std::uint64_t>(i) * 2654435761u) >> 13); };
    host_tensor x(dtype::uint8, {n});
    for (std::int64_t i = 0; i < n; ++i) x.as<std::uint8_t>()[i] = pattern(i);
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    // gather far past 2^32, pad both ends, scatter in place near the end
    host_tensor idx(dtype::int64, {4});
    const std::int64_t picks[4] = {n - 1, (std::int64_t{1} << 32) + 7, 3, -2};
    std::copy(picks, picks + 4, idx.as<std::int64_t>());
    const vk::device_tensor di = vk::upload(ctx, idx.view());
    const vk::device_tensor dg(ctx, dtype::uint8, {4});
    const vk::device_tensor dp(ctx, dtype::uint8, {n + 3});
    vk::stream s(ctx);
    s.gather(dx.view(), di.view(), dg.view(), {});
    s.pad(dx.view(), dp.view(), strix::pad_desc{strix::pad_mode::reflect, {1}, {2}});
    host_tensor uidx(dtype::int64, {1});
    uidx.as<std::int64_t>()[0] = n - 5;
    host_tensor upd(dtype::uint8, {1});
    upd.as<std::uint8_t>()[0] = 0xab;
    const vk::device_tensor dui = vk::upload(ctx, uidx.view()), du = vk::upload(ctx, upd.view());
    s.scatter(dx.view(), dui.view(), du.view(), dx.view(), {});
    s.run();
    host_tensor g(dtype::uint8, {4});
    vk::download(ctx, dg, g.view());
    CHECK(g.as<std::uint8_t>()[0] == pattern(n - 1));
    CHECK(g.as<std::uint8_t>()[1] == pattern((std::int64_t{1} << 32) + 7));
    CHECK(g.as<std::uint8_t>()[2] == pattern(3));
    CHECK(g.as<std::uint8_t>()[3] == pattern(n - 2));
    // the padded tensor's ends, read through small device views
    auto tail = [&](const vk::device_tensor& t, std::int64_t from, std::int64_t count) {
        vk::device_view v = t.view();
        v.address += static_cast<std::uint64_t>(from);
        v.sizes = strix::shape{count};
        return vk::stream::download_view(ctx, v);
    };
    const host_tensor pe = tail(dp, n + 3 - 8, 8);
    // output j maps to input j - 1; past the end, reflect: n + k -> n - 2 - k
    for (std::int64_t j = n + 3 - 8; j < n + 3; ++j) {
        const std::int64_t src = j - 1 < n ? j - 1 : 2 * (n - 1) - (j - 1);
        CHECK(pe.as<std::uint8_t>()[j - (n + 3 - 8)] == pattern(src));
    }
    const host_tensor xe = tail(dx, n - 6, 3);
    CHECK(xe.as<std::uint8_t>()[0] == pattern(n - 6));
    CHECK(xe.as<std::uint8_t>()[1] == 0xab);
    CHECK(xe.as<std::uint8_t>()[2] == pattern(n - 4));
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// A device the test makes itself with plain Vulkan (as an application would), with or without
/// the features strix needs, and a messenger of its own: a context that adopts it reports no
/// validation messages of its own, so the test counts them here.
struct own_device {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    bool addresses = true; // made with bufferDeviceAddress (its buffers then have device addresses)
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    VkPhysicalDeviceVulkan12Features f12 = vk::make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkPhysicalDeviceFeatures2 f2 = vk::make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
    VkDeviceQueueCreateInfo qi = vk::make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    VkDeviceCreateInfo info = vk::make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2);
    float priority = 1.0f;
    VkPhysicalDeviceMemoryProperties memory{};
    std::vector<std::pair<VkBuffer, VkDeviceMemory>> buffers;
    static inline int messages = 0;

    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* d, void*) {
        if (d->pMessageIdName && std::strncmp(d->pMessageIdName, "Loader", 6) == 0) return VK_FALSE;
        ++messages;
        std::fprintf(stderr, "validation (own device): %s\n", d->pMessage ? d->pMessage : "");
        return VK_FALSE;
    }

    std::uint32_t api = VK_API_VERSION_1_2; // the instance's apiVersion

    /// `api` 1.1: an application of Vulkan 1.1, whose device is made with no pNext (1.2's
    /// feature structures are not its to pass) and so with no optional feature.
    own_device(bool buffer_device_address, bool int64, std::uint32_t api_version = VK_API_VERSION_1_2) : api(api_version) {
        REQUIRE(volkInitialize() == VK_SUCCESS);
        VkApplicationInfo app = vk::make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        app.apiVersion = api;
        const char* exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
        VkInstanceCreateInfo ici = vk::make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        ici.pApplicationInfo = &app;
        ici.enabledExtensionCount = 1;
        ici.ppEnabledExtensionNames = exts;
        REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
        volkLoadInstance(instance); // device functions too, through the loader's trampolines
        VkDebugUtilsMessengerCreateInfoEXT mi = vk::make<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
        mi.pfnUserCallback = on_message;
        auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        REQUIRE(create_messenger(instance, &mi, nullptr, &messenger) == VK_SUCCESS);
        // the device a context would pick
        const auto devices = vk::list_devices();
        const auto chosen = vk::choose_device(devices);
        std::uint32_t n = 0;
        vkEnumeratePhysicalDevices(instance, &n, nullptr);
        std::vector<VkPhysicalDevice> pds(n);
        vkEnumeratePhysicalDevices(instance, &n, pds.data());
        physical = pds.at(chosen);
        std::uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> qf(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, qf.data());
        while (!(qf.at(family).queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        qi.queueFamilyIndex = family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        addresses = buffer_device_address;
        f12.bufferDeviceAddress = buffer_device_address;
        f2.features.shaderInt64 = int64;
        info.queueCreateInfoCount = 1;
        info.pQueueCreateInfos = &qi;
        if (api < VK_API_VERSION_1_2) info.pNext = nullptr;
        REQUIRE(vkCreateDevice(physical, &info, nullptr, &device) == VK_SUCCESS);
        vkGetDeviceQueue(device, family, 0, &queue);
        vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    }
    own_device(const own_device&) = delete;
    own_device& operator=(const own_device&) = delete;
    ~own_device() {
        for (auto [b, m] : buffers) {
            vkDestroyBuffer(device, b, nullptr);
            vkFreeMemory(device, m, nullptr);
        }
        vkDestroyDevice(device, nullptr);
        auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        destroy_messenger(instance, messenger, nullptr);
        vkDestroyInstance(instance, nullptr);
    }
    [[nodiscard]] vk::adopted_device adopt() const { return {instance, physical, device, family, queue, &info, api}; }

    /// A host-visible buffer of `bytes` that shaders address (the application's own).
    std::pair<VkBuffer, void*> make_buffer(VkDeviceSize bytes) {
        VkBufferCreateInfo bi = vk::make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        bi.size = bytes;
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | (addresses ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0) | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        VkBuffer b = VK_NULL_HANDLE;
        REQUIRE(vkCreateBuffer(device, &bi, nullptr, &b) == VK_SUCCESS);
        VkMemoryRequirements req{};
        vkGetBufferMemoryRequirements(device, b, &req);
        std::uint32_t type = 0;
        const auto want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        while (!((req.memoryTypeBits >> type) & 1) || (memory.memoryTypes[type].propertyFlags & want) != want) ++type;
        VkMemoryAllocateFlagsInfo flags = vk::make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo ai = vk::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, addresses ? &flags : nullptr);
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        VkDeviceMemory m = VK_NULL_HANDLE;
        REQUIRE(vkAllocateMemory(device, &ai, nullptr, &m) == VK_SUCCESS);
        REQUIRE(vkBindBufferMemory(device, b, m, 0) == VK_SUCCESS);
        void* p = nullptr;
        REQUIRE(vkMapMemory(device, m, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS);
        buffers.emplace_back(b, m);
        return {b, p};
    }
};

} // namespace

TEST_CASE("vulkan: a context adopts the application's device, checks its features and leaves it alive", "[vulkan]") {
    own_device::messages = 0;
    SECTION("without bufferDeviceAddress or shaderInt64 it takes the baseline path; without what it must know, a clear error") {
        for (const auto& [addresses, int64] : {std::pair{false, true}, std::pair{true, false}, std::pair{false, false}}) {
            own_device app(addresses, int64);
            const vk::context ctx(app.adopt());
            CHECK_FALSE(ctx.full_path());
            CHECK(ctx.features_in_use() == "none");
        }
        own_device app(true, true);
        vk::adopted_device no_info = app.adopt();
        no_info.create_info = nullptr;
        CHECK(capture([&] { vk::context ctx(no_info); }).what.find("create_info") != std::string::npos);
        vk::adopted_device bad_family = app.adopt();
        bad_family.queue_family = 1000;
        CHECK(capture([&] { vk::context ctx(bad_family); }).what.find("queue family 1000") != std::string::npos);
    }
    SECTION("its operators equal the CPU, its views wrap the application's buffers, and the device outlives it") {
        // the full path where the device was made with it (and the profile allows it), else the baseline path
        const bool addresses = GENERATE(true, false);
        own_device app(addresses, addresses);
        rng_t g(0xad0b7ull);
        const host_tensor image = random_tensor(g, dtype::float32, shape{5, 7});
        const strix::pad_desc d{.mode = strix::pad_mode::symmetric, .start = {2, 1}, .end = {1, 3}};
        const host_tensor expect = strix::pad(image.view(), d);
        const auto [in_buf, in_host] = app.make_buffer(256 + image.bytes());
        const auto made = app.make_buffer(expect.bytes()); // (clang before 16 cannot capture a structured binding)
        const auto out_buf = made.first;
        const auto out_host = made.second;
        std::memcpy(static_cast<std::byte*>(in_host) + 256, image.data(), image.bytes());
        {
            vk::context ctx(app.adopt());
            CHECK(ctx.adopted());
            CHECK(ctx.handle() == app.device);
            CHECK(ctx.full_path() == (addresses && vk::context_options().profile == vk::path_profile::full));
            // small storage was not enabled: the 32-bit word path
            CHECK_FALSE(ctx.small_storage());
            const vk::device_view in = vk::wrap(ctx, in_buf, 256, image.bytes(), dtype::float32, image.sizes());
            const vk::device_view out = vk::wrap(ctx, out_buf, 0, expect.bytes(), dtype::float32, expect.sizes());
            CHECK(in.owner == 0);
            vk::stream s(ctx);
            s.pad(in, out, d);
            s.run();
            CHECK(std::memcmp(out_host, expect.data(), expect.bytes()) == 0);
            // a strix tensor's data through upload and download on the adopted queue
            const vk::device_tensor t = vk::upload(ctx, image.view());
            host_tensor back(dtype::float32, image.sizes());
            vk::download(ctx, t, back.view());
            CHECK(same_bytes(back, image));
            // wrapping checks the range against the view and the buffer
            const outcome small = capture([&] { (void)vk::wrap(ctx, out_buf, 0, expect.bytes() - 4, dtype::float32, expect.sizes()); });
            CHECK(small.code == error_code::invalid_argument);
            CHECK(small.what.find("needs " + std::to_string(expect.bytes()) + " bytes") != std::string::npos);
            INFO(small.what);
            CHECK(small.what.find("shape [8,11]") != std::string::npos);
            const outcome beyond = capture([&] { (void)vk::wrap(ctx, out_buf, 64, 1 << 20, dtype::float32, shape{4}); });
            CHECK(beyond.code == error_code::invalid_argument);
            CHECK(beyond.what.find("too few") != std::string::npos);
            const outcome odd = capture([&] { (void)vk::wrap(ctx, out_buf, 2, 64, dtype::float32, shape{4}); });
            CHECK(odd.what.find("multiple of the element size") != std::string::npos);
            // negative strides: the lowest byte at the offset, coordinates 0 at the far end
            const vk::device_view reversed = vk::wrap(ctx, in_buf, 256, image.bytes(), dtype::float32, shape{5, 7}, std::array<std::int64_t, 8>{-7, -1});
            const host_tensor flipped = vk::stream::download_view(ctx, reversed);
            CHECK(std::memcmp(flipped.data(), image.data() + image.bytes() - 4, 4) == 0);
        }
        // the context is gone; the application's device still works
        const auto [b, p] = app.make_buffer(64);
        CHECK(b != VK_NULL_HANDLE);
    }
    SECTION("an application of Vulkan 1.1 (its instance's apiVersion): the baseline path, held to 1.1 by the layer") {
        own_device app(false, false, VK_API_VERSION_1_1);
        vk::context ctx(app.adopt());
        CHECK_FALSE(ctx.full_path());
        CHECK(ctx.features_in_use() == "none");
        rng_t g(0x1a11ull);
        const host_tensor x = random_tensor(g, dtype::int64, {9, 6});
        const host_tensor idx = index_tensor(g, dtype::int64, {5}, 9);
        const host_tensor sidx = index_tensor(g, dtype::int32, {4, 6}, 9);
        const host_tensor upd = random_tensor(g, dtype::int64, {4, 6});
        const strix::pad_desc pd{pad_mode::reflect, {2, 1}, {1, 3}, 0.0};
        const strix::scatter_desc sd{0, index_policy::error, strix::scatter_reduction::add};
        host_tensor added(dtype::int64, {9, 6});
        strix::scatter(x.view(), sidx.view(), upd.view(), added.view(), sd);
        const vk::device_tensor dx = vk::upload(ctx, x.view()), didx = vk::upload(ctx, idx.view()), dsidx = vk::upload(ctx, sidx.view()),
                                dupd = vk::upload(ctx, upd.view());
        const vk::device_tensor dp(ctx, dtype::int64, {12, 10}), dg(ctx, dtype::int64, {5, 6}), ds(ctx, dtype::int64, {9, 6});
        vk::stream s(ctx);
        s.pad(dx.view(), dp.view(), pd);
        s.gather(dx.view(), didx.view(), dg.view(), {0});
        s.scatter(dx.view(), dsidx.view(), dupd.view(), ds.view(), sd);
        s.run();
        CHECK(same_bytes(read_back(ctx, dp), strix::pad(x.view(), pd)));
        CHECK(same_bytes(read_back(ctx, dg), strix::gather(x.view(), idx.view(), {0})));
        CHECK(same_bytes(read_back(ctx, ds), added));
    }
    CHECK(own_device::messages == 0);
}

TEST_CASE("vulkan: operators recorded into the application's command buffer, submitted by it, index errors checked after its fence", "[vulkan]") {
    own_device::messages = 0;
    own_device app(true, true);
    vk::context ctx(app.adopt());
    rng_t g(0xc0bdull);
    const host_tensor table = random_tensor(g, dtype::float32, shape{6, 4});
    host_tensor rows(dtype::int32, shape{3});
    const std::int32_t good[3] = {5, 0, 3}, bad[3] = {1, 6, 2};
    std::memcpy(rows.data(), good, sizeof good);
    const auto [table_buf, table_host] = app.make_buffer(table.bytes());
    const auto [rows_buf, rows_host] = app.make_buffer(16);
    const auto [copy_buf, copy_host] = app.make_buffer(3 * 4 * 4);
    std::memset(table_host, 0, table.bytes());
    const vk::device_view t = vk::wrap(ctx, table_buf, 0, table.bytes(), dtype::float32, table.sizes());
    const vk::device_view r = vk::wrap(ctx, rows_buf, 0, 12, dtype::int32, shape{3});
    const vk::device_tensor out(ctx, dtype::float32, shape{3, 4});

    VkCommandPoolCreateInfo pci = vk::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pci.queueFamilyIndex = app.family;
    VkCommandPool pool = VK_NULL_HANDLE;
    REQUIRE(vkCreateCommandPool(app.device, &pci, nullptr, &pool) == VK_SUCCESS);
    VkCommandBufferAllocateInfo cai = vk::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    cai.commandPool = pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    REQUIRE(vkAllocateCommandBuffers(app.device, &cai, &cmd) == VK_SUCCESS);
    VkFenceCreateInfo fci = vk::make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VkFence fence = VK_NULL_HANDLE;
    REQUIRE(vkCreateFence(app.device, &fci, nullptr, &fence) == VK_SUCCESS);
    {
        VkCommandBufferBeginInfo bi = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO); // reusable: submitted twice
        REQUIRE(vkBeginCommandBuffer(cmd, &bi) == VK_SUCCESS);
        // the application writes the table with its own command; strix's opening barrier orders it
        vkCmdUpdateBuffer(cmd, table_buf, 0, table.bytes(), table.data());
        vk::command_recorder rec(ctx, cmd);
        rec.gather(t, r, out.view(), strix::gather_desc{0});
        rec.finish();
        CHECK_THROWS_AS(rec.pad(t, t, strix::pad_desc{}), strix::error); // finished: no more recording
        const VkBufferCopy region{0, 0, 48};
        vkCmdCopyBuffer(cmd, out.storage().handle(), copy_buf, 1, &region);
        VkMemoryBarrier to_host = vk::make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0, nullptr);
        REQUIRE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
        VkSubmitInfo si = vk::make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        for (int run = 0; run < 3; ++run) {
            INFO("submission " << run);
            std::memcpy(rows_host, run == 1 ? bad : good, sizeof good);
            std::memcpy(rows.data(), run == 1 ? bad : good, sizeof good);
            REQUIRE(vkQueueSubmit(app.queue, 1, &si, fence) == VK_SUCCESS);
            REQUIRE(vkWaitForFences(app.device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
            REQUIRE(vkResetFences(app.device, 1, &fence) == VK_SUCCESS);
            if (run == 1) {
                const outcome o = capture([&] { rec.throw_index_errors(); });
                CHECK(o.code == error_code::index_out_of_range);
                CHECK(o.what.find("index 6 at position [1]") != std::string::npos);
                continue;
            }
            CHECK_NOTHROW(rec.throw_index_errors());
            const host_tensor expect = strix::gather(table.view(), rows.view(), strix::gather_desc{0});
            CHECK(std::memcmp(copy_host, expect.data(), expect.bytes()) == 0);
        }
    }
    vkDestroyFence(app.device, fence, nullptr);
    vkDestroyCommandPool(app.device, pool, nullptr);
    CHECK(own_device::messages == 0);
}

TEST_CASE("vulkan: small values a replayed stream reads are written in place by the host", "[vulkan]") {
    // the decode loop again, with the row, the position and the wanted rows in tensors the
    // host writes directly between runs: no copy streams, no recording
    vk::context ctx;
    constexpr std::int64_t rows = 12, width = 5;
    host_tensor cache(dtype::float32, shape{rows, width});
    std::memset(cache.data(), 0, cache.bytes());
    vk::device_tensor d_cache = vk::upload(ctx, cache.view());
    const vk::device_tensor d_row(ctx, dtype::float32, {1, width}, vk::memory::upload), d_pos(ctx, dtype::int64, {1, width}, vk::memory::upload),
        d_want(ctx, dtype::int32, {2}, vk::memory::upload), d_out(ctx, dtype::float32, {2, width}, vk::memory::upload);
    REQUIRE(d_row.host_visible());
    vk::stream s(ctx);
    s.scatter(d_cache.view(), d_pos.view(), d_row.view(), d_cache.view(), strix::scatter_desc{0});
    s.gather(d_cache.view(), d_want.view(), d_out.view(), strix::gather_desc{0});
    rng_t g(0x4057ull);
    for (std::int64_t step = 0; step < rows; ++step) {
        INFO("step " << step);
        const any_view row = d_row.host_view(), pos = d_pos.host_view(), want = d_want.host_view();
        for (std::int64_t j = 0; j < width; ++j) {
            static_cast<float*>(row.data())[j] = static_cast<float>(uni(g, -1000, 1000));
            static_cast<std::int64_t*>(pos.data())[j] = step;
        }
        for (int k = 0; k < 2; ++k) static_cast<std::int32_t*>(want.data())[k] = static_cast<std::int32_t>(uni(g, 0, step));
        s.replay(); // the first call submits
        s.wait();
        strix::scatter(cache.view(), any_cview(pos), any_cview(row), cache.view(), strix::scatter_desc{0});
        const host_tensor expect = strix::gather(cache.view(), any_cview(want), strix::gather_desc{0});
        CHECK(std::memcmp(d_out.host_view().data(), expect.data(), expect.bytes()) == 0); // read in place too
    }
    // a tensor in device memory has no host view on a GPU; on lavapipe every tensor has one
    const vk::device_tensor plain(ctx, dtype::float32, {4});
    if (!plain.host_visible()) {
        const outcome o = capture([&] { (void)plain.host_view(); });
        CHECK(o.code == error_code::invalid_argument);
        CHECK(o.what.find("memory::upload") != std::string::npos);
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: rebinding a recorded stream's operands records it again on the new views", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x2eb1dull);
    constexpr std::int64_t rows = 6, width = 7;
    const host_tensor table = random_tensor(g, dtype::float32, {rows, width});
    const vk::device_tensor d_table = vk::upload(ctx, table.view());
    const host_tensor fresh = random_tensor(g, dtype::float32, {1, width});
    const vk::device_tensor d_fresh = vk::upload(ctx, fresh.view());
    vk::device_tensor d_cache(ctx, dtype::float32, {rows, width});
    host_tensor zeros(dtype::float32, shape{rows, width});
    std::memset(zeros.data(), 0, zeros.bytes());
    { vk::stream w(ctx); const vk::device_tensor z = vk::upload(ctx, zeros.view()); w.copy(z.view(), d_cache.view()); w.run(); }
    const auto row_of = [&](const vk::device_tensor& t, std::int64_t r, std::int64_t n = 1) {
        vk::device_view v = t.view();
        v.address += static_cast<std::uint64_t>(r * width * 4);
        v.sizes = shape{n, width};
        return v;
    };
    // indices 0..3 in one tensor, its first 2 or 3 as views
    host_tensor idx(dtype::int32, shape{4});
    for (int k = 0; k < 4; ++k) reinterpret_cast<std::int32_t*>(idx.data())[k] = (5 * k + 1) % static_cast<int>(rows);
    const vk::device_tensor d_idx = vk::upload(ctx, idx.view());
    vk::device_view idx2 = d_idx.view(), idx3 = d_idx.view();
    idx2.sizes = shape{2};
    idx3.sizes = shape{3};
    vk::device_tensor d_out(ctx, dtype::float32, {3, width});
    vk::device_view out2 = d_out.view();
    out2.sizes = shape{2, width};

    vk::stream s(ctx);
    s.copy(d_fresh.view(), row_of(d_cache, 0)); // the decode loop's append: row 0, then row 1, ...
    s.gather(d_table.view(), idx2, out2, strix::gather_desc{0});
    s.run();
    host_tensor expect_cache(dtype::float32, shape{rows, width});
    std::memset(expect_cache.data(), 0, expect_cache.bytes());
    for (std::int64_t step = 1; step < 4; ++step) {
        INFO("step " << step);
        s.rebind({{row_of(d_cache, step - 1), row_of(d_cache, step)}});
        s.replay();
        s.wait();
    }
    for (std::int64_t r = 0; r < 4; ++r) std::memcpy(expect_cache.data() + r * width * 4, fresh.data(), width * 4);
    CHECK(same_bytes(vk::stream::download_view(ctx, d_cache.view()), expect_cache));
    CHECK(same_bytes(vk::stream::download_view(ctx, out2), strix::gather(table.view(), any_cview(idx.data(), dtype::int32, shape{2}), strix::gather_desc{0})));

    // a longer gather: its indices and its output rebound together, shapes and all
    s.rebind({{idx2, idx3}, {out2, d_out.view()}});
    s.replay();
    s.wait();
    CHECK(same_bytes(vk::stream::download_view(ctx, d_out.view()), strix::gather(table.view(), any_cview(idx.data(), dtype::int32, shape{3}), strix::gather_desc{0})));

    // bad use: an operand the stream does not have; views the rules refuse (the stream is then
    // as it was, and replays); a rebind while a run is in flight
    outcome o = capture([&] { s.rebind({{out2, d_out.view()}}); });
    CHECK(o.code == error_code::invalid_argument);
    CHECK(o.what.find("no recorded operator has the [2,7] float32 view") != std::string::npos);
    o = capture([&] { s.rebind({{idx3, idx2}}); }); // 2 indices for an output of 3 rows
    CHECK(o.code == error_code::rule_violation);
    CHECK(o.what.find("gather") != std::string::npos);
    s.replay();
    s.wait();
    CHECK(same_bytes(vk::stream::download_view(ctx, d_out.view()), strix::gather(table.view(), any_cview(idx.data(), dtype::int32, shape{3}), strix::gather_desc{0})));
    s.replay();
    o = capture([&] { s.rebind({{idx3, idx3}}); });
    CHECK(o.code == error_code::invalid_argument);
    CHECK(o.what.find("not waited for") != std::string::npos);
    s.wait();
    // a stream still recording is rebound and goes on recording
    vk::stream r(ctx);
    r.copy(d_fresh.view(), row_of(d_cache, 5));
    r.rebind({{row_of(d_cache, 5), row_of(d_cache, 4)}});
    r.copy(d_fresh.view(), row_of(d_cache, 5));
    r.run();
    CHECK(same_bytes(vk::stream::download_view(ctx, row_of(d_cache, 4, 2)), strix::join(std::vector<any_cview>{fresh.view(), fresh.view()}, strix::join_desc{0})));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: replaying a stream whose tensor was destroyed is a clear error", "[vulkan]") {
    vk::context ctx;
    auto in = std::make_unique<vk::device_tensor>(ctx, dtype::float32, shape{4, 4});
    vk::device_tensor out(ctx, dtype::float32, shape{6, 6});
    vk::stream s(ctx);
    s.pad(in->view(), out.view(), strix::pad_desc{.start = {1, 1}, .end = {1, 1}});
    s.run();
    s.replay();
    s.wait();
    in.reset();
    const outcome o = capture([&] { s.replay(); });
    CHECK(o.code == error_code::invalid_argument);
    CHECK(o.what.find("destroyed") != std::string::npos);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: upload and download move strided views in pieces through the staging ring", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x57a6eull);
    const int depth = vk::detail::staging_depth;
    const struct restore {
        int d;
        ~restore() { vk::detail::staging_depth = d; }
    } keep{depth};
    int ring = 2;
    for (const auto type : {dtype::uint8, dtype::float32, dtype::float64}) {
        // rings of 2, 3 and 4 slots, used round more than once by the smaller pieces
        vk::detail::staging_depth = ring++;
        const host_tensor base = random_tensor(g, type, shape{9, 10, 11});
        // a strided, reversed view of it: every other row, the last axis backwards
        const auto es = static_cast<std::int64_t>(strix::size_of(type));
        const any_cview whole = base.view();
        const any_cview view(static_cast<const std::byte*>(whole.data()) + 10 * es, type, shape{9, 5, 11}, {110, 22, -1});
        host_tensor packed(type, view.sizes());
        auto p = strix::detail::copy_plan(view, packed.view());
        strix::cpu::execute(p);
        for (const std::uint64_t limit : {std::uint64_t{7}, std::uint64_t{64}, std::uint64_t{1000}, std::uint64_t{1} << 20}) {
            INFO(strix::name(type) << ", pieces of at most " << limit << " bytes");
            const vk::detail::transfer_options opt{.limit = limit, .staged = true, .import = false};
            vk::device_tensor t(ctx, type, view.sizes());
            vk::detail::upload_into(ctx, t.storage(), 0, view, opt);
            host_tensor straight(type, view.sizes());
            vk::download(ctx, t, straight.view());
            CHECK(same_bytes(straight, packed));
            // and back into a strided host view, in pieces
            host_tensor target(type, shape{9, 10, 11});
            std::memset(target.data(), 0x5a, target.bytes());
            const any_view into(static_cast<std::byte*>(target.view().data()) + 10 * es, type, shape{9, 5, 11}, {110, 22, -1});
            vk::detail::download_from(ctx, t.storage(), 0, into, opt);
            host_tensor again(type, view.sizes());
            auto q = strix::detail::copy_plan(any_cview(into), again.view());
            strix::cpu::execute(q);
            CHECK(same_bytes(again, packed));
            // bytes outside the view keep their value
            CHECK(std::to_integer<int>(target.data()[11 * es]) == 0x5a); // row 1 of the base lies between the view's rows
        }
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: transfers from and to the context's own host memory go by one device copy", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x9177edull);
    const host_tensor data = random_tensor(g, dtype::float32, shape{6, 1000});
    // pinned memory: a memory::host tensor, written through its host view
    const vk::device_tensor pinned(ctx, dtype::float32, shape{6, 1000}, vk::memory::host);
    REQUIRE(pinned.host_visible());
    std::memcpy(pinned.host_view().data(), data.data(), data.bytes());
    // rows 1..4 of it (a dense range inside the buffer, at an offset) into a device tensor;
    // staged, so that lavapipe's mapped device memory does not take the host path
    const vk::detail::transfer_options opt{.limit = 4096, .staged = true, .import = false};
    const any_view all = pinned.host_view();
    const any_cview rows(static_cast<const std::byte*>(all.data()) + 1000 * 4, dtype::float32, shape{4, 1000});
    vk::device_tensor dev(ctx, dtype::float32, shape{4, 1000});
    vk::detail::upload_into(ctx, dev.storage(), 0, rows, opt);
    CHECK(ctx.frames_made() == 1); // one copy in one frame: no staging ring (two frames at least)
    // and back into the same place of the pinned tensor, cleared first: all of it as it was
    std::memset(static_cast<std::byte*>(all.data()) + 1000 * 4, 0, 4 * 1000 * 4);
    const any_view into(static_cast<std::byte*>(all.data()) + 1000 * 4, dtype::float32, shape{4, 1000});
    vk::detail::download_from(ctx, dev.storage(), 0, into, opt);
    CHECK(ctx.frames_made() == 1);
    CHECK(std::memcmp(all.data(), data.data(), data.bytes()) == 0);
    host_tensor back(dtype::float32, shape{4, 1000});
    vk::download(ctx, dev, back.view());
    CHECK(std::memcmp(back.data(), data.data() + 1000 * 4, back.bytes()) == 0);
    // a strided view of pinned memory is not one range: it goes through the staging ring
    const any_cview every_other(all.data(), dtype::float32, shape{3, 1000}, {2000, 1});
    vk::device_tensor odd(ctx, dtype::float32, shape{3, 1000});
    vk::detail::upload_into(ctx, odd.storage(), 0, every_other, opt);
    CHECK(ctx.frames_made() >= 2);
    host_tensor got(dtype::float32, shape{3, 1000});
    vk::download(ctx, odd, got.view());
    for (int r = 0; r < 3; ++r) CHECK(std::memcmp(got.data() + r * 4000, data.data() + 2 * r * 4000, 4000) == 0);
    // a range that only starts in the buffer is not taken for it; a destroyed buffer is forgotten
    const void* p = all.data();
    CHECK(ctx.find_mapped(p, pinned.storage().size()).first == pinned.storage().handle());
    CHECK(ctx.find_mapped(static_cast<const std::byte*>(p) + 16, pinned.storage().size()).first == VK_NULL_HANDLE);
    {
        const vk::device_tensor gone(ctx, dtype::float32, shape{64}, vk::memory::host);
        p = gone.host_view().data();
        CHECK(ctx.find_mapped(p, 256).first == gone.storage().handle());
    }
    CHECK(ctx.find_mapped(p, 256).first == VK_NULL_HANDLE);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: a dense upload through staging runs as one job: grains of every piece, each piece's copy submitted by its last thread", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x91be1ull);
    const struct restore {
        int depth = vk::detail::staging_depth;
        unsigned threads = vk::detail::copy_threads;
        std::uint64_t grain = vk::detail::copy_grain;
        bool pipelined = vk::detail::staging_pipelined;
        ~restore() {
            vk::detail::staging_depth = depth;
            vk::detail::copy_threads = threads;
            vk::detail::copy_grain = grain;
            vk::detail::staging_pipelined = pipelined;
        }
    } keep;
    vk::detail::staging_pipelined = true;
    // 1 MiB and an odd tail: pieces that go round small rings many times, grains that do not
    // divide a piece, more threads than the machine has cores and than a piece has grains
    constexpr std::uint64_t bytes = (1ull << 20) + 777;
    std::vector<std::byte> data(bytes);
    for (auto& b : data) b = static_cast<std::byte>(g() & 0xff);
    const any_cview view(data.data(), dtype::uint8, shape{static_cast<std::int64_t>(bytes)});
    struct setup {
        int depth;
        unsigned threads;
        std::uint64_t grain, limit;
    };
    for (const setup c : {setup{2, 8, 4096, 65536}, setup{3, 3, 1000, 10000}, setup{2, 16, 64, 4096}, setup{4, 2, 1 << 20, 100000}, setup{2, 5, 512, 3333}}) {
        INFO("ring of " << c.depth << ", " << c.threads << " threads, grains of " << c.grain << ", pieces of " << c.limit);
        vk::detail::staging_depth = c.depth;
        vk::detail::copy_threads = c.threads;
        vk::detail::copy_grain = c.grain;
        const vk::detail::transfer_options opt{.limit = c.limit, .staged = true, .import = false};
        vk::device_tensor t(ctx, dtype::uint8, view.sizes());
        vk::detail::upload_into(ctx, t.storage(), 0, view, opt);
        // and at an offset into a larger buffer: the bytes before it untouched
        vk::device_tensor wide(ctx, dtype::uint8, shape{static_cast<std::int64_t>(bytes + 100)});
        vk::detail::upload_into(ctx, wide.storage(), 0, any_cview(data.data(), dtype::uint8, shape{100}), opt);
        vk::detail::upload_into(ctx, wide.storage(), 100, view, opt);
        vk::detail::copy_threads = keep.threads;
        host_tensor got(dtype::uint8, view.sizes()), got_wide(dtype::uint8, wide.sizes());
        vk::download(ctx, t, got.view());
        vk::download(ctx, wide, got_wide.view());
        CHECK(std::memcmp(got.data(), data.data(), bytes) == 0);
        CHECK(std::memcmp(got_wide.data(), data.data(), 100) == 0);
        CHECK(std::memcmp(got_wide.data() + 100, data.data(), bytes) == 0);
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: dense transfers copy straight from and to imported host memory, or through staging", "[vulkan]") {
    vk::context ctx;
    INFO(ctx.device().name << (ctx.can_import_host() ? " imports host memory" : " cannot import host memory"));
    rng_t g(0x1a9077ull);
    // 3 MiB and a bit, starting 4 bytes into a page-aligned block: pieces that begin and end
    // inside pages, imported (pieces of 1 MiB and more) or staged (smaller ones, or no import)
    constexpr std::uint64_t bytes = (3ull << 20) + 4100;
    std::vector<std::byte> block(bytes + 3 * 4096);
    auto* base = reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(block.data()) + 4095) / 4096 * 4096) + 4;
    for (std::uint64_t i = 0; i < bytes; ++i) base[i] = static_cast<std::byte>(g() & 0xff);
    const std::vector<std::byte> expect(base, base + bytes);
    const any_cview view(base, dtype::uint8, shape{static_cast<std::int64_t>(bytes)});
    for (const bool import : {true, false}) {
        for (const std::uint64_t limit : {std::uint64_t{1} << 20, std::uint64_t{3} << 19, std::uint64_t{20000}}) {
            INFO((import ? "import" : "staging") << ", pieces of at most " << limit << " bytes");
            const vk::detail::transfer_options opt{.limit = limit, .staged = true, .import = import};
            vk::device_tensor t(ctx, dtype::uint8, view.sizes());
            vk::detail::upload_into(ctx, t.storage(), 0, view, opt);
            host_tensor straight(dtype::uint8, view.sizes());
            vk::download(ctx, t, straight.view());
            CHECK(std::memcmp(straight.data(), expect.data(), bytes) == 0);
            // back into the block, the bytes either side of it untouched
            std::memset(base - 4, 0x5a, bytes + 8);
            vk::detail::download_from(ctx, t.storage(), 0, any_view(base, dtype::uint8, view.sizes()), opt);
            CHECK(std::memcmp(base, expect.data(), bytes) == 0);
            CHECK(std::to_integer<int>(base[-1]) == 0x5a);
            CHECK(std::to_integer<int>(base[bytes]) == 0x5a);
            std::memcpy(base, expect.data(), bytes);
        }
    }
    // an import covers the pages the range touches, and the range sits at the offset it reports
    if (ctx.can_import_host()) {
        std::uint64_t at = 0;
        const vk::buffer b = ctx.import_host(base + 100, 5000, &at);
        REQUIRE(b.handle() != VK_NULL_HANDLE);
        CHECK(at == (reinterpret_cast<std::uintptr_t>(base + 100) % ctx.device().host_import_alignment));
        CHECK(b.size() >= at + 5000);
    }
    CHECK(ctx.validation_messages() == 0);
}

