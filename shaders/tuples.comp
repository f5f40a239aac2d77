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
#if BASELINE
// (n < 2^31; a 64-bit index as its two words, as resolve_index_only reads it)
bool chunk_index_bad(uvec4 v, uint j, int n) {
    if (INDEX_TYPE == 1) {
        const int x = int(v[j]);
        return x < -n || x >= n;
    }
    if (INDEX_TYPE == 3) return v[j] >= uint(n);
    const uint lo = v[2 * j], hi = v[2 * j + 1];
    if (INDEX_TYPE == 4) return hi != 0u || lo >= uint(n);
    if (hi != (int(lo) < 0 ? 0xffffffffu : 0u)) return true; // beyond int32: beyond any axis
    const int x = int(lo);
    return x < -n || x >= n;
}
#else
bool chunk_index_bad(uvec4 v, uint j, offs_t n) {
    offs_t x;
    if (INDEX_TYPE == 1) { // sign-extended by arithmetic, as resolve_index_only does
        x = offs_t(v[j]);
        if (x >= 0x80000000l) x -= 0x100000000l;
        if (x < 0) x += n;
    } else if (INDEX_TYPE == 3) {
        x = offs_t(v[j]);
    } else {
        const addr_t u = addr_t(v[2 * j]) | (addr_t(v[2 * j + 1]) << 32);
        if (INDEX_TYPE == 2) {
            x = offs_t(u);
            if (x < 0) x += n;
        } else {
            x = u >= addr_t(n) ? n : offs_t(u);
        }
    }
    return x < 0 || x >= n;
}
#endif

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    if (PHASE == 1) {
        const addr_t c = invocation();
        if (c >= pc.count) return;
        const uvec4 v = LOAD_CHUNK(IDX, pc.indices + c * AU(16));
        const uint per = INDEX_TYPE == 2 || INDEX_TYPE == 4 ? 2u : 4u;
        bool bad = false;
        for (uint j = 0; j < per; ++j) bad = bad || chunk_index_bad(v, j, pc.axis_size);
        if (bad && POLICY == 0) raise_flag();
        return;
    }
    const addr_t i = invocation();
    if (i >= pc.count) return;
    PLAN_DIMS(dims);
    addr_t rem = i;
    offs_t key = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        key += next_coordinate(rem, dim.size, k == 0) * dim.key;
    }
    offs_t offset = 0;
    for (uint j = 0; j < pc.aux; ++j) {
        const Dim c = PLAN_DIM(dims, RANK + j);
        offset += resolve_index(pc.indices + addr_t(key + c.key), c.size) * c.src;
    }
#if BASELINE
    // the int64 offset as its two words (the operators that read these take them as int64 indices)
    if (HAS(dst)) {
        const int o = offset - pc.axis_stride;
        STORE_WORD(DST, pc.dst + i * 8u, 0, uint(o));
        STORE_WORD(DST, pc.dst + i * 8u, 1, o < 0 ? 0xffffffffu : 0u);
    }
#else
    if (pc.dst != AU(0)) STORE_OFFSET(DST, pc.dst + i * AU(8), offset - pc.axis_stride); // 0: a check only
#endif
}
