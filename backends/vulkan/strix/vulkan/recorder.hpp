#pragma once
/// The recorder: what every strix recording is made of, whichever command buffer it targets
/// (a stream's own, or the application's): dispatches with push constants, plan metadata in
/// upload chunks, device scratch, and barriers placed by the byte ranges each dispatch reads
/// and writes. It knows nothing of operators (encode.hpp turns plans into dispatches).

#include <bit>
#include <memory>
#include <vector>

#include "strix/vulkan/context.hpp"

namespace strix::vulkan {

/// What a recording did, for tests and benchmarks: counted only where asked for
/// (stream_options::stats, or collect_stats(true) before recording), else left at 0 at the
/// cost of a null-pointer check per event.
struct recording_stats {
    int barriers = 0, dispatches = 0;
    /// moves regrouped into wider elements (see detail::regrouped), moves writing 16-byte
    /// output chunks, copies by the plain copy shader
    int regrouped = 0, chunked = 0, plain_copies = 0;
    /// moves located with 32-bit addressing, and the padded dimensions whose fold they computed
    int addr32 = 0, folded = 0;
    /// index check passes placed in an earlier segment of the stream, needing no barrier of their own
    int hoisted = 0;
    /// operators that shared an earlier operator's index check (the same indices and axis size)
    int shared_checks = 0;
    /// index-driven moves through a tile of the input in shared memory (tile.comp)
    int tiled = 0;
    /// scatters without a reduction that took the claim path
    int claim_scatters = 0;
    /// scatters without a reduction that kept one winner per row of elements (scatter.comp's PHASE 2)
    int row_scatters = 0;
    /// of those, the ones whose row pass moved 16-byte pieces (encoder::row_pieces)
    int row_piece_scatters = 0;
    /// scatters without a reduction whose indices the caller promised unique (one pass that
    /// writes every update, scatter.comp's PHASE 3: encoder::scatter_direct)
    int direct_scatters = 0;
    /// of those, the ones that moved 16-byte pieces of rows
    int direct_piece_scatters = 0;
    /// the baseline path: dispatches of a gather over one window of a source larger than one
    /// binding (encoder::record_source_windows)
    int source_windows = 0;
    /// the baseline path: dispatches of an atomic scatter reduction over one window of an output
    /// larger than one binding (encoder::reduce_by_windows)
    int target_windows = 0;
};

} // namespace strix::vulkan

namespace strix::vulkan::detail {

/// Records into `target`, or into the command buffer of the frame it takes from the context
/// (begin_own / submit_own / wait_own). Holds the frame — metadata, scratch, the flag word —
/// until destroyed, so it must live until the device has finished what it recorded.
class recorder {
public:
    recorder(const recorder&) = delete;
    recorder& operator=(const recorder&) = delete;

    /// What the recording did since stats were asked for (all 0 when they were not).
    [[nodiscard]] recording_stats stats() const { return stats_ ? *stats_ : recording_stats{}; }
    /// Counts from now on (from 0 if not counting yet), or stops counting (and forgets).
    void collect_stats(bool on) {
        if (!on) stats_.reset();
        else if (!stats_) stats_ = std::make_unique<recording_stats>();
    }

protected:
    recorder(context& ctx, VkCommandBuffer target) : ctx_(&ctx), frame_(ctx.acquire_frame()) { cmd_ = target ? target : frame_->cmd; }
    ~recorder() {
        if (own_pending_) ctx_->vk().vkWaitForFences(ctx_->handle(), 1, &frame_->fence, VK_TRUE, UINT64_MAX);
        if (pinned_ || pin_on_record_) ctx_->buffers().unpin(owners_);
        ctx_->release_frame(std::move(frame_));
    }

