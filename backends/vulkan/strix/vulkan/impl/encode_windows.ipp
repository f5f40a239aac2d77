namespace strix::vulkan::detail {

bool encoder::record_windowed_move(const plan::move_plan& p, const std::vector<range>& reads, range write, bool hazards) {
    const auto at = [](const std::byte* b) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(b)); };
    if (bound_whole(at(p.src)) && bound_whole(at(p.dst)) && bound_whole(at(p.index))) return false;
    const std::uint64_t limit = ctx_->max_binding_range(), align = ctx_->storage_alignment();
    if (limit <= 2 * align) throw error(error_code::unsupported, "strix::vulkan: " + ctx_->device().name + "'s maxStorageBufferRange is too small to bind windows");
    if (hazards) barrier_for(reads, write);
    // a window starts at an aligned offset at or below what it holds
    record_move_piece(p, nullptr, reads, limit - align, 0);
    reach_ = {};
    return true;
}

void encoder::record_move_piece(const plan::move_plan& q, const std::vector<std::int64_t>* outer_terms, const std::vector<range>& reads,
                                std::uint64_t limit, int depth) {
    if (q.count() == 0) return;
    const auto at = [](const std::byte* b) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(b)); };
    // the byte offsets [lo, hi] the terms of `size` coordinates of `stride` span
    const auto span = [](std::int64_t size, std::int64_t stride) {
        const std::int64_t t = (size - 1) * stride;
        return std::pair<std::int64_t, std::int64_t>{std::min<std::int64_t>(t, 0), std::max<std::int64_t>(t, 0)};
    };
    std::int64_t dlo = 0, dhi = 0, slo = 0, shi = 0, klo = 0, khi = 0;
    bool reads_source = true;
    for (int i = 0; i < q.rank; ++i) {
        const auto& d = q.dims[static_cast<std::size_t>(i)];
        auto [a, b] = span(d.size, d.dst);
        dlo += a, dhi += b;
        std::tie(a, b) = span(d.size, d.key);
        klo += a, khi += b;
        if (i == 0 && outer_terms) {
            std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
            for (const std::int64_t t : *outer_terms)
                if (t != plan::no_source) lo = std::min(lo, t), hi = std::max(hi, t);
            if (lo > hi) reads_source = false; // every element is the fill value
            else slo += lo, shi += hi;
        } else if (d.is_affine()) {
            std::tie(a, b) = span(d.size, d.src);
            slo += a, shi += b;
        } else if (d.hi > d.lo) { // its terms are source coordinates [0, hi - lo)
            std::tie(a, b) = span(d.hi - d.lo, d.src);
            slo += a, shi += b;
        }
    }
    const auto e = static_cast<std::int64_t>(q.elem);
    std::array<range, 3> r{range{at(q.src) + static_cast<std::uint64_t>(slo), at(q.src) + static_cast<std::uint64_t>(shi + e)},
                           range{at(q.dst) + static_cast<std::uint64_t>(dlo), at(q.dst) + static_cast<std::uint64_t>(dhi + e)}, range{0, 0}};
    if (!reads_source) r[0] = {at(q.src), at(q.src) + 1};
    if (q.index) {
        // the gathered axis: all of it (gather-nd's offsets: the input's whole reach)
        if (q.axis_size == std::numeric_limits<std::int64_t>::max() && !reads.empty()) r[0] = reads[0];
        else {
            const auto [a, b] = span(q.axis_size, q.axis_stride);
            r[0] = {r[0].first + static_cast<std::uint64_t>(a), r[0].second + static_cast<std::uint64_t>(b)};
        }
        r[2] = {at(q.index) + static_cast<std::uint64_t>(klo), at(q.index) + static_cast<std::uint64_t>(khi) + size_of(q.index_type)};
    }
    const std::uint64_t addr[3] = {at(q.src), at(q.dst), at(q.index)};
    // whether operand k (source, output, indices) is bound whole or what the piece reaches of it fits a binding
    const auto within = [&](int k) { return bound_whole(addr[k]) || r[static_cast<std::size_t>(k)].second - r[static_cast<std::size_t>(k)].first <= limit; };
    if (within(0) && within(1) && within(2)) {
        reach_ = r;
        move_route route = route_move(q);
        if (outer_terms) route.fold = std::nullopt; // (its dimension 0 reads a table)
        record_routed_move(q, route, reads, {0, 0}, false, outer_terms);
        reach_ = {};
        return;
    }
    // a gather whose source alone is too large: where the indices point is known only as the
    // shader runs, so no split of the output helps; the source is taken in windows instead
    if (q.index && !outer_terms && within(1) && within(2)) {
        record_source_windows(q, r, reads);
        return;
    }
    const auto& d0 = q.dims[0];
    if (depth > 200 || (q.rank == 1 && d0.size == 1))
        throw error(error_code::unsupported, "strix::vulkan: a move whose rows reach more than " + std::to_string(limit) + " bytes of one operand, more than " +
                                                 ctx_->device().name + " binds at once (maxStorageBufferRange)");
    const auto term = [&](std::int64_t c) { return outer_terms ? (*outer_terms)[static_cast<std::size_t>(c)] : d0.source(c); };
    if (d0.size == 1) { // its one coordinate's term joins the base; the next dimension is split
        plan::move_plan r1 = q;
        for (int i = 0; i + 1 < q.rank; ++i) r1.dims[static_cast<std::size_t>(i)] = q.dims[static_cast<std::size_t>(i + 1)];
        r1.dims[static_cast<std::size_t>(q.rank - 1)] = {};
        --r1.rank;
        const std::int64_t t = term(0);
        if (t != plan::no_source) {
            r1.src = plan::moved(q.src, t);
            record_move_piece(r1, nullptr, reads, limit, depth + 1);
        } else { // all fill: the next dimension's terms are all no_source
            const std::vector<std::int64_t> fill(static_cast<std::size_t>(r1.dims[0].size), plan::no_source);
            r1.dims[0].padded = true;
            r1.dims[0].lo = r1.dims[0].hi = 0;
            record_move_piece(r1, &fill, reads, limit, depth + 1);
        }
        return;
    }
    // two pieces of dimension 0: at its affine range's ends first, then halves
    std::int64_t mid = d0.size / 2;
    if (!outer_terms && !d0.is_affine()) mid = d0.lo > 0 && d0.lo < d0.size ? d0.lo : d0.hi > 0 && d0.hi < d0.size ? d0.hi : mid;
    for (const auto& [a, b] : {std::pair<std::int64_t, std::int64_t>{0, mid}, std::pair<std::int64_t, std::int64_t>{mid, d0.size}}) {
        plan::move_plan h = q;
        h.dims[0].size = b - a;
        h.dst = plan::moved(q.dst, a * d0.dst);
        if (q.index) h.index = plan::moved(q.index, a * d0.key);
        if (!outer_terms && d0.is_affine()) {
            h.src = plan::moved(q.src, a * d0.src);
            record_move_piece(h, nullptr, reads, limit, depth + 1);
        } else if (!outer_terms && a >= d0.lo && b <= d0.hi) { // within the affine range
            h.dims[0].padded = false;
            h.src = plan::moved(q.src, (a - d0.lo) * d0.src);
            record_move_piece(h, nullptr, reads, limit, depth + 1);
        } else { // its terms as a table
            std::vector<std::int64_t> terms(static_cast<std::size_t>(b - a));
            for (std::int64_t c = a; c < b; ++c) terms[static_cast<std::size_t>(c - a)] = term(c);
            h.dims[0].padded = true;
            h.dims[0].lo = h.dims[0].hi = 0;
            record_move_piece(h, &terms, reads, limit, depth + 1);
        }
    }
}

