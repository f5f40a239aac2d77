#pragma once
/// The files the .npy writer goes through: a plain descriptor open for writing, fresh scratch
/// names beside a target, and the target a path leads to through its symbolic links.

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "strix/io/npy_common.hpp"

namespace strix::io::detail {

/// A file open for writing through a plain descriptor (POSIX `open`, the Windows C runtime's
/// `_wopen`), closed when destroyed. Each call returns 0 or the `errno` of its failure.
class npy_out_file {
public:
    npy_out_file() = default;
    npy_out_file(const npy_out_file&) = delete;
    npy_out_file& operator=(const npy_out_file&) = delete;
    ~npy_out_file() {
        if (fd_ >= 0) (void)close();
    }

    /// Creates `p`, which must not exist yet (O_EXCL: no file is ever opened twice, and an
    /// existing one is never touched), readable and writable as the umask allows.
    int create_new(const std::filesystem::path& p) {
        errno = 0;
#ifdef _WIN32
        fd_ = ::_wopen(p.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
#else
        fd_ = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
#endif
        return fd_ >= 0 ? 0 : reason();
    }
    /// Opens the existing `p` for writing, neither creating nor truncating it (for devices and
    /// FIFOs, which are written where they are).
    int open_existing(const std::filesystem::path& p) {
        errno = 0;
#ifdef _WIN32
        fd_ = ::_wopen(p.c_str(), _O_WRONLY | _O_BINARY | _O_NOINHERIT);
#else
        fd_ = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
#endif
        return fd_ >= 0 ? 0 : reason();
    }
    /// Writes all `n` bytes at `p`.
    int write(const std::byte* p, std::size_t n) {
        while (n) {
            const std::size_t want = std::min<std::size_t>(n, std::size_t{1} << 30);
            errno = 0;
#ifdef _WIN32
            const auto got = ::_write(fd_, p, static_cast<unsigned>(want));
#else
            const auto got = ::write(fd_, p, want);
#endif
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return got == 0 ? ENOSPC : reason();
            p += got;
            n -= static_cast<std::size_t>(got);
        }
        return 0;
    }
    /// Closes the file (flushing nothing: every write went straight to the descriptor).
    int close() {
        const int fd = fd_;
        fd_ = -1;
        errno = 0;
#ifdef _WIN32
        return ::_close(fd) == 0 ? 0 : reason();
#else
        return ::close(fd) == 0 ? 0 : reason();
#endif
    }
    /// True when the open file is a regular file (a path swapped for one after it was checked).
    [[nodiscard]] bool is_regular() const {
#ifdef _WIN32
        struct _stat64 st {};
        return ::_fstat64(fd_, &st) == 0 && (st.st_mode & _S_IFMT) == _S_IFREG;
#else
        struct stat st {};
        return ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
#endif
    }
    /// The device and inode of the open file (POSIX; zeros elsewhere).
    [[nodiscard]] std::array<std::uint64_t, 2> identity() const {
#ifdef _WIN32
        return {0, 0};
#else
        struct stat st {};
        if (::fstat(fd_, &st) != 0) return {0, 0};
        return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
#endif
    }

private:
    static int reason() { return errno ? errno : EIO; }
    int fd_ = -1;
};

/// True when the file at `p` (not following a final link) is the one of `identity`; on
/// platforms without inode numbers, true whenever `p` exists.
inline bool npy_same_file(const std::filesystem::path& p, const std::array<std::uint64_t, 2>& identity) {
#ifdef _WIN32
    (void)identity;
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::symlink_status(p, ec));
#else
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_dev) == identity[0] &&
           static_cast<std::uint64_t>(st.st_ino) == identity[1];
#endif
}

/// A short name for a file of this process in `dir`: ".strix-" and ten random letters and
/// digits, whatever the length of the name it stands in for.
inline std::filesystem::path npy_scratch_name(const std::filesystem::path& dir) {
    static std::atomic<std::uint64_t> counter{0};
#ifdef _WIN32
    const auto pid = static_cast<std::uint64_t>(::_getpid());
#else
    const auto pid = static_cast<std::uint64_t>(::getpid());
#endif
    const auto ticks = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const auto wall = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::uint64_t x = ticks ^ (wall << 7) ^ (pid << 40) ^ (reinterpret_cast<std::uintptr_t>(&counter) << 12);
    x += 0x9e3779b97f4a7c15ull * (counter.fetch_add(1) + 1); // splitmix64
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string name = ".strix-";
    for (int i = 0; i < 10; ++i, x /= 36) name += alphabet[x % 36];
    return dir.empty() ? std::filesystem::path(name) : dir / name;
}

/// Creates a new file of a fresh scratch name in `dir` and opens it in `file`. Returns its path,
/// or an empty path with `err` set when the directory refuses it.
inline std::filesystem::path npy_create_scratch(const std::filesystem::path& dir, npy_out_file& file, int& err) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        auto candidate = npy_scratch_name(dir);
        err = file.create_new(candidate);
        if (err == 0) return candidate;
        if (err != EEXIST) return {};
    }
    return {};
}

/// The file a path leads to: each symbolic link replaced by its target, relative targets
/// taken from the link's directory. The result may not exist yet (a dangling link).
inline std::filesystem::path npy_follow_links(const std::filesystem::path& path, std::string_view source) {
    namespace fs = std::filesystem;
    fs::path p = path;
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p;
        const fs::path to = fs::read_symlink(p, ec);
        if (ec) npy_fail(source, "cannot read the symbolic link '" + npy_path_text(p) + "': " + ec.message(), error_code::io);
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
    npy_fail(source, "cannot write: too many levels of symbolic links", error_code::io);
}

} // namespace strix::io::detail
