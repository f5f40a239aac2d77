namespace strix::vulkan {

void recording::gather(const device_view& input, const device_view& indices, const device_view& output, const gather_desc& d) {
    const auto noted = note_call("gather", {input, indices, output}, roles_of{{"input", "indices", "output"}},
                                 [d](recording& r, std::span<const device_view> v) { r.gather(v[0], v[1], v[2], d); });
    const any_view out = output.as_any();
    const operand_list context = checks([&] { return strix::detail::check_gather(input.as_any(), indices.as_any(), &out, d); }).context;
    const auto p = strix::detail::lower_gather(input.as_any(), indices.as_any(), out, d, context, strix::detail::index_reading::device);
    const int axis = strix::detail::normalize_axis(d.axis, input.sizes.rank);
    // the indices that matter: for the DirectML form, the last K dimensions
    device_view idx = indices;
    if (d.index_dimensions >= 0) {
        const int lead = indices.sizes.rank - d.index_dimensions;
        idx.sizes = shape{};
        for (int i = lead; i < indices.sizes.rank; ++i) {
            idx.strides[static_cast<std::size_t>(idx.sizes.rank)] = indices.strides[static_cast<std::size_t>(i)];
            idx.sizes.push_back(indices.sizes[i]);
        }
    }
    if (d.policy == index_policy::error && output.sizes.count() == 0) {
        check_indices_only(idx, input.sizes[axis], axis, "gather", context);
        return;
    }
    if (d.policy == index_policy::error) { // every index checked before the move writes anything
        begin_guard();
        check_indices_only(idx, input.sizes[axis], axis, "gather", context);
    }
    record_move(p, {input.range(), indices.range()}, output.range());
}

void recording::join(std::span<const device_view> inputs, const device_view& output, const join_desc& d) {
    std::vector<device_view> all(inputs.begin(), inputs.end());
    all.push_back(output);
    const auto noted = note_call("join", std::move(all),
                                 [n = inputs.size()](std::size_t i) { return i == n ? std::string("output") : "input " + std::to_string(i); },
                                 [d](recording& r, std::span<const device_view> v) { r.join(v.first(v.size() - 1), v.back(), d); });
    std::vector<any_cview> views;
    for (const auto& v : inputs) views.push_back(v.as_any());
    const any_view out = output.as_any();
    (void)checks([&] { return strix::detail::check_join(views, &out, d); });
    const auto plans = strix::detail::lower_join(views, out, d);
    // one hazard check for the whole join: the inputs' slices of the output are disjoint
    std::vector<range> reads;
    for (const auto& v : inputs) reads.push_back(v.range());
    barrier_for(reads, output.range());
    for (const auto& p : plans) record_move(p, {}, {}, false);
}

void recording::pad(const device_view& input, const device_view& output, const pad_desc& d) {
    const auto noted = note_call("pad", {input, output}, roles_of{{"input", "output"}}, [d](recording& r, std::span<const device_view> v) { r.pad(v[0], v[1], d); });
    const any_view out = output.as_any();
    (void)checks([&] { return strix::detail::check_pad(input.as_any(), &out, d); });
    record_move(strix::detail::lower_pad(input.as_any(), out, d), {input.range()}, output.range());
}

void recording::gather_elements(const device_view& input, const device_view& indices, const device_view& output, const gather_elements_desc& d) {
    const auto noted = note_call("gather_elements", {input, indices, output}, roles_of{{"input", "indices", "output"}},
                                 [d](recording& r, std::span<const device_view> v) { r.gather_elements(v[0], v[1], v[2], d); });
    const any_view out = output.as_any();
    const operand_list context =
        checks([&] { return strix::detail::check_gather_elements(input.as_any(), indices.as_any(), &out, d); }).context;
    const auto p = strix::detail::lower_gather_elements(input.as_any(), indices.as_any(), out, d, context,
                                                        strix::detail::index_reading::device);
    if (p.rank == 0 || p.count() == 0) return;
    const int axis = strix::detail::normalize_axis(d.axis, input.sizes.rank);
    if (d.policy == index_policy::error) { // every index checked before the move writes anything
        begin_guard();
        check_indices_only(indices, input.sizes[axis], axis, "gather-elements", context);
    }
    record_move(p, {input.range(), indices.range()}, output.range());
}

void recording::gather_nd(const device_view& input, const device_view& indices, const device_view& output, const gather_nd_desc& d) {
    const auto noted = note_call("gather_nd", {input, indices, output}, roles_of{{"input", "indices", "output"}},
                                 [d](recording& r, std::span<const device_view> v) { r.gather_nd(v[0], v[1], v[2], d); });
    const any_view out = output.as_any();
    const operand_list context = checks([&] { return strix::detail::check_gather_nd(input.as_any(), indices.as_any(), &out, d); }).context;
    const auto axes = strix::detail::tuple_axes_of(input.as_any(), d.batch_dimensions, indices.sizes[indices.sizes.rank - 1]);
    if (output.sizes.count() == 0) { // nothing to move, but the tuples are checked all the same
        if (d.policy == index_policy::error && indices.sizes.count() > 0) record_tuples(indices, axes, d.policy, "gather-nd", context, false);
        return;
    }
    if (d.policy == index_policy::error) begin_guard(); // the tuple pass checks every tuple before the move writes
    const range table = record_tuples(indices, axes, d.policy, "gather-nd", context);
    const auto p = strix::detail::lower_gather_nd(input.as_any(), indices.sizes, out, d, {},
                                                  reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(table.first)), axes.bias);
    record_move(p, {input.range(), table}, output.range());
}

