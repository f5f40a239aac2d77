#pragma once
/// Reading .npy images and files: parse_npy and read_npy.

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "strix/io/npy_common.hpp"
#include "strix/io/npy_header.hpp"

namespace strix::io {

namespace detail {

/// Reads exactly `n` bytes at `offset` of `in` into `out`; throws `io` when that fails.
inline void npy_read_exact(std::ifstream& in, std::uint64_t offset, std::byte* out, std::uint64_t n,
                           std::string_view source) {
    errno = 0;
    in.seekg(static_cast<std::streamoff>(offset));
    constexpr std::uint64_t chunk = std::uint64_t{1} << 30;
    std::uint64_t done = 0;
    while (in && done < n) {
        const std::uint64_t want = std::min(n - done, chunk);
        in.read(reinterpret_cast<char*>(out + done), static_cast<std::streamsize>(want));
        done += static_cast<std::uint64_t>(in.gcount());
    }
    if (done < n)
        npy_fail(source, "read failed after " + std::to_string(done) + " of " + std::to_string(n) + " bytes at offset " +
                             std::to_string(offset) + " (" + npy_os_reason(errno) + ")", error_code::io);
}

/// The storage for the array a header declares; when memory runs out, the
/// `strix::out_of_memory` names `source` (the file) instead of the tensor class.
inline host_tensor npy_allocate(const npy_header& h, const std::string& source) {
    try {
        return host_tensor(h.type, h.sizes);
    } catch (const out_of_memory& e) {
        throw out_of_memory(e.bytes(), e.type(), e.sizes(), source.c_str());
    }
}

} // namespace detail

/// Parses a whole .npy image held in memory; `source` names it in messages (a path).
/// Throws `strix::error` (`bad_file`) naming `source` and the problem for a malformed,
/// truncated or unsupported image; allocates only after checking the image holds the data, and
/// throws `strix::out_of_memory` naming `source` when that allocation fails.
inline npy_array parse_npy(std::span<const std::byte> bytes, std::string_view source) {
    const std::size_t head_len = std::min<std::size_t>(bytes.size(), 12);
    const auto pre = detail::npy_read_preamble(bytes.first(head_len), bytes.size(), source);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + pre.header_offset), pre.header_len);
    const auto off = static_cast<std::size_t>(pre.data_offset());
    const auto h = detail::npy_parse_header(text, pre.major, bytes.size() - off, source);
    npy_array a{detail::npy_allocate(h, std::string(source)), h.fortran_order};
    if (h.data_bytes) std::memcpy(a.storage.data(), bytes.data() + off, static_cast<std::size_t>(h.data_bytes));
    return a;
}

/// Reads the .npy file at `path`. Throws `strix::error`: `io` when the file cannot be opened
/// or read, `bad_file` (as `parse_npy`) when its contents are malformed, truncated or
/// unsupported. Checks the file size before allocating; throws `strix::out_of_memory` naming
/// the file when the memory for its array cannot be had.
inline npy_array read_npy(const std::filesystem::path& path) {
    const std::string source = detail::npy_path_text(path);
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) detail::npy_fail(source, "cannot read: " + ec.message(), error_code::io);
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) detail::npy_fail(source, "cannot open for reading: " + detail::npy_os_reason(errno), error_code::io);
    std::array<std::byte, 12> head{};
    const std::size_t head_len = static_cast<std::size_t>(std::min<std::uintmax_t>(size, head.size()));
    detail::npy_read_exact(in, 0, head.data(), head_len, source);
    const auto pre = detail::npy_read_preamble(std::span<const std::byte>(head.data(), head_len), size, source);
    std::string text;
    try {
        text.resize(pre.header_len);
    } catch (const std::bad_alloc&) {
        detail::npy_fail(source, "cannot allocate " + std::to_string(pre.header_len) + " bytes for the header");
    }
    detail::npy_read_exact(in, pre.header_offset, reinterpret_cast<std::byte*>(text.data()), text.size(), source);
    const auto h = detail::npy_parse_header(text, pre.major, size - pre.data_offset(), source);
    npy_array a{detail::npy_allocate(h, source), h.fortran_order};
    detail::npy_read_exact(in, pre.data_offset(), a.storage.data(), h.data_bytes, source);
    return a;
}

} // namespace strix::io
