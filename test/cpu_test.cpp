// The CPU executor across operators: every operator's random case on 2, 3 and 7 threads split
// below a row, and with streamed stores; large operands on four threads against one; the first
// bad index named whatever the number of threads; the thread pool itself; and the reference's
// own check against SPEC.md's examples. Each operator's cases are in test/ops/<op>_test.cpp; the
// harness (strided operands in random layouts, the checks) is test/support/host.hpp.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/host.hpp"

using namespace strix_test;

TEST_CASE("random: the reference follows the SPEC examples", "[random]") {
    // pad: [1,2,3,4] padded 2/4
    const std::int64_t reflect[] = {2, 1, 0, 1, 2, 3, 2, 1, 0, 1};   // [3,2,1,2,3,4,3,2,1,2]
    const std::int64_t symmetric[] = {1, 0, 0, 1, 2, 3, 3, 2, 1, 0}; // [2,1,1,2,3,4,4,3,2,1]
    for (int o = 0; o < 10; ++o) {
        CHECK(pad_fold(pad_mode::reflect, o - 2, 4) == reflect[o]);
        CHECK(pad_fold(pad_mode::symmetric, o - 2, 4) == symmetric[o]);
        CHECK(pad_fold(pad_mode::reflect, o - 2, 1) == 0);
        CHECK(pad_fold(pad_mode::edge, o - 2, 4) == std::clamp<std::int64_t>(o - 2, 0, 3));
    }
    CHECK(pad_fold(pad_mode::constant, -1, 4) == -1);

    // gather, DirectML form: input {1,3,3} = 1..9, indices {1,1,2} = [[[0,2]]], axis 2, K 2
    // -> output {3,1,2} = [[[1,3]],[[4,6]],[[7,9]]]
    float input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::int32_t indices[2] = {0, 2};
    const ref_view in_ref{reinterpret_cast<const std::byte*>(input), dtype::float32, shape{3, 3}, strix::c_strides(shape{3, 3})};
    const ref_view idx_ref{reinterpret_cast<const std::byte*>(indices), dtype::int32, shape{1, 2}, strix::c_strides(shape{1, 2})};
    const ref_result ref = gather_ref(in_ref, idx_ref, 1, shape{3, 1, 2});
    const float want[6] = {1, 3, 4, 6, 7, 9};
    REQUIRE(ref.data.size() == sizeof want);
    CHECK(std::memcmp(ref.data.data(), want, sizeof want) == 0);
    float out[6] = {};
    strix::gather(any_cview(input, dtype::float32, shape{1, 3, 3}), any_cview(indices, dtype::int32, shape{1, 1, 2}),
                  any_view(out, dtype::float32, shape{3, 1, 2}), strix::gather_desc{2, 2});
    CHECK(std::memcmp(out, want, sizeof want) == 0);

    // scatter: {3,3} zeros, indices [[1,0,2],[0,2,1]], updates [[10,11,12],[20,21,22]], axis 0
    std::int32_t zeros[9] = {}, sidx[6] = {1, 0, 2, 0, 2, 1}, upd[6] = {10, 11, 12, 20, 21, 22};
    const auto s33 = strix::c_strides(shape{3, 3}), s23 = strix::c_strides(shape{2, 3});
    const ref_result sref = scatter_ref({reinterpret_cast<const std::byte*>(zeros), dtype::int32, shape{3, 3}, s33},
                                        {reinterpret_cast<const std::byte*>(sidx), dtype::int32, shape{2, 3}, s23},
                                        {reinterpret_cast<const std::byte*>(upd), dtype::int32, shape{2, 3}, s23}, 0);
    const std::int32_t swant[9] = {20, 11, 0, 10, 0, 22, 0, 21, 12};
    REQUIRE(sref.data.size() == sizeof swant);
    CHECK(std::memcmp(sref.data.data(), swant, sizeof swant) == 0);
}

