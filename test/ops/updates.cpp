// The operators that apply updates (scatter, scatter-nd): their test files as one translation
// unit, which also compiles the CPU scatter's kernels for the whole test program (every other
// file that includes the harness leaves them to this one: see support/scatter_kernels.hpp).
// Compiled into both test programs, like the files it holds.

#include "scatter_test.cpp"
#include "scatter_nd_test.cpp"

#if !defined(STRIX_SEPARATE_KERNELS) // else the backend's source file compiles them
template void strix::cpu::execute<void>(const strix::plan::update_plan&, const strix::cpu::options&);
#endif
