// expect: strix::scatter: the input must have at least one dimension
// A scalar input has no axis to scatter into.
#include <strix/strix.hpp>

constexpr auto out = strix::scatter_extents<strix::scatter_desc{}>(strix::extents<>{}, strix::extents<>{}, strix::extents<>{});
