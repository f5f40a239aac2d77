#version 460
#extension GL_GOOGLE_include_directive : require
// Scatter with a reduction (add, mul, min, max) for every element type.
//
// PHASE 0, one invocation per update: combines the update into its target with atomics (a native
// atomic where one exists, else a compare-and-swap loop on the aligned 32- or 64-bit word that
// holds the element). Any order: integer results and min/max are exact, float add/mul are not
// reproducible.
// The deterministic path applies the updates of each target in C order of the updates, exactly
// as the CPU (the Order record). PHASE 1 sets each update's bit in a map of the slots and raises
// the `repeats` word where the bit was already set: a bit per slot for large outputs (a
// 16M-element output's map, 2 MiB, then stays in the GPU's L2), a word per slot for smaller
// ones (context::slot_bits_from). Without a repeat, PHASE 6 applies every update to its own
// target at once (one per target: the same result, in no particular order) and
// every later pass has no work groups (the host dispatches them indirectly) or returns at once
// — scatters with distinct targets (permutations) cost no sort. With one: PHASE 7 writes each
// update's (target slot, update number) pair, scan.comp sorts the pairs by slot (stably: each
// slot's numbers stay ascending), PHASE 2 finds each slot's run of sorted pairs, and PHASE 3
// (one invocation per slot with a bit) folds the next chunk of at most pc.aux2 updates of its
// run, chunk pc.aux: the host records as many chunks as the longest run the plan allows needs,
// and scan.comp's PHASE 5 gives the chunks past the longest run found no work groups. A chunk
// is what keeps every invocation's loop short: some implementations stop a loop after 65535
// iterations in all (Mesa's llvmpipe does), and one invocation folding a million updates would
// also run long enough to trip a watchdog.
// Without a reduction (REDUCTION 0): the last update of each target wins, in two passes. PHASE
// 4, one invocation per update, raises its target's claim with one atomicMax whose result it
// does not need: for 4-byte elements (with 64-bit atomics) a 64-bit claim, (update number + 1)
// << 32 | the update's bits; for other sizes a 32-bit one, the update number + 1. PHASE 5 writes
// each claimed slot (the claim's low half, or the winning update read where it lies), and
// copies the input's element into an unclaimed one when the copy is fused (pc.indices != 0).
#include "common.glsl"
#if I64_ATOMICS
#extension GL_EXT_shader_atomic_int64 : require
#endif
#if F64
#extension GL_EXT_shader_explicit_arithmetic_types_float64 : require
#endif
#if F32_ATOMIC_ADD
#extension GL_EXT_shader_atomic_float : require
#endif
#if F64_ATOMIC_ADD
#extension GL_EXT_shader_explicit_arithmetic_types_float64 : require
#endif
#if DENORM_PRESERVE
// float32 sums and products keep subnormal operands and results, as on the CPU (capability
// DenormPreserve = 4464, execution mode DenormPreserve = 4459 for 32-bit floats)
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(capabilities = [4464], 4459, 32);
#endif

