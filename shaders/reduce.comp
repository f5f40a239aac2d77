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
// does not need: for 4-byte elements with 64-bit atomics a 64-bit claim, (update number + 1)
// << 32 | the update's bits; otherwise a 32-bit one, the update number + 1. PHASE 5 writes
// each claimed slot (the claim's low half, or the winning update read where it lies), and
// copies the input's element into an unclaimed one when the copy is fused (pc.indices != 0).
//
// The baseline path (BASELINE 1, common.glsl: Vulkan 1.1 core, every feature macro 0) has the
// full path's F64 = I64_ATOMICS = 0 behaviour, element bits held as two 32-bit words (bits_t:
// low, high) and 64-bit integer add (with carry), mul (the low half, from 32-bit partial
// products), min and max (compared by halves, signed for int64) done on them, bit for bit as
// the CPU. Bindings: updates (update_source) SRC, output (pc.dst, pc.lo) DST, indices and
// PHASE 5's fused input (pc.indices) IDX, the Order record (pc.aux_addr) PLAN with its
// addresses in AUX, PHASE 4 and 5's claims (pc.aux_addr, no Order record there) AUX. What it
// does not do:
// - float64 add and mul: they need float64 arithmetic (shaderFloat64); the host refuses them,
//   as it does on the full path without it (their integer fallback below is not the CPU's);
// - PHASE 0 on 8-byte elements: no 64-bit atomics (the host takes the deterministic path);
// - the native float atomic adds (F32_ATOMIC_ADD, F64_ATOMIC_ADD): strix takes them only
//   with 64-bit atomics.
// DENORM_PRESERVE 1 declares capability DenormPreserve with SPV_KHR_float_controls (core in
// SPIR-V 1.4): a Vulkan 1.1 device takes it with VK_KHR_shader_float_controls.
#include "common.glsl"
#if BASELINE && (F64 || I64_ATOMICS || F32_ATOMIC_ADD || F64_ATOMIC_ADD)
#error "reduce.comp: the baseline path has no float64, 64-bit atomics or float atomic adds"
#endif
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
#if BASELINE
// (SPIR-V 1.3: the capability is SPV_KHR_float_controls')
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);
#else
spirv_execution_mode(capabilities = [4464], 4459, 32);
#endif
#endif

layout(constant_id = 4) const uint PHASE = 0;
// the element type's arithmetic (the host passes the list's code, strix/dtype.hpp, not the
// enum's value): 0 float64, 1 float32, 2 float16, 3 a signed and 4 an unsigned integer of ELEM
// bytes, 5 bfloat16, 6 float8_e4m3fn, 7 float8_e5m2, 8 bool
layout(constant_id = 6) const uint TYPE = 1;
// 0 none (PHASE 4 and 5), 1 add, 2 mul, 3 min, 4 max
layout(constant_id = 7) const uint REDUCTION = 1;

// (a mask of the float codes 0-2 and 5-7: spec-constant arithmetic, where || would not be)
const bool IS_FLOAT = ((0xe7u >> TYPE) & 1u) != 0u;
const bool IS_SIGNED = TYPE == 3;

// Whether the bits of a bfloat16 (5) or float8 (6 e4m3fn, 7 e5m2) element are a NaN.
bool narrow_is_nan(uint b) {
    if (TYPE == 5) return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0u;
    if (TYPE == 6) return (b & 0x7fu) == 0x7fu; // e4m3fn: only S.1111.111
    return (b & 0x7cu) == 0x7cu && (b & 0x3u) != 0u;
}
const uint BITS = ELEM * 8;

// An element's bits: bits_t (uint64_t, or uvec2 of its low and high words on the baseline
// path), BITS_OF(x) those of uint x, uint(b) their low word (a scalar constructor takes a
// vector's first component). WORD_REF(op, a) and INT_REF(op, a) are the word at byte address a
// of operand op, as uint and int, for atomics; SHARED_WORD_REF(op, a) the same read where other
// invocations' atomics write it (coherent). LOAD_BITS(op, a) reads an element of operand op.
#if BASELINE
#define bits_t uvec2
#define BITS_OF(x) uvec2(x, 0u)
#define WORD_REF(op, a) op##_words.w[(a) >> 2]
#define INT_REF(op, a) op##_ints.iw[(a) >> 2]
layout(set = 0, binding = 5, std430) coherent buffer AUX_S { uint w[]; } AUX_shared;
#define SHARED_WORD_REF(op, a) op##_shared.w[(a) >> 2]
#define LOAD_BITS(op, a) load_bits_##op(a)

