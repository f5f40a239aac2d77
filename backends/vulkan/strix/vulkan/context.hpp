#pragma once
/// The Vulkan context: loader (volk), instance, the chosen device, its compute queue, buffers with
/// device addresses, and the compute pipelines (created once per device, kept in a pipeline
/// cache that can be saved to and loaded from disk).
///
/// Threads: a context may be shared by several threads — creating buffers and pipelines and
/// submitting work are synchronised inside. A `stream` (stream.hpp) and a `buffer` are used by
/// one thread at a time.

#include <algorithm>
#include <chrono>
#include <atomic>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <volk.h>

#include "strix/vulkan/check.hpp"
#include "strix/vulkan/config.hpp"
#include "strix/vulkan/spirv/variants.h"

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
    bool host_visible_device_memory = false;     ///< device-local memory the host can map
    /// VK_EXT_external_memory_host's minImportedHostPointerAlignment (0: no such extension):
    /// host memory the device can copy from and to directly
    std::uint64_t host_import_alignment = 0;
    std::string unusable;                        ///< why strix cannot use it (empty: usable)
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

inline int type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

/// Loads the Vulkan loader once per process; throws when there is none.
} // namespace detail

/// Defined by <strix/vulkan/volk_implementation.hpp>: a program that forgot it fails to link with
/// this name (rather than volk's "undefined reference to vkGetInstanceProcAddr", whose natural
/// fix, -lvulkan, does not help).
extern "C" const int strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file;

namespace detail {

inline void load_loader() {
    // read, not only named, so that every build (optimised ones too) asks the linker for it
    if (strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file != 1)
        throw error(error_code::unsupported, "strix::vulkan: volk's implementation is compiled in wrongly");
    static const VkResult r = volkInitialize();
    if (r != VK_SUCCESS)
        throw error(error_code::unsupported, "strix::vulkan: no Vulkan loader found (libvulkan.so.1 / vulkan-1.dll); install one, e.g. Debian's libvulkan1");
}

/// Keeps the drivers loaded for the life of the process with one extra, bare instance: without
/// it every new instance loads the drivers again, and some (NVIDIA's) run out of static TLS
/// after a few dozen loads in one process. Destroyed at exit.
inline void keep_drivers_loaded() {
    struct anchor {
        VkInstance handle = VK_NULL_HANDLE;
        anchor() {
            auto app = VkApplicationInfo{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "strix", 0, "strix", 0, VK_API_VERSION_1_2};
            VkInstanceCreateInfo ci{};
            ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
            ci.pApplicationInfo = &app;
            if (vkCreateInstance(&ci, nullptr, &handle) != VK_SUCCESS) handle = VK_NULL_HANDLE;
        }
        ~anchor() {
            if (!handle) return;
            if (auto destroy = reinterpret_cast<PFN_vkDestroyInstance>(vkGetInstanceProcAddr(handle, "vkDestroyInstance"))) destroy(handle, nullptr);
        }
    };
    static anchor a;
}

inline device_info describe(VkPhysicalDevice pd, std::uint32_t index) {
    device_info d;
    d.index = index;
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(pd, &props);
    d.name = props.deviceName;
    d.type = props.deviceType;
    d.api_version = props.apiVersion;
    d.max_storage_buffer_range = props.limits.maxStorageBufferRange;
    VkPhysicalDeviceMemoryProperties mem{};
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (std::uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) d.device_local_bytes = std::max<std::uint64_t>(d.device_local_bytes, mem.memoryHeaps[i].size);
    for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
        const auto f = mem.memoryTypes[i].propertyFlags;
        const auto want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((f & want) == want) d.host_visible_device_memory = true;
    }
    if (VK_API_VERSION_MINOR(props.apiVersion) < 2 && VK_API_VERSION_MAJOR(props.apiVersion) == 1) {
        d.unusable = "it supports Vulkan " + std::to_string(VK_API_VERSION_MAJOR(props.apiVersion)) + "." +
                     std::to_string(VK_API_VERSION_MINOR(props.apiVersion)) + "; strix needs 1.2";
        return d;
    }
    std::uint32_t next = 0;
    check(vkEnumerateDeviceExtensionProperties(pd, nullptr, &next, nullptr), "vkEnumerateDeviceExtensionProperties");
    std::vector<VkExtensionProperties> exts(next);
    check(vkEnumerateDeviceExtensionProperties(pd, nullptr, &next, exts.data()), "vkEnumerateDeviceExtensionProperties");
    bool atomic_float = false, host_import = false;
    for (const auto& e : exts) {
        atomic_float |= std::strcmp(e.extensionName, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) == 0;
        host_import |= std::strcmp(e.extensionName, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) == 0;
    }
    auto hp = make<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
    auto p12 = make<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES, host_import ? &hp : nullptr);
    auto m3 = make<VkPhysicalDeviceMaintenance3Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &p12);
    auto p2 = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3);
    vkGetPhysicalDeviceProperties2(pd, &p2);
    d.denorm_preserve32 = p12.shaderDenormPreserveFloat32;
    d.max_memory_allocation = m3.maxMemoryAllocationSize;
    if (host_import) d.host_import_alignment = std::max<std::uint64_t>(1, hp.minImportedHostPointerAlignment);
    auto af = make<VkPhysicalDeviceShaderAtomicFloatFeaturesEXT>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT);
    auto f11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, atomic_float ? &af : nullptr);
    auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f11);
    auto f2 = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    d.float32_atomic_add = atomic_float && af.shaderBufferFloat32AtomicAdd;
    d.float64_atomic_add = atomic_float && af.shaderBufferFloat64AtomicAdd;
    d.int64 = f2.features.shaderInt64;
    d.float64 = f2.features.shaderFloat64;
    d.storage8 = f12.storageBuffer8BitAccess;
    d.int64_atomics = f12.shaderBufferInt64Atomics;
    d.storage16 = f11.storageBuffer16BitAccess;
    d.buffer_device_address = f12.bufferDeviceAddress;
    if (!d.buffer_device_address) d.unusable = "it lacks bufferDeviceAddress, which strix uses to address tensors of any size";
    else if (!d.int64) d.unusable = "it lacks shaderInt64, which strix needs for 64-bit addresses";
    return d;
}

