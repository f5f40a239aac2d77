// expect: strix::tile: the output must have the input's element type
// An int32 input tiled into a uint32 output.
#include <strix/strix.hpp>

void f(const std::int32_t* in, std::uint32_t* out) {
    strix::tensor_view<const std::int32_t, strix::extents<2, 3>> input(in);
    strix::tensor_view<std::uint32_t, strix::extents<4, 3>> output(out);
    strix::tile<strix::tile_desc{.repeats = {2, 1}}>(input, output);
}
