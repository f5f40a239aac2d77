#version 460
#extension GL_GOOGLE_include_directive : require
// The order-keeping passes of the deterministic scatter reductions (reduce.comp): an exclusive
// prefix sum, and a stable radix sort of (target slot, update number) pairs by slot, so that the
// updates of each target can be folded in C order. No invocation loops more than a few thousand
// times: some implementations stop a loop after 65535 iterations in all (Mesa's llvmpipe does).
//
// Prefix sum, over blocks of 4096 entries, 16 per invocation. PHASE 0: each work group writes its
// block's total; PHASE 1 (one work group): the block totals become their exclusive prefix sums;
// PHASE 2: each work group writes the starts of its block. pc.count is the number of entries;
// the Scratch record holds the counts, the starts written here (cursors) and the blocks (one
// uint per block).
//
// Radix sort, 8 bits of the key per pass, one tile of 256 pairs per work group (the Order
// record). PHASE 3: each tile's count of every digit, digit-major (hist[digit * tiles + tile]);
// the prefix sum above turns them into each (digit, tile)'s first place; PHASE 4: each tile
// sorts its pairs by digit in shared memory (eight stable 1-bit splits) and writes each pair to
// its place. Pairs with equal keys keep their order, so every slot's update numbers stay
// ascending.
// PHASE 5: the indirect dispatch arguments of the fold's chunks 1.. (one invocation per chunk):
// a chunk runs only when some slot has more updates than the chunks before it folded.
// PHASE 6 (one invocation): the arguments of the sort's passes, of reduce.comp's PHASE 2 and of
// its chunk 0: their grids where a slot repeats, no work groups where none does.
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Scratch {
    uint64_t counts;
    uint64_t cursors;
    uint64_t bucket;
    uint64_t blocks;
    uint64_t block_count;
    uint64_t repeats;    // the Order record's
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

shared uint tile_key[256];
shared uint tile_val[256];
shared uint digit_count[256];

uint tile_digit(uint key, uint shift) { return (key >> shift) & 255u; }

void main() {
    // (no guard: the sort writes only scratch, and its indirect arguments must be written even
    // when a guarded reduce pass left its counts at zero)
    Scratch s = Scratch(pc.aux_addr);
    const uint t = gl_LocalInvocationID.x;
    // every slot had one update: reduce.comp applied them, nothing is sorted (the whole
    // dispatch returns: no barrier is left waiting). PHASE 5 still runs: it writes the later
    // chunks' arguments, none when no run was found.
    if (PHASE < 5 && Words(PHASE >= 3 ? Order(pc.aux_addr).repeats : s.repeats).w[0] == 0u) return;
    if (PHASE == 6) { // one invocation: the dispatch arguments of the passes that run only where a slot repeats
        if (invocation() != 0ul) return;
        const bool run = Words(Order(pc.aux_addr).repeats).w[0] != 0u;
        for (uint k = 0u; k < 5u; ++k) { // pc.src: their grids (x, y) as 64-bit numbers
            Words a = Words(pc.dst + uint64_t(k) * 12ul);
            a.w[0] = run ? Words(pc.src).w[4u * k] : 0u;
            a.w[1] = run ? Words(pc.src).w[4u * k + 2u] : 0u;
            a.w[2] = 1u;
        }
        return;
    }
    if (PHASE == 5) {
        Order o = Order(pc.aux_addr);
        const uint64_t c = invocation();
        if (c == 0ul || c >= o.chunks) return;
        const bool runs = uint64_t(Words(o.max_run).w[0]) > c * o.chunk_size;
        Words a = Words(o.args + c * 12ul);
        a.w[0] = runs ? uint(o.gx) : 0u;
        a.w[1] = runs ? uint(o.gy) : 0u;
        a.w[2] = 1u;
        return;
    }
    if (PHASE == 3 || PHASE == 4) {
        Order o = Order(pc.aux_addr);
        const uint64_t tile = uint64_t(gl_WorkGroupID.y) * uint64_t(gl_NumWorkGroups.x) + uint64_t(gl_WorkGroupID.x);
        if (tile >= o.tiles) return; // the whole work group: no barrier is left waiting
        const uint64_t e = tile * 256ul + uint64_t(t);
        const bool valid = e < pc.count;
        const uint shift = uint(o.shift);
        const uint key = valid ? Words(o.keys_in + e * 4ul).w[0] : 0xffffffffu;
        // a pair past the end sorts after every real pair of its tile (digit 255, and last)
        const uint digit = valid ? tile_digit(key, shift) : 255u;
        digit_count[t] = 0u;
        barrier();
        if (valid) atomicAdd(digit_count[digit], 1u);
        barrier();
        if (PHASE == 3) {
            Words(o.hist + (uint64_t(t) * o.tiles + tile) * 4ul).w[0] = digit_count[t];
            return;
        }
        // where this tile's pairs of digit t start among the tile's sorted pairs
        const uint local_start = scan_group(digit_count[t]);
        barrier();
        digit_count[t] = local_start;
        tile_key[t] = key;
        tile_val[t] = valid ? Words(o.vals_in + e * 4ul).w[0] : 0u;
        uint my_digit = digit;
        barrier();
        for (uint b = 0u; b < 8u; ++b) { // stable split on digit bit b: zeros first
            const uint one = (my_digit >> b) & 1u;
            const uint zeros_before = scan_group(1u - one);
            const uint total_zeros = partial[255];
            const uint to = one == 0u ? zeros_before : total_zeros + (t - zeros_before);
            const uint k = tile_key[t], v = tile_val[t];
            barrier();
            tile_key[to] = k;
            tile_val[to] = v;
            partial[to] = my_digit; // the digit travels with its pair
            barrier();
            my_digit = partial[t];
            barrier();
        }
        const uint n_valid = uint(min(pc.count - min(pc.count, tile * 256ul), 256ul));
        if (t >= n_valid) return;
        const uint place = Words(o.hist_scan + (uint64_t(my_digit) * o.tiles + tile) * 4ul).w[0] + (t - digit_count[my_digit]);
        Words(o.keys_out + uint64_t(place) * 4ul).w[0] = tile_key[t];
        Words(o.vals_out + uint64_t(place) * 4ul).w[0] = tile_val[t];
        return;
    }
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
