// A typed chain whose steps keep every rule compiles, and its extents are the steps' (static).
#include <strix/strix.hpp>

void f(const float* x, const std::int64_t* idx, float* out) {
    const strix::tensor_view<const float, strix::extents<2, 3>> X(x);
    const strix::tensor_view<const std::int64_t, strix::extents<2>> I(idx);
    const auto c = strix::lazy(X).gather<strix::gather_desc{.axis = 0}>(I).pad<strix::pad_desc{.mode = strix::pad_mode::wrap, .start = {0, 1}, .end = {0, 2}}>()
                       .slice<strix::slice_desc{.starts = {0}, .ends = {5}, .axes = {1}}>().tile<strix::tile_desc{{2, 1}}>();
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(c.extents())>, strix::extents<4, 5>>);
    strix::evaluate(c, strix::tensor_view<float, strix::extents<4, 5>>(out));
}
