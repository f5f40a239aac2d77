// expect: strix::gather-nd: the output's shape is not the inferred shape
// Tuples [4,1] into [2,3] give [4,3], not [4,2].
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<4, 1>> indices(idx);
    strix::tensor_view<float, strix::extents<4, 2>> output(out);
    strix::gather_nd<strix::gather_nd_desc{}>(input, indices, output);
}
