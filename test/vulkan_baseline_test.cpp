// The shaders' baseline path (shaders/common.glsl with BASELINE 1: each operand bound through a
// descriptor of its own, 32-bit offsets, no 64-bit integer, no device address, no 8/16-bit
// storage) on a device made without any optional feature: the first Vulkan device of type CPU
// (lavapipe) or else the first one, created with no feature enabled at all, the modules built for
// Vulkan 1.1 (the committed baseline variants, strix/vulkan/spirv/<shader>_b.h), under the
// validation layer (any message fails the test), each result compared with a naive loop. The instance is made for Vulkan 1.1 (apiVersion), so the
// layer reports anything newer a module or a call would use, as on a Vulkan 1.1 device. The test
// binds the operands and fills the push constants itself, as common.glsl describes them (the
// backend's host side does the same, tested by the Vulkan suite on the baseline profile).

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "strix/vulkan.hpp"
#include "strix/vulkan/encode.hpp"

// the baseline variants of variants.txt (FULL 0, so BASELINE 1; Vulkan 1.1), as the backend
// embeds them: one `const uint32_t <shader>_b[]` each
#include "strix/vulkan/spirv/copy_b.h"
#include "strix/vulkan/spirv/move_b.h"
#include "strix/vulkan/spirv/scatter_b.h"
#include "strix/vulkan/spirv/tile_b.h"
#include "strix/vulkan/spirv/tuples_b.h"

namespace {

namespace vk = strix::vulkan;

/// The push constants as the baseline path reads them (common.glsl): the full path's 112 bytes,
/// each 64-bit field as its low and high words; `hi` 1 marks an operand that is present.
struct push32 {
    std::uint32_t src = 0, src_hi = 0, dst = 0, dst_hi = 0, dims = 0, dims_hi = 0, indices = 0, indices_hi = 0;
    std::uint32_t count = 0, count_hi = 0, flag = 0, flag_hi = 0;
    std::int32_t axis_size = 0, axis_size_hi = 0, axis_stride = 0, axis_stride_hi = 0;
    std::uint32_t fill[4] = {};
    std::uint32_t aux = 0, aux2 = 0, aux_addr = 0, aux_addr_hi = 0, lo = 0, lo_hi = 0, guard = 0, guard_hi = 0;
};
static_assert(sizeof(push32) == 112);

/// The operands' bindings (common.glsl's STRIX_BIND order).
enum operand : int { SRC, DST, IDX, PLAN, FLAG, AUX, operand_count };

void ok(VkResult r, const char* what) {
    if (r != VK_SUCCESS) FAIL(what << " returned " << static_cast<int>(r));
}

/// A device made without optional features, one host-visible buffer per operand, and the
/// descriptor set that binds them.
struct rig {
    vk::detail::instance inst{true, VK_API_VERSION_1_1};
    VkPhysicalDevice pd = VK_NULL_HANDLE;
    VkDevice dev = VK_NULL_HANDLE;
    VolkDeviceTable f{};
    VkQueue queue = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkBufferView flag_view = VK_NULL_HANDLE;
    VkCommandPool commands = VK_NULL_HANDLE;
    struct buffer {
        VkBuffer b = VK_NULL_HANDLE;
        VkDeviceMemory m = VK_NULL_HANDLE;
        std::byte* p = nullptr;
    };
    static constexpr VkDeviceSize bytes = 1 << 20; // each operand's buffer
    buffer bufs[operand_count];

