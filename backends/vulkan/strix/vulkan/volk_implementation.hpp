#pragma once
// Deprecated: the old name of strix/vulkan/implementation.hpp, which compiles the whole backend, not only volk.
#include "strix/vulkan/implementation.hpp"
