// expect: strix::gather: the output's shape is not the inferred shape
// With a dynamic output the rank is still checked: [2,3] gathered by [4] has rank 2, not 3.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<4>> indices(idx);
    strix::tensor_view<float, strix::dextents<3>> output(out, strix::dextents<3>(2, 4, 1));
    strix::gather<strix::gather_desc{.axis = 1}>(input, indices, output);
}
