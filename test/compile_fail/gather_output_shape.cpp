// expect: strix::gather: the output's shape is not the inferred shape
// Gathering 4 indices on axis 1 of [2,3] gives [2,4], not [2,3].
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<4>> indices(idx);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::gather<strix::gather_desc{.axis = 1}>(input, indices, output);
}
