// expect: strix::scatter: the updates must have the shape of the indices
// Indices [1,3], updates [1,2].
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<1, 3>> indices(idx);
    strix::tensor_view<const float, strix::extents<1, 2>> updates(upd);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::scatter<strix::scatter_desc{.axis = 0}>(input, indices, updates, output);
}
