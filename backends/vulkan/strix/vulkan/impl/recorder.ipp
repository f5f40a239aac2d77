namespace strix::vulkan::detail {

void recorder::submit_own(const char* who) {
    if (const std::uint64_t dead = ctx_->buffers().pin(owners_))
        throw error(error_code::invalid_argument, std::string(who) + ": a device tensor the stream uses (buffer #" + std::to_string(dead) +
                                                      ") was destroyed after it was recorded; record a new stream for the new tensors");
    try {
        ctx_->submit(cmd_, frame_->fence);
    } catch (...) {
        ctx_->buffers().unpin(owners_);
        throw;
    }
    pinned_ = true;
    own_pending_ = true;
}

void recorder::clear_flag() {
    std::memset(frame_->flag.mapped(), 0, 16);
    for (std::size_t c = 0; c <= guard_chunk_ && c < frame_->guards.size(); ++c)
        std::memset(frame_->guards[c].mapped(), 0, c < guard_chunk_ ? guard_chunk_bytes : guard_used_ * 4);
}

auto recorder::new_guard() -> guard_word {
    auto& chunks = frame_->guards;
    if (guard_chunk_ < chunks.size() && guard_used_ * 4 == guard_chunk_bytes) {
        ++guard_chunk_;
        guard_used_ = 0;
    }
    if (guard_chunk_ == chunks.size()) chunks.push_back(ctx_->create_buffer(guard_chunk_bytes, memory::upload, VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT));
    // the baseline path binds the flag and the guard as one operand: each chunk's first word is
    // the flag of the dispatches its guards stamp (flag_raised reads them too)
    if (guard_used_ == 0 && !ctx_->full_path()) {
        std::memset(chunks[guard_chunk_].mapped(), 0, 16);
        guard_used_ = 4;
    }
    const buffer& c = chunks[guard_chunk_];
    guard_word g{c.address() + guard_used_ * 4, reinterpret_cast<std::uint32_t*>(c.mapped()) + guard_used_};
    *g.host = 0;
    ++guard_used_;
    return g;
}

void recorder::record_barrier(VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage, VkAccessFlags src_access, VkAccessFlags dst_access) {
    command c;
    c.what = command::kind::barrier;
    c.src_stage = src_stage;
    c.dst_stage = dst_stage;
    c.src_access = src_access;
    c.dst_access = dst_access;
    seg_writes_.emplace_back(); // a new segment
    queue(c);
}

void recorder::queue(const command& c) {
    if (op_depth_ > 0) {
        pending_.push_back(c);
    } else if (keep_commands_) {
        if (c.what == command::kind::barrier) barrier_at_.push_back(cmds_.size());
        cmds_.push_back(c);
    } else {
        emit(c);
    }
}

std::size_t recorder::segment_after_writes(range r) const {
    for (std::size_t k = seg_writes_.size(); k-- > 0;)
        if (meets(seg_writes_[k], r)) return k + 1;
    return 0;
}

void recorder::flush_commands() {
    for (const command& c : cmds_) emit(c);
    cmds_.clear();
    barrier_at_.clear();
}

void recorder::fill_zero(VkBuffer b, VkDeviceSize offset, VkDeviceSize size) {
    command c;
    c.what = command::kind::fill;
    c.buffer = b;
    c.offset = offset;
    c.size = size;
    queue(c);
}

void recorder::emit(const command& c) {
    const auto& vk = ctx_->vk();
    switch (c.what) {
    case command::kind::barrier: {
        auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = c.src_access;
        mb.dstAccessMask = c.dst_access;
        vk.vkCmdPipelineBarrier(cmd_, c.src_stage, c.dst_stage, 0, 1, &mb, 0, nullptr, 0, nullptr);
        break;
    }
    case command::kind::fill: vk.vkCmdFillBuffer(cmd_, c.buffer, c.offset, c.size, 0); break;
    case command::kind::dispatch:
        vk.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, c.pipeline);
        if (c.set) vk.vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, ctx_->layout(), 0, 1, &c.set, 0, nullptr);
        vk.vkCmdPushConstants(cmd_, ctx_->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &c.pc);
        if (c.buffer != VK_NULL_HANDLE)
            vk.vkCmdDispatchIndirect(cmd_, c.buffer, c.offset);
        else
            vk.vkCmdDispatch(cmd_, c.gx, c.gy, 1);
        break;
    }
}

