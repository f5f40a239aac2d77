// expect: strix::extents: a tensor has at most 8 dimensions
// Nine dimensions.
#include <strix/strix.hpp>

strix::extents<1, 1, 1, 1, 1, 1, 1, 1, 1> e;
