#pragma once
// The few operating-system calls the Vulkan tests need (the harness's own environment
// variables, file descriptors, temporary files), on POSIX and Windows. strix's own switches are
// set through vk::context_options, never through the environment.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

namespace strix_test {

/// The harness's own environment variable `name` (STRIX_TEST_REDUCED, say): its value, or nullptr.
inline const char* harness_env(const char* name) { return std::getenv(name); }

#if defined(_WIN32)
inline int dup_fd(int fd) { return ::_dup(fd); }
inline int dup2_fd(int from, int to) { return ::_dup2(from, to); }
inline int close_fd(int fd) { return ::_close(fd); }
inline int file_fd(std::FILE* f) { return ::_fileno(f); }
#else
inline int dup_fd(int fd) { return ::dup(fd); }
inline int dup2_fd(int from, int to) { return ::dup2(from, to); }
inline int close_fd(int fd) { return ::close(fd); }
inline int file_fd(std::FILE* f) { return ::fileno(f); }
#endif

/// A path for a temporary file that no other run of the tests uses at the same time.
inline std::filesystem::path temp_file(const std::string& stem) {
    static std::atomic<unsigned> counter{0};
    const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
    return std::filesystem::temp_directory_path() /
           (stem + "_" + std::to_string(ticks) + "_" + std::to_string(counter++));
}

} // namespace strix_test
