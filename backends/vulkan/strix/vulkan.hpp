#pragma once
/// strix's Vulkan backend: the core operators on any Vulkan 1.2 device, bit-identical to the CPU.
///
/// Needs volk's implementation in exactly one translation unit of the program: the Meson
/// dependency `strix_vulkan` compiles it for you; elsewhere, include
/// <strix/vulkan/implementation.hpp> in one .cpp file. No link-time dependency on Vulkan:
/// the loader (libvulkan.so.1 / vulkan-1.dll) is opened at run time.

#include "strix/strix.hpp"
#include "strix/vulkan/context.hpp"
#include "strix/vulkan/ops.hpp"
#include "strix/vulkan/stream.hpp"
#include "strix/vulkan/command_recorder.hpp"
