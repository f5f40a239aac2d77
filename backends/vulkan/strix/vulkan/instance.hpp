#pragma once
/// The loader (volk), Vulkan instances, what strix knows about each device and which one a
/// context picks, and a device the application made for a context to adopt (with the features
/// it was made with). Defined in impl/instance.ipp.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <volk.h>

#include "strix/vulkan/check.hpp"

namespace strix::vulkan {

/// What strix knows about one Vulkan device.
struct device_info {
    std::uint32_t index = 0;                     ///< position in vkEnumeratePhysicalDevices
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    std::uint32_t api_version = 0;
    std::uint64_t device_local_bytes = 0;        ///< size of the largest device-local heap
    std::uint64_t max_storage_buffer_range = 0;
    std::uint64_t max_memory_allocation = 0;
    bool int64 = false;                          ///< shaderInt64
    bool float64 = false;                        ///< shaderFloat64
    bool int64_atomics = false;                  ///< shaderBufferInt64Atomics
    bool float32_atomic_add = false;             ///< VK_EXT_shader_atomic_float's shaderBufferFloat32AtomicAdd
    bool float64_atomic_add = false;             ///< VK_EXT_shader_atomic_float's shaderBufferFloat64AtomicAdd
    bool denorm_preserve32 = false;              ///< shaderDenormPreserveFloat32 (float32 reductions keep subnormals)
    bool storage8 = false;                       ///< storageBuffer8BitAccess
    bool storage16 = false;                      ///< storageBuffer16BitAccess
    bool buffer_device_address = false;
    /// maxPerStageDescriptorStorageBuffers and minStorageBufferOffsetAlignment: the baseline
    /// path binds up to 4 storage buffers per dispatch, at offsets of that alignment
    std::uint32_t max_storage_buffers = 0;
    std::uint64_t storage_offset_alignment = 256;
    bool host_visible_device_memory = false;     ///< device-local memory the host can map
    /// VK_EXT_external_memory_host's minImportedHostPointerAlignment (0: no such extension):
    /// host memory the device can copy from and to directly
    std::uint64_t host_import_alignment = 0;
    std::string unusable;                        ///< why strix cannot use it (empty: usable)

