// Chains of moves (strix/ops/chain.hpp) on the CPU: random chains of 1 to 5 steps over random
// layouts against the same steps run eagerly, bit for bit, into outputs of random layouts whose
// other bytes must stay as they were; joins and splits of chains against the eager join; hostile
// indices under both policies; the plan layer's composition (which chains run as one pass).

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/chains.hpp"

namespace {

using namespace strix_test;

/// Whether output view `out` (in its buffer) holds `want` (C order) and every other byte of
/// the buffer is still `canary`.
void check_written(const strided& out, const bytes& before, const host_tensor& want, const std::string& text) {
    const auto es = static_cast<std::size_t>(out.es());
    std::vector<bool> mine(out.buf.size());
    const auto* w = static_cast<const std::byte*>(want.view().data());
    for_each_coord(out.sizes, [&](const coords& c, std::int64_t lin) {
        const std::byte* got = out.at(c);
        INFO(text << " at " << str(c, out.sizes.rank));
        REQUIRE(std::memcmp(got, w + static_cast<std::size_t>(lin) * es, es) == 0);
        for (std::size_t b = 0; b < es; ++b) mine[static_cast<std::size_t>(got - out.buf.data()) + b] = true;
    });
    for (std::size_t b = 0; b < out.buf.size(); ++b)
        if (!mine[b]) {
            INFO(text << ": byte " << b << " outside the output");
            REQUIRE(out.buf[b] == before[b]);
        }
}

} // namespace

TEST_CASE("chain: random chains of 1 to 5 moves equal their eager steps bit for bit", "[chain]") {
    rng_t g(0xC4A1);
    int composed = 0, split = 0;
    for (int n = 0; n < 3000; ++n) {
        random_chain c = make_random_chain(g, static_cast<int>(uni(g, 1, 5)));
        const std::string text = c.text + " (case " + std::to_string(n) + ")";
        strided out = make_strided(g, c.chain.type(), c.chain.sizes(), true);
        fill_random(g, out.buf);
        const bytes before = out.buf;
        if (c.bad_index) {
            INFO(text);
            REQUIRE_THROWS_AS(strix::evaluate(c.chain, out.view()), strix::error);
            REQUIRE(out.buf == before); // nothing written
            continue;
        }
        const std::string plan = strix::describe_chain(c.chain);
        (plan.find("temporary") == std::string::npos ? composed : split) += 1;
        strix::evaluate(c.chain, out.view());
        check_written(out, before, c.eager, text + "; " + plan);
        // and allocating
        const host_tensor fresh = strix::evaluate(c.chain);
        REQUIRE(fresh.view().sizes() == c.eager.view().sizes());
        const auto bytes = static_cast<std::size_t>(c.eager.view().count()) * strix::size_of(c.chain.type());
        if (bytes > 0) REQUIRE(std::memcmp(fresh.view().data(), c.eager.view().data(), bytes) == 0); // (an empty tensor has no data)
    }
    // the draw reaches both: chains that compose whole and chains that split
    CHECK(composed > 500);
    CHECK(split > 100);
}

TEST_CASE("chain: joins of chains and of splits of chains equal the eager join", "[chain]") {
    rng_t g(0x501E);
    for (int n = 0; n < 1500; ++n) {
        random_chain a = make_random_chain(g, static_cast<int>(uni(g, 1, 4)), 1000);
        const shape s = a.chain.sizes();
        if (s.rank == 0) continue;
        const int axis = static_cast<int>(uni(g, 0, s.rank - 1));
        std::vector<strix::chain> parts;
        std::vector<any_cview> eager;
        std::deque<host_tensor> held;
        std::string text = a.text + " joined on axis " + std::to_string(axis);
        if (chance(g, 1, 2)) {
            // split along the axis, each piece padded there (or not), joined again
            std::vector<std::int64_t> sizes;
            std::int64_t left = s[axis];
            while (left > 0) {
                const std::int64_t k = uni(g, 0, left);
                sizes.push_back(k);
                left -= k;
            }
            sizes.push_back(0);
            const auto pieces = strix::split(a.chain, sizes, {.axis = axis});
            std::int64_t at = 0;
            for (std::size_t k = 0; k < pieces.size(); ++k) {
                strix::pad_desc d = random_pad(g, s.rank);
                for (int i = 0; i < s.rank; ++i)
                    if (i != axis) d.start[i] = d.end[i] = 0;
                strix::chain piece = pieces[k];
                strix::slice_desc window{.starts = {at}, .ends = {at + sizes[k]}, .axes = {axis}};
                host_tensor e = strix::slice(a.eager.view(), window);
                try {
                    piece = piece.pad(d);
                    e = strix::pad(e.view(), d);
                    text += " | piece " + str(piece.sizes()) + " " + mode_name(d.mode);
                } catch (const strix::error&) { // a fold of an empty piece: no pad
                }
                at += sizes[k];
                parts.push_back(piece);
                eager.push_back(held.emplace_back(std::move(e)).view());
            }
        } else {
            parts.push_back(a.chain);
            eager.push_back(a.eager.view());
            // another chain of the same shape off the axis: a gather of a padded tensor's rows
            shape t = s;
            t[axis] = uni(g, 0, 3);
            random_chain b;
            strided& src = b.operands.emplace_back(make_strided(g, a.chain.type(), t, false));
            fill_random(g, src.buf, a.chain.type());
            parts.push_back(strix::lazy(src.cview()));
            eager.push_back(src.cview());
            text += " with " + str(t);
            static std::deque<random_chain> keep; // (its operand outlives the chain)
            keep.push_back(std::move(b));
            if (keep.size() > 4) keep.pop_front();
        }
        const host_tensor want = strix::join(eager, {.axis = axis});
        strided out = make_strided(g, a.chain.type(), want.view().sizes(), true);
        fill_random(g, out.buf);
        const bytes before = out.buf;
        strix::join(std::span<const strix::chain>(parts), out.view(), {.axis = axis});
        check_written(out, before, want, text);
    }
}

