// expect: strix::pad: the output's shape is not the inferred shape
// [2,3] padded by (1,0) before and (0,2) after is [3,5], not [3,6].
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<3, 6>> output(out);
    strix::pad<strix::pad_desc{.start = {1, 0}, .end = {0, 2}}>(input, output);
}
