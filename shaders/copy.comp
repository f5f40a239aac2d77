#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// A plain copy, 16 bytes per load: the bandwidth every other shader is measured against, and
// what a copy between contiguous, 16-byte aligned views runs as. Each invocation moves UNROLL
// chunks, 256 chunks apart (so every load instruction of a work group stays coalesced), and
// issues all its loads before its stores.
#include "common.glsl"

layout(constant_id = 9) const uint UNROLL = 1;

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    const addr_t first = (invocation() >> 8) * AU(256) * UNROLL + gl_LocalInvocationID.x;
    uvec4 v[UNROLL];
    [[unroll]] for (uint k = 0; k < UNROLL; ++k) {
        const addr_t i = first + k * 256u;
        if (i < pc.count) v[k] = LOAD_CHUNK(SRC, pc.src + i * AU(16));
    }
    [[unroll]] for (uint k = 0; k < UNROLL; ++k) {
        const addr_t i = first + k * 256u;
        if (i < pc.count) STORE_CHUNK(DST, pc.dst + i * AU(16), v[k]);
    }
}
