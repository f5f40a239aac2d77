#pragma once
/// Include in exactly one .cpp file of a program that uses strix's Vulkan backend (the Meson
/// dependency `strix_vulkan` already does): it defines volk's function pointers and loader, and
/// what the backend's headers only declare so that every other file is spared their parse (the
/// shaders' SPIR-V, the pipeline cache's file access).
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wcast-function-type"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#define VOLK_IMPLEMENTATION
#include <volk.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#include "strix/vulkan.hpp"
#include "strix/vulkan/spirv/code.h"
#include "strix/cpu/kernels_instance.hpp" // the CPU kernels, for the program (see strix/cpu/kernels.hpp)

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

std::int64_t strix::vulkan::detail::steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace strix::vulkan::detail {
/// A UTF-8 path as the file system's (wide on Windows).
inline std::filesystem::path utf8_path(const std::string& s) { return std::filesystem::path(std::u8string(s.begin(), s.end())); }
} // namespace strix::vulkan::detail

std::vector<char> strix::vulkan::detail::read_file(const std::string& name) {
    const std::filesystem::path path = utf8_path(name);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return {};
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

bool strix::vulkan::detail::write_file(const std::string& name, const char* data, std::size_t n) {
    std::ofstream f(utf8_path(name), std::ios::binary | std::ios::trunc);
    f.write(data, static_cast<std::streamsize>(n));
    return static_cast<bool>(f);
}

// The backend's functions that its headers declare: compiled here, once per program.
#include "strix/vulkan/impl/check.ipp"
#include "strix/vulkan/impl/config.ipp"
#include "strix/vulkan/impl/context.ipp"
#include "strix/vulkan/impl/device.ipp"
#include "strix/vulkan/impl/transfer.ipp"
#include "strix/vulkan/impl/recorder.ipp"
#include "strix/vulkan/impl/encode.ipp"
#include "strix/vulkan/impl/recording.ipp"
#include "strix/vulkan/impl/stream.ipp"
#include "strix/vulkan/impl/command_recorder.ipp"
#include "strix/vulkan/impl/ops.ipp"

// the symbol strix's Vulkan backend asks the linker for (see strix/vulkan/context.hpp)
extern "C" const int strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file = 1;
