// expect: strix::gather: the output must have the input's element type
// A float input gathered into a double output.
#include <strix/strix.hpp>

void f(const float* in, const std::int32_t* idx, double* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int32_t, strix::extents<4>> indices(idx);
    strix::tensor_view<double, strix::extents<2, 4>> output(out);
    strix::gather<strix::gather_desc{.axis = 1}>(input, indices, output);
}
