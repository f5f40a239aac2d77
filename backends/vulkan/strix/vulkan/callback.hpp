#pragma once
/// detail::callback<R(A...)>: a copyable, type-erased callable, for the few the backend keeps (a
/// stream's recorded calls, the index checks' reports, the staging ring's pending unpacks).
/// std::function would do, but <functional> brings C++20's searchers and <unordered_map> into
/// every file that includes the backend.

#include <type_traits>
#include <utility>

namespace strix::vulkan::detail {

template <class Signature>
class callback;

template <class R, class... A>
class callback<R(A...)> {
public:
    callback() = default;
    template <class F>
        requires(!std::is_same_v<std::decay_t<F>, callback> && std::is_invocable_r_v<R, const std::decay_t<F>&, A...>)
    callback(F&& f) : held_(new holder<std::decay_t<F>>(std::forward<F>(f))) {} // NOLINT: converts as std::function does
    callback(const callback& o) : held_(o.held_ ? o.held_->clone() : nullptr) {}
    callback(callback&& o) noexcept : held_(std::exchange(o.held_, nullptr)) {}
    callback& operator=(callback o) noexcept {
        std::swap(held_, o.held_);
        return *this;
    }
    ~callback() { delete held_; }

    explicit operator bool() const { return held_ != nullptr; }
    /// Calls the held callable (one must be held).
    R operator()(A... a) const { return held_->call(std::forward<A>(a)...); }

private:
    struct base {
        virtual ~base() = default;
        virtual R call(A... a) const = 0;
        [[nodiscard]] virtual base* clone() const = 0;
    };
    template <class F>
    struct holder final : base {
        template <class G>
        explicit holder(G&& g) : f(std::forward<G>(g)) {}
        R call(A... a) const override { return f(std::forward<A>(a)...); }
        [[nodiscard]] base* clone() const override { return new holder(f); }
        F f;
    };
    base* held_ = nullptr;
};

} // namespace strix::vulkan::detail
