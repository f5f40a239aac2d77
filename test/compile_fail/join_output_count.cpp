// expect: strix::join: the output would have more than 2^63 - 1 elements
// Two [2^30, 2^32] inputs on axis 0: [2^31, 2^32] is 2^63 elements.
#include <strix/strix.hpp>

void f(const float* a, const float* b, float* o) {
    strix::tensor_view<const float, strix::extents<(std::int64_t{1} << 30), (std::int64_t{1} << 32)>> x(a), y(b);
    strix::tensor_view<float, strix::dextents<2>> out(o, strix::dextents<2>(1, 1));
    strix::join<strix::join_desc{.axis = 0}>(out, x, y);
}