auto recorder::save_state() const -> op_state {
    return {written_, read_, stats_ ? *stats_ : recording_stats{}, meta_chunk_, meta_used_, guard_chunk_, guard_used_, owners_.size(), frame_->scratch_used,
            seg_writes_.size(), seg_writes_.back()};
}

void recorder::restore_state(op_state&& s) {
    pending_.clear();
    written_ = std::move(s.written);
    read_ = std::move(s.read);
    if (stats_) *stats_ = s.count;
    meta_chunk_ = s.meta_chunk;
    meta_used_ = s.meta_used;
    guard_chunk_ = s.guard_chunk;
    guard_used_ = s.guard_used;
    owners_.resize(s.owners);
    // scratch made for the failed operator stays with the frame, free
    s.scratch_used.resize(frame_->scratch.size(), false);
    frame_->scratch_used = std::move(s.scratch_used);
    seg_writes_.resize(s.segments);
    seg_writes_.back() = std::move(s.last_segment_writes);
    hoists_.clear();
    guard_ = {};
    reach_ = {};
    aux_binding_ = {};
}

void recorder::commit_pending() {
    for (auto& [seg, c] : hoists_) { // before the barrier that ends segment `seg`
        const std::size_t at = barrier_at_[seg];
        cmds_.insert(cmds_.begin() + static_cast<std::ptrdiff_t>(at), c);
        for (std::size_t k = seg; k < barrier_at_.size(); ++k) ++barrier_at_[k];
    }
    hoists_.clear();
    const int depth = std::exchange(op_depth_, 0);
    for (const command& c : pending_) queue(c);
    op_depth_ = depth;
    pending_.clear();
    guard_ = {};
}

void recorder::restart_own() {
    require_success(ctx_->vk().vkResetCommandPool(ctx_->handle(), frame_->pool, 0), "vkResetCommandPool");
    meta_chunk_ = meta_used_ = 0;
    guard_chunk_ = guard_used_ = 0;
    owners_.clear();
    cmds_.clear();
    barrier_at_.clear();
    seg_writes_.assign(1, {});
    hoists_.clear();
    pending_.clear();
    frame_->scratch_used.assign(frame_->scratch.size(), false);
    ctx_->reset_sets(*frame_);
    written_.clear();
    read_.clear();
    if (stats_) *stats_ = {};
    closed_ = false;
}

bool recorder::flag_raised() const {
    std::uint32_t raised = 0;
    std::memcpy(&raised, frame_->flag.mapped(), 4);
    if (!ctx_->full_path()) // and the guard chunks' flags (new_guard)
        for (std::size_t c = 0; c <= guard_chunk_ && c < frame_->guards.size(); ++c)
            if (c < guard_chunk_ || guard_used_ > 0) raised |= *reinterpret_cast<const std::uint32_t*>(frame_->guards[c].mapped());
    return raised != 0;
}

std::uint32_t recorder::index_code(dtype t) {
    switch (t) {
    case dtype::int32: return 1;
    case dtype::int64: return 2;
    case dtype::uint32: return 3;
    default: return 4;
    }
}

auto recorder::scratch(std::uint64_t bytes) -> scratch_block {
    bytes = std::max<std::uint64_t>((bytes + 15) / 16 * 16, 16);
    frame& f = *frame_;
    std::size_t best = f.scratch.size();
    for (std::size_t i = 0; i < f.scratch.size(); ++i)
        if (!f.scratch_used[i] && f.scratch[i].size() >= bytes && (best == f.scratch.size() || f.scratch[i].size() < f.scratch[best].size())) best = i;
    if (best == f.scratch.size()) {
        f.scratch.push_back(ctx_->create_buffer(std::max<std::uint64_t>(std::bit_ceil(bytes), 64 << 10), memory::device));
        f.scratch_used.push_back(false);
    }
    f.scratch_used[best] = true;
    return {f.scratch[best].handle(), 0, f.scratch[best].address(), bytes};
}

