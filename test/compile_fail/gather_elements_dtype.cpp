// expect: strix::gather-elements: the output must have the input's element type
// A double output for float input.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, double* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<5, 3>> indices(idx);
    strix::tensor_view<double, strix::extents<5, 3>> output(out);
    strix::gather_elements<strix::gather_elements_desc{.axis = 0}>(input, indices, output);
}
