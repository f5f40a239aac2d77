// Typed views with static extents run the same operators as the run-time API (the seed pages'
// other examples are each with their operator, in test/ops/<op>_test.cpp).

#include "support/host.hpp"

using namespace strix;
using strix_test::fv;

TEST_CASE("typed views with static extents run the same operators", "[seed][typed]") {
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const std::int32_t idx[2] = {2, 0};
    float out[4] = {};
    gather<gather_desc{1}>(tensor_view<const float, extents<2, 3>>(in), tensor_view<const std::int32_t, extents<2>>(idx),
                           tensor_view<float, extents<2, 2>>(out));
    CHECK(fv(out, out + 4) == fv{3, 1, 6, 4});

    float joined[12] = {};
    join<join_desc{0}>(tensor_view<float, extents<4, 3>>(joined), tensor_view<const float, extents<2, 3>>(in),
                       tensor_view<const float, extents<2, 3>>(in));
    CHECK(fv(joined, joined + 12) == fv{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});

    float padded[8] = {};
    pad<pad_desc{pad_mode::edge, {0, 1}, {0, 0}}>(tensor_view<const float, extents<2, 3>>(in), tensor_view<float, extents<2, 4>>(padded));
    CHECK(fv(padded, padded + 8) == fv{1, 1, 2, 3, 4, 4, 5, 6});

    float scattered[6] = {};
    const std::int64_t sidx[2] = {1, 0};
    const float upd[2] = {7, 8};
    scatter<scatter_desc{0}>(tensor_view<const float, extents<2, 3>>(in), tensor_view<const std::int64_t, extents<2, 1>>(sidx),
                             tensor_view<const float, extents<2, 1>>(upd), tensor_view<float, extents<2, 3>>(scattered));
    CHECK(fv(scattered, scattered + 6) == fv{8, 2, 3, 7, 5, 6});

    // dynamic extents: the same call, checked at run time
    const tensor_view<const float, dextents<2>> din(in, dextents<2>(2, 3));
    float dout[4] = {};
    gather<gather_desc{1}>(din, tensor_view<const std::int32_t, dextents<1>>(idx, dextents<1>(2)), tensor_view<float, dextents<2>>(dout, dextents<2>(2, 2)));
    CHECK(fv(dout, dout + 4) == fv{3, 1, 6, 4});
    CHECK_THROWS_WITH(gather<gather_desc{1}>(din, tensor_view<const std::int32_t, dextents<1>>(idx, dextents<1>(2)),
                                             tensor_view<float, dextents<2>>(dout, dextents<2>(2, 1))),
                      Catch::Contains("gather: the output's shape is not the inferred shape") && Catch::Contains("output [2,1]"));
}
