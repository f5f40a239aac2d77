// Frames, submission and waits: what a stream records and runs with, taken from the context
// and given back (strix/vulkan/frames.hpp, context.hpp).

#include <chrono>

namespace strix::vulkan::detail {

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace strix::vulkan::detail

namespace strix::vulkan {

detail::owned<frame> context::acquire_frame() {
    {
        std::lock_guard lock(frames_mutex_);
        if (!frames_.empty()) {
            auto f = std::move(frames_.back());
            frames_.pop_back();
            return f;
        }
    }
    auto f = detail::make_owned<frame>();
    frames_made_.fetch_add(1, std::memory_order_relaxed);
    try {
        auto pci = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pci.queueFamilyIndex = family_;
        require_success(table_.vkCreateCommandPool(device_, &pci, nullptr, &f->pool), "vkCreateCommandPool");
        auto ai = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        ai.commandPool = f->pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        require_success(table_.vkAllocateCommandBuffers(device_, &ai, &f->cmd), "vkAllocateCommandBuffers");
        auto fci = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        require_success(table_.vkCreateFence(device_, &fci, nullptr, &f->fence), "vkCreateFence");
        if (timestamp_bits_ > 0) { // two timestamps bracket a stream's work
            auto qci = make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
            qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qci.queryCount = 2;
            require_success(table_.vkCreateQueryPool(device_, &qci, nullptr, &f->queries), "vkCreateQueryPool");
        }
        f->flag = create_buffer(16, memory::host, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT);
    } catch (...) {
        destroy(*f);
        throw;
    }
    return f;
}

void context::release_frame(detail::owned<frame> f) noexcept {
    if (!f) return;
    if (table_.vkResetCommandPool(device_, f->pool, 0) != VK_SUCCESS || table_.vkResetFences(device_, 1, &f->fence) != VK_SUCCESS) {
        destroy(*f); // a frame that cannot be reset is not reused
        return;
    }
    // the smallest buffers first, while they fit the budget
    const auto trim = [](std::vector<buffer>& v, std::uint64_t budget) {
        std::sort(v.begin(), v.end(), [](const buffer& x, const buffer& y) { return x.size() < y.size(); });
        std::uint64_t kept = 0;
        std::size_t n = 0;
        while (n < v.size() && kept + v[n].size() <= budget) kept += v[n++].size();
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
    };
    reset_sets(*f);
    trim(f->scratch, frame_scratch_bytes);
    trim(f->meta, frame_meta_bytes);
    f->scratch_used.assign(f->scratch.size(), false);
    std::lock_guard lock(frames_mutex_);
    frames_.push_back(std::move(f));
}

void context::reset_sets(frame& f) noexcept {
    for (const VkDescriptorPool p : f.pools) table_.vkResetDescriptorPool(device_, p, 0);
    f.pool_at = 0;
    f.sets.clear();
}

VkDescriptorSet context::descriptor_set(frame& f, const std::array<bound_buffer, 6>& b) {
    if (const auto it = f.sets.find(b); it != f.sets.end()) return it->second;
    VkDescriptorSet set = VK_NULL_HANDLE;
    for (;;) {
        if (f.pool_at == f.pools.size()) {
            constexpr std::uint32_t sets = 256;
            const VkDescriptorPoolSize size[3] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * detail::baseline_storage_buffers},
                                                  {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, sets},
                                                  {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, sets}};
            auto pci = make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
            pci.maxSets = sets;
            pci.poolSizeCount = 3;
            pci.pPoolSizes = size;
            VkDescriptorPool pool = VK_NULL_HANDLE;
            require_success(table_.vkCreateDescriptorPool(device_, &pci, nullptr, &pool), "vkCreateDescriptorPool");
            f.pools.push_back(pool);
        }
        auto ai = make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
        ai.descriptorPool = f.pools[f.pool_at];
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &set_layout_;
        const VkResult r = table_.vkAllocateDescriptorSets(device_, &ai, &set);
        if (r == VK_SUCCESS) break;
        if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL) require_success(r, "vkAllocateDescriptorSets");
        ++f.pool_at; // this pool is full: the next
    }
    VkDescriptorBufferInfo info[detail::baseline_bindings];
    VkWriteDescriptorSet w[detail::baseline_bindings];
    for (std::uint32_t i = 0; i < detail::baseline_bindings; ++i) {
        info[i] = {b[i].buffer, b[i].offset, b[i].range};
        w[i] = make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        w[i].dstSet = set;
        w[i].dstBinding = i;
        w[i].descriptorCount = 1;
        w[i].descriptorType = detail::baseline_binding_type(i);
        if (w[i].descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER)
            w[i].pTexelBufferView = &b[i].view;
        else
            w[i].pBufferInfo = &info[i];
    }
    table_.vkUpdateDescriptorSets(device_, detail::baseline_bindings, w, 0, nullptr);
    f.sets.emplace(b, set);
    return set;
}

void context::destroy(frame& f) noexcept {
    for (const VkDescriptorPool p : f.pools) table_.vkDestroyDescriptorPool(device_, p, nullptr);
    if (f.queries) table_.vkDestroyQueryPool(device_, f.queries, nullptr);
    if (f.fence) table_.vkDestroyFence(device_, f.fence, nullptr);
    if (f.pool) table_.vkDestroyCommandPool(device_, f.pool, nullptr);
    f = frame{};
}

void context::wait(VkFence fence) const {
    if (spin_us_ > 0) {
        const std::int64_t until = detail::steady_ns() + static_cast<std::int64_t>(spin_us_) * 1000;
        do {
            const VkResult r = table_.vkGetFenceStatus(device_, fence);
            if (r == VK_SUCCESS) return;
            if (r != VK_NOT_READY) require_success(r, "vkGetFenceStatus");
        } while (detail::steady_ns() < until);
    }
    require_success(table_.vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void context::submit(VkCommandBuffer cmd, VkFence fence) {
    std::lock_guard lock(mutex_);
    auto si = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    require_success(table_.vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
}

} // namespace strix::vulkan
