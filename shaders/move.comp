#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Runs one move plan (gather, join, pad, split, copies): every output element is copied from
// the address that the plan's per-dimension terms add up to, or is the fill value.
//
// VEC == 1: each invocation writes one element, wherever the output strides put it.
// VEC > 1 (16 / ELEM): the output is contiguous in plan order and 16-byte aligned; each
// invocation assembles VEC consecutive elements and writes them as one 16-byte store. The
// coordinates are decomposed once per invocation and then stepped, so the division cost is
// shared by VEC elements, and every load of the chunk is in flight at once.
#include "common.glsl"

layout(constant_id = 8) const uint VEC = 1;

const int64_t NO_SOURCE = int64_t(0x8000000000000000ul);

// The source term of coordinate c in dimension dim: affine, or from the map of a padded
// coordinate (NO_SOURCE: fill).
int64_t term(const Dim dim, int64_t c) {
    if (dim.map == 0) return c * dim.src;
    if (c >= dim.lo && c < dim.hi) return (c - dim.lo) * dim.src;
    return Offsets(uint64_t(dim.map)).o[uint(c < dim.lo ? c : dim.lo + c - dim.hi)];
}

void move_one(uint64_t i) {
    Dims dims = Dims(pc.dims);
    uint64_t rem = i;
    int64_t dst = 0, src = 0, key = 0;
    bool fill = false;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = dims.d[k];
        const int64_t c = next_coordinate(rem, dim.size);
        dst += c * dim.dst;
        key += c * dim.key;
        const int64_t t = term(dim, c);
        if (t == NO_SOURCE) fill = true;
        else src += t;
    }
    if (INDEX_TYPE != 0) src += resolve_index(pc.indices + uint64_t(key), pc.axis_size) * pc.axis_stride;
    if (fill) fill_element(pc.dst + uint64_t(dst));
    else copy_element(pc.dst + uint64_t(dst), pc.src + uint64_t(src));
}

// The source and key terms of the outer dimensions (all but the innermost) at coordinates c.
void outer_terms(const Dim dim[8], const int64_t c[8], out int64_t src, out int64_t key, out bool fill) {
    src = 0;
    key = 0;
    fill = false;
    [[unroll]] for (int k = 0; k + 1 < int(RANK); ++k) {
        const int64_t t = term(dim[k], c[k]);
        if (t == NO_SOURCE) fill = true;
        else src += t;
        key += c[k] * dim[k].key;
    }
}

void move_chunk(uint64_t i) {
    Dims dims = Dims(pc.dims);
    const int R = int(RANK) - 1; // the innermost dimension
    Dim dim[8];
    int64_t c[8];
    uint64_t rem = i * uint64_t(VEC);
    [[unroll]] for (int k = R; k >= 0; --k) {
        dim[k] = dims.d[k];
        c[k] = next_coordinate(rem, dim[k].size);
    }
    int64_t osrc, okey;
    bool ofill;
    outer_terms(dim, c, osrc, okey, ofill);
    uvec4 chunk = uvec4(0);
    [[unroll]] for (uint j = 0; j < VEC; ++j) {
        const int64_t t = term(dim[R], c[R]);
        const bool fill = ofill || t == NO_SOURCE;
        int64_t src = osrc + (t == NO_SOURCE ? 0 : t);
        if (INDEX_TYPE != 0) src += resolve_index(pc.indices + uint64_t(okey + c[R] * dim[R].key), pc.axis_size) * pc.axis_stride;
        const uint64_t a = pc.src + uint64_t(src);
        if (ELEM == 8) {
            chunk[2 * j] = fill ? pc.fill[0] : Words(a).w[0];
            chunk[2 * j + 1] = fill ? pc.fill[1] : Words(a).w[1];
        } else if (ELEM == 4) {
            chunk[j] = fill ? pc.fill[0] : Words(a).w[0];
        } else { // 1 or 2 bytes: from the aligned word that holds the element
            uint v = fill ? pc.fill[0] : Words(a & ~3ul).w[0] >> (uint(a & 3ul) * 8u);
            v &= ELEM == 1 ? 0xffu : 0xffffu;
            chunk[j * ELEM / 4] |= v << ((j * ELEM % 4) * 8);
        }
        // the next element in plan order; the outer terms change once per row
        if (j + 1 < VEC && ++c[R] == dim[R].size) {
            c[R] = 0;
            for (int k = R - 1; k >= 0; --k) {
                if (++c[k] < dim[k].size) break;
                c[k] = 0;
            }
            outer_terms(dim, c, osrc, okey, ofill);
        }
    }
    Chunks(pc.dst + i * 16ul).v[0] = chunk;
}

void main() {
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    if (VEC == 1) move_one(i);
    else move_chunk(i);
}
