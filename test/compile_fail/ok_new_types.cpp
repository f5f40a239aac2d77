// The typed calls with static extents on bfloat16, bool and the float8 types: a bfloat16
// embedding gather, a bool mask padded and joined, a float8 cache appended; this case must
// compile (the failing cases join_dtype_bfloat16 and gather_index_bool differ by one mistake).
#include <strix/strix.hpp>

void f(const strix::bfloat16* table, const std::int64_t* ids, strix::bfloat16* rows, const bool* mask, bool* padded, bool* joined,
       const strix::float8_e5m2* cache, const strix::float8_e5m2* step, strix::float8_e5m2* longer) {
    strix::gather<strix::gather_desc{.axis = 0}>(strix::tensor_view<const strix::bfloat16, strix::extents<50, 24>>(table),
                                                 strix::tensor_view<const std::int64_t, strix::extents<7>>(ids),
                                                 strix::tensor_view<strix::bfloat16, strix::extents<7, 24>>(rows));
    strix::pad<strix::pad_desc{.start = {1, 1}, .end = {1, 1}, .value = 1}>(strix::tensor_view<const bool, strix::extents<5, 6>>(mask),
                                                                          strix::tensor_view<bool, strix::extents<7, 8>>(padded));
    strix::join<strix::join_desc{.axis = 0}>(strix::tensor_view<bool, strix::extents<10, 8>>(joined),
                                             strix::tensor_view<const bool, strix::extents<7, 8>>(padded),
                                             strix::tensor_view<const bool, strix::extents<3, 8>>(mask));
    strix::join<strix::join_desc{.axis = 2}>(strix::tensor_view<strix::float8_e5m2, strix::extents<1, 2, 10, 8>>(longer),
                                             strix::tensor_view<const strix::float8_e5m2, strix::extents<1, 2, 9, 8>>(cache),
                                             strix::tensor_view<const strix::float8_e5m2, strix::extents<1, 2, 1, 8>>(step));
}
