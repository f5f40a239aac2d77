// expect: strix::join: the inputs must have equal sizes on every axis but the join axis
// Joining on axis 1: [2,3] and [4,3] differ on axis 0.
#include <strix/strix.hpp>

constexpr auto out = strix::join_extents<strix::join_desc{.axis = 1}>(strix::extents<2, 3>{}, strix::extents<4, 3>{});