layout(constant_id = 4) const uint PHASE = 0;
// element type (strix::dtype order): 0 float64, 1 float32, 2 float16, 3 int64, 4 int32,
// 5 int16, 6 int8, 7 uint64, 8 uint32, 9 uint16, 10 uint8
layout(constant_id = 6) const uint TYPE = 1;
// 0 none (PHASE 4 and 5), 1 add, 2 mul, 3 min, 4 max
layout(constant_id = 7) const uint REDUCTION = 1;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int i[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Longs { uint64_t l[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer SLongs { int64_t l[]; };

const bool IS_FLOAT = TYPE <= 2;
const bool IS_SIGNED = TYPE >= 3 && TYPE <= 6;
const uint BITS = ELEM * 8;
const uint64_t MASK = ELEM == 8 ? ~0ul : ((1ul << uint64_t(BITS)) - 1ul);

uint64_t load_bits(uint64_t a) {
    if (ELEM == 8) return uint64_t(Words(a).w[0]) | (uint64_t(Words(a).w[1]) << 32);
    if (ELEM == 4) return uint64_t(Words(a).w[0]);
    return uint64_t((Words(a & ~3ul).w[0] >> (uint(a & 3ul) * 8u)) & uint(MASK));
}

// Writes an element; 1- and 2-byte ones go into their word with two atomics, since other
// invocations may be writing the word's other bytes.
void store_bits(uint64_t a, uint64_t v) {
    if (ELEM == 8) {
        Words(a).w[0] = uint(v);
        Words(a).w[1] = uint(v >> 32);
    } else if (ELEM == 4) {
        Words(a).w[0] = uint(v);
    } else {
        const uint shift = uint(a & 3ul) * 8u;
        atomicAnd(Words(a & ~3ul).w[0], ~(uint(MASK) << shift));
        atomicOr(Words(a & ~3ul).w[0], uint(v) << shift);
    }
}

int64_t signed_value(uint64_t b) { // sign-extends the element's bits
    return ELEM == 8 ? int64_t(b) : int64_t(b << (64 - BITS)) >> (64 - BITS);
}

bool is_nan_bits(uint64_t b) {
    if (TYPE == 0) return (b & 0x7ff0000000000000ul) == 0x7ff0000000000000ul && (b & 0x000ffffffffffffful) != 0ul;
    if (TYPE == 1) return (b & 0x7f800000ul) == 0x7f800000ul && (b & 0x007ffffful) != 0ul;
    return (b & 0x7c00ul) == 0x7c00ul && (b & 0x03fful) != 0ul;
}

// An unsigned key in the order of the float values, with -0 just below +0.
uint64_t float_key(uint64_t b) {
    const uint64_t sign = 1ul << uint64_t(BITS - 1);
    return (b & sign) != 0ul ? (~b & MASK) : (b | sign);
}

// float32 to float16 bits, rounded to nearest even (as strix::float16 does on the CPU).
uint half_bits(float f) {
    const uint x = floatBitsToUint(f);
    const uint sign = (x >> 16) & 0x8000u;
    const uint e = (x >> 23) & 0xffu;
    uint m = x & 0x7fffffu;
    if (e == 0xffu) return sign | 0x7c00u | (m != 0u ? 0x200u | (m >> 13) : 0u);
    const int E = int(e) - 127 + 15;
    if (E >= 31) return sign | 0x7c00u;
    if (E <= 0) {
        if (E < -10) return sign;
        m |= 0x800000u;
        const uint shift = uint(14 - E);
        uint h = m >> shift;
        const uint rest = m & ((1u << shift) - 1u), half_way = 1u << (shift - 1u);
        if (rest > half_way || (rest == half_way && (h & 1u) != 0u)) h += 1u;
        return sign | h;
    }
    uint h = (uint(E) << 10) | (m >> 13);
    const uint rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0u)) h += 1u; // a carry may reach infinity, rightly
    return sign | h;
}

#if F64
// float32 bits to float64, exactly (subnormals included) and without float32 arithmetic.
double f32_to_f64(uint b) {
    const uint64_t sign = uint64_t(b >> 31) << 63;
    const uint e = (b >> 23) & 0xffu, m = b & 0x7fffffu;
    if (e == 0xffu) return uint64BitsToDouble(sign | 0x7ff0000000000000ul | (uint64_t(m) << 29));
    if (e == 0u) {
        if (m == 0u) return uint64BitsToDouble(sign);
        const int top = findMSB(m); // m * 2^-149 = 1.f * 2^(top - 149)
        return uint64BitsToDouble(sign | (uint64_t(top - 149 + 1023) << 52) | ((uint64_t(m) << uint(52 - top)) & 0xffffffffffffful));
    }
    return uint64BitsToDouble(sign | (uint64_t(e + 896u) << 52) | (uint64_t(m) << 29));
}

// float64 to float32 bits, rounded to nearest even (subnormal results and overflow included).
uint f64_to_f32(double d) {
    const uint64_t x = doubleBitsToUint64(d);
    const uint sign = uint(x >> 63) << 31;
    const int e = int((x >> 52) & 0x7fful);
    const uint64_t m = x & 0xffffffffffffful;
    if (e == 0x7ff) return sign | 0x7f800000u | (m != 0ul ? 0x400000u | uint(m >> 29) : 0u);
    const int E = e - 1023 + 127;
    if (E >= 255) return sign | 0x7f800000u;
    const uint64_t sig = m | (e != 0 ? (1ul << 52) : 0ul);
    const int shift = E > 0 ? 29 : 30 - E; // keep 24 bits, fewer for a subnormal result
    if (shift > 63) return sign;
    uint64_t q = sig >> uint(shift);
    const uint64_t rest = sig & ((1ul << uint(shift)) - 1ul), half_way = 1ul << uint(shift - 1);
    if (rest > half_way || (rest == half_way && (q & 1ul) != 0ul)) q += 1ul;
    // a normal result: the implicit bit in q carries into the exponent, rounding up included
    return sign | (E > 0 ? (uint(E - 1) << 23) + uint(q) : uint(q));
}
#endif

// The CPU's combine (strix::detail::combine) on raw element bits.
uint64_t combine(uint64_t acc, uint64_t u) {
    if (REDUCTION == 3 || REDUCTION == 4) {
        if (IS_FLOAT) {
            if (is_nan_bits(acc)) return acc;
            if (is_nan_bits(u)) return u;
            const uint64_t ka = float_key(acc), ku = float_key(u);
            return (REDUCTION == 3 ? ku < ka : ku > ka) ? u : acc;
        }
        if (IS_SIGNED) {
            const int64_t a = signed_value(acc), b = signed_value(u);
            return (REDUCTION == 3 ? b < a : b > a) ? u : acc;
        }
        return (REDUCTION == 3 ? u < acc : u > acc) ? u : acc;
    }
    // a NaN sum or product is the default quiet NaN, as on the CPU
    if (TYPE == 1) {
#if F64
        // in float64, converted exactly both ways: devices that flush float32 subnormals (many
        // GPUs) never see one, and the double rounding is harmless (53 >= 2 x 24 + 2 bits)
        precise double r = REDUCTION == 1 ? f32_to_f64(uint(acc)) + f32_to_f64(uint(u)) : f32_to_f64(uint(acc)) * f32_to_f64(uint(u));
        const uint64_t bits = uint64_t(f64_to_f32(r));
#else
        const float a = uintBitsToFloat(uint(acc)), b = uintBitsToFloat(uint(u));
        precise float r = REDUCTION == 1 ? a + b : a * b;
        const uint64_t bits = uint64_t(floatBitsToUint(r));
#endif
        return is_nan_bits(bits) ? 0x7fc00000ul : bits;
    }
    if (TYPE == 2) {
        const float a = unpackHalf2x16(uint(acc)).x, b = unpackHalf2x16(uint(u)).x;
        precise float r = REDUCTION == 1 ? a + b : a * b;
        const uint bits = floatBitsToUint(r);
        return (bits & 0x7fffffffu) > 0x7f800000u ? 0x7e00ul : uint64_t(half_bits(r));
    }
#if F64
    if (TYPE == 0) {
        const double a = uint64BitsToDouble(acc), b = uint64BitsToDouble(u);
        precise double r = REDUCTION == 1 ? a + b : a * b;
        const uint64_t bits = doubleBitsToUint64(r);
        return is_nan_bits(bits) ? 0x7ff8000000000000ul : bits;
    }
#endif
    // integers wrap around: the low bits of the 64-bit sum or product
    return (REDUCTION == 1 ? acc + u : acc * u) & MASK;
}

#if F32_ATOMIC_ADD
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float f[]; };

