namespace strix::vulkan::detail {

environment read_environment() {
    const auto text = [](const char* name) -> const char* {
        const char* v = std::getenv(name);
        return v && *v ? v : nullptr;
    };
    // a switch is on when set to anything but "0" (STRIX_VULKAN_WIDE: only "1", as documented)
    const auto on = [&](const char* name) {
        const char* v = text(name);
        return v && std::string(v) != "0";
    };
    const auto count = [&](const char* name, int fallback) {
        const char* v = text(name);
        return static_cast<std::uint32_t>(std::clamp(v ? std::atoi(v) : fallback, 1, 8));
    };
    environment e;
    if (const char* v = text("STRIX_VULKAN_DEVICE")) e.device = v;
    e.no_small_storage = on("STRIX_VULKAN_NO_SMALL_STORAGE");
    e.wide = text("STRIX_VULKAN_WIDE") && std::string(text("STRIX_VULKAN_WIDE")) == "1";
    e.no_int64_atomics = on("STRIX_VULKAN_NO_INT64_ATOMICS");
    e.no_float64 = on("STRIX_VULKAN_NO_FLOAT64");
    e.no_float_atomics = on("STRIX_VULKAN_NO_FLOAT_ATOMICS");
    e.no_claims = on("STRIX_VULKAN_NO_CLAIMS");
    e.host_import = on("STRIX_VULKAN_HOST_IMPORT");
    e.no_tile = on("STRIX_VULKAN_NO_TILE");
    if (const char* v = text("STRIX_VULKAN_TILE_KIB")) e.tile_kib = static_cast<std::uint32_t>(std::clamp(std::atoi(v), 4, 32));
    e.unroll = count("STRIX_VULKAN_UNROLL", 4);
    e.chunk_unroll = count("STRIX_VULKAN_CHUNK_UNROLL", 1);
    if (const char* v = text("STRIX_VULKAN_FOLD_CHUNK")) e.fold_chunk = static_cast<std::uint32_t>(std::clamp(std::atol(v), 16L, 1L << 30));
    if (const char* v = text("STRIX_VULKAN_SLOT_BITS_FROM")) e.slot_bits_from = static_cast<std::uint64_t>(std::max(std::atoll(v), 0LL));
    if (const char* v = text("STRIX_VULKAN_SPIN_US")) e.spin_us = static_cast<std::uint32_t>(std::clamp(std::atol(v), 0L, 1000000L));
    return e;
}

} // namespace strix::vulkan::detail
