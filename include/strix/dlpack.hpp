#pragma once
/// DLPack exchange: borrow a tensor another framework made (PyTorch, NumPy, JAX, CuPy, TVM hand
/// tensors to each other this way) as a strix view, no copy, and hand a strix host tensor to
/// another framework, ownership included. Needs <dlpack/dlpack.h> (Debian: libdlpack-dev; the
/// fields used here are DLPack 0.6's, unchanged since).
///
///   DLManagedTensor* in = ...;                      // from a producer
///   strix::dlpack::managed owner(in);               // calls in->deleter once, when it goes
///   strix::any_view x = owner.view();               // the elements in place
///   DLManagedTensor* out = strix::dlpack::to_dlpack(strix::gather(x, idx)); // for a consumer
///
/// Only host memory is viewed (kDLCPU, and the CUDA and ROCm pinned or managed host memory a
/// CPU can read); device memory is refused with an error naming the device type.

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "strix/ops/common.hpp"
#include "strix/tensor.hpp"

namespace strix::dlpack {

namespace detail {

[[noreturn]] inline void fail(const std::string& what) { throw error(error_code::invalid_argument, "strix::dlpack: " + what); }

inline std::string type_text(DLDataType t) {
    return "code " + std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) + " lanes";
}

} // namespace detail

/// The DLPack type of a strix element type.
inline DLDataType type_of(dtype t) {
    DLDataType r{};
    r.lanes = 1;
    r.bits = static_cast<std::uint8_t>(size_of(t) * 8);
    switch (t) {
    case dtype::float16:
    case dtype::float32:
    case dtype::float64: r.code = kDLFloat; break;
    case dtype::int8:
    case dtype::int16:
    case dtype::int32:
    case dtype::int64: r.code = kDLInt; break;
    default: r.code = kDLUInt; break;
    }
    return r;
}

/// strix's element type for a DLPack type (the one whose type_of it is); throws strix::error
/// for vector types (lanes other than 1) and for types strix has not (bfloat16, complex, bool,
/// opaque handles).
inline dtype type_of(DLDataType t) {
    if (t.lanes != 1) detail::fail("vector element types are not supported (" + detail::type_text(t) + ")");
    for (const dtype d : all_dtypes) {
        const DLDataType m = type_of(d);
        if (m.code == t.code && m.bits == t.bits) return d;
    }
    detail::fail("no strix element type for the DLPack type (" + detail::type_text(t) + ")");
}

/// A DLPack tensor's elements as a strix view, in place (no copy): DLPack's strides count
/// elements as strix's do, and a tensor without strides is in C order. Throws strix::error
/// naming what does not fit: memory the host cannot read, the element type, more than
/// strix::max_rank dimensions, a negative size, a data pointer not aligned to the element, or a
/// reach beyond 64-bit byte offsets.
inline any_view view(const DLTensor& t) {
    switch (t.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
    case kDLROCMHost:
    case kDLCUDAManaged: break;
    default:
        detail::fail("the tensor lives on device type " + std::to_string(static_cast<int>(t.device.device_type)) +
                     ", which the host cannot read (strix views host memory: kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged)");
    }
    const dtype type = type_of(t.dtype);
    if (t.ndim < 0 || t.ndim > max_rank)
        detail::fail("the tensor has " + std::to_string(t.ndim) + " dimensions; strix takes 0 to " + std::to_string(max_rank));
    if (t.ndim > 0 && !t.shape) detail::fail("the tensor has " + std::to_string(t.ndim) + " dimensions but no shape");
    shape sizes;
    for (int i = 0; i < t.ndim; ++i) {
        if (t.shape[i] < 0) detail::fail("dimension " + std::to_string(i) + " has the negative size " + std::to_string(t.shape[i]));
        sizes.push_back(t.shape[i]);
    }
    std::array<std::int64_t, max_rank> strides = c_strides(sizes);
    if (t.strides)
        for (int i = 0; i < t.ndim; ++i) strides[static_cast<std::size_t>(i)] = t.strides[i];
    auto* data = static_cast<std::byte*>(t.data) + t.byte_offset;
    if (reinterpret_cast<std::uintptr_t>(data) % size_of(type) != 0)
        detail::fail("the data (plus byte_offset " + std::to_string(t.byte_offset) + ") is not aligned to its " + std::to_string(size_of(type)) +
                     "-byte " + std::string(name(type)) + " elements");
    any_view v(data, type, sizes, strides);
    strix::detail::check_view("dlpack", "tensor", v, false);
    return v;
}

/// Hands a host tensor to a DLPack consumer: the returned tensor owns the elements (moved out of
/// `t`, no copy), C order, on kDLCPU; the consumer calls its deleter once when done (a
/// PyCapsule named "dltensor" carries it into Python).
inline DLManagedTensor* to_dlpack(host_tensor&& t) {
    struct holder {
        host_tensor tensor;
        std::array<std::int64_t, max_rank> sizes{}, strides{};
        DLManagedTensor managed{};
    };
    auto* h = new holder{std::move(t)};
    const int rank = h->tensor.sizes().rank;
    const auto st = c_strides(h->tensor.sizes());
    for (int i = 0; i < rank; ++i) {
        h->sizes[static_cast<std::size_t>(i)] = h->tensor.sizes()[i];
        h->strides[static_cast<std::size_t>(i)] = st[static_cast<std::size_t>(i)];
    }
    DLTensor& d = h->managed.dl_tensor;
    d.data = h->tensor.data();
    d.device = DLDevice{kDLCPU, 0};
    d.ndim = rank;
    d.dtype = type_of(h->tensor.type());
    d.shape = h->sizes.data();
    d.strides = h->strides.data();
    d.byte_offset = 0;
    h->managed.manager_ctx = h;
    h->managed.deleter = [](DLManagedTensor* self) { delete static_cast<holder*>(self->manager_ctx); };
    return &h->managed;
}

/// Owns a DLManagedTensor a producer handed over: calls its deleter once, when destroyed or
/// reset (move-only).
class managed {
public:
    managed() = default;
    explicit managed(DLManagedTensor* t) : t_(t) {}
    managed(managed&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
    managed& operator=(managed&& o) noexcept {
        if (this != &o) {
            reset();
            t_ = std::exchange(o.t_, nullptr);
        }
        return *this;
    }
    managed(const managed&) = delete;
    managed& operator=(const managed&) = delete;
    ~managed() { reset(); }

    /// The elements in place (see strix::dlpack::view); valid while this owner lives.
    [[nodiscard]] any_view view() const {
        if (!t_) detail::fail("no tensor is held");
        return strix::dlpack::view(t_->dl_tensor);
    }
    [[nodiscard]] DLManagedTensor* get() const { return t_; }
    /// Gives the tensor back without calling its deleter.
    DLManagedTensor* release() { return std::exchange(t_, nullptr); }
    void reset() {
        if (t_ && t_->deleter) t_->deleter(t_);
        t_ = nullptr;
    }

private:
    DLManagedTensor* t_ = nullptr;
};

} // namespace strix::dlpack
