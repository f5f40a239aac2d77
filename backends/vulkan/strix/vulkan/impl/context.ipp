#include <chrono>
#include <limits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace strix::vulkan::detail {

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// A UTF-8 path as the file system's (wide on Windows).
static std::filesystem::path utf8_path(const std::string& s) { return std::filesystem::path(std::u8string(s.begin(), s.end())); }

std::vector<char> read_file(const std::string& name) {
    const std::filesystem::path path = utf8_path(name);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return {};
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

bool write_file(const std::string& name, const char* data, std::size_t n) {
    std::ofstream f(utf8_path(name), std::ios::binary | std::ios::trunc);
    f.write(data, static_cast<std::streamsize>(n));
    return static_cast<bool>(f);
}

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

device_info describe(VkPhysicalDevice pd, std::uint32_t index) {
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

instance::instance(bool want_messenger) {
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

std::vector<VkPhysicalDevice> instance::physical_devices() const {
    std::uint32_t n = 0;
    check(vkEnumeratePhysicalDevices(handle_, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> v(n);
    check(vkEnumeratePhysicalDevices(handle_, &n, v.data()), "vkEnumeratePhysicalDevices");
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

} // namespace strix::vulkan

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
};

buffer_registry::buffer_registry(const VolkDeviceTable* vk, VkDevice device) : s_(make_owned<state>()), vk_(vk), device_(device) {}
buffer_registry::~buffer_registry() = default;

std::uint64_t buffer_registry::add(VkBuffer handle, VkDeviceMemory memory, std::uint64_t address, std::uint64_t size, std::byte* mapped) {
    const std::uint64_t id = next_serial();
    std::lock_guard lock(mutex_);
    s_->entries.emplace(id, state::entry{handle, memory, address, size, mapped});
    if (mapped) s_->mapped[reinterpret_cast<std::uintptr_t>(mapped)] = {size, handle};
    return id;
}

void buffer_registry::free_entry(std::uint64_t id) noexcept {
    const auto it = s_->entries.find(id);
    if (it == s_->entries.end()) return;
    const state::entry& e = it->second;
    if (e.mapped) vk_->vkUnmapMemory(device_, e.memory);
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
    closed_ = true;
}

VkPipeline pipeline_table::find(const pipeline_key& key) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key, [](const auto& e, const pipeline_key& k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? it->second : VK_NULL_HANDLE;
}

void pipeline_table::add(const pipeline_key& key, VkPipeline p) {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key, [](const auto& e, const pipeline_key& k) { return e.first < k; });
    entries_.insert(it, {key, p});
}

std::vector<VkPipeline> pipeline_table::all() const {
    std::vector<VkPipeline> r;
    for (const auto& e : entries_) r.push_back(e.second);
    return r;
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

namespace strix::vulkan {

context::context(linked l, const context_options& opt) : env_(detail::read_environment()) {
    if (l.volk != 1) throw error(error_code::unsupported, "strix::vulkan: volk's implementation is compiled in wrongly");
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

context::context(linked l, const adopted_device& user, const context_options& opt) : env_(detail::read_environment()) {
    if (l.volk != 1) throw error(error_code::unsupported, "strix::vulkan: volk's implementation is compiled in wrongly");
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

context::~context() {
    if (!device_) return;
    if (owns_device_) table_.vkDeviceWaitIdle(device_);
    else table_.vkQueueWaitIdle(queue_);
    for (auto& f : frames_) destroy(*f);
    frames_.clear();
    for (const VkPipeline p : pipelines_.all()) table_.vkDestroyPipeline(device_, p, nullptr);
    for (auto m : modules_)
        if (m) table_.vkDestroyShaderModule(device_, m, nullptr);
    table_.vkDestroyPipelineLayout(device_, layout_, nullptr);
    table_.vkDestroyPipelineCache(device_, cache_, nullptr);
    if (live_) live_->close(); // tensors that outlive the context find their memory freed
    if (owns_device_) table_.vkDestroyDevice(device_, nullptr);
}

VkDeviceMemory context::try_allocate(VkDeviceSize bytes, std::uint32_t type, VkResult* result, VkBuffer dedicated) const {
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

buffer context::create_buffer(std::uint64_t bytes, memory where) const {
    if (bytes > std::numeric_limits<std::uint64_t>::max() - 15)
        throw error(error_code::invalid_argument, "strix::vulkan: a buffer of " + std::to_string(bytes) + " bytes cannot exist");
    const std::uint64_t size = std::max<std::uint64_t>(16, (bytes + 15) / 16 * 16);
    auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer handle = VK_NULL_HANDLE;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    // what was made so far goes again when a later step throws
    struct undo {
        const context& c;
        VkBuffer& h;
        VkDeviceMemory& m;
        ~undo() {
            if (h) c.table_.vkDestroyBuffer(c.device_, h, nullptr);
            if (m) c.table_.vkFreeMemory(c.device_, m, nullptr);
        }
    } guard{*this, handle, mem};
    check(table_.vkCreateBuffer(device_, &bci, nullptr, &handle), "vkCreateBuffer");
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
    check(table_.vkBindBufferMemory(device_, handle, mem, 0), "vkBindBufferMemory");
    std::byte* mapped = nullptr;
    if (memory_.memoryTypes[*type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        void* p = nullptr;
        check(table_.vkMapMemory(device_, mem, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
        mapped = static_cast<std::byte*>(p);
    }
    auto ai = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
    ai.buffer = handle;
    buffer b;
    b.address_ = table_.vkGetBufferDeviceAddress(device_, &ai);
    b.id_ = live_->add(handle, mem, b.address_, size, mapped); // the registry frees them from now on
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

VkPipeline context::pipeline(const pipeline_key& key) {
    std::lock_guard lock(mutex_);
    if (const VkPipeline p = pipelines_.find(key)) return p;
    // the module: the shader's variant for this device's paths (chosen by choose_paths)
    const std::size_t m = variant_[static_cast<std::size_t>(key.which)];
    if (!modules_[m]) {
        auto sci = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        const spirv::words w = spirv::code(m);
        sci.codeSize = w.bytes;
        sci.pCode = w.data;
        check(table_.vkCreateShaderModule(device_, &sci, nullptr, &modules_[m]), "vkCreateShaderModule");
    }
    // constant ids 0..12 (an entry for an id a shader lacks is ignored)
    const std::uint32_t values[] = {key.elem, key.rank, key.index_type, key.policy, key.phase, key.wide,
                                    key.type, key.reduction, key.vec, key.unroll, key.narrow, key.fold, key.tile};
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
    pipelines_.add(key, p);
    return p;
}

void context::save_pipeline_cache(const std::string& path) const {
    std::size_t n = 0;
    check(table_.vkGetPipelineCacheData(device_, cache_, &n, nullptr), "vkGetPipelineCacheData");
    std::vector<char> data(n);
    check(table_.vkGetPipelineCacheData(device_, cache_, &n, data.data()), "vkGetPipelineCacheData");
    if (!detail::write_file(path, data.data(), n)) throw error(error_code::io, "strix::vulkan: cannot write the pipeline cache to " + path);
}

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
    trim(f->scratch, frame_scratch_bytes);
    trim(f->meta, frame_meta_bytes);
    f->scratch_used.assign(f->scratch.size(), false);
    std::lock_guard lock(frames_mutex_);
    frames_.push_back(std::move(f));
}

VkPipeline context::pipeline(frame& f, const pipeline_key& key) {
    if (const VkPipeline p = f.pipelines.find(key)) return p;
    const VkPipeline p = pipeline(key);
    f.pipelines.add(key, p);
    return p;
}

void context::wait(VkFence fence) const {
    if (spin_us_ > 0) {
        const std::int64_t until = detail::steady_ns() + static_cast<std::int64_t>(spin_us_) * 1000;
        do {
            const VkResult r = table_.vkGetFenceStatus(device_, fence);
            if (r == VK_SUCCESS) return;
            if (r != VK_NOT_READY) check(r, "vkGetFenceStatus");
        } while (detail::steady_ns() < until);
    }
    check(table_.vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void context::submit(VkCommandBuffer cmd, VkFence fence) {
    std::lock_guard lock(mutex_);
    auto si = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(table_.vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
}

void context::choose_paths(const context_options& opt, bool small_storage, bool int64_atomics, bool float64, bool float32_atomic_add, bool float64_atomic_add) {
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

std::uint32_t context::compute_family() {
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

void context::finish_setup(const context_options& opt) {
    live_ = std::make_shared<detail::buffer_registry>(&table_, device_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(physical_, &props);
    timestamp_period_ = props.limits.timestampPeriod;
    std::copy(std::begin(props.limits.maxComputeWorkGroupCount), std::end(props.limits.maxComputeWorkGroupCount), max_groups_.begin());
    tile_words_ = env_.no_tile ? 0 : std::min<std::uint32_t>(env_.tile_kib * 256, props.limits.maxComputeSharedMemorySize / 4);
    std::vector<char> cache_data;
    if (!opt.pipeline_cache.empty()) cache_data = detail::read_file(opt.pipeline_cache);
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

void context::destroy(frame& f) noexcept {
    if (f.queries) table_.vkDestroyQueryPool(device_, f.queries, nullptr);
    if (f.fence) table_.vkDestroyFence(device_, f.fence, nullptr);
    if (f.pool) table_.vkDestroyCommandPool(device_, f.pool, nullptr);
    f = frame{};
}

std::optional<std::uint32_t> context::find_type(std::uint32_t bits, VkMemoryPropertyFlags want) const {
    for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want) return i;
    return std::nullopt;
}

} // namespace strix::vulkan
