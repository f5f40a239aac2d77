// expect: strix::tile: a repeat count must not be negative
// A repeat of -1.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::tile<strix::tile_desc{.repeats = {1, -1}}>(input, output);
}
