// expect: strix::pad: edge, reflect and symmetric padding need at least one element on a padded axis
// Reflect-padding axis 1, which has size 0.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 0>> input(in);
    strix::tensor_view<float, strix::extents<2, 2>> output(out);
    strix::pad<strix::pad_desc{.mode = strix::pad_mode::reflect, .start = {0, 1}, .end = {0, 1}}>(input, output);
}
