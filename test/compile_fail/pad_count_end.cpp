// expect: strix::pad: the start and end pads must each have one entry per dimension of the input
// Start pads fit, but there is one end pad for a rank 2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::pad_extents<strix::pad_desc{.start = {1, 1}, .end = {0}}>(strix::extents<2, 3>{});
