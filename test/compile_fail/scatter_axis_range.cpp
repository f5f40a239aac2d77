// expect: strix::scatter: the axis must lie in [-rank, rank) of the input
// Axis -3 of a rank 2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::scatter_extents<strix::scatter_desc{.axis = -3}>(strix::extents<2, 3>{}, strix::extents<1, 3>{},
                                                                             strix::extents<1, 3>{});
