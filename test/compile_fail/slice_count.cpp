// expect: strix::slice: starts and ends must have one entry per sliced axis, as must axes and steps when given
// Two starts, one end.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<1, 3>> output(out);
    strix::slice<strix::slice_desc{.starts = {0, 0}, .ends = {1}}>(input, output);
}