TEST_CASE("random: larger random cases on four threads", "[random]") {
    // up to 65536 elements of 8 bytes: the executor splits such operands over several threads
    run_config big;
    big.max_elems = 65536;
    big.max_slots = 1 << 20;
    big.max_size = 48;
    big.opt.threads = 4;
    const config_scope scope(big);
    rng_t seeds(0x74687265'61647308ULL);
    for (int rep = 0; rep < 12; ++rep)
        for (dtype et : {dtype::float64, dtype::int64}) {
            gather_natural_case(seeds(), et, dtype::int64);
            gather_directml_case(seeds(), et, dtype::uint32);
            join_case(seeds(), et);
            pad_case(seeds(), et, static_cast<pad_mode>(rep % 5));
            scatter_case(seeds(), et, dtype::int32, static_cast<strix::scatter_reduction>(rep % 5));
            gather_elements_case(seeds(), et, dtype::uint64);
            gather_nd_case(seeds(), et, dtype::int32);
            split_case(seeds(), et);
            scatter_nd_case(seeds(), et, dtype::int64, static_cast<strix::scatter_reduction>(rep % 5));
        }
}

TEST_CASE("random: four threads give the single-threaded result on large operands", "[random]") {
    rng_t g(0x74687265'61647307ULL);
    const strix::cpu::options one{1}, four{4};
    const shape s{256, 1024};
    strided in = make_c_order(dtype::float32, s);
    fill_random(g, in.buf);
    // the same input read through negative strides
    strided flipped = in;
    flipped.strides = {-1024, -1};
    flipped.base = s.count() - 1;

    SECTION("pad") {
        for (pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric}) {
            INFO("mode " << mode_name(mode));
            strix::pad_desc d;
            d.mode = mode;
            d.start = shape{3, 70};
            d.end = shape{60, 5};
            d.value = strix::scalar(1.5);
            const float fill = 1.5f;
            const shape out{319, 1099};
            for (const strided* src : {&in, &flipped}) {
                const bytes expect = pad_ref(src->ref(), mode, d.start, reinterpret_cast<const std::byte*>(&fill), out);
                const host_tensor t1 = strix::pad(src->cview(), d, one);
                const host_tensor t4 = strix::pad(src->cview(), d, four);
                check_tensor(t1, dtype::float32, out, expect);
                check_tensor(t4, dtype::float32, out, expect);
                // a Fortran-order output with a sentinel around it
                strided vout = make_c_order(dtype::float32, out);
                vout.strides = strix::f_strides(out);
                vout.base = 3;
                vout.buf.resize(vout.buf.size() + 6 * sizeof(float));
                fill_random(g, vout.buf);
                const bytes before = vout.buf;
                strix::pad(src->cview(), vout.view(), d, four);
                check_output(vout, before, expect);
            }
        }
    }
    SECTION("gather") {
        for (int axis : {0, 1, -1}) {
            INFO("axis " << axis);
            const int a = axis < 0 ? axis + 2 : axis;
            const std::int64_t n = s[a];
            strided idx = make_c_order(a == 0 ? dtype::int64 : dtype::int32, a == 0 ? shape{300} : shape{2, 900});
            fill_indices(g, idx, n);
            shape out = a == 0 ? shape{300, 1024} : shape{256, 2, 900};
            for (const strided* src : {&in, &flipped}) {
                const ref_result ref = gather_ref(src->ref(), idx.ref(), a, out);
                REQUIRE_FALSE(ref.bad);
                const strix::gather_desc d{axis};
                check_tensor(strix::gather(src->cview(), idx.cview(), d, one), dtype::float32, out, ref.data);
                check_tensor(strix::gather(src->cview(), idx.cview(), d, four), dtype::float32, out, ref.data);
            }
        }
    }
    SECTION("join") {
        strided other = make_c_order(dtype::float32, shape{256, 300});
        fill_random(g, other.buf);
        strided tall = make_c_order(dtype::float32, shape{100, 1024});
        fill_random(g, tall.buf);
        const any_cview wide_views[] = {in.cview(), other.cview(), flipped.cview()};
        const bytes wide = join_ref({in.ref(), other.ref(), flipped.ref()}, 1, shape{256, 2348});
        check_tensor(strix::join(wide_views, strix::join_desc{1}, one), dtype::float32, shape{256, 2348}, wide);
        check_tensor(strix::join(wide_views, strix::join_desc{-1}, four), dtype::float32, shape{256, 2348}, wide);
        const any_cview tall_views[] = {flipped.cview(), tall.cview()};
        const bytes stacked = join_ref({flipped.ref(), tall.ref()}, 0, shape{356, 1024});
        check_tensor(strix::join(tall_views, strix::join_desc{0}, one), dtype::float32, shape{356, 1024}, stacked);
        check_tensor(strix::join(tall_views, strix::join_desc{0}, four), dtype::float32, shape{356, 1024}, stacked);
    }
    SECTION("scatter") {
        strided idx = make_c_order(dtype::uint32, shape{200, 1024});
        fill_indices(g, idx, 256);
        strided upd = make_c_order(dtype::float32, shape{200, 1024});
        fill_random(g, upd.buf);
        // every target takes about 200 / 256 updates: the four workers share the columns, and
        // each element's updates must still combine in C order (float sums are not associative)
        using R = strix::scatter_reduction;
        for (const R red : {R::none, R::add, R::mul, R::max}) {
            INFO("reduction " << static_cast<int>(red));
            for (const strided* src : {&in, &flipped}) {
                const ref_result ref = scatter_ref(src->ref(), idx.ref(), upd.ref(), 0, red);
                strix::scatter_desc d{0};
                d.reduction = red;
                check_tensor(strix::scatter(src->cview(), idx.cview(), upd.cview(), d, one), dtype::float32, s, ref.data);
                check_tensor(strix::scatter(src->cview(), idx.cview(), upd.cview(), d, four), dtype::float32, s, ref.data);
                // into a Fortran-order output: the shared dimension is then the outer one in memory
                strided fout = make_c_order(dtype::float32, s);
                fout.strides = strix::f_strides(s);
                fill_random(g, fout.buf);
                const bytes before = fout.buf;
                strix::scatter(src->cview(), idx.cview(), upd.cview(), fout.view(), d, four);
                check_output(fout, before, ref.data);
            }
        }
    }
}

TEST_CASE("random: every operator on 2, 3 and 7 threads, split below a row", "[random]") {
    using R = strix::scatter_reduction;
    rng_t seeds(0x73706c74'0000000eULL);
    for (int threads : {2, 3, 7}) {
        run_config split;
        split.opt.threads = threads;
        split.opt.min_bytes_per_thread = 1;
        split.opt.compact_min_bytes = threads == 3 ? 0 : split.opt.compact_min_bytes; // gather-elements' compact copies, any size
        const config_scope scope(split);
        INFO("threads " << threads);
        for (int rep = 0; rep < 40; ++rep)
            for (dtype et : {dtype::float32, dtype::int8, dtype::float16, dtype::float64}) {
                const dtype it = strix::index_dtypes[rep % 4];
                gather_natural_case(seeds(), et, it);
                gather_directml_case(seeds(), et, it);
                join_case(seeds(), et);
                pad_case(seeds(), et, static_cast<pad_mode>(rep % 5));
                scatter_case(seeds(), et, it, static_cast<R>(rep % 5));
                gather_elements_case(seeds(), et, it);
                gather_nd_case(seeds(), et, it);
                split_case(seeds(), et);
                scatter_nd_case(seeds(), et, it, static_cast<R>((rep + 2) % 5));
            }
    }
}

TEST_CASE("random: single long rows and short outer dimensions on 2, 3 and 7 threads", "[random]") {
    rng_t g(0x6c6f6e67'0000000fULL);
    for (int threads : {2, 3, 7}) {
        INFO("threads " << threads);
        const strix::cpu::options opt{threads, 1};
        // join and split along the outer axis: every input's plan is one contiguous row
        const shape part{1, 1001}, whole{3, 1001};
        std::vector<strided> parts;
        for (int i = 0; i < 3; ++i) {
            parts.push_back(make_c_order(dtype::float32, part));
            fill_random(g, parts.back().buf);
        }
        const any_cview views[] = {parts[0].cview(), parts[1].cview(), parts[2].cview()};
        const bytes joined = join_ref({parts[0].ref(), parts[1].ref(), parts[2].ref()}, 0, whole);
        check_tensor(strix::join(views, strix::join_desc{0}, opt), dtype::float32, whole, joined);
        strided all = make_c_order(dtype::float32, whole);
        all.buf = joined;
        std::vector<host_tensor> outs;
        for (int i = 0; i < 3; ++i) outs.emplace_back(dtype::float32, part);
        std::vector<any_view> out_views;
        for (auto& t : outs) out_views.push_back(t.view());
        strix::split(all.cview(), out_views, strix::split_desc{0}, opt);
        for (int i = 0; i < 3; ++i) check_tensor(outs[static_cast<std::size_t>(i)], dtype::float32, part, read_view(parts[static_cast<std::size_t>(i)]));

        // pad of a [2, 997] input: two mapped rows (fills, mirrored elements and runs) and fill rows
        strided in = make_c_order(dtype::int16, shape{2, 997});
        fill_random(g, in.buf);
        for (pad_mode mode : {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap}) {
            INFO("pad mode " << static_cast<int>(mode));
            strix::pad_desc d;
            d.mode = mode;
            d.start = shape{1, 300};
            d.end = shape{1, 301};
            d.value = strix::scalar(7);
            const std::int16_t fill = 7;
            if (mode == pad_mode::reflect || mode == pad_mode::symmetric || mode == pad_mode::wrap) {
                d.start = shape{1, 5};
                d.end = shape{1, 6};
            }
            const shape o{4, 997 + d.start[1] + d.end[1]};
            const bytes expect = pad_ref(in.ref(), mode, d.start, reinterpret_cast<const std::byte*>(&fill), o);
            check_tensor(strix::pad(in.cview(), d, opt), dtype::int16, o, expect);
        }

        // gather along the last axis and gather-elements: one row, per-element indices
        strided src = make_c_order(dtype::float64, shape{1, 3001});
        fill_random(g, src.buf);
        for (dtype it : strix::index_dtypes) {
            INFO("index type " << type_name(it));
            strided idx = make_c_order(it, shape{2999});
            fill_indices(g, idx, 3001);
            const ref_result ref = gather_ref(src.ref(), idx.ref(), 1, shape{1, 2999});
            REQUIRE_FALSE(ref.bad);
            check_tensor(strix::gather(src.cview(), idx.cview(), strix::gather_desc{1}, opt), dtype::float64, shape{1, 2999}, ref.data);
            strided eidx = make_c_order(it, shape{1, 2500});
            fill_indices(g, eidx, 3001);
            const ref_result eref = gather_elements_ref(src.ref(), eidx.ref(), 1);
            REQUIRE_FALSE(eref.bad);
            check_tensor(strix::gather_elements(src.cview(), eidx.cview(), strix::gather_elements_desc{-1}, opt), dtype::float64, shape{1, 2500},
                         eref.data);
            // scatter of one row with collisions: the last update in C order wins, and adds combine in order
            strided upd = make_c_order(dtype::float64, shape{1, 2500});
            fill_random(g, upd.buf);
            strided cidx = make_c_order(it, shape{1, 2500});
            fill_colliding_indices(g, cidx, 3001);
            for (auto red : {strix::scatter_reduction::none, strix::scatter_reduction::add}) {
                const ref_result sref = scatter_ref(src.ref(), cidx.ref(), upd.ref(), 1, red);
                check_tensor(strix::scatter(src.cview(), cidx.cview(), upd.cview(), strix::scatter_desc{1, index_policy::error, red}, opt),
                             dtype::float64, shape{1, 3001}, sref.data);
            }
        }
    }
}

TEST_CASE("random: streamed stores on 1 and 3 threads, partial lines staged and in place", "[random]") {
    using R = strix::scatter_reduction;
    using staging = strix::cpu::options::staging;
    rng_t seeds(0x7374726d'00000012ULL);
    for (const auto& [threads, stage] : {std::pair{1, staging::always}, std::pair{3, staging::always}, std::pair{1, staging::never}, std::pair{3, staging::never}}) {
        run_config streamed;
        streamed.opt.threads = threads;
        streamed.opt.min_bytes_per_thread = 1;
        streamed.opt.stream_min_bytes = 0;
        streamed.opt.stage = stage;
        streamed.max_size = 48;
        streamed.max_elems = 1 << 16;
        streamed.max_slots = 1 << 18;
        const config_scope scope(streamed);
        INFO("threads " << threads << (stage == staging::always ? ", staged" : ", in place"));
        for (int rep = 0; rep < 15; ++rep)
            for (dtype et : {dtype::int8, dtype::float32, dtype::float64}) {
                const dtype it = strix::index_dtypes[rep % 4];
                gather_natural_case(seeds(), et, it);
                join_case(seeds(), et);
                split_case(seeds(), et);
                pad_case(seeds(), et, static_cast<pad_mode>(rep % 5));
                gather_nd_case(seeds(), et, it);
                scatter_case(seeds(), et, it, static_cast<R>(rep % 5));
                // a few: the harness's tuples for operands this large cost 0.5 s a case (ten times
                // that under the sanitizers), and the rows below test the streamed path directly
                if (et == dtype::float64 && rep % 5 == 0) scatter_nd_case(seeds(), et, it, static_cast<R>(rep / 5));
            }
    }

    // scatter-nd of whole rows streamed: 64 rows of 1001 float32 into 32, many targets twice
    // (the later row wins), the output starting 4 bytes into a line, against a naive loop
    {
        rng_t gr(0x7374726d'00000014ULL);
        const std::int64_t rows = 32, w = 1001, n = 64;
        std::vector<float> in(static_cast<std::size_t>(rows * w)), upd(static_cast<std::size_t>(n * w));
        std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
        for (auto& x : in) x = static_cast<float>(gr() % 1000);
        for (auto& x : upd) x = static_cast<float>(gr() % 1000) + 0.5f;
        for (auto& x : idx) x = static_cast<std::int64_t>(gr() % rows);
        std::vector<float> want = in;
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < w; ++j) want[static_cast<std::size_t>(idx[static_cast<std::size_t>(i)] * w + j)] = upd[static_cast<std::size_t>(i * w + j)];
        for (int threads : {1, 3}) {
            INFO("scatter-nd rows, threads " << threads);
            const strix::cpu::options opt{threads, 1, 0};
            std::vector<float> buf(static_cast<std::size_t>(rows * w + 17), -1.0f);
            const std::size_t at = (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) / 4 % 16 + 1; // 4 bytes past a line
            const strix::any_view out(buf.data() + at, dtype::float32, shape{rows, w});
            strix::scatter_nd(any_cview(in.data(), dtype::float32, shape{rows, w}), any_cview(idx.data(), dtype::int64, shape{n, 1}),
                              any_cview(upd.data(), dtype::float32, shape{n, w}), out, strix::scatter_nd_desc{}, opt);
            CHECK(std::memcmp(buf.data() + at, want.data(), want.size() * sizeof(float)) == 0);
            for (std::size_t k = 0; k < buf.size(); ++k)
                if (k < at || k >= at + want.size()) CHECK(buf[k] == -1.0f);
        }
    }

    // rows of 1 to 300 bytes whose outputs start at every offset within a cache line: a constant
    // pad of [3, w] int8 by `lo` in front and 2 behind on the last axis
    rng_t g(0x7374726d'00000013ULL);
    for (const staging stage : {staging::always, staging::never}) {
        for (std::int64_t w = 1; w <= 300; w += (w < 140 ? 1 : 7))
            for (std::int64_t lo : {0, 1, 7, 31, 63, 64, 65}) {
                const strix::cpu::options opt{1, 1, 0, stage};
                INFO("width " << w << ", pad " << lo << (stage == staging::always ? ", staged" : ", in place"));
                strided in = make_c_order(dtype::int8, shape{3, w});
                fill_random(g, in.buf);
                strix::pad_desc d;
                d.start = shape{0, lo};
                d.end = shape{0, 2};
                d.value = strix::scalar(-5);
                const std::int8_t fill = -5;
                const shape o{3, w + lo + 2};
                check_tensor(strix::pad(in.cview(), d, opt), dtype::int8, o, pad_ref(in.ref(), pad_mode::constant, d.start, reinterpret_cast<const std::byte*>(&fill), o));
            }
    }
}

TEST_CASE("the index check: every type's boundaries at every place of a vector step and of the tail", "[indices]") {
    // strix::detail::indices_in_range checks contiguous indices a line at a time with SSE2 (2 or
    // 4 per instruction) or, where the processor has it, AVX2 (4 or 8), and the rest one by one;
    // each way against the definition: [-n, n) signed, [0, n) unsigned
    constexpr std::int64_t two31 = std::int64_t{1} << 31, two32 = std::int64_t{1} << 32;
    for (dtype it : strix::index_dtypes) {
        const bool is_signed = it == dtype::int32 || it == dtype::int64;
        const bool is32 = it == dtype::int32 || it == dtype::uint32;
        for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{256}, std::int64_t{1000}, std::int64_t{65536}, two31 - 1, two31, two31 + 1, two32 - 1, two32,
                               two32 + 1, std::int64_t{1} << 62}) {
            // values around each bound and the type's extremes: signed types' as int64, unsigned
            // types' as uint64 bit patterns
            std::vector<std::uint64_t> vals;
            auto add = [&](auto v) {
                if (is_signed) {
                    if constexpr (std::is_signed_v<decltype(v)>)
                        if (!is32 || (v >= INT32_MIN && v <= INT32_MAX)) vals.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
                } else if constexpr (std::is_unsigned_v<decltype(v)>) {
                    if (!is32 || v <= UINT32_MAX) vals.push_back(static_cast<std::uint64_t>(v));
                }
            };
            for (std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, n - 1, n, n + 1, -n - 1, -n, -n + 1, std::int64_t{INT32_MIN},
                                   std::int64_t{INT32_MAX}, std::int64_t{UINT32_MAX}, INT64_MIN, INT64_MAX})
                add(v);
            const auto un = static_cast<std::uint64_t>(n);
            for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, un - 1, un, un + 1, std::uint64_t{UINT32_MAX}, std::uint64_t{INT64_MAX},
                                    std::uint64_t{1} << 63, UINT64_MAX - 1, UINT64_MAX})
                add(v);
            for (const std::uint64_t v : vals) {
                const bool in = is_signed ? (static_cast<std::int64_t>(v) >= -n && static_cast<std::int64_t>(v) < n) : v < un;
                for (std::int64_t len : {1, 3, 4, 8, 15, 16, 17, 33, 47}) {
                    for (std::int64_t at = 0; at < len; ++at) {
                        INFO(type_name(it) << ", n " << n << ", value bits " << v << ", " << len << " indices, at " << at);
                        strided idx = make_c_order(it, shape{len});
                        // the others in range where anything is (0), else the value itself
                        for (std::int64_t k = 0; k < len; ++k) store_index(idx.buf.data() + k * idx.es(), it, n > 0 ? 0 : v);
                        store_index(idx.buf.data() + at * idx.es(), it, v);
                        CHECK(strix::detail::indices_in_range(idx.cview(), n) == in);
                        // [0, n) only: what lets scatter read signed indices as unsigned
                        const bool in_nonneg = in && (!is_signed || static_cast<std::int64_t>(v) >= 0);
                        CHECK(strix::detail::indices_in_range(idx.cview(), n, {}, true) == in_nonneg);
                        strix::cpu::detail::with_index_type(it, [&](auto tag) {
                            using I = decltype(tag);
                            CHECK(strix::detail::contiguous_in_range_sse2<I>(idx.buf.data(), len, n) == in);
#ifdef STRIX_X86_AVX2
                            if (strix::cpu::detail::cpu_has_avx2()) {
                                CHECK(strix::detail::contiguous_in_range_avx2<I>(idx.buf.data(), len, n) == in);
                                // the check that writes a compact copy: indices read as unsigned, into
                                // 1 byte for an axis of up to 256, 2 for up to 65536
                                if (n > 0 && n <= 65536) {
                                    using U = std::make_unsigned_t<I>;
                                    auto compacted = [&](auto ntag) {
                                        using N = decltype(ntag);
                                        std::vector<N> out(static_cast<std::size_t>(len), N{0x5a});
                                        const bool ok = strix::detail::contiguous_in_range_avx2<U, N>(idx.buf.data(), len, n, out.data());
                                        CHECK(ok == (v < un && (!is_signed || static_cast<std::int64_t>(v) >= 0)));
                                        if (ok)
                                            for (std::int64_t k = 0; k < len; ++k)
                                                CHECK(out[static_cast<std::size_t>(k)] == static_cast<N>(k == at ? v : 0));
                                    };
                                    compacted(std::uint16_t{});
                                    if (n <= 256) compacted(std::uint8_t{});
                                }
                            }
#endif
                        });
                    }
                }
            }
        }
    }
}