TEST_CASE("chain: the benchmarks' chains compose into one pass; others say where they split", "[chain]") {
    host_tensor x(dtype::float32, {2, 6, 5, 5}), other(dtype::float32, {2, 2, 11, 11}), p(dtype::int64, {4});
    auto* pi = static_cast<std::int64_t*>(p.view().data());
    for (int i = 0; i < 4; ++i) pi[i] = (i * 5) % 6;
    const strix::pad_desc reflect{.mode = pad_mode::reflect, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};
    // gather -> pad -> join
    const strix::chain e = strix::lazy(x.view()).gather(p.view(), {.axis = 1}).pad(reflect);
    CHECK(strix::describe_chain(e) == "steps 1-2 (gather, pad) in one pass");
    // crop -> pad; slice -> tile
    const strix::pad_desc crop{.start = {0, 0, -1, -1}, .end = {0, 0, -1, -1}};
    CHECK(strix::describe_chain(strix::lazy(x.view()).pad(crop).pad(reflect)) == "steps 1-2 (pad, pad) in one pass");
    CHECK(strix::describe_chain(strix::lazy(x.view()).slice({.starts = {1}, .ends = {5}, .axes = {1}, .steps = {2}}).tile({.repeats = {1, 3, 1, 2}})) ==
          "steps 1-2 (slice, tile) in one pass");
    // a crop of a pad that leaves only pad and source: one pass; a reflect pad of a reflect pad: two
    CHECK(strix::describe_chain(strix::lazy(x.view()).pad(reflect).pad({.start = {0, 0, -2, -2}, .end = {0, 0, -2, -2}})) ==
          "steps 1-2 (pad, pad) in one pass");
    CHECK(strix::describe_chain(strix::lazy(x.view()).pad(reflect).pad(reflect)) ==
          "steps 1-1 (pad) into a temporary [2,6,11,11], as step 2 is a fold of an axis already folded another way; steps 2-2 (pad) in one pass");
    CHECK(strix::describe_chain(strix::lazy(x.view()).gather(p.view(), {.axis = 1}).pad({.start = {0, 1, 0, 0}, .end = {0, 1, 0, 0}})).find("temporary") !=
          std::string::npos);
    // and they give the eager result
    const host_tensor gathered = strix::gather(x.view(), p.view(), {.axis = 1});
    const host_tensor padded = strix::pad(gathered.view(), reflect);
    const any_cview eager_parts[] = {padded.view(), other.view()};
    const host_tensor want = strix::join(eager_parts, {.axis = 1});
    const strix::chain parts[] = {e, other.view()};
    const host_tensor got = strix::join(parts, {.axis = 1});
    REQUIRE(std::memcmp(got.view().data(), want.view().data(), static_cast<std::size_t>(want.view().count()) * 4) == 0);
}

