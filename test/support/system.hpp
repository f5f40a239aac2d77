#pragma once
// The few operating-system calls the Vulkan tests need (environment variables, file descriptors,
// temporary files), on POSIX and Windows.

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

#if defined(_WIN32)
inline void set_env(const char* name, const char* value) { ::_putenv_s(name, value ? value : ""); } // "" removes it
inline int dup_fd(int fd) { return ::_dup(fd); }
inline int dup2_fd(int from, int to) { return ::_dup2(from, to); }
inline int close_fd(int fd) { return ::_close(fd); }
inline int file_fd(std::FILE* f) { return ::_fileno(f); }
#else
inline void set_env(const char* name, const char* value) {
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
}
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

/// Sets (or, with nullptr, clears) an environment variable for one scope, then restores it.
class env_scope {
public:
    env_scope(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        set_env(name, value);
    }
    ~env_scope() { set_env(name_, old_ ? old_->c_str() : nullptr); }
    env_scope(const env_scope&) = delete;
    env_scope& operator=(const env_scope&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

} // namespace strix_test