auto recorder::meta_alloc(std::size_t bytes) -> meta_block {
    bytes = std::max<std::size_t>((bytes + 15) / 16 * 16, 16);
    // the baseline path binds the plan window's bytes from a plan's start as a uniform buffer:
    // each chunk has as many more, unused
    const std::size_t slack = ctx_->full_path() ? 0 : context::plan_window;
    if (slack && bytes + slack > ctx_->max_binding_range())
        throw error(error_code::unsupported, "strix::vulkan: a plan of " + std::to_string(bytes) + " bytes is more than " + ctx_->device().name +
                                                 " binds at once (maxStorageBufferRange " + std::to_string(ctx_->max_binding_range()) + ")");
    auto& chunks = frame_->meta;
    while (meta_chunk_ < chunks.size() && meta_used_ + bytes + slack > chunks[meta_chunk_].size()) {
        ++meta_chunk_;
        meta_used_ = 0;
    }
    if (meta_chunk_ == chunks.size()) {
        chunks.push_back(ctx_->create_buffer(std::max<std::size_t>(bytes, meta_chunk_bytes) + slack, memory::upload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT));
        meta_used_ = 0;
    }
    const buffer& c = chunks[meta_chunk_];
    const meta_block b{c.address() + meta_used_, c.mapped() + meta_used_};
    meta_used_ += bytes;
    return b;
}

void recorder::meta_reserve(std::size_t bytes) {
    bytes = std::max<std::size_t>((bytes + 15) / 16 * 16, 16);
    (void)meta_alloc(bytes); // the chunk that holds them: then given back, unused
    meta_used_ -= bytes;
}

VkDeviceAddress recorder::upload_meta(const std::vector<std::int64_t>& words) {
    const meta_block b = meta_alloc(words.size() * 8); // rank 0: no words, a minimal piece
    if (!words.empty()) std::memcpy(b.host, words.data(), words.size() * 8);
    return b.address;
}

VkDeviceAddress recorder::upload_dims(const std::vector<std::int64_t>& words) {
    if (ctx_->full_path()) return upload_meta(words);
    std::vector<std::int32_t> narrow(words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] < std::numeric_limits<std::int32_t>::min() || words[i] > std::numeric_limits<std::int32_t>::max())
            throw error(error_code::unsupported, "strix::vulkan: a size or byte stride of " + std::to_string(words[i]) +
                                                     " does not fit the baseline path's 32 bits (the full path needs bufferDeviceAddress and shaderInt64)");
        narrow[i] = static_cast<std::int32_t>(words[i]);
    }
    return upload_words(narrow);
}

VkDeviceAddress recorder::upload_words(const std::vector<std::int32_t>& words) {
    const meta_block b = meta_alloc(words.size() * 4);
    if (!words.empty()) std::memcpy(b.host, words.data(), words.size() * 4);
    return b.address;
}

bool recorder::meets(const std::vector<range>& set, const range& r) {
    for (const auto& x : set)
        if (x.first < r.second && r.first < x.second) return true;
    return false;
}

void recorder::barrier_for(const std::vector<range>& reads, range write) {
    bool hazard = meets(written_, write) || meets(read_, write);
    for (const auto& r : reads) hazard |= meets(written_, r);
    if (hazard) {
        record_barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        count_stat(&recording_stats::barriers);
        written_.clear();
        read_.clear();
    }
    for (const auto& r : reads) read_.push_back(r);
    written_.push_back(write);
    seg_writes_.back().push_back(write);
}

void recorder::full_barrier(VkPipelineStageFlags also_stage, VkAccessFlags also_access) {
    record_barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | also_stage, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | also_access);
    count_stat(&recording_stats::barriers);
    written_.clear();
    read_.clear();
}

void recorder::host_barrier() {
    record_barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT);
}

