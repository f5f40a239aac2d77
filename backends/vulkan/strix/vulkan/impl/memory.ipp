// Buffers: the registry of a context's buffers, their owners, and the context's allocation,
// buffer creation and host import (strix/vulkan/memory.hpp, context.hpp).

#include <limits>
#include <map>

namespace strix::vulkan::detail {

std::uint64_t next_serial() noexcept {
    static std::atomic<std::uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

struct buffer_registry::state {
    struct entry {
        VkBuffer handle;
        VkDeviceMemory memory;
        std::uint64_t address, size;
        std::byte* mapped;
        VkBufferView words; // its texel view (the registry destroys it with it)
        std::uint32_t pins = 0;
        bool alive = true;
    };
    std::map<std::uint64_t, entry> entries;
    struct mapping {
        std::uint64_t size;
        VkBuffer handle;
    };
    std::map<std::uintptr_t, mapping> mapped; // live buffers' mappings, by address
    std::size_t deferred = 0;                 // entries released while pinned
    std::map<std::uint64_t, extent> by_address; // live and foreign buffers, by device address (for locate)
    std::map<VkBuffer, std::uint64_t> foreign;  // the application's buffers' virtual addresses
    std::map<VkBuffer, std::uint64_t> by_handle; // live buffers' addresses (a wrapped strix buffer keeps its own)
};

buffer_registry::buffer_registry(const VolkDeviceTable* vk, VkDevice device, bool virtual_addresses)
    : s_(make_owned<state>()), vk_(vk), device_(device), virtual_(virtual_addresses) {}
buffer_registry::~buffer_registry() = default;

std::uint64_t buffer_registry::add(VkBuffer handle, VkDeviceMemory memory, std::uint64_t address, std::uint64_t size, std::byte* mapped,
                                   std::uint64_t* assigned, VkBufferView words) {
    const std::uint64_t id = next_serial();
    std::lock_guard lock(mutex_);
    if (virtual_) address = next_virtual_++ * virtual_stride;
    if (assigned) *assigned = address;
    s_->entries.emplace(id, state::entry{handle, memory, address, size, mapped, words});
    if (mapped) s_->mapped[reinterpret_cast<std::uintptr_t>(mapped)] = {size, handle};
    if (address) s_->by_address[address] = {handle, address, size, words};
    if (virtual_) s_->by_handle[handle] = address;
    return id;
}

std::uint64_t buffer_registry::foreign(VkBuffer handle, std::uint64_t size) {
    std::lock_guard lock(mutex_);
    if (const auto own = s_->by_handle.find(handle); own != s_->by_handle.end()) return own->second;
    auto [it, made] = s_->foreign.emplace(handle, 0);
    if (made) it->second = next_virtual_++ * virtual_stride;
    extent& e = s_->by_address[it->second];
    e = {handle, it->second, std::max(e.size, size)};
    return it->second;
}

auto buffer_registry::locate(std::uint64_t a) const -> std::optional<extent> {
    std::lock_guard lock(mutex_);
    auto it = s_->by_address.upper_bound(a);
    if (it == s_->by_address.begin()) return std::nullopt;
    --it;
    if (a - it->first > it->second.size) return std::nullopt;
    return it->second;
}

void buffer_registry::free_entry(std::uint64_t id) noexcept {
    const auto it = s_->entries.find(id);
    if (it == s_->entries.end()) return;
    const state::entry& e = it->second;
    if (e.mapped) vk_->vkUnmapMemory(device_, e.memory);
    if (e.words) vk_->vkDestroyBufferView(device_, e.words, nullptr);
    if (e.handle) vk_->vkDestroyBuffer(device_, e.handle, nullptr);
    if (e.memory) vk_->vkFreeMemory(device_, e.memory, nullptr);
    if (!e.alive) --s_->deferred;
    s_->entries.erase(it);
}

void buffer_registry::release(std::uint64_t id) noexcept {
    std::lock_guard lock(mutex_);
    if (closed_) return; // the context freed it
    const auto it = s_->entries.find(id);
    if (it == s_->entries.end() || !it->second.alive) return;
    if (it->second.mapped) s_->mapped.erase(reinterpret_cast<std::uintptr_t>(it->second.mapped));
    if (it->second.address) s_->by_address.erase(it->second.address);
    s_->by_handle.erase(it->second.handle);
    it->second.alive = false;
    ++s_->deferred;
    if (it->second.pins == 0) free_entry(id); // else submitted work may still use it: freed by the last unpin
}

std::uint64_t buffer_registry::first_dead_locked(std::span<const std::uint64_t> ids) const {
    for (const std::uint64_t id : ids) {
        if (id == 0) continue;
        const auto it = s_->entries.find(id);
        if (it == s_->entries.end() || !it->second.alive) return id;
    }
    return 0;
}

std::uint64_t buffer_registry::pin(std::span<const std::uint64_t> ids) {
    std::lock_guard lock(mutex_);
    if (const std::uint64_t dead = first_dead_locked(ids)) return dead;
    for (const std::uint64_t id : ids)
        if (id != 0) ++s_->entries.find(id)->second.pins;
    return 0;
}

void buffer_registry::unpin(std::span<const std::uint64_t> ids) noexcept {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    for (const std::uint64_t id : ids) {
        const auto it = id ? s_->entries.find(id) : s_->entries.end();
        if (it == s_->entries.end() || it->second.pins == 0) continue;
        if (--it->second.pins == 0 && !it->second.alive) free_entry(id);
    }
}

auto buffer_registry::find(std::uint64_t id) const -> std::optional<extent> {
    std::lock_guard lock(mutex_);
    const auto it = s_->entries.find(id);
    if (it == s_->entries.end() || !it->second.alive) return std::nullopt;
    return extent{it->second.handle, it->second.address, it->second.size};
}

std::uint64_t buffer_registry::first_dead(std::span<const std::uint64_t> ids) const {
    std::lock_guard lock(mutex_);
    return first_dead_locked(ids);
}

std::pair<VkBuffer, std::uint64_t> buffer_registry::find_mapped(const void* p, std::uint64_t bytes) const {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(mutex_);
    auto it = s_->mapped.upper_bound(at);
    if (it == s_->mapped.begin()) return {VK_NULL_HANDLE, 0};
    --it;
    const std::uint64_t off = at - it->first;
    if (off > it->second.size || bytes > it->second.size - off) return {VK_NULL_HANDLE, 0};
    return {it->second.handle, off};
}

std::size_t buffer_registry::deferred() const {
    std::lock_guard lock(mutex_);
    return s_->deferred;
}

void buffer_registry::close() noexcept {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    while (!s_->entries.empty()) free_entry(s_->entries.begin()->first);
    s_->mapped.clear();
    s_->by_address.clear();
    s_->by_handle.clear();
    closed_ = true;
}

} // namespace strix::vulkan::detail

namespace strix::vulkan {

void buffer::swap(buffer& o) noexcept {
    std::swap(registry_, o.registry_);
    std::swap(buf_, o.buf_);
    std::swap(size_, o.size_);
    std::swap(address_, o.address_);
    std::swap(mapped_, o.mapped_);
    std::swap(id_, o.id_);
}

void buffer::release() noexcept {
    if (registry_) registry_->release(id_);
    registry_.reset();
    buf_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
    id_ = 0;
}

VkDeviceMemory context::try_allocate(VkDeviceSize bytes, std::uint32_t type, VkResult* result, VkBuffer dedicated) const {
    auto ded = make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
    ded.buffer = dedicated;
    auto flags = make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, dedicated != VK_NULL_HANDLE ? &ded : nullptr);
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    // (the baseline path's device has no device addresses)
    auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, full_ ? static_cast<void*>(&flags) : const_cast<void*>(flags.pNext));
    mai.allocationSize = bytes;
    mai.memoryTypeIndex = type;
    VkDeviceMemory m = VK_NULL_HANDLE;
    const VkResult r = table_.vkAllocateMemory(device_, &mai, nullptr, &m);
    if (result) *result = r;
    return r == VK_SUCCESS ? m : VK_NULL_HANDLE;
}

