#pragma once
/// The CPU kernels compiled once per program, on request. By default each file that calls an
/// operator compiles the kernels it reaches: the move executor's (25 element sizes x index
/// types, and gather-elements' 4 on compact indices) and, where it scatters, the update
/// plan's (220 element types x index types x reductions) — most of a small program's build. A
/// program that would rather compile them once defines STRIX_SEPARATE_KERNELS in every file (the
/// Meson dependency `strix_vulkan` and the CMake target `strix::vulkan` do, whose one source file
/// compiles them) and, without the backend, includes <strix/cpu/kernels_instance.hpp> in exactly
/// one .cpp file. strix.hpp includes this header when STRIX_SEPARATE_KERNELS is defined: these
/// declarations tell the compiler the kernels are compiled elsewhere.

#include <span>

#include "strix/cpu/executor.hpp"
#include "strix/cpu/update.hpp"

extern template void strix::cpu::execute_together<false>(std::span<const strix::plan::move_plan>, const strix::cpu::options&, std::int64_t);
extern template void strix::cpu::execute_together<true>(std::span<const strix::plan::move_plan>, const strix::cpu::options&, std::int64_t);
extern template void strix::cpu::execute<false>(const strix::plan::move_plan&, const strix::cpu::options&);
extern template void strix::cpu::execute<true>(const strix::plan::move_plan&, const strix::cpu::options&);
extern template void strix::cpu::execute<void>(const strix::plan::update_plan&, const strix::cpu::options&);

// the update plan's kernels of each element type (what execute<void> dispatches to), declared
// apart so that a build may compile them in several files (kernels_instance.hpp)
#define STRIX_KERNELS_UPDATES_OF(n, T, ...) \
    extern template void strix::cpu::detail::execute_updates<T>(const strix::plan::update_plan&, int, int, bool);
STRIX_ELEMENT_TYPES(STRIX_KERNELS_UPDATES_OF)
#undef STRIX_KERNELS_UPDATES_OF
