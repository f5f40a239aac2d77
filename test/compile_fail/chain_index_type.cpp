// expect: strix::gather: the indices must be int32, int64, uint32 or uint64
// A typed chain's gather with float indices does not compile.
#include <strix/strix.hpp>

void f(const float* x, const float* idx) {
    const strix::tensor_view<const float, strix::extents<5, 3>> X(x);
    const strix::tensor_view<const float, strix::extents<2>> I(idx);
    (void)strix::lazy(X).gather<strix::gather_desc{.axis = 0}>(I);
}
