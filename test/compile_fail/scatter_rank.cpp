// expect: strix::scatter: the input, the indices and the updates must have the same rank
// Rank 1 indices and updates for a rank 2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::scatter_extents<strix::scatter_desc{.axis = 0}>(strix::extents<2, 3>{}, strix::extents<3>{},
                                                                            strix::extents<3>{});