buffer context::create_buffer(std::uint64_t bytes, memory where, VkBufferUsageFlags extra) const {
    if (bytes > std::numeric_limits<std::uint64_t>::max() - 15)
        throw error(error_code::invalid_argument, "strix::vulkan: a buffer of " + std::to_string(bytes) + " bytes cannot exist");
    const std::uint64_t size = std::max<std::uint64_t>(16, (bytes + 15) / 16 * 16);
    auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                (full_ ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0) | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    if (!full_) bci.usage |= extra;
    const bool words_view = !full_ && (extra & VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT);
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer handle = VK_NULL_HANDLE;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    VkBufferView view = VK_NULL_HANDLE;
    // what was made so far goes again when a later step throws
    struct undo {
        const context& c;
        VkBuffer& h;
        VkDeviceMemory& m;
        VkBufferView& v;
        ~undo() {
            if (v) c.table_.vkDestroyBufferView(c.device_, v, nullptr);
            if (h) c.table_.vkDestroyBuffer(c.device_, h, nullptr);
            if (m) c.table_.vkFreeMemory(c.device_, m, nullptr);
        }
    } guard{*this, handle, mem, view};
    require_success(table_.vkCreateBuffer(device_, &bci, nullptr, &handle), "vkCreateBuffer");
    VkMemoryRequirements req{};
    table_.vkGetBufferMemoryRequirements(device_, handle, &req);
    const auto hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    std::optional<std::uint32_t> type;
    if (where == memory::upload) {
        // the host-visible device-local heap may be small (a 256 MiB window): host memory
        // when it is full
        if (const auto t = find_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hv)) {
            mem = try_allocate(req.size, *t, nullptr, handle);
            if (mem) type = t;
        }
        if (!type) where = memory::host;
    }
    if (where == memory::device) {
        // host-visible device memory on devices that share memory with the host: no staging
        if (info_.type == VK_PHYSICAL_DEVICE_TYPE_CPU || info_.type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU)
            type = find_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hv);
        if (!type) type = find_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    } else if (where == memory::host) {
        type = find_type(req.memoryTypeBits, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (!type) type = find_type(req.memoryTypeBits, hv);
    }
    if (!type) throw error(error_code::unsupported, "strix::vulkan: " + info_.name + " has no suitable memory type for a buffer");
    VkResult r = VK_SUCCESS;
    if (!mem) mem = try_allocate(req.size, *type, &r, handle);
    if (!mem) {
        throw error(r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? error_code::io : error_code::unsupported,
                    "strix::vulkan: cannot allocate " + std::to_string(req.size) + " bytes of " +
                        (where == memory::device ? "device" : "host-visible") + " memory on " + info_.name + " (vkAllocateMemory: " +
                        result_name(r) + ")");
    }
    require_success(table_.vkBindBufferMemory(device_, handle, mem, 0), "vkBindBufferMemory");
    std::byte* mapped = nullptr;
    if (memory_.memoryTypes[*type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        void* p = nullptr;
        require_success(table_.vkMapMemory(device_, mem, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
        mapped = static_cast<std::byte*>(p);
    }
    buffer b;
    if (full_) {
        auto ai = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
        ai.buffer = handle;
        b.address_ = table_.vkGetBufferDeviceAddress(device_, &ai);
    }
    if (words_view) { // as much of it as one view reaches (maxTexelBufferElements)
        auto vci = make<VkBufferViewCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO);
        vci.buffer = handle;
        vci.format = VK_FORMAT_R32_UINT;
        vci.range = std::min<std::uint64_t>(size, std::uint64_t{max_texels_} * 4);
        require_success(table_.vkCreateBufferView(device_, &vci, nullptr, &view), "vkCreateBufferView");
    }
    // the registry frees them from now on (and gives a virtual address)
    b.id_ = live_->add(handle, mem, b.address_, size, mapped, &b.address_, view);
    view = VK_NULL_HANDLE;
    b.registry_ = live_;
    b.buf_ = std::exchange(handle, VK_NULL_HANDLE);
    mem = VK_NULL_HANDLE;
    b.size_ = size;
    b.mapped_ = mapped;
    return b;
}

buffer context::import_host(const void* p, std::uint64_t bytes, std::uint64_t* offset) const {
    if (!can_import_host() || bytes == 0 || host_import_alignment_ > host_page) return {};
    const std::uint64_t a = host_import_alignment_;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t start = at / a * a;
    const std::uint64_t size = (at - start + bytes + a - 1) / a * a;
    void* base = reinterpret_cast<void*>(start);
    auto props = make<VkMemoryHostPointerPropertiesEXT>(VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
    if (table_.vkGetMemoryHostPointerPropertiesEXT(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, base, &props) != VK_SUCCESS) return {};
    auto ext = make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &ext);
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer handle = VK_NULL_HANDLE;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    const auto give_up = [&] {
        if (handle) table_.vkDestroyBuffer(device_, handle, nullptr);
        if (mem) table_.vkFreeMemory(device_, mem, nullptr);
        return buffer{};
    };
    if (table_.vkCreateBuffer(device_, &bci, nullptr, &handle) != VK_SUCCESS) {
        handle = VK_NULL_HANDLE;
        return give_up();
    }
    VkMemoryRequirements req{};
    table_.vkGetBufferMemoryRequirements(device_, handle, &req);
    const auto type = find_type(req.memoryTypeBits & props.memoryTypeBits, 0);
    if (!type || req.size > size) return give_up();
    auto imp = make<VkImportMemoryHostPointerInfoEXT>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
    imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    imp.pHostPointer = base;
    auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &imp);
    mai.allocationSize = size;
    mai.memoryTypeIndex = *type;
    if (table_.vkAllocateMemory(device_, &mai, nullptr, &mem) != VK_SUCCESS) {
        mem = VK_NULL_HANDLE;
        return give_up();
    }
    if (table_.vkBindBufferMemory(device_, handle, mem, 0) != VK_SUCCESS) return give_up();
    buffer b;
    b.id_ = live_->add(handle, mem, 0, size, nullptr);
    b.registry_ = live_;
    b.buf_ = handle;
    b.size_ = size;
    *offset = at - start;
    return b;
}

std::optional<std::uint32_t> context::find_type(std::uint32_t bits, VkMemoryPropertyFlags want) const {
    for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want) return i;
    return std::nullopt;
}

} // namespace strix::vulkan
