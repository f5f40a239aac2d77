#pragma once
/// Writing .npy images and files: serialize_npy, write_npy_files and write_npy.

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "strix/error.hpp"
#include "strix/io/npy_common.hpp"
#include "strix/io/npy_file.hpp"
#include "strix/io/npy_header.hpp"
#include "strix/tensor_view.hpp"

namespace strix::io {

namespace detail {

/// Checks that `v` can be serialised; `who` starts the messages. Throws `bad_view`.
inline void npy_check_view(const any_cview& v, const std::string& who) {
    if (v.rank() < 0 || v.rank() > max_rank)
        throw error(error_code::bad_view, who + ": the view has rank " + std::to_string(v.rank()) +
                                              "; strix supports at most 8 dimensions");
    const auto es = static_cast<std::uint64_t>(v.element_size());
    if (es == 0) throw error(error_code::bad_view, who + ": the view has an invalid dtype");
    const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / es;
    std::uint64_t product = 1;
    for (int i = 0; i < v.rank(); ++i) {
        if (v.size(i) < 0)
            throw error(error_code::bad_view, who + ": the view has a negative size in shape " + to_string(v.sizes()));
        const auto m = std::max<std::uint64_t>(static_cast<std::uint64_t>(v.size(i)), 1);
        if (m > limit / product)
            throw error(error_code::bad_view, who + ": the view's shape " + to_string(v.sizes()) + " overflows 64 bits");
        product *= m;
    }
    if (v.count() > 0 && v.data() == nullptr) throw error(error_code::bad_view, who + ": the view has no data");
}

/// Copies elements of `ES` bytes of the non-empty view `v` in C order of its shape, through a
/// buffer, to `sink(const std::byte*, std::size_t)`.
template <std::size_t ES, class Sink>
void npy_emit_strided(const any_cview& v, Sink& sink) {
    const auto* base = static_cast<const std::byte*>(v.data());
    const int r = v.rank();
    if (r == 0) {
        sink(base, ES);
        return;
    }
    const std::int64_t inner = v.size(r - 1);
    const std::int64_t inner_step = v.stride(r - 1) * static_cast<std::int64_t>(ES);
    const std::int64_t rows = v.count() / inner;
    constexpr std::size_t buffer_bytes = std::size_t{1} << 16;
    std::vector<std::byte> buffer(buffer_bytes);
    std::size_t fill = 0;
    std::array<std::int64_t, max_rank> idx{};
    std::int64_t row_offset = 0; // in elements
    for (std::int64_t row = 0; row < rows; ++row) {
        const std::byte* p = base + row_offset * static_cast<std::int64_t>(ES);
        for (std::int64_t j = 0; j < inner; ++j, p += inner_step) {
            if (fill == buffer_bytes) {
                sink(buffer.data(), fill);
                fill = 0;
            }
            std::memcpy(buffer.data() + fill, p, ES);
            fill += ES;
        }
        for (int d = r - 2; d >= 0; --d) { // next row: odometer over the outer dimensions
            const auto du = static_cast<std::size_t>(d);
            row_offset += v.stride(d);
            if (++idx[du] < v.size(d)) break;
            row_offset -= v.stride(d) * v.size(d);
            idx[du] = 0;
        }
    }
    if (fill) sink(buffer.data(), fill);
}

/// Emits the elements of the checked view `v` in C order to `sink`: in one block when `v` is
/// C-contiguous, else element by element.
template <class Sink>
void npy_emit_data(const any_cview& v, Sink& sink) {
    if (v.count() == 0) return;
    bool contiguous = true;
    std::int64_t expected = 1;
    for (int i = v.rank() - 1; i >= 0; --i) {
        if (v.size(i) != 1 && v.stride(i) != expected) contiguous = false;
        expected *= v.size(i);
    }
    if (contiguous) {
        const auto* p = static_cast<const std::byte*>(v.data());
        std::size_t left = static_cast<std::size_t>(v.count()) * v.element_size();
        constexpr std::size_t chunk = std::size_t{1} << 30;
        while (left) {
            const std::size_t n = std::min(left, chunk);
            sink(p, n);
            p += n;
            left -= n;
        }
        return;
    }
    switch (v.element_size()) {
    case 1: npy_emit_strided<1>(v, sink); break;
    case 2: npy_emit_strided<2>(v, sink); break;
    case 4: npy_emit_strided<4>(v, sink); break;
    default: npy_emit_strided<8>(v, sink); break;
    }
}

/// One output of `npy_write_files`, from its check to its place.
struct npy_pending_file {
    std::string source;                      ///< the path as given, for messages
    std::filesystem::path target;            ///< the path with its links followed
    bool in_place = false;                   ///< a device or FIFO: written where it is
    std::filesystem::path temp;              ///< the written temporary file (regular targets)
    std::array<std::uint64_t, 2> temp_id{};  ///< its identity
    std::filesystem::path backup;            ///< a second name of the file it replaces, if any
    bool placed = false;                     ///< renamed onto `target`
};

/// Writes the header and elements of `v` to `file`; `where` names the file in messages.
inline void npy_write_image(npy_out_file& file, const any_cview& v, const std::string& source, const std::string& where) {
    auto sink = [&](const std::byte* p, std::size_t n) {
        if (const int err = file.write(p, n))
            npy_fail(source, "write to " + where + " failed: " + npy_os_reason(err), error_code::io);
    };
    const std::string header = npy_header_bytes(v);
    sink(reinterpret_cast<const std::byte*>(header.data()), header.size());
    npy_emit_data(v, sink);
    if (const int err = file.close()) npy_fail(source, "write to " + where + " failed: " + npy_os_reason(err), error_code::io);
}

/// Gives a second name beside it to the file at `f.target`, so that it can be put back after
/// `f.temp` has replaced it: a hard link where the file system has them, else a copy. Leaves
/// `f.backup` empty when there is no file to keep; throws when one cannot be kept.
inline void npy_keep_old_file(npy_pending_file& f) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(f.target, ec))) return;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path name = npy_scratch_name(f.target.parent_path());
        fs::create_hard_link(f.target, name, ec);
        if (!ec) {
            f.backup = name;
            return;
        }
        if (ec == std::errc::no_such_file_or_directory) return; // gone meanwhile: nothing to keep
        if (ec != std::errc::file_exists) break;
    }
    npy_out_file copy; // no hard links here: an exclusive new file, then the old bytes into it
    int err = 0;
    const fs::path name = npy_create_scratch(f.target.parent_path(), copy, err);
    if (!name.empty()) {
        (void)copy.close();
        fs::copy_file(f.target, name, fs::copy_options::overwrite_existing, ec);
        if (!ec) {
            f.backup = name;
            return;
        }
        std::error_code ignored;
        fs::remove(name, ignored);
    } else {
        ec = std::error_code(err, std::generic_category());
    }
    npy_fail(f.source, "cannot keep the existing file while the other outputs are written: " + ec.message(), error_code::io);
}

