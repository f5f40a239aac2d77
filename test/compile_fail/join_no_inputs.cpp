// expect: strix::join: there must be at least one input
// A typed join with an output and nothing to join.
#include <strix/strix.hpp>

void f(float* out) {
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::join<strix::join_desc{.axis = 0}>(output);
}
