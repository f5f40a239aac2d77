// The CPU kernels, part 2 of 3 (see implementation_backend.cpp and strix/cpu/kernels_instance.hpp).
#define STRIX_KERNELS_PART 2
#include "strix/strix.hpp"
#include "strix/cpu/kernels_instance.hpp"
