#pragma once
/// host_tensor: an owning, C-order tensor in host memory, of a type known at run time.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "strix/tensor_view.hpp"

namespace strix {

/// Whether host_tensor asks the kernel for transparent huge pages for its elements (Linux, 4 MiB
/// and more): such a tensor starts on a 2 MiB boundary and is marked `MADV_HUGEPAGE`, as NumPy
/// marks its large arrays. Streaming operators are bound by address translation where every
/// 4 KiB page needs its own TLB entry, most of all in a virtual machine, whose page walks are
/// nested: on a 2-core Zen 4 EPYC VM a join of 4 x 32 MiB on one thread took 4.9-5.9 ms on
/// 4 KiB pages and 3.4-3.8 on 2 MiB ones (bench/NOTES.md). The kernel may spend time compacting
/// memory to find a huge page when a tensor is first written; set false before allocating to
/// keep 4 KiB pages (tensors made before keep theirs). Whether huge pages come at all is the
/// system's choice (/sys/kernel/mm/transparent_hugepage/enabled: `always` or `madvise`).
inline std::atomic<bool> host_huge_pages{true};

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
#if defined(__linux__) && defined(MADV_HUGEPAGE)
            huge_ = n >= huge_min_bytes && host_huge_pages.load(std::memory_order_relaxed);
#endif
            void* p = nullptr;
            try {
                p = ::operator new(n, alignment());
            } catch (const std::bad_alloc&) {
                throw out_of_memory(n, type, sizes);
            }
            data_ = static_cast<std::byte*>(p);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
            // a hint: where the system gives no huge pages the tensor keeps small ones
            if (huge_) (void)::madvise(p, n, MADV_HUGEPAGE);
#endif
            std::memset(data_, 0, n);
        }
    }
    host_tensor(host_tensor&& o) noexcept : type_(o.type_), shape_(o.shape_), data_(o.data_), huge_(o.huge_) {
        o.data_ = nullptr;
    }
    host_tensor& operator=(host_tensor&& o) noexcept {
        if (this != &o) {
            release();
            type_ = o.type_;
            shape_ = o.shape_;
            data_ = o.data_;
            huge_ = o.huge_;
            o.data_ = nullptr;
        }
        return *this;
    }
    host_tensor(const host_tensor&) = delete;
    host_tensor& operator=(const host_tensor&) = delete;
    ~host_tensor() { release(); }

    [[nodiscard]] dtype type() const { return type_; }
    [[nodiscard]] const shape& sizes() const { return shape_; }
    [[nodiscard]] std::int64_t count() const { return shape_.count(); }
    [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(count()) * size_of(type_); }
    [[nodiscard]] std::byte* data() { return data_; }
    [[nodiscard]] const std::byte* data() const { return data_; }

    /// A writable view of the whole tensor.
    [[nodiscard]] any_view view() { return {data_, type_, shape_}; }
    /// A read-only view of the whole tensor.
    [[nodiscard]] any_cview view() const { return any_view{const_cast<std::byte*>(data_), type_, shape_}; }
    /// Pointer to the elements as `T`; throws when `T` is not the tensor's type.
    template <element T>
    [[nodiscard]] T* as() {
        if (dtype_of<T> != type_) throw error(error_code::invalid_argument, "strix::host_tensor: the tensor holds " + std::string(name(type_)) + ", not " + std::string(name(dtype_of<T>)));
        return reinterpret_cast<T*>(data_);
    }
    template <element T>
    [[nodiscard]] const T* as() const { return const_cast<host_tensor*>(this)->as<T>(); }

    /// Whether the elements were allocated for huge pages (see host_huge_pages).
    [[nodiscard]] bool huge_pages() const { return huge_; }

private:
    static constexpr std::size_t huge_min_bytes = std::size_t{4} << 20; // NumPy's threshold too
    std::align_val_t alignment() const { return std::align_val_t{huge_ ? std::size_t{2} << 20 : 64}; }
    void release() noexcept {
        if (data_) ::operator delete(data_, alignment());
    }
    dtype type_ = dtype::float32;
    shape shape_{};
    std::byte* data_ = nullptr; // owned (a plain pointer: <memory> would cost every including file its parse)
    bool huge_ = false;         // data_ starts on a 2 MiB boundary, marked for huge pages
};

} // namespace strix
