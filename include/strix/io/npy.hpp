#pragma once
/// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0) for the eleven
/// element types. Reading checks every header field and never allocates more than the file
/// holds; writing produces C-order files that NumPy reads (and, for C-order views, the very
/// bytes `numpy.save` writes).

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

/// The descr NumPy writes for `t` ("<f8", "|u1", ...).
constexpr std::string_view npy_descr(dtype t) noexcept {
    constexpr std::string_view descrs[dtype_count] = {"<f8", "<f4", "<f2", "<i8", "<i4", "<i2",
                                                      "|i1", "<u8", "<u4", "<u2", "|u1"};
    return descrs[static_cast<int>(t)];
}

/// The element type of a descr string. Accepts the byte orders '<', '=' and none for every
/// type, and also '|' and '>' for one-byte types; throws for anything else.
inline dtype npy_parse_descr(std::string_view descr, std::string_view source) {
    struct code_entry {
        std::string_view code;
        dtype type;
    };
    static constexpr code_entry codes[] = {
        {"f8", dtype::float64}, {"f4", dtype::float32}, {"f2", dtype::float16}, {"i8", dtype::int64},
        {"i4", dtype::int32},   {"i2", dtype::int16},   {"i1", dtype::int8},    {"u8", dtype::uint64},
        {"u4", dtype::uint32},  {"u2", dtype::uint16},  {"u1", dtype::uint8},
    };
    std::string quoted(1, '\''); // appended in pieces: GCC 12 at -O3 misreads `"'" + std::string` (-Wrestrict)
    quoted += npy_printable(descr);
    quoted += '\'';
    char order = '=';
    std::string_view body = descr;
    if (!body.empty() && (body[0] == '<' || body[0] == '>' || body[0] == '|' || body[0] == '=')) {
        order = body[0];
        body.remove_prefix(1);
    }
    if (!body.empty() && body[0] == 'O') npy_fail(source, "object arrays are not supported (descr " + quoted + ")");
    for (const auto& c : codes) {
        if (body != c.code) continue;
        if (size_of(c.type) > 1 && order == '>') npy_fail(source, "big-endian data (" + quoted + ") is not supported");
        if (size_of(c.type) > 1 && order == '|')
            npy_fail(source, "unsupported dtype " + quoted + " (a multi-byte type needs a byte order)");
        return c.type;
    }
    npy_fail(source, "unsupported dtype " + quoted);
}

/// What a .npy header declares.
struct npy_header {
    dtype type = dtype::float64;
    shape sizes{};
    bool fortran_order = false;
    std::uint64_t data_bytes = 0; ///< bytes of element data that must follow the header
};

/// Where the header dict lies in a .npy image.
struct npy_preamble {
    int major = 1;
    std::size_t header_offset = 0; ///< first byte of the header dict text
    std::size_t header_len = 0;    ///< its length; the data starts right after it
    [[nodiscard]] std::uint64_t data_offset() const { return std::uint64_t{header_offset} + header_len; }
};

/// Checks the magic string, the version and the header length. `head` holds the first
/// min(12, file_size) bytes of a file of `file_size` bytes.
inline npy_preamble npy_read_preamble(std::span<const std::byte> head, std::uint64_t file_size,
                                      std::string_view source) {
    const auto at = [&](std::size_t i) { return std::to_integer<unsigned>(head[i]); };
    for (std::size_t i = 0; i < npy_magic.size() && i < head.size(); ++i)
        if (at(i) != static_cast<unsigned char>(npy_magic[i])) npy_fail(source, "not a .npy file (bad magic)");
    const std::string holds = "the file holds only " + std::to_string(file_size) + " bytes";
    if (head.size() < 8) npy_fail(source, "truncated header: " + holds);
    npy_preamble p;
    const unsigned major = at(6), minor = at(7);
    if (major < 1 || major > 3 || minor != 0)
        npy_fail(source, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                             " (strix reads versions 1.0, 2.0 and 3.0)");
    p.major = static_cast<int>(major);
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    if (head.size() < 8 + len_bytes) npy_fail(source, "truncated header: " + holds);
    std::uint64_t len = 0;
    for (std::size_t i = 0; i < len_bytes; ++i) len |= std::uint64_t{at(8 + i)} << (8 * i);
    p.header_offset = 8 + len_bytes;
    if (len > file_size - p.header_offset)
        npy_fail(source, "header length " + std::to_string(len) + " goes beyond the end of the file (" + holds + ")");
    p.header_len = static_cast<std::size_t>(len); // fits: it is at most the file size less 12
    return p;
}

/// Parses the header dict, a Python literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
class npy_dict_parser {
public:
    npy_dict_parser(std::string_view text, int major, std::string_view source)
        : s_(text), major_(major), source_(source) {}

