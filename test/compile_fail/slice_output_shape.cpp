// expect: strix::slice: the output's shape is not the inferred shape
// [2,6] read backwards every second element from the end is [2,3], not [2,2].
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 6>> input(in);
    strix::tensor_view<float, strix::extents<2, 2>> output(out);
    strix::slice<strix::slice_desc{.starts = {-1}, .ends = {-100}, .axes = {1}, .steps = {-2}}>(input, output);
}
