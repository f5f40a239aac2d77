// expect: strix::scatter: the indices must not be larger than the input on an axis other than the scatter axis
// Scattering on axis 1: the indices have 3 rows, the input only 2.
#include <strix/strix.hpp>

constexpr auto out = strix::scatter_extents<strix::scatter_desc{.axis = 1}>(strix::extents<2, 3>{}, strix::extents<3, 1>{},
                                                                            strix::extents<3, 1>{});
