// expect: strix::join: the output's shape is not the inferred shape
// [2,3] and [2,4] joined on axis -1 give [2,7], not [2,6].
#include <strix/strix.hpp>

void f(const float* a, const float* b, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> first(a);
    strix::tensor_view<const float, strix::extents<2, 4>> second(b);
    strix::tensor_view<float, strix::extents<2, 6>> output(out);
    strix::join<strix::join_desc{.axis = -1}>(output, first, second);
}
