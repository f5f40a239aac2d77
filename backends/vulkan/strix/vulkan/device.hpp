#pragma once
/// Device views and tensors: strided views of elements in device buffers (strix's own, or the
/// application's own VkBuffer through wrap), and C-order tensors that own a buffer.

#include <span>

#include "strix/ops/split.hpp"
#include "strix/vulkan/context.hpp"

namespace strix::vulkan {

/// A strided view of elements in a device buffer (non-owning; the buffer must outlive its use).
struct device_view {
    VkBuffer buffer = VK_NULL_HANDLE;  ///< the buffer holding the elements (for barriers)
    VkDeviceAddress address = 0;       ///< device address of the element at coordinates 0
    dtype type = dtype::float32;
    shape sizes{};
    std::array<std::int64_t, max_rank> strides{}; ///< element strides, any sign
    /// Serial number of the strix buffer holding the elements (buffer::id), or 0 for the
    /// application's own buffer (see wrap), whose lifetime strix cannot follow.
    std::uint64_t owner = 0;
    /// Serial number of the context whose device holds the buffer (context::serial); 0 for a
    /// view no context made, which every operator refuses.
    std::uint64_t origin = 0;
    /// Device addresses [first, last) the view may reach: its buffer's (for a strix buffer the
    /// context checks them against the buffer itself), or the range given to wrap.
    std::uint64_t reach_first = 0, reach_last = 0;

    /// The same elements in the same layout (buffer, address, type, shape, strides, origin).
    bool operator==(const device_view&) const = default;

    /// Device addresses [first, last) of the bytes the view touches.
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> range() const {
        const auto r = strix::detail::byte_range(any_cview(as_any()));
        return {static_cast<std::uint64_t>(r.first), static_cast<std::uint64_t>(r.second)};
    }

    /// The same view in the dtype-erased form the rules and plans take, its data pointer being
    /// the device address (never dereferenced on the host).
    [[nodiscard]] any_view as_any() const {
        return any_view(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), type, sizes, strides);
    }
};

/// The pieces of a device view cut along `d.axis` into `sizes`, as views of the same buffer (no
/// copy, nothing recorded); the same rules and messages as strix::split_views.
std::vector<device_view> split_views(const device_view& input, std::span<const std::int64_t> sizes, const split_desc& d = {});

/// A C-order tensor that owns a device buffer.
class device_tensor {
public:
    device_tensor() = default;
    /// An uninitialised tensor of `type` and `sizes` on `ctx`'s device, in device memory or,
    /// with memory::upload, in memory the host writes directly (see host_view).
    device_tensor(const context& ctx, dtype type, const shape& sizes, memory where = memory::device);
    [[nodiscard]] dtype type() const { return type_; }
    [[nodiscard]] const shape& sizes() const { return shape_; }
    [[nodiscard]] std::uint64_t bytes() const { return static_cast<std::uint64_t>(shape_.count()) * size_of(type_); } // (checked when made)
    /// The buffer (for the application's own commands: storage() .handle(), whole, offset 0).
    [[nodiscard]] const buffer& storage() const { return buf_; }
    /// Whether the host can read and write the elements in place (a tensor made with
    /// memory::upload or memory::host, or any tensor of a device that shares the host's memory).
    [[nodiscard]] bool host_visible() const { return buf_.mapped() != nullptr; }
    /// The elements as a host view, in place: small values a recorded stream reads (indices, a
    /// position to write at) change between its replays with a host write and no submission.
    /// Write only while no submission using the tensor is running (after wait()); what the
    /// device wrote is there to read after wait(). Throws strix::error unless host_visible().
    [[nodiscard]] any_view host_view() const;
    /// The whole tensor as a C-order view.
    [[nodiscard]] device_view view() const {
        return {buf_.handle(), buf_.address(), type_, shape_, c_strides(shape_), buf_.id(), origin_, buf_.address(), buf_.address() + buf_.size()};
    }

private:
    dtype type_ = dtype::float32;
    shape shape_{};
    buffer buf_;
    std::uint64_t origin_ = 0; // the context's serial number
};

namespace detail {
/// Checks that `v`, operand `operand` of operator `op`, can be used on `ctx`: a view of this
/// context's (not another's, not one no context made), of a buffer still alive, the same buffer
/// it names, and reaching no byte outside it. Throws strix::error naming the operator, the
/// operand, its shape and type, and what is wrong. Integer compares and one look-up under the
/// registry's lock: per operand per recording, never per element.
void check_operand(const context& ctx, const device_view& v, std::string_view op, std::string_view operand);
} // namespace detail

/// A view over the application's own VkBuffer, no copy: `size` bytes from `offset` are strix's
/// to read and write while it runs on them; the view's lowest byte lies at `offset` (strides
/// default to C order; with negative ones the element at coordinates 0 lies further in).
///
/// The buffer must be the context's device's, made with VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
/// and VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (and TRANSFER_SRC/DST for copies, upload and
/// download), bound to memory allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (the
/// validation layer reports these). It must outlive every use of the view; strix cannot tell
/// when the application destroys it (device_view::owner is 0). Throws strix::error when the
/// range is not in the buffer, the view needs more than `size` bytes, or `offset` is not a
/// multiple of the element size.
device_view wrap(const context& ctx, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, dtype type, const shape& sizes,
                        std::optional<std::array<std::int64_t, max_rank>> strides = std::nullopt);

} // namespace strix::vulkan
