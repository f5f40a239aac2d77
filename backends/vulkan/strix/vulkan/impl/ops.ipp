namespace strix::vulkan::detail {

void give_checks(recording& r, strix::detail::checked c) { r.given_ = std::move(c); }

namespace {

using views = std::span<const device_view>;

/// The one body of every convenience call, once the CPU's checks `c` have passed on the
/// caller's host views: uploads `inputs`, makes a device tensor like each of `outputs` (or, for
/// a scatter, `in_place`: updates the first input's device copy and downloads that), records
/// the operator with `record(stream, inputs, outputs)` on a stream that takes `c` as its checks
/// (the device copies hold by construction what the host views were checked for), runs it and
/// downloads the outputs into `outputs`.
template <class Record>
void on_device(context& ctx, std::span<const any_cview> inputs, std::span<const any_view> outputs, bool in_place, strix::detail::checked c,
               Record&& record) {
    std::vector<device_tensor> ins, outs;
    std::vector<device_view> in_views, out_views;
    ins.reserve(inputs.size());
    outs.reserve(outputs.size());
    for (const auto& v : inputs) {
        ins.push_back(upload(ctx, v));
        in_views.push_back(ins.back().view());
    }
    if (in_place) {
        out_views.push_back(in_views[0]);
    } else {
        for (const auto& o : outputs) {
            outs.emplace_back(ctx, o.type(), o.sizes());
            out_views.push_back(outs.back().view());
        }
    }
    c.in_place = in_place;
    {
        stream s(ctx);
        give_checks(s, std::move(c));
        record(s, views(in_views), views(out_views));
        s.run();
    } // its frame back before the downloads take two for staging
    for (std::size_t k = 0; k < outputs.size(); ++k) download(ctx, in_place ? ins[0] : outs[k], outputs[k]);
}

/// on_device into one new C-order host tensor of `type` and the checked output shape.
template <class Record>
host_tensor on_device_new(context& ctx, std::span<const any_cview> inputs, dtype type, strix::detail::checked c, Record&& record) {
    host_tensor out(type, c.out);
    const any_view o = out.view();
    on_device(ctx, inputs, {&o, 1}, false, std::move(c), std::forward<Record>(record));
    return out;
}

// What each operator records on the stream, given its device inputs and outputs.
auto gather_on(const gather_desc& d) {
    return [d](stream& s, views in, views out) { s.gather(in[0], in[1], out[0], d); };
}
auto gather_elements_on(const gather_elements_desc& d) {
    return [d](stream& s, views in, views out) { s.gather_elements(in[0], in[1], out[0], d); };
}
auto gather_nd_on(const gather_nd_desc& d) {
    return [d](stream& s, views in, views out) { s.gather_nd(in[0], in[1], out[0], d); };
}
auto join_on(const join_desc& d) {
    return [d](stream& s, views in, views out) { s.join(in, out[0], d); };
}
auto split_on(const split_desc& d) {
    return [d](stream& s, views in, views out) { s.split(in[0], out, d); };
}
auto pad_on(const pad_desc& d) {
    return [d](stream& s, views in, views out) { s.pad(in[0], out[0], d); };
}
auto scatter_on(const scatter_desc& d) {
    return [d](stream& s, views in, views out) { s.scatter(in[0], in[1], in[2], out[0], d); };
}
auto scatter_nd_on(const scatter_nd_desc& d) {
    return [d](stream& s, views in, views out) { s.scatter_nd(in[0], in[1], in[2], out[0], d); };
}

} // namespace
} // namespace strix::vulkan::detail

namespace strix::vulkan {

namespace chk = strix::detail;

void gather(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d) {
    const any_cview ins[] = {input, indices};
    detail::on_device(ctx, ins, {&output, 1}, false, chk::check_gather(input, indices, &output, d), detail::gather_on(d));
}

void gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_elements_desc& d) {
    const any_cview ins[] = {input, indices};
    detail::on_device(ctx, ins, {&output, 1}, false, chk::check_gather_elements(input, indices, &output, d), detail::gather_elements_on(d));
}

void gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_nd_desc& d) {
    const any_cview ins[] = {input, indices};
    detail::on_device(ctx, ins, {&output, 1}, false, chk::check_gather_nd(input, indices, &output, d), detail::gather_nd_on(d));
}

void join(context& ctx, std::span<const any_cview> inputs, const any_view& output, const join_desc& d) {
    detail::on_device(ctx, inputs, {&output, 1}, false, chk::check_join(inputs, &output, d), detail::join_on(d));
}

void split(context& ctx, const any_cview& input, std::span<const any_view> outputs, const split_desc& d) {
    detail::on_device(ctx, {&input, 1}, outputs, false, chk::check_split(input, outputs, d), detail::split_on(d));
}

void pad(context& ctx, const any_cview& input, const any_view& output, const pad_desc& d) {
    detail::on_device(ctx, {&input, 1}, {&output, 1}, false, chk::check_pad(input, &output, d), detail::pad_on(d));
}

// the scatters update the input's device copy in place and download it into the output
void scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
             const scatter_desc& d) {
    const any_cview ins[] = {input, indices, updates};
    detail::on_device(ctx, ins, {&output, 1}, true, chk::check_scatter(input, indices, updates, output, d), detail::scatter_on(d));
}

void scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                const scatter_nd_desc& d) {
    const any_cview ins[] = {input, indices, updates};
    detail::on_device(ctx, ins, {&output, 1}, true, chk::check_scatter_nd(input, indices, updates, output, d), detail::scatter_nd_on(d));
}

host_tensor gather(context& ctx, const any_cview& input, const any_cview& indices, const gather_desc& d) {
    const any_cview ins[] = {input, indices};
    return detail::on_device_new(ctx, ins, input.type(), chk::check_gather(input, indices, nullptr, d), detail::gather_on(d));
}

host_tensor gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const gather_elements_desc& d) {
    const any_cview ins[] = {input, indices};
    return detail::on_device_new(ctx, ins, input.type(), chk::check_gather_elements(input, indices, nullptr, d),
                                 detail::gather_elements_on(d));
}

host_tensor gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const gather_nd_desc& d) {
    const any_cview ins[] = {input, indices};
    return detail::on_device_new(ctx, ins, input.type(), chk::check_gather_nd(input, indices, nullptr, d), detail::gather_nd_on(d));
}

host_tensor join(context& ctx, std::span<const any_cview> inputs, const join_desc& d) {
    chk::checked c = chk::check_join(inputs, nullptr, d); // at least one input from here on
    return detail::on_device_new(ctx, inputs, inputs[0].type(), std::move(c), detail::join_on(d));
}

std::vector<host_tensor> split(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const split_desc& d) {
    chk::check_view("split", "input", input, false);
    const auto shapes = chk::checked_split_shapes(input.sizes(), input.type(), sizes, d); // new outputs of these shapes: nothing more to check
    std::vector<host_tensor> out;
    std::vector<any_view> views;
    for (const auto& s : shapes) out.emplace_back(input.type(), s);
    for (auto& t : out) views.push_back(t.view());
    detail::on_device(ctx, {&input, 1}, views, false, {}, detail::split_on(d));
    return out;
}

host_tensor pad(context& ctx, const any_cview& input, const pad_desc& d) {
    return detail::on_device_new(ctx, {&input, 1}, input.type(), chk::check_pad(input, nullptr, d), detail::pad_on(d));
}

// a scatter's output has the input's shape (scatter_output_shape): the call above checks it all
host_tensor scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_desc& d) {
    host_tensor out(input.type(), input.sizes());
    vulkan::scatter(ctx, input, indices, updates, out.view(), d);
    return out;
}

host_tensor scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_nd_desc& d) {
    host_tensor out(input.type(), input.sizes());
    vulkan::scatter_nd(ctx, input, indices, updates, out.view(), d);
    return out;
}

} // namespace strix::vulkan
