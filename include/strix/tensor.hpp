#pragma once
/// host_tensor: an owning, C-order tensor in host memory, of a type known at run time.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>

#include "strix/host_memory.hpp"
#include "strix/tensor_view.hpp"

namespace strix {

/// Thrown when the memory for a tensor's elements cannot be had. A `std::bad_alloc`, so code
/// that handles running out of memory keeps working, that also tells how many bytes were asked
/// for, for which element type and shape; `what()` says all of it. Building it allocates nothing.
class out_of_memory : public std::bad_alloc {
public:
    /// `who` starts the message (a function or a file name); it is cut to fit.
    out_of_memory(std::size_t bytes, dtype type, const shape& sizes, const char* who = "strix::host_tensor") noexcept
        : bytes_(bytes), type_(type), shape_(sizes) {
        char dims[8 * 21 + 3] = "[";
        std::size_t at = 1;
        for (int i = 0; i < sizes.rank && i < max_rank && at + 1 < sizeof dims; ++i) {
            const int n = std::snprintf(dims + at, sizeof dims - at, i ? ",%lld" : "%lld", static_cast<long long>(sizes[i]));
            if (n > 0) at = std::min(at + static_cast<std::size_t>(n), sizeof dims - 1);
        }
        std::snprintf(dims + at, sizeof dims - at, "]");
        const std::string_view type_name = name(type);
        std::snprintf(message_, sizeof message_, "%.200s: cannot allocate %llu bytes (shape %s, %.*s)", who ? who : "strix",
                      static_cast<unsigned long long>(bytes), dims, static_cast<int>(type_name.size()), type_name.data());
    }
    [[nodiscard]] const char* what() const noexcept override { return message_; }
    /// The number of bytes that could not be allocated.
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
    /// The element type of the tensor that could not be made.
    [[nodiscard]] dtype type() const noexcept { return type_; }
    /// The shape of the tensor that could not be made.
    [[nodiscard]] const shape& sizes() const noexcept { return shape_; }

private:
    std::size_t bytes_;
    dtype type_;
    shape shape_;
    char message_[480];
};

/// Owns a C-order block of host memory with a dtype and a shape. Zero-initialised.
class host_tensor {
public:
    host_tensor() = default;
    /// A zeroed tensor of `type` and `sizes`. Throws `strix::error` for a negative or overflowing
    /// shape and `strix::out_of_memory` when the memory cannot be allocated.
    host_tensor(dtype type, const shape& sizes) : type_(type), shape_(sizes) {
        const std::int64_t count = sizes.checked_count();
        if (count < 0 || count > INT64_MAX / 16)
            throw error(error_code::invalid_argument, "strix::host_tensor: shape " + to_string(sizes) + " has a negative size or too many elements");
        const auto n = static_cast<std::size_t>(count) * size_of(type);
        if (n) {
            try {
                block_ = detail::host_block(n);
            } catch (const std::bad_alloc&) {
                throw out_of_memory(n, type, sizes);
            }
            std::memset(block_.data(), 0, n);
        }
    }
    host_tensor(host_tensor&& o) noexcept = default;
    host_tensor& operator=(host_tensor&& o) noexcept = default;
    host_tensor(const host_tensor&) = delete;
    host_tensor& operator=(const host_tensor&) = delete;

    [[nodiscard]] dtype type() const { return type_; }
    [[nodiscard]] const shape& sizes() const { return shape_; }
    [[nodiscard]] std::int64_t count() const { return shape_.count(); }
    [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(count()) * size_of(type_); }
    [[nodiscard]] std::byte* data() { return block_.data(); }
    [[nodiscard]] const std::byte* data() const { return block_.data(); }

    /// A writable view of the whole tensor.
    [[nodiscard]] any_view view() { return {block_.data(), type_, shape_}; }
    /// A read-only view of the whole tensor.
    [[nodiscard]] any_cview view() const { return any_view{block_.data(), type_, shape_}; }
    /// Pointer to the elements as `T`; throws when `T` is not the tensor's type.
    template <element T>
    [[nodiscard]] T* as() {
        if (dtype_of<T> != type_) throw error(error_code::invalid_argument, "strix::host_tensor: the tensor holds " + std::string(name(type_)) + ", not " + std::string(name(dtype_of<T>)));
        return reinterpret_cast<T*>(block_.data());
    }
    template <element T>
    [[nodiscard]] const T* as() const { return const_cast<host_tensor*>(this)->as<T>(); }

    /// Whether the elements were allocated for huge pages (see host_huge_pages_enabled).
    [[nodiscard]] bool huge_pages() const { return block_.huge_pages(); }

private:
    dtype type_ = dtype::float32;
    shape shape_{};
    detail::host_block block_; // the elements
};

} // namespace strix
