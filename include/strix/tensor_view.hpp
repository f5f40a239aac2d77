#pragma once
/// Non-owning strided views: typed (`tensor_view<T, extents>`) and dtype-erased (`any_view`,
/// `any_cview`). Strides count elements and may be anything: non-contiguous, Fortran order,
/// negative, or zero (broadcast; inputs only — an output must not overlap itself).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <vector>

#include "strix/dtype.hpp"
#include "strix/shape.hpp"

namespace strix {

namespace detail {
/// The next dense stride after one of `n` over `size` elements; saturates at 2^63 - 1 where the
/// product does not fit (such a shape has more elements than a view may have, and check_view
/// refuses it before any stride is used).
constexpr std::int64_t next_dense_stride(std::int64_t n, std::int64_t size) {
    std::int64_t r = 0;
    return mul_fits(n, size, r) ? r : std::numeric_limits<std::int64_t>::max();
}
} // namespace detail

/// Element strides of a C-order (row-major) tensor of shape `s`.
constexpr std::array<std::int64_t, max_rank> c_strides(const shape& s) {
    std::array<std::int64_t, max_rank> st{};
    std::int64_t n = 1;
    for (int i = s.rank - 1; i >= 0; --i) {
        st[static_cast<std::size_t>(i)] = n;
        n = detail::next_dense_stride(n, s[i]);
    }
    return st;
}

/// Element strides of a Fortran-order (column-major) tensor of shape `s`.
constexpr std::array<std::int64_t, max_rank> f_strides(const shape& s) {
    std::array<std::int64_t, max_rank> st{};
    std::int64_t n = 1;
    for (int i = 0; i < s.rank; ++i) {
        st[static_cast<std::size_t>(i)] = n;
        n = detail::next_dense_stride(n, s[i]);
    }
    return st;
}

/// A dtype-erased strided view. `Mutable` views may be written (operator outputs); `any_cview`
/// is the read-only kind every input takes.
template <bool Mutable>
class basic_any_view {
public:
    using pointer = std::conditional_t<Mutable, void*, const void*>;

    constexpr basic_any_view() = default;
    /// A C-order view of `sizes` elements of type `type` at `data`.
    constexpr basic_any_view(pointer data, dtype type, const shape& sizes)
        : data_(data), type_(type), shape_(sizes), strides_(c_strides(sizes)) {}
    /// A view with explicit element strides (one per dimension; the rest are ignored).
    constexpr basic_any_view(pointer data, dtype type, const shape& sizes, const std::array<std::int64_t, max_rank>& strides)
        : data_(data), type_(type), shape_(sizes), strides_(strides) {
        for (int i = sizes.rank; i < max_rank; ++i) strides_[static_cast<std::size_t>(i)] = 0;
    }
    /// A mutable view converts to a read-only one. (A template, so that it is never mistaken
    /// for the copy constructor.)
    template <bool M>
        requires(M && !Mutable)
    constexpr basic_any_view(const basic_any_view<M>& v) : data_(v.data()), type_(v.type()), shape_(v.sizes()), strides_(v.strides()) {}

    constexpr pointer data() const { return data_; }
    constexpr dtype type() const { return type_; }
    constexpr const shape& sizes() const { return shape_; }
    constexpr int rank() const { return shape_.rank; }
    constexpr std::int64_t size(int i) const { return shape_[i]; }
    constexpr const std::array<std::int64_t, max_rank>& strides() const { return strides_; }
    constexpr std::int64_t stride(int i) const { return strides_[static_cast<std::size_t>(i)]; }
    constexpr std::int64_t count() const { return shape_.count(); }
    constexpr std::size_t element_size() const { return size_of(type_); }

    /// Address of the element at `coords` (one per dimension).
    template <class C>
    constexpr auto address(const C& coords) const {
        using byte_ptr = std::conditional_t<Mutable, std::byte*, const std::byte*>;
        std::int64_t off = 0;
        for (int i = 0; i < rank(); ++i) off += coords[static_cast<std::size_t>(i)] * strides_[static_cast<std::size_t>(i)];
        return static_cast<byte_ptr>(data_) + off * static_cast<std::int64_t>(element_size());
    }

private:
    pointer data_ = nullptr;
    dtype type_ = dtype::float32;
    shape shape_{};
    std::array<std::int64_t, max_rank> strides_{};
};

/// A writable dtype-erased view (operator outputs).
using any_view = basic_any_view<true>;
/// A read-only dtype-erased view (operator inputs).
using any_cview = basic_any_view<false>;

/// A typed strided view: element type `T` (const for read-only) and extents `Ext`, whose static
/// sizes the operators check at compile time.
template <element T, extents_type Ext>
class tensor_view {
public:
    using element_type = T;
    using extents_type = Ext;
    static constexpr int rank = Ext::rank;

