#pragma once
/// The mapping between strix's element types and the .npy format's descr strings.

#include <string>
#include <string_view>

#include "strix/dtype.hpp"
#include "strix/io/npy_common.hpp"

namespace strix::io::detail {

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

} // namespace strix::io::detail
