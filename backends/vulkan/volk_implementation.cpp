// volk's implementation, compiled into programs that use the strix_vulkan Meson dependency.
#include "strix/vulkan/volk_implementation.hpp"
