#pragma once
/// Include in exactly one .cpp file of a program built with STRIX_SEPARATE_KERNELS (see
/// strix/cpu/kernels.hpp): it compiles the CPU kernels for the whole program. The Vulkan
/// backend's implementation (strix/vulkan/implementation.hpp) already includes it.
///
/// A build that would rather compile them in parallel defines STRIX_KERNELS_PART to 1, 2 or 3
/// in three files that include this header instead of one: part 1 compiles the move executor's
/// kernels and the update plan's dispatch, parts 2 and 3 the update plan's kernels of about half
/// the element types each (together most of the compile time: bench/NOTES.md). The Meson build
/// of the Vulkan backend does (backends/vulkan/implementation_kernels_*.cpp), and so do strix's
/// CPU tests (test/support/kernels.cpp).

#include "strix/cpu/kernels.hpp"

#if !defined(STRIX_KERNELS_PART) || STRIX_KERNELS_PART == 1
template void strix::cpu::execute_together<false>(std::span<const strix::plan::move_plan>, const strix::cpu::options&, std::int64_t);
template void strix::cpu::execute_together<true>(std::span<const strix::plan::move_plan>, const strix::cpu::options&, std::int64_t);
template void strix::cpu::execute<false>(const strix::plan::move_plan&, const strix::cpu::options&);
template void strix::cpu::execute<true>(const strix::plan::move_plan&, const strix::cpu::options&);
template void strix::cpu::execute<void>(const strix::plan::update_plan&, const strix::cpu::options&);
#endif

// the halves by element size: 8- and 2-byte types (7 of them), then 4- and 1-byte ones (8); each
// type takes about the same compile time, whatever its size (18 s at -O0 on a 2-core machine),
// and each comes from the list of element types (strix/dtype.hpp)
#define STRIX_KERNELS_INSTANCE(T) template void strix::cpu::detail::execute_updates<T>(const strix::plan::update_plan&, int, int, bool);
#if !defined(STRIX_KERNELS_PART) || STRIX_KERNELS_PART == 2
#define STRIX_KERNELS_OF_SIZE_8(T) STRIX_KERNELS_INSTANCE(T)
#define STRIX_KERNELS_OF_SIZE_2(T) STRIX_KERNELS_INSTANCE(T)
#else
#define STRIX_KERNELS_OF_SIZE_8(T)
#define STRIX_KERNELS_OF_SIZE_2(T)
#endif
#if !defined(STRIX_KERNELS_PART) || STRIX_KERNELS_PART == 3
#define STRIX_KERNELS_OF_SIZE_4(T) STRIX_KERNELS_INSTANCE(T)
#define STRIX_KERNELS_OF_SIZE_1(T) STRIX_KERNELS_INSTANCE(T)
#else
#define STRIX_KERNELS_OF_SIZE_4(T)
#define STRIX_KERNELS_OF_SIZE_1(T)
#endif
#define STRIX_KERNELS_UPDATES_OF(n, T, size, ...) STRIX_KERNELS_OF_SIZE_##size(T)
STRIX_ELEMENT_TYPES(STRIX_KERNELS_UPDATES_OF)
#undef STRIX_KERNELS_OF_SIZE_8
#undef STRIX_KERNELS_OF_SIZE_4
#undef STRIX_KERNELS_OF_SIZE_2
#undef STRIX_KERNELS_OF_SIZE_1
#undef STRIX_KERNELS_INSTANCE
#undef STRIX_KERNELS_UPDATES_OF
