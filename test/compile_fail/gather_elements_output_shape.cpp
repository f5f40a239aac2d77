// expect: strix::gather-elements: the output must have the indices' shape
// Indices [5,3], output [5,2].
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<5, 3>> indices(idx);
    strix::tensor_view<float, strix::extents<5, 2>> output(out);
    strix::gather_elements<strix::gather_elements_desc{.axis = 0}>(input, indices, output);
}
