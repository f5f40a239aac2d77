// Views: strides of every kind, the self-overlap test (checked against brute force), and the
// checks every operator makes on its views.

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>

#include "strix/strix.hpp"

using namespace strix;

TEST_CASE("self_overlaps agrees with brute force on random small layouts", "[views]") {
    std::mt19937 rng(7);
    int overlapping = 0, disjoint = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        shape s;
        std::array<std::int64_t, max_rank> st{};
        const int r = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < r; ++i) {
            s.push_back(1 + static_cast<std::int64_t>(rng() % 4));
            st[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(rng() % 13) - 6;
        }
        // brute force: do two coordinates share an offset?
        std::set<std::int64_t> seen;
        bool dup = false;
        std::array<std::int64_t, max_rank> c{};
        for (std::int64_t k = 0; k < s.count(); ++k) {
            std::int64_t rem = k, off = 0;
            for (int i = r - 1; i >= 0; --i) {
                c[static_cast<std::size_t>(i)] = rem % s[i];
                rem /= s[i];
                off += c[static_cast<std::size_t>(i)] * st[static_cast<std::size_t>(i)];
            }
            dup |= !seen.insert(off).second;
        }
        const bool says = detail::may_self_overlap(s, st);
        REQUIRE((detail::self_overlap(s, st) == detail::overlap::certain) == dup); // exact for small views
        // the test may reject an exotic interleaved layout that does not overlap, never the reverse
        if (dup) REQUIRE(says);
        (dup ? overlapping : disjoint) += 1;
        // layouts made of sorted, non-interleaving strides are never rejected wrongly
        bool nested = true;
        std::vector<std::pair<std::int64_t, std::int64_t>> d;
        for (int i = 0; i < r; ++i)
            if (s[i] > 1) d.push_back({std::abs(st[static_cast<std::size_t>(i)]), s[i]});
        std::sort(d.begin(), d.end());
        std::int64_t span = 1;
        for (auto [a, n] : d) {
            nested &= span > 0 && a >= span && a % span == 0;
            span = a * n;
        }
        if (nested && !dup) REQUIRE_FALSE(says);
    }
    CHECK(overlapping > 1000);
    CHECK(disjoint > 1000);
}

