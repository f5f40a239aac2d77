namespace strix::vulkan {

stream::stream(context& ctx, const stream_options& opt) : recording(ctx, VK_NULL_HANDLE) {
    queries_ = opt.timestamps ? frame_->queries : VK_NULL_HANDLE;
    collect_stats(opt.stats);
    keep_calls_ = true;
    start();
    keep_commands_ = true; // (after start's commands, which go first)
}

void stream::submit() {
    if (closed_) throw error(error_code::invalid_argument, "strix::vulkan::stream: submitted twice");
    if (const std::uint64_t dead = ctx_->first_destroyed(owners_)) // (before closing: the stream stays open)
        throw error(error_code::invalid_argument, "strix::vulkan::stream::submit: a device tensor the stream uses (buffer #" + std::to_string(dead) +
                                                      ") was destroyed after it was recorded; record a new stream for the new tensors");
    close();
    submit_own("strix::vulkan::stream::submit");
}

void stream::wait() {
    if (!closed_) submit();
    if (own_pending_) wait_own();
    done_ = true;
    report_index_errors();
}

void stream::replay() {
    if (!closed_) {
        submit();
        return;
    }
    if (!done_) throw error(error_code::invalid_argument, "strix::vulkan::stream: replay before the last submission was waited for (call wait())");
    if (const std::uint64_t dead = ctx_->first_destroyed(owners_))
        throw error(error_code::invalid_argument, "strix::vulkan::stream::replay: a device tensor the stream uses (buffer #" + std::to_string(dead) +
                                                      ") was destroyed after it was recorded; record a new stream for the new tensors");
    reset_own_fence();
    clear_flag();
    done_ = false;
    submit_own("strix::vulkan::stream::replay");
}

void stream::rebind(std::span<const rebinding> changes) {
    if (closed_ && !done_) throw error(error_code::invalid_argument, "strix::vulkan::stream::rebind: the last submission was not waited for (call wait())");
    std::vector<call> calls = calls_;
    for (const auto& c : changes) {
        bool found = false;
        for (auto& k : calls)
            for (auto& v : k.views)
                if (v == c.from) {
                    v = c.to;
                    found = true;
                }
        if (!found)
            throw error(error_code::invalid_argument, "strix::vulkan::stream::rebind: no recorded operator has the " + to_string(c.from.sizes) + " " +
                                                          std::string(name(c.from.type)) + " view to replace as an operand");
    }
    const bool submitted = closed_;
    try {
        record_again(calls, submitted);
    } catch (...) {
        record_again(calls_, submitted); // recorded before, so it records again
        throw;
    }
    calls_ = std::move(calls);
}

double stream::device_seconds() const {
    if (!queries_ || !done_) return 0;
    std::uint64_t t[2] = {};
    require_success(ctx_->vk().vkGetQueryPoolResults(ctx_->handle(), queries_, 0, 2, sizeof t, t, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    const std::uint32_t bits = ctx_->timestamp_bits();
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    return static_cast<double>((t[1] - t[0]) & mask) * ctx_->timestamp_period_ns() * 1e-9;
}

void stream::start() {
    begin_own();
    clear_flag();
    if (queries_) {
        ctx_->vk().vkCmdResetQueryPool(cmd_, queries_, 0, 2);
        ctx_->vk().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
    }
}

void stream::close() {
    host_barrier(); // kept like every command, so queued before the flush writes them all
    flush_commands();
    if (queries_) ctx_->vk().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
    end_own();
    closed_ = true;
}

void stream::record_again(const std::vector<call>& calls, bool submitted) {
    restart_own();
    checks_.clear();
    shared_checks_.clear();
    start();
    keep_calls_ = false;
    try {
        for (const auto& c : calls) c.record(*this, c.views);
    } catch (...) {
        keep_calls_ = true;
        throw;
    }
    keep_calls_ = true;
    if (submitted) close();
}

} // namespace strix::vulkan
