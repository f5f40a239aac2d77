// expect: strix::extents: the static extents multiply to more than 2^63 - 1 elements
// 2^62 x 4 elements: each size fits in 64 bits, their product does not.
#include <strix/strix.hpp>

strix::extents<(std::int64_t{1} << 62), 4> e;
