// expect: strix::scatter: the output must have the input's shape
// The output [3,2] is the input [2,3] transposed, not the input's shape.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<1, 3>> indices(idx);
    strix::tensor_view<const float, strix::extents<1, 3>> updates(upd);
    strix::tensor_view<float, strix::extents<3, 2>> output(out);
    strix::scatter<strix::scatter_desc{.axis = 0}>(input, indices, updates, output);
}
