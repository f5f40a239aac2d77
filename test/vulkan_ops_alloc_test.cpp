// The Vulkan convenience calls that allocate their outputs (strix::vulkan::gather(ctx, input,
// indices, desc) and the like) against the CPU's allocating calls: the same element type, shape
// and bytes for every element type and index type, and the same error, code and message, when a
// call breaks a rule or an index is out of range. The operators themselves are tested against the
// CPU in vulkan_test.cpp; these tests are about what the allocating calls add: the output's shape,
// what they check before allocating, and the outputs they return.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "strix/vulkan.hpp"

namespace {

namespace vk = strix::vulkan;
using strix::any_cview;
using strix::dtype;
using strix::host_tensor;
using strix::shape;

using rng_t = std::mt19937_64;

/// A tensor of `type` and `sizes` holding random bytes (NaN payloads and subnormals included).
host_tensor random_tensor(rng_t& g, dtype type, const shape& sizes) {
    host_tensor t(type, sizes);
    for (std::size_t k = 0; k < t.bytes(); ++k) t.data()[k] = static_cast<std::byte>(g());
    return t;
}

/// Indices of `type` and `sizes`, each in [lo, hi] (lo raised to 0 for the unsigned types).
host_tensor random_indices(rng_t& g, dtype type, const shape& sizes, std::int64_t lo, std::int64_t hi) {
    const bool is_unsigned = type == dtype::uint32 || type == dtype::uint64;
    std::uniform_int_distribution<std::int64_t> pick(is_unsigned && lo < 0 ? 0 : lo, hi);
    host_tensor t(type, sizes);
    for (std::int64_t k = 0; k < t.count(); ++k) {
        const std::int64_t v = pick(g);
        switch (type) {
        case dtype::int32: t.as<std::int32_t>()[k] = static_cast<std::int32_t>(v); break;
        case dtype::int64: t.as<std::int64_t>()[k] = v; break;
        case dtype::uint32: t.as<std::uint32_t>()[k] = static_cast<std::uint32_t>(v); break;
        default: t.as<std::uint64_t>()[k] = static_cast<std::uint64_t>(v); break;
        }
    }
    return t;
}

/// The device's result is the CPU's: element type, shape and every byte.
void same_tensor(const host_tensor& cpu, const host_tensor& dev) {
    REQUIRE(dev.type() == cpu.type());
    REQUIRE(dev.sizes() == cpu.sizes());
    if (cpu.bytes() > 0) CHECK(std::memcmp(dev.data(), cpu.data(), cpu.bytes()) == 0);
}

void same_tensors(const std::vector<host_tensor>& cpu, const std::vector<host_tensor>& dev) {
    REQUIRE(dev.size() == cpu.size());
    for (std::size_t k = 0; k < cpu.size(); ++k) same_tensor(cpu[k], dev[k]);
}

/// Both calls throw strix::error, with one code and one message.
void same_error(const std::function<void()>& cpu, const std::function<void()>& dev) {
    std::string want, got;
    auto want_code = strix::error_code::invalid_argument, got_code = want_code;
    try {
        cpu();
        FAIL("the CPU accepted the call");
    } catch (const strix::error& e) {
        want = e.what();
        want_code = e.code();
    }
    try {
        dev();
        FAIL("the device accepted the call; the CPU said: " << want);
    } catch (const strix::error& e) {
        got = e.what();
        got_code = e.code();
    }
    CHECK(got == want);
    CHECK(got_code == want_code);
}

} // namespace

