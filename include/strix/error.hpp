#pragma once
/// strix::error — the one exception type of the library.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace strix {

/// What went wrong, coarsely; the message says the rest.
enum class error_code : std::uint8_t {
    rule_violation,     ///< a descriptor or operand breaks an operator's rule
    index_out_of_range, ///< an index value outside its axis under the `error` policy
    bad_view,           ///< a view that cannot be used (overlapping output, null data, ...)
    bad_file,           ///< a malformed, truncated or unsupported file
    io,                 ///< the operating system refused a read or write
    unsupported,        ///< a backend or feature that is not available
    invalid_argument,   ///< a bad argument outside the operator rules (command line, values)
};

/// Thrown by every run-time check of the library. The message names the operator, the operand,
/// the axis and the shapes involved where they apply.
class error : public std::runtime_error {
public:
    error(error_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
    /// The category of the failure.
    [[nodiscard]] error_code code() const noexcept { return code_; }

private:
    error_code code_;
};

} // namespace strix