    /// A C-order view of `ext` at `data`.
    constexpr tensor_view(T* data, Ext ext) : data_(data), ext_(ext) {
        std::int64_t n = 1;
        for (int i = rank - 1; i >= 0; --i) {
            strides_[static_cast<std::size_t>(i)] = n;
            n = detail::next_dense_stride(n, ext.extent(i));
        }
    }
    /// A view with explicit element strides.
    constexpr tensor_view(T* data, Ext ext, const std::array<std::int64_t, rank>& strides)
        : data_(data), ext_(ext), strides_(strides) {}
    /// A C-order view with static extents (no sizes needed).
    constexpr explicit tensor_view(T* data) requires Ext::is_static : tensor_view(data, Ext{}) {}

    constexpr T* data() const { return data_; }
    constexpr const Ext& extents() const { return ext_; }
    constexpr std::int64_t extent(int i) const { return ext_.extent(i); }
    constexpr std::int64_t stride(int i) const { return strides_[static_cast<std::size_t>(i)]; }
    constexpr shape sizes() const { return ext_.to_shape(); }

    /// The element at the given coordinates (no bounds check).
    template <class... I>
        requires(sizeof...(I) == rank)
    constexpr T& operator()(I... coords) const {
        const std::int64_t c[] = {static_cast<std::int64_t>(coords)..., 0};
        std::int64_t off = 0;
        for (int i = 0; i < rank; ++i) off += c[i] * strides_[static_cast<std::size_t>(i)];
        return data_[off];
    }

