#pragma once
/// Convenience calls on host views: upload, run on the device, download. Same signatures as the
/// CPU operators with the context first, into the caller's outputs or (like the CPU's allocating
/// calls) into new C-order host tensors; results are bit-identical to the CPU's. On an index
/// out of range under index_policy::error the output is not written.

#include "strix/vulkan/stream.hpp"

namespace strix::vulkan {

/// Gathers on the device; see strix::gather.
void gather(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d = {});

/// Joins on the device; see strix::join.
void join(context& ctx, std::span<const any_cview> inputs, const any_view& output, const join_desc& d = {});

/// Pads on the device; see strix::pad.
void pad(context& ctx, const any_cview& input, const any_view& output, const pad_desc& d);

/// Scatters on the device; see strix::scatter (in place when `output` is `input`).
void scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                    const scatter_desc& d = {});

/// Gathers elements on the device; see strix::gather_elements.
void gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output,
                            const gather_elements_desc& d = {});

/// Gathers index tuples on the device; see strix::gather_nd.
void gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_nd_desc& d = {});

/// Splits on the device into `outputs`; see strix::split.
void split(context& ctx, const any_cview& input, std::span<const any_view> outputs, const split_desc& d = {});

/// Scatters index tuples on the device; see strix::scatter_nd (in place when `output` is `input`).
void scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                       const scatter_nd_desc& d = {});

namespace detail {

/// New zeroed C-order host tensors of `type` and `shapes`, handed to `run` as views for it to
/// write: the allocating calls' common part, once their checks have given the outputs' shapes.
template <class Run>
std::vector<host_tensor> into_new(dtype type, std::span<const shape> shapes, Run&& run) {
    std::vector<host_tensor> out;
    std::vector<any_view> views;
    out.reserve(shapes.size());
    for (const auto& s : shapes) out.emplace_back(type, s);
    for (auto& t : out) views.push_back(t.view());
    run(std::span<const any_view>(views));
    return out;
}

/// One output of `type` and shape `s`; see into_new above.
template <class Run>
host_tensor into_new(dtype type, const shape& s, Run&& run) {
    host_tensor out(type, s);
    run(out.view());
    return out;
}

/// What the CPU's allocating gather, gather-elements and gather-nd check before they allocate:
/// the shape rule's verdict in `r` (with `extra` after the operands), then `types`, over the
/// input and the indices alone. Returns the inferred output shape.
shape checked_output(const inferred& r, const verdict& types, const any_cview& input, const any_cview& indices,
                            std::string_view extra = {});

} // namespace detail

// Allocating calls. Each checks what the CPU's allocating call checks before it allocates (so a
// mistake gets the CPU's message), takes the output shape from the operator's rule, and runs the
// call above on new host tensors.

/// Gathers into a new host tensor of the inferred shape; see strix::gather.
host_tensor gather(context& ctx, const any_cview& input, const any_cview& indices, const gather_desc& d = {});

/// Gathers elements into a new host tensor of the indices' shape; see strix::gather_elements.
host_tensor gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const gather_elements_desc& d = {});

/// Gathers index tuples into a new host tensor of the inferred shape; see strix::gather_nd.
host_tensor gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const gather_nd_desc& d = {});

/// Joins into a new host tensor; see strix::join.
host_tensor join(context& ctx, std::span<const any_cview> inputs, const join_desc& d = {});

/// Splits into new host tensors of the given sizes on the axis, in order; see strix::split.
std::vector<host_tensor> split(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const split_desc& d = {});

/// Pads into a new host tensor; see strix::pad.
host_tensor pad(context& ctx, const any_cview& input, const pad_desc& d);

/// Scatters into a new host tensor (a copy of `input` with the updates written); see
/// strix::scatter. The output has the input's shape (the rule scatter_output_shape), so the
/// call above checks everything, as the CPU's does.
host_tensor scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_desc& d = {});

/// Scatters index tuples into a new host tensor (a copy of `input` with the updates applied);
/// see strix::scatter_nd. The output has the input's shape (scatter_nd_output_shape).
host_tensor scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates,
                              const scatter_nd_desc& d = {});

} // namespace strix::vulkan
