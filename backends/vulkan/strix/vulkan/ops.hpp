#pragma once
/// Convenience calls on host views: upload, run on the device, download. Same signatures as the
/// CPU operators with the context first; results are bit-identical to the CPU's. On an index
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

} // namespace strix::vulkan
