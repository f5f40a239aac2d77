#pragma once
/// Include in exactly one .cpp file of a program that uses strix's Vulkan backend (the Meson
/// dependency `strix_vulkan` already does): it defines volk's function pointers and loader.
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
// the symbol strix's Vulkan backend asks the linker for (see strix/vulkan/context.hpp)
extern "C" const int strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file = 1;
