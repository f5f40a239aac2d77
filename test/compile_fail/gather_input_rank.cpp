// expect: strix::gather: the input must have at least one dimension
// A scalar (rank 0) input has no axis to gather from.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 0}>(strix::extents<>{}, strix::extents<2>{});
