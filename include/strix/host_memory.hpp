#pragma once
/// Host memory for elements: what host_tensor and the CPU executor's scratch buffer allocate.

#include <atomic>
#include <cstddef>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace strix {

namespace detail {

/// The process's huge-page setting (host_huge_pages_enabled): one flag behind a function, so
/// that it is read and changed only through the two functions below.
inline std::atomic<bool>& huge_pages_setting() noexcept {
    static std::atomic<bool> on{true};
    return on;
}

} // namespace detail

/// Whether host memory of 4 MiB and more (host_tensor's elements, the CPU executor's scratch
/// buffer) asks the kernel for transparent huge pages (Linux): such a block starts on a 2 MiB
/// boundary and is marked `MADV_HUGEPAGE`, as NumPy marks its large arrays. Streaming operators
/// are bound by address translation where every 4 KiB page needs its own TLB entry, most of all
/// in a virtual machine, whose page walks are nested; on 2 MiB pages both the streaming and the
/// first write of a fresh block ran markedly faster (bench/NOTES.md, "Figures behind the CPU
/// executor's choices").
/// The kernel may spend time compacting memory to find a huge page when a block is first
/// written; set_host_huge_pages(false) before allocating keeps 4 KiB pages (blocks made before
/// keep theirs). On by default. Whether huge pages come at all is the system's choice
/// (/sys/kernel/mm/transparent_hugepage/enabled: `always` or `madvise`).
[[nodiscard]] inline bool host_huge_pages_enabled() noexcept { return detail::huge_pages_setting().load(std::memory_order_relaxed); }

/// Sets whether later host allocations of 4 MiB and more ask for huge pages
/// (host_huge_pages_enabled), for the whole process; returns the setting it replaces, so that a
/// caller can put it back. Safe to call from any thread; allocations already made keep their pages.
inline bool set_host_huge_pages(bool on) noexcept { return detail::huge_pages_setting().exchange(on, std::memory_order_relaxed); }

namespace detail {

/// An owned block of host memory, 64-byte aligned; from huge_min_bytes on (and while
/// host_huge_pages_enabled()) 2 MiB aligned and marked for huge pages. Contents undefined.
class host_block {
public:
    static constexpr std::size_t huge_min_bytes = std::size_t{4} << 20; // NumPy's threshold too

    host_block() = default;
    /// `bytes` bytes (none for 0); throws std::bad_alloc when they cannot be had.
    explicit host_block(std::size_t bytes) {
        if (!bytes) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        huge_ = bytes >= huge_min_bytes && host_huge_pages_enabled();
#endif
        data_ = static_cast<std::byte*>(::operator new(bytes, alignment()));
        size_ = bytes;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        // a hint: where the system gives no huge pages the block keeps small ones
        if (huge_) (void)::madvise(data_, bytes, MADV_HUGEPAGE);
#endif
    }
    host_block(host_block&& o) noexcept : data_(o.data_), size_(o.size_), huge_(o.huge_) {
        o.data_ = nullptr;
        o.size_ = 0;
    }
    host_block& operator=(host_block&& o) noexcept {
        if (this != &o) {
            reset();
            data_ = o.data_;
            size_ = o.size_;
            huge_ = o.huge_;
            o.data_ = nullptr;
            o.size_ = 0;
        }
        return *this;
    }
    host_block(const host_block&) = delete;
    host_block& operator=(const host_block&) = delete;
    ~host_block() { reset(); }

    /// Frees the block (it then holds no bytes).
    void reset() noexcept {
        if (data_) ::operator delete(data_, alignment());
        data_ = nullptr;
        size_ = 0;
        huge_ = false;
    }
    [[nodiscard]] std::byte* data() const { return data_; }
    [[nodiscard]] std::size_t size() const { return size_; }
    /// Whether the block was allocated for huge pages.
    [[nodiscard]] bool huge_pages() const { return huge_; }

private:
    std::align_val_t alignment() const { return std::align_val_t{huge_ ? std::size_t{2} << 20 : 64}; }
    std::byte* data_ = nullptr; // a plain pointer: <memory> would cost every including file its parse
    std::size_t size_ = 0;
    bool huge_ = false; // data_ starts on a 2 MiB boundary, marked for huge pages
};

} // namespace detail
} // namespace strix
