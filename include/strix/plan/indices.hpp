#pragma once
/// Reading index tensors: every index is checked once, made non-negative, and either rejected
/// (policy `error`) or clamped (policy `clamp`) before any output is written.

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "strix/tensor_view.hpp"

namespace strix {

/// What an index outside its axis does.
enum class index_policy : std::uint8_t {
    error, ///< throw strix::error naming the position and the value; nothing is written
    clamp, ///< clamp into [0, n-1] (DirectML's behaviour); the result is defined but meaningless
};

namespace detail {

/// Reads the index at byte address `p` of index type `t` and maps it into [0, n): negatives
/// count from the end. Returns -1 when the value lies outside [-n, n) (or [0, n) unsigned);
/// `raw` receives the value as text for messages.
inline std::int64_t resolve_index(const std::byte* p, dtype t, std::int64_t n, std::string* raw) {
    auto signed_case = [&](std::int64_t v) -> std::int64_t {
        if (raw) *raw = std::to_string(v);
        if (v < 0) v += n;
        return (v < 0 || v >= n) ? -1 : v;
    };
    auto unsigned_case = [&](std::uint64_t v) -> std::int64_t {
        if (raw) *raw = std::to_string(v);
        return v >= static_cast<std::uint64_t>(n) ? -1 : static_cast<std::int64_t>(v);
    };
    switch (t) {
    case dtype::int32: { std::int32_t v; std::memcpy(&v, p, 4); return signed_case(v); }
    case dtype::int64: { std::int64_t v; std::memcpy(&v, p, 8); return signed_case(v); }
    case dtype::uint32: { std::uint32_t v; std::memcpy(&v, p, 4); return unsigned_case(v); }
    default: { std::uint64_t v; std::memcpy(&v, p, 8); return unsigned_case(v); }
    }
}

/// Clamps the index at `p` into [0, n-1] (after counting negatives from the end).
inline std::int64_t clamp_index(const std::byte* p, dtype t, std::int64_t n) {
    switch (t) {
    case dtype::int32: case dtype::int64: {
        std::int64_t v;
        if (t == dtype::int32) { std::int32_t w; std::memcpy(&w, p, 4); v = w; } else std::memcpy(&v, p, 8);
        if (v < 0) v = v < -n ? 0 : v + n;
        return v >= n ? n - 1 : v;
    }
    case dtype::uint32: { std::uint32_t v; std::memcpy(&v, p, 4); return v >= static_cast<std::uint64_t>(n) ? n - 1 : static_cast<std::int64_t>(v); }
    default: { std::uint64_t v; std::memcpy(&v, p, 8); return v >= static_cast<std::uint64_t>(n) ? n - 1 : static_cast<std::int64_t>(v); }
    }
}

/// Every index of `idx` (any strides), in C order of its shape, resolved into [0, n) and
/// multiplied by `scale`. Under `error` the first bad index throws, naming `op`, the position,
/// the value, the axis and `context` (the operands' shapes). `n` must be positive.
inline std::vector<std::int64_t> resolve_indices(const any_cview& idx, std::int64_t n, std::int64_t scale,
                                                 index_policy policy, std::string_view op, int axis,
                                                 const std::string& context) {
    const auto count = static_cast<std::size_t>(idx.count());
    std::vector<std::int64_t> out(count);
    if (count == 0) return out;
    const int r = idx.rank();
    const auto es = static_cast<std::int64_t>(idx.element_size());
    std::array<std::int64_t, max_rank> c{};
    const auto* base = static_cast<const std::byte*>(idx.data());
    std::int64_t off = 0; // byte offset of the current element
    const std::int64_t inner = r ? idx.size(r - 1) : 1;
    const std::int64_t inner_step = r ? idx.stride(r - 1) * es : 0;
    for (std::size_t k = 0; k < count;) {
        std::int64_t o = off;
        for (std::int64_t i = 0; i < inner; ++i, ++k, o += inner_step) {
            std::int64_t v;
            if (policy == index_policy::clamp) {
                v = clamp_index(base + o, idx.type(), n);
            } else {
                v = resolve_index(base + o, idx.type(), n, nullptr);
                if (v < 0) {
                    std::string raw;
                    resolve_index(base + o, idx.type(), n, &raw);
                    std::string pos = "[";
                    for (int d = 0; d + 1 < r; ++d) pos += std::to_string(c[static_cast<std::size_t>(d)]) + ",";
                    pos += (r ? std::to_string(i) : std::string()) + "]";
                    throw error(error_code::index_out_of_range,
                                "strix::" + std::string(op) + ": index " + raw + " at position " + pos +
                                    " of the indices is out of range for axis " + std::to_string(axis) + " of size " +
                                    std::to_string(n) + " (valid: [" + (is_signed_int(idx.type()) ? "-" + std::to_string(n) : "0") +
                                    ", " + std::to_string(n) + "); " + context + ")");
                }
            }
            out[k] = v * scale;
        }
        // advance the outer coordinates (odometer over dims 0..r-2)
        for (int d = r - 2; d >= 0; --d) {
            auto& cd = c[static_cast<std::size_t>(d)];
            off += idx.stride(d) * es;
            if (++cd < idx.size(d)) break;
            off -= idx.size(d) * idx.stride(d) * es;
            cd = 0;
        }
    }
    return out;
}

} // namespace detail
} // namespace strix
