// The CPU kernels of strix's CPU test program, compiled once for the whole program: every test
// file is built with STRIX_SEPARATE_KERNELS, which declares them compiled elsewhere. The build
// compiles this file three times, with STRIX_KERNELS_PART 1, 2 and 3, so that two cores share
// the work (strix/cpu/kernels_instance.hpp says what each part holds). Without it each file that
// calls the CPU scatter compiled the update kernels of all 15 element types again.
#include "strix/strix.hpp"
#include "strix/cpu/kernels_instance.hpp"
