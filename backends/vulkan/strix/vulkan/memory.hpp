#pragma once
/// Device buffers: the owner a context hands out (buffer), where one lives (memory), and the
/// registry of every buffer a context made. Defined in impl/memory.ipp.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>

#include <volk.h>

#include "strix/vulkan/owned.hpp"

namespace strix::vulkan {

class context;

namespace detail {

/// A serial number unique in the process (never 0, never reused): buffers and contexts take one.
std::uint64_t next_serial() noexcept;

/// Every buffer a context made, by serial number: which are alive (a stream replayed after a
/// tensor it used was destroyed finds out here, and so does an operator given a view of a
/// destroyed or foreign buffer), the address range each holds (so that no operand reaches past
/// its buffer), and where the host-visible ones are mapped (so that a transfer from or to their
/// memory goes straight by the device's copy).
///
/// It also keeps the device from using freed memory: a buffer that submitted work may still use
/// is pinned (pin), and one released while pinned stays allocated, dead to every lookup, until
/// the last pin goes (unpin). Shared by the context and its buffers: when the context goes
/// (close), whatever is left is freed with it, and a buffer released later finds nothing to do.
class buffer_registry {
public:
    /// What a live buffer holds: its handle and device addresses [address, address + size).
    struct extent {
        VkBuffer handle = VK_NULL_HANDLE;
        std::uint64_t address = 0, size = 0;
        /// a texel view of its first words (R32_UINT), for the baseline path's flag binding;
        /// null on every other buffer
        VkBufferView words = VK_NULL_HANDLE;
    };

    /// `virtual_addresses`: the device has no buffer device addresses (the baseline path), and
    /// the registry gives each buffer a range of addresses of its own, 2^40 bytes apart, that
    /// only strix reads: the dispatch finds an address's buffer and offset by locate().
    buffer_registry(const VolkDeviceTable* vk, VkDevice device, bool virtual_addresses = false);
    ~buffer_registry();
    buffer_registry(const buffer_registry&) = delete;
    buffer_registry& operator=(const buffer_registry&) = delete;

    /// Registers a buffer (and the memory bound to it, which the registry frees with it); its
    /// serial number. `mapped`: where its memory is mapped (nullptr when it is not). With
    /// virtual addresses, `address` is ignored and the buffer's is `*assigned`.
    std::uint64_t add(VkBuffer handle, VkDeviceMemory memory, std::uint64_t address, std::uint64_t size, std::byte* mapped,
                      std::uint64_t* assigned = nullptr, VkBufferView words = VK_NULL_HANDLE);
    /// With virtual addresses: the address of the application's buffer `handle` (wrap), of at
    /// least `size` bytes; the same each time the handle is given. The registry does not own it.
    std::uint64_t foreign(VkBuffer handle, std::uint64_t size);
    /// The buffer whose addresses [address, address + size] hold `a` (its end included), live or
    /// foreign; none when no buffer does.
    [[nodiscard]] std::optional<extent> locate(std::uint64_t a) const;
    /// Where virtual addresses start, and how far apart two buffers' are.
    static constexpr std::uint64_t virtual_stride = std::uint64_t{1} << 40;
    /// The owner let go of buffer `id`: it is dead from now on, and freed now, or when its last
    /// pin goes.
    void release(std::uint64_t id) noexcept;
    /// Pins every buffer of `ids` (0 stands for none) for work the device may run, unless one of
    /// them is dead: then pins nothing and returns that one. 0 when all were pinned.
    std::uint64_t pin(std::span<const std::uint64_t> ids);
    /// Takes back one pin of each of `ids` (pinned before), freeing the dead ones left unpinned.
    void unpin(std::span<const std::uint64_t> ids) noexcept;
    /// The live buffer `id`'s extent; none when it is dead or not this context's.
    [[nodiscard]] std::optional<extent> find(std::uint64_t id) const;
    /// The first of `ids` that is not alive (0 stands for none), or 0.
    [[nodiscard]] std::uint64_t first_dead(std::span<const std::uint64_t> ids) const;
    /// The live buffer whose mapping holds all of [p, p + bytes), and p's offset in it; a null
    /// handle when none does.
    [[nodiscard]] std::pair<VkBuffer, std::uint64_t> find_mapped(const void* p, std::uint64_t bytes) const;
    /// Buffers released while pinned whose memory is still held (for tests).
    [[nodiscard]] std::size_t deferred() const;
    /// The context is going (its queue is idle): frees every buffer still registered, alive or
    /// not; later calls do nothing.
    void close() noexcept;

private:
    struct state; // the entries and the mappings, in ordered containers (defined with the backend)
    void free_entry(std::uint64_t id) noexcept; // with the lock held
    [[nodiscard]] std::uint64_t first_dead_locked(std::span<const std::uint64_t> ids) const; // with the lock held
    mutable std::mutex mutex_;
    owned<state> s_;
    const VolkDeviceTable* vk_;
    VkDevice device_;
    bool closed_ = false;
    bool virtual_ = false;
    std::uint64_t next_virtual_ = 1; // in units of virtual_stride
};

} // namespace detail

/// A device buffer with a device address (move-only owner). Host-visible buffers stay mapped.
/// On the baseline path (no bufferDeviceAddress) the address is one the context gave it, which
/// only strix reads (buffer_registry::locate).
/// Its VkBuffer may be used in the application's own commands (see README, "strix inside your
/// Vulkan"): made with storage, transfer source and destination, indirect and device-address
/// usage, exclusive to the context's queue family.
///
/// Destroying it while a stream that uses it runs is safe: its memory stays allocated until
/// that work is done (buffer_registry); destroying it after its context is too (the context
/// freed it).
class buffer {
public:
    buffer() = default;
    buffer(buffer&& o) noexcept { swap(o); }
    buffer& operator=(buffer&& o) noexcept {
        buffer t(std::move(o));
        swap(t);
        return *this;
    }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    ~buffer() { release(); }

    [[nodiscard]] VkBuffer handle() const { return buf_; }
    [[nodiscard]] std::uint64_t size() const { return size_; }
    [[nodiscard]] VkDeviceAddress address() const { return address_; }
    /// Host pointer to the contents, or nullptr when the memory is not host-visible.
    [[nodiscard]] std::byte* mapped() const { return mapped_; }
    /// Serial number, unique in the process (see device_view::owner); 0 for an empty buffer.
    [[nodiscard]] std::uint64_t id() const { return id_; }

private:
    friend class context;
    void swap(buffer& o) noexcept;
    void release() noexcept;
    std::shared_ptr<detail::buffer_registry> registry_;
    VkBuffer buf_ = VK_NULL_HANDLE;
    std::uint64_t size_ = 0;
    VkDeviceAddress address_ = 0;
    std::byte* mapped_ = nullptr;
    std::uint64_t id_ = 0;
};

/// Where a buffer lives.
enum class memory : std::uint8_t {
    device, ///< device-local (host-visible too when the device has such memory, e.g. lavapipe)
    host,   ///< host-visible and coherent (staging, read-backs)
    /// written by the host, read by the device (plan metadata): device-local and host-visible
    /// where the device has such memory (resizable BAR), else host memory, so that shaders do
    /// not fetch it across the bus
    upload,
};

} // namespace strix::vulkan