TEST_CASE("vulkan: allocating calls return the CPU's outputs for every element and index type", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xa110c8ull);
    for (const dtype t : strix::all_dtypes) {
        const dtype it = strix::index_dtypes[static_cast<int>(t) % 4];
        CAPTURE(strix::name(t), strix::name(it));
        const host_tensor x = random_tensor(g, t, {3, 4, 5});
        const any_cview xv = x.view();

        {
            INFO("gather, natural and DirectML forms");
            const host_tensor i = random_indices(g, it, {2, 3}, -4, 3);
            const strix::gather_desc natural{1};
            same_tensor(strix::gather(xv, i.view(), natural), vk::gather(ctx, xv, i.view(), natural));
            const host_tensor k = random_indices(g, it, {1, 1, 6}, -5, 4);
            const strix::gather_desc directml{-1, 1};
            same_tensor(strix::gather(xv, k.view(), directml), vk::gather(ctx, xv, k.view(), directml));
            const host_tensor empty = random_indices(g, it, {0}, 0, 0); // an empty output
            same_tensor(strix::gather(xv, empty.view()), vk::gather(ctx, xv, empty.view()));
        }
        {
            INFO("gather-elements");
            const host_tensor i = random_indices(g, it, {3, 2, 5}, -4, 3);
            const strix::gather_elements_desc d{-2};
            same_tensor(strix::gather_elements(xv, i.view(), d), vk::gather_elements(ctx, xv, i.view(), d));
        }
        {
            INFO("gather-nd, with and without batch dimensions");
            const host_tensor i = random_indices(g, it, {2, 2}, 0, 2);
            same_tensor(strix::gather_nd(xv, i.view()), vk::gather_nd(ctx, xv, i.view()));
            const host_tensor b = random_indices(g, it, {3, 2, 1}, -4, 3);
            const strix::gather_nd_desc batched{1};
            same_tensor(strix::gather_nd(xv, b.view(), batched), vk::gather_nd(ctx, xv, b.view(), batched));
        }
        {
            INFO("join of one to three inputs");
            const host_tensor y = random_tensor(g, t, {3, 2, 5}), z = random_tensor(g, t, {3, 0, 5});
            const any_cview three[] = {xv, y.view(), z.view()};
            for (std::size_t n = 1; n <= 3; ++n) {
                const std::span<const any_cview> ins(three, n);
                const strix::join_desc d{-2};
                same_tensor(strix::join(ins, d), vk::join(ctx, ins, d));
            }
        }
        {
            INFO("split, zero sizes included");
            const std::vector<std::int64_t> sizes{1, 0, 3};
            const strix::split_desc d{1};
            same_tensors(strix::split(xv, sizes, d), vk::split(ctx, xv, sizes, d));
        }
        {
            INFO("pad in every mode, with crops");
            for (const auto mode : {strix::pad_mode::constant, strix::pad_mode::edge, strix::pad_mode::reflect, strix::pad_mode::symmetric,
                                    strix::pad_mode::wrap}) {
                const strix::pad_desc d{mode, {1, -1, 2}, {0, 3, -2}, t == dtype::boolean ? 1 : 7}; // (a bool fill is 0 or 1)
                same_tensor(strix::pad(xv, d), vk::pad(ctx, xv, d));
            }
        }
        {
            INFO("scatter");
            const host_tensor i = random_indices(g, it, {3, 2, 5}, -4, 3);
            const host_tensor u = random_tensor(g, t, {3, 2, 5});
            const strix::scatter_desc d{1};
            same_tensor(strix::scatter(xv, i.view(), u.view(), d), vk::scatter(ctx, xv, i.view(), u.view(), d));
        }
        {
            INFO("scatter-nd");
            const host_tensor i = random_indices(g, it, {2, 2}, 0, 2);
            const host_tensor u = random_tensor(g, t, {2, 5});
            same_tensor(strix::scatter_nd(xv, i.view(), u.view()), vk::scatter_nd(ctx, xv, i.view(), u.view()));
        }
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: allocating scatters combine duplicates as the CPU's do", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xd0b1ull);
    // integer add is exact in any order; float add is bit-identical when deterministic
    const host_tensor x = random_indices(g, dtype::int32, {4, 3}, -100, 100);
    const host_tensor i = random_indices(g, dtype::int64, {6, 3}, -4, 3);
    const host_tensor u = random_indices(g, dtype::int32, {6, 3}, -100, 100);
    const strix::scatter_desc add{0, strix::index_policy::error, strix::scatter_reduction::add};
    same_tensor(strix::scatter(x.view(), i.view(), u.view(), add), vk::scatter(ctx, x.view(), i.view(), u.view(), add));

    host_tensor xf(dtype::float32, {4, 3}), uf(dtype::float32, {6, 3});
    for (std::int64_t k = 0; k < xf.count(); ++k) xf.as<float>()[k] = static_cast<float>(k) / 3.0f;
    for (std::int64_t k = 0; k < uf.count(); ++k) uf.as<float>()[k] = 1.0f / static_cast<float>(k + 7);
    const host_tensor tuples = random_indices(g, dtype::uint32, {6, 1}, 0, 3);
    strix::scatter_nd_desc d{strix::index_policy::error, strix::scatter_reduction::add, true};
    same_tensor(strix::scatter_nd(xf.view(), tuples.view(), uf.view(), d), vk::scatter_nd(ctx, xf.view(), tuples.view(), uf.view(), d));
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: allocating calls refuse what the CPU's refuse, with the CPU's message", "[vulkan]") {
    vk::context ctx;
    rng_t g(0xe770ull);
    const auto f32 = dtype::float32, i64 = dtype::int64;
    const host_tensor x = random_tensor(g, f32, {3, 4});
    const any_cview xv = x.view();
    const host_tensor i2 = random_indices(g, i64, {2}, 0, 2);
    const host_tensor f2 = random_tensor(g, f32, {2});

    SECTION("gather: an axis out of range, float indices, an index out of range") {
        same_error([&] { (void)strix::gather(xv, i2.view(), {2}); }, [&] { (void)vk::gather(ctx, xv, i2.view(), {2}); });
        same_error([&] { (void)strix::gather(xv, f2.view()); }, [&] { (void)vk::gather(ctx, xv, f2.view()); });
        const host_tensor far = random_indices(g, i64, {2}, 3, 3);
        same_error([&] { (void)strix::gather(xv, far.view()); }, [&] { (void)vk::gather(ctx, xv, far.view()); });
    }
    SECTION("gather-elements: indices of another rank") {
        same_error([&] { (void)strix::gather_elements(xv, i2.view()); }, [&] { (void)vk::gather_elements(ctx, xv, i2.view()); });
    }
    SECTION("gather-nd: a tuple longer than the input's rank, batch dimensions named") {
        const host_tensor t = random_indices(g, i64, {3, 3}, 0, 1);
        const strix::gather_nd_desc d{0};
        same_error([&] { (void)strix::gather_nd(xv, t.view(), d); }, [&] { (void)vk::gather_nd(ctx, xv, t.view(), d); });
    }
    SECTION("join: no inputs, and inputs that differ off the axis") {
        same_error([&] { (void)strix::join({}); }, [&] { (void)vk::join(ctx, std::span<const any_cview>{}); });
        const host_tensor y = random_tensor(g, f32, {3, 5});
        const any_cview two[] = {xv, y.view()};
        same_error([&] { (void)strix::join(two, {0}); }, [&] { (void)vk::join(ctx, two, {0}); });
    }
    SECTION("split: sizes that do not add up") {
        const std::vector<std::int64_t> sizes{1, 1};
        same_error([&] { (void)strix::split(xv, sizes, {1}); }, [&] { (void)vk::split(ctx, xv, sizes, {1}); });
    }
    SECTION("pad: one pad too few, and a constant that does not fit the element type") {
        const strix::pad_desc few{strix::pad_mode::constant, {1}, {1}, 0};
        same_error([&] { (void)strix::pad(xv, few); }, [&] { (void)vk::pad(ctx, xv, few); });
        const host_tensor bytes = random_tensor(g, dtype::uint8, {3, 4});
        const strix::pad_desc wide{strix::pad_mode::constant, {1, 1}, {1, 1}, 300};
        same_error([&] { (void)strix::pad(bytes.view(), wide); }, [&] { (void)vk::pad(ctx, bytes.view(), wide); });
    }
    SECTION("scatter: updates of another shape than the indices, an index out of range") {
        const host_tensor i = random_indices(g, i64, {2, 4}, 0, 2);
        const host_tensor u = random_tensor(g, f32, {2, 3});
        same_error([&] { (void)strix::scatter(xv, i.view(), u.view()); }, [&] { (void)vk::scatter(ctx, xv, i.view(), u.view()); });
        const host_tensor far = random_indices(g, i64, {2, 4}, -9, -9);
        const host_tensor u4 = random_tensor(g, f32, {2, 4});
        same_error([&] { (void)strix::scatter(xv, far.view(), u4.view()); }, [&] { (void)vk::scatter(ctx, xv, far.view(), u4.view()); });
    }
    SECTION("scatter-nd: updates of the wrong shape") {
        const host_tensor t = random_indices(g, i64, {2, 1}, 0, 2);
        const host_tensor u = random_tensor(g, f32, {2, 3});
        same_error([&] { (void)strix::scatter_nd(xv, t.view(), u.view()); }, [&] { (void)vk::scatter_nd(ctx, xv, t.view(), u.view()); });
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: typed calls run on the device what the CPU's typed calls run", "[vulkan]") {
    vk::context ctx;
    rng_t g(0x7e9dull);
    using strix::extents;
    using strix::tensor_view;
    const host_tensor x = random_tensor(g, dtype::float32, {3, 4});
    const tensor_view<const float, extents<3, 4>> in(x.as<float>());
    const host_tensor i2 = random_indices(g, dtype::int64, {2}, 0, 2);
    const tensor_view<const std::int64_t, extents<2>> idx2(i2.as<std::int64_t>());
    // one CPU output and one device output per case, compared byte for byte
    auto both = [&](dtype type, const shape& s, auto&& run) {
        host_tensor cpu(type, s), dev(type, s);
        run(cpu, dev);
        same_tensor(cpu, dev);
    };
    both(dtype::float32, {2, 4}, [&](host_tensor& c, host_tensor& d) {
        strix::gather<strix::gather_desc{0}>(in, idx2, tensor_view<float, extents<2, 4>>(c.as<float>()));
        vk::gather<strix::gather_desc{0}>(ctx, in, idx2, tensor_view<float, extents<2, 4>>(d.as<float>()));
    });
    const host_tensor i34 = random_indices(g, dtype::int32, {3, 4}, 0, 3);
    const tensor_view<const std::int32_t, extents<3, 4>> idx34(i34.as<std::int32_t>());
    both(dtype::float32, {3, 4}, [&](host_tensor& c, host_tensor& d) {
        strix::gather_elements<strix::gather_elements_desc{1}>(in, idx34, tensor_view<float, extents<3, 4>>(c.as<float>()));
        vk::gather_elements<strix::gather_elements_desc{1}>(ctx, in, idx34, tensor_view<float, extents<3, 4>>(d.as<float>()));
    });
    const host_tensor t = random_indices(g, dtype::int64, {5, 1}, 0, 2);
    // a dynamic count of tuples (their length static): the rest is checked at run time, as on the CPU
    using tuple_extents = extents<strix::dynamic_extent, 1>;
    const tensor_view<const std::int64_t, tuple_extents> tuples(t.as<std::int64_t>(), tuple_extents(5));
    both(dtype::float32, {5, 4}, [&](host_tensor& c, host_tensor& d) {
        using out_t = tensor_view<float, strix::dextents<2>>;
        strix::gather_nd<strix::gather_nd_desc{}>(in, tuples, out_t(c.as<float>(), strix::dextents<2>(5, 4)));
        vk::gather_nd<strix::gather_nd_desc{}>(ctx, in, tuples, out_t(d.as<float>(), strix::dextents<2>(5, 4)));
    });
    both(dtype::float32, {6, 4}, [&](host_tensor& c, host_tensor& d) {
        strix::join<strix::join_desc{0}>(tensor_view<float, extents<6, 4>>(c.as<float>()), in, in);
        vk::join<strix::join_desc{0}>(ctx, tensor_view<float, extents<6, 4>>(d.as<float>()), in, in);
    });
    both(dtype::float32, {3, 4}, [&](host_tensor& c, host_tensor& d) { // split into [3,1] ++ [3,3], laid out one after the other
        strix::split<strix::split_desc{1}>(in, tensor_view<float, extents<3, 1>>(c.as<float>()), tensor_view<float, extents<3, 3>>(c.as<float>() + 3));
        vk::split<strix::split_desc{1}>(ctx, in, tensor_view<float, extents<3, 1>>(d.as<float>()), tensor_view<float, extents<3, 3>>(d.as<float>() + 3));
    });
    constexpr strix::pad_desc reflect{strix::pad_mode::reflect, {1, 2}, {2, 1}};
    both(dtype::float32, {6, 7}, [&](host_tensor& c, host_tensor& d) {
        strix::pad<reflect>(in, tensor_view<float, extents<6, 7>>(c.as<float>()));
        vk::pad<reflect>(ctx, in, tensor_view<float, extents<6, 7>>(d.as<float>()));
    });
    const host_tensor u = random_tensor(g, dtype::float32, {3, 4});
    const tensor_view<const float, extents<3, 4>> upd(u.as<float>());
    constexpr strix::scatter_desc add{1, strix::index_policy::error, strix::scatter_reduction::add};
    both(dtype::float32, {3, 4}, [&](host_tensor& c, host_tensor& d) {
        strix::scatter<add>(in, idx34, upd, tensor_view<float, extents<3, 4>>(c.as<float>()));
        vk::scatter<add>(ctx, in, idx34, upd, tensor_view<float, extents<3, 4>>(d.as<float>()));
    });
    const host_tensor u54 = random_tensor(g, dtype::float32, {5, 4});
    const tensor_view<const float, extents<5, 4>> upd54(u54.as<float>());
    both(dtype::float32, {3, 4}, [&](host_tensor& c, host_tensor& d) {
        strix::scatter_nd<strix::scatter_nd_desc{}>(in, tuples, upd54, tensor_view<float, extents<3, 4>>(c.as<float>()));
        vk::scatter_nd<strix::scatter_nd_desc{}>(ctx, in, tuples, upd54, tensor_view<float, extents<3, 4>>(d.as<float>()));
    });
    // a dynamic shape mistake: the CPU's error, code and message
    host_tensor wrong(dtype::float32, {4, 4});
    const tensor_view<float, strix::dextents<2>> wrong_out(wrong.as<float>(), strix::dextents<2>(4, 4));
    same_error([&] { strix::gather<strix::gather_desc{0}>(in, idx2, wrong_out); }, [&] { vk::gather<strix::gather_desc{0}>(ctx, in, idx2, wrong_out); });
    CHECK(ctx.validation_messages() == 0);
}

namespace {

/// Writes k * 7 + 1 into element k of a uint32 tensor's mapped memory, and returns those values.
std::vector<std::uint32_t> fill_mapped(const vk::device_tensor& t) {
    auto* p = static_cast<std::uint32_t*>(t.host_view().data());
    std::vector<std::uint32_t> v(static_cast<std::size_t>(t.sizes().count()));
    for (std::size_t k = 0; k < v.size(); ++k) p[k] = v[k] = static_cast<std::uint32_t>(k * 7 + 1);
    return v;
}

/// The first element at which a uint32 tensor's mapped memory differs from `want`, -1 where
/// none does (a short message for half a million elements).
std::int64_t first_difference(const vk::device_tensor& t, const std::vector<std::uint32_t>& want) {
    const auto* p = static_cast<const std::uint32_t*>(t.host_view().data());
    const auto at = std::mismatch(want.begin(), want.end(), p).first;
    return at == want.end() ? -1 : at - want.begin();
}

} // namespace

TEST_CASE("vulkan: a download into the tensor's own memory reads every element before it writes one", "[vulkan]") {
    vk::context ctx;
    // 2 MiB: the host copy takes its streamed path, on several threads where there are cores
    constexpr std::int64_t n = std::int64_t{1} << 19;
    const vk::device_tensor t(ctx, dtype::uint32, {n}, vk::memory::upload);
    auto* at = static_cast<std::uint32_t*>(t.host_view().data());
    SECTION("the same memory: nothing changes") {
        const auto old = fill_mapped(t);
        vk::download(ctx, t, t.host_view());
        CHECK(first_difference(t, old) == -1);
    }
    SECTION("reversed in place") {
        const auto old = fill_mapped(t);
        vk::download(ctx, t, strix::any_view(at + n - 1, dtype::uint32, {n}, {-1}));
        auto want = old;
        std::reverse(want.begin(), want.end());
        CHECK(first_difference(t, want) == -1);
    }
    SECTION("transposed in place") {
        const vk::device_tensor sq(ctx, dtype::uint32, {512, 512}, vk::memory::upload);
        const auto old = fill_mapped(sq);
        vk::download(ctx, sq, strix::any_view(sq.host_view().data(), dtype::uint32, {512, 512}, {1, 512}));
        std::vector<std::uint32_t> want(old.size());
        for (std::size_t r = 0; r < 512; ++r)
            for (std::size_t c = 0; c < 512; ++c) want[c * 512 + r] = old[r * 512 + c];
        CHECK(first_difference(sq, want) == -1);
    }
    SECTION("shifted by one element, up and down, straight from the mapping and through staging") {
        const vk::device_tensor wide(ctx, dtype::uint32, {n + 1}, vk::memory::upload);
        auto* w = static_cast<std::uint32_t*>(wide.host_view().data());
        for (const bool staged : {false, true}) {
            INFO((staged ? "staged" : "mapped"));
            const vk::detail::transfer_options opt{.limit = 1 << 16, .staged = staged, .import = false};
            auto old = fill_mapped(wide);
            vk::detail::download_from(ctx, wide.storage(), 0, strix::any_view(w + 1, dtype::uint32, {n}), opt);
            auto want = old;
            std::copy(old.begin(), old.end() - 1, want.begin() + 1);
            CHECK(first_difference(wide, want) == -1);
            old = fill_mapped(wide);
            vk::detail::download_from(ctx, wide.storage(), 4, strix::any_view(w, dtype::uint32, {n}), opt);
            want = old;
            std::copy(old.begin() + 1, old.end(), want.begin());
            CHECK(first_difference(wide, want) == -1);
        }
    }
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan: an upload from the destination's own memory reads every element before it writes one", "[vulkan]") {
    vk::context ctx;
    constexpr std::int64_t n = std::int64_t{1} << 19;
    const vk::device_tensor wide(ctx, dtype::uint32, {n + 1}, vk::memory::upload);
    auto* w = static_cast<std::uint32_t*>(wide.host_view().data());
    for (const bool staged : {false, true}) {
        INFO((staged ? "staged" : "mapped"));
        const vk::detail::transfer_options opt{.limit = 1 << 16, .staged = staged, .import = false};
        auto old = fill_mapped(wide);
        vk::detail::upload_into(ctx, wide.storage(), 4, strix::any_cview(w, dtype::uint32, {n}), opt);
        auto want = old;
        std::copy(old.begin(), old.end() - 1, want.begin() + 1);
        CHECK(first_difference(wide, want) == -1);
        old = fill_mapped(wide);
        vk::detail::upload_into(ctx, wide.storage(), 0, strix::any_cview(w + 1, dtype::uint32, {n}), opt);
        want = old;
        std::copy(old.begin() + 1, old.end(), want.begin());
        CHECK(first_difference(wide, want) == -1);
        old = fill_mapped(wide);
        vk::detail::upload_into(ctx, wide.storage(), 0, strix::any_cview(w + n, dtype::uint32, {n + 1}, {-1}), opt);
        want = old;
        std::reverse(want.begin(), want.end());
        CHECK(first_difference(wide, want) == -1);
        old = fill_mapped(wide);
        vk::detail::upload_into(ctx, wide.storage(), 0, wide.host_view(), opt);
        CHECK(first_difference(wide, old) == -1);
    }
    CHECK(ctx.validation_messages() == 0);
}
