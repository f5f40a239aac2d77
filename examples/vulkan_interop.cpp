// strix inside an application's own Vulkan: the program makes its instance, device, queue,
// buffers and command buffer with plain Vulkan calls (through volk), hands them to strix, and
// records strix's operators into its own command buffer between its own commands:
//
//   1. its own vkCmdUpdateBuffer writes a 4x6 float32 image and 3 int32 row indices into its buffers
//   2. strix pads the image by 1 on both axes (reflect) into another of its buffers: 6x8
//   3. strix gathers rows 5, 0, 2 of the padded image into a strix device tensor: 3x8
//   4. its own vkCmdCopyBuffer copies strix's tensor into a host-visible buffer of its own
//
// One submission, one fence of its own; then strix's index check, and a comparison with the
// CPU's pad and gather, bit for bit. Fails (exit 1) on any difference and on any message from
// the validation layer (run with VK_LOADER_LAYERS_ENABLE='*validation').

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;

namespace {

int messages = 0;

/// A Vulkan structure with its sType (and pNext) set, everything else zero.
template <class T>
T init(VkStructureType type, const void* next = nullptr) {
    T t{};
    t.sType = type;
    t.pNext = const_cast<void*>(next);
    return t;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    if (data->pMessageIdName && std::strncmp(data->pMessageIdName, "Loader", 6) == 0) return VK_FALSE;
    ++messages;
    std::fprintf(stderr, "validation: %s\n", data->pMessage ? data->pMessage : "(no text)");
    return VK_FALSE;
}

void ok(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed (" + std::to_string(r) + ")");
}

// The application's Vulkan objects, destroyed in reverse order of making.
struct app {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    std::uint32_t family = 0;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};
    struct owned_buffer {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        void* mapped = nullptr;
    };
    std::deque<owned_buffer> buffers; // references stay valid as it grows
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkDeviceCreateInfo device_info{};

    ~app() {
        if (device) {
            vkDeviceWaitIdle(device);
            if (fence) vkDestroyFence(device, fence, nullptr);
            if (pool) vkDestroyCommandPool(device, pool, nullptr);
            for (auto& b : buffers) {
                vkDestroyBuffer(device, b.buffer, nullptr);
                vkFreeMemory(device, b.memory, nullptr);
            }
            vkDestroyDevice(device, nullptr);
        }
        if (messenger) vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
        if (instance) vkDestroyInstance(instance, nullptr);
    }

    // A buffer that shaders address by device address; host-visible when `host` (else device-local).
    owned_buffer& make_buffer(VkDeviceSize bytes, bool host) {
        VkBufferCreateInfo bi = init<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        bi.size = bytes;
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        owned_buffer b;
        ok(vkCreateBuffer(device, &bi, nullptr, &b.buffer), "vkCreateBuffer");
        buffers.push_back(b);
        VkMemoryRequirements req{};
        vkGetBufferMemoryRequirements(device, b.buffer, &req);
        const VkMemoryPropertyFlags want = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        std::optional<std::uint32_t> type;
        for (std::uint32_t i = 0; i < memory.memoryTypeCount && !type; ++i)
            if ((req.memoryTypeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) type = i;
        if (!type) throw std::runtime_error("no suitable memory type");
        VkMemoryAllocateFlagsInfo flags = init<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo ai = init<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags);
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = *type;
        ok(vkAllocateMemory(device, &ai, nullptr, &buffers.back().memory), "vkAllocateMemory");
        ok(vkBindBufferMemory(device, b.buffer, buffers.back().memory, 0), "vkBindBufferMemory");
        if (host) ok(vkMapMemory(device, buffers.back().memory, 0, VK_WHOLE_SIZE, 0, &buffers.back().mapped), "vkMapMemory");
        return buffers.back();
    }
};

} // namespace

