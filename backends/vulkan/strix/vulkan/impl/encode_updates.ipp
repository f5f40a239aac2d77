namespace strix::vulkan::detail {

bool encoder::claims_scatter(const device_view& output, std::uint64_t n) const {
    const std::size_t elem = size_of(output.type);
    if (n == 0 || !ctx_->scatter_claims()) return false;
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

std::optional<plan::update_plan> encoder::row_pieces(const plan::update_plan& up, std::uint64_t row, std::uint32_t elem, std::uint64_t out_first) {
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

encoder::scatter_route encoder::choose_scatter(const update_job& j, std::uint64_t n) const {
    const plan::update_plan& up = j.plan;
    if (up.reduction == scatter_reduction::none) {
        // unique indices (the caller's promise): no winner to choose, every update is written
        // once: n·elem read and written, nothing else (and the input's copy before it)
        if (up.unique) return {scatter_strategy::direct, 1};
        const std::uint64_t row = winner_row(j);
        // Claims or rows, by the bytes each moves (an atomic counted as a read and a write of
        // its word), for S target slots of `elem` bytes, n updates, rows of `row` elements:
        //   claims  c·S to fill the claims (c = 8 or 4 bytes), 2c·n for an atomic per update,
        //           c·S for the last pass's read of every claim, elem·n to read the updates
        //           and elem·min(n, S) to write the winners
        //   rows    4·S/row to fill a word per row, 8·n/row for an atomic per row, 4·n/row to
        //           read the row's word again, 2·elem·n to read and write the winners' rows
        // A claim per element loses wherever rows exist, unless many rows repeat (n well
        // past S, 8-byte elements). A copy fused into the claims' last pass (an
        // out-of-place scatter, recording::record_checked) was promised the claim path.
        // Without rows the claim path's measured threshold stands (claims_scatter).
        if (claims_scatter(j.output, n)) {
            if (row <= 1 || j.fused_input != 0) return {scatter_strategy::claims, 1};
            const double S = static_cast<double>((j.output.range().second - j.output.range().first) / size_of(j.output.type));
            const double e = static_cast<double>(size_of(j.output.type)), c = e == 4 && ctx_->int64_atomics() ? 8.0 : 4.0;
            const double N = static_cast<double>(n), r = static_cast<double>(row);
            const double claims = 2 * c * S + 2 * c * N + e * N + e * std::min(N, S);
            const double rows = (4 * S + 12 * N) / r + 2 * e * N;
            if (claims <= rows) return {scatter_strategy::claims, 1};
            return {scatter_strategy::rows, row};
        }
        if (row > 1) return {scatter_strategy::rows, row};
        return {scatter_strategy::winners, 1};
    }
    const auto elem = size_of(j.output.type);
    if (!j.deterministic && (elem < 8 || ctx_->int64_atomics())) return {scatter_strategy::atomics, 1};
    return {scatter_strategy::buckets, 1};
}

VkDeviceAddress encoder::upload_update_dims(const plan::update_plan& q) {
    std::vector<std::int64_t> dims; // (size, dst, src, key, 0, 0, 0) per dimension
    for (int i = 0; i < q.rank; ++i) {
        const auto& d = q.dims[static_cast<std::size_t>(i)];
        dims.insert(dims.end(), {d.size, d.dst, d.src, d.key, 0, 0, 0});
    }
    return upload_dims(dims);
}

void encoder::record_updates(const update_job& j) {
    const plan::update_plan& up = j.plan;
    const auto n = static_cast<std::uint64_t>(up.count());
    if (n >= (std::uint64_t{1} << 32) - 1)
        throw error(error_code::unsupported, "strix::vulkan: more than 2^32 - 2 updates in one scatter (" + j.context.str() + ")");
    update_start u;
    u.n = n;
    u.elem = static_cast<std::uint32_t>(size_of(j.output.type));
    u.out = j.output.range();
    u.slots = (u.out.second - u.out.first) / u.elem;
    push& p = u.p;
    p.src = reinterpret_cast<std::uintptr_t>(up.src);
    p.dst = reinterpret_cast<std::uintptr_t>(up.dst);
    p.dims = upload_update_dims(up);
    p.indices = reinterpret_cast<std::uintptr_t>(up.index);
    p.count = n;
    p.flag = frame_->flag.address();
    p.axis_size = up.axis_size;
    p.axis_stride = up.axis_stride;
    p.lo = u.out.first;
    u.rank = static_cast<std::uint32_t>(up.rank);
    u.policy = up.clamp ? 1u : 0u;
    u.index_type = index_code(up.index_type);
    u.reads = j.reads;
    const bool windows = !bound_whole(u.out.first); // the baseline path, an output larger than one binding
    if (windows && up.reduction == scatter_reduction::none) {
        scatter_by_windows(j, u);
        return;
    }
    const scatter_route r = choose_scatter(j, n);
    switch (r.strategy) {
    case scatter_strategy::claims: scatter_by_claims(j, u); return;
    case scatter_strategy::rows: scatter_by_rows(j, u, r.row); return;
    case scatter_strategy::winners: scatter_by_winners(u); return;
    case scatter_strategy::direct: scatter_direct(j, u); return;
    case scatter_strategy::atomics:
    case scatter_strategy::buckets: break;
    }
    const dtype t = j.output.type;
    if ((t == dtype::float64 && (up.reduction == scatter_reduction::add || up.reduction == scatter_reduction::mul)) && !ctx_->float64())
        throw error(error_code::unsupported, "strix::vulkan: float64 add and mul reductions need shaderFloat64, which " + ctx_->device().name +
                                                 " lacks (" + j.context.str() + ")");
    if (r.strategy == scatter_strategy::buckets) reduce_by_buckets(j, u); // (in windows where the output needs them)
    else if (windows) reduce_by_windows(j, u);
    else reduce_by_atomics(j, u);
}

void encoder::scatter_by_claims(const update_job& j, update_start& u) {
    const std::uint32_t elem = u.elem;
    const range out = u.out;
    const std::uint64_t slots = u.slots;
    push& p = u.p;
    const std::uint32_t rank = u.rank;
    const std::uint32_t policy = u.policy;
    const std::uint32_t index_type = u.index_type;
    auto& reads = u.reads;
    // one claim per slot: (update number + 1) << 32 | the update's bits for 4-byte
    // elements where 64-bit atomics are, else the update number + 1
    const bool wide = elem == 4 && ctx_->int64_atomics();
    const std::uint64_t claim_bytes = wide ? 8 : 4;
    const scratch_block claims = scratch(slots * claim_bytes);
    const range cr{claims.address, claims.address + slots * claim_bytes};
    barrier_for({}, cr);
    fill_zero(claims.handle, claims.offset, claims.size);
    transfer_barrier();
    p.aux_addr = claims.address;
    pipeline_key key{shader::reduce, elem, rank, index_type, policy, 4};
    key.type = info_of(j.output.type).shader; // the reduce shader's arithmetic code
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
    if (wide) key.rank = 1; // reads no update: one pipeline for every rank
    key.index_type = 0;
    key.policy = 0;
    dispatch(key, rp);
    read_ = reads;
    set_written({out});
    count_stat(&recording_stats::claim_scatters);
}

void encoder::scatter_by_rows(const update_job& j, update_start& u, std::uint64_t row) {
    const std::uint64_t n = u.n;
    const std::uint32_t elem = u.elem;
    const range out = u.out;
    const std::uint64_t slots = u.slots;
    push& p = u.p;
    const std::uint32_t rank = u.rank;
    const std::uint32_t policy = u.policy;
    const std::uint32_t index_type = u.index_type;
    auto& reads = u.reads;
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
    if (dispatch_row_pieces(j, u, row, 1)) count_stat(&recording_stats::row_piece_scatters); // pass 1 in 16-byte pieces
    else dispatch(key, p);
    read_ = reads;
    set_written({out});
    count_stat(&recording_stats::row_scatters);
}

bool encoder::dispatch_row_pieces(const update_job& j, const update_start& u, std::uint64_t row, std::uint32_t phase) {
    const auto w = row_pieces(j.plan, row, u.elem, u.out.first);
    if (!w) return false;
    push wp = u.p;
    wp.dims = upload_update_dims(*w);
    wp.count = u.n * u.elem / 16;
    wp.fill[0] = static_cast<std::uint32_t>(row * u.elem / 16); // pieces per winner (pass 1; the direct pass reads none)
    dispatch({shader::scatter, 16, static_cast<std::uint32_t>(w->rank), u.index_type, u.policy, phase}, wp);
    return true;
}

void encoder::scatter_by_winners(update_start& u) {
    const std::uint64_t n = u.n;
    const std::uint32_t elem = u.elem;
    const range out = u.out;
    const std::uint64_t slots = u.slots;
    push& p = u.p;
    const std::uint32_t rank = u.rank;
    const std::uint32_t policy = u.policy;
    const std::uint32_t index_type = u.index_type;
    auto& reads = u.reads;
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
}

void encoder::scatter_direct(const update_job& j, update_start& u) {
    // distinct targets promised: one pass writes every update (scatter.comp's PHASE 3), rows in
    // 16-byte pieces where they allow (as the row path's pass 1). A false promise leaves a
    // repeated target with one of its updates, and writes nowhere else.
    push& p = u.p;
    p.aux_addr = 0;
    p.fill[0] = 0;
    barrier_for(u.reads, u.out); // after the input's copy
    const std::uint64_t row = winner_row(j);
    if (row > 1 && dispatch_row_pieces(j, u, row, 3)) count_stat(&recording_stats::direct_piece_scatters);
    else dispatch({shader::scatter, u.elem, u.rank, u.index_type, u.policy, 3}, p);
    read_ = u.reads;
    set_written({u.out});
    count_stat(&recording_stats::direct_scatters);
}

void encoder::scatter_by_windows(const update_job& j, update_start& u) {
    const std::uint64_t n = u.n;
    const std::uint32_t elem = u.elem;
    const range out = u.out;
    push& p = u.p;
    auto& reads = u.reads;
    const std::uint64_t limit = ctx_->max_binding_range(), align = ctx_->storage_alignment();
    require_whole_updates(j, u);
    // a window's bytes: its winner slots (4 bytes per element, in scratch of a power of two) within half a binding
    std::uint64_t window = std::min(limit - align, (limit / 2 - 16) / 4 * elem);
    window = std::max<std::uint64_t>(window / std::max<std::uint64_t>(align, elem) * std::max<std::uint64_t>(align, elem), elem);
    const std::uint64_t base = ctx_->buffers().locate(out.first)->address;
    const auto [gx, gy] = grid((n + 255) / 256);
    p.aux = gx;
    p.aux2 = gy;
    barrier_for(reads, out); // after the input's copy
    for (std::uint64_t w = out.first; w < out.second; w += window) {
        if (w > out.first) full_barrier(); // (windows bound at aligned starts overlap by less than that alignment)
        const std::uint64_t start = base + (w - base) / align * align, end = std::min(out.second, w + window);
        reach_ = {range{0, 0}, range{start, end}, range{0, 0}};
        const std::uint64_t slots = (end - start + elem - 1) / elem;
        const scratch_block winners = scratch(16 + slots * 4);
        fill_zero(winners.handle, winners.offset, winners.size);
        transfer_barrier();
        push wp = p;
        wp.aux_addr = winners.address;
        wp.lo = start; // slot 0: the window's first byte
        pipeline_key key{shader::scatter, elem, u.rank, u.index_type, u.policy, 0};
        dispatch(key, wp);
        full_barrier(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
        key.phase = 1;
        dispatch(key, wp, 0, winners.handle, winners.offset);
        reach_ = {};
    }
    read_ = reads;
    set_written({out});
}

void encoder::require_whole_updates(const update_job& j, const update_start& u) const {
    if (!bound_whole(u.p.src) || !bound_whole(u.p.indices))
        throw error(error_code::unsupported, "strix::vulkan: " + j.context.str() + ": a scatter whose output and updates or indices are all larger than " +
                                                 ctx_->device().name + " binds at once (maxStorageBufferRange " + std::to_string(ctx_->max_binding_range()) +
                                                 ") is not supported on the baseline path");
}

void encoder::reduce_by_windows(const update_job& j, update_start& u) {
    require_whole_updates(j, u);
    // a window owns `window` bytes (a multiple of the alignment, so of the element: 1, 2 or 4
    // bytes here); its binding starts aligned at or below its first byte and holds the 32-bit
    // word of a 1- or 2-byte element it owns (owned_window)
    const std::uint64_t align = ctx_->storage_alignment(), window = owned_window();
    const range out = u.out;
    const std::uint64_t base = ctx_->buffers().locate(out.first)->address;
    pipeline_key key{shader::reduce, u.elem, u.rank, u.index_type, u.policy, 0};
    key.type = info_of(j.output.type).shader; // the reduce shader's arithmetic code
    key.reduction = static_cast<std::uint32_t>(j.plan.reduction);
    barrier_for(u.reads, out);
    for (std::uint64_t w = out.first; w < out.second; w += window) {
        const std::uint64_t start = base + (w - base) / align * align, end = std::min(out.second, w + window);
        reach_ = {range{0, 0}, range{start, end}, range{0, 0}};
        push wp = u.p;
        wp.lo = w;
        wp.aux = static_cast<std::uint32_t>(window);
        dispatch(key, wp);
        count_stat(&recording_stats::target_windows);
    }
    reach_ = {};
}

void encoder::reduce_by_atomics(const update_job& j, update_start& u) {
    const plan::update_plan& up = j.plan;
    const std::uint32_t elem = u.elem;
    const range out = u.out;
    push& p = u.p;
    const std::uint32_t rank = u.rank;
    const std::uint32_t policy = u.policy;
    const std::uint32_t index_type = u.index_type;
    auto& reads = u.reads;
    pipeline_key key{shader::reduce, elem, rank, index_type, policy, 0};
    key.type = info_of(j.output.type).shader; // the reduce shader's arithmetic code
    key.reduction = static_cast<std::uint32_t>(up.reduction);
    barrier_for(reads, out);
    dispatch(key, p);
}

void encoder::reduce_by_buckets(const update_job& j, update_start& u) {
    const plan::update_plan& up = j.plan;
    const std::uint64_t n = u.n;
    const std::uint32_t elem = u.elem;
    const range out = u.out;
    const std::uint32_t rank = u.rank;
    const std::uint32_t policy = u.policy;
    const std::uint32_t index_type = u.index_type;
    auto& reads = u.reads;
    pipeline_key key{shader::reduce, elem, rank, index_type, policy, 0};
    key.type = info_of(j.output.type).shader; // the reduce shader's arithmetic code
    key.reduction = static_cast<std::uint32_t>(up.reduction);
    // deterministic: (slot, update number) pairs, sorted stably by slot, each slot's run
    // folded in C order, a chunk of at most fold_chunk() updates per dispatch. A map of the
    // slots (a bit or a word each) finds whether any slot has two updates; where none does, each update is applied to its
    // target at once and the pairs, the sort and the fold have no work groups at all
    if (u.slots > (std::uint64_t{1} << 32))
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
    // pair arrays (keys, numbers); the digit counts, their prefix sums and their block totals.
    // All but the first three grow with the updates, not the output:
    const std::uint64_t fixed_words = 2 + 3 * chunks + 15 + 4 * n + 2 * hist + blocks;
    // the baseline path: the records hold 32-bit byte offsets in the scratch, which binds as
    // AUX, and lie in one metadata chunk with the Dim records (both bind as PLAN)
    const bool narrow = !ctx_->full_path();
    const std::uint64_t limit = ctx_->max_binding_range();
    const auto too_much_scratch = [&](std::uint64_t bytes) {
        return error(error_code::unsupported, "strix::vulkan: a deterministic scatter reduction's " + std::to_string(bytes) + " bytes of scratch are more than " +
                                                  ctx_->device().name + " binds at once (maxStorageBufferRange " + std::to_string(limit) + "; " + j.context.str() + ")");
    };
    // The baseline path's output larger than one binding: the whole pass once per window of
    // the output, each owning `window` bytes (a multiple of the element and the alignment) and
    // as many slots, plus one past them where the updates outside it sort (reduce.comp's
    // `outside`), and small enough that its scratch fits one binding too
    const bool windowed = !bound_whole(out.first);
    std::uint64_t window = out.second - out.first;
    if (windowed) {
        require_whole_updates(j, u);
        const std::uint64_t unit = std::max<std::uint64_t>(ctx_->storage_alignment(), elem);
        if (fixed_words * 4 + 64 > limit) throw too_much_scratch(fixed_words * 4);
        // slots within the words left: each costs two words and at most one more for its map
        const std::uint64_t fit = (limit / 4 - fixed_words - 2) / 3;
        window = std::min(owned_window(), fit > 1 ? (fit - 1) * elem : 0) / unit * unit;
        if (window == 0) throw too_much_scratch((fixed_words + 3 * (unit / elem + 1)) * 4);
    }
    // the slots the pass keys by: the output's, or a window's and one more past them (every
    // window keys by as many: the last one's sentinel, fewer, lies among them)
    const std::uint64_t slots = windowed ? window / elem + 1 : u.slots;
    const std::uint64_t slot_shift = slots >= ctx_->slot_bits_from() ? 5 : 0; // a bit or a word per slot
    const std::uint64_t at_bits = slots * 2, at_max_run = at_bits + ((slots + (std::uint64_t{1} << slot_shift) - 1) >> slot_shift), at_repeats = at_max_run + 1,
                        at_args = at_max_run + 2, at_skip = at_args + 3 * chunks, at_pairs = at_skip + 15, at_hist = at_pairs + 4 * n;
    const std::uint64_t words = at_hist + 2 * hist + blocks;
    if (narrow && words * 4 > limit) throw too_much_scratch(words * 4);
    const scratch_block work = scratch(words * 4); // one for every window, each after the last
    const range sr{work.address, work.address + work.size};
    struct aux_scope { // AUX while the operator's passes are made
        encoder& r;
        ~aux_scope() { r.aux_binding_ = {}; }
    } scope{*this};
    const std::uint64_t base = windowed ? ctx_->buffers().locate(out.first)->address : 0, align = ctx_->storage_alignment();
    for (std::uint64_t w = out.first; w < out.second; w += window) {
        const std::uint64_t end = std::min(out.second, w + window);
        if (windowed) {
            reach_ = {range{0, 0}, range{base + (w - base) / align * align, end}, range{0, 0}};
            count_stat(&recording_stats::target_windows);
        }
        push p = u.p;
        p.lo = w;
        p.aux = windowed ? static_cast<std::uint32_t>(end - w) : 0u; // the bytes the window owns (0: all)
        if (narrow) {
            aux_binding_ = {work.handle, work.offset, work.size};
            meta_reserve(4096);
            p.dims = upload_update_dims(up);
        }
        const auto addr = [&](std::uint64_t word) { return static_cast<std::int64_t>((narrow ? work.offset : work.address) + word * 4); };
        const auto upload_record = [&](const std::vector<std::int64_t>& fields) {
            if (!narrow) return upload_meta(fields);
            std::vector<std::int32_t> v(fields.size());
            for (std::size_t k = 0; k < fields.size(); ++k) v[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(fields[k]));
            return upload_words(v);
        };
        const std::int64_t keys[2] = {addr(at_pairs), addr(at_pairs + 2 * n)}, vals[2] = {addr(at_pairs + n), addr(at_pairs + 3 * n)};
        // (not a structured binding: clang before 16 cannot capture one in a lambda)
        const std::pair<std::uint32_t, std::uint32_t> g = grid((slots + 255) / 256);
        const std::uint32_t fx = g.first, fy = g.second;
        // the Order record (shaders/common.glsl) with pair arrays `from` -> `to`, digit at `shift`
        const auto order = [&](int from, int to, std::int64_t shift) {
            return upload_record(std::vector<std::int64_t>{keys[from], vals[from], keys[to], vals[to], addr(at_hist), addr(at_hist + hist),
                                                         static_cast<std::int64_t>(tiles), shift, addr(0), addr(slots), addr(at_max_run),
                                                         addr(at_args), static_cast<std::int64_t>(chunks), static_cast<std::int64_t>(chunk), fx, fy,
                                                         addr(at_repeats), addr(at_bits), static_cast<std::int64_t>(slot_shift)});
        };
        barrier_for({}, sr); // (after the last window's passes, which wrote it)
        fill_zero(work.handle, work.offset + at_bits * 4, (at_args - at_bits) * 4);
        transfer_barrier();
        std::vector<range> pass_reads = reads;
        pass_reads.push_back(sr);
        barrier_for(pass_reads, sr);
        if (w == out.first) barrier_for(reads, out);
        key.phase = 1;
        p.aux_addr = order(1, 0, 0);
        dispatch(key, p); // each update's bit: whether a slot repeats
        full_barrier();
        key.phase = 6;
        dispatch(key, p); // no slot repeats: each update applied to its target
        // the other passes, dispatched indirectly: no work groups at all where no slot repeats (a
        // pass whose groups all return at once still costs its launch: bench/NOTES.md, "Figures
        // behind the encoder's choices")
        const std::uint64_t grids[5] = {tiles, blocks, (n + 255) / 256, (slots + 255) / 256, (n + 255) / 256};
        std::vector<std::int64_t> sizes;
        for (const std::uint64_t gs : grids) {
            const auto [x, y] = grid(gs);
            sizes.insert(sizes.end(), {x, y});
        }
        push kp{};
        kp.src = upload_meta(sizes);
        kp.dst = work.address + at_skip * 4;
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
        sp.aux_addr = upload_record(std::vector<std::int64_t>{addr(at_hist), addr(at_hist + hist), 0, addr(at_hist + 2 * hist), static_cast<std::int64_t>(blocks),
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
    reach_ = {};
}

} // namespace strix::vulkan::detail
