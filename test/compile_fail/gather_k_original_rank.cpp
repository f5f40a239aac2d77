// expect: strix::gather: originalRank(input) + IndexDimensions - 1 must not exceed the rank
// [3,3,3] has original rank 3 (no leading 1s); 3 + 2 - 1 = 4 > 3.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 2, .index_dimensions = 2}>(strix::extents<3, 3, 3>{},
                                                                                                 strix::extents<1, 1, 2>{});
