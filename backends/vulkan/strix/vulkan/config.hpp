#pragma once
/// How a context is made: context_options, whose fields are every choice a program (or a test,
/// or a benchmark) can make, and the environment variables that change their defaults.
///
/// Each field has a built-in default, written below. A context_options made without a lookup
/// (context_options(), also what `context ctx;` uses) replaces it with the field's
/// STRIX_VULKAN_* variable where the process environment sets one; that is the only place the
/// backend reads the environment (impl/config.ipp), so a field a program sets always wins over
/// the variable, and scripts that set variables keep working. Most fields turn off a path the
/// device would take, to test or measure the path beneath it; none needs setting in normal use.
///
/// Every variable is read by one rule: unset or empty leaves the default; a switch takes exactly
/// "1" or "0" (1 does what its name says, 0 undoes it); a number takes decimal digits only; any
/// other value throws strix::error (invalid_argument) naming the variable. A number outside its
/// field's range is clamped to it when the context is made, as is a field set out of range.
///
///   variable                       field            value
///   STRIX_VULKAN_DEVICE=<text>     device           an index, or part of a name (any case)
///   STRIX_VULKAN_PROFILE=<name>    profile          full or baseline
///   STRIX_VULKAN_NO_SMALL_STORAGE  small_storage    1: false
///   STRIX_VULKAN_WIDE              always_addr64  1: true
///   STRIX_VULKAN_NO_INT64_ATOMICS  int64_atomics    1: false
///   STRIX_VULKAN_NO_FLOAT64        float64          1: false
///   STRIX_VULKAN_NO_FLOAT_ATOMICS  float_atomics    1: false
///   STRIX_VULKAN_NO_CLAIMS         scatter_claims   1: false
///   STRIX_VULKAN_NO_TILE           tile             1: false
///   STRIX_VULKAN_TILE_KIB=n        tile_kib         4..32 (default 32)
///   STRIX_VULKAN_UNROLL=n          unroll           1..8 (default 4)
///   STRIX_VULKAN_CHUNK_UNROLL=n    chunk_unroll     1..8 (default 1)
///   STRIX_VULKAN_FOLD_CHUNK=n      fold_chunk       16..2^30 (default by device type)
///   STRIX_VULKAN_SLOT_BITS_FROM=n  slot_bits_from   any (default 4M + 1)
///   STRIX_VULKAN_SPIN_US=n         spin_wait_us     0..1000000 (default by device type)
///   STRIX_VULKAN_HOST_IMPORT       host_import      1: true
///
/// Why the numeric defaults are what they are: bench/NOTES.md, "Defaults of the Vulkan
/// switches and why".

#include <cstdint>
#include <optional>
#include <string>

namespace strix::vulkan {

/// Which of the device's optional features a context may use (context_options::profile).
enum class path_profile : std::uint8_t {
    /// Whatever the device has: the full path (64-bit device addresses and arithmetic) where it
    /// has bufferDeviceAddress and shaderInt64, else the baseline path; 8/16-bit storage, 64-bit
    /// atomics, float64 and float atomics each where present.
    full,
    /// None of them, on any device: the baseline path of Vulkan 1.1 core compute (operands bound
    /// through descriptor sets, 32-bit arithmetic), with the device made without the optional
    /// features (what a device that lacks them runs, on any device).
    baseline,
};

/// "full" or "baseline".
inline const char* profile_name(path_profile p) { return p == path_profile::baseline ? "baseline" : "full"; }

/// How to create a context (see above for the environment's part in the defaults).
struct context_options {
    /// Looks an environment variable up: its value, or nullptr when it is not set.
    using lookup = const char* (*)(const char* name);

    /// The built-in defaults, each replaced by its STRIX_VULKAN_* variable where the process
    /// environment sets one. Throws strix::error naming a variable whose value is malformed.
    context_options();
    /// The same with `env` standing for the environment (nullptr: the built-in defaults only).
    explicit context_options(lookup env);

    /// The device: an index in list_devices(), or a case-insensitive part of its name; none:
    /// the best usable one by type (see choose_device).
    std::optional<std::string> device;
    /// Which optional features the context may use (see path_profile). A context adopting the
    /// application's device uses at most the features that device was made with.
    path_profile profile = path_profile::full;
    /// Load the pipeline cache from this file (UTF-8 path) when it exists.
    std::string pipeline_cache;
    /// Move 1- and 2-byte elements through 8/16-bit storage where the device has it (false: the
    /// 32-bit word path).
    bool small_storage = true;
    /// Locate every moved element in 64-bit arithmetic, with pad folds read from their tables:
    /// the path calls of 2^31 or more elements (or offsets) take, for tests and measurements; by
    /// default calls that fit take the 32-bit path.
    bool always_addr64 = false;
    /// Let scatter reductions of 8-byte elements use 64-bit atomics where the device has them
    /// (false: they take the deterministic path).
    bool int64_atomics = true;
    /// Let shaders do float64 arithmetic where the device has it (float64 add/mul reductions
    /// need it; float32 ones use it to stay exact on devices that flush subnormals).
    bool float64 = true;
    /// Let float add reductions use the device's float atomic add where its result equals the
    /// CPU's (shaders/reduce.comp).
    bool float_atomics = true;
    /// Let scatters without a reduction take the claim path (stream::claims_scatter).
    bool scatter_claims = true;
    /// Let gather-elements read its input through a tile in shared memory (shaders/tile.comp)
    /// where that pays (false: it reads its sources in place).
    bool tile = true;
    /// That tile's size in KiB (4..32), within the device's shared memory.
    std::uint32_t tile_kib = 32;
    /// 16-byte moves per invocation of the copy shader and of 16-byte element moves (1..8).
    std::uint32_t unroll = 4;
    /// 16-byte output chunks per invocation of a chunked move (1..8).
    std::uint32_t chunk_unroll = 1;
    /// Updates of one target a deterministic reduction's fold dispatch takes (16..2^30); none:
    /// 65536 on GPUs, 4096 on CPU devices, some of whose loops stop at 65535 iterations.
    std::optional<std::uint32_t> fold_chunk;
    /// Outputs of this many elements and more mark a deterministic reduction's targets with a
    /// bit each, smaller ones with a word each (tests set 1 to run the bit map on small calls).
    std::uint64_t slot_bits_from = (std::uint64_t{1} << 22) + 1;
    /// How long a wait for the device polls before it blocks, in microseconds (0..1000000);
    /// none: 1000 on a GPU, 0 on a CPU device (whose cores polling would take). Polling returns
    /// as soon as the work is done, where a blocking wait returns tens of microseconds later;
    /// it keeps a core busy while it polls.
    std::optional<std::uint32_t> spin_wait_us;
    /// Have upload and download copy straight from and to host memory the device imports
    /// (VK_EXT_external_memory_host) instead of through staging, where the device can.
    bool host_import = false;
};

} // namespace strix::vulkan
