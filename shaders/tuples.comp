#version 460
#extension GL_GOOGLE_include_directive : require
// Resolves the index tuples of gather-nd and scatter-nd (one invocation per tuple, in C order of
// indices[:-1]) into int64 byte offsets: sum over the tuple's components of resolve(index) times
// the axis's byte stride, minus the bias (pc.axis_stride) that keeps them non-negative. The Dim
// records are RANK tuple dimensions (size, key = byte stride in the indices) followed by pc.aux
// components (size = the axis's size, src = its byte stride, key = the component's byte offset).
// With pc.dst 0 it only checks the indices (the flag), for operators that move nothing.
// PHASE 1 only checks C-order indices against the axis's size pc.axis_size, a 16-byte chunk
// of them per invocation (4 of 4 bytes, 2 of 8; pc.count chunks, 16-byte aligned): the index
// check before a gather-elements or a scatter reads as many indices as the operator does.
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;

// Whether index j of a 16-byte chunk lies outside [0, n) (negatives count from the end).
bool chunk_index_bad(uvec4 v, uint j, int64_t n) {
    int64_t x;
    if (INDEX_TYPE == 1) { // sign-extended by arithmetic, as resolve_index_only does
        x = int64_t(v[j]);
        if (x >= 0x80000000l) x -= 0x100000000l;
        if (x < 0) x += n;
    } else if (INDEX_TYPE == 3) {
        x = int64_t(v[j]);
    } else {
        const uint64_t u = uint64_t(v[2 * j]) | (uint64_t(v[2 * j + 1]) << 32);
        if (INDEX_TYPE == 2) {
            x = int64_t(u);
            if (x < 0) x += n;
        } else {
            x = u >= uint64_t(n) ? n : int64_t(u);
        }
    }
    return x < 0 || x >= n;
}

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    if (PHASE == 1) {
        const uint64_t c = invocation();
        if (c >= pc.count) return;
        const uvec4 v = LOAD_CHUNK(IDX, pc.indices + c * 16ul);
        const uint per = INDEX_TYPE == 2 || INDEX_TYPE == 4 ? 2u : 4u;
        bool bad = false;
        for (uint j = 0; j < per; ++j) bad = bad || chunk_index_bad(v, j, pc.axis_size);
        if (bad && POLICY == 0) raise_flag();
        return;
    }
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    PLAN_DIMS(dims);
    uint64_t rem = i;
    int64_t key = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        key += next_coordinate(rem, dim.size, k == 0) * dim.key;
    }
    int64_t offset = 0;
    for (uint j = 0; j < pc.aux; ++j) {
        const Dim c = PLAN_DIM(dims, RANK + j);
        offset += resolve_index(pc.indices + uint64_t(key + c.key), c.size) * c.src;
    }
    if (pc.dst != 0ul) STORE_OFFSET(DST, pc.dst + i * 8ul, offset - pc.axis_stride); // 0: a check only
}
