#pragma once
/// The plan that scatter and scatter-nd lower to, beside the move plan: every update (in C order
/// of the updates' shape) combines into one output element, at the sum of one output term per
/// updates dimension plus a target offset that an index decides — read and resolved where it
/// lies (scatter), or looked up in a table of offsets resolved beforehand (scatter-nd).
/// Backend-neutral: the CPU executor (strix/cpu/update.hpp) runs it, and the Vulkan encoder reads
/// the same fields.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "strix/dtype.hpp"
#include "strix/modes.hpp"
#include "strix/shape.hpp"

namespace strix::plan {

/// One dimension of the updates. Strides are in bytes, except `key` into a host table (below).
struct update_dim {
    std::int64_t size = 1;
    std::int64_t dst = 0; ///< output stride (0 where the index decides the coordinate)
    std::int64_t src = 0; ///< the updates' stride
    std::int64_t key = 0; ///< stride of the target's key: bytes in `index`, or entries of `table`
};

/// Updates combined into an output, one after another in C order of the updates. Not collapsed:
/// that order is what duplicate targets see.
struct update_plan {
    int rank = 0;
    std::array<update_dim, max_rank> dims{};
    dtype type = dtype::float32;    ///< element type of the updates and the output
    const std::byte* src = nullptr; ///< the updates' base
    std::byte* dst = nullptr;       ///< the output base the terms add to
    /// The output's byte span relative to `dst`, [span_lo, span_hi): every target lies in it
    /// (its strides may be negative).
    std::int64_t span_lo = 0, span_hi = 0;
    std::vector<std::int64_t> table; ///< target offset per key, resolved (host executors)
    /// else: the index at `index + key` (bytes), resolved into [0, axis_size) (negatives from the
    /// end; clamped under `clamp`) and multiplied by axis_stride, is the target offset
    const std::byte* index = nullptr;
    dtype index_type = dtype::int64;
    std::int64_t axis_size = 0;
    std::int64_t axis_stride = 0;
    bool clamp = false;
    scatter_reduction reduction = scatter_reduction::none;
    /// The caller promised that no two updates share a target (scatter_desc::unique_indices):
    /// their order does not matter, and executors may apply them in any order and in parallel
    bool unique = false;

    /// Number of updates.
    [[nodiscard]] std::int64_t count() const {
        for (int i = 0; i < rank; ++i)
            if (dims[static_cast<std::size_t>(i)].size == 0) return 0;
        std::int64_t n = 1;
        for (int i = 0; i < rank; ++i) n *= dims[static_cast<std::size_t>(i)].size;
        return n;
    }
};

} // namespace strix::plan
