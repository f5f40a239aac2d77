// expect: strix::split: there must be at least one output
// A typed split with an input and nowhere to put it.
#include <strix/strix.hpp>

void f(const float* in) {
    strix::tensor_view<const float, strix::extents<5, 3>> input(in);
    strix::split<strix::split_desc{.axis = 0}>(input);
}
