// expect: strix::scatter-nd: the updates must have the shape indices[:-1] ++ input[k:]
// Tuples [2,1] into [3,4] need updates [2,4], not [2,3].
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<3, 4>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<2, 1>> indices(idx);
    strix::tensor_view<const float, strix::extents<2, 3>> updates(upd);
    strix::tensor_view<float, strix::extents<3, 4>> output(out);
    strix::scatter_nd<strix::scatter_nd_desc{}>(input, indices, updates, output);
}