    /// Whether the device can take the full path (Vulkan 1.2, bufferDeviceAddress and
    /// shaderInt64); every usable device can take the baseline path.
    [[nodiscard]] bool full_path() const { return unusable.empty() && buffer_device_address && int64 && api_version >= VK_API_VERSION_1_2; }
};

/// "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other".
inline const char* type_name(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

namespace detail {

/// The baseline path's bindings per dispatch (shaders/common.glsl: SRC, DST, IDX, PLAN, FLAG,
/// AUX): four storage buffers, Vulkan 1.1's least maxPerStageDescriptorStorageBuffers, and the
/// plan and the flag as a uniform buffer and a storage texel buffer.
inline constexpr std::uint32_t baseline_bindings = 6;
inline constexpr std::uint32_t baseline_storage_buffers = 4;
inline constexpr std::uint32_t baseline_plan_binding = 3, baseline_flag_binding = 4;
inline constexpr VkDescriptorType baseline_binding_type(std::uint32_t binding) {
    return binding == baseline_plan_binding ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
           : binding == baseline_flag_binding ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
                                              : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

int type_rank(VkPhysicalDeviceType t);

/// Loads the Vulkan loader once per process; throws when there is none.
void load_loader();

/// Keeps the drivers loaded for the life of the process with one extra, bare instance: without
/// it every new instance loads the drivers again, and some (NVIDIA's) run out of static TLS
/// after a few dozen loads in one process. Destroyed at exit.
void keep_drivers_loaded();

/// `instance_api`: the apiVersion its instance was made with; the device is described as of
/// the lower of that and its own version (the queries and the path that version allows).
device_info describe(VkPhysicalDevice pd, std::uint32_t index, std::uint32_t instance_api = VK_API_VERSION_1_2);

/// A Vulkan instance with the debug-utils messenger when the extension is present (so that
/// validation messages reach strix). `messages` counts what the messenger reported.
/// `api_version`: the application's apiVersion (1.1 makes the layer hold every call and module
/// to Vulkan 1.1, as on a device that has no more).
class instance {
public:
    explicit instance(bool want_messenger, std::uint32_t api_version = VK_API_VERSION_1_2);
    instance(const instance&) = delete;
    instance& operator=(const instance&) = delete;
    ~instance() {
        if (messenger_) destroy_messenger_(handle_, messenger_, nullptr);
        if (handle_) vkDestroyInstance(handle_, nullptr);
    }
    [[nodiscard]] VkInstance get() const { return handle_; }
    [[nodiscard]] int messages() const { return messages_; }

    [[nodiscard]] std::vector<VkPhysicalDevice> physical_devices() const;

private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
        auto* self = static_cast<instance*>(user);
        // the loader's own chatter is informational; everything from a layer counts
        const bool from_validation = data->pMessageIdName && std::strncmp(data->pMessageIdName, "Loader", 6) != 0;
        if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT && from_validation) {
            ++self->messages_;
            std::fprintf(stderr, "strix::vulkan: validation: %s\n", data->pMessage ? data->pMessage : "(no text)");
        }
        return VK_FALSE;
    }
    VkInstance handle_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger_ = nullptr;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
    int messages_ = 0;
};

} // namespace detail

/// Every Vulkan device present, in enumeration order. Throws strix::error when there is no loader.
std::vector<device_info> list_devices();

/// Which device `list_devices()[i]` a context picks: `wanted` (an index, or a case-insensitive
/// part of the name; default: context_options().device, which STRIX_VULKAN_DEVICE sets), else
/// the best usable one by type (discrete > integrated > virtual > CPU). Throws when none fits.
std::uint32_t choose_device(const std::vector<device_info>& devices, std::optional<std::string> wanted = std::nullopt);

namespace detail {
/// choose_device without the default: `wanted`, or none for the best by type.
std::uint32_t pick_device(const std::vector<device_info>& devices, const std::optional<std::string>& wanted);
} // namespace detail

/// A Vulkan device the application made, for a context to adopt: strix then runs on the
/// application's queue and allocates from its device, beside the application's own work.
/// The application keeps them: strix never destroys what it was given.
///
/// strix submits to `queue` only inside its own calls (stream::submit/run/replay, upload,
/// download and the ops.hpp calls) and takes no lock the application knows of: do not use the
/// queue from another thread during those calls (Vulkan's external synchronisation rule).
struct adopted_device {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t queue_family = 0;                  ///< must have compute
    VkQueue queue = VK_NULL_HANDLE;                  ///< a queue of queue_family
    /// How the device was made (its features and extensions are read from it, including the
    /// pNext chain); read during the constructor only. strix takes the full path where it was
    /// made with bufferDeviceAddress and shaderInt64 (else the baseline path), and uses
    /// storageBuffer8BitAccess + storageBuffer16BitAccess, shaderBufferInt64Atomics,
    /// shaderFloat64 and VK_EXT_shader_atomic_float where on.
    const VkDeviceCreateInfo* create_info = nullptr;
    /// The apiVersion `instance` was made with: below 1.2, strix uses Vulkan 1.1 alone (the
    /// baseline path). (Last, so that aggregate initializers written before it still compile.)
    std::uint32_t api_version = VK_API_VERSION_1_2;
};

namespace detail {

/// The features a device was made with, from its VkDeviceCreateInfo (core structures of 1.0
/// to 1.2 and their extension forms, in pEnabledFeatures or the pNext chain).
struct enabled_features {
    bool buffer_device_address = false, int64 = false, float64 = false, storage8 = false, storage16 = false;
    bool int64_atomics = false, float32_atomic_add = false, float64_atomic_add = false, atomic_float_extension = false;
    bool external_memory_host = false;

    static enabled_features of(const VkDeviceCreateInfo& ci);
};

} // namespace detail

} // namespace strix::vulkan
