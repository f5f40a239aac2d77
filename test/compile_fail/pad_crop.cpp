// expect: strix::pad: negative pads must not remove more elements than the axis has
// Axis 1 has 3 elements; the pads remove 2 + 2.
#include <strix/strix.hpp>

constexpr auto out = strix::pad_extents<strix::pad_desc{.start = {1, -2}, .end = {0, -2}}>(strix::extents<2, 3>{});
