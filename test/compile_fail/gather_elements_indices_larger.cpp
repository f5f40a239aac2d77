// expect: strix::gather-elements: the indices must not be larger than the input on an axis other than the gather axis
// Indices [2,4] on axis 0 of [2,3]: 4 > 3 on axis 1.
#include <strix/strix.hpp>

constexpr auto out = strix::gather_elements_extents<strix::gather_elements_desc{.axis = 0}>(strix::extents<2, 3>{}, strix::extents<2, 4>{});
