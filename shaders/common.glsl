// Shared by every strix shader: how operands are addressed, element moves by size only, and
// index resolution. Included by every shader.
//
// Two ways to address memory, chosen by the BASELINE macro (one source for both):
// - the full path (BASELINE 0): 64-bit buffer device addresses and 64-bit integer arithmetic;
// - the baseline path (BASELINE 1): Vulkan 1.1 core compute only. Each operand is a storage
//   buffer bound through a descriptor of its own (set 0, one binding per operand, below); an
//   address is a 32-bit byte offset from the start of that binding; no 64-bit integer, no
//   device address, no 8- or 16-bit storage appears in the module.
// Code shared by both writes addresses as addr_t, signed byte offsets as offs_t, and their
// literals as AU(n) and AI(n). The build sets FULL (the variant table's `full` feature, in
// backends/vulkan/strix/vulkan/spirv/variants.txt): FULL 0 is the baseline path; BASELINE may
// also be set directly.
#ifndef BASELINE
#if FULL
#define BASELINE 0
#else
#define BASELINE 1
#endif
#endif
#if !BASELINE
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#if SMALL_STORAGE && !BASELINE
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#endif

layout(local_size_x = 256) in;

// element size in bytes: 1, 2, 4, 8 or 16
layout(constant_id = 0) const uint ELEM = 4;
// number of plan dimensions (1..8)
layout(constant_id = 1) const uint RANK = 1;
// index type of the indices (0: none, 1: int32, 2: int64, 3: uint32, 4: uint64)
layout(constant_id = 2) const uint INDEX_TYPE = 0;
// 0: error (clamp and raise the flag), 1: clamp
layout(constant_id = 3) const uint POLICY = 0;
// 1: more than 2^32 invocations, so coordinates are decomposed in 64 bits; 0: in 32 bits
layout(constant_id = 5) const uint ADDR64 = 1;

#if BASELINE
#define addr_t uint
#define offs_t int
#define AU(n) uint(n)
#define AI(n) int(n)

// The operands' storage bindings (see the operand names below): words, 16-byte chunks and
// signed words of one buffer, declared three times over the same binding. No shader writes the
// source or the indices, and saying so (readonly) measured on the H200 (bench/NOTES.md, "The
// baseline path's bindings").
#define STRIX_BIND_Q(op, n, q)                                                     \
    layout(set = 0, binding = n, std430) q buffer op##_W { uint w[]; } op##_words;   \
    layout(set = 0, binding = n, std430) q buffer op##_C { uvec4 v[]; } op##_chunks; \
    layout(set = 0, binding = n, std430) q buffer op##_I { int iw[]; } op##_ints;
#define STRIX_BIND(op, n) STRIX_BIND_Q(op, n, )
STRIX_BIND_Q(SRC, 0, readonly)
STRIX_BIND(DST, 1)
STRIX_BIND_Q(IDX, 2, readonly)
STRIX_BIND(AUX, 5)
// Four storage buffers are all Vulkan 1.1 promises a shader (maxPerStageDescriptorStorageBuffers;
// older Mali and Adreno drivers report just that), so the plan and the flag are bound otherwise.
// The plan's records (Dim, Order and Scratch records, read alike by every invocation) through a
// uniform buffer: the host binds the 16 KiB from the plan (Vulkan 1.1's least
// maxUniformBufferRange), which its records fit. A move's padded-coordinate tables, which
// invocations read at different places, through the AUX binding, bound by the host to the same
// buffer from the same offset (a move has no scratch). The flag and guard words through a
// storage texel buffer of R32_UINT, whose atomics every device has. (Texel fetches of the
// records instead took folded pads on the H200 from 0.93 to 0.58 of a copy.)
layout(set = 0, binding = 3, std140) uniform PLAN_U { uvec4 v[1024]; } PLAN_u;
layout(set = 0, binding = 4, r32ui) uniform uimageBuffer FLAG_image;
layout(set = 0, binding = 5, std430) readonly buffer MAP_I { int iw[]; } MAP_ints;
#define PLAN_WORD(i) PLAN_u.v[(i) >> 2][(i) & 3u]
#define PLAN_CHUNK_AT(i) PLAN_u.v[i]
#define LOAD_FLAG(a) imageLoad(FLAG_image, int((a) >> 2)).x
#define RAISE_FLAG(a) imageAtomicOr(FLAG_image, int((a) >> 2), 1u)

