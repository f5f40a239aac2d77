// expect: strix::gather: with IndexDimensions, the dimensions cropped from the front must be 1s of the input before the axis
// K = 2 crops one leading 1, which must lie before the axis; the axis is 0.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 0, .index_dimensions = 2}>(strix::extents<1, 3, 3>{},
                                                                                                 strix::extents<1, 1, 2>{});