void recorder::transfer_barrier() {
    record_barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    count_stat(&recording_stats::barriers);
}

std::pair<std::uint32_t, std::uint32_t> recorder::grid(std::uint64_t groups) const {
    const std::uint64_t gx = std::min<std::uint64_t>(groups, ctx_->max_groups_x());
    const std::uint64_t gy = (groups + gx - 1) / gx;
    if (gy > ctx_->max_groups_y()) throw error(error_code::unsupported, "strix::vulkan: too many elements for one dispatch on " + ctx_->device().name);
    return {static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy)};
}

void recorder::dispatch(pipeline_key key, const push& p, std::uint64_t groups, VkBuffer indirect, VkDeviceSize indirect_offset) {
    queue(make_dispatch(key, p, groups, indirect, indirect_offset));
    count_stat(&recording_stats::dispatches);
}

auto recorder::make_dispatch(pipeline_key key, const push& p, std::uint64_t groups, VkBuffer indirect, VkDeviceSize indirect_offset) -> command {
    key.addr64 = addr64(p.count * key.vec) ? 1u : 0u; // coordinates run over count * vec elements
    if (groups == 0) groups = (p.count + 255) / 256;
    const auto [gx, gy] = grid(groups);
    command c;
    c.what = command::kind::dispatch;
    c.pipeline = ctx_->pipeline(*frame_, key); // made now: a failure throws before anything is recorded
    c.pc = p;
    c.pc.guard = guard_.address;
    c.gx = gx;
    c.gy = gy;
    c.buffer = indirect;
    c.offset = indirect_offset;
    if (!ctx_->full_path()) bind_operands(key, c);
    return c;
}

