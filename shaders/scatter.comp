#version 460
#extension GL_GOOGLE_include_directive : require
// Scatter without reduction, in two passes over the updates (one invocation per update, in C
// order of the updates): PHASE 0 claims each target for the last update that writes it
// (atomicMax of update number + 1 in the target's winner slot), PHASE 1 lets only the winners
// write — so duplicates resolve exactly as on the CPU. A target's slot is its distance from the
// output's lowest address in elements.
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Winners { uint w[]; };

void main() {
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    uint64_t dst, src;
    locate_update(i, dst, src);
    // the winner slot of the target, addressed in 64 bits (outputs may exceed 2^32 elements)
    Winners slot = Winners(pc.aux_addr + (dst - pc.lo) / uint64_t(ELEM) * 4ul);
    if (PHASE == 0) {
        atomicMax(slot.w[0], uint(i) + 1u);
    } else if (slot.w[0] == uint(i) + 1u) {
        copy_element(dst, src);
    }
}
