#pragma once
/// The .npy header: checking the preamble (magic, version, length), parsing the header dict,
/// and formatting the header NumPy writes.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "strix/io/npy_common.hpp"
#include "strix/io/npy_dtype.hpp"

namespace strix::io::detail {

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

} // namespace strix::io::detail
