// expect: strix::pad: negative pads must not remove more elements than the axis has
// A step of a typed chain breaks its operator's rule on static extents: the chain's second step,
// a crop of 4 on an axis the gather left at 2, does not compile.
#include <strix/strix.hpp>

void f(const float* x, const std::int64_t* idx) {
    const strix::tensor_view<const float, strix::extents<5, 3>> X(x);
    const strix::tensor_view<const std::int64_t, strix::extents<2>> I(idx);
    (void)strix::lazy(X).gather<strix::gather_desc{.axis = 0}>(I).pad<strix::pad_desc{.start = {-4, 0}, .end = {0, 0}}>();
}