namespace {
any_cview make_src(std::vector<float>& buf) {
    for (int i = 0; i < 6; ++i) buf[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
    return any_view(buf.data(), dtype::float32, {3, 2});
}
} // namespace

TEST_CASE("operators reject bad views with messages naming them", "[views]") {
    std::vector<float> buf(64, 0.0f);
    const any_cview in(any_view(buf.data(), dtype::float32, {2, 3}));
    SECTION("an output with a zero stride overlaps itself") {
        const any_view out(buf.data() + 32, dtype::float32, {2, 3}, {0, 1});
        const any_cview ins[] = {in};
        CHECK_THROWS_WITH(join(ins, out, {0}), Catch::Contains("join: the output view [2,3] with strides [0,1] overlaps itself"));
    }
    SECTION("an interleaved output that shares no address is accepted") {
        const any_view out(buf.data() + 32, dtype::float32, {3, 2}, {2, 3});
        const auto src = make_src(buf);
        pad(src, out, pad_desc{pad_mode::constant, {0, 0}, {0, 0}});
        CHECK(buf[32] == 1);
        CHECK(buf[35] == 2);
        CHECK(buf[34] == 3);
    }
    SECTION("an output overlapping an input") {
        const any_view out(buf.data() + 2, dtype::float32, {2, 3});
        const any_cview ins[] = {in};
        CHECK_THROWS_WITH(join(ins, out, {0}), Catch::Contains("overlaps the input 0"));
        CHECK_THROWS_WITH(pad(in, out, pad_desc{pad_mode::constant, {0, 0}, {0, 0}}), Catch::Contains("pad: the output [2,3] overlaps the input"));
    }
    SECTION("split outputs overlapping each other, named by their numbers") {
        const any_view a(buf.data() + 32, dtype::float32, {1, 3}), b(buf.data() + 34, dtype::float32, {1, 3});
        const any_view outs[] = {a, b};
        CHECK_THROWS_WITH(split(in, outs, {0}), Catch::Contains("split: the output 1 [1,3] overlaps the output 0 [1,3]"));
        const any_view self(buf.data() + 40, dtype::float32, {1, 3}, {3, 0});
        const any_view outs2[] = {a, self};
        CHECK_THROWS_WITH(split(in, outs2, {0}), Catch::Contains("split: the output 1 view [1,3] with strides [3,0] overlaps itself"));
    }
    SECTION("null data") {
        const any_cview nothing(nullptr, dtype::float32, shape{2});
        const any_view out(buf.data() + 32, dtype::float32, {2});
        CHECK_THROWS_WITH(pad(nothing, out, pad_desc{pad_mode::edge, {0}, {0}}), Catch::Contains("has no data"));
    }
    SECTION("broadcast (zero-stride) inputs are fine") {
        const any_cview row(buf.data(), dtype::float32, {3, 4}, {0, 1});
        for (int i = 0; i < 4; ++i) buf[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
        const auto y = pad(row, pad_desc{pad_mode::constant, {0, 0}, {0, 1}, scalar(0.5)});
        const std::vector<float> expect = {1, 2, 3, 4, 0.5f, 1, 2, 3, 4, 0.5f, 1, 2, 3, 4, 0.5f};
        CHECK(std::vector<float>(y.as<float>(), y.as<float>() + 15) == expect);
    }
}

TEST_CASE("typed views: strides, Fortran order and negative strides", "[views]") {
    int data[6] = {0, 1, 2, 3, 4, 5};
    const tensor_view<int const, extents<2, 3>> c(data);
    CHECK(c(1, 2) == 5);
    const tensor_view<int const, extents<2, 3>> f(data, {}, {1, 2});
    CHECK(f(1, 2) == 5);
    CHECK(f(1, 0) == 1);
    const tensor_view<int const, extents<6>> rev(data + 5, {}, {-1});
    CHECK(rev(0) == 5);
    const any_cview e = rev;
    CHECK(e.stride(0) == -1);
    CHECK(e.type() == dtype::int32);
    const std::int64_t idx[2] = {0, -1};
    const auto y = gather(e, any_cview(any_view(const_cast<std::int64_t*>(idx), dtype::int64, {2})), {0});
    CHECK(y.as<int>()[0] == 5);
    CHECK(y.as<int>()[1] == 0);
    CHECK_THROWS_AS(y.as<float>(), error);
}

TEST_CASE("host_tensor and the CPU scratch buffer ask for huge pages from 4 MiB where the system has them, and free either kind", "[views]") {
    // From 4 MiB (Linux) the elements start on a 2 MiB boundary and are marked MADV_HUGEPAGE;
    // below that, or with strix::set_host_huge_pages(false), they are 64-byte aligned as before. Either
    // way they are zeroed, and moves carry the kind to the delete (the sanitized build checks
    // that each is freed with the alignment it was allocated with).
    struct restore {
        bool was = strix::host_huge_pages_enabled();
        ~restore() { strix::set_host_huge_pages(was); }
    } keep;
    auto aligned = [](const strix::host_tensor& t, std::uintptr_t a) { return reinterpret_cast<std::uintptr_t>(t.data()) % a == 0; };
    auto zeroed = [](const strix::host_tensor& t) {
        for (std::size_t i = 0; i < t.bytes(); i += 4093)
            if (t.data()[i] != std::byte{0}) return false;
        return t.data()[t.bytes() - 1] == std::byte{0};
    };
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const bool linux_huge = true;
#else
    const bool linux_huge = false;
#endif
    for (bool on : {true, false}) {
        strix::set_host_huge_pages(on);
        CHECK(strix::host_huge_pages_enabled() == on);
        INFO("host_huge_pages_enabled " << on);
        strix::host_tensor big(strix::dtype::float32, strix::shape{1 << 20}); // 4 MiB
        strix::host_tensor small(strix::dtype::float32, strix::shape{(1 << 20) - 1});
        CHECK(big.huge_pages() == (on && linux_huge));
        CHECK_FALSE(small.huge_pages());
        CHECK(aligned(big, big.huge_pages() ? std::uintptr_t{2} << 20 : 64));
        CHECK(aligned(small, 64));
        CHECK(zeroed(big));
        CHECK(zeroed(small));
        big.as<float>()[(1 << 20) - 1] = 3.0f;
        strix::host_tensor moved(std::move(big));
        CHECK(moved.huge_pages() == (on && linux_huge));
        CHECK(moved.as<float>()[(1 << 20) - 1] == 3.0f);
        small = std::move(moved); // frees the small one, takes the big one's kind
        CHECK(small.huge_pages() == (on && linux_huge));
        CHECK(small.count() == 1 << 20);
        // the CPU executor's scratch buffer (gather-elements' compact indices) is such memory
        // too: it grows to a huge-page block at 4 MiB and frees either kind when released
        strix::cpu::release_scratch();
        std::byte* s = strix::cpu::detail::scratch((std::size_t{4} << 20) - 1);
        CHECK_FALSE(strix::cpu::detail::thread_scratch().block.huge_pages());
        CHECK(reinterpret_cast<std::uintptr_t>(s) % 64 == 0);
        s[0] = s[(std::size_t{4} << 20) - 2] = std::byte{1};
        s = strix::cpu::detail::scratch(std::size_t{4} << 20);
        CHECK(strix::cpu::detail::thread_scratch().block.huge_pages() == (on && linux_huge));
        CHECK(reinterpret_cast<std::uintptr_t>(s) % (on && linux_huge ? std::uintptr_t{2} << 20 : 64) == 0);
        s[0] = s[(std::size_t{4} << 20) - 1] = std::byte{1};
        CHECK(strix::cpu::detail::scratch(1) == s); // a smaller request keeps the block
        strix::cpu::release_scratch();
        CHECK(strix::cpu::detail::thread_scratch().block.size() == 0);
    }
}

TEST_CASE("small_vector copies and moves the elements in use, inline or on the heap", "[views]") {
    // (a run state holds two of these; a call of more than four plans moves its states to the heap)
    for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 9u}) {
        INFO("n " << n);
        strix::detail::small_vector<std::int64_t, 4> a;
        for (std::size_t i = 0; i < n; ++i) a.push_back(static_cast<std::int64_t>(10 * i + 1));
        auto same = [n](const strix::detail::small_vector<std::int64_t, 4>& v) {
            if (v.size() != n) return false;
            for (std::size_t i = 0; i < n; ++i)
                if (v[i] != static_cast<std::int64_t>(10 * i + 1)) return false;
            return true;
        };
        strix::detail::small_vector<std::int64_t, 4> copy(a);
        CHECK(same(copy));
        CHECK(same(a));
        strix::detail::small_vector<std::int64_t, 4> moved(std::move(copy));
        CHECK(same(moved));
        CHECK(copy.empty());
        strix::detail::small_vector<std::int64_t, 4> assigned(7);
        assigned = moved;
        CHECK(same(assigned));
        strix::detail::small_vector<std::int64_t, 4> taken;
        taken.push_back(99);
        taken = std::move(assigned);
        CHECK(same(taken));
        CHECK(assigned.empty());
        taken.push_back(5); // grows on from where the moved elements left it
        CHECK(taken.size() == n + 1);
        CHECK(taken.back() == 5);
        if (n) CHECK(taken[0] == 1);
    }
}
