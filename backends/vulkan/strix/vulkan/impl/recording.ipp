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


void recording::record_chains(std::span<const device_chain> chains, const device_view& output, const join_desc* join) {
    // the operands: each chain's source and indices, then the output
    std::vector<device_view> views;
    std::vector<std::string> roles;
    std::vector<std::size_t> counts;
    for (std::size_t k = 0; k < chains.size(); ++k) {
        const auto v = chains[k].views();
        const std::string of = join ? " " + std::to_string(k) : "";
        for (const char* role : chains[k].view_roles()) roles.push_back(role + of);
        views.insert(views.end(), v.begin(), v.end());
        counts.push_back(v.size());
    }
    views.push_back(output);
    roles.emplace_back("output");
    const auto noted = note_call(
        join ? "join" : "evaluate", views, [&roles](std::size_t i) { return roles[i]; },
        [steps = std::vector<device_chain>(chains.begin(), chains.end()), d = join ? std::optional<join_desc>(*join) : std::nullopt](
            recording& r, std::span<const device_view> v) {
            std::vector<device_chain> again;
            for (const auto& c : steps) again.push_back(c.rebound(v));
            r.record_chains(again, v.front(), d ? &*d : nullptr);
        });
    const any_view out = output.as_any();
    int axis = 0;
    if (join) axis = strix::detail::check_chain_join(chains, &out, *join).axis;
    else strix::detail::check_chain_evaluate(chains[0], out);

    // every index of every gather under the `error` policy checked before anything is written;
    // the index-driven steps check theirs as they record. One guard word for all these checks,
    // which the last passes (the writes of the output) read; held where there are several (so
    // that no check swaps it for an earlier operator's word that it shares)
    int checks = 0;
    for (const auto& c : chains)
        for (const auto& s : c.steps()) {
            index_policy policy = index_policy::clamp;
            if (s.op == chain_op::gather) policy = s.gather.policy;
            s.with_index_desc([&](const auto& d) { policy = d.policy; });
            checks += policy == index_policy::error ? 1 : 0;
        }
    if (checks > 0) begin_guard();
    const detail::scoped_value<bool> hold(hold_guard_, checks > 1);
    for (const auto& c : chains)
        for (std::size_t i = 0; i < c.steps().size(); ++i) {
            const auto& s = c.steps()[i];
            if (s.op != chain_op::gather || s.gather.policy != index_policy::error) continue;
            device_view idx = s.indices;
            const any_cview part = strix::detail::gather_index_view(idx.as_any(), s.gather);
            idx.sizes = part.sizes();
            idx.strides = part.strides();
            check_indices_only(idx, s.in[s.axis], s.axis, "gather (chain step " + std::to_string(i + 1) + ")", s.context);
        }

    // each chain's passes into temporaries (scratch) in turn, then the last passes of all
    // together, behind one hazard check (their parts of the output are disjoint)
    std::vector<range> reads_all;
    std::vector<plan::move_plan> last;
    std::int64_t at = 0;
    std::size_t first_view = 0;
    for (std::size_t k = 0; k < chains.size(); ++k) {
        const device_chain& c = chains[k];
        const std::vector<range> sources = [&] {
            std::vector<range> r;
            for (std::size_t i = 0; i < counts[k]; ++i) r.push_back(views[first_view + i].range());
            return r;
        }();
        first_view += counts[k];
        std::vector<device_view> temps; // (C order, in the stream's scratch)
        auto make = [&](dtype t, const shape& sz) {
            const auto bytes = static_cast<std::uint64_t>(sz.count()) * size_of(t);
            const scratch_block b = scratch(std::max<std::uint64_t>(bytes, 16));
            device_view tv{b.handle, b.address, t, sz, c_strides(sz)};
            tv.origin = output.origin;
            tv.reach_first = b.address;
            tv.reach_last = b.address + bytes;
            temps.push_back(tv);
            return tv.as_any();
        };
        const any_view part = join ? strix::detail::join_part(out, c.sizes(), axis, at) : out;
        at += join ? c.sizes()[axis] : 0;
        auto passes = strix::detail::lower_chain(c, part, make);
        for (auto& pass : passes) {
            if (pass.step >= 0) { // an index-driven step, as its operator records it
                const auto& s = c.steps()[static_cast<std::size_t>(pass.step)];
                std::vector<device_view> v{pass.reads < 0 ? c.source() : temps[static_cast<std::size_t>(pass.reads)], s.indices};
                if (has_updates(s.op)) v.push_back(s.updates);
                v.push_back(temps[static_cast<std::size_t>(pass.writes)]);
                // its index checks' messages name the step (as the CPU's)
                const detail::scoped_value<std::string> named(checks_name_, std::string(s.name()) + " (chain step " + std::to_string(pass.step + 1) + ")");
                s.with_index_desc([&]<class Desc>(const Desc& d) { record_step<Desc>(v, d); });
                continue;
            }
            std::vector<range> reads = sources; // (the indices; the source only where the pass reads it)
            if (pass.reads >= 0) reads.push_back(temps[static_cast<std::size_t>(pass.reads)].range());
            if (pass.writes >= 0) record_move(pass.plan, reads, temps[static_cast<std::size_t>(pass.writes)].range());
            else {
                reads_all.insert(reads_all.end(), reads.begin(), reads.end());
                last.push_back(std::move(pass.plan));
            }
        }
    }
    barrier_for(reads_all, output.range());
    for (const auto& p : last) record_move(p, {}, {}, false);
}

} // namespace strix::vulkan