/// A Vulkan instance with the debug-utils messenger when the extension is present (so that
/// validation messages reach strix). `messages` counts what the messenger reported.
class instance {
public:
    explicit instance(bool want_messenger) {
        load_loader();
        keep_drivers_loaded();
        std::uint32_t n = 0;
        check(vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr), "vkEnumerateInstanceExtensionProperties");
        std::vector<VkExtensionProperties> exts(n);
        check(vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data()), "vkEnumerateInstanceExtensionProperties");
        bool debug_utils = false;
        for (const auto& e : exts) debug_utils |= std::strcmp(e.extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0;
        debug_utils &= want_messenger;
        auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        app.pApplicationName = "strix";
        app.pEngineName = "strix";
        app.apiVersion = VK_API_VERSION_1_2;
        const char* ext_names[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
        auto ci = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        ci.pApplicationInfo = &app;
        ci.enabledExtensionCount = debug_utils ? 1 : 0;
        ci.ppEnabledExtensionNames = ext_names;
        check(vkCreateInstance(&ci, nullptr, &handle_), "vkCreateInstance");
        // core instance functions are the loader's trampolines, the same for every instance;
        // extension functions are fetched per instance (another instance may lack them)
        volkLoadInstanceOnly(handle_);
        create_messenger_ = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(vkGetInstanceProcAddr(handle_, "vkCreateDebugUtilsMessengerEXT"));
        destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(vkGetInstanceProcAddr(handle_, "vkDestroyDebugUtilsMessengerEXT"));
        if (debug_utils && create_messenger_ && destroy_messenger_) {
            auto mi = make<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
            mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
            mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                             VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
            mi.pfnUserCallback = &instance::on_message;
            mi.pUserData = this;
            if (create_messenger_(handle_, &mi, nullptr, &messenger_) != VK_SUCCESS) messenger_ = VK_NULL_HANDLE;
        }
    }
    instance(const instance&) = delete;
    instance& operator=(const instance&) = delete;
    ~instance() {
        if (messenger_) destroy_messenger_(handle_, messenger_, nullptr);
        if (handle_) vkDestroyInstance(handle_, nullptr);
    }
    [[nodiscard]] VkInstance get() const { return handle_; }
    [[nodiscard]] int messages() const { return messages_; }

    [[nodiscard]] std::vector<VkPhysicalDevice> physical_devices() const {
        std::uint32_t n = 0;
        check(vkEnumeratePhysicalDevices(handle_, &n, nullptr), "vkEnumeratePhysicalDevices");
        std::vector<VkPhysicalDevice> v(n);
        check(vkEnumeratePhysicalDevices(handle_, &n, v.data()), "vkEnumeratePhysicalDevices");
        v.resize(n);
        return v;
    }

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
inline std::vector<device_info> list_devices() {
    detail::instance inst(false);
    std::vector<device_info> out;
    const auto pds = inst.physical_devices();
    for (std::uint32_t i = 0; i < pds.size(); ++i) out.push_back(detail::describe(pds[i], i));
    return out;
}

/// Which device `list_devices()[i]` a context picks: `wanted` (an index, or a case-insensitive
/// part of the name; default: the STRIX_VULKAN_DEVICE environment variable), else the best
/// usable one by type (discrete > integrated > virtual > CPU). Throws when none fits.
inline std::uint32_t choose_device(const std::vector<device_info>& devices, std::optional<std::string> wanted = std::nullopt) {
    if (!wanted) wanted = detail::read_environment().device;
    auto lower = [](std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    if (devices.empty()) throw error(error_code::unsupported, "strix::vulkan: no Vulkan device found");
    if (wanted) {
        const bool numeric = !wanted->empty() && std::all_of(wanted->begin(), wanted->end(), [](char c) { return c >= '0' && c <= '9'; });
        for (const auto& d : devices) {
            if (numeric ? std::to_string(d.index) == *wanted : lower(d.name).find(lower(*wanted)) != std::string::npos) {
                if (!d.unusable.empty()) throw error(error_code::unsupported, "strix::vulkan: device " + std::to_string(d.index) + " (" + d.name + ") cannot run strix: " + d.unusable);
                return d.index;
            }
        }
        std::string names;
        for (const auto& d : devices) names += (names.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
        throw error(error_code::unsupported, "strix::vulkan: no Vulkan device matches '" + *wanted + "' (present: " + names + ")");
    }
    std::optional<std::uint32_t> best;
    std::string reasons;
    for (const auto& d : devices) {
        if (!d.unusable.empty()) {
            reasons += (reasons.empty() ? "" : "; ") + d.name + ": " + d.unusable;
            continue;
        }
        if (!best || detail::type_rank(d.type) > detail::type_rank(devices[*best].type)) best = d.index;
    }
    if (!best) throw error(error_code::unsupported, "strix::vulkan: no usable Vulkan device (" + reasons + ")");
    return *best;
}

/// How to create a context.
struct context_options {
    std::optional<std::string> device;        ///< index or part of the name; default: STRIX_VULKAN_DEVICE, then the best
    std::filesystem::path pipeline_cache;     ///< load the pipeline cache from here when the file exists
    bool small_storage = true;                ///< use 8/16-bit storage when the device has it (false: the 32-bit word path)
    /// locate every moved element in 64-bit arithmetic, with pad folds read from their tables:
    /// the path calls of 2^31 or more elements (or offsets) take, for tests and measurements
    /// (STRIX_VULKAN_WIDE=1 does the same); by default calls that fit take the 32-bit path
    bool wide_arithmetic = false;
    /// How long a wait for the device polls before it blocks, in microseconds (default: 1000 on
    /// a GPU, 0 on a CPU device; STRIX_VULKAN_SPIN_US overrides both). Polling returns as soon
    /// as the work is done, where a blocking wait returns tens of microseconds later; it keeps
    /// a core busy while it polls.
    std::optional<std::uint32_t> spin_wait_us;
};

class context;

namespace detail {

/// The buffers of a context that are alive, by serial number (never reused, unlike handles):
/// a stream replayed after a tensor it used was destroyed finds out here. Also where the
/// context's host-visible buffers are mapped, so that a transfer from or to their memory goes
/// straight by the device's copy.
class live_set {
public:
    /// `mapped`: where the buffer's memory is mapped (nullptr when it is not), `size` bytes of it.
    std::uint64_t add(const std::byte* mapped = nullptr, std::uint64_t size = 0, VkBuffer handle = VK_NULL_HANDLE) {
        std::lock_guard lock(mutex_);
        ids_.insert(++last_);
        if (mapped) mapped_[reinterpret_cast<std::uintptr_t>(mapped)] = {size, handle};
        return last_;
    }
    void erase(std::uint64_t id, const std::byte* mapped = nullptr) noexcept {
        std::lock_guard lock(mutex_);
        ids_.erase(id);
        if (mapped) mapped_.erase(reinterpret_cast<std::uintptr_t>(mapped));
    }
    /// The first of `ids` that is not alive, or 0.
    template <class Range>
    std::uint64_t first_dead(const Range& ids) const {
        std::lock_guard lock(mutex_);
        for (const std::uint64_t id : ids)
            if (id != 0 && !ids_.count(id)) return id;
        return 0;
    }
    /// The live buffer whose mapping holds all of [p, p + bytes), and p's offset in it; a null
    /// handle when none does.
    std::pair<VkBuffer, std::uint64_t> find_mapped(const void* p, std::uint64_t bytes) const {
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        std::lock_guard lock(mutex_);
        auto it = mapped_.upper_bound(at);
        if (it == mapped_.begin()) return {VK_NULL_HANDLE, 0};
        --it;
        const std::uint64_t off = at - it->first;
        if (off > it->second.size || bytes > it->second.size - off) return {VK_NULL_HANDLE, 0};
        return {it->second.handle, off};
    }

private:
    struct mapping {
        std::uint64_t size;
        VkBuffer handle;
    };
    mutable std::mutex mutex_;
    std::set<std::uint64_t> ids_;
    std::map<std::uintptr_t, mapping> mapped_;
    std::uint64_t last_ = 0;
};

} // namespace detail

/// A device buffer with a device address (move-only owner). Host-visible buffers stay mapped.
/// Its VkBuffer may be used in the application's own commands (see README, "strix inside your
/// Vulkan"): made with storage, transfer source and destination, indirect and device-address
/// usage, exclusive to the context's queue family.
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
    /// Serial number in its context (see device_view::owner); 0 for an empty buffer.
    [[nodiscard]] std::uint64_t id() const { return id_; }

private:
    friend class context;
    void swap(buffer& o) noexcept {
        std::swap(vk_, o.vk_);
        std::swap(device_, o.device_);
        std::swap(buf_, o.buf_);
        std::swap(mem_, o.mem_);
        std::swap(size_, o.size_);
        std::swap(address_, o.address_);
        std::swap(mapped_, o.mapped_);
        std::swap(id_, o.id_);
        std::swap(live_, o.live_);
    }
    void release() noexcept {
        if (!device_) return;
        if (live_) live_->erase(id_, mapped_);
        if (mapped_) vk_->vkUnmapMemory(device_, mem_);
        if (buf_) vk_->vkDestroyBuffer(device_, buf_, nullptr);
        if (mem_) vk_->vkFreeMemory(device_, mem_, nullptr);
        device_ = VK_NULL_HANDLE;
    }
    const VolkDeviceTable* vk_ = nullptr;
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buf_ = VK_NULL_HANDLE;
    VkDeviceMemory mem_ = VK_NULL_HANDLE;
    std::uint64_t size_ = 0;
    VkDeviceAddress address_ = 0;
    std::byte* mapped_ = nullptr;
    std::uint64_t id_ = 0;
    detail::live_set* live_ = nullptr;
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

// (strix::vulkan::shader, the shaders strix runs, is declared in spirv/variants.h with their variants)

/// Specialization constants of a pipeline.
struct pipeline_key {
    shader which = shader::move;
    std::uint32_t elem = 4, rank = 1, index_type = 0, policy = 0, phase = 0;
    std::uint32_t wide = 1; ///< 64-bit coordinate arithmetic (more than 2^32 invocations)
    std::uint32_t type = 0, reduction = 0; ///< reduce.comp: element type (dtype order) and reduction
    std::uint32_t vec = 1; ///< move.comp: elements per chunk (1, or 16/elem for a 16-byte chunk)
    std::uint32_t unroll = 1; ///< move.comp, copy.comp: 16-byte moves per invocation
    std::uint32_t narrow = 0; ///< move.comp: 32-bit arithmetic (every offset of the call fits in an int)
    std::uint32_t fold = 0xffffffffu; ///< move.comp: the pad_mode every padded dimension folds by, computed (0xffffffff: none, tables)
    auto operator<=>(const pipeline_key&) const = default;
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
    std::vector<buffer> scratch;   ///< device scratch, each used whole by one request per stream
    std::vector<bool> scratch_used;
    std::map<pipeline_key, VkPipeline> pipelines;
    buffer staging;                ///< host staging of upload and download (made by the first, then kept)
};

/// A Vulkan device the application made, for a context to adopt: strix then runs on the
/// application's queue and allocates from its device, beside the application's own work.
/// The application keeps them: strix never destroys what it was given.
///
/// strix submits to `queue` only inside its own calls (stream::submit/run/replay, upload,
/// download and the ops.hpp calls) and takes no lock the application knows of: do not use the
/// queue from another thread during those calls (Vulkan's external synchronisation rule).
struct adopted_device {
    VkInstance instance = VK_NULL_HANDLE;            ///< made with apiVersion 1.2 or later
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t queue_family = 0;                  ///< must have compute
    VkQueue queue = VK_NULL_HANDLE;                  ///< a queue of queue_family
    /// How the device was made (its features and extensions are read from it, including the
    /// pNext chain); read during the constructor only. strix needs bufferDeviceAddress and
    /// shaderInt64, and uses storageBuffer8BitAccess + storageBuffer16BitAccess,
    /// shaderBufferInt64Atomics, shaderFloat64 and VK_EXT_shader_atomic_float where on.
    const VkDeviceCreateInfo* create_info = nullptr;
};

namespace detail {

/// The features a device was made with, from its VkDeviceCreateInfo (core structures of 1.0
/// to 1.2 and their extension forms, in pEnabledFeatures or the pNext chain).
struct enabled_features {
    bool buffer_device_address = false, int64 = false, float64 = false, storage8 = false, storage16 = false;
    bool int64_atomics = false, float32_atomic_add = false, float64_atomic_add = false, atomic_float_extension = false;
    bool external_memory_host = false;

    static enabled_features of(const VkDeviceCreateInfo& ci) {
        enabled_features e;
        const auto core = [&](const VkPhysicalDeviceFeatures& f) {
            e.int64 |= f.shaderInt64 == VK_TRUE;
            e.float64 |= f.shaderFloat64 == VK_TRUE;
        };
        if (ci.pEnabledFeatures) core(*ci.pEnabledFeatures);
        for (std::uint32_t i = 0; i < ci.enabledExtensionCount; ++i) {
            e.atomic_float_extension |= std::strcmp(ci.ppEnabledExtensionNames[i], VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) == 0;
            e.external_memory_host |= std::strcmp(ci.ppEnabledExtensionNames[i], VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) == 0;
        }
        for (auto* s = static_cast<const VkBaseInStructure*>(ci.pNext); s; s = s->pNext) {
            switch (s->sType) {
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2: core(reinterpret_cast<const VkPhysicalDeviceFeatures2*>(s)->features); break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
                e.storage16 |= reinterpret_cast<const VkPhysicalDeviceVulkan11Features*>(s)->storageBuffer16BitAccess == VK_TRUE;
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s);
                e.buffer_device_address |= f->bufferDeviceAddress == VK_TRUE;
                e.storage8 |= f->storageBuffer8BitAccess == VK_TRUE;
                e.int64_atomics |= f->shaderBufferInt64Atomics == VK_TRUE;
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
                e.buffer_device_address |= reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(s)->bufferDeviceAddress == VK_TRUE;
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES:
                e.storage8 |= reinterpret_cast<const VkPhysicalDevice8BitStorageFeatures*>(s)->storageBuffer8BitAccess == VK_TRUE;
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES:
                e.storage16 |= reinterpret_cast<const VkPhysicalDevice16BitStorageFeatures*>(s)->storageBuffer16BitAccess == VK_TRUE;
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES:
                e.int64_atomics |= reinterpret_cast<const VkPhysicalDeviceShaderAtomicInt64Features*>(s)->shaderBufferInt64Atomics == VK_TRUE;
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT: {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceShaderAtomicFloatFeaturesEXT*>(s);
                e.float32_atomic_add |= f->shaderBufferFloat32AtomicAdd == VK_TRUE;
                e.float64_atomic_add |= f->shaderBufferFloat64AtomicAdd == VK_TRUE;
                break;
            }
            default: break;
            }
        }
        return e;
    }
};

} // namespace detail

/// One Vulkan device, ready to run strix's operators.
class context {
public:
    /// Loads Vulkan, creates an instance (with the validation messenger when possible), picks a
    /// device (see choose_device) and creates it with one compute queue. Throws strix::error
    /// when there is no loader, no usable device or a call fails.
    explicit context(const context_options& opt = {}) : env_(detail::read_environment()) {
        inst_.emplace(true);
        instance_ = inst_->get();
        const auto pds = inst_->physical_devices();
        std::vector<device_info> infos;
        for (std::uint32_t i = 0; i < pds.size(); ++i) infos.push_back(detail::describe(pds[i], i));
        info_ = infos[choose_device(infos, opt.device ? opt.device : env_.device)];
        physical_ = pds[info_.index];
        choose_paths(opt, info_.storage8 && info_.storage16, info_.int64_atomics, info_.float64, info_.float32_atomic_add, info_.float64_atomic_add);
        family_ = compute_family();

        const float priority = 1.0f;
        auto qci = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
        qci.queueFamilyIndex = family_;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        auto af = make<VkPhysicalDeviceShaderAtomicFloatFeaturesEXT>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT);
        af.shaderBufferFloat32AtomicAdd = VK_TRUE;
        af.shaderBufferFloat64AtomicAdd = float64_atomic_add_;
        auto f11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, float32_atomic_add_ ? &af : nullptr);
        f11.storageBuffer16BitAccess = small_storage_;
        auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f11);
        f12.bufferDeviceAddress = VK_TRUE;
        f12.storageBuffer8BitAccess = small_storage_;
        f12.shaderBufferInt64Atomics = int64_atomics_;
        auto f2 = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
        f2.features.shaderInt64 = VK_TRUE;
        f2.features.shaderFloat64 = float64_;
        auto dci = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2);
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        std::vector<const char*> device_exts;
        if (float32_atomic_add_) device_exts.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
        // transfers may copy straight from and to the application's memory (see import_host)
        if (info_.host_import_alignment) {
            device_exts.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
            host_import_alignment_ = info_.host_import_alignment;
        }
        dci.enabledExtensionCount = static_cast<std::uint32_t>(device_exts.size());
        dci.ppEnabledExtensionNames = device_exts.data();
        check(vkCreateDevice(physical_, &dci, nullptr, &device_), "vkCreateDevice");
        owns_device_ = true;
        volkLoadDeviceTable(&table_, device_);
        table_.vkGetDeviceQueue(device_, family_, 0, &queue_);
        finish_setup(opt);
    }

    /// Adopts a device the application made (see adopted_device): strix runs on its queue and
    /// allocates its buffers from it, and never destroys the instance, the device or the queue.
    /// Checks that the device was made with what strix needs (Vulkan 1.2, bufferDeviceAddress,
    /// shaderInt64, a queue family with compute) and throws strix::error naming what is
    /// missing; features strix could use but the device was made without (8/16-bit storage,
    /// 64-bit atomics, float64, float atomics) are taken as absent, and slower paths run.
    explicit context(const adopted_device& user, const context_options& opt = {}) : env_(detail::read_environment()) {
        const auto fail = [](const std::string& why) { throw error(error_code::unsupported, "strix::vulkan::context (adopting a device): " + why); };
        if (!user.instance || !user.physical_device || !user.device || !user.queue) fail("the instance, physical device, device and queue must all be given");
        if (!user.create_info) fail("create_info must point to the VkDeviceCreateInfo the device was made with (Vulkan cannot say which features a device has on)");
        detail::load_loader();
        detail::keep_drivers_loaded();
        volkLoadInstanceOnly(user.instance);
        if (!vkGetPhysicalDeviceFeatures2 || !vkGetPhysicalDeviceProperties2) fail("the instance lacks Vulkan 1.1's vkGetPhysicalDeviceFeatures2 (make it with apiVersion 1.2 or later)");
        instance_ = user.instance;
        physical_ = user.physical_device;
        info_ = detail::describe(physical_, 0);
        if (VK_API_VERSION_MAJOR(info_.api_version) == 1 && VK_API_VERSION_MINOR(info_.api_version) < 2) fail(info_.name + ": " + info_.unusable);
        const detail::enabled_features on = detail::enabled_features::of(*user.create_info);
        if (!on.buffer_device_address) fail("the device was made without bufferDeviceAddress (VkPhysicalDeviceVulkan12Features or VkPhysicalDeviceBufferDeviceAddressFeatures), which strix needs to address tensors");
        if (!on.int64) fail("the device was made without shaderInt64 (VkPhysicalDeviceFeatures), which strix needs for 64-bit addresses");
        choose_paths(opt, on.storage8 && on.storage16, on.int64_atomics, on.float64, on.float32_atomic_add && on.atomic_float_extension,
                     on.float64_atomic_add && on.atomic_float_extension);
        std::uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> qf(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, qf.data());
        if (user.queue_family >= nq || !(qf[user.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
            fail("queue family " + std::to_string(user.queue_family) + " of " + info_.name + " has no compute");
        family_ = user.queue_family;
        timestamp_bits_ = qf[family_].timestampValidBits;
        if (on.external_memory_host) host_import_alignment_ = info_.host_import_alignment;
        device_ = user.device;
        queue_ = user.queue;
        volkLoadDeviceTable(&table_, device_);
        if (!table_.vkGetBufferDeviceAddress) fail("vkGetBufferDeviceAddress is not loaded (make the instance with apiVersion 1.2 or later)");
        finish_setup(opt);
    }
    context(const context&) = delete;
    context& operator=(const context&) = delete;
    /// Waits for the queue, then destroys what the context made: with a device of its own,
    /// the device and instance too; an adopted one is left as it was given.
    ~context() {
        if (!device_) return;
        if (owns_device_) table_.vkDeviceWaitIdle(device_);
        else table_.vkQueueWaitIdle(queue_);
        for (auto& f : frames_) destroy(*f);
        frames_.clear();
        for (auto& [k, p] : pipelines_) table_.vkDestroyPipeline(device_, p, nullptr);
        for (auto m : modules_)
            if (m) table_.vkDestroyShaderModule(device_, m, nullptr);
        table_.vkDestroyPipelineLayout(device_, layout_, nullptr);
        table_.vkDestroyPipelineCache(device_, cache_, nullptr);
        if (owns_device_) table_.vkDestroyDevice(device_, nullptr);
    }

    /// The device in use.
    [[nodiscard]] const device_info& device() const { return info_; }
    /// Whether 1- and 2-byte elements move through 8/16-bit storage (else through 32-bit words).
    [[nodiscard]] bool small_storage() const { return small_storage_; }
    /// Whether every move is located in 64-bit arithmetic (context_options::wide_arithmetic).
    [[nodiscard]] bool wide_arithmetic() const { return wide_arithmetic_; }
    /// 16-byte moves per invocation of the copy shader and of 16-byte element moves, and
    /// 16-byte output chunks per invocation of a chunked move (config.hpp).
    [[nodiscard]] std::uint32_t unroll_16() const { return env_.unroll; }
    [[nodiscard]] std::uint32_t unroll_chunks() const { return env_.chunk_unroll; }
    /// How many updates of one target a deterministic scatter reduction folds per dispatch: an
    /// invocation's loop stays short, since some implementations end a loop after 65535
    /// iterations in all (Mesa's llvmpipe, a CPU device, does) and a long one may trip a GPU's
    /// watchdog.
    [[nodiscard]] std::uint64_t fold_chunk() const { return info_.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 4096 : 65536; }
    /// Whether scatter reductions of 8-byte elements may use 64-bit atomics (else they take the
    /// deterministic path).
    [[nodiscard]] bool int64_atomics() const { return int64_atomics_; }
    /// Whether shaders may do float64 arithmetic (float64 add/mul reductions need it; float32
    /// ones use it to stay exact on devices that flush subnormals).
    [[nodiscard]] bool float64() const { return float64_; }
    /// Whether float32 add reductions may use the device's float atomic add where its result
    /// equals the CPU's (shaders/reduce.comp); STRIX_VULKAN_NO_FLOAT_ATOMICS=1 turns it off.
    [[nodiscard]] bool float32_atomic_add() const { return float32_atomic_add_; }
    /// Whether float64 add reductions may likewise use the device's float64 atomic add (which
    /// strix takes only together with the float32 one); STRIX_VULKAN_NO_FLOAT_ATOMICS=1 turns
    /// it off too.
    [[nodiscard]] bool float64_atomic_add() const { return float64_atomic_add_; }
    /// Whether scatters without a reduction may take the claim path (stream::claims_scatter);
    /// STRIX_VULKAN_NO_CLAIMS=1 turns it off.
    [[nodiscard]] bool scatter_claims() const { return scatter_claims_; }
    /// The spirv::feature bits the shader variants may use here: the device's, less what the
    /// options and the STRIX_VULKAN_NO_* switches turn off.
    [[nodiscard]] std::uint32_t shader_features() const { return features_; }
    /// The variant of `s` this context runs: spirv::pick(s, shader_features()).
    [[nodiscard]] const spirv::variant& shader_variant(shader s) const { return spirv::variants[variant_[static_cast<std::size_t>(s)]]; }
    /// Validation (and other layer) messages reported so far; each also went to stderr.
    /// (A context on an adopted device has no messenger of its own: 0.)
    [[nodiscard]] int validation_messages() const { return inst_ ? inst_->messages() : 0; }
    /// Whether the device is the application's (context(const adopted_device&)).
    [[nodiscard]] bool adopted() const { return !owns_device_; }
    /// The Vulkan objects in use, for an application that records its own work beside strix's.
    [[nodiscard]] VkInstance instance_handle() const { return instance_; }
    [[nodiscard]] VkPhysicalDevice physical_device() const { return physical_; }
    [[nodiscard]] VkQueue queue() const { return queue_; }
    [[nodiscard]] VkDevice handle() const { return device_; }
    [[nodiscard]] const VolkDeviceTable& vk() const { return table_; }
    [[nodiscard]] std::uint32_t queue_family() const { return family_; }
    [[nodiscard]] std::uint32_t max_groups_x() const { return max_groups_[0]; }
    [[nodiscard]] std::uint32_t max_groups_y() const { return max_groups_[1]; }
    [[nodiscard]] float timestamp_period_ns() const { return timestamp_period_; }
    [[nodiscard]] std::uint32_t timestamp_bits() const { return timestamp_bits_; }

    /// Device memory of `bytes` of memory type `type` that buffers can take the address of, or
    /// VK_NULL_HANDLE (and the reason in `*result`) when it cannot be had. With `dedicated`, the
    /// memory is that buffer's alone (`bytes` must be its requirement's size). Measured on an
    /// NVIDIA H200: 8192 random 16 KiB rows gathered from a 2 GiB table ran at 0.56 of a copy in
    /// plain allocations and 0.81 in dedicated ones (4 GiB: 0.43 and 0.80), as if the driver
    /// mapped dedicated memory with larger pages. Every buffer here has its own allocation
    /// anyway, so dedicating it costs nothing.
    VkDeviceMemory try_allocate(VkDeviceSize bytes, std::uint32_t type, VkResult* result = nullptr, VkBuffer dedicated = VK_NULL_HANDLE) const {
        auto ded = make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
        ded.buffer = dedicated;
        auto flags = make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, dedicated != VK_NULL_HANDLE ? &ded : nullptr);
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags);
        mai.allocationSize = bytes;
        mai.memoryTypeIndex = type;
        VkDeviceMemory m = VK_NULL_HANDLE;
        const VkResult r = table_.vkAllocateMemory(device_, &mai, nullptr, &m);
        if (result) *result = r;
        return r == VK_SUCCESS ? m : VK_NULL_HANDLE;
    }

    /// A buffer of `bytes` (rounded up to 16) in `where`. Throws strix::error naming the size
    /// when the device is out of memory.
    buffer create_buffer(std::uint64_t bytes, memory where) const {
        buffer b;
        b.vk_ = &table_;
        b.device_ = device_;
        b.size_ = std::max<std::uint64_t>(16, (bytes + 15) / 16 * 16);
        auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        bci.size = b.size_;
        bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                    VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
        bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        check(table_.vkCreateBuffer(device_, &bci, nullptr, &b.buf_), "vkCreateBuffer");
        VkMemoryRequirements req{};
        table_.vkGetBufferMemoryRequirements(device_, b.buf_, &req);
        const auto hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        std::optional<std::uint32_t> type;
        if (where == memory::upload) {
            // the host-visible device-local heap may be small (a 256 MiB window): host memory
            // when it is full
            if (const auto t = find_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hv)) {
                b.mem_ = try_allocate(req.size, *t, nullptr, b.buf_);
                if (b.mem_) type = t;
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
        if (!b.mem_) b.mem_ = try_allocate(req.size, *type, &r, b.buf_);
        if (!b.mem_) {
            throw error(r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? error_code::io : error_code::unsupported,
                        "strix::vulkan: cannot allocate " + std::to_string(req.size) + " bytes of " +
                            (where == memory::device ? "device" : "host-visible") + " memory on " + info_.name + " (vkAllocateMemory: " +
                            result_name(r) + ")");
        }
        check(table_.vkBindBufferMemory(device_, b.buf_, b.mem_, 0), "vkBindBufferMemory");
        if (memory_.memoryTypes[*type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
            void* p = nullptr;
            check(table_.vkMapMemory(device_, b.mem_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
            b.mapped_ = static_cast<std::byte*>(p);
        }
        auto ai = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
        ai.buffer = b.buf_;
        b.address_ = table_.vkGetBufferDeviceAddress(device_, &ai);
        b.live_ = &live_;
        b.id_ = live_.add(b.mapped_, b.size_, b.buf_);
        return b;
    }

    /// The smallest host page size of the platforms strix runs on: an import rounded out to an
    /// alignment no larger stays within pages the range touches.
    static constexpr std::uint64_t host_page = 4096;

    /// Whether upload and download import host memory by default (STRIX_VULKAN_HOST_IMPORT=1).
    [[nodiscard]] bool host_import() const { return env_.host_import; }
    /// Whether import_host can be tried (the device was made with VK_EXT_external_memory_host).
    [[nodiscard]] bool can_import_host() const { return host_import_alignment_ != 0 && table_.vkGetMemoryHostPointerPropertiesEXT; }

    /// A buffer over the application's host memory [p, p + bytes) that the device copies from
    /// and to directly (VK_EXT_external_memory_host: the driver pins the pages while the
    /// buffer lives), with `*offset` the position of `p` in it; an empty buffer when the device
    /// cannot import this memory (no extension, an import alignment above the page size, memory
    /// the driver refuses, such as some file mappings), and the caller copies through staging.
    /// The imported range is `p` and `p + bytes` rounded out to the import alignment: whole
    /// pages that `p`'s range touches, so mapped, and never written outside [p, p + bytes).
    buffer import_host(const void* p, std::uint64_t bytes, std::uint64_t* offset) const {
        buffer b;
        if (!can_import_host() || bytes == 0 || host_import_alignment_ > host_page) return b;
        const std::uint64_t a = host_import_alignment_;
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        const std::uintptr_t start = at / a * a;
        const std::uint64_t size = (at - start + bytes + a - 1) / a * a;
        void* base = reinterpret_cast<void*>(start);
        auto props = make<VkMemoryHostPointerPropertiesEXT>(VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
        if (table_.vkGetMemoryHostPointerPropertiesEXT(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, base, &props) != VK_SUCCESS) return b;
        auto ext = make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
        ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
        auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &ext);
        bci.size = size;
        bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        b.vk_ = &table_;
        b.device_ = device_;
        b.size_ = size;
        if (table_.vkCreateBuffer(device_, &bci, nullptr, &b.buf_) != VK_SUCCESS) return buffer{};
        VkMemoryRequirements req{};
        table_.vkGetBufferMemoryRequirements(device_, b.buf_, &req);
        const auto type = find_type(req.memoryTypeBits & props.memoryTypeBits, 0);
        if (!type || req.size > size) return buffer{};
        auto imp = make<VkImportMemoryHostPointerInfoEXT>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
        imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
        imp.pHostPointer = base;
        auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &imp);
        mai.allocationSize = size;
        mai.memoryTypeIndex = *type;
        if (table_.vkAllocateMemory(device_, &mai, nullptr, &b.mem_) != VK_SUCCESS) {
            b.mem_ = VK_NULL_HANDLE;
            return buffer{};
        }
        if (table_.vkBindBufferMemory(device_, b.buf_, b.mem_, 0) != VK_SUCCESS) return buffer{};
        *offset = at - start;
        return b;
    }

    /// The compute pipeline for `key`, created on first use (thread-safe).
    VkPipeline pipeline(const pipeline_key& key) {
        std::lock_guard lock(mutex_);
        if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
        // the module: the shader's variant for this device's paths (chosen by choose_paths)
        const std::size_t m = variant_[static_cast<std::size_t>(key.which)];
        if (!modules_[m]) {
            auto sci = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
            sci.codeSize = spirv::code[m].bytes;
            sci.pCode = spirv::code[m].data;
            check(table_.vkCreateShaderModule(device_, &sci, nullptr, &modules_[m]), "vkCreateShaderModule");
        }
        // constant ids 0..11 (an entry for an id a shader lacks is ignored)
        const std::uint32_t values[] = {key.elem, key.rank, key.index_type, key.policy, key.phase, key.wide,
                                        key.type, key.reduction, key.vec, key.unroll, key.narrow, key.fold};
        constexpr std::uint32_t n_values = sizeof values / sizeof values[0];
        VkSpecializationMapEntry entries[n_values];
        for (std::uint32_t i = 0; i < n_values; ++i) entries[i] = {i, i * 4, 4};
        VkSpecializationInfo spec{n_values, entries, sizeof values, values};
        auto cci = make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
        cci.stage = make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
        cci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        cci.stage.module = modules_[m];
        cci.stage.pName = "main";
        cci.stage.pSpecializationInfo = &spec;
        cci.layout = layout_;
        VkPipeline p = VK_NULL_HANDLE;
        check(table_.vkCreateComputePipelines(device_, cache_, 1, &cci, nullptr, &p), "vkCreateComputePipelines");
        pipelines_[key] = p;
        return p;
    }
    [[nodiscard]] VkPipelineLayout layout() const { return layout_; }
    /// The first of `ids` (buffer serial numbers) whose buffer was destroyed, or 0.
    template <class Range>
    [[nodiscard]] std::uint64_t first_destroyed(const Range& ids) const { return live_.first_dead(ids); }
    /// The context's host-visible buffer whose mapped memory holds all of [p, p + bytes) (a
    /// memory::host tensor's host_view(), say), and p's offset in it; a null handle when none does.
    [[nodiscard]] std::pair<VkBuffer, std::uint64_t> find_mapped(const void* p, std::uint64_t bytes) const { return live_.find_mapped(p, bytes); }
    /// Number of pipelines created so far.
    [[nodiscard]] std::size_t pipeline_count() const {
        std::lock_guard lock(mutex_);
        return pipelines_.size();
    }

    /// Writes the pipeline cache to `path` (load it with context_options::pipeline_cache).
    void save_pipeline_cache(const std::filesystem::path& path) const {
        std::size_t n = 0;
        check(table_.vkGetPipelineCacheData(device_, cache_, &n, nullptr), "vkGetPipelineCacheData");
        std::vector<char> data(n);
        check(table_.vkGetPipelineCacheData(device_, cache_, &n, data.data()), "vkGetPipelineCacheData");
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(data.data(), static_cast<std::streamsize>(n));
        if (!f) throw error(error_code::io, "strix::vulkan: cannot write the pipeline cache to " + path.string());
    }

    /// A frame for a new stream: one a finished stream gave back, else a new one (thread-safe).
    /// Its command pool is reset, its fence unsignalled, its scratch free.
    std::unique_ptr<frame> acquire_frame() {
        {
            std::lock_guard lock(frames_mutex_);
            if (!frames_.empty()) {
                auto f = std::move(frames_.back());
                frames_.pop_back();
                return f;
            }
        }
        auto f = std::make_unique<frame>();
        frames_made_.fetch_add(1, std::memory_order_relaxed);
        try {
            auto pci = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
            pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
            pci.queueFamilyIndex = family_;
            check(table_.vkCreateCommandPool(device_, &pci, nullptr, &f->pool), "vkCreateCommandPool");
            auto ai = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
            ai.commandPool = f->pool;
            ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
            ai.commandBufferCount = 1;
            check(table_.vkAllocateCommandBuffers(device_, &ai, &f->cmd), "vkAllocateCommandBuffers");
            auto fci = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
            check(table_.vkCreateFence(device_, &fci, nullptr, &f->fence), "vkCreateFence");
            if (timestamp_bits_ > 0) { // two timestamps bracket a stream's work
                auto qci = make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
                qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
                qci.queryCount = 2;
                check(table_.vkCreateQueryPool(device_, &qci, nullptr, &f->queries), "vkCreateQueryPool");
            }
            f->flag = create_buffer(16, memory::host);
        } catch (...) {
            destroy(*f);
            throw;
        }
        return f;
    }

    /// Takes back the frame of a stream whose work has finished (or was never submitted):
    /// resets it for the next stream and keeps it, with at most frame_scratch_bytes of scratch.
    void release_frame(std::unique_ptr<frame> f) noexcept {
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
        trim(f->scratch, frame_scratch_bytes);
        trim(f->meta, frame_meta_bytes);
        f->scratch_used.assign(f->scratch.size(), false);
        std::lock_guard lock(frames_mutex_);
        frames_.push_back(std::move(f));
    }

    /// Frames made so far: as many as streams were ever alive at once, since a stream takes the
    /// frame an earlier one gave back.
    [[nodiscard]] std::size_t frames_made() const { return frames_made_.load(std::memory_order_relaxed); }

    /// Scratch a frame keeps between streams (larger requests get a buffer that the stream frees).
    static constexpr std::uint64_t frame_scratch_bytes = 64ull << 20;
    /// Metadata chunks a frame keeps between streams.
    static constexpr std::uint64_t frame_meta_bytes = 4ull << 20;

    /// A pipeline for `key`, looked up in the frame first (no lock), then in the context.
    VkPipeline pipeline(frame& f, const pipeline_key& key) {
        if (auto it = f.pipelines.find(key); it != f.pipelines.end()) return it->second;
        const VkPipeline p = pipeline(key);
        f.pipelines.emplace(key, p);
        return p;
    }

    /// Waits for `fence`: first by polling it for up to spin_wait_us() (a blocking wait wakes
    /// the thread tens of microseconds after the device finished; polling sees it at once),
    /// then blocking. Throws strix::error when the device is lost.
    void wait(VkFence fence) const {
        if (spin_us_ > 0) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
            do {
                const VkResult r = table_.vkGetFenceStatus(device_, fence);
                if (r == VK_SUCCESS) return;
                if (r != VK_NOT_READY) check(r, "vkGetFenceStatus");
            } while (std::chrono::steady_clock::now() < until);
        }
        check(table_.vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    }
    /// How long wait() polls before it blocks (context_options::spin_wait_us).
    [[nodiscard]] std::uint32_t spin_wait_us() const { return spin_us_; }

    /// Submits `cmd` to the queue with `fence` (thread-safe).
    void submit(VkCommandBuffer cmd, VkFence fence) {
        std::lock_guard lock(mutex_);
        auto si = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        check(table_.vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
    }

private:
    /// Which paths the device's features (as enabled) allow, less what the options and the
    /// environment turn off.
    void choose_paths(const context_options& opt, bool small_storage, bool int64_atomics, bool float64, bool float32_atomic_add, bool float64_atomic_add) {
        small_storage_ = opt.small_storage && small_storage && !env_.no_small_storage;
        wide_arithmetic_ = opt.wide_arithmetic || env_.wide;
        int64_atomics_ = int64_atomics && !env_.no_int64_atomics;
        float64_ = float64 && !env_.no_float64;
        // native float32 atomic add, for the reduce variants built with it (which need 64-bit atomics too)
        float32_atomic_add_ = float32_atomic_add && int64_atomics_ && !env_.no_float_atomics;
        // float64 too, in the variants that have both (and float64 arithmetic)
        float64_atomic_add_ = float64_atomic_add && float32_atomic_add_ && float64_;
        scatter_claims_ = !env_.no_claims;
        // each shader's variant, once: a pipeline's module is then one index away
        features_ = (small_storage_ ? spirv::small_storage : 0u) | (float64_ ? spirv::float64 : 0u) | (int64_atomics_ ? spirv::int64_atomics : 0u) |
                    (info_.denorm_preserve32 ? spirv::denorm_preserve32 : 0u) | (float32_atomic_add_ ? spirv::float32_atomic_add : 0u) |
                    (float64_atomic_add_ ? spirv::float64_atomic_add : 0u);
        for (std::size_t i = 0; i < spirv::shader_count; ++i) variant_[i] = spirv::pick(static_cast<shader>(i), features_);
        // a CPU device runs on the host's cores: polling would take one from it
        spin_us_ = env_.spin_us ? *env_.spin_us : opt.spin_wait_us ? *opt.spin_wait_us : info_.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : 1000;
    }

    /// A compute-only queue family, else any with compute.
    std::uint32_t compute_family() {
        std::uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> qf(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, qf.data());
        std::optional<std::uint32_t> family;
        for (std::uint32_t i = 0; i < nq; ++i)
            if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && (!family || !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT))) family = i;
        if (!family) throw error(error_code::unsupported, "strix::vulkan: " + info_.name + " has no compute queue");
        timestamp_bits_ = qf[*family].timestampValidBits;
        return *family;
    }

    /// What both constructors do once the device and queue are there: memory types, limits,
    /// the pipeline cache (from disk when given) and the layout, one 128-byte push-constant range.
    void finish_setup(const context_options& opt) {
        vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
        VkPhysicalDeviceProperties props{};
        vkGetPhysicalDeviceProperties(physical_, &props);
        timestamp_period_ = props.limits.timestampPeriod;
        std::copy(std::begin(props.limits.maxComputeWorkGroupCount), std::end(props.limits.maxComputeWorkGroupCount), max_groups_.begin());
        std::vector<char> cache_data;
        if (!opt.pipeline_cache.empty() && std::filesystem::exists(opt.pipeline_cache)) {
            std::ifstream f(opt.pipeline_cache, std::ios::binary);
            cache_data.assign(std::istreambuf_iterator<char>(f), {});
        }
        auto pcci = make<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
        pcci.initialDataSize = cache_data.size();
        pcci.pInitialData = cache_data.empty() ? nullptr : cache_data.data();
        if (table_.vkCreatePipelineCache(device_, &pcci, nullptr, &cache_) != VK_SUCCESS) { // a stale or foreign file: start empty
            pcci.initialDataSize = 0;
            pcci.pInitialData = nullptr;
            check(table_.vkCreatePipelineCache(device_, &pcci, nullptr, &cache_), "vkCreatePipelineCache");
        }
        VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
        auto lci = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
        lci.pushConstantRangeCount = 1;
        lci.pPushConstantRanges = &range;
        check(table_.vkCreatePipelineLayout(device_, &lci, nullptr, &layout_), "vkCreatePipelineLayout");
    }

    void destroy(frame& f) noexcept {
        if (f.queries) table_.vkDestroyQueryPool(device_, f.queries, nullptr);
        if (f.fence) table_.vkDestroyFence(device_, f.fence, nullptr);
        if (f.pool) table_.vkDestroyCommandPool(device_, f.pool, nullptr);
        f = frame{};
    }

    std::optional<std::uint32_t> find_type(std::uint32_t bits, VkMemoryPropertyFlags want) const {
        for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want) return i;
        return std::nullopt;
    }

    mutable detail::live_set live_; // before anything that holds buffers, so destroyed after them
    detail::environment env_;
    std::optional<detail::instance> inst_; // none when the device is adopted
    VkInstance instance_ = VK_NULL_HANDLE;
    bool owns_device_ = false;
    device_info info_;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VolkDeviceTable table_{};
    VkQueue queue_ = VK_NULL_HANDLE;
    std::uint32_t family_ = 0;
    std::uint32_t timestamp_bits_ = 0;
    float timestamp_period_ = 1;
    std::array<std::uint32_t, 3> max_groups_{};
    VkPhysicalDeviceMemoryProperties memory_{};
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    std::array<VkShaderModule, spirv::variant_count> modules_{}; // per variant, made on first use
    std::uint32_t features_ = 0;                                  // spirv::feature bits the paths allow
    std::array<std::size_t, spirv::shader_count> variant_{};      // per shader, its variant in spirv::variants
    std::map<pipeline_key, VkPipeline> pipelines_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<frame>> frames_; // streams' frames, free for the next stream
    std::mutex frames_mutex_;
    std::atomic<std::size_t> frames_made_{0};
    bool small_storage_ = false;
    bool wide_arithmetic_ = false;
    bool int64_atomics_ = false;
    bool float64_ = false;
    bool float32_atomic_add_ = false, float64_atomic_add_ = false;
    std::uint64_t host_import_alignment_ = 0; ///< 0: host memory is not imported
    bool scatter_claims_ = true;
    std::uint32_t spin_us_ = 0;
};

} // namespace strix::vulkan
