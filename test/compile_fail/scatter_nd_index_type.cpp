// expect: strix::scatter-nd: the indices must be int32, int64, uint32 or uint64
// double indices.
#include <strix/strix.hpp>

void f(const float* in, const double* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<3, 4>> input(in);
    strix::tensor_view<const double, strix::extents<2, 1>> indices(idx);
    strix::tensor_view<const float, strix::extents<2, 4>> updates(upd);
    strix::tensor_view<float, strix::extents<3, 4>> output(out);
    strix::scatter_nd<strix::scatter_nd_desc{}>(input, indices, updates, output);
}