void recorder::bind_operands(const pipeline_key& key, command& c) {
    push& p = c.pc;
    if (p.count >= (std::uint64_t{1} << 32))
        throw error(error_code::unsupported, "strix::vulkan: a dispatch of 2^32 or more invocations needs " + ctx_->full_path_needed());
    // the axis's size and byte stride in 32 bits (the shaders read their low words): an axis
    // of "any size" (gather-nd's and scatter-nd's offsets, INT64_MAX) is one of 2^31 - 1
    constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
    if (p.axis_size == std::numeric_limits<std::int64_t>::max()) p.axis_size = int_max;
    if (p.axis_size > int_max || p.axis_stride > int_max || p.axis_stride < -int_max)
        throw error(error_code::unsupported, "strix::vulkan: an axis of " + std::to_string(p.axis_size) + " elements, " + std::to_string(p.axis_stride) +
                                                 " bytes apart, does not fit the baseline path's 32 bits (the full path needs bufferDeviceAddress and shaderInt64)");
    enum { SRC, DST, IDX, PLAN, FLAG, AUX };
    const buffer& spare = frame_->flag; // what a binding no field names holds
    std::array<bound_buffer, 6> b;
    b.fill({spare.handle(), 0, spare.size()});
    b[FLAG].view = ctx_->buffers().locate(spare.address())->words;
    std::array<std::uint64_t, 6> base{}; // each binding's buffer's address
    std::array<bool, 6> set{};
    // binds the buffer holding address `a` (a field's) at `slot`: the same one for every field of the slot
    const auto bind = [&](int slot, std::uint64_t a) {
        const auto e = ctx_->buffers().locate(a);
        if (!e) throw error(error_code::invalid_argument, "strix::vulkan: an operand's address (" + std::to_string(a) + ") lies in no buffer of the context");
        if (set[slot]) {
            if (e->handle != b[slot].buffer) throw error(error_code::invalid_argument, "strix::vulkan: two operands of binding " + std::to_string(slot) + " lie in different buffers");
            return;
        }
        if (slot == FLAG) { // the texel view of the flag's and the guards' chunks, made with them
            if (!e->words) throw error(error_code::invalid_argument, "strix::vulkan: a flag address (" + std::to_string(a) + ") lies in a buffer without a texel view");
            b[slot] = {e->handle, 0, e->size, e->words};
            base[slot] = e->address;
            set[slot] = true;
            return;
        }
        if (slot == PLAN) { // the plan window from the plan's start (meta_alloc leaves room for it)
            const std::uint64_t start = (a - e->address) / ctx_->plan_alignment() * ctx_->plan_alignment();
            if (start + context::plan_window > e->size)
                throw error(error_code::invalid_argument, "strix::vulkan: a plan address (" + std::to_string(a) + ") lies too near its buffer's end for the plan window");
            b[slot] = {e->handle, start, context::plan_window};
            base[slot] = e->address + start;
            set[slot] = true;
            return;
        }
        const std::uint64_t limit = ctx_->max_binding_range();
        std::uint64_t start = 0;
        if (e->size > limit) { // a window that holds what the dispatch reaches, at an aligned offset
            const range r = slot < static_cast<int>(reach_.size()) ? reach_[static_cast<std::size_t>(slot)] : range{0, 0};
            const std::uint64_t align = ctx_->storage_alignment();
            if (r.second > r.first && r.first >= e->address && r.second <= e->address + e->size) start = (r.first - e->address) / align * align;
            if (r.second <= r.first || r.second - e->address - start > limit)
                throw error(error_code::unsupported, "strix::vulkan: an operand's buffer of " + std::to_string(e->size) + " bytes is larger than " + ctx_->device().name +
                                                         " binds at once (maxStorageBufferRange " + std::to_string(limit) + "), and this operator reaches more of it than that");
        }
        // a window: what the dispatch reaches (16-byte whole), which the shader may test against its length
        const std::uint64_t reach_end = e->size > limit ? std::min(e->size, (reach_[static_cast<std::size_t>(slot)].second - e->address + 15) / 16 * 16) : e->size;
        b[slot] = {e->handle, start, std::min(reach_end - start, limit)};
        base[slot] = e->address + start;
        set[slot] = true;
    };
    // a field naming an operand in `slot` becomes its offset there, high word 1
    const auto rebase = [&](int slot, std::uint64_t& field) {
        if (field == 0) return;
        bind(slot, field);
        // a dispatch's records (at most 512 bytes from a field: 16 Dim records, 8 of 48 bytes,
        // the Order record) lie in the plan window (one operator's in one reserved stretch:
        // meta_reserve)
        if (slot == PLAN && field - base[slot] > context::plan_window - 512)
            throw error(error_code::invalid_argument, "strix::vulkan: a plan record lies " + std::to_string(field - base[slot]) + " bytes into its binding, past the plan window");
        field = ((field - base[slot]) & 0xffffffffu) | (std::uint64_t{1} << 32);
    };
    // the flag lies beside the guard (new_guard) when the dispatch has one
    if (p.guard) p.flag = ctx_->buffers().locate(p.guard)->address;
    rebase(FLAG, p.flag);
    rebase(FLAG, p.guard);
    rebase(SRC, p.src);
    rebase(DST, p.dst);
    rebase(IDX, p.indices);
    rebase(PLAN, p.dims);
    if (key.which == shader::move && set[PLAN]) { // its tables of padded coordinates, from the same offset (a move has no scratch)
        const auto e = ctx_->buffers().locate(base[PLAN]);
        b[AUX] = {e->handle, base[PLAN] - e->address, std::min(e->address + e->size - base[PLAN], ctx_->max_binding_range())};
    }
    switch (key.which) {
    case shader::scatter:
        rebase(DST, p.lo);
        rebase(AUX, p.aux_addr);
        break;
    case shader::reduce:
    case shader::scan:
        rebase(DST, p.lo);
        if (key.which == shader::reduce && (key.phase == 4 || key.phase == 5)) {
            rebase(AUX, p.aux_addr); // the claims
        } else {
            rebase(PLAN, p.aux_addr); // the Order record, beside the Dim records; its addresses are offsets in AUX
            if (aux_binding_.buffer) b[AUX] = aux_binding_;
        }
        break;
    default: break; // tile's aux_addr and lo are numbers; the other shaders have neither
    }
    c.set = ctx_->descriptor_set(*frame_, b);
}

} // namespace strix::vulkan::detail
