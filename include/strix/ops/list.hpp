#pragma once
/// Every operator, once: its header, and its line in STRIX_OPERATORS — X(name, form), the name
/// of its descriptor without `_desc` and its op_form. Everything that goes over the operators
/// goes over this list: the Vulkan backend's recording and convenience calls, the tool's table,
/// the fuzzer, the per-operator tests (test/meson.build reads the list) and the check of
/// docs/OPERATORS.md. Adding an operator: its header (which ends with STRIX_CPU_CALLS, and whose
/// op_traits name its settings for the tool), its tests (test/ops/<name>_test.cpp) and its two
/// lines here (the include and the X line).

#include "strix/ops/gather.hpp"
#include "strix/ops/gather_elements.hpp"
#include "strix/ops/gather_nd.hpp"
#include "strix/ops/join.hpp"
#include "strix/ops/pad.hpp"
#include "strix/ops/scatter.hpp"
#include "strix/ops/scatter_nd.hpp"
#include "strix/ops/slice.hpp"
#include "strix/ops/split.hpp"
#include "strix/ops/tile.hpp"

// clang-format off
#define STRIX_OPERATORS(X)       \
    X(gather, indexed)           \
    X(gather_elements, indexed)  \
    X(gather_nd, indexed)        \
    X(join, joining)             \
    X(split, splitting)          \
    X(pad, unary)                \
    X(slice, unary)              \
    X(tile, unary)               \
    X(scatter, update)           \
    X(scatter_nd, update)
// clang-format on

namespace strix {

/// The descriptors of every operator, in the list's order, as a type list: `with_operators(f)`
/// calls `f.template operator()<Desc>()` for each.
template <class F>
constexpr void with_operators(F&& f) {
#define STRIX_VISIT_OPERATOR(op, form) f.template operator()<op##_desc>();
    STRIX_OPERATORS(STRIX_VISIT_OPERATOR)
#undef STRIX_VISIT_OPERATOR
}

/// The number of operators.
inline constexpr int operator_count = [] {
    int n = 0;
    with_operators([&]<class>() { ++n; });
    return n;
}();

} // namespace strix
