// expect: strix::gather-nd: the indices must be int32, int64, uint32 or uint64
// float indices.
#include <strix/strix.hpp>

void f(const float* in, const float* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const float, strix::extents<4, 2>> indices(idx);
    strix::tensor_view<float, strix::extents<4>> output(out);
    strix::gather_nd<strix::gather_nd_desc{}>(input, indices, output);
}
