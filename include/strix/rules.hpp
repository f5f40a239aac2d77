#pragma once
/// The rule vocabulary shared by every operator: one code per rule, its sentence, a verdict
/// that says which rule broke where, and the two ways a verdict is enforced — `static_assert`
/// at compile time (`static_enforce`) and `strix::error` at run time (`enforce`).

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "strix/dtype.hpp"
#include "strix/error.hpp"
#include "strix/shape.hpp"

namespace strix {

/// Every rule of every operator: (code, sentence). The sentence starts with the operator.
#define STRIX_RULES(X)                                                                                              \
    X(rank_range, "a tensor has 0 to 8 dimensions")                                                                 \
    X(gather_input_rank, "gather: the input must have at least one dimension")                                      \
    X(gather_axis_range, "gather: the axis must lie in [-rank, rank) of the input")                                 \
    X(gather_index_type, "gather: the indices must be int32, int64, uint32 or uint64")                              \
    X(gather_output_rank, "gather: the output would have more than 8 dimensions")                                   \
    X(gather_output_count, "gather: the output would have more than 2^63 - 1 elements")                            \
    X(gather_k_range, "gather: IndexDimensions must lie in [0, rank of the indices]")                               \
    X(gather_k_same_rank, "gather: with IndexDimensions, the input and the indices must have the same rank")        \
    X(gather_k_leading_ones, "gather: with IndexDimensions K, the leading rank-K dimensions of the indices must be 1") \
    X(gather_k_original_rank, "gather: originalRank(input) + IndexDimensions - 1 must not exceed the rank")         \
    X(gather_k_crop, "gather: with IndexDimensions, the dimensions cropped from the front must be 1s of the input before the axis") \
    X(gather_empty_axis, "gather: cannot gather from an axis of size 0")                                            \
    X(gather_dtype, "gather: the output must have the input's element type")                                        \
    X(gather_output_shape, "gather: the output's shape is not the inferred shape")                                  \
    X(join_no_inputs, "join: there must be at least one input")                                                     \
    X(join_rank, "join: every input must have the rank of the first input")                                        \
    X(join_axis_range, "join: the axis must lie in [-rank, rank) of the inputs")                                    \
    X(join_off_axis, "join: the inputs must have equal sizes on every axis but the join axis")                      \
    X(join_output_size, "join: the output's size on the join axis would exceed 2^63 - 1")                         \
    X(join_output_count, "join: the output would have more than 2^63 - 1 elements")                              \
    X(join_dtype, "join: every input and the output must have one element type")                                   \
    X(join_output_shape, "join: the output's shape is not the inferred shape")                                      \
    X(pad_count, "pad: the start and end pads must each have one entry per dimension of the input")                 \
    X(pad_crop, "pad: negative pads must not remove more elements than the axis has")                              \
    X(pad_empty_source, "pad: edge, reflect and symmetric padding need at least one element on a padded axis")     \
    X(pad_output_size, "pad: the output's size on an axis would exceed 2^63 - 1")                                \
    X(pad_output_count, "pad: the output would have more than 2^63 - 1 elements")                                \
    X(pad_value_range, "pad: the constant value does not fit the element type")                                    \
    X(pad_dtype, "pad: the output must have the input's element type")                                             \
    X(pad_output_shape, "pad: the output's shape is not the inferred shape")                                        \
    X(slice_count, "slice: starts and ends must have one entry per sliced axis, as must axes and steps when given") \
    X(slice_axis_range, "slice: an axis must lie in [-rank, rank) of the input")                                  \
    X(slice_axis_twice, "slice: an axis may be sliced only once")                                                 \
    X(slice_step_zero, "slice: a step must not be 0")                                                             \
    X(slice_dtype, "slice: the output must have the input's element type")                                       \
    X(slice_output_shape, "slice: the output's shape is not the inferred shape")                                  \
    X(tile_count, "tile: the repeats must have one entry per dimension of the input")                            \
    X(tile_negative, "tile: a repeat count must not be negative")                                                 \
    X(tile_output_size, "tile: the output's size on an axis would exceed 2^63 - 1")                              \
    X(tile_output_count, "tile: the output would have more than 2^63 - 1 elements")                              \
    X(tile_dtype, "tile: the output must have the input's element type")                                         \
    X(tile_output_shape, "tile: the output's shape is not the inferred shape")                                    \
    X(scatter_input_rank, "scatter: the input must have at least one dimension")                                    \
    X(scatter_axis_range, "scatter: the axis must lie in [-rank, rank) of the input")                               \
    X(scatter_rank, "scatter: the input, the indices and the updates must have the same rank")                      \
    X(scatter_index_type, "scatter: the indices must be int32, int64, uint32 or uint64")                            \
    X(scatter_updates_shape, "scatter: the updates must have the shape of the indices")                             \
    X(scatter_indices_larger, "scatter: the indices must not be larger than the input on an axis other than the scatter axis") \
    X(scatter_empty_axis, "scatter: cannot scatter into an axis of size 0")                                         \
    X(scatter_dtype, "scatter: the updates and the output must have the input's element type")                    \
    X(scatter_output_shape, "scatter: the output must have the input's shape")                                       \
    X(gather_elements_input_rank, "gather-elements: the input must have at least one dimension")                    \
    X(gather_elements_axis_range, "gather-elements: the axis must lie in [-rank, rank) of the input")               \
    X(gather_elements_rank, "gather-elements: the indices must have the input's rank")                             \
    X(gather_elements_indices_larger, "gather-elements: the indices must not be larger than the input on an axis other than the gather axis") \
    X(gather_elements_index_type, "gather-elements: the indices must be int32, int64, uint32 or uint64")            \
    X(gather_elements_empty_axis, "gather-elements: cannot gather from an axis of size 0")                          \
    X(gather_elements_dtype, "gather-elements: the output must have the input's element type")                     \
    X(gather_elements_output_shape, "gather-elements: the output must have the indices' shape")                    \
    X(gather_nd_input_rank, "gather-nd: the input must have at least one dimension")                                \
    X(gather_nd_indices_rank, "gather-nd: the indices must have at least one dimension")                            \
    X(gather_nd_batch_range, "gather-nd: the batch dimensions must be fewer than the ranks of the input and of the indices") \
    X(gather_nd_batch_shape, "gather-nd: the indices' batch dimensions must equal the input's")                    \
    X(gather_nd_tuple_length, "gather-nd: the indices' last dimension must lie in [1, rank of the input - batch dimensions]") \
    X(gather_nd_output_rank, "gather-nd: the output would have more than 8 dimensions")                             \
    X(gather_nd_output_count, "gather-nd: the output would have more than 2^63 - 1 elements")                      \
    X(gather_nd_index_type, "gather-nd: the indices must be int32, int64, uint32 or uint64")                        \
    X(gather_nd_empty_axis, "gather-nd: cannot index an axis of size 0")                                            \
    X(gather_nd_dtype, "gather-nd: the output must have the input's element type")                                 \
    X(gather_nd_output_shape, "gather-nd: the output's shape is not the inferred shape")                            \
    X(gather_nd_static_tuple, "gather-nd: a typed call needs the indices' last extent (the tuple length) to be static") \
    X(split_input_rank, "split: the input must have at least one dimension")                                        \
    X(split_axis_range, "split: the axis must lie in [-rank, rank) of the input")                                   \
    X(split_no_outputs, "split: there must be at least one output")                                                 \
    X(split_negative_size, "split: a size must not be negative")                                                    \
    X(split_sizes_sum, "split: the sizes must add up to the input's size on the axis")                             \
    X(split_rank, "split: every output must have the input's rank")                                                \
    X(split_off_axis, "split: every output must have the input's sizes on every axis but the split axis")          \
    X(split_dtype, "split: every output must have the input's element type")                                       \
    X(scatter_nd_input_rank, "scatter-nd: the input must have at least one dimension")                              \
    X(scatter_nd_indices_rank, "scatter-nd: the indices must have at least one dimension")                          \
    X(scatter_nd_tuple_length, "scatter-nd: the indices' last dimension must lie in [1, rank of the input]")        \
    X(scatter_nd_updates_shape, "scatter-nd: the updates must have the shape indices[:-1] ++ input[k:]")           \
    X(scatter_nd_index_type, "scatter-nd: the indices must be int32, int64, uint32 or uint64")                      \
    X(scatter_nd_empty_axis, "scatter-nd: cannot scatter into an axis of size 0")                                   \
    X(scatter_nd_dtype, "scatter-nd: the updates and the output must have the input's element type")              \
    X(scatter_nd_output_shape, "scatter-nd: the output must have the input's shape")                                \
    X(copy_dtype, "copy: the output must have the input's element type")                                            \
    X(copy_shape, "copy: the output must have the input's shape")

/// One code per rule; `ok` when none broke.
enum class rule : std::uint8_t {
    ok,
#define STRIX_RULE_ENUM(name_, text) name_,
    STRIX_RULES(STRIX_RULE_ENUM)
#undef STRIX_RULE_ENUM
};

/// The sentence of a rule ("gather: the axis must lie in ...").
constexpr std::string_view rule_text(rule r) noexcept {
    switch (r) {
    case rule::ok: return "ok";
#define STRIX_RULE_TEXT(name_, text) \
    case rule::name_: return text;
        STRIX_RULES(STRIX_RULE_TEXT)
#undef STRIX_RULE_TEXT
    }
    return "unknown rule";
}

/// What the number in a verdict is, for the message.
enum class value_kind : std::uint8_t { none, given_axis, rank, size, pad, start_count, end_count, index_dimensions, batch_dimensions, tuple_length, sum, sum_beyond, step, repeat, entry_count };

/// The words before a verdict's number in messages ("rank 3", "axis given as -5").
constexpr std::string_view value_label(value_kind k) noexcept {
    constexpr std::string_view labels[] = {"",          "axis given as", "rank",         "size",          "pad", "start count",
                                           "end count", "IndexDimensions", "batch dimensions", "index tuple length", "sizes add up to",
                                           "sizes add up to more than", "step", "repeat", "entry count"};
    return labels[static_cast<int>(k)];
}

/// The outcome of a rule check: which rule broke (if any), and where. Structural, so a verdict
/// computed from static extents can be a template argument of `static_enforce`.
struct verdict {
    rule code = rule::ok;
    int operand = -1;         ///< index into the operator's operand names, -1 when none applies
    int axis = -1;            ///< the axis concerned, -1 when none applies
    std::int64_t value = 0;   ///< an offending number (an axis as given, a pad, a count)
    value_kind what = value_kind::none; ///< what `value` is; none: no number to report
    [[nodiscard]] constexpr bool ok() const { return code == rule::ok; }
};

/// A verdict plus the inferred output shape (valid when the verdict is ok) and, for operators
/// with an axis whose rule normalises it, that axis made non-negative (-1 otherwise), so that
/// nothing after the rule normalises it again.
struct inferred {
    verdict v{};
    shape out{};
    int axis = -1;
};

/// Fails to compile, with the rule's sentence, when `V` is not ok: write `static_enforce<v>();`.
/// Each rule is one `static_assert`, so the compiler prints exactly the sentence of the rule that
/// broke. A class rather than a function so that the check happens where it is written (a
/// function template's body may be instantiated later, after errors it should have preceded).
template <verdict V>
struct static_enforce {
#define STRIX_RULE_ASSERT(name_, text) static_assert(V.code != rule::name_, "strix::" text);
    STRIX_RULES(STRIX_RULE_ASSERT)
#undef STRIX_RULE_ASSERT
};

/// Checks a typed call with static operand extents at compile time: first the operator's rules
/// (`R.v`), then — only when they hold — that the output extents `OutExt` are the inferred shape
/// (its rank and every static extent); `Mismatch` names the rule, `Operand` the output.
/// A class, like static_enforce, so the check happens where it is written.
template <inferred R, rule Mismatch, int Operand, class OutExt>
struct static_output_check {
    static constexpr bool matches = [] {
        if (R.out.rank != OutExt::rank) return false;
        for (int i = 0; i < OutExt::rank; ++i) // every static extent (dynamic ones are checked at run time)
            if (OutExt::static_extent(i) != dynamic_extent && OutExt::static_extent(i) != R.out[i]) return false;
        return true;
    }();
    static_enforce<R.v> rules_hold;
    static_enforce<verdict{!R.v.ok() || matches ? rule::ok : Mismatch, Operand}> output_matches;
};

/// An operand named in messages: its role ("input", "indices", ...), shape and type.
struct operand_info {
    std::string_view role;
    shape sizes;
    std::optional<dtype> type{}; ///< unknown when only extents were given
    int number = -1;             ///< "input 2": its place among a join's inputs or a split's outputs (-1: none)
};

namespace detail {

/// "input", or "input 2" for an operand with a number (join's inputs, split's outputs).
template <class = void>
std::string role_text(std::string_view role, int number) {
    std::string r(role);
    if (number >= 0) {
        r += ' '; // appended in pieces: GCC 12 at -O3 misreads `" " + std::string` (-Wrestrict)
        r += std::to_string(number);
    }
    return r;
}

/// "input [2,3] float32, indices [4] int64" — the operands of a call, for messages.
template <class = void>
std::string describe(std::span<const operand_info> ops) {
    std::string m;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (i) m += ", "; // (one piece per append: GCC 12 warns, wrongly, of -Wrestrict on chains of +)
        m += role_text(ops[i].role, ops[i].number);
        m += ' ';
        m += to_string(ops[i].sizes);
        if (ops[i].type) {
            m += ' ';
            m += name(*ops[i].type);
        }
    }
    return m;
}

} // namespace detail

