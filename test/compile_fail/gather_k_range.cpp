// expect: strix::gather: IndexDimensions must lie in [0, rank of the indices]
// IndexDimensions 3 with rank 2 indices.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 1, .index_dimensions = 3}>(strix::extents<3, 2>{},
                                                                                                 strix::extents<1, 2>{});
