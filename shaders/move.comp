#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Runs one move plan (gather, join, pad, split, copies): every output element is copied from
// the address that the plan's per-dimension terms add up to, or is the fill value.
//
// VEC == 1: each invocation writes one element, wherever the output strides put it.
// VEC > 1 (16 / ELEM): the output is contiguous in plan order and 16-byte aligned; a chunk of
// VEC consecutive elements is assembled and written as one 16-byte store. The coordinates are
// decomposed once per chunk and then stepped, so the division cost is shared by VEC elements.
// UNROLL: 16-byte elements (plans widened on the host) and chunks are moved UNROLL per
// invocation, 256 apart (coalesced), all loads before any store, so that enough loads are in
// flight to reach the memory's bandwidth.
#include "common.glsl"

layout(constant_id = 8) const uint VEC = 1;
layout(constant_id = 9) const uint UNROLL = 1;

const int64_t NO_SOURCE = int64_t(0x8000000000000000ul);

// Out-of-range indices seen by this invocation: the flag is raised once, after the stores. An
// atomic between the loads would keep the compiler from issuing the next loads before it.
bool out_of_range = false;

int64_t resolve_deferred(uint64_t a, int64_t n) {
    bool bad;
    const int64_t v = resolve_index_only(a, n, bad);
    out_of_range = out_of_range || bad;
    return v;
}

// The source term of coordinate c in dimension dim: affine, or from the map of a padded
// coordinate (NO_SOURCE: fill).
int64_t term(const Dim dim, int64_t c) {
    if (dim.map == 0) return c * dim.src;
    if (c >= dim.lo && c < dim.hi) return (c - dim.lo) * dim.src;
    return Offsets(uint64_t(dim.map)).o[uint(c < dim.lo ? c : dim.lo + c - dim.hi)];
}

// Where element i goes (dst) and comes from (src), or that it is the fill value.
void locate_one(uint64_t i, out uint64_t dst_address, out uint64_t src_address, out bool fill) {
    Dims dims = Dims(pc.dims);
    uint64_t rem = i;
    int64_t dst = 0, src = 0, key = 0;
    fill = false;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = dims.d[k];
        const int64_t c = next_coordinate(rem, dim.size);
        dst += c * dim.dst;
        key += c * dim.key;
        const int64_t t = term(dim, c);
        if (t == NO_SOURCE) fill = true;
        else src += t;
    }
    if (INDEX_TYPE != 0) src += resolve_deferred(pc.indices + uint64_t(key), pc.axis_size) * pc.axis_stride;
    dst_address = pc.dst + uint64_t(dst);
    src_address = pc.src + uint64_t(src);
}

void move_one(uint64_t i) {
    uint64_t d, s;
    bool fill;
    locate_one(i, d, s, fill);
    if (fill) fill_element(d);
    else copy_element(d, s);
}

// A 16-byte element (plans widened to ELEM == 16): its value and where it goes.
uvec4 load_wide(uint64_t i, out uint64_t d) {
    uint64_t s;
    bool fill;
    locate_one(i, d, s, fill);
    return fill ? uvec4(pc.fill[0], pc.fill[1], pc.fill[2], pc.fill[3]) : Chunks(s).v[0];
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

// Chunk i of a contiguous output (VEC elements, 16 bytes).
uvec4 load_chunk(uint64_t i) {
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
        if (INDEX_TYPE != 0) src += resolve_deferred(pc.indices + uint64_t(okey + c[R] * dim[R].key), pc.axis_size) * pc.axis_stride;
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
    return chunk;
}

void main() {
    if (VEC == 1 && ELEM != 16) {
        const uint64_t i = invocation();
        if (i < pc.count) move_one(i);
        if (INDEX_TYPE != 0 && POLICY == 0 && out_of_range) atomicOr(Flag(pc.flag).raised, 1u);
        return;
    }
    if (VEC > 1 && UNROLL == 1) { // one chunk: kept free of the arrays below, which measured slower
        const uint64_t i = invocation();
        if (i < pc.count) Chunks(pc.dst + i * 16ul).v[0] = load_chunk(i);
        if (INDEX_TYPE != 0 && POLICY == 0 && out_of_range) atomicOr(Flag(pc.flag).raised, 1u);
        return;
    }
    const uint64_t first = (invocation() >> 8) * 256ul * UNROLL + gl_LocalInvocationID.x;
    uvec4 v[UNROLL];
    uint64_t d[UNROLL];
    [[unroll]] for (uint k = 0; k < UNROLL; ++k) {
        const uint64_t i = first + k * 256u;
        if (i >= pc.count) break;
        if (VEC == 1) {
            v[k] = load_wide(i, d[k]);
        } else {
            v[k] = load_chunk(i);
            d[k] = pc.dst + i * 16ul;
        }
    }
    [[unroll]] for (uint k = 0; k < UNROLL; ++k) {
        if (first + k * 256u >= pc.count) break;
        Chunks(d[k]).v[0] = v[k];
    }
    if (INDEX_TYPE != 0 && POLICY == 0 && out_of_range) atomicOr(Flag(pc.flag).raised, 1u);
}