#define LOAD_WORD(op, a, i) op##_words.w[((a) >> 2) + (i)]
#define STORE_WORD(op, a, i, x) op##_words.w[((a) >> 2) + (i)] = (x)
#define LOAD_CHUNK(op, a) op##_chunks.v[(a) >> 4]
#define STORE_CHUNK(op, a, x) op##_chunks.v[(a) >> 4] = (x)
#define ATOMIC_AND_WORD(op, a, x) atomicAnd(op##_words.w[(a) >> 2], x)
#define ATOMIC_OR_WORD(op, a, x) atomicOr(op##_words.w[(a) >> 2], x)
// the plan's tables of offsets hold 32-bit ones on this path (only the plan has such tables,
// read through AUX's binding, above)
#define LOAD_OFFSET(op, a, i) MAP_ints.iw[((a) >> 2) + uint(i)]
#define STORE_OFFSET(op, a, x) op##_ints.iw[(a) >> 2] = (x)

// The full path's Dim record (below) in 32-bit fields, 28 bytes each, read from the plan's binding.
struct Dim {
    int size;
    int dst;
    int src;
    int key;
    int map;
    int lo;
    int hi;
};
#define PLAN_DIMS(dims) const uint dims = pc.dims >> 2
#define PLAN_INT(dims, k, f) int(PLAN_WORD(dims + 7u * uint(k) + f))
#define PLAN_DIM(dims, k) Dim(PLAN_INT(dims, k, 0u), PLAN_INT(dims, k, 1u), PLAN_INT(dims, k, 2u), PLAN_INT(dims, k, 3u), \
                              PLAN_INT(dims, k, 4u), PLAN_INT(dims, k, 5u), PLAN_INT(dims, k, 6u))
#define AUX_WORD_AT(type, name, a) const uint name = (a) >> 2
#define AUX_WORD(name, i) AUX_words.w[name + (i)]

// The push constants: the full path's layout, each 64-bit field as its low and high words. An
// address field holds the offset from its binding's start; where a field may name no operand
// (HAS), its high word is 1 when it names one.
layout(push_constant) uniform Push {
    uint src, src_hi;
    uint dst, dst_hi;
    uint dims, dims_hi;
    uint indices, indices_hi;
    uint count, count_hi;
    uint flag, flag_hi;
    int axis_size, axis_size_hi;
    int axis_stride, axis_stride_hi;
    uint fill[4];
    uint aux;
    uint aux2;
    uint aux_addr, aux_addr_hi;
    uint lo, lo_hi;
    uint guard, guard_hi;
} pc;
#define HAS(field) (pc.field##_hi != 0u)