    /// The declared type, shape and order, with the byte size checked against overflow.
    npy_header parse() {
        expect('{', "at the start of the header");
        std::string descr;
        bool have_descr = false, have_order = false, have_shape = false;
        npy_header h;
        if (!accept('}')) {
            for (;;) {
                skip_ws();
                std::string key;
                if (!string_literal(key)) malformed("expected a quoted key");
                expect(':', "after the key '" + npy_printable(key) + "'");
                bool* seen = nullptr;
                if (key == "descr") {
                    seen = &have_descr;
                    skip_ws();
                    if (peek('[')) npy_fail(source_, "structured dtypes are not supported (the descr is a list)");
                    if (!string_literal(descr)) malformed("the value of 'descr' must be a string");
                } else if (key == "fortran_order") {
                    seen = &have_order;
                    skip_ws();
                    const std::string_view w = word();
                    if (w == "True") h.fortran_order = true;
                    else if (w == "False") h.fortran_order = false;
                    else malformed("the value of 'fortran_order' must be True or False", pos_ - w.size());
                } else if (key == "shape") {
                    seen = &have_shape;
                    h.sizes = parse_shape();
                } else {
                    npy_fail(source_, "unexpected key '" + npy_printable(key) + "' in the header");
                }
                if (*seen) npy_fail(source_, "duplicate key '" + npy_printable(key) + "' in the header");
                *seen = true;
                if (accept(',')) {
                    if (accept('}')) break;
                    continue;
                }
                if (accept('}')) break;
                malformed("expected ',' or '}' after the value of '" + npy_printable(key) + "'");
            }
        }
        skip_ws();
        if (pos_ != s_.size()) malformed("unexpected text after the header dict");
        if (!have_descr) npy_fail(source_, "missing key 'descr' in the header");
        if (!have_order) npy_fail(source_, "missing key 'fortran_order' in the header");
        if (!have_shape) npy_fail(source_, "missing key 'shape' in the header");
        h.type = npy_parse_descr(descr, source_);

        // The product of the sizes (zeros counted as ones, so every partial product of the
        // strides also fits) times the element size must fit in an int64.
        const auto es = static_cast<std::uint64_t>(size_of(h.type));
        const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / es;
        std::uint64_t product = 1;
        bool empty = false;
        for (int i = 0; i < h.sizes.rank; ++i) {
            const auto d = static_cast<std::uint64_t>(h.sizes[i]);
            empty = empty || d == 0;
            const std::uint64_t m = d == 0 ? 1 : d;
            if (m > limit / product)
                npy_fail(source_, "element count overflow: shape " + npy_shape_text(h.sizes, false) + " of " +
                                      std::string(name(h.type)) + " needs more than 2^63 bytes");
            product *= m;
        }
        h.data_bytes = empty ? 0 : product * es;
        return h;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;
    int major_;
    std::string_view source_;

    [[noreturn]] void malformed(const std::string& what, std::size_t at) const {
        const std::string found =
            at >= s_.size() ? std::string("the end of the header") : "'" + npy_printable(s_.substr(at), 16) + "'";
        npy_fail(source_, "malformed header dict: " + what + ", found " + found);
    }
    [[noreturn]] void malformed(const std::string& what) const { malformed(what, pos_); }

    static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    }
    static bool is_word_char(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
    }
    void skip_ws() {
        while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
    }
    bool peek(char c) {
        skip_ws();
        return pos_ < s_.size() && s_[pos_] == c;
    }
    bool accept(char c) {
        if (!peek(c)) return false;
        ++pos_;
        return true;
    }
    void expect(char c, const std::string& context) {
        if (!accept(c)) malformed(std::string("expected '") + c + "' " + context);
    }
    /// A run of letters, digits, '_' and '.' (a Python name or number); may be empty.
    std::string_view word() {
        const std::size_t start = pos_;
        while (pos_ < s_.size() && is_word_char(s_[pos_])) ++pos_;
        return s_.substr(start, pos_ - start);
    }
    /// A quoted string without escapes ('...' or "...", optionally u-prefixed) into `out`;
    /// false (consuming nothing) when no string starts here.
    bool string_literal(std::string& out) {
        std::size_t p = pos_;
        if (p < s_.size() && (s_[p] == 'u' || s_[p] == 'U')) ++p;
        if (p >= s_.size() || (s_[p] != '\'' && s_[p] != '"')) return false;
        const char quote = s_[p];
        const std::size_t start = p + 1;
        std::size_t end = start;
        while (end < s_.size() && s_[end] != quote) {
            if (s_[end] == '\\' || s_[end] == '\n' || s_[end] == '\r')
                malformed("unsupported character in a string", end);
            ++end;
        }
        if (end >= s_.size()) malformed("unterminated string", p);
        out.assign(s_.substr(start, end - start));
        pos_ = end + 1;
        return true;
    }
    /// One dimension: a non-negative decimal integer (digits, single '_' between digits; a
    /// trailing 'L' in version 1.0 headers, as Python 2 wrote long integers).
    std::int64_t parse_dim() {
        skip_ws();
        const std::size_t start = pos_;
        bool negative = false;
        if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) {
            negative = s_[pos_] == '-';
            ++pos_;
            skip_ws();
        }
        std::string_view w = word();
        if (w.empty()) {
            if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"'))
                npy_fail(source_, "non-integer dimension in 'shape' (a string)");
            malformed("expected a dimension in 'shape'", start);
        }
        const std::string text = npy_printable(s_.substr(start, pos_ - start));
        if (major_ == 1 && w.size() > 1 && (w.back() == 'L' || w.back() == 'l')) w.remove_suffix(1);
        bool valid = w.front() >= '0' && w.front() <= '9' && w.back() != '_';
        for (std::size_t i = 0; valid && i < w.size(); ++i) {
            const char c = w[i];
            valid = (c >= '0' && c <= '9') || (c == '_' && w[i - 1] != '_');
        }
        if (!valid) npy_fail(source_, "non-integer dimension '" + text + "' in 'shape'");
        std::uint64_t v = 0;
        constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        for (const char c : w) {
            if (c == '_') continue;
            const auto digit = static_cast<std::uint64_t>(c - '0');
            if (v > (max - digit) / 10)
                npy_fail(source_, "element count overflow: dimension '" + text + "' does not fit in 64 bits");
            v = v * 10 + digit;
        }
        if (negative && v != 0) npy_fail(source_, "negative dimension '" + text + "' in 'shape'");
        return static_cast<std::int64_t>(v);
    }
    /// A tuple of 0..8 dimensions: (), (5,), (2, 3), (2,3,).
    shape parse_shape() {
        skip_ws();
        if (peek('[')) malformed("the value of 'shape' must be a tuple, not a list");
        expect('(', "to start the value of 'shape'");
        shape s;
        std::int64_t count = 0;
        if (accept(')')) return s;
        for (;;) {
            const std::int64_t d = parse_dim();
            if (count < max_rank) s.push_back(d);
            ++count;
            if (accept(',')) {
                if (accept(')')) break;
                continue;
            }
            if (accept(')')) {
                if (count == 1)
                    npy_fail(source_, "the value of 'shape' must be a tuple: (" + std::to_string(d) +
                                          ") is an integer, a 1-tuple is written (" + std::to_string(d) + ",)");
                break;
            }
            malformed("expected ',' or ')' in 'shape'");
        }
        if (count > max_rank)
            npy_fail(source_, "the shape has " + std::to_string(count) +
                                  " dimensions; strix supports at most 8 dimensions");
        return s;
    }
};

