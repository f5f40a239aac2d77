#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Runs one move plan (gather, join, pad, split, copies): every output element is copied from
// the address that the plan's per-dimension terms add up to, or is the fill value.
//
// VEC == 1: each invocation writes one element, wherever the output strides put it.
// VEC > 1 (16 / ELEM): the output is made of contiguous blocks, each a whole number of 16-byte
// chunks and 16-byte aligned (a dense output: one block; a part of a join or a padded part: a
// block per outer coordinate); a chunk of VEC consecutive elements in plan order is assembled and
// written as one 16-byte store where its first element goes. The coordinates are decomposed once
// per chunk and then stepped, so the division cost is shared by VEC elements.
// ADDR32: the same in 32-bit arithmetic, where the plan's offsets fit (most calls): 64-bit
// multiplies and divisions are several instructions each, and they, not the memory, limit the
// chunk path (bench/NOTES.md, "Figures behind the encoder's choices").
// UNROLL: 16-byte elements (plans regrouped on the host) and chunks are moved UNROLL per
// invocation, 256 apart (coalesced), all loads before any store, so that enough loads are in
// flight to reach the memory's bandwidth.
#include "common.glsl"

layout(constant_id = 8) const uint VEC = 1;
layout(constant_id = 9) const uint UNROLL = 1;
// 1: elements and chunks are located in 32-bit arithmetic. The host has checked that every
// coordinate and every sum of output, source and key terms fits in an int, and that the
// innermost dimension holds VEC elements or more (a chunk then crosses at most one row end).
layout(constant_id = 10) const uint ADDR32 = 0;

#if !BASELINE
const offs_t NO_SOURCE = offs_t(0x8000000000000000ul);
#endif

// Out-of-range indices seen by this invocation: the flag is raised once, after the stores. An
// atomic between the loads would keep the compiler from issuing the next loads before it.
bool out_of_range = false;

offs_t resolve_deferred(addr_t a, offs_t n) {
    bool bad;
    const offs_t v = resolve_index_only(a, n, bad);
    out_of_range = out_of_range || bad;
    return v;
}

// The fold of every padded dimension, computed on the ADDR32 path instead of loaded from the
// dimension's table: strix::pad_mode's value (PAD_*), or NO_FOLD (tables). The host checked that
// the pads lie within one period. The element's own load waits for the table's; a fold chosen at
// run time (with a division for pads wider than a period) costs more than that load
// (bench/NOTES.md, "Figures behind the encoder's choices").
const uint NO_FOLD = 0xffffffffu;
layout(constant_id = 11) const uint FOLD = NO_FOLD;
const uint PAD_CONSTANT = 0, PAD_EDGE = 1, PAD_REFLECT = 2, PAD_SYMMETRIC = 3, PAD_WRAP = 4;

// The source coordinate of coordinate j outside [0, n) of the input's n, or -1 (fill), as
// plan::fold_source gives it where the host's detail::shader_fold_exact holds (the pad lies
// within one period of the fold, the coordinates fit an int): this function's precondition,
// which test/vulkan_test.cpp checks by running it.
int fold(int j, int n) {
    if (FOLD == PAD_CONSTANT) return -1;
    if (FOLD == PAD_EDGE) return j < 0 ? 0 : n - 1;
    if (FOLD == PAD_REFLECT && n == 1) return 0;
    const int p = FOLD == PAD_REFLECT ? 2 * n - 2 : FOLD == PAD_SYMMETRIC ? 2 * n : n;
    const int m = j < 0 ? j + p : j >= p ? j - p : j;
    if (FOLD == PAD_WRAP || m < n) return m;
    return FOLD == PAD_REFLECT ? p - m : p - 1 - m;
}

#if !BASELINE
// The source term of coordinate c in dimension dim: affine, or from the table of a padded
// dimension's padded coordinates (NO_SOURCE: fill).
offs_t term(const Dim dim, offs_t c) {
    if (dim.map == 0) return c * dim.src;
    if (c >= dim.lo && c < dim.hi) return (c - dim.lo) * dim.src;
    return LOAD_OFFSET(PLAN, addr_t(dim.map), uint(c < dim.lo ? c : dim.lo + c - dim.hi));
}
#endif

