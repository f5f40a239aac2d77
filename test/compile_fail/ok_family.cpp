// The family's typed calls with static extents compile when every rule holds, and their extents
// functions give the inferred static shapes.
#include <strix/strix.hpp>

#include <type_traits>

static_assert(std::is_same_v<decltype(strix::gather_elements_extents<strix::gather_elements_desc{.axis = 1}>(strix::extents<2, 3>{}, strix::extents<2, 5>{})),
                             strix::extents<2, 5>>);
static_assert(std::is_same_v<std::remove_cvref_t<decltype(strix::gather_nd_extents<strix::gather_nd_desc{.batch_dimensions = 1}>(
                                 strix::extents<2, 3, 4, 5>{}, strix::extents<2, 7, 2>{}))>,
                             strix::static_extents<strix::shape{2, 7, 5}>>);

void f(const float* in, const std::int64_t* idx, const float* upd, float* out, float* a, float* b) {
    strix::tensor_view<const float, strix::extents<3, 4>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<3, 4>> elements(idx);
    strix::tensor_view<float, strix::extents<3, 4>> output(out);
    strix::gather_elements<strix::gather_elements_desc{.axis = 0}>(input, elements, output);
    strix::tensor_view<const std::int64_t, strix::extents<2, 1>> tuples(idx);
    strix::tensor_view<float, strix::extents<2, 4>> rows(a);
    strix::gather_nd<strix::gather_nd_desc{}>(input, tuples, rows);
    strix::tensor_view<const float, strix::extents<2, 4>> updates(upd);
    strix::scatter_nd<strix::scatter_nd_desc{.reduction = strix::scatter_reduction::add}>(input, tuples, updates, output);
    strix::tensor_view<float, strix::extents<1, 4>> top(b);
    strix::split<strix::split_desc{.axis = 0}>(input, rows, top);
}
