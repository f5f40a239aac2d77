#pragma once
/// Run-time shapes (rank 0..8) and extents that are static or dynamic per dimension.

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "strix/error.hpp"

namespace strix {

/// The largest rank a tensor may have.
inline constexpr int max_rank = 8;

/// Marks a dimension of `extents` whose size is known only at run time.
inline constexpr std::int64_t dynamic_extent = -1;

namespace detail {
/// `a + b` into `out`; false when the sum does not fit in int64 (`out` then holds it wrapped).
/// Usable in constant expressions, so the rules compute every size with it.
constexpr bool add_fits(std::int64_t a, std::int64_t b, std::int64_t& out) { return !__builtin_add_overflow(a, b, &out); }
/// `a * b` into `out`; false when the product does not fit in int64.
constexpr bool mul_fits(std::int64_t a, std::int64_t b, std::int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

/// The product of non-negative sizes, or -1 when a size is negative or the product exceeds
/// 2^63 - 1. A zero anywhere makes it 0, however large the others.
template <class Sizes>
constexpr std::int64_t checked_product(const Sizes& sizes, int n) {
    for (int i = 0; i < n; ++i) {
        if (sizes[static_cast<std::size_t>(i)] < 0) return -1;
        if (sizes[static_cast<std::size_t>(i)] == 0) return 0;
    }
    std::int64_t p = 1;
    for (int i = 0; i < n; ++i)
        if (!mul_fits(p, sizes[static_cast<std::size_t>(i)], p)) return -1;
    return p;
}
} // namespace detail

/// A run-time shape: rank 0..8 and one size per dimension. Structural, so it can also be a
/// template argument (that is how static output extents are computed).
struct shape {
    int rank = 0;
    std::array<std::int64_t, max_rank> dims{};

