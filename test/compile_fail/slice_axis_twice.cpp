// expect: strix::slice: an axis may be sliced only once
// Axes 1 and -1 of a rank-2 input are one axis.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<2, 1>> output(out);
    strix::slice<strix::slice_desc{.starts = {0, 0}, .ends = {1, 1}, .axes = {1, -1}}>(input, output);
}
