// Written by scripts/shader_variants.py from backends/vulkan/strix/vulkan/spirv/variants.txt:
// edit that table, not this file, then run `bash scripts/spirv_headers.sh regenerate`.
#pragma once

#include <cstddef>
#include <cstdint>


namespace strix::vulkan {

/// The shaders strix runs (shaders/<name>.comp).
enum class shader : std::uint8_t { move, scatter, tuples, scan, reduce, copy, tile };

namespace spirv {

/// What a variant may need of the device, as bits of a mask.
enum feature : std::uint32_t {
    full = 1u << 0, ///< bufferDeviceAddress and shaderInt64 (the full path: 64-bit device addresses and arithmetic; without it, the baseline path of shaders/common.glsl)
    small_storage = 1u << 1, ///< storageBuffer8BitAccess and storageBuffer16BitAccess
    float64 = 1u << 2, ///< shaderFloat64
    int64_atomics = 1u << 3, ///< shaderBufferInt64Atomics
    denorm_preserve32 = 1u << 4, ///< shaderDenormPreserveFloat32 (a property: float32 subnormals are kept)
    float32_atomic_add = 1u << 5, ///< VK_EXT_shader_atomic_float's shaderBufferFloat32AtomicAdd
    float64_atomic_add = 1u << 6, ///< VK_EXT_shader_atomic_float's shaderBufferFloat64AtomicAdd
};
inline constexpr std::size_t feature_count = 7;
inline constexpr std::size_t shader_count = 7;

/// One SPIR-V module: a shader built for devices with the features in `needs`.
struct variant {
    const char* name; ///< its header, strix/vulkan/spirv/<name>.h
    shader which;
    std::uint32_t needs; ///< spirv::feature bits
};

/// Every variant, in the table's order.
inline constexpr variant variants[] = {
    {"move_b", shader::move, 0u},
    {"move_0", shader::move, spirv::full},
    {"move_1", shader::move, spirv::full | spirv::small_storage},
    {"scatter_b", shader::scatter, 0u},
    {"scatter_0", shader::scatter, spirv::full},
    {"scatter_1", shader::scatter, spirv::full | spirv::small_storage},
    {"tuples_b", shader::tuples, 0u},
    {"tuples_0", shader::tuples, spirv::full},
    {"scan_b", shader::scan, 0u},
    {"scan_0", shader::scan, spirv::full},
    {"reduce_b", shader::reduce, 0u},
    {"reduce_00", shader::reduce, spirv::full},
    {"reduce_01", shader::reduce, spirv::full | spirv::int64_atomics},
    {"reduce_10", shader::reduce, spirv::full | spirv::float64},
    {"reduce_11", shader::reduce, spirv::full | spirv::float64 | spirv::int64_atomics},
    {"reduce_00d", shader::reduce, spirv::full | spirv::denorm_preserve32},
    {"reduce_01d", shader::reduce, spirv::full | spirv::int64_atomics | spirv::denorm_preserve32},
    {"reduce_10d", shader::reduce, spirv::full | spirv::float64 | spirv::denorm_preserve32},
    {"reduce_11d", shader::reduce, spirv::full | spirv::float64 | spirv::int64_atomics | spirv::denorm_preserve32},
    {"reduce_01f", shader::reduce, spirv::full | spirv::int64_atomics | spirv::float32_atomic_add},
    {"reduce_11f", shader::reduce, spirv::full | spirv::float64 | spirv::int64_atomics | spirv::float32_atomic_add},
    {"reduce_01df", shader::reduce, spirv::full | spirv::int64_atomics | spirv::denorm_preserve32 | spirv::float32_atomic_add},
    {"reduce_11df", shader::reduce, spirv::full | spirv::float64 | spirv::int64_atomics | spirv::denorm_preserve32 | spirv::float32_atomic_add},
    {"reduce_11g", shader::reduce, spirv::full | spirv::float64 | spirv::int64_atomics | spirv::float32_atomic_add | spirv::float64_atomic_add},
    {"reduce_11dg", shader::reduce, spirv::full | spirv::float64 | spirv::int64_atomics | spirv::denorm_preserve32 | spirv::float32_atomic_add | spirv::float64_atomic_add},
    {"copy_b", shader::copy, 0u},
    {"copy_0", shader::copy, spirv::full},
    {"tile_b", shader::tile, 0u},
    {"tile_0", shader::tile, spirv::full},
};
inline constexpr std::size_t variant_count = 29;

/// A variant's SPIR-V words and their size in bytes.
struct words {
    const std::uint32_t* data;
    std::size_t bytes;
};

/// The SPIR-V of variants[i]. Defined once per program, beside volk's implementation
/// (strix/vulkan/implementation.hpp includes spirv/code.h): the words are parsed by
/// that one file, not by every file that includes the backend.
words code(std::size_t i);

/// The variant of `s` a device with the features `on` runs: of those that need nothing
/// beyond `on`, the one that needs the most. The table guarantees that it needs all that any
/// other such variant needs and is the only one that does, and that it exists wherever the
/// shader has a variant needing nothing; else it may not: variant_count.
constexpr std::size_t pick(shader s, std::uint32_t on) {
    std::size_t best = variant_count;
    for (std::size_t i = 0; i < variant_count; ++i) {
        const variant& v = variants[i];
        if (v.which != s || (v.needs & ~on) != 0) continue;
        if (best == variant_count || (variants[best].needs & v.needs) == variants[best].needs) best = i;
    }
    return best;
}

} // namespace spirv
} // namespace strix::vulkan
