// expect: strix::scatter-nd: the indices' last dimension must lie in [1, rank of the input]
// Tuples of 3 indices into a rank-2 input.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<3, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<2, 3>> indices(idx);
    strix::tensor_view<const float, strix::extents<2>> updates(upd);
    strix::tensor_view<float, strix::extents<3, 3>> output(out);
    strix::scatter_nd<strix::scatter_nd_desc{}>(input, indices, updates, output);
}