int main() {
    if (volkInitialize() != VK_SUCCESS) {
        std::printf("no Vulkan loader; nothing to show\n");
        return 0;
    }
    app a;
    VkPhysicalDeviceVulkan12Features f12 = init<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkPhysicalDeviceFeatures2 f2 = init<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = init<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    try {
        // --- the application's own instance, device and queue -------------------------------
        VkApplicationInfo info = init<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        info.pApplicationName = "vulkan_interop";
        info.apiVersion = VK_API_VERSION_1_2;
        const char* exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
        VkInstanceCreateInfo ici = init<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        ici.pApplicationInfo = &info;
        ici.enabledExtensionCount = 1;
        ici.ppEnabledExtensionNames = exts;
        ok(vkCreateInstance(&ici, nullptr, &a.instance), "vkCreateInstance");
        volkLoadInstance(a.instance);
        VkDebugUtilsMessengerCreateInfoEXT mi = init<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
        mi.pfnUserCallback = on_message;
        ok(vkCreateDebugUtilsMessengerEXT(a.instance, &mi, nullptr, &a.messenger), "vkCreateDebugUtilsMessengerEXT");

        // the best device by type, and a queue family with compute
        std::uint32_t n = 0;
        ok(vkEnumeratePhysicalDevices(a.instance, &n, nullptr), "vkEnumeratePhysicalDevices");
        std::vector<VkPhysicalDevice> devices(n);
        ok(vkEnumeratePhysicalDevices(a.instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
        const auto rank = [](VkPhysicalDeviceType t) {
            return t == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 4 : t == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 3 : t == VK_PHYSICAL_DEVICE_TYPE_CPU ? 1 : 2;
        };
        int best = -1;
        VkPhysicalDeviceProperties props{};
        for (auto d : devices) {
            VkPhysicalDeviceProperties p{};
            vkGetPhysicalDeviceProperties(d, &p);
            if (p.apiVersion < VK_API_VERSION_1_2 || rank(p.deviceType) <= best) continue;
            best = rank(p.deviceType);
            a.physical = d;
            props = p;
        }
        if (!a.physical) {
            std::printf("no Vulkan 1.2 device; nothing to show\n");
            return 0;
        }
        std::uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(a.physical, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> families(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(a.physical, &nq, families.data());
        while (a.family < nq && !(families[a.family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++a.family;
        qi.queueFamilyIndex = a.family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        // what strix needs: buffer device addresses and 64-bit integers in shaders
        f12.bufferDeviceAddress = VK_TRUE;
        f2.features.shaderInt64 = VK_TRUE;
        a.device_info = init<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2);
        a.device_info.queueCreateInfoCount = 1;
        a.device_info.pQueueCreateInfos = &qi;
        ok(vkCreateDevice(a.physical, &a.device_info, nullptr, &a.device), "vkCreateDevice");
        volkLoadDevice(a.device);
        vkGetDeviceQueue(a.device, a.family, 0, &a.queue);
        vkGetPhysicalDeviceMemoryProperties(a.physical, &a.memory);
        std::printf("vulkan_interop: the application's own device %s\n", props.deviceName);
    } catch (const std::exception& e) {
        std::printf("no usable Vulkan device (%s); nothing to show\n", e.what());
        return 0;
    }

    // --- the data, and what the CPU makes of it ----------------------------------------------
    constexpr int H = 4, W = 6;
    float image[H * W];
    for (int i = 0; i < H * W; ++i) image[i] = static_cast<float>(i) * 0.5f - 3.0f;
    const std::int32_t rows[3] = {5, 0, 2};
    const strix::pad_desc pad1{.mode = strix::pad_mode::reflect, .start = {1, 1}, .end = {1, 1}};
    const strix::gather_desc by_row{.axis = 0};
    float padded_cpu[(H + 2) * (W + 2)], gathered_cpu[3 * (W + 2)];
    const strix::tensor_view<const float, strix::extents<H, W>> image_v(image);
    const strix::tensor_view<float, strix::extents<H + 2, W + 2>> padded_v(padded_cpu);
    const strix::tensor_view<const std::int32_t, strix::extents<3>> rows_v(rows);
    const strix::tensor_view<float, strix::extents<3, W + 2>> gathered_v(gathered_cpu);
    strix::pad(image_v, padded_v, pad1);
    strix::gather(strix::tensor_view<const float, strix::extents<H + 2, W + 2>>(padded_cpu), rows_v, gathered_v, by_row);

    int status = 0;
    try {
        // --- the application's buffers and command buffer ------------------------------------
        auto& image_buf = a.make_buffer(sizeof image, false);
        auto& rows_buf = a.make_buffer(64, false); // the indices at byte 16: a view at an offset
        auto& padded_buf = a.make_buffer(sizeof padded_cpu, false);
        auto& readback = a.make_buffer(sizeof gathered_cpu, true);
        VkCommandPoolCreateInfo pci = init<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
        pci.queueFamilyIndex = a.family;
        ok(vkCreateCommandPool(a.device, &pci, nullptr, &a.pool), "vkCreateCommandPool");
        VkCommandBufferAllocateInfo cai = init<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        cai.commandPool = a.pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        ok(vkAllocateCommandBuffers(a.device, &cai, &cmd), "vkAllocateCommandBuffers");
        VkFenceCreateInfo fci = init<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        ok(vkCreateFence(a.device, &fci, nullptr, &a.fence), "vkCreateFence");

        // --- strix adopts the device; views over the application's buffers -------------------
        vk::context ctx(vk::adopted_device{a.instance, a.physical, a.device, a.family, a.queue, &a.device_info});
        const vk::device_view image_dv = vk::wrap(ctx, image_buf.buffer, 0, sizeof image, strix::dtype::float32, strix::shape{H, W});
        const vk::device_view rows_dv = vk::wrap(ctx, rows_buf.buffer, 16, sizeof rows, strix::dtype::int32, strix::shape{3});
        const vk::device_view padded_dv = vk::wrap(ctx, padded_buf.buffer, 0, sizeof padded_cpu, strix::dtype::float32, strix::shape{H + 2, W + 2});
        const vk::device_tensor gathered(ctx, strix::dtype::float32, strix::shape{3, W + 2}); // strix's own buffer

        VkCommandBufferBeginInfo bi = init<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        ok(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
        // 1. the application writes its inputs with its own commands
        vkCmdUpdateBuffer(cmd, image_buf.buffer, 0, sizeof image, image);
        vkCmdUpdateBuffer(cmd, rows_buf.buffer, 16, sizeof rows, rows);
        // 2, 3. strix records its pad and gather (with its barrier before, and after finish())
        vk::command_recorder rec(ctx, cmd);
        rec.pad(image_dv, padded_dv, pad1);
        rec.gather(padded_dv, rows_dv, gathered.view(), by_row);
        rec.finish();
        // 4. the application copies strix's tensor with its own command
        const VkBufferCopy region{0, 0, sizeof gathered_cpu};
        vkCmdCopyBuffer(cmd, gathered.storage().handle(), readback.buffer, 1, &region);
        VkMemoryBarrier to_host = init<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0, nullptr);
        ok(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
        VkSubmitInfo si = init<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        ok(vkQueueSubmit(a.queue, 1, &si, a.fence), "vkQueueSubmit");
        ok(vkWaitForFences(a.device, 1, &a.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
        rec.throw_index_errors(); // an index out of range would throw here, naming it

        float gathered_gpu[3 * (W + 2)];
        std::memcpy(gathered_gpu, readback.mapped, sizeof gathered_gpu);
        // the padded image too, read back through strix (a download of the application's buffer)
        const strix::host_tensor padded_gpu = vk::stream::download_view(ctx, padded_dv);
        const bool same = std::memcmp(gathered_gpu, gathered_cpu, sizeof gathered_cpu) == 0 &&
                          std::memcmp(padded_gpu.data(), padded_cpu, sizeof padded_cpu) == 0;
        std::printf("  pad (reflect, 1) of its 4x6 buffer into its 6x8 buffer, gather of rows 5, 0, 2 into a strix tensor, its own copy out\n");
        std::printf("  row 0 of the result:");
        for (int x = 0; x < W + 2; ++x) std::printf(" %g", gathered_gpu[x]);
        std::printf("\n  %s the CPU bit for bit\n", same ? "equal to" : "DIFFERENT from");
        if (!same) status = 1;
    } catch (const std::exception& e) {
        std::printf("failed: %s\n", e.what());
        status = 1;
    }
    if (messages) {
        std::printf("%d validation message(s)\n", messages);
        status = 1;
    }
    return status;
}