TEST_CASE("random: out-of-range indices name the first bad one whatever the number of threads", "[random]") {
    rng_t g(0x62616469'00000010ULL);
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const strix::error& e) {
            CHECK(e.code() == error_code::index_out_of_range);
            return std::string(e.what());
        }
        FAIL("no error");
        return std::string();
    };
    for (dtype it : strix::index_dtypes) {
        INFO("index type " << type_name(it));
        strided in = make_c_order(dtype::float32, shape{40, 50});
        fill_random(g, in.buf);
        strided idx = make_c_order(it, shape{40, 50});
        fill_indices(g, idx, 50);
        // two bad indices: the first in C order lies in the first thread's part, the second in
        // the last one's (which would finish first if the check stopped at any bad index)
        const bool is_signed = it == dtype::int32 || it == dtype::int64;
        store_index(idx.at(coords{3, 7}), it, static_cast<std::uint64_t>(is_signed ? -51 : 50));
        store_index(idx.at(coords{39, 1}), it, 77);
        strided out = make_c_order(dtype::float32, shape{40, 50});
        const bytes before = out.buf;
        strided upd = make_c_order(dtype::float32, shape{40, 50});
        std::string first;
        for (int threads : {1, 2, 3, 7}) {
            INFO("threads " << threads);
            const strix::cpu::options opt{threads, 1};
            const std::string ge =
                message([&] { strix::gather_elements(in.cview(), idx.cview(), out.view(), strix::gather_elements_desc{1}, opt); });
            CHECK(out.buf == before);
            const std::string ga = message([&] { (void)strix::gather(in.cview(), idx.cview(), strix::gather_desc{1}, opt); });
            const std::string sc = message([&] { strix::scatter(in.cview(), idx.cview(), upd.cview(), out.view(), strix::scatter_desc{1}, opt); });
            CHECK(out.buf == before);
            CHECK(ge.find(std::string("index ") + (is_signed ? "-51" : "50") + " at position [3,7]") != std::string::npos);
            CHECK(ga.find("at position [3,7]") != std::string::npos);
            CHECK(sc.find("at position [3,7]") != std::string::npos);
            const std::string all = ge + "|" + ga + "|" + sc;
            if (threads == 1) first = all;
            else CHECK(all == first);
        }
    }
}

