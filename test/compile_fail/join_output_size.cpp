// expect: strix::join: the output's size on the join axis would exceed 2^63 - 1
// 2^62 + 2^62 = 2^63 on axis 0 (the inputs have no elements, their sizes still add up).
#include <strix/strix.hpp>

constexpr std::int64_t q = std::int64_t{1} << 62;
constexpr auto out = strix::join_extents<strix::join_desc{.axis = 0}>(strix::extents<q, 0>{}, strix::extents<q, 0>{});