#else // the full path
#define addr_t uint64_t
#define offs_t int64_t
#define AU(n) uint64_t(n)
#define AI(n) int64_t(n)

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Chunks { uvec4 v[]; };
#if SMALL_STORAGE && !BASELINE
layout(buffer_reference, std430, buffer_reference_align = 1) buffer Bytes { uint8_t b[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer Halves { uint16_t h[]; };
#endif

// One plan dimension; byte strides. For move: dst, src (affine), key (byte stride in the
// indices), map (address of the table of the padded coordinates' source offsets, 0 when
// affine) and [lo, hi), the coordinates that are affine in a padded dimension.
struct Dim {
    int64_t size;
    int64_t dst;
    int64_t src;
    int64_t key;
    int64_t map;
    int64_t lo;
    int64_t hi;
};
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Dims { Dim d[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Offsets { int64_t o[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Flag { uint raised; };

// Memory, by operand. Every load, store and atomic of the shaders below names the operand whose
// memory it touches:
//   SRC   the input (a scatter's: the updates)    DST   the output
//   IDX   the indices                             PLAN  the plan's records and tables (pc.dims)
//   FLAG  the out-of-range flag and the guard     AUX   scratch (a scatter's winners)
// Here an operand is reached through its 64-bit device address and the name is not used; a path
// that binds each operand through a descriptor of its own reads from it which binding an address
// lies in. Addresses are in bytes; i counts words (4 bytes) or int64 offsets (8) from a.
#define LOAD_WORD(op, a, i) Words(a).w[i]
#define STORE_WORD(op, a, i, x) Words(a).w[i] = (x)
#define LOAD_CHUNK(op, a) Chunks(a).v[0]
#define STORE_CHUNK(op, a, x) Chunks(a).v[0] = (x)
#define ATOMIC_AND_WORD(op, a, x) atomicAnd(Words(a).w[0], x)
#define ATOMIC_OR_WORD(op, a, x) atomicOr(Words(a).w[0], x)
#define LOAD_FLAG(a) Flag(a).raised
#define RAISE_FLAG(a) atomicOr(Flag(a).raised, 1u)
#define LOAD_OFFSET(op, a, i) Offsets(a).o[i]
#define STORE_OFFSET(op, a, x) Offsets(a).o[0] = (x)
// The plan's Dim records: PLAN_DIMS(dims) opens them, PLAN_DIM(dims, k) is record k.
#define PLAN_DIMS(dims) Dims dims = Dims(pc.dims)
#define PLAN_DIM(dims, k) dims.d[k]
// Words of scratch by name (for atomics): AUX_WORD_AT(type, name, a) names the words at a,
// AUX_WORD(name, i) is word i of them.
#define AUX_WORD_AT(type, name, a) type name = type(a)
#define AUX_WORD(name, i) name.w[i]

// The operands of the deterministic scatter reductions' ordering passes (scan.comp's radix
// sort, reduce.comp's keys, bounds and fold): addresses, and counts in 64 bits.
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Order {
    uint64_t keys_in;
    uint64_t vals_in;
    uint64_t keys_out;
    uint64_t vals_out;
    uint64_t hist;       // tiles * 256 digit counts
    uint64_t hist_scan;  // their exclusive prefix sums
    uint64_t tiles;
    uint64_t shift;      // the pass's digit: key bits [shift, shift + 8)
    uint64_t starts;     // per slot: first sorted position of its updates
    uint64_t ends;       // per slot: one past its last (starts == ends: none)
    uint64_t max_run;    // the most updates any slot has (one uint)
    uint64_t args;       // the fold's indirect dispatch arguments, 3 uints per chunk
    uint64_t chunks;
    uint64_t chunk_size;
    uint64_t gx;         // the fold's work groups in x and y
    uint64_t gy;
    uint64_t repeats;    // a word PHASE 1 sets when some slot has two updates or more (0: the
                         // updates were applied at once, and the sort and the fold return)
    uint64_t bits;       // a bit per slot, set by PHASE 1 where the slot has an update,
    uint64_t slot_shift; // in a word per 2^slot_shift slots (0 or 5)
};
// Where a slot's mark lies in the Order record's map: its word's address, and its bit there
// (the map holds 1 or 32 slots per word).
uint64_t slot_word(Order o, uint64_t slot) { return o.bits + (slot >> o.slot_shift) * 4ul; }
uint slot_bit(Order o, uint64_t slot) { return 1u << uint(slot & ((1ul << o.slot_shift) - 1ul)); }
// A word read where other invocations' atomics write it (not through a stale cached line).
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer SharedWord { uint w; };

layout(push_constant) uniform Push {
    uint64_t src;        // source base address
    uint64_t dst;        // output base address
    uint64_t dims;       // address of RANK Dim records
    uint64_t indices;    // indices base address (gather, scatter), 0 when none
    uint64_t count;      // number of invocations that do work
    uint64_t flag;       // address of the out-of-range flag
    int64_t axis_size;   // size of the gathered / scattered axis
    int64_t axis_stride; // byte stride of that axis (source for gather, output for scatter)
    uint fill[4];        // the fill element's bytes
    uint aux;            // tuples: number of components per tuple; scatter: work groups in x of its pass 1;
                         // move (baseline path): the source window's step (other_window), 0 when none
    uint aux2;           // scatter: work groups in y of its pass 1
    uint64_t aux_addr;   // scatter: address of the winner array; reduce/scan: of the Scratch record
    uint64_t lo;         // scatter, reduce: lowest address of the output (slot 0)
    uint64_t guard;      // the operator's guard word (0: none), raised by its index check
} pc;
#define HAS(field) (pc.field != 0ul)
#endif

// The records of the deterministic reductions' passes (the Order record above, scan.comp's
// Scratch record), by field: RECORD_OPEN(T, r, a) names the record of type T at a, RECORD(T, r, f)
// is its field f, RECORD_AT(T, a, f) field f of the record at a. ORDER_OPEN(o), ORDER(o, f) and
// ORDER_AT(f) are the Order record's at pc.aux_addr (reduce.comp and scan.comp).
#if BASELINE
// The baseline contract: a record is uint fields (4 bytes each), in the order of the full
// path's uint64_t ones, in the plan's binding (PLAN, binding 3); pc.aux_addr is the byte offset
// of reduce.comp's and scan.comp's record there (the host uploads the Dim records and every
// record of one operator into the same metadata buffer). Every address field (keys_in ..
// hist_scan, starts .. args, repeats, bits) is a byte offset in the scratch binding (AUX,
// binding 5), the operator's work block, whose word layout is the full path's; counts (tiles,
// chunks, chunk_size, ...) and every offset stay below 2^32. A field's place is T_f below.
// (macros, not constants: a shader that reads no record declares none)
#define Order_keys_in 0u
#define Order_vals_in 1u
#define Order_keys_out 2u
#define Order_vals_out 3u
#define Order_hist 4u
#define Order_hist_scan 5u
#define Order_tiles 6u
#define Order_shift 7u
#define Order_starts 8u
#define Order_ends 9u
#define Order_max_run 10u
#define Order_args 11u
#define Order_chunks 12u
#define Order_chunk_size 13u
#define Order_gx 14u
#define Order_gy 15u
#define Order_repeats 16u
#define Order_bits 17u
#define Order_slot_shift 18u
#define RECORD_OPEN(T, r, a) const uint r = (a) >> 2
#define RECORD(T, r, f) PLAN_WORD((r) + T##_##f)
#define RECORD_AT(T, a, f) PLAN_WORD(((a) >> 2) + T##_##f)
#define ORDER_OPEN(o) RECORD_OPEN(Order, o, pc.aux_addr)
#define ORDER(o, f) RECORD(Order, o, f)
#define ORDER_AT(f) RECORD_AT(Order, pc.aux_addr, f)
// the full path's slot_word and slot_bit, o opened by ORDER_OPEN (offsets in AUX)
uint slot_word(uint o, uint slot) { return ORDER(o, bits) + (slot >> ORDER(o, slot_shift)) * 4u; }
uint slot_bit(uint o, uint slot) { return 1u << (slot & ((1u << ORDER(o, slot_shift)) - 1u)); }
#else // the buffer_reference structs
#define RECORD_OPEN(T, r, a) T r = T(a)
#define RECORD(T, r, f) r.f
#define RECORD_AT(T, a, f) T(a).f
#define ORDER_OPEN(o) RECORD_OPEN(Order, o, pc.aux_addr)
#define ORDER(o, f) RECORD(Order, o, f)
#define ORDER_AT(f) RECORD_AT(Order, pc.aux_addr, f)
#endif

// Whether the operator's guard word is raised: an index of its check pass was out of range
// under the error policy, so none of its passes writes anything (every invocation returns).
// The check pass ran in an earlier dispatch, so the word is the same for every invocation.
bool guarded() { return HAS(guard) && LOAD_FLAG(pc.guard) != 0u; }

// An index out of range under the error policy: the flag the host reads, and the operator's
// guard word.
void raise_flag() {
    RAISE_FLAG(pc.flag);
    if (HAS(guard)) RAISE_FLAG(pc.guard);
}

// Coordinate k of invocation i: (i / (product of the sizes after k)) % size, computed by the
// caller one dimension at a time from the innermost; in 32 bits unless the call is ADDR64. The
// outermost dimension (k == 0) takes rem itself, already below its size: no division (rank-1
// scatters had one per update).
offs_t next_coordinate(inout addr_t rem, offs_t size, bool outermost) {
    if (outermost) return offs_t(rem);
#if BASELINE
    const int c = int(rem % uint(size));
    rem /= uint(size);
    return c;
#else
    if (ADDR64 == 0) {
        const uint r = uint(rem), n = uint(size);
        rem = uint64_t(r / n);
        return int64_t(r % n);
    }
    const int64_t c = int64_t(rem % uint64_t(size));
    rem /= uint64_t(size);
    return c;
#endif
}

// The linear invocation index over a 2-D grid of work groups (more than 2^32 elements work on
// the full path; the baseline path's calls stay below 2^32).
addr_t invocation() {
    return (addr_t(gl_WorkGroupID.y) * addr_t(gl_NumWorkGroups.x) + addr_t(gl_WorkGroupID.x)) * AU(256) +
           addr_t(gl_LocalInvocationID.x);
}

// Copies one element of ELEM bytes from byte address s to byte address d.
void copy_element(addr_t d, addr_t s) {
    if (ELEM == 4) {
        STORE_WORD(DST, d, 0, LOAD_WORD(SRC, s, 0));
    } else if (ELEM == 8) {
        STORE_WORD(DST, d, 0, LOAD_WORD(SRC, s, 0));
        STORE_WORD(DST, d, 1, LOAD_WORD(SRC, s, 1));
    } else if (ELEM == 16) { // only plans regrouped into 16-byte elements, whose addresses are 16-byte aligned
        STORE_CHUNK(DST, d, LOAD_CHUNK(SRC, s));
    } else {
#if SMALL_STORAGE
        if (ELEM == 1) Bytes(d).b[0] = Bytes(s).b[0];
        else Halves(d).h[0] = Halves(s).h[0];
#else
        // no 8/16-bit storage: read the aligned word, insert with two atomics (other
        // invocations may be writing the word's other bytes)
        uint shift_s = uint(s & AU(3)) * 8u, shift_d = uint(d & AU(3)) * 8u;
        uint mask = ELEM == 1 ? 0xffu : 0xffffu;
        uint v = (LOAD_WORD(SRC, s & ~AU(3), 0) >> shift_s) & mask;
        ATOMIC_AND_WORD(DST, d & ~AU(3), ~(mask << shift_d));
        ATOMIC_OR_WORD(DST, d & ~AU(3), v << shift_d);
#endif
    }
}

// Writes the fill element to byte address d.
void fill_element(addr_t d) {
    if (ELEM == 4) {
        STORE_WORD(DST, d, 0, pc.fill[0]);
    } else if (ELEM == 8) {
        STORE_WORD(DST, d, 0, pc.fill[0]);
        STORE_WORD(DST, d, 1, pc.fill[1]);
    } else if (ELEM == 16) {
        STORE_CHUNK(DST, d, uvec4(pc.fill[0], pc.fill[1], pc.fill[2], pc.fill[3]));
    } else {
#if SMALL_STORAGE
        if (ELEM == 1) Bytes(d).b[0] = uint8_t(pc.fill[0] & 0xffu);
        else Halves(d).h[0] = uint16_t(pc.fill[0] & 0xffffu);
#else
        uint shift_d = uint(d & AU(3)) * 8u;
        uint mask = ELEM == 1 ? 0xffu : 0xffffu;
        ATOMIC_AND_WORD(DST, d & ~AU(3), ~(mask << shift_d));
        ATOMIC_OR_WORD(DST, d & ~AU(3), (pc.fill[0] & mask) << shift_d);
#endif
    }
}

// Reads the index at byte address a and resolves it into [0, n): negatives count from the end,
// anything outside is clamped (bad: it was outside).
#if BASELINE
// (n < 2^31.) A 64-bit index is its two words: it lies in int32's range only where the high
// word is the low word's sign (int64) or 0 (uint64); one outside counts as below or above.
int resolve_index_only(uint a, int n, out bool bad) {
    int v;
    const uint lo = LOAD_WORD(IDX, a, 0);
    if (INDEX_TYPE == 1) {
        v = int(lo);
        if (v < 0) v += n;
    } else if (INDEX_TYPE == 3) {
        v = lo >= uint(n) ? n : int(lo);
    } else {
        const uint hi = LOAD_WORD(IDX, a, 1);
        if (INDEX_TYPE == 2) {
            const bool fits = hi == (int(lo) < 0 ? 0xffffffffu : 0u);
            v = fits ? int(lo) : (int(hi) < 0 ? int(0x80000000u) : 0x7fffffff);
            if (v < 0) v += n; // (a negative plus n < 2^31: no overflow)
        } else {
            v = hi != 0u || lo >= uint(n) ? n : int(lo);
        }
    }
    bad = v < 0 || v >= n;
    return v < 0 ? 0 : (v >= n ? n - 1 : v);
}
#else
int64_t resolve_index_only(uint64_t a, int64_t n, out bool bad) {
    int64_t v;
    if (INDEX_TYPE == 1) {
        // sign-extend by arithmetic (no 32-to-64-bit signed conversion, which some compilers get wrong)
        v = int64_t(LOAD_WORD(IDX, a, 0));
        if (v >= 0x80000000l) v -= 0x100000000l;
        if (v < 0) v += n;
    } else if (INDEX_TYPE == 2) {
        v = int64_t(uint64_t(LOAD_WORD(IDX, a, 0)) | (uint64_t(LOAD_WORD(IDX, a, 1)) << 32));
        if (v < 0) v += n;
    } else if (INDEX_TYPE == 3) {
        v = int64_t(LOAD_WORD(IDX, a, 0));
    } else {
        const uint64_t u = uint64_t(LOAD_WORD(IDX, a, 0)) | (uint64_t(LOAD_WORD(IDX, a, 1)) << 32);
        v = u >= uint64_t(n) ? n : int64_t(u);
    }
    bad = v < 0 || v >= n;
    return v < 0 ? 0 : (v >= n ? n - 1 : v);
}
#endif

// The same, raising the flag for an index outside [0, n) under the error policy.
offs_t resolve_index(addr_t a, offs_t n) {
    bool bad;
    const offs_t v = resolve_index_only(a, n, bad);
    if (bad && POLICY == 0) raise_flag();
    return v;
}

// Scatter and reduce: where update i (C order of the updates) goes and where it comes from. Dim
// records: size, dst = output byte stride (0 where the index decides), src = updates byte stride,
// key = indices byte stride. The index (or, for scatter-nd, the resolved int64 byte offset of the
// tuple) times axis_stride is added to the output address.
void locate_update(addr_t i, out addr_t dst, out addr_t src) {
    PLAN_DIMS(dims);
    addr_t rem = i;
    offs_t d = 0, s = 0, key = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        const offs_t c = next_coordinate(rem, dim.size, k == 0);
        d += c * dim.dst;
        s += c * dim.src;
        key += c * dim.key;
    }
    const offs_t v = resolve_index(pc.indices + addr_t(key), pc.axis_size);
    dst = pc.dst + addr_t(d + v * pc.axis_stride);
    src = pc.src + addr_t(s);
}
