#pragma once
/// Pipelines: the specialization constants that tell one from another (pipeline_key), the
/// table they are kept in, and the file access of the pipeline cache. Defined in
/// impl/pipelines.ipp.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <volk.h>

#include "strix/vulkan/spirv/variants.h"

namespace strix::vulkan {

namespace detail {
/// The bytes of the file at `path`; none when it does not exist or cannot be read.
std::vector<char> read_file(const std::string& path);
/// Writes `n` bytes to the file at `path` (replacing it); false when that failed.
bool write_file(const std::string& path, const char* data, std::size_t n);
} // namespace detail

// (strix::vulkan::shader, the shaders strix runs, is declared in spirv/variants.h with their variants)

/// Specialization constants of a pipeline.
struct pipeline_key {
    shader which = shader::move;
    std::uint32_t elem = 4, rank = 1, index_type = 0, policy = 0, phase = 0;
    std::uint32_t addr64 = 1; ///< 64-bit coordinate arithmetic (more than 2^32 invocations)
    std::uint32_t type = 0, reduction = 0; ///< reduce.comp: the element type's arithmetic (dtype_info::shader) and reduction
    std::uint32_t vec = 1; ///< move.comp: elements per chunk (1, or 16/elem for a 16-byte chunk)
    std::uint32_t unroll = 1; ///< move.comp, copy.comp: 16-byte moves per invocation
    std::uint32_t addr32 = 0; ///< move.comp: 32-bit arithmetic (every offset of the call fits in an int)
    std::uint32_t fold = 0xffffffffu; ///< move.comp: the pad_mode every padded dimension folds by, computed (0xffffffff: none, tables)
    std::uint32_t tile = 4096; ///< tile.comp: 32-bit words of its shared tile (16 KiB, every device's minimum, unless set)
    auto operator<=>(const pipeline_key&) const = default;
};

namespace detail {
/// Pipelines by key, in key order (a sorted vector: looked up on every dispatch, added to
/// rarely, never removed one by one).
class pipeline_table {
public:
    /// The pipeline made for `key`, or a null handle.
    [[nodiscard]] VkPipeline find(const pipeline_key& key) const;
    /// Keeps `p` for `key` (which must not be there yet).
    void add(const pipeline_key& key, VkPipeline p);
    [[nodiscard]] std::size_t size() const { return entries_.size(); }
    /// Every pipeline kept, for destroying them.
    [[nodiscard]] std::vector<VkPipeline> all() const;

private:
    std::vector<std::pair<pipeline_key, VkPipeline>> entries_;
};
} // namespace detail

} // namespace strix::vulkan
