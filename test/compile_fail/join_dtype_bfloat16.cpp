// expect: strix::join: every input and the output must have one element type
// A float16 input among bfloat16 ones (both 2 bytes, different types).
#include <strix/strix.hpp>

void f(const strix::bfloat16* a, const strix::float16* b, strix::bfloat16* out) {
    strix::tensor_view<const strix::bfloat16, strix::extents<2, 3>> first(a);
    strix::tensor_view<const strix::float16, strix::extents<2, 4>> second(b);
    strix::tensor_view<strix::bfloat16, strix::extents<2, 7>> output(out);
    strix::join<strix::join_desc{.axis = 1}>(output, first, second);
}
