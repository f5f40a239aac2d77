#pragma once
/// The CPU executor's per-thread scratch memory (the compact copy of gather-elements' indices).

#include <cstddef>

#include "strix/host_memory.hpp"

namespace strix::cpu {

/// Frees the calling thread's scratch memory: the buffer that holds the compact copy of a large
/// gather-elements' checked indices (strix/ops/gather_elements.hpp), kept between calls because
/// a fresh one costs a page fault per page on every call. It holds a quarter or half of the
/// largest such output the thread has gathered into (1 or 2 bytes per element); it is freed
/// anyway when the thread ends. A thread's first call that could use a buffer larger than the
/// largest it has asked for goes without (those faults would cost a one-off call more than the
/// copy saves); the next such call makes it, and after a release a call makes it again.
inline void release_scratch();

namespace detail {

/// The calling thread's scratch buffer (see release_scratch).
struct scratch_buffer {
    strix::detail::host_block block; ///< on huge pages from 4 MiB (host_huge_pages_enabled)
    std::size_t asked = 0; ///< the most bytes a call has asked for (repeated_scratch)
};

#if defined(_WIN32)
/// Windows's fiber-local storage, declared as <windows.h> declares it (which strix does not
/// include in a header of its own).
extern "C" {
__declspec(dllimport) unsigned long __stdcall FlsAlloc(void(__stdcall* callback)(void*));
__declspec(dllimport) void* __stdcall FlsGetValue(unsigned long index);
__declspec(dllimport) int __stdcall FlsSetValue(unsigned long index, void* data);
}
inline void __stdcall free_thread_scratch(void* p) { delete static_cast<scratch_buffer*>(p); }
#endif

inline scratch_buffer& thread_scratch() {
#if defined(_WIN32)
    // Not a thread_local object: GCC keeps a Windows program's thread_local objects in emulated
    // TLS, and when a thread ends, the callback that frees that storage and the one that runs the
    // objects' destructors come in no fixed order, so a scratch_buffer's destructor could read
    // freed memory and free a garbage pointer (seen under Wine, a thread pool's thread ending).
    // The buffer lives on the heap, found through a fiber-local slot whose callback frees it
    // when the thread ends.
    static const unsigned long slot = FlsAlloc(&free_thread_scratch);
    if (slot != 0xffffffffUL) { // FLS_OUT_OF_INDEXES
        if (auto* s = static_cast<scratch_buffer*>(FlsGetValue(slot))) return *s;
        auto* s = new scratch_buffer;
        if (FlsSetValue(slot, s)) return *s;
        delete s;
    }
    // no slot: one buffer per thread, which a thread that ends does not free (a leak, not a
    // crash) — nothing else is left that is safe
    thread_local scratch_buffer* fallback = new scratch_buffer;
    return *fallback;
#else
    thread_local scratch_buffer s;
    return s;
#endif
}

/// At least `bytes` of the calling thread's scratch memory (contents undefined), grown as
/// needed. One user at a time: nothing the executor runs asks for it again.
inline std::byte* scratch(std::size_t bytes) {
    scratch_buffer& s = thread_scratch();
    if (s.block.size() < bytes) {
        s.block.reset(); // the old buffer goes first: the two never coexist
        s.block = strix::detail::host_block(bytes);
    }
    return s.block.data();
}

/// `bytes` of the calling thread's scratch memory where the thread has asked for as many before
/// (or holds them already), else nullptr, noting the request: a new buffer's pages fault in the
/// first time it is written. Those faults cost a one-off gather-elements more than the copy
/// saves it (on huge pages, see host_huge_pages_enabled, much less so, but a virtual machine's
/// host may have to back fresh memory first, at times for longer than the whole call), which
/// only a repeated caller should risk (bench/NOTES.md, "Figures behind the CPU executor's choices").
inline std::byte* repeated_scratch(std::size_t bytes) {
    scratch_buffer& s = thread_scratch();
    if (s.block.size() < bytes && s.asked < bytes) {
        s.asked = bytes;
        return nullptr;
    }
    return scratch(bytes);
}

} // namespace detail

inline void release_scratch() {
    detail::thread_scratch().block.reset();
}

} // namespace strix::cpu