TEST_CASE("chain: a step's rules are the eager operator's, and its errors name the step", "[chain]") {
    host_tensor x(dtype::float32, {2, 3}), idx(dtype::int64, {2});
    const strix::chain e = strix::lazy(x.view()).pad({.start = {1, 1}, .end = {1, 1}});
    try {
        (void)e.gather(idx.view(), {.axis = 2});
        FAIL("a gather on axis 2 of a rank-2 tensor was accepted");
    } catch (const strix::error& err) {
        const std::string m = err.what();
        CHECK(m.find("strix::gather (chain step 2): ") == 0);
        CHECK(m.find("[4,5]") != std::string::npos);
        CHECK(err.code() == error_code::rule_violation);
    }
    CHECK_THROWS_WITH(e.pad({.start = {-5, 0}, .end = {0, 0}}), Catch::Contains("strix::pad (chain step 2): "));
    CHECK_THROWS_WITH(e.slice({.starts = {0}, .ends = {1}, .steps = {0}}), Catch::Contains("strix::slice (chain step 2): "));
    CHECK_THROWS_WITH(e.tile({.repeats = {1}}), Catch::Contains("strix::tile (chain step 2): "));
    // an index out of range: the gather's message, the step named, nothing written
    auto* pi = static_cast<std::int64_t*>(idx.view().data());
    pi[0] = 1;
    pi[1] = 4;
    const strix::chain bad = e.gather(idx.view(), {.axis = 0});
    host_tensor out(dtype::float32, bad.sizes());
    std::memset(out.view().data(), 0x5A, static_cast<std::size_t>(out.view().count()) * 4);
    CHECK_THROWS_WITH(strix::evaluate(bad, out.view()), Catch::StartsWith("strix::gather (chain step 2): ") && Catch::Contains("4"));
    for (std::int64_t i = 0; i < out.view().count() * 4; ++i) REQUIRE(static_cast<const unsigned char*>(out.view().data())[i] == 0x5A);
    // the output: its shape, its type, no overlap with what the chain reads
    host_tensor wrong(dtype::float32, {4, 4});
    CHECK_THROWS_WITH(strix::evaluate(e, wrong.view()), Catch::Contains("strix::chain: the output [4,4]") && Catch::Contains("[4,5]"));
    const any_view into_source(x.view().data(), dtype::float32, {2, 3});
    CHECK_THROWS_WITH(strix::evaluate(strix::lazy(x.view()).slice({}), into_source), Catch::Contains("overlaps the input"));
}

TEST_CASE("chain: index-driven steps (gather-elements, gather-nd, scatter, scatter-nd) split the chain and equal the eager steps", "[chain]") {
    // random chains of moves and index-driven steps: each of these runs as its eager operator
    // between temporaries (describe_chain says so), the result bit for bit the eager steps'; bad
    // indices under `error` throw the operator's message naming the step, and nothing is written
    rng_t g(0x1D5C);
    int index_steps = 0, refused = 0;
    for (int n = 0; n < 1500; ++n) {
        random_chain c = make_random_chain(g, static_cast<int>(uni(g, 1, 5)), 8, true);
        const std::string text = c.text + " (case " + std::to_string(n) + ")";
        INFO(text);
        int driven = 0;
        for (const auto& s : c.chain.steps()) driven += strix::index_driven(s.op) ? 1 : 0;
        const std::string plan = strix::describe_chain(c.chain);
        std::size_t said = 0;
        for (std::size_t at = plan.find("as its own operator into"); at != std::string::npos; at = plan.find("as its own operator into", at + 1)) ++said;
        CHECK(said == static_cast<std::size_t>(driven));
        index_steps += driven;
        strided out = make_strided(g, c.chain.type(), c.chain.sizes(), true);
        fill_random(g, out.buf);
        const bytes before = out.buf;
        if (c.bad_index) {
            const auto& last = c.chain.steps().back();
            const std::string head = "strix::" + std::string(last.name()) + " (chain step " + std::to_string(c.chain.steps().size()) + "): ";
            CHECK_THROWS_WITH(strix::evaluate(c.chain, out.view()), Catch::StartsWith(head));
            REQUIRE(out.buf == before); // nothing written
            ++refused;
            continue;
        }
        strix::evaluate(c.chain, out.view());
        check_written(out, before, c.eager, text + "; " + plan);
        // a join of it with itself, each part through its own temporaries
        if (c.chain.sizes().rank > 0) {
            const strix::chain twice[] = {c.chain, c.chain};
            const any_cview eager_twice[] = {c.eager.view(), c.eager.view()};
            const host_tensor want = strix::join(eager_twice, {.axis = 0});
            const host_tensor got = strix::join(twice, {.axis = 0});
            const auto bytes = static_cast<std::size_t>(want.view().count()) * strix::size_of(c.chain.type());
            if (bytes > 0) REQUIRE(std::memcmp(got.view().data(), want.view().data(), bytes) == 0);
        }
    }
    CHECK(index_steps > 500);
    CHECK(refused > 20);
}

