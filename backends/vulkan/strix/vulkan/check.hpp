#pragma once
/// Turning VkResult into strix::error: every Vulkan call strix makes is checked, and a failure
/// names the call and the result in words.

#include <string>

#include <volk.h>

#include "strix/error.hpp"

namespace strix::vulkan {

/// The name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY").
inline const char* result_name(VkResult r) {
    switch (r) {
#define STRIX_VK_RESULT(x) \
    case x: return #x;
        STRIX_VK_RESULT(VK_SUCCESS)
        STRIX_VK_RESULT(VK_NOT_READY)
        STRIX_VK_RESULT(VK_TIMEOUT)
        STRIX_VK_RESULT(VK_INCOMPLETE)
        STRIX_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
        STRIX_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        STRIX_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
        STRIX_VK_RESULT(VK_ERROR_DEVICE_LOST)
        STRIX_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
        STRIX_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
        STRIX_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
        STRIX_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
        STRIX_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
        STRIX_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
        STRIX_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
        STRIX_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
        STRIX_VK_RESULT(VK_ERROR_UNKNOWN)
        STRIX_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
        STRIX_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        STRIX_VK_RESULT(VK_ERROR_FRAGMENTATION)
        STRIX_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        STRIX_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
#undef STRIX_VK_RESULT
    default: return "an unknown VkResult";
    }
}

/// Throws strix::error (code `unsupported` for a missing driver or feature, `io` otherwise)
/// naming `call` and the result, unless `r` is VK_SUCCESS.
void require_success(VkResult r, const char* call);

/// A zeroed Vulkan structure of type `T` with its sType and pNext set.
template <class T>
T make(VkStructureType type, void* next = nullptr) {
    T s{};
    s.sType = type;
    s.pNext = next;
    return s;
}

} // namespace strix::vulkan
