// expect: strix::gather: the axis must lie in [-rank, rank) of the input
// An axis past the input's rank, on static extents.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 2}>(strix::extents<2, 3>{}, strix::extents<4>{});