TEST_CASE("random: gather-elements reads a compact copy of large checked indices", "[random]") {
    // Indices of compact_min_bytes and more, non-negative and on an axis of up to 65536, are
    // compacted to 1 or 2 bytes as the check reads them, and the gather reads the copy: every element against the
    // naive reference, on 1 and 3 threads, C-order and strided indices (contiguous runs that
    // start anywhere, and runs with a stride: the copy's scalar loop), tails of every length.
    // Negative indices and a bad one leave the copy to the general path.
    rng_t g(0x6e617277'00000001ULL);
    struct shape_case {
        dtype et, it;
        shape in, idx;
        int axis;
        int width; // the copy's width, 0: none
    };
    const shape_case cases[] = {
        {dtype::float32, dtype::int64, shape{512, 256}, shape{512, 301}, 1, 1},   // the axis of 256 fills a byte
        {dtype::float64, dtype::uint64, shape{300, 257}, shape{300, 451}, 1, 2},  // 257: two bytes
        {dtype::int32, dtype::int64, shape{7, 20000}, shape{9, 20000}, 0, 1},     // the first axis
        {dtype::int64, dtype::int32, shape{1000, 600}, shape{1000, 299}, 1, 2},   // int32 halved
        {dtype::float32, dtype::int64, shape{4, 300, 40}, shape{4, 300, 150}, 2, 1}, // three dimensions
        {dtype::float16, dtype::int64, shape{1000, 600}, shape{1000, 299}, 1, 0}, // 2-byte elements keep their indices
        {dtype::int8, dtype::uint64, shape{600, 100}, shape{600, 700}, 1, 0},     // and 1-byte ones
        {dtype::float32, dtype::int64, shape{2, 70000}, shape{2, 70000}, 1, 0},   // an axis past 65536
        {dtype::float32, dtype::int64, shape{64, 256}, shape{64, 256}, 1, 0},     // 128 KiB of indices: no copy
    };
    for (const auto& c : cases) {
        INFO(type_name(c.et) << " input " << str(c.in) << ", " << type_name(c.it) << " indices " << str(c.idx) << " on axis " << c.axis);
        strided in = make_c_order(c.et, c.in);
        fill_random(g, in.buf);
        const std::int64_t n = c.in[c.axis];
        strided idx = make_c_order(c.it, c.idx);
        for (std::int64_t k = 0; k < idx.slots(); ++k) store_index(idx.buf.data() + k * idx.es(), c.it, static_cast<std::uint64_t>(uni(g, 0, n - 1)));
        // from 1 MiB of indices here (the default, 16 MiB, takes none of these)
        strix::cpu::options base;
        base.compact_min_bytes = 1 << 20;
        CHECK(strix::detail::compact_index_width(in.cview(), idx.cview(), n, base.compact_min_bytes) ==
              (strix::cpu::detail::cpu_has_avx2() ? c.width : 0));
        CHECK(strix::detail::compact_index_width(in.cview(), idx.cview(), n, strix::cpu::options{}.compact_min_bytes) == 0);
        CHECK(strix::detail::compact_index_width(in.cview(), idx.cview(), n, -1) == 0);
        auto on = [&](int threads) {
            strix::cpu::options o = base;
            o.threads = threads;
            o.min_bytes_per_thread = 1;
            return o;
        };
        // the same indices through three views: C order; the rows reversed (contiguous runs in
        // C order start at every place); the indices transposed in a buffer of the transposed
        // shape (every run strided)
        const int r = c.idx.rank;
        strided rev = idx;
        rev.layout = "rows reversed";
        rev.strides[0] = -idx.strides[0];
        rev.base = (c.idx[0] - 1) * idx.strides[0];
        shape tshape = c.idx;
        std::swap(tshape[0], tshape[r - 1]);
        strided tr = make_c_order(c.it, tshape);
        tr.layout = "transposed";
        for (std::int64_t k = 0; k < tr.slots(); ++k) store_index(tr.buf.data() + k * tr.es(), c.it, static_cast<std::uint64_t>(uni(g, 0, n - 1)));
        tr.sizes = c.idx;
        std::swap(tr.strides[0], tr.strides[static_cast<std::size_t>(r - 1)]);
        for (strided* v : {&idx, &rev, &tr}) {
            const ref_result want = gather_elements_ref(in.ref(), v->ref(), c.axis);
            REQUIRE_FALSE(want.bad);
            for (int threads : {1, 3}) {
                INFO(v->describe() << ", threads " << threads);
                check_tensor(strix::gather_elements(in.cview(), v->cview(), strix::gather_elements_desc{c.axis}, on(threads)), c.et, c.idx, want.data);
            }
        }
        // a negative index (valid) and then a bad one, the last in C order
        const bool is_signed = c.it == dtype::int32 || c.it == dtype::int64;
        coords last{};
        for (int d = 0; d < r; ++d) last[static_cast<std::size_t>(d)] = c.idx[d] - 1;
        if (is_signed) {
            store_index(idx.at(last), c.it, static_cast<std::uint64_t>(-n));
            const ref_result want = gather_elements_ref(in.ref(), idx.ref(), c.axis);
            REQUIRE_FALSE(want.bad);
            check_tensor(strix::gather_elements(in.cview(), idx.cview(), strix::gather_elements_desc{c.axis}, on(3)), c.et, c.idx, want.data);
        }
        // the copy's buffer stays with the calling thread until released, and comes back as needed
        if (c.width != 0 && strix::cpu::detail::cpu_has_avx2()) {
            CHECK(strix::cpu::detail::thread_scratch().block.size() >= static_cast<std::size_t>(c.idx.count() * c.width));
            strix::cpu::release_scratch();
            CHECK(strix::cpu::detail::thread_scratch().block.size() == 0);
            CHECK(strix::cpu::detail::thread_scratch().block.data() == nullptr);
            const ref_result want = gather_elements_ref(in.ref(), idx.ref(), c.axis);
            check_tensor(strix::gather_elements(in.cview(), idx.cview(), strix::gather_elements_desc{c.axis}, on(1)), c.et, c.idx, want.data);
            CHECK(strix::cpu::detail::thread_scratch().block.size() >= static_cast<std::size_t>(c.idx.count() * c.width));
            // a thread's first call goes without the copy (and its buffer), its second makes it;
            // both gather right (checked here, after the thread, as Catch2 asks)
            std::size_t sizes[3] = {1, 1, 0};
            host_tensor results[2];
            std::thread([&] {
                sizes[0] = strix::cpu::detail::thread_scratch().block.size();
                results[0] = strix::gather_elements(in.cview(), idx.cview(), strix::gather_elements_desc{c.axis}, on(1));
                sizes[1] = strix::cpu::detail::thread_scratch().block.size();
                results[1] = strix::gather_elements(in.cview(), idx.cview(), strix::gather_elements_desc{c.axis}, on(1));
                sizes[2] = strix::cpu::detail::thread_scratch().block.size();
            }).join();
            CHECK(sizes[0] == 0);
            CHECK(sizes[1] == 0);
            CHECK(sizes[2] >= static_cast<std::size_t>(c.idx.count() * c.width));
            for (const host_tensor& t : results) check_tensor(t, c.et, c.idx, want.data);
        }
        store_index(idx.at(last), c.it, static_cast<std::uint64_t>(n));
        strided out = make_c_order(c.et, c.idx);
        fill_random(g, out.buf);
        const bytes before = out.buf;
        for (int threads : {1, 3}) {
            try {
                strix::gather_elements(in.cview(), idx.cview(), out.view(), strix::gather_elements_desc{c.axis}, on(threads));
                FAIL("no error");
            } catch (const strix::error& e) {
                CHECK(e.code() == error_code::index_out_of_range);
                std::string at = "[";
                for (int d = 0; d < r; ++d) at += (d ? "," : "") + std::to_string(c.idx[d] - 1);
                CHECK(std::string(e.what()).find("index " + std::to_string(n) + " at position " + at + "]") != std::string::npos);
            }
            CHECK(out.buf == before);
        }
    }
}

TEST_CASE("random: the pool runs many small jobs, nested and concurrent callers and throwing tasks", "[random]") {
    // nested use from inside a task and callers on several threads fall back to threads of their own
    std::atomic<int> sum{0};
    strix::cpu::parallel_tasks(4, [&](int i) {
        strix::cpu::parallel_tasks(3, [&](int j) { sum += i * 10 + j; });
    });
    CHECK(sum == (0 + 10 + 20 + 30) * 3 + 4 * 3);
    std::vector<std::thread> callers;
    std::atomic<int> count{0};
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            for (int k = 0; k < 200; ++k) strix::cpu::parallel_tasks(3, [&](int) { ++count; });
        });
    for (auto& t : callers) t.join();
    CHECK(count == 4 * 200 * 3);
    // an exception from a task reaches the caller once every task has finished
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(strix::cpu::parallel_tasks(5,
                                                 [&](int i) {
                                                     ++ran;
                                                     if (i == 3) throw std::runtime_error("task 3");
                                                 }),
                      "task 3");
    CHECK(ran == 5);
    CHECK(strix::cpu::thread_count(0) >= 1);
    CHECK(strix::cpu::thread_count(-3) == 1);
}

