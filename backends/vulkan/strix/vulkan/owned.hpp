#pragma once
/// An owning pointer for the backend's headers: std::unique_ptr would do, but <memory> in C++20
/// brings shared_ptr, atomic waits and the ranges' uninitialized algorithms into every file that
/// includes <strix/vulkan.hpp> (a measurable part of each such file's compile time:
/// bench/NOTES.md, "Figures behind the transfers"), for the one thing the backend needs: a
/// move-only owner of a heap object.

#include <utility>

namespace strix::vulkan::detail {

/// Owns one `T` made with `new` (make_owned): deletes it when destroyed, moves, never copies.
template <class T>
class owned {
public:
    owned() noexcept = default;
    explicit owned(T* p) noexcept : p_(p) {}
    owned(owned&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    owned& operator=(owned&& o) noexcept {
        if (this != &o) {
            delete p_;
            p_ = std::exchange(o.p_, nullptr);
        }
        return *this;
    }
    owned(const owned&) = delete;
    owned& operator=(const owned&) = delete;
    ~owned() { delete p_; }

    T* operator->() const noexcept { return p_; }
    T& operator*() const noexcept { return *p_; }
    [[nodiscard]] T* get() const noexcept { return p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }

private:
    T* p_ = nullptr;
};

/// A new `T` made from `args`, owned.
template <class T, class... A>
owned<T> make_owned(A&&... args) {
    return owned<T>(new T(std::forward<A>(args)...));
}

} // namespace strix::vulkan::detail
