// expect: strix::tile: the output's size on an axis would exceed 2^63 - 1
// 3 x 2^62 on axis 0.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<3, 1>> input(in);
    strix::tensor_view<float, strix::extents<3, 1>> output(out);
    strix::tile<strix::tile_desc{.repeats = {std::int64_t{1} << 62, 1}}>(input, output);
}