/// Parses the header dict `text` of a file whose data part holds `available` bytes, and checks
/// that they hold the declared array (extra bytes are allowed, as NumPy allows them).
inline npy_header npy_parse_header(std::string_view text, int major, std::uint64_t available, std::string_view source) {
    npy_header h = npy_dict_parser(text, major, source).parse();
    if (h.data_bytes > available)
        npy_fail(source, "truncated: the header declares shape " + npy_shape_text(h.sizes, false) + " of " +
                             std::string(name(h.type)) + " (" + std::to_string(h.data_bytes) + " bytes) but only " +
                             std::to_string(available) + " bytes of data follow");
    if (h.data_bytes > std::numeric_limits<std::size_t>::max())
        npy_fail(source, "the array's " + std::to_string(h.data_bytes) + " bytes do not fit in memory on this platform");
    return h;
}

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

/// The complete header (magic, version, length, dict, padding, '\n') NumPy writes for a
/// C-order array of `v`'s type and shape: version 1.0, or 2.0 when the header needs it.
inline std::string npy_header_bytes(const any_cview& v) {
    std::string dict = "{'descr': '" + std::string(npy_descr(v.type())) +
                       "', 'fortran_order': False, 'shape': " + npy_shape_text(v.sizes(), true) + ", }";
    if (v.rank() > 0) dict.append(npy_growth_digits - std::to_string(v.size(0)).size(), ' ');
    const std::size_t text_len = dict.size() + 1; // with the final '\n'
    std::size_t prefix = 10;
    std::size_t pad = npy_align - (prefix + text_len) % npy_align;
    if (text_len + pad > 0xffff) {
        prefix = 12;
        pad = npy_align - (prefix + text_len) % npy_align;
    }
    const std::size_t len = text_len + pad;
    std::string out(npy_magic.begin(), npy_magic.end());
    out += static_cast<char>(prefix == 10 ? 1 : 2);
    out += '\0';
    for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
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

namespace detail {

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
