#pragma once
/// Include in exactly one .cpp file of a program built with STRIX_SEPARATE_KERNELS (see
/// strix/cpu/kernels.hpp): it compiles the CPU kernels for the whole program. The Vulkan
/// backend's source file (strix/vulkan/volk_implementation.hpp) already includes it.

#include "strix/cpu/kernels.hpp"

template void strix::cpu::execute_together<false>(std::span<const strix::plan::move_plan>, const strix::cpu::options&);
template void strix::cpu::execute_together<true>(std::span<const strix::plan::move_plan>, const strix::cpu::options&);
template void strix::cpu::execute<false>(const strix::plan::move_plan&, const strix::cpu::options&);
template void strix::cpu::execute<true>(const strix::plan::move_plan&, const strix::cpu::options&);
template void strix::cpu::execute<void>(const strix::plan::update_plan&, const strix::cpu::options&);
