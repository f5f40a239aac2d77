// strix::plan::collapse by its property: a collapsed plan moves exactly the bytes the original
// does. Random plans — ranks 1 to 8, sizes 0 to 4 with many 1s, output strides in any order and
// sign, source strides positive, negative or zero, gather-table keys, padded dimensions — are
// collapsed, and the set of (output byte, source byte or fill) pairs they describe is compared
// with the original's. Collapsing a plan with elements again changes nothing.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "strix/plan/move_plan.hpp"

#include "support/host.hpp"

namespace {

using namespace strix_test;
namespace plan = strix::plan;

/// Where a move's element comes from when it is the fill value.
constexpr std::int64_t fill = std::numeric_limits<std::int64_t>::min();

/// A padded dimension of `before + n + after` coordinates: the input's `n` coordinates (source
/// stride `src`, in bytes) with `before` and `after` more folded by `mode` (fill, for constant).
/// The one place that says how a padded dimension is described.
plan::move_dim padded_dim(pad_mode mode, std::int64_t before, std::int64_t n, std::int64_t after, std::int64_t src) {
    plan::move_dim d;
    d.size = before + n + after;
    d.src = src;
    d.padded = true;
    d.fold = mode;
    d.lo = before;
    d.hi = before + n;
    return d;
}

/// How far the sum of one term per dimension (and a table entry) can reach from a base, in bytes.
std::int64_t term_reach(const plan::move_plan& p) {
    std::int64_t r = 0;
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        const std::int64_t last = std::max<std::int64_t>(d.size - 1, 0);
        std::int64_t source = last * std::abs(d.src);
        for (std::int64_t o = 0; d.padded && o < d.size; ++o)
            if (d.source(o) != plan::no_source) source = std::max(source, std::abs(d.source(o)));
        r += last * std::abs(d.dst) + source;
    }
    std::int64_t entry = 0;
    for (const std::int64_t t : p.table) entry = std::max(entry, std::abs(t));
    return r + entry;
}

/// Every (output byte, source byte or `fill`) pair the plan describes, sorted; bytes counted from
/// the two origins. A plan of rank 0 moves nothing (collapse's form of an empty plan).
std::vector<std::pair<std::int64_t, std::int64_t>> moves(const plan::move_plan& p, const std::byte* dst_origin, const std::byte* src_origin) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    if (p.rank == 0) return out;
    shape sizes;
    for (int i = 0; i < p.rank; ++i) sizes.push_back(p.dims[static_cast<std::size_t>(i)].size);
    for_each_coord(sizes, [&](const coords& c) {
        std::int64_t dst = p.dst - dst_origin, src = p.src - src_origin, key = 0;
        bool filled = false;
        for (int i = 0; i < p.rank; ++i) {
            const auto& d = p.dims[static_cast<std::size_t>(i)];
            const std::int64_t x = c[static_cast<std::size_t>(i)];
            dst += x * d.dst;
            key += x * d.key;
            const std::int64_t term = d.source(x);
            if (term == plan::no_source) filled = true;
            else src += term;
        }
        if (!p.table.empty()) src += p.table.at(static_cast<std::size_t>(key));
        out.emplace_back(dst, filled ? fill : src);
    });
    std::sort(out.begin(), out.end());
    return out;
}

std::string plan_text(const plan::move_plan& p, const std::byte* dst_origin, const std::byte* src_origin) {
    std::string s = "rank " + std::to_string(p.rank) + ", elem " + std::to_string(p.elem) + ", dst base " + std::to_string(p.dst - dst_origin) +
                    ", src base " + std::to_string(p.src - src_origin) + ", table of " + std::to_string(p.table.size());
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        s += "\n  size " + std::to_string(d.size) + " dst " + std::to_string(d.dst) + " src " + std::to_string(d.src) + " key " + std::to_string(d.key);
        if (d.padded) {
            s += " padded [" + std::to_string(d.lo) + "," + std::to_string(d.hi) + ") fold " + std::to_string(static_cast<int>(d.fold)) + ", terms";
            for (std::int64_t o = 0; o < d.size; ++o) s += " " + (d.source(o) == plan::no_source ? std::string("fill") : std::to_string(d.source(o)));
        }
    }
    return s;
}

