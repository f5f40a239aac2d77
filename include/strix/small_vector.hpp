#pragma once
/// A vector whose first N elements live inside it. A small operator's call builds a few plans,
/// run states, row segments and cursors; each std::vector of them was a trip to the heap and
/// back, a cost that shows in a call that copies a few hundred bytes (bench/NOTES.md, "Figures
/// behind the CPU executor's choices").

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace strix::detail {

/// For types that are cheap to default-construct and to move (the first N are default-constructed
/// with the vector; beyond N every element moves to the heap).
template <class T, std::size_t N>
class small_vector {
public:
    small_vector() {} // user-provided: a value-initialized owner does not zero the N slots first
    /// n default-constructed elements.
    explicit small_vector(std::size_t n) {
        if (n > N) many_.resize(n);
        n_ = n;
    }
    // Copies and moves carry the elements in use only: the inline slots past them were never
    // written (a trivial T leaves them indeterminate, and reading those is undefined; GCC 12 at
    // -O3 warned of it where a vector of run states grew past its inline slots).
    small_vector(const small_vector& o) : many_(o.many_), n_(o.n_) {
        for (std::size_t i = 0; i < o.inline_count(); ++i) few_[i] = o.few_[i];
    }
    small_vector(small_vector&& o) noexcept(std::is_nothrow_move_assignable_v<T>) : many_(std::move(o.many_)), n_(o.n_) {
        for (std::size_t i = 0; i < o.inline_count(); ++i) few_[i] = std::move(o.few_[i]);
        o.n_ = 0;
        o.many_.clear();
    }
    small_vector& operator=(const small_vector& o) {
        if (this != &o) {
            many_ = o.many_;
            for (std::size_t i = 0; i < o.inline_count(); ++i) few_[i] = o.few_[i];
            n_ = o.n_;
        }
        return *this;
    }
    small_vector& operator=(small_vector&& o) noexcept(std::is_nothrow_move_assignable_v<T>) {
        if (this != &o) {
            many_ = std::move(o.many_);
            for (std::size_t i = 0; i < o.inline_count(); ++i) few_[i] = std::move(o.few_[i]);
            n_ = o.n_;
            o.n_ = 0;
            o.many_.clear();
        }
        return *this;
    }
    ~small_vector() = default;

    [[nodiscard]] std::size_t size() const { return n_; }
    [[nodiscard]] bool empty() const { return n_ == 0; }
    T* data() { return n_ > N ? many_.data() : few_.data(); }
    const T* data() const { return n_ > N ? many_.data() : few_.data(); }
    T* begin() { return data(); }
    T* end() { return data() + n_; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + n_; }
    T& operator[](std::size_t i) { return data()[i]; }
    const T& operator[](std::size_t i) const { return data()[i]; }
    T& back() { return data()[n_ - 1]; }
    const T& back() const { return data()[n_ - 1]; }

    /// Appends a default-constructed element and returns it, for the caller to fill in place
    /// (the first N slots were constructed with the vector and never used: no temporary).
    T& emplace_back() {
        if (n_ < N) return few_[n_++];
        push_back(T{});
        return back();
    }

    void push_back(T v) {
        if (n_ < N) {
            few_[n_++] = std::move(v);
            return;
        }
        if (n_ == N) {
            many_.reserve(2 * N + 1);
            for (auto& x : few_) many_.push_back(std::move(x));
        }
        many_.push_back(std::move(v));
        ++n_;
    }

private:
    /// How many of the inline slots hold elements (none once they have moved to the heap).
    std::size_t inline_count() const { return n_ <= N ? n_ : 0; }

    std::array<T, N> few_;
    std::vector<T> many_;
    std::size_t n_ = 0;
};

} // namespace strix::detail
