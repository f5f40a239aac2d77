// expect: strix::pad: the output's size on an axis would exceed 2^63 - 1
// 3 + (2^63 - 1) + (2^63 - 1) elements on axis 0 do not fit in 64 bits.
#include <strix/strix.hpp>

constexpr std::int64_t big = INT64_MAX;
constexpr auto out = strix::pad_extents<strix::pad_desc{.start = {big}, .end = {big}}>(strix::extents<3>{});