// Whether the device's float32 atomic add gives the CPU's sum for update bits u, whatever the
// target holds. Devices' atomic adds may flush subnormals (NVIDIA's do) and write their own
// NaN; u finite with |u| >= 2^-100 (biased exponent 27..254) rules both out but for one case:
// - a normal or zero target: the exact sum is 0 or at least 2^-124 (a multiple of the smaller
//   operand's ulp when the operands are close, else at least |u| / 2), never subnormal, so
//   the rounded sums agree;
// - a subnormal target, read as 0: the CPU's sum rounds to u as well (the target is below
//   2^-126, under half the spacing of the floats next to u, at least 2^-124);
// - an infinite target stays infinite (u is finite);
// - a NaN target: the sum is a NaN, whose bits the caller sets to the CPU's.
bool native_add_exact(uint u) {
    const uint e = (u >> 23) & 0xffu;
    return e >= 27u && e <= 254u;
}
#endif

#if F64_ATOMIC_ADD
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Doubles { double d[]; };

// The same for float64 updates: u finite with |u| >= 2^-900 (biased exponent 123..2046). The
// argument above carries over with float64's bounds: an exact sum of a normal or zero target
// and u is 0 or at least 2^-953 (never subnormal: those lie below 2^-1022), a subnormal target
// read as 0 is below half the spacing of the floats next to u (at least 2^-953), and infinite
// and NaN targets behave as for float32. (A device's float64 atomic may or may not flush
// subnormals; this holds either way.)
bool native_add_exact64(uint64_t u) {
    const uint e = uint(u >> 52) & 0x7ffu;
    return e >= 123u && e <= 2046u;
}
#endif

