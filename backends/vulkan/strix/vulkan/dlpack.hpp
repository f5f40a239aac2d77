#pragma once
/// DLPack exchange of Vulkan tensors. DLPack leaves a kDLVulkan tensor's `data` to the
/// producer; strix reads and writes it as the VkBuffer handle, with `byte_offset` the byte
/// position of the element at coordinates 0 in that buffer and `device_id` the device's index in
/// strix::vulkan::list_devices() (context::device().index). Producer and consumer must share the
/// VkDevice: in one program, a strix context that adopted the application's device, or the
/// application wrapping strix's buffers.
///
///   DLManagedTensor* out = strix::vulkan::to_dlpack(ctx, std::move(t)); // a device tensor of ctx's handed out
///   strix::vulkan::device_view v = strix::vulkan::from_dlpack(ctx, out->dl_tensor); // and back, no copy

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "strix/dlpack.hpp"
#include "strix/vulkan/device.hpp"

namespace strix::vulkan {

namespace detail {

// (templates, so that only the branch for the platform's handle type is compiled: a pointer on
// 64-bit platforms, a 64-bit integer on 32-bit ones)
template <class H = VkBuffer>
H buffer_of(void* data) {
    if constexpr (std::is_pointer_v<H>) return static_cast<H>(data);
    else return static_cast<H>(reinterpret_cast<std::uintptr_t>(data));
}
template <class H = VkBuffer>
void* data_of(H b) {
    if constexpr (std::is_pointer_v<H>) return static_cast<void*>(b);
    else return reinterpret_cast<void*>(static_cast<std::uintptr_t>(b));
}

} // namespace detail

/// A kDLVulkan tensor's elements as a device view over its VkBuffer, no copy (see wrap: the
/// buffer must be `ctx`'s device's, made for storage and device addresses, and must outlive
/// the view's use). Throws strix::error naming what does not fit: another device type or
/// device, no buffer, the element type, rank or sizes (as strix::dlpack::view), negative strides
/// reaching beyond 64-bit byte offsets, a byte offset that is not a multiple of the element size
/// or leaves negative strides reaching before the buffer's start, or a buffer too small for the
/// view.
inline device_view from_dlpack(const context& ctx, const DLTensor& t) {
    if (t.device.device_type != kDLVulkan)
        dlpack::detail::fail("the tensor lives on device type " + std::to_string(static_cast<int>(t.device.device_type)) +
                             ", not on a Vulkan device (kDLVulkan; host tensors through strix::from_dlpack)");
    if (t.device.device_id < 0 || static_cast<std::uint32_t>(t.device.device_id) != ctx.device().index)
        dlpack::detail::fail("the tensor lives on Vulkan device " + std::to_string(t.device.device_id) + ", the context runs on device " +
                             std::to_string(ctx.device().index) + " (" + ctx.device().name + ")");
    if (!t.data) dlpack::detail::fail("the Vulkan tensor has no buffer (data is the VkBuffer handle)");
    const auto l = dlpack::detail::layout_of(t);
    const auto es = static_cast<std::uint64_t>(size_of(l.type));
    if (t.byte_offset % es != 0)
        dlpack::detail::fail("byte_offset " + std::to_string(t.byte_offset) + " is not a multiple of the " + std::to_string(es) + "-byte " +
                             std::string(name(l.type)) + " elements");
    // wrap takes the view's lowest byte: below the element at coordinates 0 by the negative
    // strides' reach, which must fit in 64-bit byte offsets (check_view's rule) before the
    // subtraction below can mean anything; -2^63 has no magnitude at all
    std::int64_t reach = 0;
    if (l.sizes.checked_count() != 0)
        for (int i = 0; i < l.sizes.rank; ++i) {
            const std::int64_t st = l.strides[static_cast<std::size_t>(i)];
            std::int64_t bytes = 0;
            if (st >= 0) continue;
            if (st == std::numeric_limits<std::int64_t>::min() || !strix::detail::mul_fits(l.sizes[i] - 1, -st, bytes) ||
                !strix::detail::mul_fits(bytes, static_cast<std::int64_t>(es), bytes) || !strix::detail::add_fits(reach, bytes, reach))
                dlpack::detail::fail("the negative strides " + strix::detail::strides_text(l.sizes, l.strides) + " of the " + std::string(name(l.type)) +
                                     " tensor " + to_string(l.sizes) + " reach beyond 64-bit byte offsets before its element at coordinates 0");
        }
    const auto below = static_cast<std::uint64_t>(reach);
    if (below > t.byte_offset)
        dlpack::detail::fail("byte_offset " + std::to_string(t.byte_offset) + " leaves the negative strides " +
                             strix::detail::strides_text(l.sizes, l.strides) + " reaching " + std::to_string(below - t.byte_offset) +
                             " bytes before the buffer's start");
    const VkBuffer buffer = detail::buffer_of(t.data);
    VkMemoryRequirements req{};
    ctx.vk().vkGetBufferMemoryRequirements(ctx.handle(), buffer, &req);
    const std::uint64_t lowest = t.byte_offset - below;
    return wrap(ctx, buffer, lowest, lowest <= req.size ? req.size - lowest : 0, l.type, l.sizes, l.strides);
}

/// Hands a device tensor of `ctx`'s to a DLPack consumer: the returned tensor owns it (moved
/// out of `t`, no copy), C order, on kDLVulkan with the context's device index, `data` its
/// VkBuffer. The consumer calls its deleter once when done, before the context is destroyed.
inline DLManagedTensor* to_dlpack(const context& ctx, device_tensor&& t) {
    return dlpack::detail::hand_out<DLManagedTensor>(std::move(t), [](device_tensor& d) { return detail::data_of(d.storage().handle()); },
                                                     DLDevice{kDLVulkan, static_cast<std::int32_t>(ctx.device().index)});
}

} // namespace strix::vulkan
