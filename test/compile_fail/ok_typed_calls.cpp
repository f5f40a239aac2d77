// The typed calls of every operator with correct static (and dynamic) extents: this case must
// compile, which shows the harness can pass and that the failing cases fail for their one mistake.
#include <strix/strix.hpp>

void gathers(const float* in, const std::int64_t* idx, const std::uint32_t* uidx, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int64_t, strix::extents<4>> indices(idx);
    strix::tensor_view<float, strix::extents<2, 4>> output(out);
    strix::gather<strix::gather_desc{.axis = 1}>(input, indices, output);
    strix::gather<strix::gather_desc{.axis = -1}>(input, indices, output);

    strix::tensor_view<const std::uint32_t, strix::extents<4>> uindices(uidx);
    strix::tensor_view<float, strix::extents<4, 3>> output0(out);
    strix::gather<strix::gather_desc{.axis = -2}>(input, uindices, output0);

    // DirectML form: [1,3,3] gathered by [1,1,2] on axis 2 with IndexDimensions 2 gives [3,1,2]
    strix::tensor_view<const float, strix::extents<1, 3, 3>> input3(in);
    strix::tensor_view<const std::int64_t, strix::extents<1, 1, 2>> indices3(idx);
    strix::tensor_view<float, strix::extents<3, 1, 2>> output3(out);
    strix::gather<strix::gather_desc{.axis = 2, .index_dimensions = 2}>(input3, indices3, output3);

    // dynamic output extents: only the rank is checked at compile time
    strix::tensor_view<float, strix::dextents<2>> doutput(out, strix::dextents<2>(2, 4));
    strix::gather<strix::gather_desc{.axis = 1}>(input, indices, doutput);
}

void joins(const float* a, const float* b, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> first(a);
    strix::tensor_view<const float, strix::extents<2, 4>> second(b);
    strix::tensor_view<float, strix::extents<2, 7>> output(out);
    strix::join<strix::join_desc{.axis = -1}>(output, first, second);
    strix::tensor_view<float, strix::extents<2, 3>> single(out);
    strix::join<strix::join_desc{.axis = 0}>(single, first);
}

void pads(const float* in, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<float, strix::extents<3, 5>> output(out);
    strix::pad<strix::pad_desc{.start = {1, 0}, .end = {0, 2}}>(input, output);
    strix::pad<strix::pad_desc{.mode = strix::pad_mode::reflect, .start = {1, 0}, .end = {0, 2}}>(input, output);
    strix::pad<strix::pad_desc{.start = {1, 0}, .end = {0, 2}, .value = 1.5}>(input, output);
    // an empty axis that is not padded is fine in every mode
    strix::tensor_view<const float, strix::extents<2, 0>> empty(in);
    strix::tensor_view<float, strix::extents<4, 0>> empty_out(out);
    strix::pad<strix::pad_desc{.mode = strix::pad_mode::edge, .start = {1, 0}, .end = {1, 0}}>(empty, empty_out);
}

void scatters(const float* in, const std::int32_t* idx, const float* upd, float* out) {
    strix::tensor_view<const float, strix::extents<2, 3>> input(in);
    strix::tensor_view<const std::int32_t, strix::extents<1, 3>> indices(idx);
    strix::tensor_view<const float, strix::extents<1, 3>> updates(upd);
    strix::tensor_view<float, strix::extents<2, 3>> output(out);
    strix::scatter<strix::scatter_desc{.axis = 0}>(input, indices, updates, output);
    strix::scatter<strix::scatter_desc{.axis = -2}>(input, indices, updates, output);
    // larger than the input on the scatter axis itself is allowed
    strix::tensor_view<const std::int32_t, strix::extents<2, 5>> wide(idx);
    strix::tensor_view<const float, strix::extents<2, 5>> wide_updates(upd);
    strix::scatter<strix::scatter_desc{.axis = 1}>(input, wide, wide_updates, output);
}