    rig() {
        const auto devices = inst.physical_devices();
        REQUIRE(!devices.empty());
        pd = devices[0];
        for (auto d : devices) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(d, &p);
            if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
                pd = d;
                break;
            }
        }
        std::uint32_t n = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
        std::vector<VkQueueFamilyProperties> fams(n);
        vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fams.data());
        while (family < n && !(fams[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        REQUIRE(family < n);
        const float priority = 1.0f;
        auto qi = vk::make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
        qi.queueFamilyIndex = family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        auto ci = vk::make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
        ci.queueCreateInfoCount = 1;
        ci.pQueueCreateInfos = &qi; // no features, no extensions, no pNext: Vulkan 1.1 core only
        ok(vkCreateDevice(pd, &ci, nullptr, &dev), "vkCreateDevice");
        volkLoadDeviceTable(&f, dev);
        f.vkGetDeviceQueue(dev, family, 0, &queue);

        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(pd, &mp);
        for (auto& b : bufs) {
            auto bi = vk::make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
            bi.size = bytes;
            bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;
            ok(f.vkCreateBuffer(dev, &bi, nullptr, &b.b), "vkCreateBuffer");
            VkMemoryRequirements req;
            f.vkGetBufferMemoryRequirements(dev, b.b, &req);
            const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            std::uint32_t type = 0;
            while (type < mp.memoryTypeCount && (!(req.memoryTypeBits & (1u << type)) || (mp.memoryTypes[type].propertyFlags & want) != want)) ++type;
            REQUIRE(type < mp.memoryTypeCount);
            auto ai = vk::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
            ai.allocationSize = req.size;
            ai.memoryTypeIndex = type;
            ok(f.vkAllocateMemory(dev, &ai, nullptr, &b.m), "vkAllocateMemory");
            ok(f.vkBindBufferMemory(dev, b.b, b.m, 0), "vkBindBufferMemory");
            void* p = nullptr;
            ok(f.vkMapMemory(dev, b.m, 0, bytes, 0, &p), "vkMapMemory");
            b.p = static_cast<std::byte*>(p);
        }

        VkDescriptorSetLayoutBinding bindings[operand_count] = {};
        for (int i = 0; i < operand_count; ++i) {
            bindings[i].binding = static_cast<std::uint32_t>(i);
            bindings[i].descriptorType = vk::detail::baseline_binding_type(static_cast<std::uint32_t>(i));
            bindings[i].descriptorCount = 1;
            bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        }
        auto li = vk::make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
        li.bindingCount = operand_count;
        li.pBindings = bindings;
        ok(f.vkCreateDescriptorSetLayout(dev, &li, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
        VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push32)};
        auto pli = vk::make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
        pli.setLayoutCount = 1;
        pli.pSetLayouts = &set_layout;
        pli.pushConstantRangeCount = 1;
        pli.pPushConstantRanges = &range;
        ok(f.vkCreatePipelineLayout(dev, &pli, nullptr, &layout), "vkCreatePipelineLayout");
        const VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, vk::detail::baseline_storage_buffers},
                                               {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
                                               {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1}};
        auto poi = vk::make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
        poi.maxSets = 1;
        poi.poolSizeCount = 3;
        poi.pPoolSizes = sizes;
        ok(f.vkCreateDescriptorPool(dev, &poi, nullptr, &pool), "vkCreateDescriptorPool");
        auto dai = vk::make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
        dai.descriptorPool = pool;
        dai.descriptorSetCount = 1;
        dai.pSetLayouts = &set_layout;
        ok(f.vkAllocateDescriptorSets(dev, &dai, &set), "vkAllocateDescriptorSets");
        // the flag binding: a texel view of the flag buffer's words (Vulkan's least maxTexelBufferElements of them at most)
        auto vci = vk::make<VkBufferViewCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO);
        vci.buffer = bufs[FLAG].b;
        vci.format = VK_FORMAT_R32_UINT;
        vci.range = 65536 * 4;
        ok(f.vkCreateBufferView(dev, &vci, nullptr, &flag_view), "vkCreateBufferView");
        VkDescriptorBufferInfo infos[operand_count];
        VkWriteDescriptorSet writes[operand_count];
        for (int i = 0; i < operand_count; ++i) {
            // the plan: the uniform buffer's window from its start (common.glsl)
            infos[i] = {bufs[i].b, 0, i == PLAN ? vk::context::plan_window : VK_WHOLE_SIZE};
            writes[i] = vk::make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
            writes[i].dstSet = set;
            writes[i].dstBinding = static_cast<std::uint32_t>(i);
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = vk::detail::baseline_binding_type(static_cast<std::uint32_t>(i));
            if (i == FLAG)
                writes[i].pTexelBufferView = &flag_view;
            else
                writes[i].pBufferInfo = &infos[i];
        }
        f.vkUpdateDescriptorSets(dev, operand_count, writes, 0, nullptr);
        auto cpi = vk::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
        cpi.queueFamilyIndex = family;
        ok(f.vkCreateCommandPool(dev, &cpi, nullptr, &commands), "vkCreateCommandPool");
    }

    ~rig() {
        f.vkDeviceWaitIdle(dev);
        f.vkDestroyCommandPool(dev, commands, nullptr);
        f.vkDestroyDescriptorPool(dev, pool, nullptr);
        f.vkDestroyPipelineLayout(dev, layout, nullptr);
        f.vkDestroyDescriptorSetLayout(dev, set_layout, nullptr);
        f.vkDestroyBufferView(dev, flag_view, nullptr);
        for (auto& b : bufs) {
            f.vkDestroyBuffer(dev, b.b, nullptr);
            f.vkFreeMemory(dev, b.m, nullptr);
        }
        f.vkDestroyDevice(dev, nullptr);
    }

    /// Runs `code` with the spec constants (id, value) over `groups` work groups of 256, and waits.
    void run(std::span<const std::uint32_t> code, std::span<const std::pair<std::uint32_t, std::uint32_t>> spec, const push32& pc,
             std::uint32_t groups) {
        auto mi = vk::make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        mi.codeSize = code.size_bytes();
        mi.pCode = code.data();
        VkShaderModule module = VK_NULL_HANDLE;
        ok(f.vkCreateShaderModule(dev, &mi, nullptr, &module), "vkCreateShaderModule");
        std::vector<VkSpecializationMapEntry> entries;
        std::vector<std::uint32_t> values;
        for (const auto& [id, v] : spec) {
            entries.push_back({id, static_cast<std::uint32_t>(values.size() * 4), 4});
            values.push_back(v);
        }
        const VkSpecializationInfo si{static_cast<std::uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};
        auto pi = vk::make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
        pi.stage = vk::make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
        pi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        pi.stage.module = module;
        pi.stage.pName = "main";
        pi.stage.pSpecializationInfo = &si;
        pi.layout = layout;
        VkPipeline pipeline = VK_NULL_HANDLE;
        ok(f.vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &pi, nullptr, &pipeline), "vkCreateComputePipelines");

        auto cai = vk::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        cai.commandPool = commands;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        ok(f.vkAllocateCommandBuffers(dev, &cai, &cmd), "vkAllocateCommandBuffers");
        auto bi = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        ok(f.vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
        f.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        f.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
        f.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        f.vkCmdDispatch(cmd, groups, 1, 1);
        auto mb = vk::make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
        ok(f.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
        auto fi = vk::make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        VkFence fence = VK_NULL_HANDLE;
        ok(f.vkCreateFence(dev, &fi, nullptr, &fence), "vkCreateFence");
        auto sub = vk::make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        sub.commandBufferCount = 1;
        sub.pCommandBuffers = &cmd;
        ok(f.vkQueueSubmit(queue, 1, &sub, fence), "vkQueueSubmit");
        ok(f.vkWaitForFences(dev, 1, &fence, VK_TRUE, ~0ull), "vkWaitForFences");
        f.vkDestroyFence(dev, fence, nullptr);
        f.vkFreeCommandBuffers(dev, commands, 1, &cmd);
        f.vkDestroyPipeline(dev, pipeline, nullptr);
        f.vkDestroyShaderModule(dev, module, nullptr);
    }

    template <class T>
    T* at(operand o, std::size_t byte_offset) {
        return reinterpret_cast<T*>(bufs[o].p + byte_offset);
    }
    void clear() {
        for (auto& b : bufs) std::memset(b.p, 0, bytes);
    }
};

