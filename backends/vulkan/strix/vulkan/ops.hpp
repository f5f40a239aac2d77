#pragma once
/// Convenience calls on host views: upload, run on the device, download. Same signatures as the
/// CPU operators with the context first, into the caller's outputs or (like the CPU's allocating
/// calls) into new C-order host tensors; results are bit-identical to the CPU's. On an index
/// out of range under index_policy::error the output is not written.

#include "strix/vulkan/stream.hpp"

namespace strix::vulkan {

/// Gathers on the device; see strix::gather.
inline void gather(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d = {}) {
    strix::detail::check_gather(input, indices, output, d);
    const auto in = upload(ctx, input);
    const auto idx = upload(ctx, indices);
    const device_tensor out(ctx, output.type(), output.sizes());
    {
        stream s(ctx);
        s.gather(in.view(), idx.view(), out.view(), d);
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, out, output);
}

/// Joins on the device; see strix::join.
inline void join(context& ctx, std::span<const any_cview> inputs, const any_view& output, const join_desc& d = {}) {
    strix::detail::check_join(inputs, output, d);
    std::vector<device_tensor> ins;
    std::vector<device_view> views;
    for (const auto& v : inputs) ins.push_back(upload(ctx, v));
    for (const auto& t : ins) views.push_back(t.view());
    const device_tensor out(ctx, output.type(), output.sizes());
    {
        stream s(ctx);
        s.join(views, out.view(), d);
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, out, output);
}

/// Pads on the device; see strix::pad.
inline void pad(context& ctx, const any_cview& input, const any_view& output, const pad_desc& d) {
    strix::detail::check_pad(input, &output, d);
    const auto in = upload(ctx, input);
    const device_tensor out(ctx, output.type(), output.sizes());
    {
        stream s(ctx);
        s.pad(in.view(), out.view(), d);
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, out, output);
}

/// Scatters on the device; see strix::scatter (in place when `output` is `input`).
inline void scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                    const scatter_desc& d = {}) {
    strix::detail::check_scatter(input, indices, updates, output, d);
    const auto in = upload(ctx, input);
    const auto idx = upload(ctx, indices);
    const auto upd = upload(ctx, updates);
    {
        stream s(ctx);
        s.scatter(in.view(), idx.view(), upd.view(), in.view(), d); // in place on the device copy
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, in, output);
}

/// Gathers elements on the device; see strix::gather_elements.
inline void gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output,
                            const gather_elements_desc& d = {}) {
    strix::detail::check_gather_elements(input, indices, output, d);
    const auto in = upload(ctx, input);
    const auto idx = upload(ctx, indices);
    const device_tensor out(ctx, output.type(), output.sizes());
    {
        stream s(ctx);
        s.gather_elements(in.view(), idx.view(), out.view(), d);
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, out, output);
}

/// Gathers index tuples on the device; see strix::gather_nd.
inline void gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_nd_desc& d = {}) {
    strix::detail::check_gather_nd(input, indices, output, d);
    const auto in = upload(ctx, input);
    const auto idx = upload(ctx, indices);
    const device_tensor out(ctx, output.type(), output.sizes());
    {
        stream s(ctx);
        s.gather_nd(in.view(), idx.view(), out.view(), d);
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, out, output);
}

/// Splits on the device into `outputs`; see strix::split.
inline void split(context& ctx, const any_cview& input, std::span<const any_view> outputs, const split_desc& d = {}) {
    strix::detail::check_split(input, outputs, d);
    const auto in = upload(ctx, input);
    std::vector<device_tensor> outs;
    std::vector<device_view> views;
    for (const auto& o : outputs) outs.emplace_back(ctx, o.type(), o.sizes());
    for (const auto& t : outs) views.push_back(t.view());
    {
        stream s(ctx);
        s.split(in.view(), views, d);
        s.run();
    } // its frame back before the download takes two for staging
    for (std::size_t k = 0; k < outputs.size(); ++k) download(ctx, outs[k], outputs[k]);
}

/// Scatters index tuples on the device; see strix::scatter_nd (in place when `output` is `input`).
inline void scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                       const scatter_nd_desc& d = {}) {
    strix::detail::check_scatter_nd(input, indices, updates, output, d);
    const auto in = upload(ctx, input);
    const auto idx = upload(ctx, indices);
    const auto upd = upload(ctx, updates);
    {
        stream s(ctx);
        s.scatter_nd(in.view(), idx.view(), upd.view(), in.view(), d); // in place on the device copy
        s.run();
    } // its frame back before the download takes two for staging
    download(ctx, in, output);
}

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
inline shape checked_output(const inferred& r, const verdict& types, const any_cview& input, const any_cview& indices,
                            std::string_view extra = {}) {
    const operand_info ops[] = {{"input", input.sizes(), input.type()}, {"indices", indices.sizes(), indices.type()}};
    enforce(r.v, ops, extra);
    enforce(types, ops);
    return r.out;
}

} // namespace detail

