// Fuzz target: strix::dlpack::view, on DLTensor fields as a careless or hostile producer fills
// them in.
//
// An input decodes (format below) to a DLTensor: a data pointer (into a 256-byte heap buffer, at
// any byte of it; null; or any address), a device type, an element type (code, bits, lanes), a
// dimension count (0 to 9, or any 32-bit value), a shape and strides (small, huge, INT64_MIN,
// negative) in arrays of exactly that many entries, and a byte_offset (small, near 2^64, or any
// 64-bit value). Then view() must either throw strix::error (invalid_argument or bad_view) or
// return a view that is the tensor described:
//
//  * its element type, shape and strides are the tensor's, and its data is the data pointer
//    plus byte_offset (null for an empty tensor without data);
//  * a tensor with elements has data, and every element lies between the ends of the address
//    space (computed here in 128 bits);
//  * when the tensor lies inside the buffer, each of its elements (all of them up to 4096, else
//    the first 4096 in C order and the two extreme ones) is read at the address the view gives,
//    which must be the one the fields describe: the address sanitizer sees any read outside.
//
// A tensor that lies inside the buffer, or an empty one without data, with a type strix has,
// host memory, 0 to 8 dimensions, no negative size, aligned elements and a reach within 64-bit
// byte offsets (check_view's rule) must be accepted. Any other exception, a crash or a sanitizer
// report (null pointer arithmetic, a pointer wrapped around) is a finding.
//
// The input, read from the front (past the end every byte reads 0): a flags byte (bits 0-1:
// data 0/1 into the buffer, 2 null, 3 any address; bit 2: strides given; bit 3: no shape array;
// bits 4-5: device 0/1 kDLCPU, 2 kDLCUDAHost, 3 the next byte); the data's byte in the buffer
// or its address (a value); the device byte; the type's code and bits bytes, a lanes byte
// (< 0xf0: 1, else the next byte); the dimension count byte (< 0xf0: its value mod 10, else the
// next 4 bytes); byte_offset (a value); then a value per size and, with strides, per stride. A
// value is one byte: 0x00-0xbf (byte mod 17) - 8, 0xc0-0xdf one of 32 interesting values,
// 0xe0-0xff the next 8 bytes, little-endian.

#if __has_include(<dlpack/dlpack.h>)

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <vector>

#include "strix/dlpack.hpp"

namespace {

using i128 = __int128;

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_dlpack: %s\n", what);
    std::abort();
}

struct reader {
    const std::uint8_t* p;
    std::size_t n, at = 0;
    std::uint8_t byte() { return at < n ? p[at++] : 0; }
    std::uint64_t raw(int bytes) {
        std::uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(byte()) << (8 * i);
        return v;
    }
    std::int64_t value() {
        static constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
        static constexpr std::array<std::int64_t, 32> interesting = {
            0, 1, -1, 2, 3, 7, 8, 64, 255, 256, std::int64_t{1} << 31, (std::int64_t{1} << 32) - 1, std::int64_t{1} << 32,
            std::int64_t{1} << 40, std::int64_t{1} << 47, std::int64_t{1} << 59, std::int64_t{1} << 60, std::int64_t{1} << 61,
            std::int64_t{1} << 62, (std::int64_t{1} << 62) + 1, hi, hi - 7, lo, lo + 1, -(std::int64_t{1} << 62), -(std::int64_t{1} << 59),
            -(std::int64_t{1} << 32), -64, -8, -256, hi / 8, hi / 8 + 1};
        const std::uint8_t b = byte();
        if (b < 0xc0) return static_cast<std::int64_t>(b % 17) - 8;
        if (b < 0xe0) return interesting[b - 0xc0];
        return static_cast<std::int64_t>(raw(8));
    }
};

constexpr std::size_t buffer_bytes = 256;

// The lowest and one-past-highest byte of a non-empty tensor, in 128 bits (element 0 at `at`,
// `es` bytes an element). Each size times stride fits in 127 bits; clamped to +-2^120 (far
// beyond any address) before the element size and the sum, so that nothing here overflows.
struct extent {
    i128 lo, hi;
};
extent extent_of(i128 at, const std::int64_t* sizes, const std::array<std::int64_t, strix::max_rank>& strides, int ndim, std::int64_t es) {
    constexpr i128 limit = static_cast<i128>(1) << 120;
    i128 lo = at, hi = at;
    for (int i = 0; i < ndim; ++i) {
        const i128 span = std::clamp(static_cast<i128>(sizes[i] - 1) * strides[static_cast<std::size_t>(i)], -limit, limit) * es;
        (span < 0 ? lo : hi) += span;
    }
    return {lo, hi + es};
}

