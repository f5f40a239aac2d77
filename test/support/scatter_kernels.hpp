#pragma once
// The CPU scatter's kernels — 220 element type x index type x reduction combinations, about a
// minute of compile time at -O2 — are instantiated where the library's scatter is called. A test
// program needs them once: every file that includes the harness declares them instantiated
// elsewhere, and test/ops/updates.cpp instantiates them. (This names the CPU's update-plan
// kernel: when that changes, this declaration and the one definition change with it.)

#include "strix/strix.hpp"

extern template void strix::cpu::execute<void>(const strix::plan::update_plan&, const strix::cpu::options&);
