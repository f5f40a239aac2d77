// expect: strix::slice: an axis must lie in [-rank, rank) of the input
// Axis -3 of a rank-2 input.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::slice<strix::slice_desc{.starts = {0}, .ends = {1}, .axes = {-3}}>(input, output);
}