// A plan dimension on the ADDR32 path: the host writes these 48-byte records instead of Dim
// (three 16-byte loads instead of seven 8-byte ones). a: size, src, lo, hi; b: dst, key, map
// (0: affine; else padded: FOLD computes the term, or its table lies at pc.dims + map bytes);
// c: the multiplier and shift that divide by size, x / size == (x * c.x) >> c.y for every x
// below 2^31 (a division is some twenty instructions: run-time divisions slowed pads against
// sizes made compile-time constants, bench/NOTES.md, "Figures behind the encoder's choices").
struct Addr32Record {
    ivec4 a;
    ivec4 b;
    uvec4 c;
};
#if BASELINE
#define PLAN_CHUNK(k, part) PLAN_CHUNK_AT((pc.dims >> 4) + 3u * uint(k) + part)
#define PLAN_RECORD32(k) Addr32Record(ivec4(PLAN_CHUNK(k, 0u)), ivec4(PLAN_CHUNK(k, 1u)), PLAN_CHUNK(k, 2u))
#else
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Addr32Dims { Addr32Record d[]; };
#define PLAN_RECORD32(k) Addr32Dims(pc.dims).d[k]
#endif

struct Dim32 {
    int size;
    int src;
    int lo;
    int hi;
    int dst;
    int key;
    int map;
    uint multiplier;
    uint shift;
};

const int NO_SOURCE32 = int(0x80000000u);

Dim32 addr32_dim(int k) {
    const Addr32Record r = PLAN_RECORD32(k);
    return Dim32(r.a.x, r.a.y, r.a.z, r.a.w, r.b.x, r.b.y, r.b.z, r.c.x, r.c.y);
}

// Coordinate of the dimension from rem (the index over it and the dimensions before it), and
// rem's quotient for the next; the outermost dimension's is rem itself.
int next_coordinate32(inout uint rem, const Dim32 dim, bool outermost) {
    if (outermost) return int(rem);
#if BASELINE
    // the 64-bit product's bits [shift, shift + 32), from its two words: shift is 31 + l
    // (encode.hpp, divider), so bits [31, 63) then l more to the right (the product is below
    // 2^63, as rem is below 2^31)
    uint hi, lo;
    umulExtended(rem, dim.multiplier, hi, lo);
    const uint q = ((hi << 1u) | (lo >> 31u)) >> (dim.shift - 31u);
#else
    const uint q = uint((addr_t(rem) * addr_t(dim.multiplier)) >> dim.shift);
#endif
    const int c = int(rem - q * uint(dim.size));
    rem = q;
    return c;
}

// term() in 32 bits (NO_SOURCE32: fill).
int term32(const Dim32 dim, int c) {
    if (dim.map == 0) return c * dim.src;
    if (c >= dim.lo && c < dim.hi) return (c - dim.lo) * dim.src;
    if (FOLD != NO_FOLD) {
        const int s = fold(c - dim.lo, dim.hi - dim.lo);
        return s < 0 ? NO_SOURCE32 : s * dim.src;
    }
#if BASELINE
    return LOAD_OFFSET(PLAN, pc.dims + addr_t(dim.map), uint(c < dim.lo ? c : dim.lo + c - dim.hi)); // (NO_SOURCE32 in the table)
#else
    const offs_t o = LOAD_OFFSET(PLAN, pc.dims + addr_t(dim.map), uint(c < dim.lo ? c : dim.lo + c - dim.hi));
    return o == NO_SOURCE ? NO_SOURCE32 : int(o);
#endif
}

// locate_one in 32-bit arithmetic (ADDR32).
void locate32(uint i, out addr_t dst_address, out addr_t src_address, out bool fill) {
    uint rem = i;
    int dst = 0, src = 0, key = 0;
    fill = false;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim32 dim = addr32_dim(k);
        const int c = next_coordinate32(rem, dim, k == 0);
        dst += c * dim.dst;
        key += c * dim.key;
        const int t = term32(dim, c);
        if (t == NO_SOURCE32) fill = true;
        else src += t;
    }
    offs_t s = offs_t(src);
    if (INDEX_TYPE != 0) s += resolve_deferred(pc.indices + addr_t(offs_t(key)), pc.axis_size) * pc.axis_stride;
    dst_address = pc.dst + addr_t(offs_t(dst));
    src_address = pc.src + addr_t(s);
}

// Where element i goes (dst) and comes from (src), or that it is the fill value.
void locate_one(addr_t i, out addr_t dst_address, out addr_t src_address, out bool fill) {
#if BASELINE
    locate32(uint(i), dst_address, src_address, fill); // (the baseline path is all 32-bit)
#else
    if (ADDR32 != 0) {
        locate32(uint(i), dst_address, src_address, fill);
        return;
    }
    PLAN_DIMS(dims);
    addr_t rem = i;
    offs_t dst = 0, src = 0, key = 0;
    fill = false;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        const offs_t c = next_coordinate(rem, dim.size, k == 0);
        dst += c * dim.dst;
        key += c * dim.key;
        const offs_t t = term(dim, c);
        if (t == NO_SOURCE) fill = true;
        else src += t;
    }
    if (INDEX_TYPE != 0) src += resolve_deferred(pc.indices + addr_t(key), pc.axis_size) * pc.axis_stride;
    dst_address = pc.dst + addr_t(dst);
    src_address = pc.src + addr_t(src);
