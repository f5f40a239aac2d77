namespace strix::vulkan::detail {

std::optional<plan::move_plan> widened(const plan::move_plan& p) {
    const auto e = static_cast<std::int64_t>(p.elem);
    const auto& in = p.dims[static_cast<std::size_t>(p.rank - 1)];
    if (p.rank == 0 || e >= 16 || !in.is_affine() || in.key != 0 || in.dst != e || in.src != e) return std::nullopt;
    const auto fits = [&](std::int64_t w) {
        const auto ok = [w](std::int64_t v) { return v % w == 0; };
        if (!ok(in.size * e) || !ok(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p.src))) ||
            !ok(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p.dst))) || (p.index && !ok(p.axis_stride)))
            return false;
        for (int k = 0; k + 1 < p.rank; ++k) {
            const auto& d = p.dims[static_cast<std::size_t>(k)];
            if (!ok(d.dst) || !ok(d.src)) return false; // a padded dimension's terms are multiples of src
        }
        return true;
    };
    std::int64_t w = 16;
    while (w > e && !fits(w)) w /= 2;
    if (w <= e) return std::nullopt;
    plan::move_plan q = p;
    auto& qi = q.dims[static_cast<std::size_t>(q.rank - 1)];
    qi.size = in.size * e / w;
    qi.dst = qi.src = w;
    q.elem = static_cast<std::size_t>(w);
    for (std::int64_t b = e; b < w; b += e) // the fill element, repeated across the wider one
        std::memcpy(q.fill.data() + b, p.fill.data(), static_cast<std::size_t>(e));
    return q;
}

std::uint32_t chunk_elements(const plan::move_plan& p) {
    const auto e = static_cast<std::int64_t>(p.elem);
    if (e >= 16 || reinterpret_cast<std::uintptr_t>(p.dst) % 16 != 0 || p.count() * e % 16 != 0) return 1;
    std::int64_t expect = e;
    for (int k = p.rank - 1; k >= 0; --k) {
        const auto& d = p.dims[static_cast<std::size_t>(k)];
        if (d.dst != expect) return 1;
        expect *= d.size;
    }
    return static_cast<std::uint32_t>(16 / e);
}

bool narrow_fits(const plan::move_plan& p, std::uint32_t vec) {
    constexpr std::int64_t limit = std::int64_t{1} << 31;
    if (p.count() >= limit || p.dims[static_cast<std::size_t>(p.rank - 1)].size < static_cast<std::int64_t>(vec)) return false;
    std::int64_t dst = 0, src = 0, key = 0;
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        // the largest |term| over `n` coordinates 0, 1, ... of a stride (sizes are below 2^31)
        auto reach = [&](std::int64_t n, std::int64_t stride) {
            return stride > -limit && stride < limit ? std::max<std::int64_t>(n - 1, 0) * (stride < 0 ? -stride : stride) : limit;
        };
        dst += reach(d.size, d.dst);
        key += reach(d.size, d.key);
        // a padded dimension's terms are those of its source coordinates [0, hi - lo)
        src += d.is_affine() ? reach(d.size, d.src) : reach(d.hi - d.lo, d.src);
        if (dst >= limit || src >= limit || key >= limit) return false;
    }
    return true;
}

std::pair<std::uint32_t, std::uint32_t> divider(std::int64_t d) {
    std::uint32_t l = 0;
    while ((std::int64_t{1} << l) < d) ++l;
    const std::uint32_t s = 31 + l;
    const auto den = static_cast<std::uint64_t>(d);
    return {static_cast<std::uint32_t>(((std::uint64_t{1} << s) + den - 1) / den), s};
}

std::array<std::int32_t, 12> narrow_record(const plan::move_dim& d, std::int32_t map) {
    const auto [m, s] = divider(d.size);
    auto i32 = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
    return {i32(d.size), i32(d.src), i32(d.lo), i32(d.hi), i32(d.dst), i32(d.key), map, 0, static_cast<std::int32_t>(m), static_cast<std::int32_t>(s), 0, 0};
}

std::optional<std::int64_t> shader_fold(pad_mode mode, std::int64_t j, std::int64_t n) {
    if (mode == pad_mode::constant) return -1;
    if (mode == pad_mode::edge) return j < 0 ? 0 : n - 1;
    if (mode == pad_mode::reflect && n == 1) return 0;
    const std::int64_t p = mode == pad_mode::reflect ? 2 * n - 2 : mode == pad_mode::symmetric ? 2 * n : n;
    const std::int64_t m = j < 0 ? j + p : j >= p ? j - p : j;
    if (m < 0 || m >= p) return std::nullopt;
    if (mode == pad_mode::wrap || m < n) return m;
    return mode == pad_mode::reflect ? p - m : p - 1 - m;
}

bool shader_folds(const plan::move_dim& d, pad_mode m) {
    const std::int64_t n = d.hi - d.lo;
    if (d.size >= (std::int64_t{1} << 30) || n < 0) return false;
    if (m != d.fold && !(n == 1 && d.fold != pad_mode::constant && m != pad_mode::constant)) return false;
    if (n == 0 && m != pad_mode::constant) return false;
    if (m == pad_mode::constant || m == pad_mode::edge || (m == pad_mode::reflect && n == 1)) return true;
    const std::int64_t p = m == pad_mode::reflect ? 2 * n - 2 : m == pad_mode::symmetric ? 2 * n : n;
    return d.lo <= p && (d.size == d.hi || d.size - d.lo - 1 < 2 * p);
}