TEST_CASE("random: a row gathered element by element matches a naive loop, scalar and with AVX2 gathers", "[random]") {
    // gather_row's common layout (contiguous output and indices, the axis contiguous) on every
    // index type and the 1- and 2-byte ones of compact copies, 4- and 8-byte elements, with and without clamping: row lengths around the
    // indices per line (the scalar tail), negative indices, and under clamping indices past
    // either end; the scalar loop and the AVX2 one (where the processor has it) each against
    // a loop of its own. 1- and 16-byte elements and a strided axis take the scalar loop.
    rng_t g(0x67617468'00000001ULL);
    auto run = [&](auto elem_tag, auto index_tag, auto clamp_tag) {
        using T = decltype(elem_tag);
        using I = decltype(index_tag);
        constexpr bool clamp = decltype(clamp_tag)::value;
        constexpr std::size_t E = sizeof(T);
        for (const std::int64_t n : {std::int64_t{1}, std::int64_t{5}, std::int64_t{64}, std::int64_t{1000}}) {
            for (const std::int64_t stride_elems : {std::int64_t{1}, std::int64_t{3}}) {
                std::vector<T> src(static_cast<std::size_t>(n * stride_elems));
                for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<T>(k * 7 + 3);
                for (const std::int64_t len : {1, 7, 8, 15, 16, 17, 31, 32, 33, 100, 257}) {
                    std::vector<I> ix(static_cast<std::size_t>(len));
                    std::uniform_int_distribution<std::int64_t> pick(std::is_signed_v<I> ? -n : 0, n - 1);
                    std::uniform_int_distribution<std::int64_t> wild(std::is_signed_v<I> ? -3 * n - 5 : 0, 3 * n + 5);
                    for (auto& v : ix) v = static_cast<I>(clamp ? wild(g) : pick(g));
                    std::vector<T> want(static_cast<std::size_t>(len));
                    for (std::int64_t i = 0; i < len; ++i) {
                        std::int64_t x = static_cast<std::int64_t>(ix[static_cast<std::size_t>(i)]);
                        if (x < 0) x += n;
                        x = std::clamp<std::int64_t>(x, 0, n - 1);
                        want[static_cast<std::size_t>(i)] = src[static_cast<std::size_t>(x * stride_elems)];
                    }
                    for (const bool lanes : {false, true}) {
                        // a part of the row, [a, b), as a split across threads gives one
                        for (const std::int64_t a : {std::int64_t{0}, len / 3}) {
                            INFO(E << "-byte elements, " << sizeof(I) << "-byte " << (std::is_signed_v<I> ? "signed" : "unsigned") << " indices, clamp "
                                   << clamp << ", n " << n << ", axis stride " << stride_elems << ", row " << len << " from " << a << ", lanes " << lanes);
                            std::vector<T> out(static_cast<std::size_t>(len), T{});
                            strix::cpu::detail::gather_row<E, I, clamp>(reinterpret_cast<std::byte*>(out.data()), E,
                                                                        reinterpret_cast<const std::byte*>(src.data()), 0,
                                                                        reinterpret_cast<const std::byte*>(ix.data()), sizeof(I), n,
                                                                        stride_elems * static_cast<std::int64_t>(E), a, len,
                                                                        reinterpret_cast<const std::byte*>(src.data()), n * stride_elems * static_cast<std::int64_t>(E), lanes);
                            for (std::int64_t i = 0; i < len; ++i) CHECK(out[static_cast<std::size_t>(i)] == (i < a ? T{} : want[static_cast<std::size_t>(i)]));
                        }
                    }
                }
            }
        }
    };
    auto by_index = [&](auto elem_tag, auto clamp_tag) {
        run(elem_tag, std::uint8_t{}, clamp_tag); // the compact copies of checked indices
        run(elem_tag, std::uint16_t{}, clamp_tag);
        run(elem_tag, std::int32_t{}, clamp_tag);
        run(elem_tag, std::uint32_t{}, clamp_tag);
        run(elem_tag, std::int64_t{}, clamp_tag);
        run(elem_tag, std::uint64_t{}, clamp_tag);
    };
    for (auto clamp_tag : {0, 1}) {
        auto go = [&](auto c) {
            by_index(std::uint8_t{}, c);
            by_index(std::uint32_t{}, c);
            by_index(std::uint64_t{}, c);
        };
        if (clamp_tag) go(std::true_type{});
        else go(std::false_type{});
    }
}
