// What the Vulkan backend guarantees when the application gets something wrong: a tensor
// destroyed while the device still uses it, a view of another context or of a destroyed
// tensor, a view forged past its buffer, an operator refused half-way through recording, an
// index out of range under the error policy, a shape whose bytes wrap. Each case was a
// reproducer of a hostile review: it read freed or foreign memory, wrote what it should not
// have, or blamed the wrong operator, before the fixes these tests pin down.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <latch>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/system.hpp"
#include "support/vulkan.hpp"

using namespace strix_test;

namespace {

/// A float32 host tensor of `sizes`, each element `v`.
host_tensor filled(const shape& sizes, float v) {
    host_tensor t(dtype::float32, sizes);
    for (std::int64_t i = 0; i < sizes.count(); ++i) reinterpret_cast<float*>(t.data())[i] = v;
    return t;
}

/// A host tensor of float32 0, 1, 2, ... of `sizes`.
host_tensor iota(const shape& sizes) {
    host_tensor t(dtype::float32, sizes);
    for (std::int64_t i = 0; i < sizes.count(); ++i) reinterpret_cast<float*>(t.data())[i] = static_cast<float>(i);
    return t;
}

host_tensor int64s(std::initializer_list<std::int64_t> v) {
    host_tensor t(dtype::int64, {static_cast<std::int64_t>(v.size())});
    std::memcpy(t.data(), v.begin(), v.size() * 8);
    return t;
}

/// The message of what `f` throws as strix::error ("" when it throws nothing).
template <class F>
std::string thrown(F&& f) {
    try {
        f();
    } catch (const strix::error& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

} // namespace

TEST_CASE("vulkan misuse: a tensor destroyed under a running stream keeps its memory until the stream is done", "[vulkan][misuse]") {
    vk::context ctx;
    const std::int64_t n = std::int64_t{1} << 20; // 4 MiB of float32
    const host_tensor a = iota({n});
    std::optional<vk::device_tensor> da(vk::upload(ctx, a.view()));
    const vk::device_tensor out(ctx, dtype::float32, {n});
    vk::stream s(ctx);
    for (int k = 0; k < 16; ++k) s.copy(da->view(), out.view()); // long enough to still run after submit
    s.submit();
    da.reset(); // destroyed at once: its memory must not go to the next tensor while the copies run
    CHECK(ctx.buffers().deferred() == 1);
    const host_tensor minus7 = filled({n}, -7.0f);
    const vk::device_tensor b = vk::upload(ctx, minus7.view()); // would take the freed memory
    s.wait();
    CHECK(ctx.buffers().deferred() == 0); // freed once the stream was waited for
    CHECK(same_bytes(read_back(ctx, out), a));
    // a replay finds the tensor gone and says so, submitting nothing
    const std::string why = thrown([&] { s.replay(); });
    CHECK(contains(why, "strix::vulkan::stream::replay: a device tensor the stream uses"));
    CHECK(contains(why, "was destroyed after it was recorded"));
    CHECK_NOTHROW(s.wait()); // nothing pending: returns
}

TEST_CASE("vulkan misuse: a stream recorded on a tensor destroyed before submit refuses to run", "[vulkan][misuse]") {
    vk::context ctx;
    const host_tensor x = iota({64});
    std::optional<vk::device_tensor> dx(vk::upload(ctx, x.view()));
    const vk::device_tensor out(ctx, dtype::float32, {64});
    vk::stream s(ctx);
    s.copy(dx->view(), out.view());
    dx.reset();
    CHECK(contains(thrown([&] { s.submit(); }), "strix::vulkan::stream::submit: a device tensor the stream uses"));
    CHECK(ctx.buffers().deferred() == 0);
}

TEST_CASE("vulkan misuse: a command_recorder keeps the tensors it recorded until it is destroyed", "[vulkan][misuse]") {
    vk::context ctx;
    const host_tensor x = iota({256});
    std::optional<vk::device_tensor> dx(vk::upload(ctx, x.view()));
    const vk::device_tensor out(ctx, dtype::float32, {256});
    const auto& api = ctx.vk();
    VkCommandPool pool = VK_NULL_HANDLE;
    auto pci = vk::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pci.queueFamilyIndex = ctx.queue_family();
    REQUIRE(api.vkCreateCommandPool(ctx.handle(), &pci, nullptr, &pool) == VK_SUCCESS);
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    auto ai = vk::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    REQUIRE(api.vkAllocateCommandBuffers(ctx.handle(), &ai, &cmd) == VK_SUCCESS);
    auto bi = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    REQUIRE(api.vkBeginCommandBuffer(cmd, &bi) == VK_SUCCESS);
    {
        vk::command_recorder r(ctx, cmd);
        r.copy(dx->view(), out.view());
        r.finish();
        REQUIRE(api.vkEndCommandBuffer(cmd) == VK_SUCCESS);
        dx.reset(); // the application may still submit the command buffer: the memory stays
        CHECK(ctx.buffers().deferred() == 1);
        VkFence fence = VK_NULL_HANDLE;
        auto fci = vk::make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        REQUIRE(api.vkCreateFence(ctx.handle(), &fci, nullptr, &fence) == VK_SUCCESS);
        auto si = vk::make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        REQUIRE(api.vkQueueSubmit(ctx.queue(), 1, &si, fence) == VK_SUCCESS);
        REQUIRE(api.vkWaitForFences(ctx.handle(), 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
        api.vkDestroyFence(ctx.handle(), fence, nullptr);
        CHECK(same_bytes(read_back(ctx, out), x));
    }
    CHECK(ctx.buffers().deferred() == 0); // freed with the recorder
    api.vkDestroyCommandPool(ctx.handle(), pool, nullptr);
}

TEST_CASE("vulkan misuse: a tensor may outlive its context", "[vulkan][misuse]") {
    std::optional<vk::device_tensor> t;
    {
        vk::context ctx;
        t.emplace(ctx, dtype::float32, shape{1024});
    }
    t.reset(); // the context freed its memory; nothing is freed twice (ASan, the validation layer)
    SUCCEED();
}

TEST_CASE("vulkan misuse: views of another context, of a destroyed tensor or of no context are refused", "[vulkan][misuse]") {
    vk::context a, b;
    const host_tensor x = iota({16});
    const host_tensor idx = int64s({3, 1});
    const vk::device_tensor xa = vk::upload(a, x.view()), ia = vk::upload(a, idx.view());
    const vk::device_tensor xb = vk::upload(b, x.view()), ib = vk::upload(b, idx.view()), ob(b, dtype::float32, {2});
    vk::stream s(b, {.stats = true});
    const std::string foreign = thrown([&] { s.gather(xa.view(), ib.view(), ob.view()); });
    CHECK(contains(foreign, "strix::vulkan::gather: the input (a [16] float32 device view) belongs to another context"));
    std::optional<vk::device_tensor> gone(vk::upload(b, idx.view()));
    const vk::device_view stale = gone->view();
    gone.reset();
    const std::string dead = thrown([&] { s.gather(xb.view(), stale, ob.view()); });
    CHECK(contains(dead, "strix::vulkan::gather: the indices (a [2] int64 device view) is of buffer #"));
    CHECK(contains(dead, "which was destroyed"));
    vk::device_view forged = xb.view();
    forged.origin = 0;
    CHECK(contains(thrown([&] { s.copy(forged, ob.view()); }), "strix::vulkan::copy: the input (a [16] float32 device view) was not made by a context"));
    vk::device_view other_buffer = xb.view();
    other_buffer.buffer = ib.storage().handle();
    CHECK(contains(thrown([&] { s.gather(other_buffer, ib.view(), ob.view()); }), "names another VkBuffer than its buffer #"));
    // nothing was recorded: the stream runs the one accepted operator
    s.gather(xb.view(), ib.view(), ob.view());
    s.run();
    const float want[] = {3, 1};
    CHECK(std::memcmp(read_back(b, ob).data(), want, 8) == 0);
    CHECK(s.stats().dispatches == 2); // its index check and its move
}

TEST_CASE("vulkan misuse: a view enlarged past its buffer is refused by every operator", "[vulkan][misuse]") {
    vk::context ctx;
    const host_tensor x = iota({16});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor idx = vk::upload(ctx, int64s({1023}).view()), out(ctx, dtype::float32, {1});
    vk::device_view big = dx.view();
    big.sizes = shape{1024}; // 4 KiB from a 64-byte buffer
    const std::string gather_why = thrown([&] {
        vk::stream s(ctx);
        s.gather(big, idx.view(), out.view());
    });
    CHECK(contains(gather_why, "strix::vulkan::gather: the input (a [1024] float32 device view) reaches device addresses ["));
    CHECK(contains(gather_why, "outside its buffer's ["));
    vk::device_view shifted = dx.view();
    shifted.address += 8; // the last two elements past the end
    vk::stream s(ctx);
    CHECK(contains(thrown([&] { s.copy(shifted, dx.view()); }), "strix::vulkan::copy: the input (a [16] float32 device view) reaches"));
    vk::device_view outside = out.view();
    outside.strides[0] = -1; // reaches 4 bytes below the buffer with a second element
    outside.sizes = shape{2};
    const vk::device_view two = vk::split_views(dx.view(), std::vector<std::int64_t>{2, 14})[0];
    CHECK(contains(thrown([&] { s.copy(two, outside); }), "strix::vulkan::copy: the output (a [2] float32 device view) reaches"));
    const vk::device_view parts[] = {dx.view(), big};
    const vk::device_tensor joined(ctx, dtype::float32, {1040});
    CHECK(contains(thrown([&] { s.join(parts, joined.view()); }), "strix::vulkan::join: the input 1 (a [1024] float32 device view)"));
    const vk::device_view pieces[] = {out.view(), big};
    CHECK(contains(thrown([&] { s.split(joined.view(), pieces); }), "strix::vulkan::split: the output 1 (a [1024] float32 device view)"));
    CHECK(contains(thrown([&] { (void)vk::stream::download_view(ctx, big); }),
                   "strix::vulkan::stream::download_view: the view (a [1024] float32 device view) reaches"));
    // a sub-view inside the buffer is fine
    const vk::device_view half = vk::split_views(dx.view(), std::vector<std::int64_t>{8, 8})[1];
    CHECK_NOTHROW(s.copy(half, vk::split_views(dx.view(), std::vector<std::int64_t>{8, 8})[0]));
    // wrapped views keep the range given to wrap
    const vk::device_view wrapped = vk::wrap(ctx, dx.storage().handle(), 16, 32, dtype::float32, {8});
    vk::device_view wider = wrapped;
    wider.sizes = shape{9};
    CHECK(contains(thrown([&] { s.copy(wider, joined.view()); }), "strix::vulkan::copy: the input (a [9] float32 device view) reaches"));
}

TEST_CASE("vulkan misuse: an operator refused half-way leaves the stream as it was", "[vulkan][misuse]") {
    // float64 add reductions need shaderFloat64: without it the scatter is refused after its
    // checks, when its input copy and index check would have been recorded
    vk::context_options opt;
    opt.float64 = false;
    vk::context ctx(opt);
    REQUIRE_FALSE(ctx.float64());
    host_tensor x(dtype::float64, {8});
    for (int i = 0; i < 8; ++i) reinterpret_cast<double*>(x.data())[i] = i;
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    const vk::device_tensor out(ctx, dtype::float64, {8});
    host_tensor sentinel(dtype::float64, {8});
    for (int i = 0; i < 8; ++i) reinterpret_cast<double*>(sentinel.data())[i] = -1;
    vk::detail::upload_into(ctx, out.storage(), 0, sentinel.view());
    const vk::device_tensor bad = vk::upload(ctx, int64s({99}).view());
    host_tensor one(dtype::float64, {1});
    reinterpret_cast<double*>(one.data())[0] = 5;
    const vk::device_tensor upd = vk::upload(ctx, one.view());
    vk::stream s(ctx, {.stats = true});
    const auto before = s.stats();
    const std::string why = thrown([&] { s.scatter(dx.view(), bad.view(), upd.view(), out.view(), {0, strix::index_policy::error, strix::scatter_reduction::add}); });
    CHECK(contains(why, "float64 add and mul reductions need shaderFloat64"));
    CHECK(s.stats().dispatches == before.dispatches);
    CHECK(s.stats().barriers == before.barriers);
    // a later gather with a bad index is blamed on the gather, the only operator recorded
    const host_tensor g = iota({4});
    const vk::device_tensor dg = vk::upload(ctx, g.view()), gout(ctx, dtype::float32, {1});
    s.gather(dg.view(), bad.view(), gout.view());
    const std::string err = thrown([&] { s.run(); });
    CHECK(err.rfind("strix::gather: ", 0) == 0);
    CHECK(contains(err, "99"));
    CHECK(same_bytes(read_back(ctx, out), sentinel)); // the refused scatter's copy never ran
}

TEST_CASE("vulkan misuse: an index out of range writes nothing, and the rest of the stream runs", "[vulkan][misuse]") {
    vk::context ctx;
    const host_tensor table = iota({8, 4});
    const vk::device_tensor dt = vk::upload(ctx, table.view());
    const host_tensor sentinel = filled({2, 4}, -1.0f);
    SECTION("gather") {
        vk::device_tensor idx = vk::upload(ctx, int64s({3, 99}).view());
        vk::device_tensor out(ctx, dtype::float32, {2, 4});
        vk::detail::upload_into(ctx, out.storage(), 0, sentinel.view());
        const vk::device_tensor padded(ctx, dtype::float32, {10, 4});
        vk::stream s(ctx);
        s.gather(dt.view(), idx.view(), out.view());
        s.pad(dt.view(), padded.view(), {strix::pad_mode::edge, {1, 0}, {1, 0}, 0.0}); // independent: runs
        const std::string err = thrown([&] { s.run(); });
        CHECK(err.rfind("strix::gather: ", 0) == 0);
        CHECK(contains(err, "99"));
        CHECK(same_bytes(read_back(ctx, out), sentinel));
        CHECK(same_bytes(read_back(ctx, padded), strix::pad(table.view(), {strix::pad_mode::edge, {1, 0}, {1, 0}, 0.0})));
        // indices mended in place: the replay gathers
        vk::detail::upload_into(ctx, idx.storage(), 0, int64s({3, 7}).view());
        s.replay();
        s.wait();
        const host_tensor mended = int64s({3, 7});
        CHECK(same_bytes(read_back(ctx, out), strix::gather(table.view(), mended.view())));
    }
    SECTION("scatter in place keeps its input") {
        const host_tensor x = iota({8});
        const vk::device_tensor dx = vk::upload(ctx, x.view());
        const vk::device_tensor idx = vk::upload(ctx, int64s({1, 99}).view());
        host_tensor upd(dtype::float32, {2});
        reinterpret_cast<float*>(upd.data())[0] = 50;
        reinterpret_cast<float*>(upd.data())[1] = 60;
        const vk::device_tensor du = vk::upload(ctx, upd.view());
        for (const auto reduction : {strix::scatter_reduction::none, strix::scatter_reduction::add}) {
            vk::stream s(ctx);
            s.scatter(dx.view(), idx.view(), du.view(), dx.view(), {0, strix::index_policy::error, reduction});
            CHECK(thrown([&] { s.run(); }).rfind("strix::scatter: ", 0) == 0);
            CHECK(same_bytes(read_back(ctx, dx), x)); // x[1] = 50 was lost before
        }
    }
    SECTION("scatter-nd, gather-nd and gather-elements, out of place and in place") {
        const host_tensor tuples = int64s({2, 8});
        host_tensor tuples2(dtype::int64, {2, 1});
        std::memcpy(tuples2.data(), tuples.data(), 16);
        const vk::device_tensor dtu = vk::upload(ctx, tuples2.view());
        host_tensor rows(dtype::float32, {2, 4});
        for (int i = 0; i < 8; ++i) reinterpret_cast<float*>(rows.data())[i] = 9.0f;
        const vk::device_tensor drows = vk::upload(ctx, rows.view());
        const vk::device_tensor o1(ctx, dtype::float32, {8, 4}), o2(ctx, dtype::float32, {2, 4}), o3(ctx, dtype::float32, {1, 4});
        const host_tensor big_sentinel = filled({8, 4}, -1.0f), small_sentinel = filled({1, 4}, -1.0f);
        vk::detail::upload_into(ctx, o1.storage(), 0, big_sentinel.view());
        vk::detail::upload_into(ctx, o2.storage(), 0, sentinel.view());
        vk::detail::upload_into(ctx, o3.storage(), 0, small_sentinel.view());
        host_tensor ge_idx(dtype::int64, {1, 4});
        const std::int64_t gev[] = {0, 1, 8, 2};
        std::memcpy(ge_idx.data(), gev, sizeof gev);
        const vk::device_tensor dge = vk::upload(ctx, ge_idx.view());
        vk::stream s(ctx);
        s.scatter_nd(dt.view(), dtu.view(), drows.view(), o1.view());
        s.gather_nd(dt.view(), dtu.view(), o2.view());
        s.gather_elements(dt.view(), dge.view(), o3.view());
        s.scatter_nd(dt.view(), dtu.view(), drows.view(), dt.view());
        CHECK(thrown([&] { s.run(); }).rfind("strix::scatter-nd: ", 0) == 0); // the first one recorded
        CHECK(same_bytes(read_back(ctx, o1), big_sentinel));
        CHECK(same_bytes(read_back(ctx, o2), sentinel));
        CHECK(same_bytes(read_back(ctx, o3), small_sentinel));
        CHECK(same_bytes(read_back(ctx, dt), table));
    }
}

TEST_CASE("vulkan misuse: a device tensor whose bytes would wrap is refused", "[vulkan][misuse]") {
    vk::context ctx;
    const std::string why = thrown([&] { vk::device_tensor t(ctx, dtype::float64, {std::int64_t{1} << 61}); });
    CHECK(contains(why, "strix::vulkan::device_tensor: a [2305843009213693952] float64 tensor needs"));
    CHECK(contains(why, "more than 64-bit sizes hold"));
}

TEST_CASE("vulkan misuse: threads destroy a tensor that their submitted streams still read", "[vulkan][misuse]") {
    vk::context ctx;
    const std::int64_t n = std::int64_t{1} << 18;
    const host_tensor x = iota({n});
    std::optional<vk::device_tensor> shared(vk::upload(ctx, x.view()));
    constexpr int threads = 4;
    std::vector<vk::device_tensor> outs;
    for (int k = 0; k < threads; ++k) outs.emplace_back(ctx, dtype::float32, shape{n});
    std::vector<std::optional<vk::stream>> streams(threads);
    for (int k = 0; k < threads; ++k) {
        streams[static_cast<std::size_t>(k)].emplace(ctx);
        for (int r = 0; r < 4; ++r) streams[static_cast<std::size_t>(k)]->copy(shared->view(), outs[static_cast<std::size_t>(k)].view());
    }
    std::latch submitted(threads), destroyed(1);
    std::vector<std::thread> pool;
    std::vector<int> ok(threads, 0);
    for (int k = 0; k < threads; ++k)
        pool.emplace_back([&, k] {
            auto& s = *streams[static_cast<std::size_t>(k)];
            s.submit();
            submitted.count_down();
            destroyed.wait();
            // meanwhile, tensors of this thread's own come and go (the registry under contention)
            for (int i = 0; i < 8; ++i) {
                const vk::device_tensor a(ctx, dtype::float32, {256}), b(ctx, dtype::float32, {256});
                vk::stream t(ctx);
                t.copy(a.view(), b.view());
                t.run();
            }
            s.wait();
            ok[static_cast<std::size_t>(k)] = 1;
        });
    submitted.wait();
    shared.reset(); // every stream reading it is in flight
    destroyed.count_down();
    for (auto& t : pool) t.join();
    for (int k = 0; k < threads; ++k) {
        CHECK(ok[static_cast<std::size_t>(k)] == 1);
        CHECK(same_bytes(read_back(ctx, outs[static_cast<std::size_t>(k)]), x));
    }
    CHECK(ctx.buffers().deferred() == 0);
}

TEST_CASE("vulkan misuse: index checks share barriers, and come after the last write of their indices", "[vulkan][misuse]") {
    vk::context ctx;
    const host_tensor table = iota({64, 16});
    const vk::device_tensor dt = vk::upload(ctx, table.view());
    SECTION("many small gathers: one barrier") {
        const host_tensor idx = int64s({5, 9, 63, 0});
        const vk::device_tensor di = vk::upload(ctx, idx.view());
        std::vector<vk::device_tensor> outs;
        for (int k = 0; k < 20; ++k) outs.emplace_back(ctx, dtype::float32, shape{4, 16});
        vk::stream s(ctx, {.stats = true});
        for (auto& o : outs) s.gather(dt.view(), di.view(), o.view());
        const auto& c = s.stats();
        CHECK(c.barriers == 1); // the first gather's check before its move; the others share that check
        CHECK(c.shared_checks == 19);
        CHECK(c.dispatches == 21);
        s.run();
        const host_tensor want = strix::gather(table.view(), idx.view());
        for (auto& o : outs) CHECK(same_bytes(read_back(ctx, o), want));
    }
    SECTION("gathers of different indices: their checks join the first segment") {
        std::vector<vk::device_tensor> idx, outs;
        for (int k = 0; k < 10; ++k) {
            idx.push_back(vk::upload(ctx, int64s({k, 63 - k, k == 7 ? 64 : 2 * k}).view()));
            outs.emplace_back(ctx, dtype::float32, shape{3, 16});
            vk::detail::upload_into(ctx, outs.back().storage(), 0, filled({3, 16}, -1.0f).view());
        }
        vk::stream s(ctx, {.stats = true});
        for (int k = 0; k < 10; ++k) s.gather(dt.view(), idx[static_cast<std::size_t>(k)].view(), outs[static_cast<std::size_t>(k)].view());
        CHECK(s.stats().barriers == 1);
        CHECK(s.stats().hoisted == 9);
        const std::string err = thrown([&] { s.run(); });
        CHECK(err.rfind("strix::gather: ", 0) == 0); // the eighth, whose index 64 is out of range
        CHECK(contains(err, "64"));
        for (int k = 0; k < 10; ++k) {
            if (k == 7) {
                CHECK(same_bytes(read_back(ctx, outs[7]), filled({3, 16}, -1.0f)));
                continue;
            }
            const host_tensor want_idx = int64s({k, 63 - k, 2 * k});
            CHECK(same_bytes(read_back(ctx, outs[static_cast<std::size_t>(k)]), strix::gather(table.view(), want_idx.view())));
        }
    }
    SECTION("gathers sharing one check write nothing when it fails") {
        const vk::device_tensor di = vk::upload(ctx, int64s({5, 64}).view());
        std::vector<vk::device_tensor> outs;
        for (int k = 0; k < 3; ++k) {
            outs.emplace_back(ctx, dtype::float32, shape{2, 16});
            vk::detail::upload_into(ctx, outs.back().storage(), 0, filled({2, 16}, -1.0f).view());
        }
        vk::stream s(ctx, {.stats = true});
        for (auto& o : outs) s.gather(dt.view(), di.view(), o.view());
        CHECK(s.stats().shared_checks == 2);
        CHECK(thrown([&] { s.run(); }).rfind("strix::gather: ", 0) == 0);
        for (auto& o : outs) CHECK(same_bytes(read_back(ctx, o), filled({2, 16}, -1.0f)));
    }
    SECTION("indices an earlier operator of the stream writes are checked after it wrote them") {
        for (const bool bad : {false, true}) {
            const host_tensor src = bad ? int64s({2, 99}) : int64s({2, 7});
            const vk::device_tensor dsrc = vk::upload(ctx, src.view());
            const vk::device_tensor di = vk::upload(ctx, int64s({0, 0}).view()); // valid until the copy
            const vk::device_tensor first(ctx, dtype::float32, {2, 16}), out(ctx, dtype::float32, {2, 16});
            const host_tensor sentinel = filled({2, 16}, -1.0f);
            vk::detail::upload_into(ctx, out.storage(), 0, sentinel.view());
            vk::stream s(ctx, {.stats = true});
            s.gather(dt.view(), di.view(), first.view()); // a segment behind a barrier exists
            s.copy(dsrc.view(), di.view());               // the indices change in the stream
            s.gather(dt.view(), di.view(), out.view());   // its check must see the copy's indices
            CHECK(s.stats().hoisted == 0);
            CHECK(s.stats().shared_checks == 0); // not the first gather's check: the copy wrote since
            const std::string err = thrown([&] { s.run(); });
            if (bad) {
                CHECK(err.rfind("strix::gather: ", 0) == 0);
                CHECK(contains(err, "99"));
                CHECK(same_bytes(read_back(ctx, out), sentinel));
            } else {
                CHECK(err.empty());
                CHECK(same_bytes(read_back(ctx, out), strix::gather(table.view(), src.view())));
            }
            CHECK(same_bytes(read_back(ctx, first), strix::gather(table.view(), int64s({0, 0}).view())));
        }
    }
}

TEST_CASE("vulkan misuse: the chunked index check finds a bad index in every lane of every index type", "[vulkan][misuse]") {
    vk::context ctx;
    const host_tensor x = iota({1, 5});
    const vk::device_tensor dx = vk::upload(ctx, x.view());
    for (const dtype it : {dtype::int32, dtype::int64, dtype::uint32, dtype::uint64}) {
        const bool is_signed = it == dtype::int32 || it == dtype::int64;
        for (int bad_at = -1; bad_at < 8; ++bad_at) {
            host_tensor idx(it, {1, 8}); // 32 or 64 bytes: whole 16-byte chunks
            for (int j = 0; j < 8; ++j) {
                const std::int64_t v = j == bad_at ? (is_signed && j % 2 ? -6 : 5) : (is_signed && j % 3 == 0 ? -1 - j % 5 : j % 5);
                strix_test::write_index(idx.view(), coords{0, j}, v);
            }
            const vk::device_tensor di = vk::upload(ctx, idx.view());
            const vk::device_tensor out = vk::upload(ctx, filled({1, 8}, -1.0f).view());
            vk::stream s(ctx);
            s.gather_elements(dx.view(), di.view(), out.view(), {1});
            std::string cpu_error;
            host_tensor want;
            try {
                want = strix::gather_elements(x.view(), idx.view(), {1});
            } catch (const strix::error& e) {
                cpu_error = e.what();
            }
            INFO(strix::name(it) << ", bad index at " << bad_at);
            CHECK(thrown([&] { s.run(); }) == cpu_error);
            if (bad_at >= 0) CHECK(same_bytes(read_back(ctx, out), filled({1, 8}, -1.0f)));
            else CHECK(same_bytes(read_back(ctx, out), want));
        }
    }
}
