#pragma once
/// What the .npy reader and writer share (strix/io/npy.hpp): the array a file is read into, the
/// format's constants, and the text of error messages.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "strix/error.hpp"
#include "strix/tensor.hpp"

namespace strix::io {

static_assert(std::endian::native == std::endian::little,
              "strix::io: .npy support is written for little-endian hosts");

namespace detail {

/// Element strides of an array of shape `s` stored in C or Fortran order.
inline std::array<std::int64_t, max_rank> npy_strides(const shape& s, bool fortran_order) {
    return fortran_order ? f_strides(s) : c_strides(s);
}

} // namespace detail

/// An array read from a .npy file: the elements stored in the file's order.
struct npy_array {
    /// The elements as the file stores them; `storage.sizes()` is the array's shape.
    host_tensor storage;
    /// True when the file stores the elements in Fortran (column-major) order.
    bool fortran_order = false;

    /// A read-only view of the array (Fortran strides when `fortran_order`, else C strides).
    [[nodiscard]] any_cview view() const {
        return {storage.data(), storage.type(), storage.sizes(), detail::npy_strides(storage.sizes(), fortran_order)};
    }
    /// A writable view of the array (Fortran strides when `fortran_order`, else C strides).
    [[nodiscard]] any_view view() {
        return {storage.data(), storage.type(), storage.sizes(), detail::npy_strides(storage.sizes(), fortran_order)};
    }
};

namespace detail {

inline constexpr std::array<char, 6> npy_magic = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
inline constexpr std::size_t npy_align = 64;        // the data starts at a multiple of this
inline constexpr std::size_t npy_growth_digits = 21; // NumPy's spare room for a growing axis

/// Throws `strix::error` with the message "<source>: <problem>".
[[noreturn]] inline void npy_fail(std::string_view source, const std::string& problem,
                                  error_code code = error_code::bad_file) {
    throw error(code, std::string(source) + ": " + problem);
}

/// The path as UTF-8 text, for messages (never throws on unusual characters).
inline std::string npy_path_text(const std::filesystem::path& p) {
    const auto u = p.u8string();
    std::string r;
    r.reserve(u.size());
    for (const char8_t c : u) r += static_cast<char>(c);
    return r;
}

/// `s` (at most `max` characters of it) with non-printable bytes written as \xNN, for messages.
inline std::string npy_printable(std::string_view s, std::size_t max = 40) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string r;
    for (std::size_t i = 0; i < s.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            r += static_cast<char>(c);
        } else {
            r += "\\x";
            r += hex[c >> 4];
            r += hex[c & 0xf];
        }
    }
    if (s.size() > max) r += "...";
    return r;
}

/// A shape as a Python tuple: "(2, 3)", "(5,)", "()" when `numpy_style`, else "(2,3)", "(5,)".
inline std::string npy_shape_text(const shape& s, bool numpy_style) {
    std::string r = "(";
    for (int i = 0; i < s.rank; ++i) {
        if (i) r += numpy_style ? ", " : ",";
        r += std::to_string(s[i]);
    }
    if (s.rank == 1) r += ",";
    return r + ")";
}

/// The operating system's reason for the last failure (`errno`), for messages.
inline std::string npy_os_reason(int err) {
    return err ? std::generic_category().message(err) : std::string("the operating system gave no reason");
}

} // namespace detail

} // namespace strix::io
