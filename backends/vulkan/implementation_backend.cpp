// The backend's implementation split over four files that a build compiles in parallel (one
// file, volk_implementation.cpp, took 90 s of a 2-core machine's 93 s to build the tool): this
// one has volk's loader, the backend's definitions and the SPIR-V; implementation_kernels_*.cpp
// the CPU kernels (strix/cpu/kernels_instance.hpp, STRIX_KERNELS_PART).
#define STRIX_IMPLEMENTATION_WITHOUT_KERNELS
#include "strix/vulkan/implementation.hpp"
