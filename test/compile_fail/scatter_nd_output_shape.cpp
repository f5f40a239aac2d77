// expect: strix::scatter-nd: the output must have the input's shape
// Output [3,5] for input [3,4].
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<3, 4>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<2, 1>> indices(idx);
    strix::tensor_view<const float, strix::extents<2, 4>> updates(upd);
    strix::tensor_view<float, strix::extents<3, 5>> output(out);
    strix::scatter_nd<strix::scatter_nd_desc{}>(input, indices, updates, output);
}
