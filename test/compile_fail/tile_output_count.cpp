// expect: strix::tile: the output would have more than 2^63 - 1 elements
// 2^40 x 2^40 elements.
#include <strix/strix.hpp>

void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<1, 1>> input(in);
    strix::tensor_view<float, strix::extents<1, 1>> output(out);
    strix::tile<strix::tile_desc{.repeats = {std::int64_t{1} << 40, std::int64_t{1} << 40}}>(input, output);
}
