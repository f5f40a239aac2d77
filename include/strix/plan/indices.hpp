#pragma once
/// Reading index tensors: every index is checked once, made non-negative, and either rejected
/// (policy `error`) or clamped (policy `clamp`) before any output is written.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "strix/error.hpp"
#include "strix/modes.hpp"
#include "strix/rules.hpp"
#include "strix/tensor_view.hpp"

namespace strix {

namespace detail {

/// Reads the index at byte address `p` of index type `t` and maps it into [0, n): negatives
/// count from the end. Returns -1 when the value lies outside [-n, n) (or [0, n) unsigned);
/// `raw` receives the value as text for messages.
template <class = void>
std::int64_t resolve_index(const std::byte* p, dtype t, std::int64_t n, std::string* raw) {
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
template <class = void>
std::int64_t clamp_index(const std::byte* p, dtype t, std::int64_t n) {
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

/// Throws the error of an out-of-range index: the operator, the value, its position in the
/// indices, the axis with its size and valid range, and the operands (`context`).
[[noreturn]] inline void throw_index_error(const std::byte* p, dtype t, std::int64_t n, std::string_view op,
                                           const std::vector<std::int64_t>& position, int axis, const operand_list& context) {
    std::string raw;
    resolve_index(p, t, n, &raw);
    std::string pos = "[";
    for (std::size_t d = 0; d < position.size(); ++d) {
        if (d) pos += ',';
        pos += std::to_string(position[d]);
    }
    pos += "]";
    throw error(error_code::index_out_of_range,
                "strix::" + std::string(op) + ": index " + raw + " at position " + pos + " of the indices is out of range for axis " +
                    std::to_string(axis) + " of size " + std::to_string(n) + " (valid: [" +
                    (is_signed_int(t) ? "-" + std::to_string(n) : "0") + ", " + std::to_string(n) + "); " + context.str() + ")");
}

/// Every index of `idx` (any strides), in C order of its shape, resolved into [0, n) and
/// multiplied by `scale`. Under `error` the first bad index throws, naming `op`, the position,
/// the value, the axis and `context` (the operands' shapes). `n` must be positive.
template <class = void>
std::vector<std::int64_t> resolve_indices(const any_cview& idx, std::int64_t n, std::int64_t scale,
                                                 index_policy policy, std::string_view op, int axis,
                                                 const operand_list& context) {
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
                    std::vector<std::int64_t> pos(c.begin(), c.begin() + (r ? r - 1 : 0));
                    if (r) pos.push_back(i);
                    throw_index_error(base + o, idx.type(), n, op, pos, axis, context);
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

/// Calls f(first, step, len) for the runs of elements [e0, e1) of `v` (C order of its shape):
/// each run is a piece of one innermost row, `first` its first element's address and `step` the
/// byte stride between its elements.
template <class F>
void for_each_run(const any_cview& v, std::int64_t e0, std::int64_t e1, F&& f) {
    if (e1 <= e0) return;
    const int r = v.rank();
    const auto es = static_cast<std::int64_t>(v.element_size());
    const auto* base = static_cast<const std::byte*>(v.data());
    if (r == 0) {
        f(base, std::int64_t{0}, std::int64_t{1});
        return;
    }
    const std::int64_t inner = v.size(r - 1), step = v.stride(r - 1) * es;
    std::array<std::int64_t, max_rank> c{};
    std::int64_t row = e0 / inner, col = e0 - row * inner, off = 0;
    for (int d = r - 2; d >= 0; --d) {
        c[static_cast<std::size_t>(d)] = row % v.size(d);
        row /= v.size(d);
        off += c[static_cast<std::size_t>(d)] * v.stride(d) * es;
    }
    for (std::int64_t left = e1 - e0; left > 0;) {
        const std::int64_t len = std::min(inner - col, left);
        f(base + off + col * step, step, len);
        left -= len;
        col = 0;
        for (int d = r - 2; d >= 0; --d) {
            auto& cd = c[static_cast<std::size_t>(d)];
            off += v.stride(d) * es;
            if (++cd < v.size(d)) break;
            off -= v.size(d) * v.stride(d) * es;
            cd = 0;
        }
    }
}

/// The axes that index tuples address: k axes from `first` of a view (sizes and byte strides),
/// and `bias`, the smallest sum of index times stride a tuple can reach (negative strides make
/// it negative; devices store offsets minus the bias, so they are never negative).
struct tuple_axes {
    int first = 0;
    std::vector<std::int64_t> n, stride;
    std::int64_t bias = 0;
};

template <bool M>
tuple_axes tuple_axes_of(const basic_any_view<M>& target, int first, std::int64_t k) {
    tuple_axes t{first, {}, {}, 0};
    const auto es = static_cast<std::int64_t>(target.element_size());
    for (int j = 0; j < k; ++j) {
        const std::int64_t n = target.size(first + j), st = target.stride(first + j) * es;
        t.n.push_back(n);
        t.stride.push_back(st);
        if (n > 0 && st < 0) t.bias += (n - 1) * st;
    }
    return t;
}

/// Index tuples (gather-nd, scatter-nd): the last dimension of `idx` holds k indices into axes
/// first_axis .. first_axis + k - 1, of sizes n[j] and byte strides stride[j]. Returns, per tuple
/// in C order of idx's leading dimensions, the sum of resolved index times stride. Under `error`
/// the first bad index in C order of `idx` throws, naming its full position. Every n[j] must be
/// positive when there is a tuple.
template <class = void>
std::vector<std::int64_t> resolve_tuples(const any_cview& idx, std::span<const std::int64_t> n, std::span<const std::int64_t> stride,
                                                index_policy policy, std::string_view op, int first_axis, const operand_list& context) {
    const int r = idx.rank();
    const std::int64_t k = idx.size(r - 1);
    shape lead;
    for (int d = 0; d + 1 < r; ++d) lead.push_back(idx.size(d));
    const auto count = static_cast<std::size_t>(lead.count());
    std::vector<std::int64_t> out(count, 0);
    if (count == 0 || k == 0) return out;
    const auto es = static_cast<std::int64_t>(idx.element_size());
    const auto* base = static_cast<const std::byte*>(idx.data());
    std::vector<std::int64_t> c(static_cast<std::size_t>(r - 1), 0);
    std::int64_t off = 0;
    for (std::size_t t = 0; t < count; ++t) {
        std::int64_t sum = 0;
        for (std::int64_t j = 0; j < k; ++j) {
            const std::byte* p = base + off + j * idx.stride(r - 1) * es;
            const auto nj = n[static_cast<std::size_t>(j)];
            std::int64_t v;
            if (policy == index_policy::clamp) {
                v = clamp_index(p, idx.type(), nj);
            } else {
                v = resolve_index(p, idx.type(), nj, nullptr);
                if (v < 0) {
                    auto pos = c;
                    pos.push_back(j);
                    throw_index_error(p, idx.type(), nj, op, pos, first_axis + static_cast<int>(j), context);
                }
            }
            sum += v * stride[static_cast<std::size_t>(j)];
        }
        out[t] = sum;
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
