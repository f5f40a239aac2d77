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
/// Every strix element type has its DLPack type code (the list in strix/dtype.hpp holds it):
/// kDLInt, kDLUInt and kDLFloat for DirectML's eleven, kDLBfloat (4) for bfloat16, kDLBool (6,
/// 8 bits) for bool, kDLFloat8_e4m3fn (10) and kDLFloat8_e5m2 (12) for the float8 types; the
/// codes are numbers in the tensor, so they are exchanged whichever header declares them (0.6
/// has no kDLBool, 1.0 no float8 codes).
///
/// Host memory is viewed here (kDLCPU, and the CUDA and ROCm pinned or managed host memory a
/// CPU can read); other device memory is refused with an error naming the device type, except
/// kDLVulkan tensors, which <strix/vulkan/dlpack.hpp> views on a strix::vulkan::context. With
/// DLPack 1.x headers, the versioned struct too (managed_versioned, to_dlpack_versioned).

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "strix/ops/common.hpp"
#include "strix/tensor.hpp"

namespace strix::dlpack {

namespace detail {

[[noreturn]] inline void fail(const std::string& what) { throw error(error_code::invalid_argument, "strix::dlpack: " + what); }

inline std::string type_text(DLDataType t) {
    return "code " + std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) + " lanes";
}

/// An address as messages give it: "0x7f3a1c000040".
inline std::string address_text(std::uintptr_t a) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string r;
    do {
        r.insert(r.begin(), digits[a & 0xf]);
        a >>= 4;
    } while (a != 0);
    return "0x" + r;
}

} // namespace detail

/// The DLPack type of a strix element type.
inline DLDataType type_of(dtype t) {
    DLDataType r{};
    r.lanes = 1;
    r.bits = static_cast<std::uint8_t>(size_of(t) * 8);
    // the list of element types (strix/dtype.hpp) holds DLPack's numbers: each is checked
    // against the header where the header declares it
    static_assert(kDLInt == 0 && kDLUInt == 1 && kDLFloat == 2 && kDLBfloat == 4, "DLPack's type codes are the list's");
    static_assert(info_of(dtype::int8).dlpack == kDLInt && info_of(dtype::uint8).dlpack == kDLUInt && info_of(dtype::float32).dlpack == kDLFloat &&
                  info_of(dtype::bfloat16).dlpack == kDLBfloat);
#if defined(DLPACK_MAJOR_VERSION) || (defined(DLPACK_VERSION) && DLPACK_VERSION >= 80) // kDLBool: DLPack 0.8 and later
    static_assert(kDLBool == 6 && info_of(dtype::boolean).dlpack == kDLBool);
#endif
#if defined(DLPACK_MAJOR_VERSION) && (DLPACK_MAJOR_VERSION > 1 || DLPACK_MINOR_VERSION >= 1) // the float8 codes: DLPack 1.1 and later
    static_assert(kDLFloat8_e4m3fn == 10 && info_of(dtype::float8_e4m3fn).dlpack == kDLFloat8_e4m3fn);
    static_assert(kDLFloat8_e5m2 == 12 && info_of(dtype::float8_e5m2).dlpack == kDLFloat8_e5m2);
#endif
    r.code = strix::info_of(t).dlpack;
    return r;
}

/// strix's element type for a DLPack type (the one whose type_of it is: code and bits); throws
/// strix::error for vector types (lanes other than 1) and for types strix has not (complex,
/// opaque handles, the float8 formats other than e4m3fn and e5m2, float6, float4, a bool other
/// than 8 bits).
inline dtype type_of(DLDataType t) {
    if (t.lanes != 1) detail::fail("vector element types are not supported (" + detail::type_text(t) + ")");
    for (const dtype d : all_dtypes) {
        const DLDataType m = type_of(d);
        if (m.code == t.code && m.bits == t.bits) return d;
    }
    detail::fail("no strix element type for the DLPack type (" + detail::type_text(t) + ")");
}