bool shader_folds(const plan::move_dim& d) { return shader_folds(d, d.fold); }

std::optional<pad_mode> plan_fold(const plan::move_plan& p) {
    std::optional<pad_mode> own; // the first padded dimension's fold: tried first, then edge
    for (int i = 0; i < p.rank && !own; ++i)
        if (!p.dims[static_cast<std::size_t>(i)].is_affine()) own = p.dims[static_cast<std::size_t>(i)].fold;
    if (!own) return std::nullopt;
    for (const pad_mode m : {*own, pad_mode::edge}) {
        bool all = true;
        for (int i = 0; i < p.rank && all; ++i) {
            const auto& d = p.dims[static_cast<std::size_t>(i)];
            all = d.is_affine() || shader_folds(d, m);
        }
        if (all) return m;
    }
    return std::nullopt;
}

std::uint64_t padded_count(const plan::move_dim& d) {
    return d.is_affine() ? 0 : static_cast<std::uint64_t>(d.lo) + static_cast<std::uint64_t>(d.size - d.hi);
}

std::optional<tile_layout> tile_plan(const plan::move_plan& p, std::uint32_t tile_words) {
    const auto e = static_cast<std::uint64_t>(p.elem);
    if (!p.index || tile_words == 0 || p.rank < 2 || (e != 4 && e != 8 && e != 16)) return std::nullopt;
    int axis = -1;
    for (int k = 0; k < p.rank; ++k) {
        const auto& d = p.dims[static_cast<std::size_t>(k)];
        if (!d.is_affine()) return std::nullopt;
        if (d.src == 0) {
            if (axis >= 0) return std::nullopt;
            axis = k;
        }
    }
    const auto& last = p.dims[static_cast<std::size_t>(p.rank - 1)];
    // an index that does not change along the innermost dimension (gather) reads whole rows in
    // place, coalesced
    if (axis < 0 || axis == p.rank - 1 || last.key == 0) return std::nullopt;
    const auto n = static_cast<std::uint64_t>(p.axis_size);
    const std::uint64_t step = static_cast<std::uint64_t>(p.axis_stride < 0 ? -p.axis_stride : p.axis_stride);
    const auto m = static_cast<std::uint64_t>(p.dims[static_cast<std::size_t>(axis)].size);
    if (n == 0 || n * step < 64 * 1024 || 2 * m < n) return std::nullopt;
    std::uint64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; ++k) outer *= static_cast<std::uint64_t>(p.dims[static_cast<std::size_t>(k)].size);
    for (int k = axis + 1; k < p.rank; ++k) inner *= static_cast<std::uint64_t>(p.dims[static_cast<std::size_t>(k)].size);
    // 16-byte moves of neighbouring positions where the innermost dimension is contiguous on
    // both sides and every row starts 16-byte aligned
    std::uint64_t vec = 16 / e;
    const auto a16 = [](std::int64_t v) { return v % 16 == 0; };
    bool aligned = vec > 1 && last.src == static_cast<std::int64_t>(e) && last.dst == static_cast<std::int64_t>(e) &&
                   static_cast<std::uint64_t>(last.size) % vec == 0 && a16(p.axis_stride) &&
                   a16(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p.src))) && a16(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p.dst)));
    for (int k = 0; k + 1 < p.rank && aligned; ++k) aligned = a16(p.dims[static_cast<std::size_t>(k)].src) && a16(p.dims[static_cast<std::size_t>(k)].dst);
    if (!aligned) vec = 1;
    const std::uint64_t cells = tile_words / (e / 4); // elements the tile holds
    std::uint64_t t = 256 * vec;
    while (t > vec && (t * n > cells || t / 2 >= inner)) t /= 2;
    if (t * n > cells || t * e < 32) return std::nullopt;
    tile_layout l{axis, static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(vec), (inner + t - 1) / t, 1, m, 0};
    // enough work groups to fill a large GPU: split A where outer x across is short of that,
    // into pieces of N coordinates or more (each piece reads the tile again)
    constexpr std::uint64_t enough = 4096;
    const std::uint64_t base = outer * l.across;
    if (base < enough) {
        const std::uint64_t pieces = std::max<std::uint64_t>(1, std::min((enough + base - 1) / base, m / n));
        l.rows = (m + pieces - 1) / pieces;
        l.down = (m + l.rows - 1) / l.rows;
    }
    l.groups = base * l.down;
    constexpr std::uint64_t limit = std::uint64_t{1} << 32; // the shader counts in 32 bits
    if (l.groups >= limit || inner >= limit || m >= limit) return std::nullopt;
    return l;
}

bool encoder::claims_scatter(const device_view& output, std::uint64_t n) const {
    const std::size_t elem = size_of(output.type);
    if (n == 0 || !ctx_->scatter_claims() || (elem == 4 && !ctx_->int64_atomics())) return false;
    const range out = output.range();
    return (out.second - out.first) / elem <= 4 * n;
}

