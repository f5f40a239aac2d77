// expect: strix::gather-elements: the indices must be int32, int64, uint32 or uint64
// int16 indices.
#include <strix/strix.hpp>

void f(const float* in, const std::int16_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int16_t, strix::extents<5, 3>> indices(idx);
    strix::tensor_view<float, strix::extents<5, 3>> output(out);
    strix::gather_elements<strix::gather_elements_desc{.axis = 0}>(input, indices, output);
}
