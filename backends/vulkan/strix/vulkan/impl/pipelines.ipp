// Pipelines: the table of pipelines by key, their creation, and the pipeline cache's file
// (strix/vulkan/pipelines.hpp, context.hpp).

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace strix::vulkan::detail {

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

VkPipeline context::pipeline(const pipeline_key& key) {
    std::lock_guard lock(mutex_);
    if (const VkPipeline p = pipelines_.find(key)) return p;
    // the module: the shader's variant for this device's paths (chosen by choose_paths)
    const std::size_t m = variant_[static_cast<std::size_t>(key.which)];
    if (m >= spirv::variant_count) { // (the encoders refuse such operators first, naming them)
        std::string name;
        for (const auto& v : spirv::variants)
            if (v.which == key.which) name = std::string(v.name).substr(0, std::string_view(v.name).find('_'));
        throw error(error_code::unsupported, "strix::vulkan: the " + name + " shader has no baseline variant; it needs " + full_path_needed());
    }
    if (!modules_[m]) {
        auto sci = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        const spirv::words w = spirv::code(m);
        sci.codeSize = w.bytes;
        sci.pCode = w.data;
        require_success(table_.vkCreateShaderModule(device_, &sci, nullptr, &modules_[m]), "vkCreateShaderModule");
    }
    // constant ids 0..12 (an entry for an id a shader lacks is ignored)
    const std::uint32_t values[] = {key.elem, key.rank, key.index_type, key.policy, key.phase, key.addr64,
                                    key.type, key.reduction, key.vec, key.unroll, key.addr32, key.fold, key.tile};
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
    require_success(table_.vkCreateComputePipelines(device_, cache_, 1, &cci, nullptr, &p), "vkCreateComputePipelines");
    pipelines_.add(key, p);
    return p;
}

void context::save_pipeline_cache(const std::string& path) const {
    std::size_t n = 0;
    require_success(table_.vkGetPipelineCacheData(device_, cache_, &n, nullptr), "vkGetPipelineCacheData");
    std::vector<char> data(n);
    require_success(table_.vkGetPipelineCacheData(device_, cache_, &n, data.data()), "vkGetPipelineCacheData");
    if (!detail::write_file(path, data.data(), n)) throw error(error_code::io, "strix::vulkan: cannot write the pipeline cache to " + path);
}

VkPipeline context::pipeline(frame& f, const pipeline_key& key) {
    if (const VkPipeline p = f.pipelines.find(key)) return p;
    const VkPipeline p = pipeline(key);
    f.pipelines.add(key, p);
    return p;
}

} // namespace strix::vulkan
