// expect: strix::pad: the output would have more than 2^63 - 1 elements
// [1,1] padded by 2^40 on every side is [2^41 + 1, 2^41 + 1]: about 2^82 elements.
#include <strix/strix.hpp>

constexpr std::int64_t p = std::int64_t{1} << 40;
void f(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<1, 1>> input(in);
    strix::tensor_view<float, strix::dextents<2>> output(out, strix::dextents<2>(1, 1));
    strix::pad<strix::pad_desc{.start = {p, p}, .end = {p, p}}>(input, output);
}