std::span<const std::uint32_t> module_of(const std::uint32_t* code, std::size_t bytes) { return {code, bytes / 4}; }

/// A move plan's dimension as the ADDR32 records hold it (48 bytes, in the plan's binding at `at`).
void put_record(rig& r, std::size_t at, int k, const strix::plan::move_dim& d, std::int32_t map = 0) {
    const auto rec = vk::detail::addr32_record(d, map);
    std::memcpy(r.at<std::byte>(PLAN, at + 48 * static_cast<std::size_t>(k)), rec.data(), sizeof rec);
}

constexpr std::uint32_t ELEM = 0, RANK = 1, INDEX_TYPE = 2, POLICY = 3, VEC = 8, UNROLL = 9, FOLD = 11;

} // namespace

TEST_CASE("vulkan baseline: the copy shader on a device without optional features", "[vulkan][baseline]") {
    rig r;
    std::mt19937 g(7);
    for (const std::uint32_t unroll : {1u, 4u}) {
        r.clear();
        const std::uint32_t chunks = 1000, src_at = 64, dst_at = 32;
        auto* in = r.at<std::uint32_t>(SRC, src_at);
        for (std::uint32_t i = 0; i < chunks * 4; ++i) in[i] = static_cast<std::uint32_t>(g());
        push32 pc;
        pc.src = src_at;
        pc.dst = dst_at;
        pc.count = chunks;
        const std::pair<std::uint32_t, std::uint32_t> spec[] = {{ELEM, 16}, {UNROLL, unroll}};
        r.run(module_of(copy_b, sizeof copy_b), spec, pc, (chunks + 256 * unroll - 1) / (256 * unroll));
        auto* out = r.at<std::uint32_t>(DST, dst_at);
        CHECK(std::memcmp(out, in, chunks * 16) == 0);
        CHECK(r.at<std::uint32_t>(DST, 0)[0] == 0); // before the output: untouched
        CHECK(out[chunks * 4] == 0);                // after it
    }
    CHECK(r.inst.messages() == 0);
}

