// The loader, instances, what each device has and which one a context picks, and the features
// an adopted device was made with (strix/vulkan/instance.hpp).

namespace strix::vulkan::detail {

int type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

void load_loader() {
    static const VkResult r = volkInitialize();
    if (r != VK_SUCCESS)
        throw error(error_code::unsupported, "strix::vulkan: no Vulkan loader found (libvulkan.so.1 / vulkan-1.dll); install one, e.g. Debian's libvulkan1");
}

void keep_drivers_loaded() {
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

device_info describe(VkPhysicalDevice pd, std::uint32_t index, std::uint32_t instance_api) {
    device_info d;
    d.index = index;
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(pd, &props);
    d.name = props.deviceName;
    d.type = props.deviceType;
    d.api_version = props.apiVersion;
    // what the instance lets strix use of the device (1.1 where either is 1.1: the pNext
    // structures of 1.2's queries are then not to be passed, and the path is the baseline one)
    const std::uint32_t api = std::min(props.apiVersion, std::max(instance_api, VK_API_VERSION_1_0));
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
    d.max_storage_buffers = props.limits.maxPerStageDescriptorStorageBuffers;
    d.storage_offset_alignment = std::max<std::uint64_t>(props.limits.minStorageBufferOffsetAlignment, 4);
    if (api < VK_API_VERSION_1_1) {
        d.unusable = "it supports Vulkan " + std::to_string(VK_API_VERSION_MAJOR(api)) + "." + std::to_string(VK_API_VERSION_MINOR(api)) +
                     (api < props.apiVersion ? " with this instance" : "") + "; strix needs 1.1";
        return d;
    }
    std::uint32_t next = 0;
    require_success(vkEnumerateDeviceExtensionProperties(pd, nullptr, &next, nullptr), "vkEnumerateDeviceExtensionProperties");
    std::vector<VkExtensionProperties> exts(next);
    require_success(vkEnumerateDeviceExtensionProperties(pd, nullptr, &next, exts.data()), "vkEnumerateDeviceExtensionProperties");
    bool atomic_float = false, host_import = false;
    for (const auto& e : exts) {
        atomic_float |= std::strcmp(e.extensionName, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) == 0;
        host_import |= std::strcmp(e.extensionName, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) == 0;
    }
    // (Vulkan 1.2's structures only where the instance allows 1.2)
    const bool v12 = api >= VK_API_VERSION_1_2;
    auto hp = make<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
    auto p12 = make<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES, host_import ? &hp : nullptr);
    auto m3 = make<VkPhysicalDeviceMaintenance3Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
                                                           v12 ? static_cast<void*>(&p12) : host_import ? static_cast<void*>(&hp) : nullptr);
    auto p2 = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3);
    vkGetPhysicalDeviceProperties2(pd, &p2);
    d.denorm_preserve32 = v12 && p12.shaderDenormPreserveFloat32;
    d.max_memory_allocation = m3.maxMemoryAllocationSize;
    if (host_import) d.host_import_alignment = std::max<std::uint64_t>(1, hp.minImportedHostPointerAlignment);
    if (!v12) { // the baseline path only: the core features are all it asks about
        VkPhysicalDeviceFeatures f{};
        vkGetPhysicalDeviceFeatures(pd, &f);
        d.int64 = f.shaderInt64;
        d.float64 = f.shaderFloat64;
        if (d.max_storage_buffers < baseline_storage_buffers) // (below Vulkan 1.1's least)
            d.unusable = "it binds " + std::to_string(d.max_storage_buffers) + " storage buffers per shader; strix's baseline path needs " +
                         std::to_string(baseline_storage_buffers);
        return d;
    }
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
    if (!(d.buffer_device_address && d.int64) && d.max_storage_buffers < baseline_storage_buffers)
        d.unusable = "it lacks " + std::string(d.buffer_device_address ? "shaderInt64" : "bufferDeviceAddress") + " (the full path) and binds " +
                     std::to_string(d.max_storage_buffers) + " storage buffers per shader; strix's baseline path needs " +
                     std::to_string(baseline_storage_buffers);
    return d;
}

instance::instance(bool want_messenger, std::uint32_t api_version) {
    load_loader();
    keep_drivers_loaded();
    std::uint32_t n = 0;
    require_success(vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr), "vkEnumerateInstanceExtensionProperties");
    std::vector<VkExtensionProperties> exts(n);
    require_success(vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data()), "vkEnumerateInstanceExtensionProperties");
    bool debug_utils = false;
    for (const auto& e : exts) debug_utils |= std::strcmp(e.extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0;
    debug_utils &= want_messenger;
    auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.pApplicationName = "strix";
    app.pEngineName = "strix";
    app.apiVersion = api_version;
    const char* ext_names[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    auto ci = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    ci.pApplicationInfo = &app;
    ci.enabledExtensionCount = debug_utils ? 1 : 0;
    ci.ppEnabledExtensionNames = ext_names;
    require_success(vkCreateInstance(&ci, nullptr, &handle_), "vkCreateInstance");
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

std::vector<VkPhysicalDevice> instance::physical_devices() const {
    std::uint32_t n = 0;
    require_success(vkEnumeratePhysicalDevices(handle_, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> v(n);
    require_success(vkEnumeratePhysicalDevices(handle_, &n, v.data()), "vkEnumeratePhysicalDevices");
    v.resize(n);
    return v;
}

} // namespace strix::vulkan::detail

namespace strix::vulkan {

std::vector<device_info> list_devices() {
    detail::instance inst(false);
    std::vector<device_info> out;
    const auto pds = inst.physical_devices();
    for (std::uint32_t i = 0; i < pds.size(); ++i) out.push_back(detail::describe(pds[i], i));
    return out;
}

std::uint32_t choose_device(const std::vector<device_info>& devices, std::optional<std::string> wanted) {
    return detail::pick_device(devices, wanted ? wanted : context_options().device);
}

std::uint32_t detail::pick_device(const std::vector<device_info>& devices, const std::optional<std::string>& wanted) {
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

} // namespace strix::vulkan

namespace strix::vulkan::detail {

auto enabled_features::of(const VkDeviceCreateInfo& ci) -> enabled_features {
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

} // namespace strix::vulkan::detail
