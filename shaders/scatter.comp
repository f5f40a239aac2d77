#version 460
#extension GL_GOOGLE_include_directive : require
// Scatter in two passes over the updates (one invocation per update, in C order of the indices):
// PHASE 0 claims each target for the last update that writes it (atomicMax of update number + 1
// in a winner array), PHASE 1 lets only the winners write — so duplicates resolve exactly as on
// the CPU. Dim records: size, dst = output byte stride (0 on the axis), src = updates byte
// stride, key = indices byte stride, map = the output's C-order element stride (target id).
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Winners { uint w[]; };

void main() {
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    Dims dims = Dims(pc.dims);
    uint64_t rem = i;
    int64_t dst = 0, src = 0, key = 0, target = 0, axis_cstride = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = dims.d[k];
        const int64_t c = next_coordinate(rem, dim.size);
        src += c * dim.src;
        key += c * dim.key;
        if (uint(k) == pc.aux) {
            axis_cstride = dim.map;
        } else {
            dst += c * dim.dst;
            target += c * dim.map;
        }
    }
    const int64_t v = resolve_index(pc.indices + uint64_t(key), pc.axis_size);
    target += v * axis_cstride;
    // the winner slot of the target, addressed in 64 bits (outputs may exceed 2^32 elements)
    Winners slot = Winners(pc.aux_addr + uint64_t(target) * 4ul);
    if (PHASE == 0) {
        atomicMax(slot.w[0], uint(i) + 1u);
    } else if (slot.w[0] == uint(i) + 1u) {
        copy_element(pc.dst + uint64_t(dst + v * pc.axis_stride), pc.src + uint64_t(src));
    }
}
