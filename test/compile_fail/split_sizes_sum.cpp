// expect: strix::split: the sizes must add up to the input's size on the axis
// Pieces of 2 and 2 from 5.
#include <strix/strix.hpp>

void f(const float* in, float* o0, float* o1) {
    strix::tensor_view<const float, strix::extents<5, 3>> input(in);
    strix::tensor_view<float, strix::extents<2, 3>> out0(o0);
    strix::tensor_view<float, strix::extents<2, 3>> out1(o1);
    strix::split<strix::split_desc{.axis = 0}>(input, out0, out1);
}
