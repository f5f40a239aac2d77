// expect: strix::scatter: the updates and the output must have the input's element type
// double updates into a float tensor.
#include <strix/strix.hpp>

void f(const float* in, const std::uint32_t* idx, const double* upd, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::uint32_t, strix::extents<1, 3>> indices(idx);
    strix::tensor_view<const double, strix::extents<1, 3>> updates(upd);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::scatter<strix::scatter_desc{.axis = 0}>(input, indices, updates, output);
}
