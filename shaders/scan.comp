#version 460
#extension GL_GOOGLE_include_directive : require
// Exclusive prefix sum of the per-slot update counts of the deterministic scatter reductions
// (reduce.comp): the starts of the slots' buckets. Blocks of 4096 slots, 16 per invocation.
// PHASE 0: each work group writes its block's total; PHASE 1 (one work group): the block totals
// become their exclusive prefix sums; PHASE 2: each work group writes the starts of its block.
// pc.count is the number of slots; the Scratch record holds counts, cursors (the starts written
// here) and blocks (one uint per block).
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Scratch {
    uint64_t counts;
    uint64_t cursors;
    uint64_t bucket;
    uint64_t blocks;
    uint64_t block_count;
};

const uint PER = 16u;
shared uint partial[256];

// Exclusive scan of partial[] across the work group (Hillis-Steele on the inclusive sums);
// returns this invocation's exclusive prefix and leaves the group's total in partial[255].
uint scan_group(uint mine) {
    const uint t = gl_LocalInvocationID.x;
    partial[t] = mine;
    barrier();
    for (uint step = 1u; step < 256u; step *= 2u) {
        const uint add = t >= step ? partial[t - step] : 0u;
        barrier();
        partial[t] += add;
        barrier();
    }
    return partial[t] - mine;
}

void main() {
    Scratch s = Scratch(pc.aux_addr);
    const uint t = gl_LocalInvocationID.x;
    if (PHASE == 1) {
        const uint64_t blocks = s.block_count;
        const uint64_t per = (blocks + 255ul) / 256ul;
        const uint64_t first = min(uint64_t(t) * per, blocks), last = min(first + per, blocks);
        uint sum = 0u;
        for (uint64_t b = first; b < last; ++b) sum += Words(s.blocks + b * 4ul).w[0];
        uint run = scan_group(sum);
        for (uint64_t b = first; b < last; ++b) {
            const uint c = Words(s.blocks + b * 4ul).w[0];
            Words(s.blocks + b * 4ul).w[0] = run;
            run += c;
        }
        return;
    }
    const uint64_t group = uint64_t(gl_WorkGroupID.y) * uint64_t(gl_NumWorkGroups.x) + uint64_t(gl_WorkGroupID.x);
    const uint64_t first = (group * 256ul + uint64_t(t)) * PER;
    uint sum = 0u;
    for (uint k = 0u; k < PER; ++k)
        if (first + k < pc.count) sum += Words(s.counts + (first + k) * 4ul).w[0];
    const uint before = scan_group(sum);
    if (PHASE == 0) {
        if (t == 0u) Words(s.blocks + group * 4ul).w[0] = partial[255];
        return;
    }
    uint run = Words(s.blocks + group * 4ul).w[0] + before;
    for (uint k = 0u; k < PER; ++k)
        if (first + k < pc.count) {
            Words(s.cursors + (first + k) * 4ul).w[0] = run;
            run += Words(s.counts + (first + k) * 4ul).w[0];
        }
}
