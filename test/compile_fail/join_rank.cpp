// expect: strix::join: every input must have the rank of the first input
// A rank 2 input joined with a rank 3 input.
#include <strix/strix.hpp>

constexpr auto out = strix::join_extents<strix::join_desc{.axis = 0}>(strix::extents<2, 3>{}, strix::extents<1, 2, 3>{});