// check_view's rule for the strides (byte_reach) and the count in bytes.
bool reach_fits(const std::int64_t* sizes, const std::array<std::int64_t, strix::max_rank>& strides, int ndim, std::int64_t es) {
    i128 reach = 0, count = 1;
    for (int i = 0; i < ndim; ++i) {
        const std::int64_t stride = strides[static_cast<std::size_t>(i)];
        if (stride == std::numeric_limits<std::int64_t>::min()) return false;
        const i128 bytes = static_cast<i128>(stride < 0 ? -stride : stride) * es;
        if (bytes > std::numeric_limits<std::int64_t>::max()) return false;
        reach += bytes * sizes[i];
        if (reach > std::numeric_limits<std::int64_t>::max()) return false;
        count = std::min<i128>(count * sizes[i], static_cast<i128>(1) << 64);
    }
    return count * es <= std::numeric_limits<std::int64_t>::max();
}

volatile unsigned char sink;

// Reads the element at coordinates `c` through the view and checks its address against `want`.
void read_at(const strix::any_view& v, const std::array<std::int64_t, strix::max_rank>& c, i128 want) {
    const std::byte* p = v.address(c);
    if (static_cast<i128>(reinterpret_cast<std::uintptr_t>(p)) != want) finding("the view's element lies elsewhere than the fields say");
    unsigned char b[16];
    std::memcpy(b, p, v.element_size());
    sink = static_cast<unsigned char>(sink + b[0] + b[v.element_size() - 1]);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    reader in{data, size};
    // a buffer of exactly its size, so that the address sanitizer sees a read past either end
    std::vector<std::byte> buffer(buffer_bytes);
    for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = static_cast<std::byte>(k);
    const std::uint8_t flags = in.byte();
    DLTensor t{};
    const int data_kind = flags & 3;
    if (data_kind < 2) t.data = buffer.data() + in.byte();
    else if (data_kind == 3) t.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(in.value()));
    const int device = (flags >> 4) & 3;
    // (mod 16: the values the enumeration's bits hold, 0 and the unnamed ones among them)
    t.device.device_type = device < 2 ? kDLCPU : device == 2 ? kDLCUDAHost : static_cast<DLDeviceType>(in.byte() % 16);
    t.dtype.code = in.byte();
    t.dtype.bits = in.byte();
    const std::uint8_t lanes = in.byte();
    t.dtype.lanes = lanes < 0xf0 ? 1 : in.byte();
    const std::uint8_t nd = in.byte();
    t.ndim = nd < 0xf0 ? nd % 10 : static_cast<std::int32_t>(in.raw(4));
    t.byte_offset = static_cast<std::uint64_t>(in.value());
    // the arrays hold exactly ndim entries (up to 16: a read beyond them is the sanitizer's)
    const auto entries = static_cast<std::size_t>(std::clamp(t.ndim, 0, 16));
    std::vector<std::int64_t> sizes(entries), strides(entries);
    for (auto& s : sizes) s = in.value();
    const bool has_strides = (flags & 4) != 0;
    if (has_strides)
        for (auto& s : strides) s = in.value();
    t.shape = (flags & 8) ? nullptr : sizes.data();
    t.strides = has_strides ? strides.data() : nullptr;

    strix::any_view v;
    bool accepted = false;
    try {
        v = strix::dlpack::view(t);
        accepted = true;
    } catch (const strix::error& e) {
        if (e.code() != strix::error_code::invalid_argument && e.code() != strix::error_code::bad_view) finding("an error of another code");
    } catch (const std::exception&) {
        finding("an exception that is not strix::error");
    }

    // what the fields describe, when they describe a tensor strix has
    bool known_type = t.dtype.lanes == 1;
    std::int64_t es = 0;
    if (known_type) {
        known_type = false;
        for (const strix::dtype d : strix::all_dtypes) {
            const DLDataType m = strix::dlpack::type_of(d);
            if (m.code == t.dtype.code && m.bits == t.dtype.bits) {
                known_type = true;
                es = static_cast<std::int64_t>(strix::size_of(d));
            }
        }
    }
    const bool host = t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost || t.device.device_type == kDLROCMHost ||
                      t.device.device_type == kDLCUDAManaged;
    const bool layout_ok = known_type && host && t.ndim >= 0 && t.ndim <= strix::max_rank && (t.ndim == 0 || t.shape) &&
                           std::all_of(sizes.begin(), sizes.end(), [](std::int64_t s) { return s >= 0; });
    if (accepted && !layout_ok) finding("a tensor strix cannot have was accepted");
    if (!layout_ok) return 0;
    const int rank = t.ndim;
    strix::shape described;
    for (const std::int64_t n : sizes) described.push_back(n);
    std::array<std::int64_t, strix::max_rank> st = strix::c_strides(described); // C order where there are no strides
    if (has_strides)
        for (int i = 0; i < rank; ++i) st[static_cast<std::size_t>(i)] = strides[static_cast<std::size_t>(i)];
    const bool empty = std::any_of(sizes.begin(), sizes.end(), [](std::int64_t s) { return s == 0; });
    const i128 base = static_cast<i128>(reinterpret_cast<std::uintptr_t>(t.data));
    const i128 at = base + t.byte_offset;
    const bool fits = reach_fits(sizes.data(), st, rank, es);
    const auto buf_lo = static_cast<i128>(reinterpret_cast<std::uintptr_t>(buffer.data()));
    const extent x = extent_of(at, sizes.data(), st, rank, es);
    const bool in_buffer = t.data && !empty && fits && x.lo >= buf_lo && x.hi <= buf_lo + static_cast<i128>(buffer_bytes);
    const bool aligned = at % es == 0;

    if (!accepted) {
        if ((in_buffer && aligned) || (!t.data && empty && fits)) finding("a tensor inside the buffer (or empty without data) was refused");
        return 0;
    }
    // the view is the tensor described
    if (v.sizes().rank != rank) finding("the view has another rank");
    for (int i = 0; i < rank; ++i) {
        if (v.size(i) != sizes[static_cast<std::size_t>(i)]) finding("the view has another shape");
        if (v.stride(i) != st[static_cast<std::size_t>(i)]) finding("the view has other strides");
    }
    if (static_cast<std::int64_t>(v.element_size()) != es) finding("the view has another element type");
    if (!t.data) {
        if (!empty) finding("a tensor with elements but no data was accepted");
        if (v.data() != nullptr) finding("an empty tensor without data got data");
        return 0;
    }
    if (static_cast<i128>(reinterpret_cast<std::uintptr_t>(v.data())) != at) finding("the view's data is not data + byte_offset");
    if (!aligned) finding("a misaligned tensor was accepted");
    if (empty) return 0;
    if (x.lo < 0 || x.hi > static_cast<i128>(std::numeric_limits<std::uintptr_t>::max()) + 1)
        finding("a tensor reaching beyond the address space was accepted");
    if (!in_buffer) return 0; // memory the producer vouches for, which this harness has not got
    // every element (up to 4096 of them, then the two extreme ones), through the view
    std::array<std::int64_t, strix::max_rank> c{};
    const auto address = [&] {
        i128 a = at;
        for (int i = 0; i < rank; ++i) a += static_cast<i128>(c[static_cast<std::size_t>(i)]) * st[static_cast<std::size_t>(i)] * es;
        return a;
    };
    for (int k = 0; k < 4096; ++k) {
        read_at(v, c, address());
        int i = rank - 1;
        while (i >= 0 && ++c[static_cast<std::size_t>(i)] == sizes[static_cast<std::size_t>(i)]) c[static_cast<std::size_t>(i--)] = 0;
        if (i < 0) break;
    }
    for (const bool low : {true, false}) {
        for (int i = 0; i < rank; ++i) c[static_cast<std::size_t>(i)] = (st[static_cast<std::size_t>(i)] < 0) == low ? sizes[static_cast<std::size_t>(i)] - 1 : 0;
        read_at(v, c, address());
    }
    return 0;
}

#else // no <dlpack/dlpack.h> (Debian: libdlpack-dev): nothing to fuzz

#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }

#endif
