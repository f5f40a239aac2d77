namespace strix::vulkan {

void gather(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d) {
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

void join(context& ctx, std::span<const any_cview> inputs, const any_view& output, const join_desc& d) {
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

void pad(context& ctx, const any_cview& input, const any_view& output, const pad_desc& d) {
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

void scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                    const scatter_desc& d) {
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

void gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output,
                            const gather_elements_desc& d) {
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

void gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_nd_desc& d) {
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

void split(context& ctx, const any_cview& input, std::span<const any_view> outputs, const split_desc& d) {
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

void scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                       const scatter_nd_desc& d) {
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

namespace strix::vulkan::detail {

shape checked_output(const inferred& r, const verdict& types, const any_cview& input, const any_cview& indices,
                            std::string_view extra) {
    const operand_info ops[] = {{"input", input.sizes(), input.type()}, {"indices", indices.sizes(), indices.type()}};
    enforce(r.v, ops, extra);
    enforce(types, ops);
    return r.out;
}

} // namespace strix::vulkan::detail

namespace strix::vulkan {

host_tensor gather(context& ctx, const any_cview& input, const any_cview& indices, const gather_desc& d) {
    const shape out = detail::checked_output(gather_rule(input.sizes(), indices.sizes(), d),
                                             gather_type_rule(input.type(), indices.type(), input.type()), input, indices);
    return detail::into_new(input.type(), out, [&](const any_view& o) { vulkan::gather(ctx, input, indices, o, d); });
}

host_tensor gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const gather_elements_desc& d) {
    const shape out = detail::checked_output(gather_elements_rule(input.sizes(), indices.sizes(), d),
                                             gather_elements_type_rule(input.type(), indices.type(), input.type()), input, indices);
    return detail::into_new(input.type(), out, [&](const any_view& o) { vulkan::gather_elements(ctx, input, indices, o, d); });
}

host_tensor gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const gather_nd_desc& d) {
    const shape out = detail::checked_output(gather_nd_rule(input.sizes(), indices.sizes(), d),
                                             gather_nd_type_rule(input.type(), indices.type(), input.type()), input, indices,
                                             ", batch dimensions " + std::to_string(d.batch_dimensions));
    return detail::into_new(input.type(), out, [&](const any_view& o) { vulkan::gather_nd(ctx, input, indices, o, d); });
}

host_tensor join(context& ctx, std::span<const any_cview> inputs, const join_desc& d) {
    std::vector<shape> shapes;
    for (const auto& v : inputs) shapes.push_back(v.sizes());
    const inferred r = join_rule(shapes, d);
    const auto roles = strix::detail::join_roles(inputs.size());
    enforce(r.v, strix::detail::join_operands(roles, inputs, nullptr)); // at least one input from here on
    return detail::into_new(inputs[0].type(), r.out, [&](const any_view& o) { vulkan::join(ctx, inputs, o, d); });
}

std::vector<host_tensor> split(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const split_desc& d) {
    strix::detail::check_view("split", "input", input, false);
    const auto shapes = strix::detail::checked_split_shapes(input.sizes(), input.type(), sizes, d); // split_shapes, once split_rule holds
    return detail::into_new(input.type(), shapes, [&](std::span<const any_view> o) { vulkan::split(ctx, input, o, d); });
}

host_tensor pad(context& ctx, const any_cview& input, const pad_desc& d) {
    strix::detail::check_pad(input, nullptr, d);
    return detail::into_new(input.type(), pad_rule(input.sizes(), d).out, [&](const any_view& o) { vulkan::pad(ctx, input, o, d); });
}

host_tensor scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_desc& d) {
    return detail::into_new(input.type(), input.sizes(), [&](const any_view& o) { vulkan::scatter(ctx, input, indices, updates, o, d); });
}

host_tensor scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates,
                              const scatter_nd_desc& d) {
    return detail::into_new(input.type(), input.sizes(), [&](const any_view& o) { vulkan::scatter_nd(ctx, input, indices, updates, o, d); });
}

} // namespace strix::vulkan