// Allocating calls. Each checks what the CPU's allocating call checks before it allocates (so a
// mistake gets the CPU's message), takes the output shape from the operator's rule, and runs the
// call above on new host tensors.

/// Gathers into a new host tensor of the inferred shape; see strix::gather.
inline host_tensor gather(context& ctx, const any_cview& input, const any_cview& indices, const gather_desc& d = {}) {
    const shape out = detail::checked_output(gather_rule(input.sizes(), indices.sizes(), d),
                                             gather_type_rule(input.type(), indices.type(), input.type()), input, indices);
    return detail::into_new(input.type(), out, [&](const any_view& o) { vulkan::gather(ctx, input, indices, o, d); });
}

/// Gathers elements into a new host tensor of the indices' shape; see strix::gather_elements.
inline host_tensor gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const gather_elements_desc& d = {}) {
    const shape out = detail::checked_output(gather_elements_rule(input.sizes(), indices.sizes(), d),
                                             gather_elements_type_rule(input.type(), indices.type(), input.type()), input, indices);
    return detail::into_new(input.type(), out, [&](const any_view& o) { vulkan::gather_elements(ctx, input, indices, o, d); });
}

/// Gathers index tuples into a new host tensor of the inferred shape; see strix::gather_nd.
inline host_tensor gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const gather_nd_desc& d = {}) {
    const shape out = detail::checked_output(gather_nd_rule(input.sizes(), indices.sizes(), d),
                                             gather_nd_type_rule(input.type(), indices.type(), input.type()), input, indices,
                                             ", batch dimensions " + std::to_string(d.batch_dimensions));
    return detail::into_new(input.type(), out, [&](const any_view& o) { vulkan::gather_nd(ctx, input, indices, o, d); });
}

/// Joins into a new host tensor; see strix::join.
inline host_tensor join(context& ctx, std::span<const any_cview> inputs, const join_desc& d = {}) {
    std::vector<shape> shapes;
    for (const auto& v : inputs) shapes.push_back(v.sizes());
    const inferred r = join_rule(shapes, d);
    const auto roles = strix::detail::join_roles(inputs.size());
    enforce(r.v, strix::detail::join_operands(roles, inputs, nullptr)); // at least one input from here on
    return detail::into_new(inputs[0].type(), r.out, [&](const any_view& o) { vulkan::join(ctx, inputs, o, d); });
}

/// Splits into new host tensors of the given sizes on the axis, in order; see strix::split.
inline std::vector<host_tensor> split(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const split_desc& d = {}) {
    strix::detail::check_view("split", "input", input, false);
    const auto shapes = strix::detail::checked_split_shapes(input.sizes(), input.type(), sizes, d); // split_shapes, once split_rule holds
    return detail::into_new(input.type(), shapes, [&](std::span<const any_view> o) { vulkan::split(ctx, input, o, d); });
}

/// Pads into a new host tensor; see strix::pad.
inline host_tensor pad(context& ctx, const any_cview& input, const pad_desc& d) {
    strix::detail::check_pad(input, nullptr, d);
    return detail::into_new(input.type(), pad_rule(input.sizes(), d).out, [&](const any_view& o) { vulkan::pad(ctx, input, o, d); });
}

/// Scatters into a new host tensor (a copy of `input` with the updates written); see
/// strix::scatter. The output has the input's shape (the rule scatter_output_shape), so the
/// call above checks everything, as the CPU's does.
inline host_tensor scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_desc& d = {}) {
    return detail::into_new(input.type(), input.sizes(), [&](const any_view& o) { vulkan::scatter(ctx, input, indices, updates, o, d); });
}

/// Scatters index tuples into a new host tensor (a copy of `input` with the updates applied);
/// see strix::scatter_nd. The output has the input's shape (scatter_nd_output_shape).
inline host_tensor scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates,
                              const scatter_nd_desc& d = {}) {
    return detail::into_new(input.type(), input.sizes(), [&](const any_view& o) { vulkan::scatter_nd(ctx, input, indices, updates, o, d); });
}

} // namespace strix::vulkan