    /// The frame's command buffer: begin (reusable: it may be submitted again), end and submit
    /// with the frame's fence, wait.
    void begin_own() {
        auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        require_success(ctx_->vk().vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    }
    void end_own() { require_success(ctx_->vk().vkEndCommandBuffer(cmd_), "vkEndCommandBuffer"); }
    /// Submits the frame's command buffer, with the buffers it uses pinned until wait_own (so
    /// that a tensor destroyed meanwhile keeps its memory until the device is done); throws,
    /// submitting nothing, when one of them was destroyed since it was recorded (`who` names
    /// the call in the message).
    void submit_own(const char* who = "strix::vulkan::stream");
    void wait_own() {
        ctx_->wait(frame_->fence);
        own_pending_ = false;
        if (pinned_) ctx_->buffers().unpin(owners_);
        pinned_ = false;
    }
    void reset_own_fence() { require_success(ctx_->vk().vkResetFences(ctx_->handle(), 1, &frame_->fence), "vkResetFences"); }

    /// Forgets what was recorded into the frame's command buffer (which must not be running),
    /// to record anew into the same command buffer, metadata and scratch.
    void restart_own();

    void ensure_recording() const {
        if (closed_) throw error(error_code::invalid_argument, "strix::vulkan: recording an operator after the recording ended (a stream after submit: use a new stream; a command_recorder after finish)");
    }

    /// Whether an index check raised the flag word (host-visible; 16 bytes).
    [[nodiscard]] bool flag_raised() const;
    /// Lowers the flag word and every guard word handed out (before a submission).
    void clear_flag();

    /// A guard word: one per operator whose indices are checked under the `error` policy. Its
    /// check pass raises it on a bad index, and every dispatch of the operator (stamped with it
    /// while the operator records: guard_) returns at once when it is raised, so that the
    /// operator writes nothing. Device-local where the host can map it (the host lowers it
    /// before each submission and reads which operator failed), in the frame's guard chunks.
    struct guard_word {
        VkDeviceAddress address = 0;
        std::uint32_t* host = nullptr;
        [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> range() const { return {address, address + 4}; }
    };
    guard_word new_guard();
    static constexpr std::size_t guard_chunk_bytes = 4096;
    guard_word guard_; // the recording operator's (address 0: none)

    /// The push constants of every shader (see shaders/common.glsl).
    struct push {
        std::uint64_t src, dst, dims, indices, count, flag;
        std::int64_t axis_size, axis_stride;
        std::uint32_t fill[4];
        std::uint32_t aux, aux2;
        std::uint64_t aux_addr;
        std::uint64_t lo;
        std::uint64_t guard; ///< the operator's guard word (0: none): a raised one makes every invocation return
    };
    static_assert(sizeof(push) <= 128);
    static constexpr std::size_t dim_words = 7; // int64 fields of a Dim record (shaders/common.glsl)
    static constexpr std::size_t addr32_words = 6; // 8-byte words of an Addr32Record (shaders/move.comp)

    static std::uint32_t index_code(dtype t);

    /// Device scratch for one operator of this stream: a buffer of the frame that no other
    /// operator of the stream uses, else a new one the frame keeps (within its budget).
    struct scratch_block {
        VkBuffer handle;
        VkDeviceSize offset;
        VkDeviceAddress address;
        std::uint64_t size; ///< the bytes asked for, rounded up to 16
    };
    scratch_block scratch(std::uint64_t bytes);

    /// Plan metadata (Dim records, pad maps, scratch records): 16-byte aligned pieces of the
    /// frame's upload chunks, so that a stream of many small operators fills a few buffers that
    /// later streams fill again, and the shaders read the metadata from device memory.
    struct meta_block {
        VkDeviceAddress address;
        std::byte* host;
    };
    meta_block meta_alloc(std::size_t bytes);
    /// Makes the next `bytes` of metadata come from one chunk (the baseline path binds a
    /// dispatch's Dim records and Order records as one operand).
    void meta_reserve(std::size_t bytes);
    static constexpr std::size_t meta_chunk_bytes = 64 << 10;

    VkDeviceAddress upload_meta(const std::vector<std::int64_t>& words);
    /// Dim records (dim_words each): as they are on the full path, in 32-bit fields on the
    /// baseline path (shaders/common.glsl), where each must fit an int32 (else it throws).
    VkDeviceAddress upload_dims(const std::vector<std::int64_t>& words);
    /// The same for 32-bit words, as they are.
    VkDeviceAddress upload_words(const std::vector<std::int32_t>& words);

    using range = std::pair<std::uint64_t, std::uint64_t>; // device addresses [first, last)

    static bool meets(const std::vector<range>& set, const range& r);

    /// Inserts a barrier when this operation reads bytes that earlier work in the stream wrote,
    /// or writes bytes that earlier work read or wrote (since the last barrier).
    void barrier_for(const std::vector<range>& reads, range write);

    /// A barrier between all earlier and all later compute work of the stream (and the stage and
    /// access given, such as an indirect dispatch's read of its arguments).
    void full_barrier(VkPipelineStageFlags also_stage = 0, VkAccessFlags also_access = 0);

    /// The recorded work's writes (the flag word, tensors in host-visible memory), visible to
    /// the host once the fence it signals has been waited for.
    void host_barrier();

    void transfer_barrier();

    /// 64-bit addressing (the shaders' ADDR64) only for calls of 2^32 or more invocations (or
    /// when context_options::always_addr64 forces it).
    bool addr64(std::uint64_t count) const { return ctx_->always_addr64() || count >= (std::uint64_t{1} << 32); }

    /// The 2-D grid of `groups` work groups (x, y) within the device's limits.
    std::pair<std::uint32_t, std::uint32_t> grid(std::uint64_t groups) const;

    /// Dispatches `groups` work groups of 256 (0: enough for p.count invocations), or as many as
    /// the 12 bytes of `indirect` at `indirect_offset` say when it is given. Stamped with the
    /// recording operator's guard word.
    void dispatch(pipeline_key key, const push& p, std::uint64_t groups = 0, VkBuffer indirect = VK_NULL_HANDLE, VkDeviceSize indirect_offset = 0);

    /// Fills `size` bytes of `b` from `offset` with zeros (vkCmdFillBuffer).
    void fill_zero(VkBuffer b, VkDeviceSize offset, VkDeviceSize size);

    /// A command an operator records: kept aside while the operator records (pending_) and
    /// written into the command buffer only once it has recorded everything, so that an
    /// operator that throws half-way leaves no command behind (see op_state).
    struct command {
        enum class kind : std::uint8_t { barrier, dispatch, fill } what = kind::barrier;
        VkPipeline pipeline = VK_NULL_HANDLE;
        push pc{};
        std::uint32_t gx = 0, gy = 0;
        VkBuffer buffer = VK_NULL_HANDLE; ///< a fill's target, or an indirect dispatch's arguments
        VkDeviceSize offset = 0, size = 0;
        VkPipelineStageFlags src_stage = 0, dst_stage = 0;
        VkAccessFlags src_access = 0, dst_access = 0;
        VkDescriptorSet set = VK_NULL_HANDLE; ///< the baseline path's bindings of a dispatch
    };
    /// The baseline path: binds each operand a dispatch addresses (its push fields' addresses,
    /// the context's own or virtual ones) to its binding, whole buffers, and rewrites the fields
    /// to offsets from their bindings' starts, with the high word 1 where a field names an
    /// operand (shaders/common.glsl). Throws when an operand's buffer is larger than one binding
    /// may be (maxStorageBufferRange).
    void bind_operands(const pipeline_key& key, command& c);
    /// Whether the buffer holding `address` is bound whole (always on the full path; on the
    /// baseline path where it is no larger than maxStorageBufferRange).
    [[nodiscard]] bool bound_whole(std::uint64_t address) const {
        if (ctx_->full_path() || address == 0) return true;
        const auto e = ctx_->buffers().locate(address);
        return !e || e->size <= ctx_->max_binding_range();
    }
    /// The baseline path: the device addresses [first, last) the next dispatch reaches of SRC,
    /// DST and IDX ({0, 0}: unknown), so that an operand in a buffer larger than one binding is
    /// bound as the window that holds them (record_windowed_move sets them).
    std::array<range, 3> reach_{};
    /// The baseline path: the step of the source window the next move dispatch is bound to (its
    /// push constant aux; move.comp, other_window), 0 when none.
    std::uint32_t source_step_ = 0;
    /// The buffer reduce and scan bind as AUX on the baseline path (their scratch, which the
    /// Order records address by offsets from its start); a null handle: none.
    bound_buffer aux_binding_{};
    /// A pipeline barrier (memory only), kept aside while an operator records.
    void record_barrier(VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage, VkAccessFlags src_access, VkAccessFlags dst_access);
    /// A dispatch as dispatch() records it (its pipeline made, stamped with the guard word), not yet recorded.
    command make_dispatch(pipeline_key key, const push& p, std::uint64_t groups = 0, VkBuffer indirect = VK_NULL_HANDLE, VkDeviceSize indirect_offset = 0);
    /// Records `c`: into the recording operator's pending commands, a stream's kept commands, or the command buffer.
    void queue(const command& c);
    void emit(const command& c);
    std::vector<command> pending_;
    int op_depth_ = 0; // operators recording (nested calls record as one)

    /// Streams keep every command until close() (keep_commands_), in segments that barriers
    /// separate: barrier k ends segment k. An operator's index check pass needs a barrier
    /// before the operator writes; rather than one barrier per operator, the check goes into
    /// the earliest segment after the last one that wrote its indices, when that segment is
    /// already behind a barrier (hoist): a stream of 100 small gathers then has one barrier,
    /// not 100.
    bool keep_commands_ = false;
    std::vector<command> cmds_;
    std::vector<std::size_t> barrier_at_;             // where in cmds_ each barrier is
    std::vector<std::vector<range>> seg_writes_{1};   // the ranges each segment writes (pending ones too)
    std::vector<std::pair<std::size_t, command>> hoists_; // the recording operator's commands for earlier segments
    /// The segment after the last one that writes a byte of `r` (0: none does).
    [[nodiscard]] std::size_t segment_after_writes(range r) const;
    /// Whether a command may go into segment `s` now: a committed segment before the current one.
    [[nodiscard]] bool can_hoist(std::size_t s) const { return keep_commands_ && op_depth_ > 0 && s < barrier_at_.size(); }
    /// Writes the kept commands into the command buffer (a stream's close).
    void flush_commands();
    /// The current segment's writes become `w` (a pass after a full barrier writes them).
    void set_written(std::vector<range> w) {
        for (const auto& r : w) seg_writes_.back().push_back(r);
        written_ = std::move(w);
    }
    void add_written(range r) {
        seg_writes_.back().push_back(r);
        written_.push_back(r);
    }

    /// What an operator may change in the recorder before it fails: restored when it throws.
    struct op_state {
        std::vector<range> written, read;
        recording_stats count; // (all 0 when not counting)
        std::size_t meta_chunk, meta_used, guard_chunk, guard_used, owners;
        std::vector<bool> scratch_used;
        std::size_t segments;
        std::vector<range> last_segment_writes;
    };
    [[nodiscard]] op_state save_state() const;
    /// Back to `s`: the pending commands dropped, the hazards, metadata, scratch, guards and
    /// buffers in use as they were.
    void restore_state(op_state&& s);
    /// The operator recorded everything: its commands go into the command buffer.
    void commit_pending();

    context* ctx_;
    detail::owned<frame> frame_; // the command buffer, fence, flag, metadata and scratch
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    std::size_t meta_chunk_ = 0, meta_used_ = 0; // the metadata chunk being filled, and how far
    std::size_t guard_chunk_ = 0, guard_used_ = 0; // the guard chunk being filled, and how far (in words)
    std::vector<range> written_, read_;
    /// Adds `by` to a statistic, when they are collected.
    void count_stat(int recording_stats::*field, int by = 1) {
        if (stats_) (*stats_).*field += by;
    }
    std::unique_ptr<recording_stats> stats_; // null: not collected
    bool own_pending_ = false; // the frame's command buffer was submitted and not yet waited for
    bool closed_ = false;      // recording is over (a stream after submit)
    /// The strix buffers the recorded operators use (serial numbers): checked and pinned at
    /// each submission, for replays to find destroyed ones and for destroyed ones to stay
    /// allocated while the device may use them.
    std::vector<std::uint64_t> owners_;
    bool pinned_ = false;        // owners_ pinned for a submission not yet waited for
    bool pin_on_record_ = false; // command_recorder: each operator's buffers pinned as it records, until destroyed
};

} // namespace strix::vulkan::detail