/// A random plan of the kinds the operators lower to, and some they do not: its bases are left
/// unset (the caller places them).
plan::move_plan random_plan(rng_t& g) {
    static constexpr std::size_t elems[] = {1, 2, 4, 8, 16};
    plan::move_plan p;
    p.rank = static_cast<int>(uni(g, 1, strix::max_rank));
    p.elem = elems[uni(g, 0, 4)];
    const auto e = static_cast<std::int64_t>(p.elem);
    // sizes: many 1s, now and then 0, at most 4096 elements in all
    std::vector<std::int64_t> size(static_cast<std::size_t>(p.rank));
    for (auto& n : size) n = chance(g, 1, 3) ? 1 : chance(g, 1, 30) ? 0 : uni(g, 2, 4);
    for (;;) {
        const std::int64_t count = std::accumulate(size.begin(), size.end(), std::int64_t{1}, std::multiplies<>());
        if (count <= 4096) break;
        size[static_cast<std::size_t>(uni(g, 0, p.rank - 1))] = 1;
    }
    // output strides: the dimensions nested in C order or another, with gaps, either sign
    std::vector<int> order(static_cast<std::size_t>(p.rank)); // innermost first
    std::iota(order.rbegin(), order.rend(), 0);
    if (chance(g, 1, 2)) std::shuffle(order.begin(), order.end(), g);
    std::int64_t step = 1;
    for (const int i : order) {
        auto& d = p.dims[static_cast<std::size_t>(i)];
        d.size = size[static_cast<std::size_t>(i)];
        d.dst = step * e * (chance(g, 1, 4) ? -1 : 1);
        step = step * std::max<std::int64_t>(d.size, 1) + (chance(g, 1, 4) ? 1 : 0);
    }
    // source strides: nested the same way (so that neighbours merge), or anything in [-3, 3]
    const bool nested = chance(g, 1, 2);
    step = 1;
    for (const int i : order) {
        auto& d = p.dims[static_cast<std::size_t>(i)];
        d.src = nested ? step * e * (chance(g, 1, 6) ? -1 : 1) : uni(g, -3, 3) * e;
        step = step * std::max<std::int64_t>(d.size, 1);
    }
    // gather-table keys on some affine dimensions, nested like the output (rows of a table)
    if (chance(g, 1, 3)) {
        std::int64_t kstep = 1;
        for (const int i : order) {
            auto& d = p.dims[static_cast<std::size_t>(i)];
            if (!chance(g, 1, 2)) continue;
            d.key = kstep;
            kstep = kstep * std::max<std::int64_t>(d.size, 1) + (chance(g, 1, 5) ? 1 : 0);
        }
        p.table.resize(static_cast<std::size_t>(kstep));
        for (auto& t : p.table) t = uni(g, -40, 40) * e;
    }
    // padded dimensions (no key): the output's size split into before, the input's n, after
    for (int i = 0; i < p.rank; ++i) {
        auto& d = p.dims[static_cast<std::size_t>(i)];
        if (d.key != 0 || d.size == 0 || !chance(g, 1, 4)) continue;
        const auto mode = static_cast<pad_mode>(uni(g, 0, 4));
        const std::int64_t n = uni(g, mode == pad_mode::constant ? 0 : 1, d.size);
        const std::int64_t before = uni(g, 0, d.size - n);
        const plan::move_dim m = padded_dim(mode, before, n, d.size - n - before, d.src);
        const std::int64_t dst = d.dst;
        d = m;
        d.dst = dst;
    }
    return p;
}

