namespace strix::vulkan {

void require_success(VkResult r, const char* call) {
    if (r == VK_SUCCESS) return;
    const auto code = (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_FEATURE_NOT_PRESENT ||
                       r == VK_ERROR_EXTENSION_NOT_PRESENT || r == VK_ERROR_LAYER_NOT_PRESENT)
                          ? error_code::unsupported
                          : error_code::io;
    throw error(code, std::string("strix::vulkan: ") + call + " failed with " + result_name(r) + " (" + std::to_string(static_cast<int>(r)) + ")");
}

} // namespace strix::vulkan
