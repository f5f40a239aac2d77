// expect: strix::gather: the output would have more than 8 dimensions
// Natural form: rank 5 input and rank 5 indices give rank 5 + 5 - 1 = 9.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 0}>(strix::extents<2, 1, 1, 1, 1>{},
                                                                          strix::extents<1, 1, 1, 1, 3>{});