// the element's bits in the low word (all of them for 4- and 8-byte elements)
const uint MASK = ELEM >= 4 ? 0xffffffffu : ((1u << (BITS & 31u)) - 1u);
const uvec2 MASK2 = uvec2(MASK, ELEM == 8 ? 0xffffffffu : 0u);

#define STRIX_LOAD_BITS(op)                                                                \
    uvec2 load_bits_##op(uint a) {                                                         \
        if (ELEM == 8) return uvec2(LOAD_WORD(op, a, 0), LOAD_WORD(op, a, 1));             \
        if (ELEM == 4) return uvec2(LOAD_WORD(op, a, 0), 0u);                              \
        return uvec2((LOAD_WORD(op, a & ~3u, 0) >> ((a & 3u) * 8u)) & MASK, 0u);           \
    }
STRIX_LOAD_BITS(SRC)
STRIX_LOAD_BITS(DST)
STRIX_LOAD_BITS(IDX)

// Writes an element of the output; 1- and 2-byte ones go into their word with two atomics,
// since other invocations may be writing the word's other bytes.
void store_bits(uint a, uvec2 v) {
    if (ELEM == 8) {
        STORE_WORD(DST, a, 0, v.x);
        STORE_WORD(DST, a, 1, v.y);
    } else if (ELEM == 4) {
        STORE_WORD(DST, a, 0, v.x);
    } else {
        const uint shift = (a & 3u) * 8u;
        ATOMIC_AND_WORD(DST, a & ~3u, ~(MASK << shift));
        ATOMIC_OR_WORD(DST, a & ~3u, v.x << shift);
    }
}

// The element's value sign-extended to 64 bits (two words), for signed_less.
uvec2 signed_value(uvec2 b) {
    if (ELEM == 8) return b;
    const uint s = (32u - BITS) & 31u; // (0 for 4-byte elements)
    const int x = int(b.x << s) >> s;
    return uvec2(uint(x), x < 0 ? 0xffffffffu : 0u);
}

