// expect: strix::gather: the output would have more than 2^63 - 1 elements
// [2^32, 2^20] gathered on axis 1 by 2^32 indices: [2^32, 2^32] is 2^64 elements.
#include <strix/strix.hpp>

constexpr std::int64_t a = std::int64_t{1} << 32;
constexpr auto out = strix::gather_extents<strix::gather_desc{.axis = 1}>(strix::extents<a, (std::int64_t{1} << 20)>{}, strix::extents<a>{});
