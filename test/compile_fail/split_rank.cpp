// expect: strix::split: every output must have the input's rank
// A rank-1 piece of a rank-2 input.
#include <strix/strix.hpp>

void f(const float* in, float* o0, float* o1) {
    strix::tensor_view<const float, strix::extents<5, 3>> input(in);
    strix::tensor_view<float, strix::extents<5, 3>> out0(o0);
    strix::tensor_view<float, strix::extents<3>> out1(o1);
    strix::split<strix::split_desc{.axis = 0}>(input, out0, out1);
}
