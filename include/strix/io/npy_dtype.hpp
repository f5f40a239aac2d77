#pragma once
/// The mapping between strix's element types and the .npy format's descr strings.

#include <string>
#include <string_view>

#include "strix/dtype.hpp"
#include "strix/io/npy_common.hpp"

namespace strix::io::detail {

/// The descr NumPy writes for `t` ("<f8", "|u1", ...; the list's, strix/dtype.hpp).
constexpr std::string_view npy_descr(dtype t) noexcept { return strix::info_of(t).npy; }

/// The element type of a descr string. Accepts the byte orders '<', '=' and none for every
/// type, and also '|' and '>' for one-byte types; throws for anything else.
inline dtype npy_parse_descr(std::string_view descr, std::string_view source) {
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
    for (const dtype t : all_dtypes) {
        if (body != npy_descr(t).substr(1)) continue; // the written descr without its byte order
        if (size_of(t) > 1 && order == '>') npy_fail(source, "big-endian data (" + quoted + ") is not supported");
        if (size_of(t) > 1 && order == '|')
            npy_fail(source, "unsupported dtype " + quoted + " (a multi-byte type needs a byte order)");
        return t;
    }
    npy_fail(source, "unsupported dtype " + quoted);
}

} // namespace strix::io::detail
