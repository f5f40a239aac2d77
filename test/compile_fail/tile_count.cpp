// expect: strix::tile: the repeats must have one entry per dimension of the input
// One repeat for a rank-2 input.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<4, 3>> output(out);
    strix::tile<strix::tile_desc{.repeats = {2}}>(input, output);
}
