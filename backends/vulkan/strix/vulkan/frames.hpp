#pragma once
/// Frames: what one stream records and runs with, which its context keeps for the next stream.
/// Defined in impl/frames.ipp.

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <vector>

#include <volk.h>

#include "strix/vulkan/memory.hpp"
#include "strix/vulkan/pipelines.hpp"

namespace strix::vulkan {

namespace detail {
/// A steady clock's reading in nanoseconds.
std::int64_t steady_ns();
} // namespace detail

/// A buffer bound to one binding of the baseline path's descriptor set: a storage buffer's
/// range, or (the plan and flag bindings) the texel view.
struct bound_buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0, range = 0;
    VkBufferView view = VK_NULL_HANDLE;
    auto operator<=>(const bound_buffer&) const = default;
};

/// What one stream records and runs with, made once and kept by its context for the next
/// stream: a command pool and buffer, a fence, two timestamp slots, the out-of-range flag word,
/// upload chunks for plan metadata and device scratch buffers, and the pipelines this frame has
/// looked up (so a dispatch finds its pipeline without taking the context's lock). Nothing on a
/// stream's path asks the driver for memory or objects once its frame has served a stream of
/// the same shape.
struct frame {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    buffer flag;
    std::vector<buffer> meta;      ///< upload chunks for metadata, filled in order
    std::vector<buffer> guards;    ///< upload chunks of guard words, one per operator whose indices are checked
    std::vector<buffer> scratch;   ///< device scratch, each used whole by one request per stream
    std::vector<bool> scratch_used;
    detail::pipeline_table pipelines;
    buffer staging;                ///< host staging of upload and download (made by the first, then kept)
    /// The baseline path's descriptor sets: pools filled in order, and the set made for each
    /// combination of bound buffers (dispatches that bind the same buffers share one)
    std::vector<VkDescriptorPool> pools;
    std::size_t pool_at = 0;
    std::map<std::array<bound_buffer, 6>, VkDescriptorSet> sets;
};

} // namespace strix::vulkan
