namespace strix::vulkan {

void recording::record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                               const gather_desc& d, const strix::detail::checked_call& c) {
    const device_view &input = v[0], &indices = v[1], &output = v[2];
    const auto p = strix::detail::lower_gather(in[0], in[1], out[0], d, c, strix::detail::index_reading::device);
    const int axis = c.axis;
    // the indices that matter: for the DirectML form, the last K dimensions
    device_view idx = indices;
    const any_cview part = strix::detail::gather_index_view(in[1], d);
    idx.sizes = part.sizes();
    idx.strides = part.strides();
    if (d.policy == index_policy::error && output.sizes.count() == 0) {
        check_indices_only(idx, input.sizes[axis], axis, "gather", c.context);
        return;
    }
    if (d.policy == index_policy::error) { // every index checked before the move writes anything
        begin_guard();
        check_indices_only(idx, input.sizes[axis], axis, "gather", c.context);
    }
    record_move(p, {input.range(), indices.range()}, output.range());
}

void recording::record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                               const join_desc&, const strix::detail::checked_call& c) {
    const auto plans = strix::detail::lower_join(in, out[0], c.axis);
    // one hazard check for the whole join: the inputs' slices of the output are disjoint
    std::vector<range> reads;
    for (std::size_t i = 0; i + 1 < v.size(); ++i) reads.push_back(v[i].range());
    barrier_for(reads, v.back().range());
    for (const auto& p : plans) record_move(p, {}, {}, false);
}

void recording::record_moves(const std::vector<plan::move_plan>& plans, std::span<const device_view> v, std::size_t inputs) {
    std::vector<range> reads;
    for (std::size_t i = 0; i < inputs; ++i) reads.push_back(v[i].range());
    const std::size_t outputs = v.size() - inputs;
    for (std::size_t k = 0; k < plans.size(); ++k) record_move(plans[k], reads, v[inputs + (outputs == 1 ? 0 : k)].range());
}

void recording::record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                               const gather_elements_desc& d, const strix::detail::checked_call& c) {
    const device_view &input = v[0], &indices = v[1], &output = v[2];
    const auto p = strix::detail::lower_gather_elements(in[0], in[1], out[0], d, c, strix::detail::index_reading::device);
    if (p.rank == 0 || p.count() == 0) return;
    const int axis = c.axis;
    if (d.policy == index_policy::error) { // every index checked before the move writes anything
        begin_guard();
        check_indices_only(indices, input.sizes[axis], axis, "gather-elements", c.context);
    }
    record_move(p, {input.range(), indices.range()}, output.range());
}

void recording::record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                               const gather_nd_desc& d, const strix::detail::checked_call& c) {
    const device_view &indices = v[1], &output = v[2];
    const auto axes = strix::detail::tuple_axes_of(in[0], d.batch_dimensions, indices.sizes[indices.sizes.rank - 1]);
    if (output.sizes.count() == 0) { // nothing to move, but the tuples are checked all the same
        if (d.policy == index_policy::error && indices.sizes.count() > 0) record_tuples(indices, axes, d.policy, "gather-nd", c.context, false);
        return;
    }
    if (d.policy == index_policy::error) begin_guard(); // the tuple pass checks every tuple before the move writes
    const range table = record_tuples(indices, axes, d.policy, "gather-nd", c.context);
    const auto p = strix::detail::lower_gather_nd(in[0], indices.sizes, out[0], d, {},
                                                  reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(table.first)), axes.bias);
    record_move(p, {v[0].range(), table}, output.range());
}

void recording::copy(const device_view& input, const device_view& output) {
    const auto noted = note_call("copy", {input, output}, roles_of{{"input", "output"}}, [](recording& r, std::span<const device_view> v) { r.copy(v[0], v[1]); });
    const any_view out = output.as_any();
    strix::detail::check_copy(input.as_any(), out);
    if (output.sizes.count() == 0) return;
    auto p = strix::detail::copy_plan(input.as_any(), out);
    plan::collapse(p);
    const auto e = static_cast<std::int64_t>(p.elem);
    const auto& d = p.dims[0];
    const std::uint64_t bytes = static_cast<std::uint64_t>(p.count()) * p.elem;
    if (p.rank == 1 && d.dst == e && d.src == e && bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.src) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(p.dst) % 16 == 0 && bound_whole(input.address) && bound_whole(output.address)) { // (else in windows, record_move)
        push pc{};
        pc.src = reinterpret_cast<std::uintptr_t>(p.src);
        pc.dst = reinterpret_cast<std::uintptr_t>(p.dst);
        pc.count = bytes / 16;
        barrier_for({input.range()}, output.range());
        pipeline_key key{shader::copy, 16, 1, 0, 0, 0};
        key.unroll = ctx_->unroll_16();
        dispatch(key, pc, (pc.count + 256 * ctx_->unroll_16() - 1) / (256 * ctx_->unroll_16()));
        count_stat(&recording_stats::plain_copies);
        return;
    }
    record_move(p, {input.range()}, output.range());
}

} // namespace strix::vulkan
namespace strix::vulkan {

void recording::record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> o,
                               const scatter_desc& d, const strix::detail::checked_call& c) {
    const device_view &input = v[0], &indices = v[1], &updates = v[2], &output = v[3];
    const any_view& out = o[0];
    const int axis = c.axis;
    const auto n = static_cast<std::uint64_t>(updates.sizes.count());
    // the claim path's last pass writes every element of a C-order output, so it also does
    // the copy of a C-order input with the same layout (16 bytes per element in all, where
    // a copy and then that pass would move 24)
    const bool fused = !c.in_place && d.reduction == scatter_reduction::none && !d.unique_indices && claims_scatter(output, n) && c_order(input) && c_order(output);
    if (n > 0 && d.policy == index_policy::error) { // every index checked before the copy or an update writes
        begin_guard();
        check_indices_only(indices, input.sizes[axis], axis, "scatter", c.context);
    }
    if (!fused) copy_unless_in_place(c.in_place, input, output);
    if (n == 0) return;
    record_updates({strix::detail::lower_scatter(in[0], in[1], in[2], out, d, axis), output, d.deterministic,
                    {updates.range(), indices.range()}, c.context, fused ? input.address : 0});
}

void recording::record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> o,
                               const scatter_nd_desc& d, const strix::detail::checked_call& c) {
    const device_view &input = v[0], &indices = v[1], &updates = v[2], &output = v[3];
    const any_view& out = o[0];
    const auto axes = strix::detail::tuple_axes_of(out, 0, indices.sizes[indices.sizes.rank - 1]);
    if (updates.sizes.count() == 0) { // nothing to update, but the tuples are checked all the same (before the copy writes)
        if (d.policy == index_policy::error && indices.sizes.count() > 0) {
            begin_guard();
            record_tuples(indices, axes, d.policy, "scatter-nd", c.context, false);
            }
        copy_unless_in_place(c.in_place, input, output);
        return;
    }
    // the tuple pass checks every tuple before the copy or an update writes
    if (d.policy == index_policy::error) begin_guard();
    const range table = record_tuples(indices, axes, d.policy, "scatter-nd", c.context);
    copy_unless_in_place(c.in_place, input, output);
    const auto* device_table = reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(table.first));
    std::int64_t unit = 0; // what every tuple's offset is a multiple of (the bias too)
    for (const std::int64_t st : axes.stride) unit = std::gcd(unit, st < 0 ? -st : st);
    record_updates({strix::detail::lower_scatter_nd(indices.sizes, in[2], out, d, {}, device_table, axes.bias), output,
                    d.deterministic, {updates.range(), table}, c.context, 0, unit});
}

} // namespace strix::vulkan