void atomic_combine(uint64_t a, uint64_t u) {
#if F32_ATOMIC_ADD
    if (TYPE == 1 && REDUCTION == 1 && native_add_exact(uint(u))) {
        const uint seen = floatBitsToUint(atomicAdd(Floats(a).f[0], uintBitsToFloat(uint(u))));
        // a NaN target stays a NaN whatever is added, so setting the CPU's quiet NaN is right
        // at any moment after; every adder that saw one does it after its own add
        if (is_nan_bits(uint64_t(seen))) atomicExchange(Words(a).w[0], 0x7fc00000u);
        return;
    }
#endif
    if (ELEM == 4 && !IS_FLOAT) { // native 32-bit integer atomics
        if (REDUCTION == 1) { atomicAdd(Words(a).w[0], uint(u)); return; }
        if (REDUCTION == 3 && IS_SIGNED) { atomicMin(Ints(a).i[0], int(uint(u))); return; }
        if (REDUCTION == 4 && IS_SIGNED) { atomicMax(Ints(a).i[0], int(uint(u))); return; }
        if (REDUCTION == 3) { atomicMin(Words(a).w[0], uint(u)); return; }
        if (REDUCTION == 4) { atomicMax(Words(a).w[0], uint(u)); return; }
    }
#if I64_ATOMICS
    if (ELEM == 8) {
#if F64_ATOMIC_ADD
        if (TYPE == 0 && REDUCTION == 1 && native_add_exact64(u)) {
            const uint64_t seen = doubleBitsToUint64(atomicAdd(Doubles(a).d[0], uint64BitsToDouble(u)));
            // a NaN target gets the CPU's quiet NaN, as for float32
            if (is_nan_bits(seen)) atomicExchange(Longs(a).l[0], 0x7ff8000000000000ul);
            return;
        }
#endif
        if (!IS_FLOAT && REDUCTION == 1) { atomicAdd(Longs(a).l[0], u); return; }
        if (!IS_FLOAT && REDUCTION == 3 && IS_SIGNED) { atomicMin(SLongs(a).l[0], int64_t(u)); return; }
        if (!IS_FLOAT && REDUCTION == 4 && IS_SIGNED) { atomicMax(SLongs(a).l[0], int64_t(u)); return; }
        if (!IS_FLOAT && REDUCTION == 3) { atomicMin(Longs(a).l[0], u); return; }
        if (!IS_FLOAT && REDUCTION == 4) { atomicMax(Longs(a).l[0], u); return; }
        uint64_t old = Longs(a).l[0];
        while (true) {
            const uint64_t next = combine(old, u);
            if (next == old) return;
            const uint64_t seen = atomicCompSwap(Longs(a).l[0], old, next);
            if (seen == old) return;
            old = seen;
        }
    }
#endif
    // compare-and-swap on the aligned word holding the element
    const uint64_t wa = a & ~3ul;
    const uint shift = ELEM == 4 ? 0u : uint(a & 3ul) * 8u;
    const uint mask = uint(MASK) << shift;
    uint old = Words(wa).w[0];
    while (true) {
        const uint cur = (old & mask) >> shift;
        const uint next = uint(combine(uint64_t(cur), u));
        if (next == cur) return;
        const uint seen = atomicCompSwap(Words(wa).w[0], old, (old & ~mask) | (next << shift));
        if (seen == old) return;
        old = seen;
    }
}