/// Undoes `npy_write_files` as far as it went: each placed file gives way to the one it
/// replaced (or is removed, when there was none and it is still ours), and every temporary and
/// every second name of a file still in place is removed. Never throws.
inline void npy_roll_back(std::vector<npy_pending_file>& files) noexcept {
    namespace fs = std::filesystem;
    for (auto it = files.rbegin(); it != files.rend(); ++it) {
        std::error_code ignored;
        if (it->placed) {
            if (!it->backup.empty()) {
                fs::rename(it->backup, it->target, ignored); // when this fails, the kept file stays
            } else if (npy_same_file(it->target, it->temp_id)) {
                fs::remove(it->target, ignored);
            }
            it->placed = false;
        } else {
            if (!it->temp.empty()) fs::remove(it->temp, ignored);
            if (!it->backup.empty()) fs::remove(it->backup, ignored); // the old file is still in place
        }
    }
}

/// Writes every view to its path, or none; see `strix::io::write_npy_files`.
inline void npy_write_files(std::span<const std::filesystem::path> paths, std::span<const any_cview> views) {
    namespace fs = std::filesystem;
    if (paths.size() != views.size())
        throw error(error_code::invalid_argument, "strix::io::write_npy_files: " + std::to_string(paths.size()) + " paths for " +
                                                      std::to_string(views.size()) + " views");
    std::vector<npy_pending_file> files(paths.size());
    // Check everything first: nothing is created before every output is known to be writable.
    for (std::size_t k = 0; k < paths.size(); ++k) {
        auto& f = files[k];
        f.source = npy_path_text(paths[k]);
        npy_check_view(views[k], f.source + ": cannot write");
        if (paths[k].filename().empty()) npy_fail(f.source, "cannot write: the path names no file", error_code::invalid_argument);
        f.target = npy_follow_links(paths[k], f.source);
        std::error_code ec;
        const auto st = fs::status(f.target, ec);
        switch (st.type()) {
        case fs::file_type::directory: npy_fail(f.source, "cannot replace a directory with a file", error_code::io);
        case fs::file_type::character:
        case fs::file_type::block:
        case fs::file_type::fifo: f.in_place = true; break;
        case fs::file_type::socket:
        case fs::file_type::unknown:
            npy_fail(f.source, "cannot write: not a regular file, a device or a FIFO", error_code::io);
        default: break; // a regular file, none yet, or a path whose problem the writing will name
        }
    }
    try {
        // The regular outputs go to temporary files beside their targets.
        for (auto& f : files) {
            if (f.in_place) continue;
            npy_out_file out;
            int err = 0;
            const fs::path dir = f.target.parent_path();
            f.temp = npy_create_scratch(dir, out, err);
            if (f.temp.empty())
                npy_fail(f.source, "cannot create a temporary file in '" + (dir.empty() ? std::string(".") : npy_path_text(dir)) +
                                       "': " + npy_os_reason(err), error_code::io);
            f.temp_id = out.identity();
            npy_write_image(out, views[static_cast<std::size_t>(&f - files.data())], f.source, "'" + npy_path_text(f.temp) + "'");
        }
        // A rename can still fail (a file of another user in a sticky directory, a file system
        // gone read-only): when something else is still to be done after it, each file about
        // to be replaced is kept under a second name until the end.
        if (files.size() > 1)
            for (auto& f : files)
                if (!f.in_place) npy_keep_old_file(f);
        for (auto& f : files) {
            if (f.in_place) continue;
            std::error_code ec;
            fs::rename(f.temp, f.target, ec);
            if (ec) npy_fail(f.source, "cannot replace the file: " + ec.message(), error_code::io);
            f.placed = true;
        }
        // Devices and FIFOs last, written where they are, as `cp` and `numpy.save` write them.
        for (auto& f : files) {
            if (!f.in_place) continue;
            npy_out_file out;
            if (const int err = out.open_existing(f.target)) npy_fail(f.source, "cannot open for writing: " + npy_os_reason(err), error_code::io);
            if (out.is_regular()) npy_fail(f.source, "cannot write: the device or FIFO was replaced by a regular file", error_code::io);
            npy_write_image(out, views[static_cast<std::size_t>(&f - files.data())], f.source, "the device or FIFO");
        }
    } catch (...) {
        npy_roll_back(files);
        throw;
    }
    for (auto& f : files) {
        std::error_code ignored;
        if (!f.backup.empty()) fs::remove(f.backup, ignored);
    }
}

} // namespace detail