#endif
}

// Whether this dispatch leaves the element at source offset s to another. On the baseline path a
// gather whose source reaches more than one binding holds is recorded once per window of the
// source (encoder::record_source_windows): pc.aux is then the window's step in bytes, and an
// element belongs to the window its first byte lies in, [0, step) from the binding's start (the
// binding holds 16 bytes more, so the element lies in it whole). Offsets below the window wrap
// past 2^32 and are left too. pc.aux is 0 in every other dispatch.
bool other_window(addr_t s) {
#if BASELINE
    return pc.aux != 0u && s >= pc.aux;
#else
    return false;
#endif
}

void move_one(addr_t i) {
    addr_t d, s;
    bool fill;
    locate_one(i, d, s, fill);
    if (fill) fill_element(d);
    else if (!other_window(s)) copy_element(d, s);
}

// A 16-byte element (plans regrouped into ELEM == 16): its value and where it goes (0: none,
// another window's element).
uvec4 load_element16(addr_t i, out addr_t d, out bool mine) {
    addr_t s;
    bool fill;
    locate_one(i, d, s, fill);
    mine = fill || !other_window(s);
    return fill ? uvec4(pc.fill[0], pc.fill[1], pc.fill[2], pc.fill[3]) : mine ? LOAD_CHUNK(SRC, s) : uvec4(0);
}

#if !BASELINE
// The source and key terms of the outer dimensions (all but the innermost) at coordinates c.
void outer_terms(const Dim dim[8], const offs_t c[8], out offs_t src, out offs_t key, out bool fill) {
    src = 0;
    key = 0;
    fill = false;
    [[unroll]] for (int k = 0; k + 1 < int(RANK); ++k) {
        const offs_t t = term(dim[k], c[k]);
        if (t == NO_SOURCE) fill = true;
        else src += t;
        key += c[k] * dim[k].key;
    }
}
#endif

// Element j of a chunk: the fill value, or the element at byte address a.
void put_element(inout uvec4 chunk, uint j, addr_t a, bool fill) {
    if (ELEM == 8) {
        chunk[2 * j] = fill ? pc.fill[0] : LOAD_WORD(SRC, a, 0);
        chunk[2 * j + 1] = fill ? pc.fill[1] : LOAD_WORD(SRC, a, 1);
    } else if (ELEM == 4) {
        chunk[j] = fill ? pc.fill[0] : LOAD_WORD(SRC, a, 0);
    } else { // 1 or 2 bytes: from the aligned word that holds the element
        uint v = fill ? pc.fill[0] : LOAD_WORD(SRC, a & ~AU(3), 0) >> (uint(a & AU(3)) * 8u);
        v &= ELEM == 1 ? 0xffu : 0xffffu;
        chunk[j * ELEM / 4] |= v << ((j * ELEM % 4) * 8);
    }
}

