// expect: strix::gather-nd: the batch dimensions must be fewer than the ranks of the input and of the indices
// Two batch dimensions with indices of rank 2.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_nd_extents<strix::gather_nd_desc{.batch_dimensions = 2}>(strix::extents<2, 3, 4>{}, strix::extents<2, 1>{});