/// The C-order .npy image (version 1.0; 2.0 only when the header needs it) of any strided view
/// (any strides, negative and zero included). Throws `strix::error` (`bad_view`) when the view
/// has a negative size, an overflowing shape or no data.
inline std::vector<std::byte> serialize_npy(any_cview v) {
    detail::npy_check_view(v, "strix::io::serialize_npy");
    const std::string header = detail::npy_header_bytes(v);
    std::vector<std::byte> out;
    out.reserve(header.size() + static_cast<std::size_t>(v.count()) * v.element_size());
    const auto* h = reinterpret_cast<const std::byte*>(header.data());
    out.insert(out.end(), h, h + header.size());
    auto sink = [&out](const std::byte* p, std::size_t n) { out.insert(out.end(), p, p + n); };
    detail::npy_emit_data(v, sink);
    return out;
}

/// Writes each view to its path as a C-order .npy file (as `serialize_npy`), every one or none.
/// A path that is a symbolic link is followed: the link stays, its target gets the data. A
/// device or FIFO is written where it is. Any other path gets a temporary file of a short,
/// fresh name (".strix-" and ten letters or digits) beside it, created exclusively, and the
/// temporaries are renamed onto their paths only when all of them were written; so concurrent
/// writers of one path never mix their data (each path ends as one writer's whole file), and no
/// file this function did not create is ever removed. On failure every temporary file is removed
/// and every path that existed keeps its contents (a file replaced before a later step failed is
/// put back); devices and FIFOs, written last, can only be written or not. Throws `strix::error`:
/// `bad_view` for a view `serialize_npy` rejects, `invalid_argument` when a path names no file,
/// `io` when the operating system refuses to create, write or rename a file, or when a path is a
/// directory or a socket.
inline void write_npy_files(std::span<const std::filesystem::path> paths, std::span<const any_cview> views) {
    detail::npy_write_files(paths, views);
}

/// Writes `v` to `path` as a C-order .npy file: `write_npy_files` for one file. On failure
/// `path` is neither created nor changed and no temporary file is left.
inline void write_npy(const std::filesystem::path& path, any_cview v) {
    detail::npy_write_files(std::span<const std::filesystem::path>(&path, 1), std::span<const any_cview>(&v, 1));
}

} // namespace strix::io
