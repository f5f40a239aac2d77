// expect: strix::gather: with IndexDimensions K, the leading rank-K dimensions of the indices must be 1
// DirectML form, K = 2 of rank 3: indices dimension 0 must be 1, it is 2.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<1, 3, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<2, 1, 2>> indices(idx);
    strix::tensor_view<float, strix::extents<3, 1, 2>> output(out);
    strix::gather<strix::gather_desc{.axis = 2, .index_dimensions = 2}>(input, indices, output);
}
