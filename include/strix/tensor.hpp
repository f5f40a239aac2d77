#pragma once
/// host_tensor: an owning, C-order tensor in host memory, of a type known at run time.

#include <cstring>
#include <memory>
#include <new>

#include "strix/tensor_view.hpp"

namespace strix {

/// Owns a C-order block of host memory with a dtype and a shape. Zero-initialised.
class host_tensor {
public:
    host_tensor() = default;
    /// A zeroed tensor of `type` and `sizes`.
    host_tensor(dtype type, const shape& sizes) : type_(type), shape_(sizes) {
        const std::int64_t count = sizes.checked_count();
        if (count < 0 || count > INT64_MAX / 16)
            throw error(error_code::invalid_argument, "strix::host_tensor: shape " + to_string(sizes) + " has a negative size or too many elements");
        const auto n = static_cast<std::size_t>(count) * size_of(type);
        if (n) {
            data_.reset(static_cast<std::byte*>(::operator new(n, std::align_val_t{64})));
            std::memset(data_.get(), 0, n);
        }
    }

    [[nodiscard]] dtype type() const { return type_; }
    [[nodiscard]] const shape& sizes() const { return shape_; }
    [[nodiscard]] std::int64_t count() const { return shape_.count(); }
    [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(count()) * size_of(type_); }
    [[nodiscard]] std::byte* data() { return data_.get(); }
    [[nodiscard]] const std::byte* data() const { return data_.get(); }

    /// A writable view of the whole tensor.
    [[nodiscard]] any_view view() { return {data_.get(), type_, shape_}; }
    /// A read-only view of the whole tensor.
    [[nodiscard]] any_cview view() const { return any_view{const_cast<std::byte*>(data_.get()), type_, shape_}; }
    /// Pointer to the elements as `T`; throws when `T` is not the tensor's type.
    template <element T>
    [[nodiscard]] T* as() {
        if (dtype_of<T> != type_) throw error(error_code::invalid_argument, "strix::host_tensor: the tensor holds " + std::string(name(type_)) + ", not " + std::string(name(dtype_of<T>)));
        return reinterpret_cast<T*>(data_.get());
    }
    template <element T>
    [[nodiscard]] const T* as() const { return const_cast<host_tensor*>(this)->as<T>(); }

private:
    struct deleter {
        void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{64}); }
    };
    dtype type_ = dtype::float32;
    shape shape_{};
    std::unique_ptr<std::byte, deleter> data_;
};

} // namespace strix