namespace detail {

/// A DLPack tensor's element type, shape and element strides, checked: a known element type,
/// 0 to max_rank dimensions, no negative size (a tensor without strides is in C order).
struct layout {
    dtype type;
    shape sizes;
    std::array<std::int64_t, max_rank> strides;
};
inline layout layout_of(const DLTensor& t) {
    const dtype type = type_of(t.dtype);
    if (t.ndim < 0 || t.ndim > max_rank)
        fail("the tensor has " + std::to_string(t.ndim) + " dimensions; strix takes 0 to " + std::to_string(max_rank));
    if (t.ndim > 0 && !t.shape) fail("the tensor has " + std::to_string(t.ndim) + " dimensions but no shape");
    shape sizes;
    for (int i = 0; i < t.ndim; ++i) {
        if (t.shape[i] < 0) fail("dimension " + std::to_string(i) + " has the negative size " + std::to_string(t.shape[i]));
        sizes.push_back(t.shape[i]);
    }
    std::array<std::int64_t, max_rank> strides = c_strides(sizes);
    if (t.strides)
        for (int i = 0; i < t.ndim; ++i) strides[static_cast<std::size_t>(i)] = t.strides[i];
    return {type, sizes, strides};
}

/// Hands a C-order tensor out as a managed DLPack tensor of type M (DLManagedTensor, or 1.x's
/// DLManagedTensorVersioned): the tensor moves into an owner that also holds the shape and
/// stride arrays, `data_of(tensor)` is the DLTensor's data, and the deleter frees the owner.
template <class M, class T, class Data>
M* hand_out(T&& tensor, Data data_of, DLDevice device) {
    struct holder {
        std::remove_cvref_t<T> tensor;
        std::array<std::int64_t, max_rank> sizes{}, strides{};
        M managed{};
    };
    auto* h = new holder{std::move(tensor)};
    const shape& s = h->tensor.sizes();
    const auto st = c_strides(s);
    for (int i = 0; i < s.rank; ++i) {
        h->sizes[static_cast<std::size_t>(i)] = s[i];
        h->strides[static_cast<std::size_t>(i)] = st[static_cast<std::size_t>(i)];
    }
    DLTensor& d = h->managed.dl_tensor;
    d.data = data_of(h->tensor);
    d.device = device;
    d.ndim = s.rank;
    d.dtype = type_of(h->tensor.type());
    d.shape = h->sizes.data();
    d.strides = h->strides.data();
    d.byte_offset = 0;
    h->managed.manager_ctx = h;
    h->managed.deleter = [](M* self) { delete static_cast<holder*>(self->manager_ctx); };
    return &h->managed;
}

} // namespace detail

/// A DLPack tensor's elements as a strix view, in place (no copy): DLPack's strides count
/// elements as strix's do, and a tensor without strides is in C order. An empty tensor may have
/// no data (DLPack 1.0 asks producers for a null pointer there; its view then has none either).
/// Throws strix::error naming what does not fit: memory the host cannot read (a kDLVulkan
/// tensor: see strix::vulkan::from_dlpack), the element type, more than strix::max_rank
/// dimensions, a negative size, no data for a tensor with elements, a byte_offset that carries
/// the data pointer past the end of the address space, a data pointer not aligned to the
/// element, a reach beyond 64-bit byte offsets, or elements beyond either end of the address
/// space.
inline any_view view(const DLTensor& t) {
    switch (t.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
    case kDLROCMHost:
    case kDLCUDAManaged: break;
    default:
        detail::fail("the tensor lives on device type " + std::to_string(static_cast<int>(t.device.device_type)) +
                     ", which the host cannot read (strix views host memory: kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged; "
                     "kDLVulkan tensors through strix::vulkan::from_dlpack)");
    }
    const auto l = detail::layout_of(t);
    const auto es = static_cast<std::uintptr_t>(size_of(l.type));
    const auto what = [&] { return std::string(name(l.type)) + " tensor " + to_string(l.sizes); };
    // the fields are checked as integers first: an offset pointer that points nowhere, or wraps
    // around, is undefined before anything could read through it
    if (!t.data) {
        if (l.sizes.checked_count() != 0)
            detail::fail("the " + what() + " has no data (a null data pointer); only an empty tensor may have none");
        any_view v(nullptr, l.type, l.sizes, l.strides); // byte_offset locates no element here
        strix::detail::check_view("dlpack", "tensor", v, false);
        return v;
    }
    const auto base = reinterpret_cast<std::uintptr_t>(t.data);
    const std::uintptr_t room = std::numeric_limits<std::uintptr_t>::max() - base; // bytes above the data pointer
    if (t.byte_offset > room)
        detail::fail("byte_offset " + std::to_string(t.byte_offset) + " carries the data pointer " + detail::address_text(base) +
                     " past the end of the address space (at most " + std::to_string(room) + " bytes lie above it)");
    const std::uintptr_t at = base + static_cast<std::uintptr_t>(t.byte_offset);
    if (at % es != 0)
        detail::fail("the data (plus byte_offset " + std::to_string(t.byte_offset) + ") is not aligned to its " + std::to_string(es) + "-byte " +
                     std::string(name(l.type)) + " elements");
    // (the address made from the integer: pointer arithmetic by an offset beyond the object the
    // data points into is undefined even where the sum fits)
    any_view v(reinterpret_cast<std::byte*>(at), l.type, l.sizes, l.strides);
    strix::detail::check_view("dlpack", "tensor", v, false);
    // the reach fits in 64 bits now (check_view); the elements must also lie between the
    // address space's ends, below and above the element at coordinates 0
    if (v.count() > 0) {
        std::int64_t lo = 0, hi = 0;
        for (int i = 0; i < v.rank(); ++i) {
            const std::int64_t span = (v.size(i) - 1) * v.stride(i);
            (span < 0 ? lo : hi) += span;
        }
        const auto below = static_cast<std::uint64_t>(-lo) * es, above = static_cast<std::uint64_t>(hi) * es + (es - 1);
        if (below > at)
            detail::fail("the " + what() + " with strides " + strix::detail::strides_text(l.sizes, l.strides) + " reaches " + std::to_string(below) +
                         " bytes below its element at coordinates 0, which lies at " + detail::address_text(at) +
                         ": before the start of the address space");
        if (above > std::numeric_limits<std::uintptr_t>::max() - at)
            detail::fail("the " + what() + " with strides " + strix::detail::strides_text(l.sizes, l.strides) + " reaches " + std::to_string(above) +
                         " bytes above its element at coordinates 0, which lies at " + detail::address_text(at) +
                         ": past the end of the address space");
    }
    return v;
}

