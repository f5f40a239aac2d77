// expect: strix::split: the axis must lie in [-rank, rank) of the input
// Axis -3 of a rank-2 input.
#include <strix/strix.hpp>

void f(const float* in, float* o0) {
    strix::tensor_view<const float, strix::extents<5, 3>> input(in);
    strix::tensor_view<float, strix::extents<5, 3>> out0(o0);
    strix::split<strix::split_desc{.axis = -3}>(input, out0);
}