std::uint64_t encoder::winner_row(const update_job& j) {
    const plan::update_plan& up = j.plan;
    const auto elem = static_cast<std::int64_t>(size_of(j.output.type));
    std::int64_t row = 1;
    int k = up.rank - 1;
    for (; k >= 0; --k) { // the row: trailing dimensions without an index term, contiguous in the output
        const auto& d = up.dims[static_cast<std::size_t>(k)];
        if (d.key != 0 || (d.size > 1 && d.dst != row * elem)) break;
        row *= d.size;
    }
    if (row <= 1) return 1;
    const std::int64_t unit = row * elem;
    const auto multiple = [unit](std::int64_t v) { return v % unit == 0; };
    for (int i = 0; i <= k; ++i)
        if (!multiple(up.dims[static_cast<std::size_t>(i)].dst)) return 1;
    const range out = j.output.range();
    return multiple(j.index_unit != 0 ? j.index_unit : up.axis_stride) && multiple(static_cast<std::int64_t>(j.output.address - out.first))
               ? static_cast<std::uint64_t>(row)
               : 1;
}

std::optional<plan::update_plan> encoder::wide_rows(const plan::update_plan& up, std::uint64_t row, std::uint32_t elem, std::uint64_t out_first) {
    const std::uint64_t bytes = row * elem;
    if (elem >= 16 || bytes % 16 != 0 || out_first % 16 != 0 || reinterpret_cast<std::uintptr_t>(up.src) % 16 != 0) return std::nullopt;
    // the row's dimensions (the trailing ones, `row` elements) contiguous in the updates too;
    // every other dimension a whole number of 16-byte pieces apart there (in the output, rows
    // start whole rows from its first byte: winner_row)
    int k = up.rank;
    std::int64_t run = 1;
    while (k > 0 && static_cast<std::uint64_t>(run) < row) {
        const auto& d = up.dims[static_cast<std::size_t>(--k)];
        if (d.size > 1 && d.src != run * elem) return std::nullopt;
        run *= d.size;
    }
    for (int i = 0; i < k; ++i)
        if (up.dims[static_cast<std::size_t>(i)].size > 1 && up.dims[static_cast<std::size_t>(i)].src % 16 != 0) return std::nullopt;
    plan::update_plan w = up;
    w.rank = k + 1;
    w.dims[static_cast<std::size_t>(k)] = {static_cast<std::int64_t>(bytes / 16), 16, 16, 0};
    return w;
}

bool encoder::c_order(const device_view& v) {
    std::int64_t expect = 1;
    for (int i = v.sizes.rank - 1; i >= 0; --i) {
        if (v.sizes[i] != 1 && v.strides[static_cast<std::size_t>(i)] != expect) return false;
        expect *= v.sizes[i];
    }
    return true;
}

void encoder::copy_unless_in_place(bool in_place, const device_view& input, const device_view& output) {
    if (in_place) return;
    auto p = strix::detail::copy_plan(input.as_any(), output.as_any());
    plan::collapse(p);
    record_move(p, {input.range()}, output.range());
}

void encoder::check_indices_only(const device_view& indices, std::int64_t n, int axis, const char* op, const operand_list& context) {
    if (indices.sizes.count() == 0) return;
    const auto report = [n, axis, op, context](const any_cview& h) { strix::detail::resolve_indices(h, n, 1, index_policy::error, op, axis, context); };
    // the same indices checked against the same size earlier in the stream, behind a barrier,
    // and not written since: this operator's writes wait on that check's guard word
    const bool guarded = guard_.address != 0 && keep_commands_;
    if (guarded) {
        const std::size_t current = seg_writes_.size() - 1, after_writes = segment_after_writes(indices.range());
        for (const auto& sc : shared_checks_)
            if (sc.indices == indices && sc.n == n && sc.segment < current && after_writes <= sc.segment) {
                guard_ = sc.guard;
                check_indices_later(indices, report);
                ++counters_.shared_checks;
                return;
            }
    }
    const auto ies = static_cast<std::int64_t>(size_of(indices.type));
    std::vector<std::int64_t> dims;
    int rank = 1;
    if (c_order(indices)) { // one dimension: an invocation's index is its number, no division
        dims.insert(dims.end(), {indices.sizes.count(), 0, 0, ies, 0, 0, 0});
    } else {
        for (int i = 0; i < indices.sizes.rank; ++i) dims.insert(dims.end(), {indices.sizes[i], 0, 0, indices.strides[static_cast<std::size_t>(i)] * ies, 0, 0, 0});
        if (indices.sizes.rank == 0) dims.insert(dims.end(), {1, 0, 0, 0, 0, 0, 0});
        rank = std::max(indices.sizes.rank, 1);
    }
    dims.insert(dims.end(), {n, 0, 0, 0, 0, 0, 0});
    check_indices_later(indices, report);
    record_resolve(indices, rank, 1, std::move(dims), 0, index_policy::error, false);
    if (guarded) shared_checks_.push_back({indices, n, guard_, last_resolve_segment_});
}

