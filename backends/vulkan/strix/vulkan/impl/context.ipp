// The context: making it (its own device, or an adopted one), the paths it takes, and its end.

namespace strix::vulkan {

context::context(linked l, const context_options& opt) {
    if (l.volk != 1) throw error(error_code::unsupported, "strix::vulkan: volk's implementation is compiled in wrongly");
    // the baseline profile asks for Vulkan 1.1 only: the layer then holds every call and module
    // to 1.1, as on a device that has no more (CI runs the Vulkan suite so on lavapipe)
    const std::uint32_t api = opt.profile == path_profile::baseline ? VK_API_VERSION_1_1 : VK_API_VERSION_1_2;
    inst_.emplace(true, api);
    instance_ = inst_->get();
    const auto pds = inst_->physical_devices();
    std::vector<device_info> infos;
    for (std::uint32_t i = 0; i < pds.size(); ++i) infos.push_back(detail::describe(pds[i], i, api));
    info_ = infos[detail::pick_device(infos, opt.device)];
    physical_ = pds[info_.index];
    full_ = opt.profile == path_profile::full && info_.full_path();
    // the baseline path: a device made with none of the optional features
    if (full_) choose_paths(opt, info_.storage8 && info_.storage16, info_.int64_atomics, info_.float64, info_.float32_atomic_add, info_.float64_atomic_add);
    else choose_paths(opt, false, false, false, false, false);
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
    auto dci = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, full_ ? &f2 : nullptr);
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
    require_success(vkCreateDevice(physical_, &dci, nullptr, &device_), "vkCreateDevice");
    owns_device_ = true;
    volkLoadDeviceTable(&table_, device_);
    table_.vkGetDeviceQueue(device_, family_, 0, &queue_);
    finish_setup(opt);
}

context::context(linked l, const adopted_device& user, const context_options& opt) {
    if (l.volk != 1) throw error(error_code::unsupported, "strix::vulkan: volk's implementation is compiled in wrongly");
    const auto fail = [](const std::string& why) { throw error(error_code::unsupported, "strix::vulkan::context (adopting a device): " + why); };
    if (!user.instance || !user.physical_device || !user.device || !user.queue) fail("the instance, physical device, device and queue must all be given");
    if (!user.create_info) fail("create_info must point to the VkDeviceCreateInfo the device was made with (Vulkan cannot say which features a device has on)");
    detail::load_loader();
    detail::keep_drivers_loaded();
    volkLoadInstanceOnly(user.instance);
    if (!vkGetPhysicalDeviceFeatures2 || !vkGetPhysicalDeviceProperties2) fail("the instance lacks Vulkan 1.1's vkGetPhysicalDeviceFeatures2 (make it with apiVersion 1.1 or later)");
    instance_ = user.instance;
    physical_ = user.physical_device;
    info_ = detail::describe(physical_, 0, user.api_version);
    if (!info_.unusable.empty()) fail(info_.name + ": " + info_.unusable);
    const detail::enabled_features on = detail::enabled_features::of(*user.create_info);
    // the full path where the device was made with what it needs, else the baseline path
    full_ = opt.profile == path_profile::full && info_.full_path() && on.buffer_device_address && on.int64;
    if (full_)
        choose_paths(opt, on.storage8 && on.storage16, on.int64_atomics, on.float64, on.float32_atomic_add && on.atomic_float_extension,
                     on.float64_atomic_add && on.atomic_float_extension);
    else choose_paths(opt, false, false, false, false, false);
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
    if (full_ && !table_.vkGetBufferDeviceAddress) fail("vkGetBufferDeviceAddress is not loaded (make the instance with apiVersion 1.2 or later)");
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
    if (set_layout_) table_.vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    table_.vkDestroyPipelineCache(device_, cache_, nullptr);
    if (live_) live_->close(); // tensors that outlive the context find their memory freed
    if (owns_device_) table_.vkDestroyDevice(device_, nullptr);
}

