#pragma once
/// Include in exactly one .cpp file of a program built with STRIX_SEPARATE_KERNELS (see
/// strix/cpu/kernels.hpp): it compiles the CPU kernels for the whole program. The Vulkan
/// backend's implementation (strix/vulkan/implementation.hpp) already includes it.
///
/// A build that would rather compile them in parallel defines STRIX_KERNELS_PART to 1, 2 or 3
/// in three files that include this header instead of one: part 1 compiles the move executor's
/// kernels and the update plan's dispatch, parts 2 and 3 the update plan's kernels of half the
/// element types each (together most of the compile time: bench/NOTES.md). The Meson build of
/// the Vulkan backend does (backends/vulkan/kernels_part*.cpp).

#include "strix/cpu/kernels.hpp"

#if !defined(STRIX_KERNELS_PART) || STRIX_KERNELS_PART == 1
template void strix::cpu::execute_together<false>(std::span<const strix::plan::move_plan>, const strix::cpu::options&);
template void strix::cpu::execute_together<true>(std::span<const strix::plan::move_plan>, const strix::cpu::options&);
template void strix::cpu::execute<false>(const strix::plan::move_plan&, const strix::cpu::options&);
template void strix::cpu::execute<true>(const strix::plan::move_plan&, const strix::cpu::options&);
template void strix::cpu::execute<void>(const strix::plan::update_plan&, const strix::cpu::options&);
#endif

#define STRIX_KERNELS_UPDATES_OF(T) \
    template void strix::cpu::detail::execute_updates<T>(const strix::plan::update_plan&, int, int, bool);
// the halves, by measured compile time (8-byte types' and float16's kernels are the larger)
#if !defined(STRIX_KERNELS_PART) || STRIX_KERNELS_PART == 2
STRIX_KERNELS_UPDATES_OF(double)
STRIX_KERNELS_UPDATES_OF(float)
STRIX_KERNELS_UPDATES_OF(strix::float16)
STRIX_KERNELS_UPDATES_OF(std::int64_t)
STRIX_KERNELS_UPDATES_OF(std::int32_t)
#endif
#if !defined(STRIX_KERNELS_PART) || STRIX_KERNELS_PART == 3
STRIX_KERNELS_UPDATES_OF(std::int16_t)
STRIX_KERNELS_UPDATES_OF(std::int8_t)
STRIX_KERNELS_UPDATES_OF(std::uint64_t)
STRIX_KERNELS_UPDATES_OF(std::uint32_t)
STRIX_KERNELS_UPDATES_OF(std::uint16_t)
STRIX_KERNELS_UPDATES_OF(std::uint8_t)
#endif
#undef STRIX_KERNELS_UPDATES_OF