TEST_CASE("vulkan baseline: the move shader transposes, element by element and in 16-byte chunks", "[vulkan][baseline]") {
    rig r;
    std::mt19937 g(11);
    for (const std::uint32_t vec : {1u, 4u}) {
        r.clear();
        const int rows = 36, cols = 52; // input [rows, cols] of 4-byte words; output [cols, rows]
        const std::size_t src_at = 16, dst_at = 48, plan_at = 256;
        auto* in = r.at<std::uint32_t>(SRC, src_at);
        for (int i = 0; i < rows * cols; ++i) in[i] = static_cast<std::uint32_t>(g());
        strix::plan::move_dim d0, d1; // output order: d0 over the output's rows, d1 along them
        d0.size = cols;
        d0.dst = 4 * rows;
        d0.src = 4;
        d1.size = rows;
        d1.dst = 4;
        d1.src = 4 * cols;
        put_record(r, plan_at, 0, d0);
        put_record(r, plan_at, 1, d1);
        push32 pc;
        pc.src = static_cast<std::uint32_t>(src_at);
        pc.dst = static_cast<std::uint32_t>(dst_at);
        pc.dims = static_cast<std::uint32_t>(plan_at);
        pc.count = static_cast<std::uint32_t>(rows * cols / static_cast<int>(vec));
        const std::pair<std::uint32_t, std::uint32_t> spec[] = {{ELEM, 4}, {RANK, 2}, {VEC, vec}};
        r.run(module_of(move_b, sizeof move_b), spec, pc, (pc.count + 255) / 256);
        auto* out = r.at<std::uint32_t>(DST, dst_at);
        int wrong = 0;
        for (int i = 0; i < cols; ++i)
            for (int j = 0; j < rows; ++j) wrong += out[i * rows + j] != in[j * cols + i];
        CHECK(wrong == 0);
        CHECK(out[rows * cols] == 0);
    }
    CHECK(r.inst.messages() == 0);
}

TEST_CASE("vulkan baseline: the move shader gathers 8-byte elements at int64 and uint64 indices, read as word pairs", "[vulkan][baseline]") {
    rig r;
    const std::int64_t n = 37;
    const std::int64_t idx[] = {0, 5, -1, -37, 36, 37, -38, std::int64_t{1} << 40, -(std::int64_t{1} << 40), std::int64_t{1} << 32, -(std::int64_t{1} << 31), 12};
    const int m = static_cast<int>(std::size(idx));
    for (const std::uint32_t index_type : {2u, 4u})
        for (const std::uint32_t policy : {0u, 1u}) {
            r.clear();
            auto* in = r.at<std::uint64_t>(SRC, 0);
            for (std::int64_t i = 0; i < n; ++i) in[i] = 0x0123456789abcdefULL * static_cast<std::uint64_t>(i + 1);
            std::memcpy(r.at<std::byte>(IDX, 0), idx, sizeof idx);
            strix::plan::move_dim d;
            d.size = m;
            d.dst = 8;
            d.key = 8;
            put_record(r, 0, 0, d);
            push32 pc;
            pc.dims = 0;
            pc.indices = 0;
            pc.indices_hi = 1;
            pc.count = static_cast<std::uint32_t>(m);
            pc.flag = 0;
            pc.flag_hi = 1;
            pc.axis_size = static_cast<std::int32_t>(n);
            pc.axis_stride = 8;
            const std::pair<std::uint32_t, std::uint32_t> spec[] = {{ELEM, 8}, {RANK, 1}, {INDEX_TYPE, index_type}, {POLICY, policy}};
            r.run(module_of(move_b, sizeof move_b), spec, pc, 1);
            bool any_bad = false;
            auto* out = r.at<std::uint64_t>(DST, 0);
            for (int i = 0; i < m; ++i) {
                std::int64_t v = idx[i];
                bool bad;
                if (index_type == 2) {
                    if (v < 0) v += n;
                    bad = v < 0 || v >= n;
                } else {
                    const auto u = static_cast<std::uint64_t>(idx[i]);
                    bad = u >= static_cast<std::uint64_t>(n);
                    v = bad ? n : static_cast<std::int64_t>(u);
                }
                any_bad |= bad;
                const std::int64_t c = v < 0 ? 0 : v >= n ? n - 1 : v;
                INFO("index " << idx[i] << " of type " << index_type);
                CHECK(out[i] == in[c]);
            }
            // under the error policy the flag word is raised exactly when an index was outside
            CHECK(*r.at<std::uint32_t>(FLAG, 0) == (policy == 0 && any_bad ? 1u : 0u));
        }
    CHECK(r.inst.messages() == 0);
}