// 64-bit comparisons by halves: the high words first (signed for signed_less), then the low
// words unsigned.
bool bits_less(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool signed_less(uvec2 a, uvec2 b) { return int(a.y) < int(b.y) || (a.y == b.y && a.x < b.x); }
#define BITS_LT(a, b) bits_less(a, b)
#define BITS_GT(a, b) bits_less(b, a)
#define SIGNED_LT(a, b) signed_less(a, b)
#define SIGNED_GT(a, b) signed_less(b, a)

// The low 64 bits of the sum (the low words' carry into the high word) and of the product:
// a * b = (ah 2^32 + al)(bh 2^32 + bl) = al bl + (ah bl + al bh) 2^32 (mod 2^64), al bl in full.
uvec2 add_bits(uvec2 a, uvec2 b) {
    uint carry;
    const uint lo = uaddCarry(a.x, b.x, carry);
    return uvec2(lo, a.y + b.y + carry);
}
uvec2 mul_bits(uvec2 a, uvec2 b) {
    uint hi, lo;
    umulExtended(a.x, b.x, hi, lo);
    return uvec2(lo, hi + a.y * b.x + a.x * b.y);
}

bool is_nan_bits(uvec2 b) {
    if (TYPE == 0) return (b.y & 0x7ff00000u) == 0x7ff00000u && ((b.y & 0x000fffffu) | b.x) != 0u;
    if (TYPE == 1) return (b.x & 0x7f800000u) == 0x7f800000u && (b.x & 0x007fffffu) != 0u;
    if (TYPE >= 5 && TYPE <= 7) return narrow_is_nan(b.x);
    return (b.x & 0x7c00u) == 0x7c00u && (b.x & 0x03ffu) != 0u;
}

// An unsigned key in the order of the float values, with -0 just below +0.
uvec2 float_key(uvec2 b) {
    if (ELEM == 8) return (b.y & 0x80000000u) != 0u ? ~b : uvec2(b.x, b.y | 0x80000000u);
    const uint sign = 1u << ((BITS - 1u) & 31u);
    return uvec2((b.x & sign) != 0u ? (~b.x & MASK) : (b.x | sign), 0u);
}
#else // the full path
#define bits_t uint64_t
#define BITS_OF(x) uint64_t(x)
#define WORD_REF(op, a) Words(a).w[0]
#define INT_REF(op, a) Ints(a).i[0]
#define SHARED_WORD_REF(op, a) SharedWord(a).w
#define LOAD_BITS(op, a) load_bits(a)
#define BITS_LT(a, b) a < b
#define BITS_GT(a, b) a > b
#define SIGNED_LT(a, b) a < b
#define SIGNED_GT(a, b) a > b

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int i[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Longs { uint64_t l[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer SLongs { int64_t l[]; };

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
    if (TYPE >= 5 && TYPE <= 7) return narrow_is_nan(uint(b));
    return (b & 0x7c00ul) == 0x7c00ul && (b & 0x03fful) != 0ul;
}

// An unsigned key in the order of the float values, with -0 just below +0.
uint64_t float_key(uint64_t b) {
    const uint64_t sign = 1ul << uint64_t(BITS - 1);
    return (b & sign) != 0ul ? (~b & MASK) : (b | sign);
}
#endif

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

// float32 addition and multiplication in integer arithmetic, rounded to nearest even, subnormals
// included: the baseline path has no float64 and may not keep float32 subnormals (a device need
// not, and most GPUs flush them), where the CPU keeps them; bfloat16, whose subnormals are
// float32's, takes them on both paths. A NaN result is some NaN (the caller
// makes it the default one). The steps are IEEE 754's, in the shape of Berkeley SoftFloat's
// f32_add and f32_mul; exponents are biased, significands carry 7 bits below the rounding point.
const uint F32_NAN = 0x7fc00000u;

uint clz32(uint x) { return x == 0u ? 32u : 31u - uint(findMSB(x)); }
// x >> n, with any bit shifted out kept in bit 0 (the "sticky" bit)
uint shift_right_jam(uint x, int n) {
    if (n <= 0) return x;
    if (n >= 31) return x != 0u ? 1u : 0u;
    return (x >> uint(n)) | ((x << uint(32 - n)) != 0u ? 1u : 0u);
}
uint pack_f32(uint sign, int e, uint sig) { return (sign << 31) + (uint(e) << 23) + sig; }
// value sig * 2^(e - 157) (sig below 2^31), rounded to a float32
uint round_pack_f32(uint sign, int e, uint sig) {
    uint round_bits = sig & 0x7fu;
    if (e < 0 || e >= 0xfd) {
        if (e < 0) {
            sig = shift_right_jam(sig, -e);
            e = 0;
            round_bits = sig & 0x7fu;
        } else if (e > 0xfd || sig + 0x40u >= 0x80000000u) {
            return pack_f32(sign, 0xff, 0u);
        }
    }
    sig = (sig + 0x40u) >> 7;
    if (round_bits == 0x40u) sig &= ~1u; // a tie: to even
    if (sig == 0u) e = 0;
    return pack_f32(sign, e, sig);
}
uint norm_round_pack_f32(uint sign, int e, uint sig) {
    const int shift = int(clz32(sig)) - 1;
    e -= shift;
    if (shift >= 7 && e >= 0 && e < 0xfd) return pack_f32(sign, sig != 0u ? e : 0, sig << uint(shift - 7));
    return round_pack_f32(sign, e, sig << uint(shift));
}
uint f32_add_bits(uint a, uint b) {
    const uint sa = a >> 31, sb = b >> 31;
    int ea = int((a >> 23) & 0xffu), eb = int((b >> 23) & 0xffu);
    uint ma = a & 0x7fffffu, mb = b & 0x7fffffu;
    int diff = ea - eb;
    if (sa == sb) { // magnitudes add
        if (diff == 0) {
            if (ea == 0) return a + mb; // two subnormals (a carry makes a normal, rightly)
            if (ea == 0xff) return (ma | mb) != 0u ? F32_NAN : a;
            const uint m = 0x01000000u + ma + mb;
            if ((m & 1u) == 0u && ea < 0xfe) return pack_f32(sa, ea, m >> 1);
            return round_pack_f32(sa, ea, m << 6);
        }
        ma <<= 6;
        mb <<= 6;
        int e;
        if (diff < 0) {
            if (eb == 0xff) return mb != 0u ? F32_NAN : pack_f32(sa, 0xff, 0u);
            e = eb;
            ma += ea != 0 ? 0x20000000u : ma;
            ma = shift_right_jam(ma, -diff);
        } else {
            if (ea == 0xff) return ma != 0u ? F32_NAN : a;
            e = ea;
            mb += eb != 0 ? 0x20000000u : mb;
            mb = shift_right_jam(mb, diff);
        }
        uint m = 0x20000000u + ma + mb;
        if (m < 0x40000000u) {
            --e;
            m <<= 1;
        }
        return round_pack_f32(sa, e, m);
    }
    // magnitudes subtract
    if (diff == 0) {
        if (ea == 0xff) return F32_NAN; // (inf - inf, or a NaN)
        int d = int(ma) - int(mb);
        if (d == 0) return 0u; // +0 when rounding to nearest
        if (ea != 0) --ea;
        uint sign = sa;
        if (d < 0) {
            sign ^= 1u;
            d = -d;
        }
        int shift = int(clz32(uint(d))) - 8;
        int e = ea - shift;
        if (e < 0) {
            shift = ea;
            e = 0;
        }
        return pack_f32(sign, e, uint(d) << uint(shift));
    }
    uint sign = sa, x, y;
    int e;
    ma <<= 7;
    mb <<= 7;
    if (diff < 0) {
        sign ^= 1u;
        if (eb == 0xff) return mb != 0u ? F32_NAN : pack_f32(sign, 0xff, 0u);
        e = eb - 1;
        x = mb | 0x40000000u;
        y = ma + (ea != 0 ? 0x40000000u : ma);
        diff = -diff;
    } else {
        if (ea == 0xff) return ma != 0u ? F32_NAN : a;
        e = ea - 1;
        x = ma | 0x40000000u;
        y = mb + (eb != 0 ? 0x40000000u : mb);
    }
    return norm_round_pack_f32(sign, e, x - shift_right_jam(y, diff));
}
uint f32_mul_bits(uint a, uint b) {
    const uint sign = (a ^ b) >> 31;
    int ea = int((a >> 23) & 0xffu), eb = int((b >> 23) & 0xffu);
    uint ma = a & 0x7fffffu, mb = b & 0x7fffffu;
    if (ea == 0xff || eb == 0xff) {
        if ((ea == 0xff && ma != 0u) || (eb == 0xff && mb != 0u)) return F32_NAN;
        const bool zero = ea == 0xff ? (eb == 0 && mb == 0u) : (ea == 0 && ma == 0u);
        return zero ? F32_NAN : pack_f32(sign, 0xff, 0u); // infinity times 0, or an infinity
    }
    if (ea == 0) {
        if (ma == 0u) return sign << 31;
        const int shift = int(clz32(ma)) - 8;
        ea = 1 - shift;
        ma <<= uint(shift);
    }
    if (eb == 0) {
        if (mb == 0u) return sign << 31;
        const int shift = int(clz32(mb)) - 8;
        eb = 1 - shift;
        mb <<= uint(shift);
    }
    int e = ea + eb - 0x7f;
    uint hi, lo;
    umulExtended((ma | 0x00800000u) << 7, (mb | 0x00800000u) << 8, hi, lo);
    uint m = hi | (lo != 0u ? 1u : 0u);
    if (m < 0x40000000u) {
        --e;
        m <<= 1;
    }
    return round_pack_f32(sign, e, m);
}

// A float8 pattern (E exponent, M mantissa bits; e4m3fn when FINITE) as float32 bits, exactly
// (strix::detail::widen_narrow; a NaN only needs to stay one).
uint f8_to_f32(uint b, uint E, uint M, bool FINITE) {
    const uint bias = (1u << (E - 1u)) - 1u;
    const uint sign = (b & 0x80u) << 24, ex = (b >> M) & ((1u << E) - 1u), mant = b & ((1u << M) - 1u);
    if (ex == (1u << E) - 1u && (!FINITE || mant == (1u << M) - 1u)) return sign | 0x7f800000u | (mant != 0u || FINITE ? 0x400000u : 0u);
    if (ex == 0u) {
        if (mant == 0u) return sign;
        const int msb = findMSB(mant); // a subnormal: mant x 2^(1 - bias - M), normal in float32
        return sign | (uint(int(1u - bias - M) + msb + 127) << 23) | (((mant << uint(int(M) - msb)) & ((1u << M) - 1u)) << (23u - M));
    }
    return sign | ((ex - bias + 127u) << 23) | (mant << (23u - M));
}

// float32 bits rounded to nearest even into a narrow format (strix::detail::round_to_narrow):
// bfloat16 (E 8, M 7), e4m3fn (4, 3, FINITE: past 448 is its NaN) or e5m2 (5, 2). A NaN input
// only needs to give a NaN: the caller makes it the canonical one.
uint f32_to_narrow(uint x, uint E, uint M, bool FINITE) {
    const uint bias = (1u << (E - 1u)) - 1u;
    const uint exp_all = ((1u << E) - 1u) << M;
    const uint largest = FINITE ? exp_all | ((1u << M) - 2u) : exp_all - 1u;
    const uint sign = (x >> 31) << (E + M);
    const uint ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return sign | exp_all | (FINITE || ax > 0x7f800000u ? (1u << M) - 1u : 0u);
    if (ax == 0u) return sign;
    int e = int(ax >> 23) - 127;
    uint sig = ax & 0x7fffffu;
    if (e == -127) e = -126; // a float32 subnormal
    else sig |= 0x800000u;
    if (e > int(bias) + 1) return sign | (FINITE ? exp_all | ((1u << M) - 1u) : exp_all);
    int shift = int(23u - M);
    uint base = 0u;
    if (e >= 1 - int(bias)) base = uint(e + int(bias) - 1) << M;
    else shift += 1 - int(bias) - e;
    if (shift >= 25) return sign; // below half the smallest subnormal
    uint q = sig >> uint(shift);
    const uint rest = sig & ((1u << uint(shift)) - 1u), half_way = 1u << uint(shift - 1);
    if (rest > half_way || (rest == half_way && (q & 1u) != 0u)) q += 1u;
    q += base;
    if (q > largest) return sign | (FINITE ? exp_all | ((1u << M) - 1u) : exp_all);
    return sign | q;
}

// The CPU's combine (strix::detail::combine) on raw element bits.
bits_t combine(bits_t acc, bits_t u) {
    // bool: add and max a logical or, mul and min an and (PyTorch's scatter_reduce)
    if (TYPE == 8) return BITS_OF((REDUCTION == 1 || REDUCTION == 4) ? ((uint(acc) | uint(u)) != 0u ? 1u : 0u) : ((uint(acc) != 0u && uint(u) != 0u) ? 1u : 0u));
    if (REDUCTION == 3 || REDUCTION == 4) {
        if (IS_FLOAT) {
            if (is_nan_bits(acc)) return acc;
            if (is_nan_bits(u)) return u;
            const bits_t ka = float_key(acc), ku = float_key(u);
            return (REDUCTION == 3 ? BITS_LT(ku, ka) : BITS_GT(ku, ka)) ? u : acc;
        }
        if (IS_SIGNED) {
#if BASELINE
            const uvec2 a = signed_value(acc), b = signed_value(u);
#else
            const int64_t a = signed_value(acc), b = signed_value(u);
#endif
            return (REDUCTION == 3 ? SIGNED_LT(b, a) : SIGNED_GT(b, a)) ? u : acc;
        }
        return (REDUCTION == 3 ? BITS_LT(u, acc) : BITS_GT(u, acc)) ? u : acc;
    }
    // a NaN sum or product is the default quiet NaN, as on the CPU
    if (TYPE == 1) {
#if F64
        // in float64, converted exactly both ways: devices that flush float32 subnormals (many
        // GPUs) never see one, and the double rounding is harmless (53 >= 2 x 24 + 2 bits)
        precise double r = REDUCTION == 1 ? f32_to_f64(uint(acc)) + f32_to_f64(uint(u)) : f32_to_f64(uint(acc)) * f32_to_f64(uint(u));
        const uint64_t bits = uint64_t(f64_to_f32(r));
#elif BASELINE
        const bits_t bits = BITS_OF(REDUCTION == 1 ? f32_add_bits(uint(acc), uint(u)) : f32_mul_bits(uint(acc), uint(u)));
#else
        const float a = uintBitsToFloat(uint(acc)), b = uintBitsToFloat(uint(u));
        precise float r = REDUCTION == 1 ? a + b : a * b;
        const bits_t bits = BITS_OF(floatBitsToUint(r));
#endif
        return is_nan_bits(bits) ? BITS_OF(0x7fc00000u) : bits;
    }
    if (TYPE == 2) {
        const float a = unpackHalf2x16(uint(acc)).x, b = unpackHalf2x16(uint(u)).x;
        precise float r = REDUCTION == 1 ? a + b : a * b;
        const uint bits = floatBitsToUint(r);
        return (bits & 0x7fffffffu) > 0x7f800000u ? BITS_OF(0x7e00u) : BITS_OF(half_bits(r));
    }
    if (TYPE >= 5 && TYPE <= 7) { // bfloat16, float8: float32 arithmetic (subnormals kept), one rounding
        const uint E = TYPE == 5 ? 8u : TYPE == 6 ? 4u : 5u, M = TYPE == 5 ? 7u : TYPE == 6 ? 3u : 2u;
        const uint a = TYPE == 5 ? uint(acc) << 16 : f8_to_f32(uint(acc), E, M, TYPE == 6);
        const uint b = TYPE == 5 ? uint(u) << 16 : f8_to_f32(uint(u), E, M, TYPE == 6);
        const uint r = REDUCTION == 1 ? f32_add_bits(a, b) : f32_mul_bits(a, b);
        const uint bits = f32_to_narrow(r, E, M, TYPE == 6);
        // a NaN, e4m3fn's overflow included, is the canonical one: 0x7fc0, 0x7f
        return narrow_is_nan(bits) ? BITS_OF(TYPE == 5 ? 0x7fc0u : 0x7fu) : BITS_OF(bits);
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
#if BASELINE
    return (REDUCTION == 1 ? add_bits(acc, u) : mul_bits(acc, u)) & MASK2;
#else
    return (REDUCTION == 1 ? acc + u : acc * u) & MASK;
#endif
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

// (the output's element at byte address a)
void atomic_combine(addr_t a, bits_t u) {
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
        if (REDUCTION == 1) { atomicAdd(WORD_REF(DST, a), uint(u)); return; }
        if (REDUCTION == 3 && IS_SIGNED) { atomicMin(INT_REF(DST, a), int(uint(u))); return; }
        if (REDUCTION == 4 && IS_SIGNED) { atomicMax(INT_REF(DST, a), int(uint(u))); return; }
        if (REDUCTION == 3) { atomicMin(WORD_REF(DST, a), uint(u)); return; }
        if (REDUCTION == 4) { atomicMax(WORD_REF(DST, a), uint(u)); return; }
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
    // compare-and-swap on the aligned word holding the element (1, 2 and 4 bytes: the host
    // dispatches PHASE 0 for 8-byte elements only with 64-bit atomics)
    const addr_t wa = a & ~AU(3);
    const uint shift = ELEM == 4 ? 0u : uint(a & AU(3)) * 8u;
    const uint mask = uint(MASK) << shift;
    uint old = LOAD_WORD(DST, wa, 0);
    while (true) {
        const uint cur = (old & mask) >> shift;
        const uint next = uint(combine(BITS_OF(cur), u));
        if (next == cur) return;
        const uint seen = atomicCompSwap(WORD_REF(DST, wa), old, (old & ~mask) | (next << shift));
        if (seen == old) return;
        old = seen;
    }
}

// The source address of update `id` (its C-order coordinates over the updates' Dim records).
addr_t update_source(addr_t id) {
    PLAN_DIMS(dims);
    addr_t rem = id;
    offs_t s = 0;
    for (int k = int(RANK) - 1; k >= 0; --k) {
        const Dim dim = PLAN_DIM(dims, k);
        s += next_coordinate(rem, dim.size, k == 0) * dim.src;
    }
    return pc.src + addr_t(s);
}

void main() {
    if (guarded()) return; // the operator's indices failed their check: it writes nothing
    const addr_t i = invocation();
    if (i >= pc.count) return;
    if (PHASE == 5) {
        // the fused copy's input is at pc.indices (0: none); the output's slots number axis_size
#if I64_ATOMICS
        if (ELEM == 4) { // i is a slot: its winner's bits, kept in the claim, else the input's element
            const uint64_t claim = Longs(pc.aux_addr + i * 8ul).l[0];
            const uint64_t target = pc.lo + i * 4ul;
            if (claim != 0ul) Words(target).w[0] = uint(claim);
            else if (pc.indices != 0ul) Words(target).w[0] = Words(pc.indices + i * 4ul).w[0];
            return;
        }
#endif
        if (ELEM >= 4) { // i is a slot: its winner's update, read where it lies, else the input's element
            // (4-byte elements come here without 64-bit atomics: their claim is 32 bits too)
            const uint claim = LOAD_WORD(AUX, pc.aux_addr + i * AU(4), 0);
            const addr_t target = pc.lo + i * addr_t(ELEM);
            if (claim != 0u) store_bits(target, LOAD_BITS(SRC, update_source(addr_t(claim - 1u))));
            else if (HAS(indices)) store_bits(target, LOAD_BITS(IDX, pc.indices + i * addr_t(ELEM)));
            return;
        }
        // 1- and 2-byte elements: i is the i-th 32-bit word from the output's first, whose slots
        // it writes at once; a word the output shares with other bytes takes atomics there (other
        // work may be writing those bytes), any other one plain stores (its bytes outside the
        // output's elements lie in the output's range, which no other work of the pass touches)
        const addr_t end = pc.lo + addr_t(pc.axis_size) * addr_t(ELEM), word = (pc.lo & ~AU(3)) + i * AU(4);
        uint value = 0u, mask = 0u;
        for (uint k = 0u; k < 4u / ELEM; ++k) {
            const addr_t a = word + addr_t(k * ELEM);
            if (a < pc.lo || a >= end) continue;
            const addr_t slot = (a - pc.lo) / addr_t(ELEM);
            const uint claim = LOAD_WORD(AUX, pc.aux_addr + slot * AU(4), 0);
            bits_t bits;
            if (claim != 0u) bits = LOAD_BITS(SRC, update_source(addr_t(claim - 1u)));
            else if (HAS(indices)) bits = LOAD_BITS(IDX, pc.indices + slot * addr_t(ELEM));
            else continue;
            value |= uint(bits) << (k * ELEM * 8u);
            mask |= uint(MASK) << (k * ELEM * 8u);
        }
        if (mask == 0u) return;
        if (word < pc.lo || word + AU(4) > end) {
            ATOMIC_AND_WORD(DST, word, ~mask);
            ATOMIC_OR_WORD(DST, word, value);
        } else {
            STORE_WORD(DST, word, 0, mask == 0xffffffffu ? value : (LOAD_WORD(DST, word, 0) & ~mask) | value);
        }
        return;
    }
    if ((PHASE == 2 || PHASE == 3) && LOAD_WORD(AUX, ORDER_AT(repeats), 0) == 0u) return;
    if (PHASE == 3) { // i is a slot: fold chunk pc.aux of its run, in C order
        ORDER_OPEN(o);
        // a slot without updates: its starts and ends were never written
        if ((LOAD_WORD(AUX, slot_word(o, i), 0) & slot_bit(o, i)) == 0u) return;
        const uint first = LOAD_WORD(AUX, ORDER(o, starts) + i * AU(4), 0), end = LOAD_WORD(AUX, ORDER(o, ends) + i * AU(4), 0);
        if (pc.aux == 0u && end > first) atomicMax(WORD_REF(AUX, ORDER(o, max_run)), end - first);
#if BASELINE
        // updates [first + pc.aux * pc.aux2, end), at most pc.aux2 of them (no 32-bit sum or
        // product overflows)
        uint done_hi, done;
        umulExtended(pc.aux, pc.aux2, done_hi, done);
        if (end <= first || done_hi != 0u || done >= end - first) return;
        const uint from = first + done, to = from + min(end - from, pc.aux2);
#else
        const uint64_t from = uint64_t(first) + uint64_t(pc.aux) * uint64_t(pc.aux2);
        if (from >= uint64_t(end)) return;
        const uint to = uint(min(uint64_t(end), from + uint64_t(pc.aux2)));
#endif
        const addr_t target = pc.lo + i * addr_t(ELEM);
        bits_t acc = LOAD_BITS(DST, target);
        for (uint k = uint(from); k < to; ++k) acc = combine(acc, LOAD_BITS(SRC, update_source(addr_t(LOAD_WORD(AUX, ORDER(o, vals_in) + addr_t(k) * AU(4), 0)))));
        store_bits(target, acc);
        return;
    }
    if (PHASE == 2) { // i is a sorted position: the ends of its slot's run
        ORDER_OPEN(o);
        const uint slot = LOAD_WORD(AUX, ORDER(o, keys_in) + i * AU(4), 0);
        if (i == AU(0) || LOAD_WORD(AUX, ORDER(o, keys_in) + (i - AU(1)) * AU(4), 0) != slot) STORE_WORD(AUX, ORDER(o, starts) + addr_t(slot) * AU(4), 0, uint(i));
        if (i + AU(1) == pc.count || LOAD_WORD(AUX, ORDER(o, keys_in) + (i + AU(1)) * AU(4), 0) != slot) STORE_WORD(AUX, ORDER(o, ends) + addr_t(slot) * AU(4), 0, uint(i + AU(1)));
        return;
    }
    addr_t dst, src;
    locate_update(i, dst, src);
    // an output larger than one binding is reduced in windows (encoder::reduce_by_windows for
    // PHASE 0, reduce_by_buckets for 1, 6 and 7), each dispatch owning the targets
    // [pc.lo, pc.lo + pc.aux) of its binding (pc.aux 0: all); one below wraps past 2^32 and is
    // another window's too. An update outside the window takes the slot one past the window's,
    // which PHASE 7 sorts last and no slot's fold reads. (The full path binds no windows.)
#if BASELINE
    const bool outside = PHASE != 4 && pc.aux != 0u && dst - pc.lo >= pc.aux;
    if (PHASE == 0) {
        if (!outside) atomic_combine(dst, LOAD_BITS(SRC, src));
        return;
    }
    const addr_t slot = outside ? addr_t(pc.aux / ELEM) : (dst - pc.lo) / addr_t(ELEM);
#else
    if (PHASE == 0) {
        atomic_combine(dst, LOAD_BITS(SRC, src));
        return;
    }
    const addr_t slot = (dst - pc.lo) / addr_t(ELEM);
#endif
    if (PHASE == 4) {
#if I64_ATOMICS
        if (ELEM == 4) atomicMax(Longs(pc.aux_addr + slot * 8ul).l[0], ((i + 1ul) << 32) | load_bits(src));
        if (ELEM != 4)
#endif
            atomicMax(WORD_REF(AUX, pc.aux_addr + slot * AU(4)), uint(i) + 1u);
        return;
    }
    if (PHASE == 1) { // the update's bit; a second update of its slot raises `repeats`
#if BASELINE
        if (outside) return;
#endif
        ORDER_OPEN(o);
        const uint bit = slot_bit(o, slot);
        const bool seen = (atomicOr(WORD_REF(AUX, slot_word(o, slot)), bit) & bit) != 0u;
        if (seen && SHARED_WORD_REF(AUX, ORDER(o, repeats)) == 0u) atomicOr(SHARED_WORD_REF(AUX, ORDER(o, repeats)), 1u);
        return;
    }
    if (PHASE == 7) { // a slot repeats: the update's (slot, number) pair
        ORDER_OPEN(o);
        STORE_WORD(AUX, ORDER(o, keys_out) + i * AU(4), 0, uint(slot));
        STORE_WORD(AUX, ORDER(o, vals_out) + i * AU(4), 0, uint(i));
        return;
    }
    if (PHASE == 6) { // no slot repeats: the update alone makes its target
#if BASELINE
        if (outside) return;
#endif
        if (LOAD_WORD(AUX, ORDER_AT(repeats), 0) != 0u) return;
        store_bits(dst, combine(LOAD_BITS(DST, dst), LOAD_BITS(SRC, src)));
    }
}
