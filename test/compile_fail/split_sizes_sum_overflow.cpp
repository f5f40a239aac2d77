// expect: strix::split: the sizes must add up to the input's size on the axis
// (2^63 - 1) + (2^63 - 1) + 2 wraps to 0 in 64 bits; it must not pass for the input's 0.
#include <strix/strix.hpp>

constexpr std::int64_t big = INT64_MAX;
void f(const float* in, float* o0, float* o1, float* o2) {
    strix::tensor_view<const float, strix::extents<0, 0>> input(in);
    strix::tensor_view<float, strix::extents<big, 0>> out0(o0), out1(o1);
    strix::tensor_view<float, strix::extents<2, 0>> out2(o2);
    strix::split<strix::split_desc{.axis = 0}>(input, out0, out1, out2);
}
