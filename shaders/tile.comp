#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// gather-elements through a tile of the input in shared memory, on an axis whose rows lie far
// apart. move.comp reads each output element where its index points: there, the reads of
// neighbouring invocations land in different lines, and every element costs a 32-byte sector of
// L2 traffic for 4 useful bytes. Here a work group first reads, coalesced, every row of the
// indexed axis at T neighbouring positions of the dimensions after it (N x T elements), then
// writes its outputs from the tile.
//
// The plan's dimensions: [0, A) the outer ones, A the one whose source is the index (src 0),
// (A, RANK) the inner ones, whose flattened positions the tiles cut into pieces of T. The host
// chose this path only where the tile fits and is read no more than twice per output.
//
// VEC > 1 (16 / ELEM): the innermost dimension is contiguous in the input and the output and
// 16-byte aligned, so an invocation moves VEC neighbouring positions with 16-byte loads and stores.
//
// Push constants (common.glsl): dims: RANK Dim records; axis_size N, axis_stride: the indexed
// axis of the input; aux: A; aux2: T (a power of two); count: coordinates of dimension A per
// work group; aux_addr: work groups across the inner positions; lo: along dimension A.
#include "common.glsl"

layout(constant_id = 8) const uint VEC = 1;
// 32-bit words of the tile (the host keeps it within the device's shared memory)
layout(constant_id = 12) const uint TILE_WORDS = 4096;
shared uint tile[TILE_WORDS];

const uint W = ELEM / 4; // words per element (4-, 8- and 16-byte elements take this path)
const uint R = 8;        // loads issued before any is waited for, in both phases

bool out_of_range = false;

// The words of VEC elements at byte address a.
uvec4 load_vec(addr_t a) {
    if (VEC > 1 || W == 4) return LOAD_CHUNK(SRC, a);
    if (W == 2) return uvec4(LOAD_WORD(SRC, a, 0), LOAD_WORD(SRC, a, 1), 0, 0);
    return uvec4(LOAD_WORD(SRC, a, 0), 0, 0, 0);
}

void store_vec(addr_t a, uvec4 v) {
    if (VEC > 1 || W == 4) {
        STORE_CHUNK(DST, a, v);
    } else if (W == 2) {
        STORE_WORD(DST, a, 0, v.x);
        STORE_WORD(DST, a, 1, v.y);
    } else {
        STORE_WORD(DST, a, 0, v.x);
    }
}

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    PLAN_DIMS(dims);
    const int A = int(pc.aux);
    const uint T = pc.aux2;
    const uint across_t = T / VEC;          // invocations along the inner positions
    const uint lanes = 256u / across_t;     // invocations along the indexed axis and dimension A
    const uint tv = gl_LocalInvocationID.x % across_t;
    const uint lane = gl_LocalInvocationID.x / across_t;

    // the work group's outer position o, piece of dimension A and tile of inner positions (the
    // host keeps all below 2^32)
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const uint tb = g % uint(pc.aux_addr);
    g /= uint(pc.aux_addr);
    const uint mb = g % uint(pc.lo);
    uint rem = g / uint(pc.lo);
    offs_t src = 0, dst = 0, key = 0;
    for (int k = A - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        const uint n = uint(dim.size);
        const uint c = k == 0 ? rem : rem % n;
        if (k == 0 && rem >= n) return; // past the grid's last work group (uniform)
        rem /= n;
        src += offs_t(c) * dim.src;
        dst += offs_t(c) * dim.dst;
        key += offs_t(c) * dim.key;
    }
    if (A == 0 && rem > 0) return;

    // this invocation's first inner position
    uint inner = 1;
    for (int k = int(RANK) - 1; k > A; --k) inner *= uint(PLAN_DIM(dims, k).size);
    const uint t = tb * T + tv * VEC;
    const bool here = t < inner;
    if (here) {
        rem = t;
        for (int k = int(RANK) - 1; k > A; --k) {
            const Dim dim = PLAN_DIM(dims, k);
            const uint n = uint(dim.size);
            const uint c = rem % n;
            rem /= n;
            src += offs_t(c) * dim.src;
            dst += offs_t(c) * dim.dst;
            key += offs_t(c) * dim.key;
        }
    }

    // the tile: rows 0..N-1 of the indexed axis at this group's T inner positions, R rows per
    // invocation in flight
    const uint N = uint(pc.axis_size);
    const uint cell0 = tv * VEC * W; // this invocation's first word in a row of the tile
    if (here)
        for (uint n0 = lane; n0 < N; n0 += R * lanes) {
            uvec4 v[R];
            [[unroll]] for (uint r = 0; r < R; ++r) {
                const uint n = n0 + r * lanes;
                if (n < N) v[r] = load_vec(pc.src + addr_t(src + offs_t(n) * pc.axis_stride));
            }
            [[unroll]] for (uint r = 0; r < R; ++r) {
                const uint n = n0 + r * lanes;
                if (n < N) {
                    const uint c = n * T * W + cell0;
                    [[unroll]] for (uint w = 0; w < VEC * W; ++w) tile[c + w] = v[r][w];
                }
            }
        }
    barrier();

    if (here) {
        const Dim m_dim = PLAN_DIM(dims, A);
        const uint m_end = min(uint(m_dim.size), (mb + 1) * uint(pc.count));
        const offs_t k_step = offs_t(lanes) * m_dim.key, d_step = offs_t(lanes) * m_dim.dst;
        const offs_t inner_key = VEC > 1 ? PLAN_DIM(dims, int(RANK) - 1).key : 0;
        uint m0 = mb * uint(pc.count) + lane;
        offs_t k_at = key + offs_t(m0) * m_dim.key, d_at = dst + offs_t(m0) * m_dim.dst;
        for (; m0 < m_end; m0 += R * lanes) {
            uint row[R][VEC];
            [[unroll]] for (uint r = 0; r < R; ++r) {
                if (m0 + r * lanes < m_end) {
                    [[unroll]] for (uint j = 0; j < VEC; ++j) {
                        bool bad;
                        row[r][j] = uint(resolve_index_only(pc.indices + addr_t(k_at + offs_t(r) * k_step + offs_t(j) * inner_key), pc.axis_size, bad));
                        out_of_range = out_of_range || bad;
                    }
                }
            }
            [[unroll]] for (uint r = 0; r < R; ++r) {
                if (m0 + r * lanes < m_end) {
                    uvec4 v = uvec4(0);
                    [[unroll]] for (uint j = 0; j < VEC; ++j) {
                        const uint c = row[r][j] * T * W + cell0 + j * W;
                        [[unroll]] for (uint w = 0; w < W; ++w) v[j * W + w] = tile[c + w];
                    }
                    store_vec(pc.dst + addr_t(d_at + offs_t(r) * d_step), v);
                }
            }
            k_at += offs_t(R) * k_step;
            d_at += offs_t(R) * d_step;
        }
    }
    if (POLICY == 0 && out_of_range) raise_flag();
}
