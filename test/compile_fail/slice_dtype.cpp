// expect: strix::slice: the output must have the input's element type
// A float input sliced into a double output.
#include <strix/strix.hpp>

void f(const float* in, double* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<double, strix::extents<2, 1>> output(out);
    strix::slice<strix::slice_desc{.starts = {0}, .ends = {1}, .axes = {1}}>(input, output);
}
