// expect: strix::gather-elements: the indices must have the input's rank
// Indices of rank 1 for a rank-2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_elements_extents<strix::gather_elements_desc{.axis = 0}>(strix::extents<2, 3>{}, strix::extents<4>{});