    constexpr shape() = default;
    /// A shape with the listed sizes (at most 8 of them).
    constexpr shape(std::initializer_list<std::int64_t> sizes) : rank(static_cast<int>(sizes.size())) {
        if (sizes.size() > max_rank) throw error(error_code::invalid_argument, "strix: a shape has at most 8 dimensions");
        std::copy(sizes.begin(), sizes.end(), dims.begin());
    }
    constexpr std::int64_t operator[](int i) const { return dims[static_cast<std::size_t>(i)]; }
    constexpr std::int64_t& operator[](int i) { return dims[static_cast<std::size_t>(i)]; }
    /// Number of elements (1 for rank 0). The shape must be one whose count fits in int64
    /// (`checked_count` >= 0): every view and rule the operators accept is.
    [[nodiscard]] constexpr std::int64_t count() const {
        for (int i = 0; i < rank; ++i) // an empty shape's other sizes may multiply beyond 63 bits
            if (dims[static_cast<std::size_t>(i)] == 0) return 0;
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= dims[static_cast<std::size_t>(i)];
        return n;
    }
    /// Number of elements, or -1 when a size is negative or the product overflows 63 bits.
    [[nodiscard]] constexpr std::int64_t checked_count() const { return detail::checked_product(dims, rank); }
    /// Appends one dimension.
    constexpr void push_back(std::int64_t d) { dims[static_cast<std::size_t>(rank++)] = d; }
    friend constexpr bool operator==(const shape& a, const shape& b) {
        if (a.rank != b.rank) return false;
        for (int i = 0; i < a.rank; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
};

/// "[2,3,4]" — how shapes appear in messages.
template <class = void>
std::string to_string(const shape& s) {
    std::string r = "[";
    for (int i = 0; i < s.rank; ++i) {
        if (i) r += ','; // (appending in two steps: GCC 12 warns, wrongly, of -Wrestrict on "," + string)
        r += std::to_string(s[i]);
    }
    return r + "]";
}

/// Sizes of a tensor's dimensions, each either static (a template argument) or dynamic
/// (`dynamic_extent`, stored). Static extents make every size known to the compiler, so the
/// operators can check shapes and compute output extents at compile time.
template <std::int64_t... E>
class extents {
public:
    static constexpr int rank = sizeof...(E);
    static constexpr int rank_dynamic = ((E == dynamic_extent ? 1 : 0) + ... + 0);
    static constexpr bool is_static = rank_dynamic == 0;
    static_assert(rank <= max_rank, "strix::extents: a tensor has at most 8 dimensions");
    static_assert(((E >= 0 || E == dynamic_extent) && ...), "strix::extents: a static extent must not be negative");
    static_assert(detail::checked_product(std::array<std::int64_t, rank + 1>{(E == dynamic_extent ? 1 : E)..., 1}, rank) >= 0,
                  "strix::extents: the static extents multiply to more than 2^63 - 1 elements");

    /// The static size of dimension `i`, or `dynamic_extent`.
    static constexpr std::int64_t static_extent(int i) {
        constexpr std::int64_t s[] = {E..., 0};
        return s[i];
    }

    /// Static extents need no values.
    constexpr extents() requires is_static = default;
    /// One value per dynamic dimension, in order.
    template <class... I>
        requires(sizeof...(I) == rank_dynamic && rank_dynamic > 0 && (std::is_convertible_v<I, std::int64_t> && ...))
    constexpr explicit extents(I... dynamic_sizes) {
        const std::int64_t values[] = {static_cast<std::int64_t>(dynamic_sizes)...};
        int k = 0;
        for (int i = 0; i < rank; ++i) dyn_[static_cast<std::size_t>(i)] = static_extent(i) == dynamic_extent ? values[k++] : static_extent(i);
        for (int i = 0; i < rank; ++i)
            if (dyn_[static_cast<std::size_t>(i)] < 0) throw error(error_code::invalid_argument, "strix::extents: a size must not be negative");
        check_count();
    }
    /// From a run-time shape; throws when the rank or a static size does not match.
    constexpr explicit extents(const shape& s) {
        if (s.rank != rank)
            throw error(error_code::invalid_argument, "strix::extents: shape " + to_string(s) + " has rank " + std::to_string(s.rank) + ", the extents have rank " + std::to_string(rank));
        for (int i = 0; i < rank; ++i) {
            if (static_extent(i) != dynamic_extent && static_extent(i) != s[i])
                throw error(error_code::invalid_argument, "strix::extents: shape " + to_string(s) + " does not match a static extent at axis " + std::to_string(i));
            if (s[i] < 0) throw error(error_code::invalid_argument, "strix::extents: a size must not be negative");
            dyn_[static_cast<std::size_t>(i)] = s[i];
        }
        check_count();
    }

    /// Size of dimension `i`.
    constexpr std::int64_t extent(int i) const { return dyn_[static_cast<std::size_t>(i)]; }
    /// The run-time shape.
    constexpr shape to_shape() const {
        shape s;
        for (int i = 0; i < rank; ++i) s.push_back(extent(i));
        return s;
    }
    template <std::int64_t... F>
    friend constexpr bool operator==(const extents& a, const extents<F...>& b) {
        return a.to_shape() == b.to_shape();
    }

private:
    std::array<std::int64_t, rank> dyn_{E...};

    constexpr void check_count() const {
        if (detail::checked_product(dyn_, rank) < 0)
            throw error(error_code::invalid_argument, "strix::extents: sizes " + to_string(to_shape()) + " multiply to more than 2^63 - 1 elements");
    }
};

namespace detail {
template <int R, class Seq = std::make_integer_sequence<int, R>> struct dextents_impl;
template <int R, int... I> struct dextents_impl<R, std::integer_sequence<int, I...>> {
    using type = extents<(void(I), dynamic_extent)...>;
};
template <shape S, class Seq = std::make_integer_sequence<int, S.rank>> struct static_extents_impl;
template <shape S, int... I> struct static_extents_impl<S, std::integer_sequence<int, I...>> {
    using type = extents<S.dims[I]...>;
};
template <class T> struct is_extents : std::false_type {};
template <std::int64_t... E> struct is_extents<extents<E...>> : std::true_type {};
} // namespace detail

/// Extents of rank `R` whose sizes are all dynamic.
template <int R> using dextents = typename detail::dextents_impl<R>::type;

/// The all-static extents equal to the constant shape `S`.
template <shape S> using static_extents = typename detail::static_extents_impl<S>::type;

/// Any `extents<...>` type.
template <class T> concept extents_type = detail::is_extents<T>::value;

} // namespace strix
