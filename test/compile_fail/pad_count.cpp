// expect: strix::pad: the start and end pads must each have one entry per dimension of the input
// Three start pads for a rank 2 input.
#include <strix/strix.hpp>

constexpr auto out = strix::pad_extents<strix::pad_desc{.start = {1, 1, 1}, .end = {0, 0}}>(strix::extents<2, 3>{});