/// Hands a host tensor to a DLPack consumer: the returned tensor owns the elements (moved out of
/// `t`, no copy), C order, on kDLCPU; the consumer calls its deleter once when done (a
/// PyCapsule named "dltensor" carries it into Python).
inline DLManagedTensor* to_dlpack(host_tensor&& t) {
    return detail::hand_out<DLManagedTensor>(std::move(t), [](host_tensor& h) -> void* { return h.data(); }, DLDevice{kDLCPU, 0});
}

/// Owns a DLManagedTensor (or, with DLPack 1.x, a DLManagedTensorVersioned) a producer handed
/// over: calls its deleter once, when destroyed or reset (move-only).
template <class M>
class basic_managed {
public:
    basic_managed() = default;
    explicit basic_managed(M* t) : t_(t) {}
    basic_managed(basic_managed&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
    basic_managed& operator=(basic_managed&& o) noexcept {
        if (this != &o) {
            reset();
            t_ = std::exchange(o.t_, nullptr);
        }
        return *this;
    }
    basic_managed(const basic_managed&) = delete;
    basic_managed& operator=(const basic_managed&) = delete;
    ~basic_managed() { reset(); }

    /// The elements in place (see strix::dlpack::view); valid while this owner lives. A
    /// versioned tensor the producer marked read-only is refused here: take cview().
    [[nodiscard]] any_view view() const {
        if (!t_) detail::fail("no tensor is held");
        if (read_only()) detail::fail("the tensor is marked read-only (DLPACK_FLAG_BITMASK_READ_ONLY): take cview()");
        return strix::dlpack::view(t_->dl_tensor);
    }
    [[nodiscard]] any_cview cview() const {
        if (!t_) detail::fail("no tensor is held");
        return strix::dlpack::view(t_->dl_tensor);
    }
    /// Whether the producer marked the elements read-only (DLPack 1.x; never for 0.x tensors).
    [[nodiscard]] bool read_only() const {
        if constexpr (requires(M m) { m.flags; }) return t_ && (t_->flags & 1u) != 0; // DLPACK_FLAG_BITMASK_READ_ONLY
        else return false;
    }
    [[nodiscard]] M* get() const { return t_; }
    /// Gives the tensor back without calling its deleter.
    M* release() { return std::exchange(t_, nullptr); }
    void reset() {
        if (t_ && t_->deleter) t_->deleter(t_);
        t_ = nullptr;
    }

private:
    M* t_ = nullptr;
};

using managed = basic_managed<DLManagedTensor>;

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
/// DLPack 1.x's versioned exchange (where <dlpack/dlpack.h> is 1.0 or later).
using managed_versioned = basic_managed<DLManagedTensorVersioned>;

/// Hands a host tensor out as a DLManagedTensorVersioned (the header's version, no flags), as
/// to_dlpack does a DLManagedTensor.
inline DLManagedTensorVersioned* to_dlpack_versioned(host_tensor&& t) {
    auto* m = detail::hand_out<DLManagedTensorVersioned>(std::move(t), [](host_tensor& h) -> void* { return h.data(); }, DLDevice{kDLCPU, 0});
    m->version.major = DLPACK_MAJOR_VERSION;
    m->version.minor = DLPACK_MINOR_VERSION;
    m->flags = 0;
    return m;
}
#endif

} // namespace strix::dlpack

namespace strix {

/// A host DLPack tensor's elements as a strix view, in place (strix::dlpack::view; Vulkan
/// tensors: strix::vulkan::from_dlpack).
inline any_view from_dlpack(const DLTensor& t) { return dlpack::view(t); }

} // namespace strix
