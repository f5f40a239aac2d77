#pragma once
/// The Vulkan backend's implementation: include in exactly one .cpp file of a program that uses
/// the backend (the Meson dependency `strix_vulkan` already does). It compiles the whole backend
/// once: volk's function pointers and loader, every definition the backend's headers only declare
/// (impl/*.ipp), so that every other file is spared their parse, the shaders' SPIR-V, and the
/// CPU kernels. (Its old name, volk_implementation.hpp, still forwards here.)
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
// the CPU kernels, for the program (see strix/cpu/kernels.hpp); a build that compiles them in
// files of their own, in parallel, defines STRIX_IMPLEMENTATION_WITHOUT_KERNELS here
// (backends/vulkan/implementation_*.cpp)
#if !defined(STRIX_IMPLEMENTATION_WITHOUT_KERNELS)
#include "strix/cpu/kernels_instance.hpp"
#endif

#include <map>     // impl/memory.ipp
#include <numeric> // std::gcd (impl/recording.ipp)
#include <set>

// The backend's functions that its headers declare: compiled here, once per program.
#include "strix/vulkan/impl/check.ipp"
#include "strix/vulkan/impl/config.ipp"
#include "strix/vulkan/impl/instance.ipp"
#include "strix/vulkan/impl/memory.ipp"
#include "strix/vulkan/impl/pipelines.ipp"
#include "strix/vulkan/impl/frames.ipp"
#include "strix/vulkan/impl/context.ipp"
#include "strix/vulkan/impl/device.ipp"
#include "strix/vulkan/impl/transfer.ipp"
#include "strix/vulkan/impl/recorder.ipp"
#include "strix/vulkan/impl/encode.ipp"
#include "strix/vulkan/impl/encode_windows.ipp"
#include "strix/vulkan/impl/encode_updates.ipp"
#include "strix/vulkan/impl/recording.ipp"
#include "strix/vulkan/impl/stream.ipp"
#include "strix/vulkan/impl/command_recorder.ipp"
#include "strix/vulkan/impl/ops.ipp"

// the symbol strix's Vulkan backend asks the linker for (see strix/vulkan/context.hpp)
extern "C" const int strix_missing_implementation__include_strix_vulkan_implementation_hpp_in_one_cpp_file = 1;
