// expect: strix::gather-nd: a typed call needs the indices' last extent (the tuple length) to be static
// A dynamic tuple length.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::dextents<2>> indices(idx, strix::dextents<2>(4, 1));
    strix::tensor_view<float, strix::dextents<2>> output(out, strix::dextents<2>(4, 3));
    strix::gather_nd<strix::gather_nd_desc{}>(input, indices, output);
}