std::pair<std::uint64_t, std::uint64_t> encoder::record_resolve(const device_view& indices, int tuple_rank, std::int64_t k, std::vector<std::int64_t> dims,
                                                           std::int64_t bias, index_policy policy, bool table) {
    const std::int64_t tuples = indices.sizes.count() / k;
    push p{};
    range table_range{0, 0};
    if (table) {
        const scratch_block t = scratch(static_cast<std::uint64_t>(tuples) * 8);
        table_range = {t.address, t.address + t.size};
        p.dst = t.address;
    }
    p.dims = upload_meta(dims);
    p.indices = indices.address;
    p.count = static_cast<std::uint64_t>(tuples);
    p.flag = frame_->flag.address();
    p.axis_stride = bias;
    p.aux = static_cast<std::uint32_t>(k);
    pipeline_key key{shader::tuples, 8, static_cast<std::uint32_t>(tuple_rank), index_code(indices.type), policy == index_policy::clamp ? 1u : 0u, 0};
    // a check of C-order indices whose bytes are whole 16-byte chunks, 16-byte aligned: a chunk
    // per invocation (4 or 2 indices), read with one load (tuples.comp's PHASE 1)
    const auto ies = static_cast<std::uint64_t>(size_of(indices.type));
    const std::uint64_t index_bytes = static_cast<std::uint64_t>(tuples) * ies;
    if (!table && k == 1 && tuple_rank == 1 && c_order(indices) && indices.address % 16 == 0 && index_bytes % 16 == 0) {
        key.phase = 1;
        key.rank = 1;
        p.count = index_bytes / 16;
        p.axis_size = dims[dims.size() - 7]; // the axis's size: the component's record
    }
    // into an earlier segment of the stream when one after the indices' last write is already
    // behind a barrier: the operator's passes, in the current segment, then need no barrier
    // for the table or the guard word
    const std::size_t seg = segment_after_writes(indices.range());
    if (can_hoist(seg)) {
        last_resolve_segment_ = seg;
        hoists_.emplace_back(seg, make_dispatch(key, p));
        if (table) seg_writes_[seg].push_back(table_range);
        ++counters_.dispatches;
        ++counters_.hoisted;
        return table_range;
    }
    barrier_for({indices.range()}, table_range);
    dispatch(key, p);
    last_resolve_segment_ = seg_writes_.size() - 1;
    if (guard_.address) add_written(guard_.range()); // the operator's next dispatch reads it
    return table_range;
}

