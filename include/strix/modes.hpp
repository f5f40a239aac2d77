#pragma once
/// The operators' mode enums, at the bottom of the layers: the plans (strix/plan) carry them,
/// the operators (strix/ops) take them in their descriptions, the executors read them.

#include <cstdint>

namespace strix {

/// What an index outside its axis does.
enum class index_policy : std::uint8_t {
    error, ///< throw strix::error naming the position and the value; nothing is written
    clamp, ///< clamp into [0, n-1] (DirectML's behaviour); the result is defined but meaningless
};

/// How pad fills the new elements (numpy.pad's names). A padded dimension of a move plan carries
/// its mode as its fold; move.comp's PAD_* constants are these values.
enum class pad_mode : std::uint8_t {
    constant,  ///< the fill value
    edge,      ///< repeat the edge element
    reflect,   ///< mirror without repeating the edge: [1,2,3] -> 3,2,[1,2,3],2,1
    symmetric, ///< mirror repeating the edge:       [1,2,3] -> 2,1,[1,2,3],3,2
    wrap,      ///< repeat the input periodically:    [1,2,3] -> 2,3,[1,2,3],1,2
};

/// How an update combines with the element it targets (ONNX ScatterElements/ScatterND
/// `reduction`). Updates apply one by one in C order of the updates: with `none` the last one
/// to reach an element wins; the others fold every update into it.
enum class scatter_reduction : std::uint8_t {
    none, ///< assign
    add,  ///< add (integers wrap around; float16 adds in float32 and rounds once; a NaN sum is
          ///< the default quiet NaN, whatever the operands' payloads)
    mul,  ///< multiply (likewise)
    min,  ///< the smaller: a NaN stays once there; -0 is smaller than +0
    max,  ///< the larger: a NaN stays once there; +0 is larger than -0
};

} // namespace strix
