// expect: strix::gather-nd: the indices' batch dimensions must equal the input's
// Batch dimension 3 against the input's 2.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_nd_extents<strix::gather_nd_desc{.batch_dimensions = 1}>(strix::extents<2, 3, 4>{}, strix::extents<3, 1>{});