#if !BASELINE
// Chunk i (VEC elements, 16 bytes), and its output offset.
uvec4 load_chunk(addr_t i, out offs_t dst) {
    PLAN_DIMS(dims);
    const int R = int(RANK) - 1; // the innermost dimension
    Dim dim[8];
    offs_t c[8];
    addr_t rem = i * addr_t(VEC);
    [[unroll]] for (int k = R; k >= 0; --k) {
        dim[k] = PLAN_DIM(dims, k);
        c[k] = next_coordinate(rem, dim[k].size, k == 0);
    }
    dst = 0;
    [[unroll]] for (int k = 0; k <= R; ++k) dst += c[k] * dim[k].dst;
    offs_t osrc, okey;
    bool ofill;
    outer_terms(dim, c, osrc, okey, ofill);
    uvec4 chunk = uvec4(0);
    [[unroll]] for (uint j = 0; j < VEC; ++j) {
        const offs_t t = term(dim[R], c[R]);
        const bool fill = ofill || t == NO_SOURCE;
        offs_t src = osrc + (t == NO_SOURCE ? 0 : t);
        if (INDEX_TYPE != 0) src += resolve_deferred(pc.indices + addr_t(okey + c[R] * dim[R].key), pc.axis_size) * pc.axis_stride;
        put_element(chunk, j, pc.src + addr_t(src), fill);
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
#endif

// The source and key terms of a row (the coordinates c of the outer dimensions), and whether
// the whole row is fill.
void row_terms32(const Dim32 dim[8], const int c[8], out int src, out int key, out bool fill) {
    src = 0;
    key = 0;
    fill = false;
    [[unroll]] for (int k = 0; k + 1 < int(RANK); ++k) {
        const int t = term32(dim[k], c[k]);
        if (t == NO_SOURCE32) fill = true;
        else src += t;
        key += c[k] * dim[k].key;
    }
}

// load_chunk in 32-bit arithmetic: one multiply and shift per dimension, and the row's terms computed
// once (twice for a chunk that crosses into the next row, which happens at most once as rows
// hold VEC elements or more). Where the innermost dimension reads no index (a gathered outer
// axis), the index is read once per row, not once per element.
uvec4 load_chunk32(uint i, out int dst) {
    const int R = int(RANK) - 1;
    Dim32 dim[8];
    int c[8];
    [[unroll]] for (int k = 0; k <= R; ++k) dim[k] = addr32_dim(k);
    const int W = dim[R].size;
    uint rem = i * VEC;
    const int col = next_coordinate32(rem, dim[R], R == 0);
    [[unroll]] for (int k = R - 1; k >= 0; --k) c[k] = next_coordinate32(rem, dim[k], k == 0);
    dst = col * dim[R].dst;
    [[unroll]] for (int k = 0; k < R; ++k) dst += c[k] * dim[k].dst;
    int osrc, okey, nsrc, nkey;
    bool ofill, nfill;
    row_terms32(dim, c, osrc, okey, ofill);
    nsrc = osrc;
    nkey = okey;
    nfill = ofill;
    const bool crosses = col + int(VEC) > W;
    if (crosses) {
        for (int k = R - 1; k >= 0; --k) {
            if (++c[k] < dim[k].size) break;
            c[k] = 0;
        }
        row_terms32(dim, c, nsrc, nkey, nfill);
    }
    const bool row_index = INDEX_TYPE != 0 && dim[R].key == 0;
    offs_t ogather = 0, ngather = 0;
    if (row_index) {
        ogather = resolve_deferred(pc.indices + addr_t(offs_t(okey)), pc.axis_size) * pc.axis_stride;
        ngather = crosses ? resolve_deferred(pc.indices + addr_t(offs_t(nkey)), pc.axis_size) * pc.axis_stride : ogather;
    }
    uvec4 chunk = uvec4(0);
    [[unroll]] for (uint j = 0; j < VEC; ++j) {
        int cj = col + int(j);
        const bool next = cj >= W;
        if (next) cj -= W;
        const int t = term32(dim[R], cj);
        const bool fill = (next ? nfill : ofill) || t == NO_SOURCE32;
        offs_t src = offs_t((next ? nsrc : osrc) + (t == NO_SOURCE32 ? 0 : t));
        if (row_index) {
            src += next ? ngather : ogather;
        } else if (INDEX_TYPE != 0) {
            const int key = (next ? nkey : okey) + cj * dim[R].key;
            src += resolve_deferred(pc.indices + addr_t(offs_t(key)), pc.axis_size) * pc.axis_stride;
        }
        put_element(chunk, j, pc.src + addr_t(src), fill);
    }
    return chunk;
}

// Chunk i and the address it goes to.
uvec4 chunk_at(addr_t i, out addr_t d) {
#if !BASELINE
    if (ADDR32 == 0) {
        offs_t dst;
        const uvec4 v = load_chunk(i, dst);
        d = pc.dst + addr_t(dst);
        return v;
    }
#endif
    int dst;
    const uvec4 v = load_chunk32(uint(i), dst);
    d = pc.dst + addr_t(offs_t(dst));
    return v;
}

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    if (VEC == 1 && ELEM != 16) {
        const addr_t i = invocation();
        if (i < pc.count) move_one(i);
        if (INDEX_TYPE != 0 && POLICY == 0 && out_of_range) raise_flag();
        return;
    }
    if (VEC > 1 && UNROLL == 1) { // one chunk: kept free of the arrays below, which measured slower
        const addr_t i = invocation();
        if (i < pc.count) {
            addr_t d;
            const uvec4 v = chunk_at(i, d);
            STORE_CHUNK(DST, d, v);
        }
        if (INDEX_TYPE != 0 && POLICY == 0 && out_of_range) raise_flag();
        return;
    }
    const addr_t first = (invocation() >> 8) * AU(256) * UNROLL + gl_LocalInvocationID.x;
    uvec4 v[UNROLL];
    addr_t d[UNROLL];
    bool mine[UNROLL];
    [[unroll]] for (uint k = 0; k < UNROLL; ++k) {
        const addr_t i = first + k * 256u;
        mine[k] = true;
        if (i >= pc.count) break;
        if (VEC == 1) {
            v[k] = load_element16(i, d[k], mine[k]);
        } else {
            v[k] = chunk_at(i, d[k]);
        }
    }
    [[unroll]] for (uint k = 0; k < UNROLL; ++k) {
        if (first + k * 256u >= pc.count) break;
        if (mine[k]) STORE_CHUNK(DST, d[k], v[k]);
    }
    if (INDEX_TYPE != 0 && POLICY == 0 && out_of_range) raise_flag();
}
