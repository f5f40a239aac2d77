// expect: strix::gather: the axis must lie in [-rank, rank) of the input
// A negative axis below -rank, in a typed call.
#include <strix/strix.hpp>

void f(const float* in, const std::int64_t* idx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<4>> indices(idx);
    strix::tensor_view<float, strix::extents<2, 4>> output(out);
    strix::gather<strix::gather_desc{.axis = -3}>(input, indices, output);
}
