#version 460
#extension GL_GOOGLE_include_directive : require
// Resolves the index tuples of gather-nd and scatter-nd (one invocation per tuple, in C order of
// indices[:-1]) into int64 byte offsets: sum over the tuple's components of resolve(index) times
// the axis's byte stride, minus the bias (pc.axis_stride) that keeps them non-negative. The Dim
// records are RANK tuple dimensions (size, key = byte stride in the indices) followed by pc.aux
// components (size = the axis's size, src = its byte stride, key = the component's byte offset).
// With pc.dst 0 it only checks the indices (the flag), for operators that move nothing.
#include "common.glsl"

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    Dims dims = Dims(pc.dims);
    uint64_t rem = i;
    int64_t key = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = dims.d[k];
        key += next_coordinate(rem, dim.size, k == 0) * dim.key;
    }
    int64_t offset = 0;
    for (uint j = 0; j < pc.aux; ++j) {
        const Dim c = dims.d[RANK + j];
        offset += resolve_index(pc.indices + uint64_t(key + c.key), c.size) * c.src;
    }
    if (pc.dst != 0ul) Offsets(pc.dst + i * 8ul).o[0] = offset - pc.axis_stride; // 0: a check only
}
