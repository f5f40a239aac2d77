// expect: strix::pad: a pad must not be negative
// End pad -1 on axis 1.
#include <strix/strix.hpp>

constexpr auto out = strix::pad_extents<strix::pad_desc{.start = {1, 0}, .end = {0, -1}}>(strix::extents<2, 3>{});
