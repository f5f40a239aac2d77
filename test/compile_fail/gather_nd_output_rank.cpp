// expect: strix::gather-nd: the output would have more than 8 dimensions
// Indices of rank 8 with 1-tuples into a rank-3 input: 7 + 2 dimensions.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_nd_extents<strix::gather_nd_desc{}>(strix::extents<2, 3, 4>{}, strix::extents<1, 1, 1, 1, 1, 1, 1, 1>{});