// The source address of update `id` (its C-order coordinates over the updates' Dim records).
uint64_t update_source(uint64_t id) {
    Dims dims = Dims(pc.dims);
    uint64_t rem = id;
    int64_t s = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = dims.d[k];
        s += next_coordinate(rem, dim.size, k == 0) * dim.src;
    }
    return pc.src + uint64_t(s);
}

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    const uint64_t i = invocation();
    if (i >= pc.count) return;
    if (PHASE == 5) {
        // the fused copy's input is at pc.indices (0: none); the output's slots number axis_size
        if (ELEM == 4) { // i is a slot: its winner's bits, kept in the claim, else the input's element
#if I64_ATOMICS
            const uint64_t claim = Longs(pc.aux_addr + i * 8ul).l[0];
            const uint64_t target = pc.lo + i * 4ul;
            if (claim != 0ul) Words(target).w[0] = uint(claim);
            else if (pc.indices != 0ul) Words(target).w[0] = Words(pc.indices + i * 4ul).w[0];
#endif
            return;
        }
        if (ELEM == 8) { // i is a slot: its winner's update, read where it lies, else the input's element
            const uint claim = Words(pc.aux_addr + i * 4ul).w[0];
            const uint64_t target = pc.lo + i * 8ul;
            if (claim != 0u) store_bits(target, load_bits(update_source(uint64_t(claim - 1u))));
            else if (pc.indices != 0ul) store_bits(target, load_bits(pc.indices + i * 8ul));
            return;
        }
        // 1- and 2-byte elements: i is the i-th 32-bit word from the output's first, whose slots
        // it writes at once; a word the output shares with other bytes takes atomics there (other
        // work may be writing those bytes), any other one plain stores (its bytes outside the
        // output's elements lie in the output's range, which no other work of the pass touches)
        const uint64_t end = pc.lo + uint64_t(pc.axis_size) * uint64_t(ELEM), word = (pc.lo & ~3ul) + i * 4ul;
        uint value = 0u, mask = 0u;
        for (uint k = 0u; k < 4u / ELEM; ++k) {
            const uint64_t a = word + uint64_t(k * ELEM);
            if (a < pc.lo || a >= end) continue;
            const uint64_t slot = (a - pc.lo) / uint64_t(ELEM);
            const uint claim = Words(pc.aux_addr + slot * 4ul).w[0];
            uint64_t bits;
            if (claim != 0u) bits = load_bits(update_source(uint64_t(claim - 1u)));
            else if (pc.indices != 0ul) bits = load_bits(pc.indices + slot * uint64_t(ELEM));
            else continue;
            value |= uint(bits) << (k * ELEM * 8u);
            mask |= uint(MASK) << (k * ELEM * 8u);
        }
        if (mask == 0u) return;
        if (word < pc.lo || word + 4ul > end) {
            atomicAnd(Words(word).w[0], ~mask);
            atomicOr(Words(word).w[0], value);
        } else {
            Words(word).w[0] = mask == 0xffffffffu ? value : (Words(word).w[0] & ~mask) | value;
        }
        return;
    }
    if ((PHASE == 2 || PHASE == 3) && Words(Order(pc.aux_addr).repeats).w[0] == 0u) return;
    if (PHASE == 3) { // i is a slot: fold chunk pc.aux of its run, in C order
        Order o = Order(pc.aux_addr);
        // a slot without updates: its starts and ends were never written
        if ((Words(slot_word(o, i)).w[0] & slot_bit(o, i)) == 0u) return;
        const uint first = Words(o.starts + i * 4ul).w[0], end = Words(o.ends + i * 4ul).w[0];
        if (pc.aux == 0u && end > first) atomicMax(Words(o.max_run).w[0], end - first);
        const uint64_t from = uint64_t(first) + uint64_t(pc.aux) * uint64_t(pc.aux2);
        if (from >= uint64_t(end)) return;
        const uint to = uint(min(uint64_t(end), from + uint64_t(pc.aux2)));
        const uint64_t target = pc.lo + i * uint64_t(ELEM);
        uint64_t acc = load_bits(target);
        for (uint k = uint(from); k < to; ++k) acc = combine(acc, load_bits(update_source(uint64_t(Words(o.vals_in + uint64_t(k) * 4ul).w[0]))));
        store_bits(target, acc);
        return;
    }
    if (PHASE == 2) { // i is a sorted position: the ends of its slot's run
        Order o = Order(pc.aux_addr);
        const uint slot = Words(o.keys_in + i * 4ul).w[0];
        if (i == 0ul || Words(o.keys_in + (i - 1ul) * 4ul).w[0] != slot) Words(o.starts + uint64_t(slot) * 4ul).w[0] = uint(i);
        if (i + 1ul == pc.count || Words(o.keys_in + (i + 1ul) * 4ul).w[0] != slot) Words(o.ends + uint64_t(slot) * 4ul).w[0] = uint(i + 1ul);
        return;
    }
    uint64_t dst, src;
    locate_update(i, dst, src);
    if (PHASE == 0) {
        atomic_combine(dst, load_bits(src));
        return;
    }
    const uint64_t slot = (dst - pc.lo) / uint64_t(ELEM);
    if (PHASE == 4) {
#if I64_ATOMICS
        if (ELEM == 4) atomicMax(Longs(pc.aux_addr + slot * 8ul).l[0], ((i + 1ul) << 32) | load_bits(src));
#endif
        if (ELEM != 4) atomicMax(Words(pc.aux_addr + slot * 4ul).w[0], uint(i) + 1u);
        return;
    }
    if (PHASE == 1) { // the update's bit; a second update of its slot raises `repeats`
        Order o = Order(pc.aux_addr);
        const uint bit = slot_bit(o, slot);
        const bool seen = (atomicOr(Words(slot_word(o, slot)).w[0], bit) & bit) != 0u;
        if (seen && SharedWord(o.repeats).w == 0u) atomicOr(SharedWord(o.repeats).w, 1u);
        return;
    }
    if (PHASE == 7) { // a slot repeats: the update's (slot, number) pair
        Order o = Order(pc.aux_addr);
        Words(o.keys_out + i * 4ul).w[0] = uint(slot);
        Words(o.vals_out + i * 4ul).w[0] = uint(i);
        return;
    }
    if (PHASE == 6) { // no slot repeats: the update alone makes its target
        if (Words(Order(pc.aux_addr).repeats).w[0] != 0u) return;
        store_bits(dst, combine(load_bits(dst), load_bits(src)));
    }
}
