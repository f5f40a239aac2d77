// expect: strix::join: every input and the output must have one element type
// An int32 input among float ones.
#include <strix/strix.hpp>

void f(const float* a, const std::int32_t* b, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> first(a);
    strix::tensor_view<const std::int32_t, strix::extents<2, 4>> second(b);
    strix::tensor_view<float, strix::extents<2, 7>> output(out);
    strix::join<strix::join_desc{.axis = 1}>(output, first, second);
}
