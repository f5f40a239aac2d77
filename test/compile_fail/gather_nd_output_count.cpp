// expect: strix::gather-nd: the output would have more than 2^63 - 1 elements
// 2^32 one-index tuples into [2, 2^32]: [2^32, 2^32] is 2^64 elements.
#include <strix/strix.hpp>

constexpr std::int64_t a = std::int64_t{1} << 32;
constexpr auto out = strix::gather_nd_extents<strix::gather_nd_desc{}>(strix::extents<2, a>{}, strix::extents<a, 1>{});
