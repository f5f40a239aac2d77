// expect: strix::gather-elements: the axis must lie in [-rank, rank) of the input
// Axis 2 of a rank-2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_elements_extents<strix::gather_elements_desc{.axis = 2}>(strix::extents<2, 3>{}, strix::extents<2, 3>{});
