// Chains of moves on the Vulkan backend (a stream's evaluate and join): random chains of 1 to 5
// steps over random layouts, on each move path, against the same steps run eagerly on the CPU,
// bit for bit; hostile indices under both policies (under `error` nothing is written).

#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "support/chains.hpp"
#include "support/vulkan.hpp"

namespace {

using namespace strix_test;

/// Operand `o` (a strided host operand) on the device: its whole buffer uploaded, the view
/// placed in it as on the host.
vk::device_view on_device(vk::context& ctx, std::deque<vk::device_tensor>& keep, const strided& o) {
    const any_cview whole(o.buf.data(), dtype::uint8, shape{static_cast<std::int64_t>(o.buf.size())});
    vk::device_view v = keep.emplace_back(vk::upload(ctx, whole)).view();
    v.address += static_cast<std::uint64_t>(o.base * o.es());
    v.type = o.type;
    v.sizes = o.sizes;
    v.strides = o.strides;
    return v;
}

/// The operands of a gather, reflect-pad (3 on the last two axes) and join: x, the other input
/// of the join and n channel indices of x (index i: (i * step) % channels, the last one made
/// negative where `negative`).
struct gather_pad_join {
    host_tensor x, other, p{dtype::int64, {1}};
    strix::pad_desc reflect{.mode = pad_mode::reflect, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};

    gather_pad_join(rng_t& g, shape x_sizes, shape other_sizes, std::int64_t n, std::int64_t step, bool negative)
        : x(random_tensor(g, dtype::float32, x_sizes)), other(random_tensor(g, dtype::float32, other_sizes)), p(dtype::int64, {n}) {
        auto* pi = static_cast<std::int64_t*>(p.view().data());
        for (std::int64_t i = 0; i < n; ++i) pi[i] = (i * step) % x_sizes[1] - (negative && i == n - 1 ? x_sizes[1] : 0);
    }
};

/// Chain `c` (over host operands) over the same operands on the device.
vk::device_chain device_chain_of(vk::context& ctx, std::deque<vk::device_tensor>& keep, const random_chain& c) {
    std::vector<vk::device_view> views;
    for (const auto& o : c.operands) views.push_back(on_device(ctx, keep, o));
    std::span<const vk::device_view> v(views);
    return c.chain.rebound(v);
}

/// Chain `c` through a stream into an output that starts as a pattern: refused at run() with a
/// message starting `refused` (the pattern left as it was) where it holds a bad index, else
/// equal to its eager steps bit for bit.
void check_on_device(vk::context& ctx, const random_chain& c, const std::string& refused) {
    std::deque<vk::device_tensor> keep;
    const vk::device_chain dc = device_chain_of(ctx, keep, c);
    host_tensor pattern(c.chain.type(), c.chain.sizes());
    if (pattern.view().count() > 0) // (an empty tensor has no data)
        std::memset(pattern.view().data(), 0x5A, static_cast<std::size_t>(pattern.view().count()) * strix::size_of(c.chain.type()));
    const vk::device_tensor out = vk::upload(ctx, pattern.view());
    vk::stream s(ctx);
    s.evaluate(dc, out.view());
    if (c.bad_index) {
        CHECK_THROWS_WITH(s.run(), Catch::StartsWith(refused));
        CHECK(same_bytes(read_back(ctx, out), pattern));
        return;
    }
    s.run();
    REQUIRE(same_bytes(read_back(ctx, out), c.eager));
}

} // namespace

TEST_CASE("vulkan: random chains of 1 to 5 moves equal their eager steps bit for bit, on each path", "[vulkan]") {
    for (const int path : test_paths()) {
        vk::context ctx(path_options(path));
        rng_t g(case_seed(0xC4A1D, static_cast<std::uint64_t>(path)));
        const int cases = at_least(160);
        for (int n = 0; n < cases; ++n) {
            const random_chain c = make_random_chain(g, static_cast<int>(uni(g, 1, 5)));
            const std::string text = c.text + " (path " + std::to_string(path) + ", case " + std::to_string(n) + ")";
            INFO(text << "; " << strix::describe_chain(c.chain));
            check_on_device(ctx, c, "strix::gather (chain step ");
        }
    }
}

TEST_CASE("vulkan: chains with index-driven steps (gather-elements, gather-nd, scatter, scatter-nd) equal their eager steps, on each path", "[vulkan]") {
    // each index-driven step records as its operator between scratch temporaries; under `error`
    // a bad index of any step leaves the output as it was (one guard word for all the checks)
    for (const int path : test_paths()) {
        vk::context ctx(path_options(path));
        rng_t g(case_seed(0x1D5CD, static_cast<std::uint64_t>(path)));
        const int cases = at_least(80);
        int driven = 0;
        for (int n = 0; n < cases; ++n) {
            const random_chain c = make_random_chain(g, static_cast<int>(uni(g, 1, 5)), 6, true);
            for (const auto& st : c.chain.steps()) driven += strix::index_driven(st.op) ? 1 : 0;
            INFO(c.text << " (path " << path << ", case " << n << "); " << strix::describe_chain(c.chain));
            check_on_device(ctx, c, "strix::" + std::string(c.chain.steps().back().name()) + " (chain step " + std::to_string(c.chain.steps().size()) + "): ");
        }
        CHECK(driven > cases / 2);
    }
}