void context::choose_paths(const context_options& opt, bool small_storage, bool int64_atomics, bool float64, bool float32_atomic_add, bool float64_atomic_add) {
    small_storage_ = opt.small_storage && small_storage;
    always_addr64_ = opt.always_addr64 && full_;
    int64_atomics_ = int64_atomics && opt.int64_atomics;
    float64_ = float64 && opt.float64;
    // native float32 atomic add, for the reduce variants built with it (which need 64-bit atomics too)
    float32_atomic_add_ = float32_atomic_add && int64_atomics_ && opt.float_atomics;
    // float64 too, in the variants that have both (and float64 arithmetic)
    float64_atomic_add_ = float64_atomic_add && float32_atomic_add_ && float64_;
    scatter_claims_ = opt.scatter_claims;
    // each shader's variant, once: a pipeline's module is then one index away
    features_ = (full_ ? spirv::full : 0u) | (small_storage_ ? spirv::small_storage : 0u) | (float64_ ? spirv::float64 : 0u) | (int64_atomics_ ? spirv::int64_atomics : 0u) |
                (info_.denorm_preserve32 && full_ ? spirv::denorm_preserve32 : 0u) | (float32_atomic_add_ ? spirv::float32_atomic_add : 0u) |
                (float64_atomic_add_ ? spirv::float64_atomic_add : 0u);
    for (std::size_t i = 0; i < spirv::shader_count; ++i) variant_[i] = spirv::pick(static_cast<shader>(i), features_);
    // the numbers within their ranges (config.hpp); a CPU device runs on the host's cores:
    // polling would take one from it, and some of its loops stop at 65535 iterations
    const bool cpu = info_.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    spin_us_ = opt.spin_wait_us ? std::min<std::uint32_t>(*opt.spin_wait_us, 1000000) : cpu ? 0 : 1000;
    unroll_ = std::clamp<std::uint32_t>(opt.unroll, 1, 8);
    chunk_unroll_ = std::clamp<std::uint32_t>(opt.chunk_unroll, 1, 8);
    fold_chunk_ = opt.fold_chunk ? std::clamp<std::uint32_t>(*opt.fold_chunk, 16, 1u << 30) : cpu ? 4096 : 65536;
    slot_bits_from_ = opt.slot_bits_from;
    host_import_ = opt.host_import;
}

std::string context::features_in_use() const {
    std::string r;
    const auto add = [&](bool on, const char* name) {
        if (on) r += (r.empty() ? "" : ", ") + std::string(name);
    };
    add(full_, "bufferDeviceAddress");
    add(full_, "shaderInt64");
    add(small_storage_, "storageBuffer8BitAccess");
    add(small_storage_, "storageBuffer16BitAccess");
    add(float64_, "shaderFloat64");
    add(int64_atomics_, "shaderBufferInt64Atomics");
    add(float32_atomic_add_, "shaderBufferFloat32AtomicAdd");
    add(float64_atomic_add_, "shaderBufferFloat64AtomicAdd");
    return r.empty() ? "none" : r;
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
    live_ = std::make_shared<detail::buffer_registry>(&table_, device_, !full_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(physical_, &props);
    timestamp_period_ = props.limits.timestampPeriod;
    std::copy(std::begin(props.limits.maxComputeWorkGroupCount), std::end(props.limits.maxComputeWorkGroupCount), max_groups_.begin());
    tile_words_ = !opt.tile ? 0 : std::min<std::uint32_t>(std::clamp<std::uint32_t>(opt.tile_kib, 4, 32) * 256, props.limits.maxComputeSharedMemorySize / 4);
    std::vector<char> cache_data;
    if (!opt.pipeline_cache.empty()) cache_data = detail::read_file(opt.pipeline_cache);
    auto pcci = make<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
    pcci.initialDataSize = cache_data.size();
    pcci.pInitialData = cache_data.empty() ? nullptr : cache_data.data();
    if (table_.vkCreatePipelineCache(device_, &pcci, nullptr, &cache_) != VK_SUCCESS) { // a stale or foreign file: start empty
        pcci.initialDataSize = 0;
        pcci.pInitialData = nullptr;
        require_success(table_.vkCreatePipelineCache(device_, &pcci, nullptr, &cache_), "vkCreatePipelineCache");
    }
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
    auto lci = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    if (!full_) { // the baseline path: each operand a storage buffer of set 0 (shaders/common.glsl)
        storage_alignment_ = props.limits.minStorageBufferOffsetAlignment;
        max_binding_range_ = props.limits.maxStorageBufferRange;
        max_texels_ = props.limits.maxTexelBufferElements;
        plan_alignment_ = std::max<std::uint64_t>({props.limits.minUniformBufferOffsetAlignment, props.limits.minStorageBufferOffsetAlignment, 16});
        VkDescriptorSetLayoutBinding b[detail::baseline_bindings]{};
        for (std::uint32_t i = 0; i < detail::baseline_bindings; ++i) b[i] = {i, detail::baseline_binding_type(i), 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
        auto dci = make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
        dci.bindingCount = detail::baseline_bindings;
        dci.pBindings = b;
        require_success(table_.vkCreateDescriptorSetLayout(device_, &dci, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
        lci.setLayoutCount = 1;
        lci.pSetLayouts = &set_layout_;
    }
    require_success(table_.vkCreatePipelineLayout(device_, &lci, nullptr, &layout_), "vkCreatePipelineLayout");
}

} // namespace strix::vulkan