/// Gives the plan bases in the middle of `arena`, far enough from either end for every partial
/// sum of its terms (collapse moves the bases by such sums).
void place_bases(plan::move_plan& p, std::vector<std::byte>& arena) {
    const std::int64_t r = term_reach(p) + 64;
    arena.assign(static_cast<std::size_t>(2 * r), std::byte{0});
    p.dst = arena.data() + r;
    p.src = arena.data() + r;
}

} // namespace

TEST_CASE("plan: collapse keeps every move of random plans", "[plan]") {
    rng_t g(0x636f6c6c'61707365ULL);
    std::vector<std::byte> arena;
    int merged = 0, tables = 0, padded = 0;
    for (int rep = 0; rep < 4000; ++rep) {
        plan::move_plan p = random_plan(g);
        place_bases(p, arena);
        const std::byte* dst0 = arena.data();
        const std::byte* src0 = arena.data();
        const auto before = moves(p, dst0, src0);
        INFO("case " << rep << ": " << plan_text(p, dst0, src0));
        plan::move_plan q = p;
        plan::collapse(q);
        INFO("collapsed: " << plan_text(q, dst0, src0));
        CHECK(moves(q, dst0, src0) == before);
        CHECK(q.rank <= p.rank);
        // collapsing again changes nothing (an empty plan's collapsed form, rank 0, is not one to
        // collapse again: a plan of rank 0 counts one element)
        if (q.rank > 0) {
            plan::move_plan r = q;
            plan::collapse(r);
            CHECK(r.rank == q.rank);
            CHECK(moves(r, dst0, src0) == before);
        }
        merged += q.rank < p.rank ? 1 : 0;
        tables += p.table.empty() ? 0 : 1;
        for (int i = 0; i < p.rank; ++i) padded += p.dims[static_cast<std::size_t>(i)].padded ? 1 : 0;
    }
    // the generator reached what it is for
    CHECK(merged > 1000);
    CHECK(tables > 1000);
    CHECK(padded > 1000);
}

TEST_CASE("plan: the move sets tell plans apart", "[plan]") {
    // a [2, 3] float32 copy in C order: one run of 6 elements after collapse
    std::vector<std::byte> arena(256);
    plan::move_plan p;
    p.rank = 2;
    p.elem = 4;
    p.dims[0].size = 2;
    p.dims[0].dst = 12;
    p.dims[0].src = 12;
    p.dims[1].size = 3;
    p.dims[1].dst = 4;
    p.dims[1].src = 4;
    p.dst = arena.data() + 128;
    p.src = arena.data() + 128;
    const auto before = moves(p, arena.data(), arena.data());
    REQUIRE(before.size() == 6);
    for (std::size_t k = 0; k < 6; ++k) CHECK(before[k] == std::make_pair(128 + 4 * static_cast<std::int64_t>(k), 128 + 4 * static_cast<std::int64_t>(k)));
    plan::move_plan q = p;
    plan::collapse(q);
    CHECK(q.rank == 1);
    CHECK(q.dims[0].size == 6);
    CHECK(moves(q, arena.data(), arena.data()) == before);
    // one wrong stride, a wrong base or a padded coordinate read instead of filled: other moves
    plan::move_plan wrong = q;
    wrong.dims[0].src = 8;
    CHECK(moves(wrong, arena.data(), arena.data()) != before);
    wrong = q;
    wrong.src += 4;
    CHECK(moves(wrong, arena.data(), arena.data()) != before);
    plan::move_plan pad = p;
    pad.dims[1] = padded_dim(pad_mode::constant, 1, 1, 1, 4);
    pad.dims[1].dst = 4;
    const auto filled = moves(pad, arena.data(), arena.data());
    CHECK(std::count_if(filled.begin(), filled.end(), [](const auto& m) { return m.second == fill; }) == 4);
    pad.dims[1] = padded_dim(pad_mode::edge, 1, 1, 1, 4);
    pad.dims[1].dst = 4;
    CHECK(moves(pad, arena.data(), arena.data()) != filled);
}