TEST_CASE("vulkan: a bad index in one chain of a join leaves the output, whatever the other chains' checks share", "[vulkan]") {
    // chain 1 gathers with bad indices; chain 2 gathers with indices an earlier operator of the
    // stream checked (whose guard word it could share): the output stays as it was
    vk::context ctx;
    rng_t g(0xBAD1);
    host_tensor x = random_tensor(g, dtype::float32, {4, 3}), good(dtype::int64, {4}), bad(dtype::int64, {4});
    auto* pg = static_cast<std::int64_t*>(good.view().data());
    auto* pb = static_cast<std::int64_t*>(bad.view().data());
    for (int i = 0; i < 4; ++i) {
        pg[i] = 3 - i;
        pb[i] = i == 2 ? 9 : i;
    }
    const vk::device_tensor dx = vk::upload(ctx, x.view()), dgood = vk::upload(ctx, good.view()), dbad = vk::upload(ctx, bad.view());
    const vk::device_tensor first(ctx, dtype::float32, {4, 3});
    host_tensor pattern(dtype::float32, {8, 3});
    std::memset(pattern.view().data(), 0x5A, 8 * 3 * 4);
    const vk::device_tensor out = vk::upload(ctx, pattern.view());
    vk::stream s(ctx);
    s.gather(dx.view(), dgood.view(), first.view(), {.axis = 0}); // checks `good`
    const vk::device_chain parts[] = {vk::lazy(dx.view()).gather(dbad.view(), {.axis = 0}), vk::lazy(dx.view()).gather(dgood.view(), {.axis = 0})};
    s.join(parts, out.view(), {.axis = 0});
    CHECK_THROWS_WITH(s.run(), Catch::Contains("9"));
    CHECK(same_bytes(read_back(ctx, out), pattern));
}

TEST_CASE("vulkan: a join of chains (gather, pad; crop, pad; a tensor) equals the eager join, with any temporaries", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x701A);
    const gather_pad_join op(g, {2, 6, 5, 5}, {2, 3, 11, 11}, 4, 5, true); // a negative index too
    const auto& [x, other, p, reflect] = op;
    const strix::pad_desc crop{.start = {0, 0, -1, -1}, .end = {0, 0, -1, -1}};
    const strix::pad_desc edge4{.mode = pad_mode::edge, .start = {0, 0, 4, 4}, .end = {0, 0, 4, 4}};
    const strix::chain a = strix::lazy(x.view()).gather(p.view(), {.axis = 1}).pad(reflect);
    const strix::chain b = strix::lazy(x.view()).pad(crop).pad(edge4).slice({.starts = {1}, .ends = {4}, .axes = {1}});
    const strix::pad_desc symmetric{.mode = pad_mode::symmetric, .start = {0, 0, 0, 1}, .end = {0, 0, 0, -1}};
    const strix::chain c = strix::lazy(x.view()).slice({.starts = {4}, .ends = {5}, .axes = {1}}).pad(reflect).pad(symmetric); // (a temporary)
    const strix::chain cpu[] = {a, b, other.view(), c};
    const host_tensor want = strix::join(cpu, {.axis = 1});
    const vk::device_tensor dx = vk::upload(ctx, x.view()), dp = vk::upload(ctx, p.view()), dother = vk::upload(ctx, other.view());
    const vk::device_chain da = vk::lazy(dx.view()).gather(dp.view(), {.axis = 1}).pad(reflect);
    const vk::device_chain db = vk::lazy(dx.view()).pad(crop).pad(edge4).slice({.starts = {1}, .ends = {4}, .axes = {1}});
    const vk::device_chain dc = vk::lazy(dx.view()).slice({.starts = {4}, .ends = {5}, .axes = {1}}).pad(reflect).pad(symmetric);
    CHECK(strix::describe_chain(dc).find("temporary") != std::string::npos);
    const vk::device_chain parts[] = {da, db, dother.view(), dc};
    const vk::device_tensor out(ctx, dtype::float32, want.view().sizes());
    vk::stream s(ctx, {.stats = true});
    s.join(parts, out.view(), {.axis = 1});
    // the gather's index check, one pass each for a, b and the tensor, two for c
    CHECK(s.stats().dispatches == 6);
    s.run();
    REQUIRE(same_bytes(read_back(ctx, out), want));
}

TEST_CASE("vulkan: a join's parts, dense blocks per outer coordinate, run as 16-byte chunks, one dispatch each, with the eager result", "[vulkan]") {
    // [2, 64, 70, 70] output: each batch item's block of a part is dense, so move.comp writes the
    // part as 16-byte chunks, each where its first element goes, though the part is no dense output
    vk::context ctx;
    rng_t g(0xD3E5);
    const gather_pad_join op(g, {2, 64, 64, 64}, {2, 16, 70, 70}, 60, 7, false);
    const auto& [x, other, p, reflect] = op;
    const strix::chain cpu[] = {strix::lazy(x.view()).gather(p.view(), {.axis = 1}).pad(reflect), other.view()};
    const host_tensor want = strix::join(cpu, {.axis = 1});
    const vk::device_tensor dx = vk::upload(ctx, x.view()), dp = vk::upload(ctx, p.view()), dother = vk::upload(ctx, other.view());
    const vk::device_chain parts[] = {vk::lazy(dx.view()).gather(dp.view(), {.axis = 1}).pad(reflect), dother.view()};
    const vk::device_tensor out(ctx, dtype::float32, want.view().sizes());
    vk::stream s(ctx, {.stats = true});
    s.join(parts, out.view(), {.axis = 1});
    // the index check, then one dispatch per part: the gathered one in 16-byte chunks (the other,
    // a copy of whole rows, in 16-byte elements)
    CHECK(s.stats().dispatches == 1 + 1 + 1);
    CHECK(s.stats().chunked == 1);
    s.run();
    REQUIRE(same_bytes(read_back(ctx, out), want));
}
