// DLPack exchange of Vulkan tensors: a device tensor handed out (kDLVulkan, its VkBuffer) and
// viewed again in place, a strided and reversed kDLVulkan tensor over a strix buffer run through
// an operator, and the errors for what cannot be viewed. Runs on lavapipe under validation.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "strix/vulkan.hpp"
#include "strix/vulkan/dlpack.hpp"

namespace {

namespace vk = strix::vulkan;
using strix::dtype;
using strix::shape;

std::string error_of(const auto& f) {
    try {
        f();
    } catch (const strix::error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("vulkan dlpack: a device tensor handed out is viewed again in place and used", "[vulkan]") {
    vk::context ctx;
    std::vector<float> values(24);
    std::iota(values.begin(), values.end(), 1.0f);
    vk::device_tensor t = vk::upload(ctx, strix::any_cview(values.data(), dtype::float32, shape{4, 6}));
    const vk::device_view original = t.view();
    DLManagedTensor* m = vk::to_dlpack(ctx, std::move(t));
    REQUIRE(m);
    CHECK(m->dl_tensor.device.device_type == kDLVulkan);
    CHECK(m->dl_tensor.device.device_id == static_cast<std::int32_t>(ctx.device().index));
    CHECK(m->dl_tensor.ndim == 2);
    CHECK(m->dl_tensor.strides[0] == 6);
    CHECK(m->dl_tensor.byte_offset == 0);
    {
        strix::dlpack::managed owner(m); // the consumer
        const vk::device_view v = vk::from_dlpack(ctx, owner.get()->dl_tensor);
        CHECK(v.buffer == original.buffer); // the same buffer, no copy
        CHECK(v.address == original.address);
        CHECK(v.sizes == original.sizes);
        CHECK(v.strides == original.strides);
        // the consumer reads it: rows 1..2, the last axis reversed, by a copy on the device
        DLTensor part = owner.get()->dl_tensor;
        std::int64_t sizes[2] = {2, 6}, strides[2] = {6, -1};
        part.shape = sizes;
        part.strides = strides;
        part.byte_offset = (6 + 5) * 4; // the element at coordinates 0: row 1, column 5
        const vk::device_view rev = vk::from_dlpack(ctx, part);
        vk::device_tensor out(ctx, dtype::float32, shape{2, 6});
        vk::stream s(ctx);
        s.copy(rev, out.view());
        s.run();
        std::vector<float> got(12);
        vk::download(ctx, out, strix::any_view(got.data(), dtype::float32, shape{2, 6}));
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 6; ++c) CHECK(got[static_cast<std::size_t>(r * 6 + c)] == values[static_cast<std::size_t>((1 + r) * 6 + 5 - c)]);
    } // the deleter ran: the tensor is gone (ASan and the validation layer see a leak otherwise)
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan dlpack: what cannot be viewed is a clear error", "[vulkan]") {
    vk::context ctx;
    const vk::device_tensor t(ctx, dtype::float32, shape{8});
    std::int64_t sizes[1] = {8}, back[1] = {-1};
    DLTensor d{};
    d.data = vk::detail::data_of(t.storage().handle());
    d.device = DLDevice{kDLVulkan, static_cast<std::int32_t>(ctx.device().index)};
    d.ndim = 1;
    d.dtype = DLDataType{kDLFloat, 32, 1};
    d.shape = sizes;
    CHECK(vk::from_dlpack(ctx, d).address == t.view().address);
    DLTensor e = d;
    e.device = DLDevice{kDLCPU, 0};
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("not on a Vulkan device") != std::string::npos);
    e = d;
    e.device.device_id += 1;
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("the context runs on device") != std::string::npos);
    e = d;
    e.data = nullptr;
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("no buffer") != std::string::npos);
    e = d;
    e.byte_offset = 2;
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("not a multiple of the 4-byte float32") != std::string::npos);
    e = d;
    e.strides = back; // reversed, but the element at coordinates 0 at the buffer's start
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("28 bytes before the buffer's start") != std::string::npos);
    e.byte_offset = 7 * 4;
    CHECK(vk::from_dlpack(ctx, e).address == t.view().address + 7 * 4);
    e = d;
    sizes[0] = 9; // one element more than the buffer holds
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("bytes") != std::string::npos);
    sizes[0] = 8;
    e.dtype = DLDataType{kDLComplex, 64, 1};
    CHECK(error_of([&] { (void)vk::from_dlpack(ctx, e); }).find("no strix element type") != std::string::npos);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("vulkan dlpack: negative strides whose reach before the first element overflows are refused", "[vulkan]") {
    vk::context ctx;
    const vk::device_tensor t(ctx, dtype::float32, shape{8});
    std::int64_t sizes[1] = {2}, strides[1] = {-((std::int64_t{1} << 62) + 1)};
    DLTensor d{};
    d.data = vk::detail::data_of(t.storage().handle());
    d.device = DLDevice{kDLVulkan, static_cast<std::int32_t>(ctx.device().index)};
    d.ndim = 1;
    d.dtype = DLDataType{kDLFloat, 32, 1};
    d.shape = sizes;
    d.strides = strides;
    // (2^62 + 1) x 4 bytes wrapped to 4 in 64 bits, and the message spoke of 4 bytes
    std::string what = error_of([&] { (void)vk::from_dlpack(ctx, d); });
    CHECK(what.find("strix::dlpack: the negative strides [-4611686018427387905] of the float32 tensor [2] reach") != std::string::npos);
    CHECK(what.find("beyond 64-bit byte offsets") != std::string::npos);
    // -INT64_MIN has no value in 64 bits
    strides[0] = std::numeric_limits<std::int64_t>::min();
    what = error_of([&] { (void)vk::from_dlpack(ctx, d); });
    CHECK(what.find("strix::dlpack: the negative strides [-9223372036854775808] of the float32 tensor [2] reach") != std::string::npos);
    // several dimensions whose reaches fit alone but not summed
    std::int64_t sizes3[3] = {2, 2, 2}, strides3[3] = {-(std::int64_t{1} << 60), -(std::int64_t{1} << 60), -(std::int64_t{1} << 60)};
    d.ndim = 3;
    d.shape = sizes3;
    d.strides = strides3;
    what = error_of([&] { (void)vk::from_dlpack(ctx, d); });
    CHECK(what.find("strix::dlpack: the negative strides") != std::string::npos);
    // a negative stride whose reach fits is still measured exactly
    d.ndim = 1;
    d.shape = sizes;
    d.strides = strides;
    strides[0] = -3;
    d.byte_offset = 2 * 4;
    what = error_of([&] { (void)vk::from_dlpack(ctx, d); });
    CHECK(what.find("leaves the negative strides [-3] reaching 4 bytes before the buffer's start") != std::string::npos);
    d.byte_offset = 3 * 4; // element 1 at the buffer's start
    CHECK(vk::from_dlpack(ctx, d).address == t.view().address + 3 * 4);
    CHECK(ctx.validation_messages() == 0);
}
