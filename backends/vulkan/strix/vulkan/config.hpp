#pragma once
/// The Vulkan backend's environment switches, all read here, by read_environment(), when a
/// context is made (so a test or a benchmark can set one between contexts). Each turns off a
/// path that the device would take, to test or measure the path beneath it; none is needed in
/// normal use.
///
///   STRIX_VULKAN_DEVICE=<index or part of a name>  the device a context picks (context_options::device wins)
///   STRIX_VULKAN_NO_SMALL_STORAGE=1   1- and 2-byte elements through 32-bit words
///   STRIX_VULKAN_WIDE=1               every move located in 64-bit arithmetic
///   STRIX_VULKAN_NO_INT64_ATOMICS=1   no 64-bit atomics (8-byte reductions take the deterministic path)
///   STRIX_VULKAN_NO_FLOAT64=1         no float64 arithmetic in shaders
///   STRIX_VULKAN_NO_FLOAT_ATOMICS=1   no float atomic add
///   STRIX_VULKAN_NO_CLAIMS=1          scatters without a reduction skip the claim path
///   STRIX_VULKAN_NO_TILE=1            gather-elements reads its sources in place, never through a tile of
///                                     the input in shared memory (shaders/tile.comp)
///   STRIX_VULKAN_TILE_KIB=n           that tile's size (4..32 KiB, within the device's shared memory; default 32)
///   STRIX_VULKAN_UNROLL=n             16-byte moves per invocation (1..8; default 4)
///   STRIX_VULKAN_CHUNK_UNROLL=n       16-byte output chunks per invocation (1..8; default 1)
///   STRIX_VULKAN_FOLD_CHUNK=n         updates of one target a deterministic reduction's fold dispatch takes
///                                     (default 65536 on GPUs, 4096 on CPU devices, whose loops stop at 65535 iterations)
///   STRIX_VULKAN_SLOT_BITS_FROM=n     outputs of n elements and more mark a deterministic reduction's targets
///                                     with a bit each, smaller ones with a word (default 4M + 1)
///   STRIX_VULKAN_SPIN_US=n            microseconds a wait polls before blocking (context_options::spin_wait_us)
///   STRIX_VULKAN_HOST_IMPORT=1        transfers copy straight from and to host memory the device imports
///                                     (VK_EXT_external_memory_host) instead of through staging

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace strix::vulkan::detail {

/// The switches as read from the environment.
struct environment {
    std::optional<std::string> device;
    bool no_small_storage = false;
    bool wide = false;
    bool no_int64_atomics = false;
    bool no_float64 = false;
    bool no_float_atomics = false;
    bool no_claims = false;
    bool host_import = false;
    bool no_tile = false;
    std::uint32_t tile_kib = 32;
    std::uint32_t unroll = 4;       ///< measured best on the H200 (1: 3.3 TB/s, 2: 3.9, 4 and 8: 4.1, a 1 GiB copy)
    std::uint32_t chunk_unroll = 1; ///< more measured slower on the H200 (a pad of 3: 0.219 ms at 1, 0.26 at 4, 0.39 at 8)
    std::optional<std::uint32_t> spin_us;
    std::optional<std::uint32_t> fold_chunk;
    std::uint64_t slot_bits_from = (std::uint64_t{1} << 22) + 1;
};

/// Reads every switch now.
environment read_environment();

} // namespace strix::vulkan::detail