void encoder::record_updates(const update_job& j) {
    const plan::update_plan& up = j.plan;
    const auto n = static_cast<std::uint64_t>(up.count());
    if (n >= (std::uint64_t{1} << 32) - 1)
        throw error(error_code::unsupported, "strix::vulkan: more than 2^32 - 2 updates in one scatter (" + j.context.str() + ")");
    const auto elem = static_cast<std::uint32_t>(size_of(j.output.type));
    const range out = j.output.range();
    const std::uint64_t slots = (out.second - out.first) / elem;
    // an update plan's Dim records, uploaded (size, dst, src, key, 0, 0, 0 each)
    const auto upload_dims = [this](const plan::update_plan& q) {
        std::vector<std::int64_t> dims;
        for (int i = 0; i < q.rank; ++i) {
            const auto& d = q.dims[static_cast<std::size_t>(i)];
            dims.insert(dims.end(), {d.size, d.dst, d.src, d.key, 0, 0, 0});
        }
        return upload_meta(dims);
    };
    push p{};
    p.src = reinterpret_cast<std::uintptr_t>(up.src);
    p.dst = reinterpret_cast<std::uintptr_t>(up.dst);
    p.dims = upload_dims(up);
    p.indices = reinterpret_cast<std::uintptr_t>(up.index);
    p.count = n;
    p.flag = frame_->flag.address();
    p.axis_size = up.axis_size;
    p.axis_stride = up.axis_stride;
    p.lo = out.first;
    const auto rank = static_cast<std::uint32_t>(up.rank);
    const std::uint32_t policy = up.clamp ? 1u : 0u;
    const std::uint32_t index_type = index_code(up.index_type);
    auto reads = j.reads;
    if (up.reduction == scatter_reduction::none && claims_scatter(j.output, n)) {
        // one claim per slot: (update number + 1) << 32 | the update's bits for 4-byte
        // elements, else the update number + 1
        const std::uint64_t claim_bytes = elem == 4 ? 8 : 4;
        const scratch_block claims = scratch(slots * claim_bytes);
        const range cr{claims.address, claims.address + slots * claim_bytes};
        barrier_for({}, cr);
        fill_zero(claims.handle, claims.offset, claims.size);
        transfer_barrier();
        p.aux_addr = claims.address;
        pipeline_key key{shader::reduce, elem, rank, index_type, policy, 4};
        key.type = static_cast<std::uint32_t>(j.output.type);
        key.reduction = 0;
        reads.push_back(cr);
        if (j.fused_input) reads.emplace_back(j.fused_input, j.fused_input + slots * elem);
        // placed for the last pass's writes of the output (and its reads), as pass 0
        // writes only the claims, fresh and filled behind a transfer barrier
        barrier_for(reads, out);
        add_written(cr);
        dispatch(key, p);
        // the last pass after every claim: one invocation per slot, or per 32-bit word of
        // 1- and 2-byte elements
        full_barrier();
        push rp = p;
        rp.indices = j.fused_input;
        rp.axis_size = static_cast<std::int64_t>(slots);
        rp.count = elem >= 4 ? slots : (out.second - (out.first & ~std::uint64_t{3}) + 3) / 4;
        key.phase = 5;
        if (elem == 4) key.rank = 1; // reads no update: one pipeline for every rank
        key.index_type = 0;
        key.policy = 0;
        dispatch(key, rp);
        read_ = reads;
        set_written({out});
        ++counters_.claim_scatters;
        return;
    }
    const std::uint64_t row = up.reduction == scatter_reduction::none ? winner_row(j) : 1;
    if (row > 1) {
        // rows of `row` elements with one winner each: pass 2 claims each row (one invocation
        // per row), pass 1 writes the winners' elements
        const std::uint64_t rows = (slots + row - 1) / row;
        const scratch_block winners = scratch(16 + rows * 4);
        const range wr{winners.address, winners.address + winners.size};
        barrier_for({}, wr);
        fill_zero(winners.handle, winners.offset, winners.size);
        transfer_barrier();
        p.aux_addr = winners.address;
        p.fill[0] = static_cast<std::uint32_t>(row);
        pipeline_key key{shader::scatter, elem, rank, index_type, policy, 2};
        reads.push_back(wr);
        barrier_for(reads, wr);
        add_written(wr);
        push cp = p;
        cp.count = n / row;
        dispatch(key, cp);
        full_barrier();
        key.phase = 1;
        barrier_for(reads, out);
        if (const auto w = wide_rows(up, row, elem, out.first)) { // pass 1 in 16-byte pieces
            push wp = p;
            wp.dims = upload_dims(*w);
            wp.count = n * elem / 16;
            wp.fill[0] = static_cast<std::uint32_t>(row * elem / 16);
            dispatch({shader::scatter, 16, static_cast<std::uint32_t>(w->rank), index_type, policy, 1}, wp);
            ++counters_.wide_row_scatters;
        } else {
            dispatch(key, p);
        }
        read_ = reads;
        set_written({out});
        ++counters_.row_scatters;
        return;
    }
    if (up.reduction == scatter_reduction::none) {
        // 16 bytes of indirect dispatch arguments for pass 1 (zero: no work, unless pass 0
        // meets a duplicate target), then each target's winner slot (shaders/scatter.comp)
        const scratch_block winners = scratch(16 + slots * 4);
        const range wr{winners.address, winners.address + winners.size};
        barrier_for({}, wr);
        fill_zero(winners.handle, winners.offset, winners.size);
        transfer_barrier();
        p.aux_addr = winners.address;
        const auto [gx, gy] = grid((n + 255) / 256);
        p.aux = gx;
        p.aux2 = gy;
        pipeline_key key{shader::scatter, elem, rank, index_type, policy, 0};
        reads.push_back(wr);
        barrier_for(reads, out); // pass 0 writes the output: after the input's copy and the fill
        add_written(wr);
        dispatch(key, p);
        // pass 1 reads its arguments and the slots after every write of pass 0
        full_barrier(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
        key.phase = 1;
        dispatch(key, p, 0, winners.handle, winners.offset);
        read_ = reads;
        set_written({out});
        return;
    }
    const dtype t = j.output.type;
    if ((t == dtype::float64 && (up.reduction == scatter_reduction::add || up.reduction == scatter_reduction::mul)) && !ctx_->float64())
        throw error(error_code::unsupported, "strix::vulkan: float64 add and mul reductions need shaderFloat64, which " + ctx_->device().name +
                                                 " lacks (" + j.context.str() + ")");
    pipeline_key key{shader::reduce, elem, rank, index_type, policy, 0};
    key.type = static_cast<std::uint32_t>(t);
    key.reduction = static_cast<std::uint32_t>(up.reduction);
    if (!j.deterministic && (elem < 8 || ctx_->int64_atomics())) {
        barrier_for(reads, out);
        dispatch(key, p);
        return;
    }
    // deterministic: (slot, update number) pairs, sorted stably by slot, each slot's run
    // folded in C order, a chunk of at most fold_chunk() updates per dispatch. A map of the
    // slots (a bit or a word each) finds whether any slot has two updates; where none does, each update is applied to its
    // target at once and the pairs, the sort and the fold have no work groups at all
    if (slots > (std::uint64_t{1} << 32))
        throw error(error_code::unsupported, "strix::vulkan: a deterministic scatter reduction onto more than 2^32 elements (" + j.context.str() + ")");
    const std::uint64_t tiles = (n + 255) / 256, hist = tiles * 256, blocks = (hist + 4095) / 4096;
    // The longest run any slot can have: updates that differ in a coordinate with an output
    // term land on different elements (an output never overlaps itself), so only the
    // dimensions the index decides can pile onto one target — 4,096 of a 4096x4096 column
    // scatter, not 16M. The fold records a dispatch per chunk of that, not of every update.
    std::uint64_t run_bound = 1;
    for (int i = 0; i < up.rank; ++i) // (both factors below 2^32: no overflow)
        if (const auto& d = up.dims[static_cast<std::size_t>(i)]; d.dst == 0) run_bound = std::min(n, run_bound * std::min(n, static_cast<std::uint64_t>(d.size)));
    const std::uint64_t chunk = ctx_->fold_chunk(), chunks = std::max<std::uint64_t>(1, (run_bound + chunk - 1) / chunk);
    // words: starts, ends (slots each; written by the runs pass for every slot with updates,
    // read only for those), a bit per slot (or a word), the longest run and the repeats word
    // (zeroed with the bits); the chunks' dispatch arguments, then those of the five passes that run only
    // where a slot repeats (sort tiles, prefix-sum blocks, sorted pairs, slots, the pairs); two
    // pair arrays (keys, numbers); the digit counts, their prefix sums and their block totals
    const std::uint64_t slot_shift = slots >= ctx_->slot_bits_from() ? 5 : 0; // a bit or a word per slot
    const std::uint64_t at_bits = slots * 2, at_max_run = at_bits + ((slots + (std::uint64_t{1} << slot_shift) - 1) >> slot_shift), at_repeats = at_max_run + 1, at_args = at_max_run + 2,
                        at_skip = at_args + 3 * chunks, at_pairs = at_skip + 15, at_hist = at_pairs + 4 * n;
    const std::uint64_t words = at_hist + 2 * hist + blocks;
    const scratch_block work = scratch(words * 4);
    const range sr{work.address, work.address + work.size};
    const auto addr = [&](std::uint64_t word) { return static_cast<std::int64_t>(work.address + word * 4); };
    const std::int64_t keys[2] = {addr(at_pairs), addr(at_pairs + 2 * n)}, vals[2] = {addr(at_pairs + n), addr(at_pairs + 3 * n)};
    // (not a structured binding: clang before 16 cannot capture one in a lambda)
    const std::pair<std::uint32_t, std::uint32_t> g = grid((slots + 255) / 256);
    const std::uint32_t fx = g.first, fy = g.second;
    // the Order record (shaders/common.glsl) with pair arrays `from` -> `to`, digit at `shift`
    const auto order = [&](int from, int to, std::int64_t shift) {
        return upload_meta(std::vector<std::int64_t>{keys[from], vals[from], keys[to], vals[to], addr(at_hist), addr(at_hist + hist),
                                                     static_cast<std::int64_t>(tiles), shift, addr(0), addr(slots), addr(at_max_run),
                                                     addr(at_args), static_cast<std::int64_t>(chunks), static_cast<std::int64_t>(chunk), fx, fy,
                                                     addr(at_repeats), addr(at_bits), static_cast<std::int64_t>(slot_shift)});
    };
    barrier_for({}, sr);
    fill_zero(work.handle, work.offset + at_bits * 4, (at_args - at_bits) * 4);
    transfer_barrier();
    reads.push_back(sr);
    barrier_for(reads, sr);
    key.phase = 1;
    p.aux_addr = order(1, 0, 0);
    dispatch(key, p); // each update's bit: whether a slot repeats
    full_barrier();
    key.phase = 6;
    dispatch(key, p); // no slot repeats: each update applied to its target
    // the other passes, dispatched indirectly: no work groups at all where no slot repeats (a
    // pass whose groups all return at once still costs its launch: 0.1 ms and more for 16M
    // invocations on the H200)
    const std::uint64_t grids[5] = {tiles, blocks, (n + 255) / 256, (slots + 255) / 256, (n + 255) / 256};
    std::vector<std::int64_t> sizes;
    for (const std::uint64_t gs : grids) {
        const auto [x, y] = grid(gs);
        sizes.insert(sizes.end(), {x, y});
    }
    push kp{};
    kp.src = upload_meta(sizes);
    kp.dst = static_cast<std::uint64_t>(addr(at_skip));
    kp.aux_addr = order(0, 0, 0);
    kp.count = 1;
    pipeline_key skip_args{shader::scan, 4, 1, 0, 0, 6};
    dispatch(skip_args, kp);
    full_barrier(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    const auto when_repeats = [&](pipeline_key k, const push& q, int which) {
        dispatch(k, q, 0, work.handle, work.offset + (at_skip + 3 * static_cast<std::uint64_t>(which)) * 4);
    };
    key.phase = 7;
    when_repeats(key, p, 4); // the pairs, in update order
    int sorted = 0;
    const std::uint64_t key_bits = slots > 1 ? static_cast<std::uint64_t>(std::bit_width(slots - 1)) : 0;
    pipeline_key scan{shader::scan, 4, 1, 0, 0, 0};
    push sp{};
    sp.aux_addr = upload_meta(std::vector<std::int64_t>{addr(at_hist), addr(at_hist + hist), 0, addr(at_hist + 2 * hist), static_cast<std::int64_t>(blocks),
                                                        addr(at_repeats)});
    sp.count = hist;
    for (std::uint64_t shift = 0; shift < key_bits; shift += 8, sorted ^= 1) {
        push tp{};
        tp.count = n;
        tp.aux_addr = order(sorted, sorted ^ 1, static_cast<std::int64_t>(shift));
        full_barrier();
        scan.phase = 3;
        when_repeats(scan, tp, 0); // digit counts per tile
        for (std::uint32_t phase = 0; phase < 3; ++phase) {
            full_barrier();
            scan.phase = phase;
            if (phase == 1) dispatch(scan, sp, 1); // their places
            else when_repeats(scan, sp, 1);
        }
        full_barrier();
        scan.phase = 4;
        when_repeats(scan, tp, 0); // each pair to its place
    }
    p.aux_addr = order(sorted, sorted, 0);
    full_barrier();
    key.phase = 2;
    when_repeats(key, p, 2); // each slot's run
    full_barrier();
    key.phase = 3;
    push fp = p;
    fp.count = slots;
    fp.aux = 0;
    fp.aux2 = static_cast<std::uint32_t>(chunk);
    when_repeats(key, fp, 3); // chunk 0 of every run, and the longest run
    if (chunks > 1) {
        full_barrier();
        scan.phase = 5;
        push ap{};
        ap.aux_addr = p.aux_addr;
        ap.count = chunks;
        dispatch(scan, ap); // which later chunks run
        full_barrier(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
        for (std::uint64_t c = 1; c < chunks; ++c) {
            if (c > 1) full_barrier();
            fp.aux = static_cast<std::uint32_t>(c);
            dispatch(key, fp, 0, work.handle, work.offset + (at_args + 3 * c) * 4);
        }
    }
    set_written({out, sr});
}

void encoder::rollback(op_saved&& s) {
    for (auto it = snapshot_log_.rbegin(); it != snapshot_log_.rend(); ++it) { // its copies of earlier checks' indices, undone
        if (it->first >= checks_.size()) continue;
        checks_[it->first].indices = it->second;
        checks_[it->first].snapshot = {};
    }
    snapshot_log_.clear();
    checks_.erase(checks_.begin() + static_cast<std::ptrdiff_t>(std::min(s.checks, checks_.size())), checks_.end());
    shared_checks_.resize(std::min(s.shared_checks, shared_checks_.size()));
    if (pin_on_record_ && owners_.size() > s.rec.owners)
        ctx_->buffers().unpin(std::span<const std::uint64_t>(owners_.data() + s.rec.owners, owners_.size() - s.rec.owners));
    restore_state(std::move(s.rec));
}

void encoder::snapshot_indices_before(range write) {
    for (std::size_t k = 0; k < checks_.size(); ++k) {
        auto& c = checks_[k];
        if (c.snapshot || !meets({c.indices.range()}, write)) continue;
        if (op_depth_ > 0) snapshot_log_.emplace_back(k, c.indices);
        c.snapshot = detail::make_owned<device_tensor>(*ctx_, c.indices.type, c.indices.sizes);
        const device_view copy = c.snapshot->view();
        auto p = strix::detail::copy_plan(c.indices.as_any(), copy.as_any());
        plan::collapse(p);
        const device_view from = c.indices;
        c.indices = copy;
        // the copy runs whether or not the writing operator's own check fails (unguarded)
        const guard_word g = std::exchange(guard_, guard_word{});
        record_move(p, {from.range()}, copy.range());
        guard_ = g;
    }
}

void encoder::record_move(const plan::move_plan& original, const std::vector<range>& reads, range write, bool hazards) {
    ensure_recording();
    if (original.rank == 0 || original.count() == 0) return;
    std::optional<plan::move_plan> wide_plan = detail::widened(original);
    const plan::move_plan& p = wide_plan ? *wide_plan : original;
    if (const auto t = detail::tile_plan(p, ctx_->tile_words())) {
        record_tiled(p, *t, reads, write, hazards);
        counters_.widened += wide_plan ? 1 : 0;
        return;
    }
    const std::uint32_t vec = detail::chunk_elements(p);
    bool narrow = !ctx_->wide_arithmetic() && detail::narrow_fits(p, vec);
    std::optional<pad_mode> fold = narrow ? detail::plan_fold(p) : std::nullopt;
    std::uint64_t map_words = 0; // the tables of padded terms the shader reads: none when it folds
    for (int i = 0; i < p.rank && !fold; ++i) {
        const std::uint64_t n = detail::padded_count(p.dims[static_cast<std::size_t>(i)]);
        if (n >= (std::uint64_t{1} << 32)) throw error(error_code::unsupported, "strix::vulkan: pads of 2^32 or more elements on one axis");
        map_words += n;
    }
    if (narrow && (static_cast<std::uint64_t>(p.rank) * narrow_words + map_words) * 8 >= (std::uint64_t{1} << 31)) {
        narrow = false; // the narrow records hold their tables' offsets in 32 bits
        fold.reset();
    }
    // the records, then the tables they point to: by address (Dim) or by byte offset from
    // the records (NarrowRecord); 1 marks a folded dimension, 0 an affine one
    const std::size_t record_words = narrow ? narrow_words : dim_words;
    const meta_block meta = meta_alloc((static_cast<std::size_t>(p.rank) * record_words + static_cast<std::size_t>(map_words)) * 8);
    std::vector<std::int64_t> words;
    std::size_t next_map = static_cast<std::size_t>(p.rank) * record_words; // in words
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        std::int64_t map = 0;
        if (!d.is_affine() && fold) {
            map = 1;
            ++counters_.folded;
        } else if (!d.is_affine()) {
            map = static_cast<std::int64_t>(narrow ? next_map * 8 : meta.address + next_map * 8);
            next_map += static_cast<std::size_t>(detail::padded_count(d));
        }
        if (narrow) {
            const auto r = detail::narrow_record(d, static_cast<std::int32_t>(map));
            words.resize(words.size() + narrow_words);
            std::memcpy(words.data() + words.size() - narrow_words, r.data(), sizeof r);
        } else {
            words.insert(words.end(), {d.size, d.dst, d.src, d.key, map, d.lo, d.hi});
        }
    }
    for (int i = 0; i < p.rank && !fold; ++i) { // each table: the terms of [0, lo), then of [hi, size)
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        if (d.is_affine()) continue;
        for (std::int64_t o = 0; o < d.lo; ++o) words.push_back(d.source(o));
        for (std::int64_t o = d.hi; o < d.size; ++o) words.push_back(d.source(o));
    }
    std::memcpy(meta.host, words.data(), words.size() * 8);
    push pc{};
    pc.src = reinterpret_cast<std::uintptr_t>(p.src);
    pc.dst = reinterpret_cast<std::uintptr_t>(p.dst);
    pc.dims = meta.address;
    pc.indices = reinterpret_cast<std::uintptr_t>(p.index);
    pc.count = static_cast<std::uint64_t>(p.count()) / vec;
    pc.flag = frame_->flag.address();
    pc.axis_size = p.axis_size;
    pc.axis_stride = p.axis_stride;
    std::memcpy(pc.fill, p.fill.data(), 16);
    pipeline_key key{shader::move, static_cast<std::uint32_t>(p.elem), static_cast<std::uint32_t>(p.rank),
                     p.index ? index_code(p.index_type) : 0u, p.clamp ? 1u : 0u, 0};
    key.vec = vec;
    key.unroll = vec > 1 ? ctx_->unroll_chunks() : p.elem == 16 ? ctx_->unroll_16() : 1;
    key.narrow = narrow ? 1u : 0u;
    key.fold = fold ? static_cast<std::uint32_t>(*fold) : detail::no_fold;
    counters_.narrow += narrow ? 1 : 0;
    counters_.widened += wide_plan ? 1 : 0;
    counters_.chunked += vec > 1 ? 1 : 0;
    if (hazards) barrier_for(reads, write);
    dispatch(key, pc, (pc.count + 256 * key.unroll - 1) / (256 * key.unroll));
}

void encoder::record_tiled(const plan::move_plan& p, const detail::tile_layout& t, const std::vector<range>& reads, range write, bool hazards) {
    std::vector<std::int64_t> words; // Dim records (all affine)
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        words.insert(words.end(), {d.size, d.dst, d.src, d.key, 0, d.lo, d.hi});
    }
    push pc{};
    pc.src = reinterpret_cast<std::uintptr_t>(p.src);
    pc.dst = reinterpret_cast<std::uintptr_t>(p.dst);
    pc.dims = upload_meta(words);
    pc.indices = reinterpret_cast<std::uintptr_t>(p.index);
    pc.count = t.rows;
    pc.flag = frame_->flag.address();
    pc.axis_size = p.axis_size;
    pc.axis_stride = p.axis_stride;
    pc.aux = static_cast<std::uint32_t>(t.axis);
    pc.aux2 = t.width;
    pc.aux_addr = t.across;
    pc.lo = t.down;
    pipeline_key key{shader::tile, static_cast<std::uint32_t>(p.elem), static_cast<std::uint32_t>(p.rank), index_code(p.index_type), p.clamp ? 1u : 0u, 0};
    key.vec = t.vec;
    key.tile = ctx_->tile_words();
    ++counters_.tiled;
    if (hazards) barrier_for(reads, write);
    dispatch(key, pc, t.groups);
}

void encoder::report_index_errors() {
    if (!flag_raised()) return;
    for (const auto& c : checks_) {
        if (c.guard && *c.guard == 0) continue; // its operator's indices were all in range
        // read the indices back and let the CPU's resolver name the first bad one
        const host_tensor host = download_view(*ctx_, c.indices);
        c.report(host.view());
    }
    throw error(error_code::index_out_of_range, "strix::vulkan: an index was out of range, but none is now (were the indices changed outside the recording?)");
}

host_tensor download_view(context& ctx, const device_view& v) {
    check_operand(ctx, v, "stream::download_view", "view"); // an operator's checks: it reads the view on the device
    // copy the view into a C-order device tensor with a move plan, then read that back
    device_tensor packed(ctx, v.type, v.sizes);
    {
        encoder e(ctx, VK_NULL_HANDLE);
        e.begin_own();
        auto p = strix::detail::copy_plan(v.as_any(), packed.view().as_any());
        plan::collapse(p);
        e.record_move(p, {v.range()}, packed.view().range());
        e.end_own();
        e.submit_own();
        e.wait_own();
    }
    host_tensor out(v.type, v.sizes);
    download(ctx, packed, out.view());
    return out;
}

} // namespace strix::vulkan::detail
namespace strix::vulkan::detail {

std::pair<std::uint64_t, std::uint64_t> encoder::record_tuples(const device_view& indices, const strix::detail::tuple_axes& axes, index_policy policy,
                                                          const char* op, const operand_list& context, bool table) {
    const int q = indices.sizes.rank;
    const std::int64_t k = indices.sizes[q - 1];
    const auto ies = static_cast<std::int64_t>(size_of(indices.type));
    std::vector<std::int64_t> dims;
    for (int i = 0; i + 1 < q; ++i) dims.insert(dims.end(), {indices.sizes[i], 0, 0, indices.strides[static_cast<std::size_t>(i)] * ies, 0, 0, 0});
    for (std::int64_t j = 0; j < k; ++j)
        dims.insert(dims.end(), {axes.n[static_cast<std::size_t>(j)], 0, axes.stride[static_cast<std::size_t>(j)],
                                 j * indices.strides[static_cast<std::size_t>(q - 1)] * ies, 0, 0, 0});
    if (policy == index_policy::error)
        check_indices_later(indices, [axes, op, context](const any_cview& h) {
            strix::detail::resolve_tuples(h, axes.n, axes.stride, index_policy::error, op, axes.first, context);
        });
    return record_resolve(indices, q - 1, k, std::move(dims), axes.bias, policy, table);
}

} // namespace strix::vulkan::detail
