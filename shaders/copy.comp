#version 460
#extension GL_GOOGLE_include_directive : require
// A plain copy, 16 bytes per invocation: the bandwidth every other shader is measured against,
// and what a copy between contiguous, 16-byte aligned views runs as.
#include "common.glsl"

void main() {
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    Chunks(pc.dst + i * 16ul).v[0] = Chunks(pc.src + i * 16ul).v[0];
}
