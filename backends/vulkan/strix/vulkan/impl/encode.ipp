namespace strix::vulkan::detail {

std::optional<plan::move_plan> regrouped(const plan::move_plan& p) {
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
    // the output in blocks: the inner dimensions dense (a block), each block a whole number of
    // 16-byte chunks and every outer dimension's stride a multiple of 16, so that a chunk lies in
    // one block and starts where its first element goes (move.comp)
    const auto e = static_cast<std::int64_t>(p.elem);
    if (e >= 16 || reinterpret_cast<std::uintptr_t>(p.dst) % 16 != 0) return 1;
    std::int64_t block = e;
    int k = p.rank - 1;
    for (; k >= 0 && p.dims[static_cast<std::size_t>(k)].dst == block; --k) block *= p.dims[static_cast<std::size_t>(k)].size;
    if (block % 16 != 0) return 1;
    for (; k >= 0; --k)
        if (p.dims[static_cast<std::size_t>(k)].dst % 16 != 0) return 1;
    return static_cast<std::uint32_t>(16 / e);
}

bool fits_addr32(const plan::move_plan& p, std::uint32_t vec) {
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

std::array<std::int32_t, 12> addr32_record(const plan::move_dim& d, std::int32_t map) {
    const auto [m, s] = divider(d.size);
    auto i32 = [](std::int64_t v) { return static_cast<std::int32_t>(v); };
    return {i32(d.size), i32(d.src), i32(d.lo), i32(d.hi), i32(d.dst), i32(d.key), map, 0, static_cast<std::int32_t>(m), static_cast<std::int32_t>(s), 0, 0};
}

bool shader_fold_exact(pad_mode m, const plan::move_dim& d) {
    const std::int64_t n = d.hi - d.lo;
    if (d.size >= (std::int64_t{1} << 30) || n < 0) return false; // the shader's coordinates are ints
    if (m == pad_mode::constant) return true;
    if (n == 0) return false; // nothing to repeat
    if (m == pad_mode::edge || (m == pad_mode::reflect && n == 1)) return true; // no period
    const std::int64_t p = m == pad_mode::reflect ? 2 * n - 2 : m == pad_mode::symmetric ? 2 * n : n;
    // the padded j run from -lo to -1 and from n to size - lo - 1: within [-p, 2p)
    return d.lo <= p && (d.size == d.hi || d.size - d.lo - 1 < 2 * p);
}

bool shader_folds(const plan::move_dim& d, pad_mode m) {
    // m folds like the plan's own fold: the same mode, or a one-element source that every
    // fold but constant repeats (plan::fold_source gives 0 for every j)
    const bool same = m == d.fold || (d.hi - d.lo == 1 && d.fold != pad_mode::constant && m != pad_mode::constant);
    return same && shader_fold_exact(m, d);
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

void encoder::check_indices_only(const device_view& indices, std::int64_t n, int axis, std::string_view op, const operand_list& context) {
    if (indices.sizes.count() == 0) return;
    // (the report runs after the submission: it keeps its own copy of the operator's name)
    const auto report = [n, axis, op = checks_name(op), context](const any_cview& h) {
        strix::detail::resolve_indices(h, n, 1, index_policy::error, op, axis, context);
    };
    // the same indices checked against the same size earlier in the stream, behind a barrier,
    // and not written since: this operator's writes wait on that check's guard word
    // (not under a held guard word: that word may be raised by the holder's other checks)
    const bool guarded = guard_.address != 0 && keep_commands_ && !hold_guard_;
    if (guarded) {
        const std::size_t current = seg_writes_.size() - 1, after_writes = segment_after_writes(indices.range());
        for (const auto& sc : shared_checks_)
            if (sc.indices == indices && sc.n == n && sc.segment < current && after_writes <= sc.segment) {
                guard_ = sc.guard;
                check_indices_later(indices, report);
                count_stat(&recording_stats::shared_checks);
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
    p.dims = upload_dims(dims);
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
        count_stat(&recording_stats::dispatches);
        count_stat(&recording_stats::hoisted);
        return table_range;
    }
    barrier_for({indices.range()}, table_range);
    dispatch(key, p);
    last_resolve_segment_ = seg_writes_.size() - 1;
    if (guard_.address) add_written(guard_.range()); // the operator's next dispatch reads it
    return table_range;
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
    std::optional<plan::move_plan> regrouped_plan = detail::regrouped(original);
    const plan::move_plan& p = regrouped_plan ? *regrouped_plan : original;
    count_stat(&recording_stats::regrouped, regrouped_plan ? 1 : 0);
    if (record_windowed_move(p, reads, write, hazards)) return;
    if (const auto t = detail::tile_plan(p, ctx_->tile_words())) {
        record_tiled(p, *t, reads, write, hazards);
        return;
    }
    record_routed_move(p, route_move(p), reads, write, hazards);
}

std::uint64_t encoder::table_words(const plan::move_plan& p) {
    std::uint64_t words = 0;
    for (int i = 0; i < p.rank; ++i) {
        const std::uint64_t n = detail::padded_count(p.dims[static_cast<std::size_t>(i)]);
        if (n >= (std::uint64_t{1} << 32)) throw error(error_code::unsupported, "strix::vulkan: pads of 2^32 or more elements on one axis");
        words += n;
    }
    return words;
}

encoder::move_route encoder::route_move(const plan::move_plan& p) const {
    move_route r;
    r.vec = detail::chunk_elements(p);
    r.addr32 = !ctx_->always_addr64() && detail::fits_addr32(p, r.vec);
    if (!r.addr32 && !ctx_->full_path() && r.vec > 1 && detail::fits_addr32(p, 1)) r.vec = 1; // the baseline path's moves are all ADDR32 ones
    r.addr32 = r.addr32 || (!ctx_->full_path() && detail::fits_addr32(p, r.vec));
    r.fold = r.addr32 ? detail::plan_fold(p) : std::nullopt;
    // the tables of padded terms the shader reads: none when it folds
    if (r.addr32 && !r.fold && (static_cast<std::uint64_t>(p.rank) * addr32_words + table_words(p)) * 8 >= (std::uint64_t{1} << 31))
        r.addr32 = false; // the Addr32Records hold their tables' offsets in 32 bits
    if (!r.addr32 && !ctx_->full_path()) // the baseline path's moves are all ADDR32 ones
        throw error(error_code::unsupported, "strix::vulkan: a move whose byte offsets pass 2^31 needs " + ctx_->full_path_needed());
    return r;
}

void encoder::record_routed_move(const plan::move_plan& p, const move_route& r, const std::vector<range>& reads, range write, bool hazards,
                                 const std::vector<std::int64_t>* outer_terms) {
    const std::uint32_t vec = r.vec;
    const bool addr32 = r.addr32;
    const std::optional<pad_mode>& fold = r.fold;
    const std::uint64_t map_words = fold ? 0 : table_words(p);
    // the records, then the tables they point to: by address (Dim) or by byte offset from
    // the records (Addr32Record); 1 marks a folded dimension, 0 an affine one
    const std::size_t record_words = addr32 ? addr32_words : dim_words;
    // the tables' entries: int64, or int32 on the baseline path (no_source as INT32_MIN)
    const std::size_t entry = ctx_->full_path() ? 8 : 4;
    const std::size_t record_bytes = static_cast<std::size_t>(p.rank) * record_words * 8;
    const meta_block meta = meta_alloc(record_bytes + static_cast<std::size_t>(map_words) * entry);
    std::vector<std::int64_t> words;
    std::size_t next_map = record_bytes; // in bytes
    for (int i = 0; i < p.rank; ++i) {
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        std::int64_t map = 0;
        if (!d.is_affine() && fold) {
            map = 1;
            count_stat(&recording_stats::folded);
        } else if (!d.is_affine()) {
            map = static_cast<std::int64_t>(addr32 ? next_map : meta.address + next_map);
            next_map += static_cast<std::size_t>(detail::padded_count(d)) * entry;
        }
        if (addr32) {
            const auto r = detail::addr32_record(d, static_cast<std::int32_t>(map));
            words.resize(words.size() + addr32_words);
            std::memcpy(words.data() + words.size() - addr32_words, r.data(), sizeof r);
        } else {
            words.insert(words.end(), {d.size, d.dst, d.src, d.key, map, d.lo, d.hi});
        }
    }
    std::vector<std::int64_t> table;
    for (int i = 0; i < p.rank && !fold; ++i) { // each table: the terms of [0, lo), then of [hi, size)
        const auto& d = p.dims[static_cast<std::size_t>(i)];
        if (i == 0 && outer_terms) {
            table.insert(table.end(), outer_terms->begin(), outer_terms->end());
            continue;
        }
        if (d.is_affine()) continue;
        for (std::int64_t o = 0; o < d.lo; ++o) table.push_back(d.source(o));
        for (std::int64_t o = d.hi; o < d.size; ++o) table.push_back(d.source(o));
    }
    std::memcpy(meta.host, words.data(), record_bytes);
    if (!table.empty() && entry == 8) {
        std::memcpy(meta.host + record_bytes, table.data(), table.size() * 8);
    } else if (!table.empty()) { // (ADDR32: every term fits an int32)
        std::vector<std::int32_t> narrow(table.size());
        for (std::size_t k = 0; k < table.size(); ++k)
            narrow[k] = table[k] == plan::no_source ? std::numeric_limits<std::int32_t>::min() : static_cast<std::int32_t>(table[k]);
        std::memcpy(meta.host + record_bytes, narrow.data(), narrow.size() * 4);
    }
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
    pc.aux = source_step_;
    pipeline_key key{shader::move, static_cast<std::uint32_t>(p.elem), static_cast<std::uint32_t>(p.rank),
                     p.index ? index_code(p.index_type) : 0u, p.clamp ? 1u : 0u, 0};
    key.vec = vec;
    key.unroll = vec > 1 ? ctx_->unroll_chunks() : p.elem == 16 ? ctx_->unroll_16() : 1;
    key.addr32 = addr32 ? 1u : 0u;
    key.fold = fold ? static_cast<std::uint32_t>(*fold) : detail::no_fold;
    count_stat(&recording_stats::addr32, addr32 ? 1 : 0);
    count_stat(&recording_stats::chunked, vec > 1 ? 1 : 0);
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
    pc.dims = upload_dims(words);
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
    count_stat(&recording_stats::tiled);
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
        check_indices_later(indices, [axes, op = checks_name(op), context](const any_cview& h) {
            strix::detail::resolve_tuples(h, axes.n, axes.stride, index_policy::error, op, axes.first, context);
        });
    return record_resolve(indices, q - 1, k, std::move(dims), axes.bias, policy, table);
}

} // namespace strix::vulkan::detail