TEST_CASE("chain: where an index-driven step splits a chain, and its errors", "[chain]") {
    host_tensor x(dtype::float32, {2, 3}), idx(dtype::int64, {2, 2}), upd(dtype::float32, {2, 2});
    auto* pi = static_cast<std::int64_t*>(idx.view().data());
    auto* pu = static_cast<float*>(upd.view().data());
    auto* px = static_cast<float*>(x.view().data());
    for (int i = 0; i < 6; ++i) px[i] = static_cast<float>(i + 1);
    for (int i = 0; i < 4; ++i) {
        pi[i] = i == 1 || i == 2 ? 1 : 0;
        pu[i] = 10.0f + static_cast<float>(i);
    }
    const strix::pad_desc one{.start = {0, 1}, .end = {0, 1}};
    // pad, gather-elements along 1, pad: the pad written out, the gather on its own, the last pad copying
    const strix::chain e = strix::lazy(x.view()).pad(one).gather_elements(idx.view(), {.axis = 1}).pad(one);
    CHECK(strix::describe_chain(e) ==
          "steps 1-1 (pad) into a temporary [2,5], as step 2 is index-driven (it runs as its own operator); "
          "step 2 (gather-elements) as its own operator into a temporary [2,2]; steps 3-3 (pad) in one pass");
    const host_tensor p1 = strix::pad(x.view(), one);
    const host_tensor ge = strix::gather_elements(p1.view(), idx.view(), {.axis = 1});
    const host_tensor want = strix::pad(ge.view(), one);
    const host_tensor got = strix::evaluate(e);
    REQUIRE(std::memcmp(got.view().data(), want.view().data(), 4 * 8) == 0);
    // first and last: the operator reads the source, and a copy writes its result out
    const strix::chain s = strix::lazy(x.view()).scatter(idx.view(), upd.view(), {.axis = 1});
    CHECK(strix::describe_chain(s) == "step 1 (scatter) as its own operator into a temporary [2,3]; a copy in one pass");
    const host_tensor sw = strix::scatter(x.view(), idx.view(), upd.view(), {.axis = 1});
    REQUIRE(std::memcmp(strix::evaluate(s).view().data(), sw.view().data(), 4 * 6) == 0);
    // its rules when added, naming the step
    CHECK_THROWS_WITH(e.gather_nd(x.view()), Catch::StartsWith("strix::gather-nd (chain step 4): "));
    CHECK_THROWS_WITH(strix::lazy(x.view()).pad(one).scatter(idx.view(), x.view(), {.axis = 1}), Catch::StartsWith("strix::scatter (chain step 2): "));
    // an index out of range when it runs: its message, the step named, nothing written
    pi[3] = 7;
    host_tensor out(dtype::float32, e.sizes());
    std::memset(out.view().data(), 0x5A, 4 * 8);
    CHECK_THROWS_WITH(strix::evaluate(e, out.view()), Catch::StartsWith("strix::gather-elements (chain step 2): ") && Catch::Contains("7"));
    for (int i = 0; i < 4 * 8; ++i) REQUIRE(static_cast<const unsigned char*>(out.view().data())[i] == 0x5A);
    // the output may not overlap the updates
    const any_view into_updates(upd.view().data(), dtype::float32, {2, 2}, std::array<std::int64_t, strix::max_rank>{1, 2}); // (2x3 output, 2x2 view below)
    const strix::chain s2 = strix::lazy(x.view()).slice({.starts = {0}, .ends = {2}, .axes = {1}}).scatter(idx.view(), upd.view(), {.axis = 1});
    CHECK_THROWS_WITH(strix::evaluate(s2, into_updates), Catch::Contains("updates"));
}

TEST_CASE("chain: typed chains compute their extents at compile time (static) or run time (dynamic) and equal the eager steps", "[chain]") {
    float x[2 * 3] = {1, 2, 3, 4, 5, 6};
    const std::int64_t idx[3] = {1, 0, -1};
    const strix::tensor_view<const float, strix::extents<2, 3>> X(x);
    const strix::tensor_view<const std::int64_t, strix::extents<3>> I(idx);
    constexpr strix::pad_desc wrap{.mode = pad_mode::wrap, .start = {0, 1}, .end = {0, 2}};
    const auto c = strix::lazy(X).gather<strix::gather_desc{.axis = 0}>(I).pad<wrap>().tile<strix::tile_desc{{2, 1}}>();
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(c.extents())>, strix::extents<6, 6>>);
    float out[6 * 6];
    strix::evaluate(c, strix::tensor_view<float, strix::extents<6, 6>>(out));
    const host_tensor g = strix::gather(X.erased(), I.erased(), {.axis = 0});
    const host_tensor p = strix::pad(g.view(), wrap);
    const host_tensor want = strix::tile(p.view(), {{2, 1}});
    REQUIRE(std::memcmp(out, want.view().data(), sizeof out) == 0);
    // dynamic extents: the same steps, checked as they are added
    const strix::tensor_view<const float, strix::dextents<2>> D(x, strix::dextents<2>(shape{2, 3}));
    const auto d = strix::lazy(D).pad<wrap>();
    CHECK(d.extents().to_shape() == shape{2, 6});
    CHECK_THROWS_WITH((strix::lazy(D).pad<strix::pad_desc{.start = {-3, 0}, .end = {0, 0}}>()), Catch::Contains("negative pads must not remove more"));
}