std::uint64_t encoder::owned_window() const {
    const std::uint64_t limit = ctx_->max_binding_range(), align = ctx_->storage_alignment();
    const std::uint64_t window = limit > align + 16 ? (limit - align - 16) / align * align : 0;
    if (window == 0) throw error(error_code::unsupported, "strix::vulkan: " + ctx_->device().name + "'s maxStorageBufferRange is too small to bind windows");
    return window;
}

void encoder::record_source_windows(const plan::move_plan& q, std::array<range, 3> r, const std::vector<range>& reads) {
    // each window owns `step` bytes of the source, from an aligned start; its binding holds 16
    // more, so that an element starting in it lies in it whole (move.comp, other_window)
    const std::uint64_t align = ctx_->storage_alignment(), step = owned_window();
    move_route route = route_move(q);
    route.vec = 1; // each element is its window's or not
    const range source = r[0];
    source_step_ = static_cast<std::uint32_t>(step);
    for (std::uint64_t lo = source.first / align * align; lo < source.second; lo += step) {
        r[0] = {lo, std::min(lo + step + 16, source.second)};
        reach_ = r;
        record_routed_move(q, route, reads, {0, 0}, false);
        count_stat(&recording_stats::source_windows);
    }
    reach_ = {};
    source_step_ = 0;
}

} // namespace strix::vulkan::detail
