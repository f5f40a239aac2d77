// Shared by every strix shader: 64-bit buffer device addresses, element moves by size only, and
// index resolution. Included by every shader.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#if SMALL_STORAGE
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

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Chunks { uvec4 v[]; };
#if SMALL_STORAGE
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
#define RAISE_WORD(op, a) atomicOr(Flag(a).raised, 1u)
#define LOAD_OFFSET(op, a, i) Offsets(a).o[i]
#define STORE_OFFSET(op, a, x) Offsets(a).o[0] = (x)
// The plan's Dim records: PLAN_DIMS(dims) opens them, PLAN_DIM(dims, k) is record k.
#define PLAN_DIMS(dims) Dims dims = Dims(pc.dims)
#define PLAN_DIM(dims, k) dims.d[k]

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
    uint aux;            // tuples: number of components per tuple; scatter: work groups in x of its pass 1
    uint aux2;           // scatter: work groups in y of its pass 1
    uint64_t aux_addr;   // scatter: address of the winner array; reduce/scan: of the Scratch record
    uint64_t lo;         // scatter, reduce: lowest address of the output (slot 0)
    uint64_t guard;      // the operator's guard word (0: none), raised by its index check
} pc;

// Whether the operator's guard word is raised: an index of its check pass was out of range
// under the error policy, so none of its passes writes anything (every invocation returns).
// The check pass ran in an earlier dispatch, so the word is the same for every invocation.
bool guarded() { return pc.guard != 0ul && LOAD_WORD(FLAG, pc.guard, 0) != 0u; }

// An index out of range under the error policy: the flag the host reads, and the operator's
// guard word.
void raise_flag() {
    RAISE_WORD(FLAG, pc.flag);
    if (pc.guard != 0ul) RAISE_WORD(FLAG, pc.guard);
}

// Coordinate k of invocation i: (i / (product of the sizes after k)) % size, computed by the
// caller one dimension at a time from the innermost; in 32 bits unless the call is ADDR64. The
// outermost dimension (k == 0) takes rem itself, already below its size: no division (rank-1
// scatters had one per update).
int64_t next_coordinate(inout uint64_t rem, int64_t size, bool outermost) {
    if (outermost) return int64_t(rem);
    if (ADDR64 == 0) {
        const uint r = uint(rem), n = uint(size);
        rem = uint64_t(r / n);
        return int64_t(r % n);
    }
    const int64_t c = int64_t(rem % uint64_t(size));
    rem /= uint64_t(size);
    return c;
}

// The linear invocation index over a 2-D grid of work groups (more than 2^32 elements work).
uint64_t invocation() {
    return (uint64_t(gl_WorkGroupID.y) * uint64_t(gl_NumWorkGroups.x) + uint64_t(gl_WorkGroupID.x)) * 256ul +
           uint64_t(gl_LocalInvocationID.x);
}

// Copies one element of ELEM bytes from byte address s to byte address d.
void copy_element(uint64_t d, uint64_t s) {
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
        uint shift_s = uint(s & 3ul) * 8u, shift_d = uint(d & 3ul) * 8u;
        uint mask = ELEM == 1 ? 0xffu : 0xffffu;
        uint v = (LOAD_WORD(SRC, s & ~3ul, 0) >> shift_s) & mask;
        ATOMIC_AND_WORD(DST, d & ~3ul, ~(mask << shift_d));
        ATOMIC_OR_WORD(DST, d & ~3ul, v << shift_d);
#endif
    }
}

// Writes the fill element to byte address d.
void fill_element(uint64_t d) {
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
        uint shift_d = uint(d & 3ul) * 8u;
        uint mask = ELEM == 1 ? 0xffu : 0xffffu;
        ATOMIC_AND_WORD(DST, d & ~3ul, ~(mask << shift_d));
        ATOMIC_OR_WORD(DST, d & ~3ul, (pc.fill[0] & mask) << shift_d);
#endif
    }
}

// Reads the index at byte address a and resolves it into [0, n): negatives count from the end,
// anything outside is clamped (bad: it was outside).
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

// The same, raising the flag for an index outside [0, n) under the error policy.
int64_t resolve_index(uint64_t a, int64_t n) {
    bool bad;
    const int64_t v = resolve_index_only(a, n, bad);
    if (bad && POLICY == 0) raise_flag();
    return v;
}

// Scatter and reduce: where update i (C order of the updates) goes and where it comes from. Dim
// records: size, dst = output byte stride (0 where the index decides), src = updates byte stride,
// key = indices byte stride. The index (or, for scatter-nd, the resolved int64 byte offset of the
// tuple) times axis_stride is added to the output address.
void locate_update(uint64_t i, out uint64_t dst, out uint64_t src) {
    PLAN_DIMS(dims);
    uint64_t rem = i;
    int64_t d = 0, s = 0, key = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        const int64_t c = next_coordinate(rem, dim.size, k == 0);
        d += c * dim.dst;
        s += c * dim.src;
        key += c * dim.key;
    }
    const int64_t v = resolve_index(pc.indices + uint64_t(key), pc.axis_size);
    dst = pc.dst + uint64_t(d + v * pc.axis_stride);
    src = pc.src + uint64_t(s);
}
