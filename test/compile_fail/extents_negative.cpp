// expect: strix::extents: a static extent must not be negative
// -2 is neither a size nor dynamic_extent (-1).
#include <strix/strix.hpp>

strix::extents<2, -2> e;
