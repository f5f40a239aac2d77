// expect: strix::pad: the output must have the input's element type
// A uint8 input padded into an int8 output.
#include <strix/strix.hpp>

void f(const std::uint8_t* in, std::int8_t* out) {
    strix::tensor_view<const std::uint8_t, strix::extents<2, 3>> input(in);
    strix::tensor_view<std::int8_t, strix::extents<4, 5>> output(out);
    strix::pad<strix::pad_desc{.start = {1, 1}, .end = {1, 1}}>(input, output);
}
