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
//
// Bindings on the baseline path (common.glsl): the Order and Scratch records at pc.aux_addr in
// PLAN, as uint fields (common.glsl, RECORD), their addresses offsets in AUX (the work block);
// PHASE 6 reads its grids (pc.src: 64-bit numbers, of which it reads the low words) through
// SRC and writes the arguments at pc.dst through DST.
#include "common.glsl"

layout(constant_id = 4) const uint PHASE = 0;
#if BASELINE
// the Scratch record's fields, as uint (common.glsl's baseline records)
#define Scratch_counts 0u
#define Scratch_cursors 1u
#define Scratch_bucket 2u
#define Scratch_blocks 3u
#define Scratch_block_count 4u
#define Scratch_repeats 5u
// words of operand op from byte address a: WORDS_AT(op, name, a) names them, WORDS(op, name, i)
// is word i
#define WORDS_AT(op, name, a) const uint name = (a) >> 2
#define WORDS(op, name, i) op##_words.w[name + (i)]
#else
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Scratch {
    uint64_t counts;
    uint64_t cursors;
    uint64_t bucket;
    uint64_t blocks;
    uint64_t block_count;
    uint64_t repeats;    // the Order record's
};
#define WORDS_AT(op, name, a) Words name = Words(a)
#define WORDS(op, name, i) name.w[i]
#endif

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
    RECORD_OPEN(Scratch, s, pc.aux_addr);
    const uint t = gl_LocalInvocationID.x;
    // every slot had one update: reduce.comp applied them, nothing is sorted (the whole
    // dispatch returns: no barrier is left waiting). PHASE 5 still runs: it writes the later
    // chunks' arguments, none when no run was found.
    if (PHASE < 5 && LOAD_WORD(AUX, PHASE >= 3 ? ORDER_AT(repeats) : RECORD(Scratch, s, repeats), 0) == 0u) return;
    if (PHASE == 6) { // one invocation: the dispatch arguments of the passes that run only where a slot repeats
        if (invocation() != AU(0)) return;
        const bool run = LOAD_WORD(AUX, ORDER_AT(repeats), 0) != 0u;
        for (uint k = 0u; k < 5u; ++k) { // pc.src: their grids (x, y) as 64-bit numbers
            WORDS_AT(DST, a, pc.dst + addr_t(k) * AU(12));
            WORDS(DST, a, 0) = run ? LOAD_WORD(SRC, pc.src, 4u * k) : 0u;
            WORDS(DST, a, 1) = run ? LOAD_WORD(SRC, pc.src, 4u * k + 2u) : 0u;
            WORDS(DST, a, 2) = 1u;
        }
        return;
    }
    if (PHASE == 5) {
        ORDER_OPEN(o);
        const addr_t c = invocation();
        if (c == AU(0) || c >= ORDER(o, chunks)) return;
        // (c * chunk_size is below the longest run a slot may have: below 2^32 on the baseline path)
        const bool runs = addr_t(LOAD_WORD(AUX, ORDER(o, max_run), 0)) > c * ORDER(o, chunk_size);
        WORDS_AT(AUX, a, ORDER(o, args) + c * AU(12));
        WORDS(AUX, a, 0) = runs ? uint(ORDER(o, gx)) : 0u;
        WORDS(AUX, a, 1) = runs ? uint(ORDER(o, gy)) : 0u;
        WORDS(AUX, a, 2) = 1u;
        return;
    }
    if (PHASE == 3 || PHASE == 4) {
        ORDER_OPEN(o);
        const addr_t tile = addr_t(gl_WorkGroupID.y) * addr_t(gl_NumWorkGroups.x) + addr_t(gl_WorkGroupID.x);
        if (tile >= ORDER(o, tiles)) return; // the whole work group: no barrier is left waiting
        const addr_t e = tile * AU(256) + addr_t(t);
        const bool valid = e < pc.count;
        const uint shift = uint(ORDER(o, shift));
        const uint key = valid ? LOAD_WORD(AUX, ORDER(o, keys_in) + e * AU(4), 0) : 0xffffffffu;
        // a pair past the end sorts after every real pair of its tile (digit 255, and last)
        const uint digit = valid ? tile_digit(key, shift) : 255u;
        digit_count[t] = 0u;
        barrier();
        if (valid) atomicAdd(digit_count[digit], 1u);
        barrier();
        if (PHASE == 3) {
            STORE_WORD(AUX, ORDER(o, hist) + (addr_t(t) * ORDER(o, tiles) + tile) * AU(4), 0, digit_count[t]);
            return;
        }
        // where this tile's pairs of digit t start among the tile's sorted pairs
        const uint local_start = scan_group(digit_count[t]);
        barrier();
        digit_count[t] = local_start;
        tile_key[t] = key;
        tile_val[t] = valid ? LOAD_WORD(AUX, ORDER(o, vals_in) + e * AU(4), 0) : 0u;
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
        const uint n_valid = uint(min(pc.count - min(pc.count, tile * AU(256)), AU(256)));
        if (t >= n_valid) return;
        const uint place = LOAD_WORD(AUX, ORDER(o, hist_scan) + (addr_t(my_digit) * ORDER(o, tiles) + tile) * AU(4), 0) + (t - digit_count[my_digit]);
        STORE_WORD(AUX, ORDER(o, keys_out) + addr_t(place) * AU(4), 0, tile_key[t]);
        STORE_WORD(AUX, ORDER(o, vals_out) + addr_t(place) * AU(4), 0, tile_val[t]);
        return;
    }
    if (PHASE == 1) {
        const addr_t blocks = RECORD(Scratch, s, block_count);
        const addr_t per = (blocks + AU(255)) / AU(256);
        const addr_t first = min(addr_t(t) * per, blocks), last = min(first + per, blocks);
        uint sum = 0u;
        for (addr_t b = first; b < last; ++b) sum += LOAD_WORD(AUX, RECORD(Scratch, s, blocks) + b * AU(4), 0);
        uint run = scan_group(sum);
        for (addr_t b = first; b < last; ++b) {
            const uint c = LOAD_WORD(AUX, RECORD(Scratch, s, blocks) + b * AU(4), 0);
            STORE_WORD(AUX, RECORD(Scratch, s, blocks) + b * AU(4), 0, run);
            run += c;
        }
        return;
    }
    const addr_t group = addr_t(gl_WorkGroupID.y) * addr_t(gl_NumWorkGroups.x) + addr_t(gl_WorkGroupID.x);
    const addr_t first = (group * AU(256) + addr_t(t)) * PER;
    uint sum = 0u;
    for (uint k = 0u; k < PER; ++k)
        if (first + k < pc.count) sum += LOAD_WORD(AUX, RECORD(Scratch, s, counts) + (first + k) * AU(4), 0);
    const uint before = scan_group(sum);
    if (PHASE == 0) {
        if (t == 0u) STORE_WORD(AUX, RECORD(Scratch, s, blocks) + group * AU(4), 0, partial[255]);
        return;
    }
    uint run = LOAD_WORD(AUX, RECORD(Scratch, s, blocks) + group * AU(4), 0) + before;
    for (uint k = 0u; k < PER; ++k)
        if (first + k < pc.count) {
            STORE_WORD(AUX, RECORD(Scratch, s, cursors) + (first + k) * AU(4), 0, run);
            run += LOAD_WORD(AUX, RECORD(Scratch, s, counts) + (first + k) * AU(4), 0);
        }
}