TEST_CASE("vulkan baseline: the move shader pads with a constant, the fold computed in the shader", "[vulkan][baseline]") {
    rig r;
    const int n = 300, before = 7, after = 11;
    auto* in = r.at<std::uint32_t>(SRC, 0);
    for (int i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>(1000 + i);
    strix::plan::move_dim d;
    d.size = before + n + after;
    d.dst = 4;
    d.src = 4;
    d.padded = true;
    d.lo = before;
    d.hi = before + n;
    put_record(r, 0, 0, d, /*map: padded*/ 1);
    push32 pc;
    pc.count = static_cast<std::uint32_t>(d.size);
    pc.fill[0] = 0xdeadbeefu;
    const std::pair<std::uint32_t, std::uint32_t> spec[] = {{ELEM, 4}, {RANK, 1}, {FOLD, 0}};
    r.run(module_of(move_b, sizeof move_b), spec, pc, (pc.count + 255) / 256);
    auto* out = r.at<std::uint32_t>(DST, 0);
    int wrong = 0;
    for (int i = 0; i < d.size; ++i) wrong += out[i] != (i < before || i >= before + n ? 0xdeadbeefu : in[i - before]);
    CHECK(wrong == 0);
    CHECK(r.inst.messages() == 0);
}

namespace {
/// A Dim record of the baseline path (common.glsl: seven 32-bit fields) at record `k` from `at`.
void put_dim(rig& r, std::size_t at, int k, std::int32_t size, std::int32_t dst, std::int32_t src, std::int32_t key) {
    const std::int32_t rec[7] = {size, dst, src, key, 0, 0, 0};
    std::memcpy(r.at<std::byte>(PLAN, at + 28 * static_cast<std::size_t>(k)), rec, sizeof rec);
}
constexpr std::uint32_t PHASE = 4;
} // namespace

TEST_CASE("vulkan baseline: the scatter shader, the last update winning where targets repeat", "[vulkan][baseline]") {
    rig r;
    std::mt19937 g(5);
    const int n = 50, m = 40;
    for (const bool repeats : {false, true}) {
        r.clear();
        std::vector<std::int32_t> idx(m);
        for (int i = 0; i < m; ++i) idx[static_cast<std::size_t>(i)] = repeats ? static_cast<std::int32_t>(g() % 12) - 6 : i - 45; // some negative
        auto* out = r.at<std::uint32_t>(DST, 64);
        for (int i = 0; i < n; ++i) out[i] = 7u;
        auto* upd = r.at<std::uint32_t>(SRC, 0);
        for (int i = 0; i < m; ++i) upd[i] = 100u + static_cast<std::uint32_t>(i);
        std::memcpy(r.at<std::byte>(IDX, 0), idx.data(), idx.size() * 4);
        put_dim(r, 0, 0, m, 0, 4, 4);
        push32 pc;
        pc.dst = 64;
        pc.lo = 64;
        pc.count = m;
        pc.indices_hi = 1;
        pc.flag_hi = 1;
        pc.aux_addr = 0;
        pc.aux = 3; // pass 1's work groups, written as indirect arguments where a target repeats
        pc.aux2 = 1;
        pc.axis_size = n;
        pc.axis_stride = 4;
        const std::pair<std::uint32_t, std::uint32_t> spec0[] = {{ELEM, 4}, {RANK, 1}, {INDEX_TYPE, 1}, {PHASE, 0}};
        r.run(module_of(scatter_b, sizeof scatter_b), spec0, pc, 1);
        const std::uint32_t* args = r.at<std::uint32_t>(AUX, 0);
        CHECK((args[0] == 3u && args[1] == 1u && args[2] == 1u) == repeats);
        const std::pair<std::uint32_t, std::uint32_t> spec1[] = {{ELEM, 4}, {RANK, 1}, {INDEX_TYPE, 1}, {PHASE, 1}};
        r.run(module_of(scatter_b, sizeof scatter_b), spec1, pc, 1);
        std::vector<std::uint32_t> want(n, 7u);
        for (int i = 0; i < m; ++i) want[static_cast<std::size_t>((idx[static_cast<std::size_t>(i)] + n) % n)] = upd[i];
        CHECK(std::vector<std::uint32_t>(out, out + n) == want);
        CHECK(*r.at<std::uint32_t>(FLAG, 0) == 0u);
    }
    CHECK(r.inst.messages() == 0);
}

TEST_CASE("vulkan baseline: the tuples shader resolves int64 index tuples into offsets written as word pairs, and checks chunks of indices", "[vulkan][baseline]") {
    rig r;
    // tuples of (row, column) into a [7, 9] tensor of 4-byte elements (byte strides 36, 4)
    const std::int64_t tuples[][2] = {{0, 0}, {6, 8}, {-1, -1}, {-7, 3}, {2, -9}, {7, 0}, {0, 9}, {-8, 2}};
    const int count = static_cast<int>(std::size(tuples));
    for (const std::uint32_t policy : {0u, 1u}) {
        r.clear();
        std::memcpy(r.at<std::byte>(IDX, 0), tuples, sizeof tuples);
        put_dim(r, 0, 0, count, 0, 0, 16);  // the tuple dimension: 16 bytes per tuple
        put_dim(r, 0, 1, 7, 0, 36, 0);      // component 0: rows
        put_dim(r, 0, 2, 9, 0, 4, 8);       // component 1: columns
        push32 pc;
        pc.dst = 0;
        pc.dst_hi = 1;
        pc.indices_hi = 1;
        pc.flag_hi = 1;
        pc.count = static_cast<std::uint32_t>(count);
        pc.aux = 2;
        pc.axis_stride = 0; // no bias
        const std::pair<std::uint32_t, std::uint32_t> spec[] = {{RANK, 1}, {INDEX_TYPE, 2}, {POLICY, policy}, {PHASE, 0}};
        r.run(module_of(tuples_b, sizeof tuples_b), spec, pc, 1);
        const auto* out = r.at<std::int64_t>(DST, 0);
        bool any_bad = false;
        for (int i = 0; i < count; ++i) {
            std::int64_t at = 0;
            const std::int64_t sizes[2] = {7, 9}, strides[2] = {36, 4};
            for (int c = 0; c < 2; ++c) {
                std::int64_t v = tuples[i][c];
                if (v < 0) v += sizes[c];
                any_bad |= v < 0 || v >= sizes[c];
                at += (v < 0 ? 0 : v >= sizes[c] ? sizes[c] - 1 : v) * strides[c];
            }
            INFO("tuple " << i);
            CHECK(out[i] == at);
        }
        CHECK(*r.at<std::uint32_t>(FLAG, 0) == (policy == 0 && any_bad ? 1u : 0u));
    }
    // PHASE 1: 16-byte chunks of C-order int64 indices checked against an axis of 10
    for (const bool bad : {false, true}) {
        r.clear();
        std::vector<std::int64_t> idx = {0, 9, -10, -1, 5, 3, std::int64_t{1} << 33, 2};
        if (!bad) idx[6] = 4;
        std::memcpy(r.at<std::byte>(IDX, 0), idx.data(), idx.size() * 8);
        push32 pc;
        pc.indices_hi = 1;
        pc.flag_hi = 1;
        pc.count = 4; // chunks
        pc.axis_size = 10;
        const std::pair<std::uint32_t, std::uint32_t> spec[] = {{INDEX_TYPE, 2}, {POLICY, 0}, {PHASE, 1}};
        r.run(module_of(tuples_b, sizeof tuples_b), spec, pc, 1);
        CHECK(*r.at<std::uint32_t>(FLAG, 0) == (bad ? 1u : 0u));
    }
    CHECK(r.inst.messages() == 0);
}

TEST_CASE("vulkan baseline: the tile shader gathers elements through shared memory", "[vulkan][baseline]") {
    rig r;
    // gather-elements on axis 0: out[i][j] = in[idx[i][j]][j], in [n, w] of 4-byte words,
    // idx and out [m, w]; laid out as the encoder's tile path takes it (detail::tile_plan)
    const std::int64_t n = 128, w = 128, m = 128;
    constexpr std::uint32_t tile_words = 4096, TILE_WORDS = 12;
    std::mt19937 g(3);
    for (const std::size_t src_at : {std::size_t{0}, std::size_t{4}}) // 4: rows not 16-byte aligned, one position per invocation
        for (const std::uint32_t policy : {0u, 1u}) {
            r.clear();
            auto* in = r.at<std::uint32_t>(SRC, src_at);
            for (std::int64_t i = 0; i < n * w; ++i) in[i] = static_cast<std::uint32_t>(g());
            auto* idx = r.at<std::int32_t>(IDX, 0);
            for (std::int64_t i = 0; i < m * w; ++i) idx[i] = static_cast<std::int32_t>(g() % (2 * n)) - static_cast<std::int32_t>(n);
            if (policy == 0) idx[77] = static_cast<std::int32_t>(n); // out of range: the flag
            strix::plan::move_plan p;
            p.rank = 2;
            p.elem = 4;
            p.dims[0].size = m;
            p.dims[0].dst = 4 * w;
            p.dims[0].src = 0; // the index decides
            p.dims[0].key = 4 * w;
            p.dims[1].size = w;
            p.dims[1].dst = 4;
            p.dims[1].src = 4;
            p.dims[1].key = 4;
            p.src = reinterpret_cast<const std::byte*>(src_at);
            p.index = reinterpret_cast<const std::byte*>(std::uintptr_t{64}); // (only tested for null)
            p.index_type = strix::dtype::int32;
            p.axis_size = n;
            p.axis_stride = 4 * w;
            const auto t = vk::detail::tile_plan(p, tile_words);
            REQUIRE(t.has_value());
            CHECK(t->vec == (src_at % 16 == 0 ? 4u : 1u));
            for (int k = 0; k < 2; ++k) {
                const auto& d = p.dims[static_cast<std::size_t>(k)];
                put_dim(r, 0, k, static_cast<std::int32_t>(d.size), static_cast<std::int32_t>(d.dst), static_cast<std::int32_t>(d.src),
                        static_cast<std::int32_t>(d.key));
            }
            push32 pc;
            pc.src = static_cast<std::uint32_t>(src_at);
            pc.indices_hi = 1;
            pc.flag_hi = 1;
            pc.count = static_cast<std::uint32_t>(t->rows);
            pc.axis_size = static_cast<std::int32_t>(n);
            pc.axis_stride = static_cast<std::int32_t>(p.axis_stride);
            pc.aux = static_cast<std::uint32_t>(t->axis);
            pc.aux2 = t->width;
            pc.aux_addr = static_cast<std::uint32_t>(t->across);
            pc.lo = static_cast<std::uint32_t>(t->down);
            const std::pair<std::uint32_t, std::uint32_t> spec[] = {{ELEM, 4}, {RANK, 2}, {INDEX_TYPE, 1}, {POLICY, policy}, {VEC, t->vec}, {TILE_WORDS, tile_words}};
            r.run(module_of(tile_b, sizeof tile_b), spec, pc, static_cast<std::uint32_t>(t->groups));
            const auto* out = r.at<std::uint32_t>(DST, 0);
            int wrong = 0;
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < w; ++j) {
                    std::int64_t v = idx[i * w + j];
                    if (v < 0) v += n;
                    v = v < 0 ? 0 : v >= n ? n - 1 : v;
                    wrong += out[i * w + j] != in[v * w + j];
                }
            INFO("source at " << src_at << ", policy " << policy);
            CHECK(wrong == 0);
            CHECK(*r.at<std::uint32_t>(FLAG, 0) == (policy == 0 ? 1u : 0u));
        }
    CHECK(r.inst.messages() == 0);
}
