// expect: strix::gather: with IndexDimensions, the input and the indices must have the same rank
// DirectML form: rank 3 input, rank 2 indices.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 2, .index_dimensions = 2}>(strix::extents<1, 3, 3>{},
                                                                                                 strix::extents<1, 2>{});
