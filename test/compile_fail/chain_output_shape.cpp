// expect: strix::copy: the output must have the input's shape
// A typed chain evaluated into static extents other than its result's ([2, 6]) does not compile.
#include <strix/strix.hpp>

void f(const float* x, const std::int64_t* idx, float* out) {
    const strix::tensor_view<const float, strix::extents<2, 3>> X(x);
    const strix::tensor_view<const std::int64_t, strix::extents<2>> I(idx);
    const auto c = strix::lazy(X).gather<strix::gather_desc{.axis = 0}>(I).pad<strix::pad_desc{.mode = strix::pad_mode::wrap, .start = {0, 1}, .end = {0, 2}}>();
    strix::evaluate(c, strix::tensor_view<float, strix::extents<2, 5>>(out));
}
