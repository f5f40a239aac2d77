// expect: strix::slice: a step must not be 0
// A step of 0.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::slice<strix::slice_desc{.starts = {0}, .ends = {2}, .axes = {1}, .steps = {0}}>(input, output);
}
