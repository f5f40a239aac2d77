// The one reader of the environment: context_options' defaults (the table in config.hpp).

#include <charconv>
#include <limits>

namespace strix::vulkan {

namespace detail {

/// The process environment, as context_options() reads it.
static const char* process_environment(const char* name) { return std::getenv(name); }

} // namespace detail

context_options::context_options() : context_options(&detail::process_environment) {}

context_options::context_options(lookup env) {
    if (!env) return;
    // unset and empty alike leave the default
    const auto text = [&](const char* name) -> const char* {
        const char* v = env(name);
        return v && *v ? v : nullptr;
    };
    const auto refuse = [](const char* name, const char* value, const char* rule) {
        throw error(error_code::invalid_argument, std::string("strix::vulkan: ") + name + "=" + value + ": " + rule);
    };
    // a switch: "1" sets the field to `on`, "0" to the opposite
    const auto flag = [&](const char* name, bool& field, bool on) {
        const char* v = text(name);
        if (!v) return;
        if (std::string_view(v) == "1") field = on;
        else if (std::string_view(v) == "0") field = !on;
        else refuse(name, v, "a switch takes 1 or 0");
    };
    // a number: decimal digits only, saturated to the field's type (the context clamps it to its range)
    const auto number = [&]<class T>(const char* name, T& field) {
        const char* v = text(name);
        if (!v) return;
        const std::string_view s(v);
        std::uint64_t n = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        if (ec == std::errc::result_out_of_range) n = std::numeric_limits<std::uint64_t>::max();
        else if (ec != std::errc() || end != s.data() + s.size()) refuse(name, v, "a number takes decimal digits only");
        field = static_cast<T>(std::min<std::uint64_t>(n, std::numeric_limits<T>::max()));
    };
    const auto optional_number = [&](const char* name, std::optional<std::uint32_t>& field) {
        if (!text(name)) return;
        std::uint32_t n = 0;
        number(name, n);
        field = n;
    };
    if (const char* v = text("STRIX_VULKAN_DEVICE")) device = v;
    if (const char* v = text("STRIX_VULKAN_PROFILE")) {
        if (std::string_view(v) == "full") profile = path_profile::full;
        else if (std::string_view(v) == "baseline") profile = path_profile::baseline;
        else refuse("STRIX_VULKAN_PROFILE", v, "a profile is full or baseline");
    }
    flag("STRIX_VULKAN_NO_SMALL_STORAGE", small_storage, false);
    flag("STRIX_VULKAN_WIDE", always_addr64, true);
    flag("STRIX_VULKAN_NO_INT64_ATOMICS", int64_atomics, false);
    flag("STRIX_VULKAN_NO_FLOAT64", float64, false);
    flag("STRIX_VULKAN_NO_FLOAT_ATOMICS", float_atomics, false);
    flag("STRIX_VULKAN_NO_CLAIMS", scatter_claims, false);
    flag("STRIX_VULKAN_NO_TILE", tile, false);
    number("STRIX_VULKAN_TILE_KIB", tile_kib);
    number("STRIX_VULKAN_UNROLL", unroll);
    number("STRIX_VULKAN_CHUNK_UNROLL", chunk_unroll);
    optional_number("STRIX_VULKAN_FOLD_CHUNK", fold_chunk);
    number("STRIX_VULKAN_SLOT_BITS_FROM", slot_bits_from);
    optional_number("STRIX_VULKAN_SPIN_US", spin_wait_us);
    flag("STRIX_VULKAN_HOST_IMPORT", host_import, true);
}

} // namespace strix::vulkan
