#version 460
#extension GL_GOOGLE_include_directive : require
// Runs one move plan (gather, join, pad, copies): each invocation writes one output element,
// copied from the address that the plan's per-dimension terms add up to, or the fill value.
#include "common.glsl"

void main() {
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    Dims dims = Dims(pc.dims);
    uint64_t rem = i;
    int64_t dst = 0, src = 0, key = 0;
    bool fill = false;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = dims.d[k];
        const int64_t c = next_coordinate(rem, dim.size);
        dst += c * dim.dst;
        key += c * dim.key;
        if (dim.map != 0 && (c < dim.lo || c >= dim.hi)) { // a padded coordinate
            const int64_t m = Offsets(uint64_t(dim.map)).o[uint(c < dim.lo ? c : dim.lo + c - dim.hi)];
            if (m == int64_t(0x8000000000000000ul)) fill = true;
            else src += m;
        } else if (dim.map != 0) {
            src += (c - dim.lo) * dim.src;
        } else {
            src += c * dim.src;
        }
    }
    if (INDEX_TYPE != 0) src += resolve_index(pc.indices + uint64_t(key), pc.axis_size) * pc.axis_stride;
    if (fill) fill_element(pc.dst + uint64_t(dst));
    else copy_element(pc.dst + uint64_t(dst), pc.src + uint64_t(src));
}