void recording::split(const device_view& input, std::span<const device_view> outputs, const split_desc& d) {
    std::vector<device_view> all{input};
    all.insert(all.end(), outputs.begin(), outputs.end());
    const auto noted = note_call("split", std::move(all), [](std::size_t i) { return i == 0 ? std::string("input") : "output " + std::to_string(i - 1); },
                                 [d](recording& r, std::span<const device_view> v) { r.split(v[0], v.subspan(1), d); });
    std::vector<any_view> views;
    for (const auto& v : outputs) views.push_back(v.as_any());
    (void)checks([&] { return strix::detail::check_split(input.as_any(), views, d); });
    const auto plans = strix::detail::lower_split(input.as_any(), views, d);
    for (std::size_t k = 0; k < plans.size(); ++k) record_move(plans[k], {input.range()}, outputs[k].range());
}

void recording::copy(const device_view& input, const device_view& output) {
    const auto noted = note_call("copy", {input, output}, roles_of{{"input", "output"}}, [](recording& r, std::span<const device_view> v) { r.copy(v[0], v[1]); });
    const any_view out = output.as_any();
    (void)checks([&] {
        strix::detail::check_copy(input.as_any(), out);
        return strix::detail::checked{};
    });
    if (output.sizes.count() == 0) return;
    auto p = strix::detail::copy_plan(input.as_any(), out);
    plan::collapse(p);
    const auto e = static_cast<std::int64_t>(p.elem);
    const auto& d = p.dims[0];
    const std::uint64_t bytes = static_cast<std::uint64_t>(p.count()) * p.elem;
    if (p.rank == 1 && d.dst == e && d.src == e && bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.src) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(p.dst) % 16 == 0) {
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

void recording::scatter(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output,
                 const scatter_desc& d) {
    const auto noted = note_call("scatter", {input, indices, updates, output}, roles_of{{"input", "indices", "updates", "output"}},
                                 [d](recording& r, std::span<const device_view> v) { r.scatter(v[0], v[1], v[2], v[3], d); });
    const any_view out = output.as_any();
    const auto c = checks([&] { return strix::detail::check_scatter(input.as_any(), indices.as_any(), updates.as_any(), out, d); });
    const int axis = c.axis;
    const auto n = static_cast<std::uint64_t>(updates.sizes.count());
    // the claim path's last pass writes every element of a C-order output, so it also does
    // the copy of a C-order input with the same layout (16 bytes per element in all, where
    // a copy and then that pass would move 24)
    const bool fused = !c.in_place && d.reduction == scatter_reduction::none && claims_scatter(output, n) && c_order(input) && c_order(output);
    if (n > 0 && d.policy == index_policy::error) { // every index checked before the copy or an update writes
        begin_guard();
        check_indices_only(indices, input.sizes[axis], axis, "scatter", c.context);
    }
    if (!fused) copy_unless_in_place(c.in_place, input, output);
    if (n == 0) return;
    record_updates({strix::detail::lower_scatter(input.as_any(), indices.as_any(), updates.as_any(), out, d, axis), output, d.deterministic,
                    {updates.range(), indices.range()}, c.context, fused ? input.address : 0});
}

void recording::scatter_nd(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output,
                    const scatter_nd_desc& d) {
    const auto noted = note_call("scatter_nd", {input, indices, updates, output}, roles_of{{"input", "indices", "updates", "output"}},
                                 [d](recording& r, std::span<const device_view> v) { r.scatter_nd(v[0], v[1], v[2], v[3], d); });
    const any_view out = output.as_any();
    const auto c = checks([&] { return strix::detail::check_scatter_nd(input.as_any(), indices.as_any(), updates.as_any(), out, d); });
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
    record_updates({strix::detail::lower_scatter_nd(indices.sizes, updates.as_any(), out, d, {}, device_table, axes.bias), output,
                    d.deterministic, {updates.range(), table}, c.context, 0, unit});
}

} // namespace strix::vulkan
