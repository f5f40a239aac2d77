#version 460
#extension GL_GOOGLE_include_directive : require
// Scatter without reduction, one invocation per update (C order of the updates), duplicates
// resolved exactly as on the CPU: the last update of each target wins. A target's winner slot
// (its distance from the output's lowest address in elements) holds the largest update
// number + 1 seen so far.
// PHASE 0 claims the slot (atomicMax) and writes the update while it holds the claim. Where no
// two updates share a target that is the result, in one pass. An update that finds its slot
// already claimed has a duplicate: it writes PHASE 1's work group counts into the indirect
// dispatch arguments (zero otherwise), and PHASE 1, after every write of PHASE 0, rewrites each
// target with its winner's update.
// Rows (pc.fill[0] = G > 1 elements): the host found that the index does not change along the
// updates' last dimensions, which lie contiguous in the output and start whole rows from its
// lowest address, so a row has one winner word, not G. PHASE 2, one invocation per row of
// updates, claims its target row; PHASE 1, one per element, writes the winning rows' elements.
// A scatter-nd of 8192 rows of 4096 elements then claims 8192 words, not 32M.
// PHASE 3: the caller promised that no two updates share a target (unique_indices): each
// update is written, without a winner (rows in 16-byte pieces where the host regrouped them).
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;
#if !BASELINE
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Winners { uint w[]; };
#endif

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    const addr_t i = invocation();
    if (i >= pc.count) return;
    const addr_t g = addr_t(max(pc.fill[0], 1u)); // elements per winner
    addr_t dst, src;
    locate_update(PHASE == 2 ? i * g : i, dst, src);
#if BASELINE
    // an output larger than one binding is scattered in windows, each dispatch bound to one:
    // a target outside it (below: wrapped past 2^32) is another dispatch's
    if (dst >= uint(DST_words.w.length()) * 4u) return;
#endif
    if (PHASE == 3) { // the caller promised distinct targets: every update is written, unclaimed
        copy_element(dst, src);
        return;
    }
    // the indirect arguments take the first 16 bytes; slots are addressed in 64 bits (outputs may
    // exceed 2^32 elements)
    AUX_WORD_AT(Winners, slot, pc.aux_addr + AU(16) + (dst - pc.lo) / (g * addr_t(ELEM)) * AU(4));
    const uint me = uint(PHASE == 2 ? i : i / g) + 1u;
    if (PHASE == 2) {
        atomicMax(AUX_WORD(slot, 0), me);
    } else if (PHASE == 0) {
        const uint seen = atomicMax(AUX_WORD(slot, 0), me);
        // the first update to reach a target writes it; any later one means pass 1 runs, which
        // rewrites every target anyway
        if (seen == 0u) copy_element(dst, src);
        AUX_WORD_AT(Winners, args, pc.aux_addr);
        // a duplicate: store pass 1's counts (the same from every duplicate), unless this
        // invocation already reads them there (many duplicates would queue on one address)
        if (seen != 0u && AUX_WORD(args, 0) == 0u) {
            AUX_WORD(args, 0) = pc.aux;
            AUX_WORD(args, 1) = pc.aux2;
            AUX_WORD(args, 2) = 1u;
        }
    } else if (AUX_WORD(slot, 0) == me) {
        copy_element(dst, src);
    }
}
