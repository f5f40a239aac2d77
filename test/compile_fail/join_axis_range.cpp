// expect: strix::join: the axis must lie in [-rank, rank) of the inputs
// Axis 2 of rank 2 inputs.
#include <strix/strix.hpp>

constexpr auto out = strix::join_extents<strix::join_desc{.axis = 2}>(strix::extents<2, 3>{}, strix::extents<2, 3>{});
