// Built into the Vulkan programs of sanitized builds only (backends/vulkan/meson.build adds it
// when b_sanitize has address). Keeps Mesa's lavapipe driver mapped until the process exits.
//
// The Vulkan loader unloads a driver when the instance that loaded it is destroyed. lavapipe
// (Mesa 22.3, Debian 12) keeps a block it reallocs on AMD processors (an array of 128-byte
// CPU masks; seen on a Zen 5 EPYC, never on the Xeon) in a global of its own; once the driver is unmapped,
// LeakSanitizer no longer scans that global and reports the block as leaked from an
// "<unknown module>", failing every Vulkan program of a sanitized run on AMD machines. Mapped
// until exit, the block stays reachable. Where lavapipe is not installed this does nothing.
#include <dlfcn.h>

namespace {

struct keep_lavapipe {
    keep_lavapipe() {
        // never closed: the handle's reference keeps the driver mapped after the loader's dlclose
        static_cast<void>(dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE));
    }
};
const keep_lavapipe keep;

} // namespace