    /// The read-only dtype-erased view of the same elements.
    constexpr any_cview erased() const {
        std::array<std::int64_t, max_rank> st{};
        for (int i = 0; i < rank; ++i) st[static_cast<std::size_t>(i)] = strides_[static_cast<std::size_t>(i)];
        return any_cview(data_, dtype_of<T>, sizes(), st);
    }
    /// The writable dtype-erased view of the same elements.
    constexpr any_view erased_mut() const requires(!std::is_const_v<T>) {
        std::array<std::int64_t, max_rank> st{};
        for (int i = 0; i < rank; ++i) st[static_cast<std::size_t>(i)] = strides_[static_cast<std::size_t>(i)];
        return any_view(data_, dtype_of<T>, sizes(), st);
    }
    constexpr operator any_cview() const { return erased(); }
    constexpr operator any_view() const requires(!std::is_const_v<T>) { return erased_mut(); }

private:
    T* data_;
    Ext ext_;
    std::array<std::int64_t, rank> strides_{};
};

template <element T, extents_type Ext> tensor_view(T*, Ext) -> tensor_view<T, Ext>;

/// True for any `tensor_view<T, Ext>`.
template <class V> concept typed_view = requires { typename V::element_type; typename V::extents_type; } &&
    std::is_same_v<V, tensor_view<typename V::element_type, typename V::extents_type>>;

namespace detail {

/// How far a view's offsets may reach, in bytes: the sum over its dimensions of size times
/// |stride| times the element size. -1 when that sum, or one stride in bytes, exceeds 2^63 - 1.
/// A view whose reach fits has every offset — and every partial sum of offsets the operators
/// form while walking it, a full row's step included — inside 64 bits; check_view refuses the
/// others.
template <bool M>
constexpr std::int64_t byte_reach(const basic_any_view<M>& v) {
    const auto es = static_cast<std::int64_t>(v.element_size());
    std::int64_t reach = 0;
    for (int i = 0; i < v.rank(); ++i) {
        const std::int64_t st = v.stride(i);
        std::int64_t bytes = 0, span = 0;
        if (v.size(i) < 0) return -1;
        if (st == std::numeric_limits<std::int64_t>::min() || !mul_fits(st < 0 ? -st : st, es, bytes)) return -1;
        if (!mul_fits(bytes, v.size(i), span) || !add_fits(reach, span, reach)) return -1;
    }
    return reach;
}

/// Lowest and one-past-highest byte touched by a view (empty when it has no elements). The view
/// must have a byte reach that fits (see byte_reach; check_view makes sure of it).
template <bool M>
constexpr std::pair<std::intptr_t, std::intptr_t> byte_range(const basic_any_view<M>& v) {
    if (v.count() == 0) return {0, 0};
    std::int64_t lo = 0, hi = 0;
    for (int i = 0; i < v.rank(); ++i) {
        const std::int64_t span = (v.size(i) - 1) * v.stride(i);
        (span < 0 ? lo : hi) += span;
    }
    const auto es = static_cast<std::int64_t>(v.element_size());
    // unsigned: an address near the top of the space plus a large reach wraps instead of being
    // undefined (such a view is not real memory; the comparison then only needs to be defined)
    const auto base = reinterpret_cast<std::uintptr_t>(v.data());
    return {static_cast<std::intptr_t>(base + static_cast<std::uintptr_t>(lo * es)),
            static_cast<std::intptr_t>(base + static_cast<std::uintptr_t>((hi + 1) * es))};
}

/// True unless the dimensions nest: in some order, each steps past everything the ones before
/// it reach. Nesting proves the elements have distinct addresses; layouts that interleave
/// without sharing an address (sizes [3,2], strides [2,3]) are not proven. The dimensions' own
/// order, innermost first (every C-order view's), is tried before the order by |stride|.
constexpr bool may_self_overlap(const shape& s, const std::array<std::int64_t, max_rank>& strides) {
    struct dim {
        std::int64_t stride, size; // |stride|
    };
    dim d[max_rank]; // the first n are set
    int n = 0;
    bool unmeasurable = false; // a stride of -2^63 has no magnitude in 64 bits
    for (int i = s.rank - 1; i >= 0; --i) {
        if (s[i] == 0) return false;
        if (s[i] == 1) continue;
        const std::int64_t st = strides[static_cast<std::size_t>(i)];
        unmeasurable |= st == std::numeric_limits<std::int64_t>::min();
        d[n++] = {st < 0 && st != std::numeric_limits<std::int64_t>::min() ? -st : st, s[i]};
    }
    if (unmeasurable) return true;
    auto nested = [&] {
        std::int64_t reach = 0, span = 0; // the largest offset the dimensions so far reach
        for (int i = 0; i < n; ++i)
            if (d[i].stride <= reach || !mul_fits(d[i].stride, d[i].size - 1, span) || !add_fits(reach, span, reach)) return false;
        return true;
    };
    if (nested()) return false;
    auto before = [](const dim& a, const dim& b) { return a.stride < b.stride || (a.stride == b.stride && a.size < b.size); };
    for (int i = 1; i < n; ++i) // insertion sort: at most 8 entries
        for (int j = i; j > 0 && before(d[j], d[j - 1]); --j) std::swap(d[j], d[j - 1]);
    return !nested();
}

/// Whether two coordinates of a view share an address.
enum class overlap : std::uint8_t { none, certain, unproven };

/// Decides self-overlap: nesting strides prove there is none; otherwise views of up to 2^16
/// elements are checked exactly (all offsets sorted) and larger ones stay unproven.
template <class = void>
overlap self_overlap(const shape& s, const std::array<std::int64_t, max_rank>& strides) {
    if (!may_self_overlap(s, strides)) return overlap::none;
    const std::int64_t n = s.count();
    if (n > (std::int64_t{1} << 16)) return overlap::unproven;
    std::vector<std::int64_t> offsets;
    offsets.reserve(static_cast<std::size_t>(n));
    std::array<std::int64_t, max_rank> c{};
    for (std::int64_t k = 0; k < n; ++k) {
        std::int64_t off = 0;
        for (int i = 0; i < s.rank; ++i) off += c[static_cast<std::size_t>(i)] * strides[static_cast<std::size_t>(i)];
        offsets.push_back(off);
        for (int i = s.rank - 1; i >= 0 && ++c[static_cast<std::size_t>(i)] == s[i]; --i) c[static_cast<std::size_t>(i)] = 0;
    }
    std::sort(offsets.begin(), offsets.end());
    return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end() ? overlap::certain : overlap::none;
}

} // namespace detail
} // namespace strix
