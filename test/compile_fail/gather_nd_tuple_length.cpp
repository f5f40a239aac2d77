// expect: strix::gather-nd: the indices' last dimension must lie in [1, rank of the input - batch dimensions]
// Tuples of 3 indices into a rank-2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_nd_extents<strix::gather_nd_desc{}>(strix::extents<2, 3>{}, strix::extents<4, 3>{});
