// expect: strix::tile: the output's shape is not the inferred shape
// [2,3] tiled (2,2) is [4,6], not [4,3].
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<4, 3>> output(out);
    strix::tile<strix::tile_desc{.repeats = {2, 2}}>(input, output);
}
