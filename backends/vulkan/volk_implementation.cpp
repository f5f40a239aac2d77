// The backend's implementation (volk's loader, the backend's definitions, the SPIR-V, the CPU
// kernels), compiled into programs that use the strix_vulkan Meson dependency or CMake target.
#include "strix/vulkan/implementation.hpp"