/// The operands of a call (at most four: a scatter's), kept for a message that may come later
/// (an index found out of range after the rules passed) and written only then: formatting them
/// on every call cost more than a small operator's whole copy.
struct operand_list {
    std::array<operand_info, 4> ops{};
    std::size_t n = 0;
    operand_list() = default;
    explicit operand_list(std::span<const operand_info> s) : n(std::min(s.size(), ops.size())) { std::copy_n(s.begin(), n, ops.begin()); }
    [[nodiscard]] std::string str() const { return detail::describe(std::span<const operand_info>(ops.data(), n)); }
};

/// Throws `strix::error` when `v` is not ok. The message is the rule's sentence followed by the
/// offending operand, axis or value, every operand's shape and type, and `extra` (", start [..]").
template <class = void>
void enforce(const verdict& v, std::span<const operand_info> operands, std::string_view extra = {}) {
    if (v.ok()) return;
    std::string m = "strix::" + std::string(rule_text(v.code)) + " (";
    std::string sep;
    if (v.operand >= 0 && static_cast<std::size_t>(v.operand) < operands.size()) {
        const auto& o = operands[static_cast<std::size_t>(v.operand)];
        m += "operand " + detail::role_text(o.role, o.number);
        sep = ", ";
    }
    if (v.axis >= 0) {
        m += sep + "axis " + std::to_string(v.axis);
        sep = ", ";
    }
    if (v.what != value_kind::none) {
        m += sep + std::string(value_label(v.what)) + " " + std::to_string(v.value);
        sep = ", ";
    }
    m += sep.empty() ? "" : "; ";
    m += detail::describe(operands);
    m += std::string(extra) + ")";
    throw error(error_code::rule_violation, m);
}

namespace detail {
/// Whether dimensions `first`.. of `s` hold any element (none is zero; no product, which could
/// overflow before a view check has run).
constexpr bool has_elements(const shape& s, int first = 0) {
    for (int i = first; i < s.rank; ++i)
        if (s[i] == 0) return false;
    return true;
}

/// `axis` in [-rank, rank) made non-negative, or -1 when out of range.
constexpr int normalize_axis(std::int64_t axis, int rank) {
    if (axis < -rank || axis >= rank) return -1;
    return static_cast<int>(axis < 0 ? axis + rank : axis);
}
} // namespace detail

} // namespace strix
