// expect: strix::gather: the indices must be int32, int64, uint32 or uint64
// A bool mask is no index tensor.
#include <strix/strix.hpp>

void f(const strix::float8_e4m3fn* in, const bool* idx, strix::float8_e4m3fn* out) {
    strix::tensor_view<const strix::float8_e4m3fn, strix::extents<2, 3>> input(in);
    strix::tensor_view<const bool, strix::extents<4>> indices(idx);
    strix::tensor_view<strix::float8_e4m3fn, strix::extents<2, 4>> output(out);
    strix::gather<strix::gather_desc{.axis = 1}>(input, indices, output);
}
