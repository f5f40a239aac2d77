#pragma once
// The CPU scatter's kernels — 220 element type x index type x reduction combinations, about a
// minute of compile time at -O2 — are instantiated where the library's scatter is called. A test
// program needs them once: every file that includes the harness declares them instantiated
// elsewhere, and test/ops/updates.cpp instantiates them. (This names the library's internal
// update loop: when that changes, this declaration and the one definition change with it.)

#include "strix/strix.hpp"

extern template void strix::detail::apply_updates<void>(const strix::any_cview&, const strix::any_view&, const strix::detail::update_walk&,
                                                         const strix::detail::update_source&, strix::scatter_reduction,
                                                         const strix::cpu::options&);
