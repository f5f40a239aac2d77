namespace strix::vulkan::detail {

namespace {

using views = std::span<const device_view>;

/// The one body of every convenience call: checks the caller's host views as the CPU's call
/// does (before anything is uploaded), uploads `inputs`, makes a device tensor like each of
/// `outputs` (or, for an update, updates the first input's device copy in place and downloads
/// that), records operator `Desc` on a stream with those checks (the device copies hold by
/// construction what the host views were checked for), runs it and downloads the outputs into
/// `outputs`. `c`: the checks, when the caller made them.
template <operator_desc Desc>
void on_device(context& ctx, std::span<const any_cview> inputs, std::span<const any_view> outputs, const Desc& d,
               std::optional<strix::detail::checked_call> c = std::nullopt) {
    using T = op_traits<Desc>;
    constexpr bool in_place = T::form == op_form::update;
    if (!c) c = T::check(inputs, outputs, d);
    c->in_place = in_place;
    std::vector<device_tensor> ins, outs;
    std::vector<device_view> views;
    ins.reserve(inputs.size());
    outs.reserve(outputs.size());
    for (const auto& v : inputs) {
        ins.push_back(upload(ctx, v));
        views.push_back(ins.back().view());
    }
    if (in_place) {
        views.push_back(views[0]);
    } else {
        for (const auto& o : outputs) {
            outs.emplace_back(ctx, o.type(), o.sizes());
            views.push_back(outs.back().view());
        }
    }
    {
        stream s(ctx);
        s.record<Desc>(views, d, &*c);
        s.run();
    } // its frame back before the downloads take two for staging
    for (std::size_t k = 0; k < outputs.size(); ++k) download(ctx, in_place ? ins[0] : outs[k], outputs[k]);
}

/// on_device into new C-order host tensors: one of the checked output shape, or (an update)
/// of the input's shape, or (splitting) of the shapes of `sizes`.
template <operator_desc Desc>
std::vector<host_tensor> on_device_new(context& ctx, std::span<const any_cview> inputs, const Desc& d,
                                       std::span<const std::int64_t> sizes = {}) {
    using T = op_traits<Desc>;
    std::vector<host_tensor> out;
    std::vector<any_view> views;
    std::optional<strix::detail::checked_call> c;
    if constexpr (T::form == op_form::splitting) {
        for (const auto& s : T::output_shapes(inputs[0], sizes, d)) out.emplace_back(inputs[0].type(), s);
        c.emplace(); // new outputs of the checked shapes: nothing more to check
    } else if constexpr (T::form == op_form::update) {
        strix::detail::check_view(T::name, "input", inputs[0], false);
        out.emplace_back(inputs[0].type(), inputs[0].sizes());
    } else {
        c = T::check(inputs, {}, d); // (at least one input from here on)
        out.emplace_back(inputs[0].type(), c->out);
    }
    for (auto& t : out) views.push_back(t.view());
    on_device(ctx, inputs, views, d, std::move(c));
    return out;
}

} // namespace
} // namespace strix::vulkan::detail

namespace strix::vulkan {

#define STRIX_VULKAN_DEFINE_CALLS(op, form) STRIX_VULKAN_DEFINE_CALLS_##form(op)
STRIX_OPERATORS(STRIX_VULKAN_DEFINE_CALLS)
#undef STRIX_VULKAN_DEFINE_CALLS

} // namespace strix::vulkan
