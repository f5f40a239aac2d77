// expect: strix::gather-nd: the output must have the input's element type
// An int32 output for float input.
#include <strix/strix.hpp>

void f(const float* in, const std::int32_t* idx, std::int32_t* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int32_t, strix::extents<4, 2>> indices(idx);
    strix::tensor_view<std::int32_t, strix::extents<4>> output(out);
    strix::gather_nd<strix::gather_nd_desc{}>(input, indices, output);
}
