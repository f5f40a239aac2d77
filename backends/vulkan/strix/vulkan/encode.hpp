#pragma once
/// Encoders: turn the operators' plans (strix/plan) into dispatches of strix's shaders on a
/// recorder — moves (record_move), index tuples (record_tuples), scatter updates with or
/// without a reduction (record_updates) — and keep the index checks of the `error` policy,
/// whose failures report_index_errors names as the CPU would.

#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "strix/ops/common.hpp" // copy_plan
#include "strix/plan/indices.hpp"
#include "strix/plan/move_plan.hpp"
#include "strix/plan/update_plan.hpp"
#include "strix/vulkan/recorder.hpp"
#include "strix/vulkan/transfer.hpp"

namespace strix::vulkan {

namespace detail {

/// The plan with whole rows moved in w-byte elements (w = 16, else 8, else 4 bytes), when its
/// innermost dimension copies a contiguous row on both sides and every address, stride and
/// offset of the plan is a multiple of w (so are the rows' lengths in bytes); nullopt otherwise.
/// A join, split or row gather of float32 rows then moves 16 bytes per invocation.
std::optional<plan::move_plan> regrouped(const plan::move_plan& p);

/// Elements per invocation of a move: 16 / elem when the output is contiguous in plan order,
/// 16-byte aligned and a whole number of 16-byte chunks (each invocation then writes one
/// chunk), else 1.
std::uint32_t chunk_elements(const plan::move_plan& p);

/// Whether a move can be located in 32-bit arithmetic (move.comp's ADDR32): fewer than 2^31
/// elements, every sum of output, source and key terms inside an int, and, for chunks of `vec`
/// elements, an innermost dimension of `vec` elements or more (so a chunk crosses at most one
/// row end). The gathered index's term is added in 64 bits and needs no bound.
bool fits_addr32(const plan::move_plan& p, std::uint32_t vec);

/// A multiplier m and shift s that divide every x below 2^31 by d (1 <= d < 2^31):
/// x / d == (x * m) >> s, with s = 31 + ceil(log2 d) and m = ceil(2^s / d) < 2^32. The
/// rounding m - 2^s / d is below 1, so x * m / 2^s exceeds x / d by less than x / 2^s < 1 / d,
/// too little to reach the next quotient.
std::pair<std::uint32_t, std::uint32_t> divider(std::int64_t d);

/// move.comp's Addr32Record of a dimension (48 bytes), `map` its table's byte offset from the
/// records, 1 for a folded dimension, 0 for an affine one.
std::array<std::int32_t, 12> addr32_record(const plan::move_dim& d, std::int32_t map);

/// move.comp's FOLD when no fold is computed (the padded dimensions' terms come from tables);
/// else FOLD is the pad_mode itself.
inline constexpr std::uint32_t no_fold = 0xffffffffu;
static_assert(static_cast<int>(pad_mode::constant) == 0 && static_cast<int>(pad_mode::edge) == 1 && static_cast<int>(pad_mode::reflect) == 2 &&
                  static_cast<int>(pad_mode::symmetric) == 3 && static_cast<int>(pad_mode::wrap) == 4,
              "move.comp's PAD_* constants are pad_mode's values");

/// move.comp's precondition for computing the padded terms of `d` with FOLD = `m` (its fold()
/// takes no division, in int arithmetic): that fold() then returns plan::fold_source(m, j, n)
/// for every padded coordinate j of d, n = hi - lo. It holds where d's coordinates fit an int
/// and, for the folds with a period p (reflect 2n - 2, symmetric 2n, wrap n), every padded j
/// lies in [-p, 2p): j runs from -lo to -1 and from n to size - lo - 1. Constant, edge and a
/// one-element reflect have no period; the other folds need a source to repeat (n > 0). The
/// shader test in test/vulkan_test.cpp runs move.comp against plan::fold_source to hold this
/// to the GLSL.
bool shader_fold_exact(pad_mode m, const plan::move_dim& d);

/// Whether the shader's fold `m` gives every padded coordinate of a padded dimension its plan
/// term: `m` is the dimension's own fold, or any fold but constant where the source has one
/// element (each then repeats it, as plan::fold_source says), and shader_fold_exact(m, d).
bool shader_folds(const plan::move_dim& d, pad_mode m);
bool shader_folds(const plan::move_dim& d);

/// The fold every padded dimension of a plan has and the shader computes (move.comp's FOLD), or
/// nothing (no padded dimension, different folds, or one the shader cannot compute): the 32-bit
/// path then computes the padded coordinates' terms instead of loading them from tables, a load
/// that the element's own load would wait for.
std::optional<pad_mode> plan_fold(const plan::move_plan& p);

/// The padded coordinates of a dimension, [0, lo) and [hi, size): the entries of its table.
std::uint64_t padded_count(const plan::move_dim& d);

/// How an index-driven move runs through a tile of its input in shared memory (shaders/tile.comp).
struct tile_layout {
    int axis;              ///< the plan dimension whose source is the index (src 0)
    std::uint32_t width;   ///< T: inner positions per tile (a power of two, at most 256 x vec)
    std::uint32_t vec;     ///< neighbouring positions an invocation moves with 16-byte loads and stores (else 1)
    std::uint64_t across;  ///< work groups across the inner positions
    std::uint64_t down;    ///< work groups along `axis`
    std::uint64_t rows;    ///< coordinates of `axis` per work group
    std::uint64_t groups;  ///< all work groups
};

/// The tile path of a move plan, or nothing where move.comp's reads in place serve as well. It
/// takes plans with an index (gather-elements) and affine dimensions of 4-, 8- or 16-byte
/// elements, one dimension A with source term 0 and at least one after it, the innermost with
/// an index that changes along it (a gather's does not: it reads whole rows in place), whose
/// indexed axis (N rows) spans 64 KiB or more of the input, so that reads in place would
/// scatter over L2; N rows of T >= 32 bytes fit in `tile_words`; and A has N / 2 coordinates or
/// more (a tile is read at most twice per output written from it).
std::optional<tile_layout> tile_plan(const plan::move_plan& p, std::uint32_t tile_words);

} // namespace detail

namespace detail {

/// Reads a device view back into a C-order host tensor (synchronously, with its own recording).
host_tensor download_view(context& ctx, const device_view& v);

/// Sets `slot` to `value` for its own lifetime, then back to what it held (an exception too).
template <class T>
class scoped_value {
public:
    scoped_value(T& slot, T value) : slot_(slot), old_(std::exchange(slot, std::move(value))) {}
    ~scoped_value() { slot_ = std::move(old_); }
    scoped_value(const scoped_value&) = delete;
    scoped_value& operator=(const scoped_value&) = delete;

private:
    T& slot_;
    T old_;
};

/// The encoders, on a recorder.
class encoder : public recorder {
protected:
    using recorder::recorder;

    /// Indices checked on the device under the `error` policy: when the flag rises, `report`
    /// runs the CPU's resolver on them (read back), which throws the CPU's exact error.
    struct index_check {
        device_view indices;
        detail::callback<void(const any_cview&)> report;
        detail::owned<device_tensor> snapshot{}; // the indices as they were, when a later op overwrote them
        std::uint32_t* guard = nullptr;          // the operator's guard word (host side), raised when it failed
    };
    /// What the update passes of scatter and scatter-nd need (see record_updates): the update
    /// plan, on device addresses, and the views and hazards around it.
    struct update_job {
        plan::update_plan plan;
        device_view output;
        bool deterministic;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;
        operand_list context;
        std::uint64_t fused_input = 0; ///< claim path: the C-order input whose copy its last pass does (0: none)
        /// What every target offset an index makes is a multiple of, in bytes (scatter-nd's
        /// tuples: their axes' strides); 0: the plan's axis_stride
        std::int64_t index_unit = 0;
    };

    /// Hazards as recorder::barrier_for, after copying aside the indices of index checks
    /// that the write would overwrite. While an operator with a guard word records, every
    /// dispatch of it reads the word (after the check pass that writes it).
    void barrier_for(const std::vector<range>& reads, range write) {
        snapshot_indices_before(write);
        if (guard_.address == 0) {
            recorder::barrier_for(reads, write);
            return;
        }
        std::vector<range> with_guard = reads;
        with_guard.push_back(guard_.range());
        recorder::barrier_for(with_guard, write);
    }

    /// A stream's index checks under a guard word, for a later operator with the same indices
    /// and axis size to share while the indices are not written meanwhile: its writes wait on
    /// the same guard word and it records no check of its own (the K and V caches gathered by
    /// the same token ids check them once). `segment`: where the check runs.
    struct shared_check {
        device_view indices;
        std::int64_t n;
        guard_word guard;
        std::size_t segment;
    };
    std::vector<shared_check> shared_checks_;
    std::size_t last_resolve_segment_ = 0; // the segment record_resolve put its pass in

    /// The state an operator may change, saved when it starts (see recording::op_scope).
    struct op_saved {
        op_state rec;
        std::size_t checks = 0, shared_checks = 0;
    };
    [[nodiscard]] op_saved save_op() const { return {save_state(), checks_.size(), shared_checks_.size()}; }
    /// Undoes what the operator did since `s` (it threw).
    void rollback(op_saved&& s);
    /// The operator recorded everything: its commands go into the command buffer.
    void commit() {
        commit_pending();
        snapshot_log_.clear();
    }
    /// Checks whose indices an operator copied aside (snapshot_indices_before) while it
    /// recorded, with the indices view they had: put back if it throws.
    std::vector<std::pair<std::size_t, device_view>> snapshot_log_;

    /// Under the `error` policy, before an operator records anything: its guard word (see
    /// recorder::guard_word), which the check pass it records next raises and every later
    /// dispatch of the operator reads.
    void begin_guard() {
        if (!hold_guard_) guard_ = new_guard();
    }
    /// While true, begin_guard keeps the guard word it has and checks share none with earlier
    /// operators: a chain's index-driven steps check their indices under the chain's one word,
    /// which the chain's writes into its output read (see recording::record_chains).
    bool hold_guard_ = false;
    /// Where not empty, the operator's name in the messages of index checks, for the one given
    /// to them: a chain's index-driven step, "scatter (chain step 2)".
    std::string checks_name_;
    /// The name the messages of an index check of operator `op` give (see checks_name_).
    [[nodiscard]] std::string checks_name(std::string_view op) const { return checks_name_.empty() ? std::string(op) : checks_name_; }

    /// Whether a scatter without a reduction takes the claim path (reduce.comp, PHASE 4 and 5):
    /// at most 4 target slots per update, since its last pass reads every slot's claim (4-byte
    /// elements' claims hold the value too where 64-bit atomics are; without them the last pass
    /// reads the winning update, as for other sizes). It replaces an atomic
    /// whose result each update waits for, then a store, with one atomic nobody waits for
    /// (bench/NOTES.md, "Figures behind the encoder's choices"). context::scatter_claims() turns it off.
    [[nodiscard]] bool claims_scatter(const device_view& output, std::uint64_t n) const;

    /// Elements per winner of a scatter without a reduction (scatter.comp's rows): the trailing
    /// dimensions of the update plan that the index does not change and that lie contiguous in
    /// the output, where every row they make starts a whole number of rows from the output's
    /// lowest address (so rows coincide or are disjoint); 1 elsewhere. A scatter-nd of rows
    /// then keeps one winner per row, not one per element (8192 rows of 16 KiB into a 2 GiB
    /// table filled and claimed 2 GiB of winners).
    [[nodiscard]] static std::uint64_t winner_row(const update_job& j);

    /// The update plan of a scatter's row pass (scatter.comp's PHASE 1) in 16-byte pieces: where
    /// rows of `row` elements span whole pieces and lie contiguous, 16-byte aligned, in the updates
    /// as in the output (whose first byte is `out_first`), the row's dimensions become one of
    /// 16-byte elements; nothing elsewhere. 8192 rows of 4096 floats: 8M invocations, not 32M.
    [[nodiscard]] static std::optional<plan::update_plan> row_pieces(const plan::update_plan& up, std::uint64_t row, std::uint32_t elem,
                                                                    std::uint64_t out_first);

    /// Whether a view's elements lie in C order without gaps (size-1 dimensions aside).
    static bool c_order(const device_view& v);

    template <class F>
    void check_indices_later(const device_view& indices, F&& report) {
        checks_.push_back(index_check{indices, std::forward<F>(report), {}, guard_.host});
    }

    void copy_unless_in_place(bool in_place, const device_view& input, const device_view& output);

    /// Records the tuple pass of gather-nd / scatter-nd: one int64 offset per tuple (minus the
    /// axes' bias) in a new device buffer, whose address range it returns. With `table` false
    /// (an operator that moves nothing) it only checks the tuples under the `error` policy,
    /// writes no table and returns an empty range.
    std::pair<std::uint64_t, std::uint64_t> record_tuples(const device_view& indices, const strix::detail::tuple_axes& axes, index_policy policy,
                                                          const char* op, const operand_list& context, bool table = true);

    /// Under the `error` policy, the indices of an operator that moves nothing (its output is
    /// empty, its indices are not) are still checked against the axis's size `n`, as on the CPU:
    /// the tuple pass over each index as a 1-tuple, writing nothing but the flag.
    void check_indices_only(const device_view& indices, std::int64_t n, int axis, std::string_view op, const operand_list& context);

    /// Dispatches tuples.comp over `tuple_rank` tuple dimensions of k components (the Dim
    /// records `dims`); into a new table of int64 offsets when `table`.
    std::pair<std::uint64_t, std::uint64_t> record_resolve(const device_view& indices, int tuple_rank, std::int64_t k, std::vector<std::int64_t> dims,
                                                           std::int64_t bias, index_policy policy, bool table);

    /// Records the update passes of scatter / scatter-nd, by the strategy choose_scatter picks.
    /// Targets are numbered by their distance from the output's lowest address (slots).
    void record_updates(const update_job& j);

    /// Before an operation writes `write`: the indices of any index check that it would
    /// overwrite are copied aside first, so that wait() can still name the bad index.
    void snapshot_indices_before(range write);

    /// Records one move plan; `hazards` false when the caller has already placed the barrier.
    /// Contiguous rows move in 16-byte (or 8-, 4-byte) elements where the plan's alignment
    /// allows (regrouped), and an output of dense 16-byte blocks (a dense one, a part of a join) is
    /// written 16 bytes per invocation (chunk_elements).
    void record_move(const plan::move_plan& original, const std::vector<range>& reads, range write, bool hazards = true);
    /// How move.comp runs a plan (off the tile path): `vec` elements per invocation
    /// (chunk_elements), located in 32-bit arithmetic or not (fits_addr32), and the fold the
    /// shader computes for the padded dimensions (plan_fold; else it reads their tables).
    struct move_route {
        std::uint32_t vec = 1;
        bool addr32 = false;
        std::optional<pad_mode> fold;
    };
    [[nodiscard]] move_route route_move(const plan::move_plan& p) const;
    /// Records the plan on move.comp as `r` says. `outer_terms`, where given, are the source
    /// terms of dimension 0's coordinates (a piece of a padded dimension: see record_windowed_move),
    /// which is then padded with lo = hi = 0 and read from its table.
    void record_routed_move(const plan::move_plan& p, const move_route& r, const std::vector<range>& reads, range write, bool hazards,
                            const std::vector<std::int64_t>* outer_terms = nullptr);
    /// The baseline path, where an operand of the move lies in a buffer larger than one binding
    /// (maxStorageBufferRange): the plan in pieces along its outer dimensions, each reaching no
    /// more of any operand than one binding holds, each dispatched with its operands bound as
    /// windows (recorder::reach_). False when no operand needs it (record it as usual).
    bool record_windowed_move(const plan::move_plan& p, const std::vector<range>& reads, range write, bool hazards);
    /// One piece of record_windowed_move: recorded when it fits, else split further.
    void record_move_piece(const plan::move_plan& q, const std::vector<std::int64_t>* outer_terms, const std::vector<range>& reads,
                           std::uint64_t limit, int depth);
    /// A piece of a gather whose output and indices fit one binding each but whose source reach
    /// `r[0]` does not (where the indices point is known only as the shader runs): one dispatch
    /// per window of the source, each writing the elements whose source starts in its window.
    void record_source_windows(const plan::move_plan& q, std::array<range, 3> r, const std::vector<range>& reads);
    /// The bytes a window owns where a dispatch runs once per window of an operand larger than
    /// one binding (record_source_windows, reduce_by_windows): a multiple of the storage
    /// alignment small enough that a binding from the aligned offset at or below the window's
    /// first byte, with 16 bytes past its last, fits maxStorageBufferRange. Throws where none does.
    [[nodiscard]] std::uint64_t owned_window() const;
    /// The words of a plan's tables of padded terms; throws where one dimension has 2^32 or more.
    static std::uint64_t table_words(const plan::move_plan& p);
    /// record_move's tile path (tile_plan said it applies).
    void record_tiled(const plan::move_plan& p, const detail::tile_layout& t, const std::vector<range>& reads, range write, bool hazards);

    /// After the device has run the recording: when the flag rose, reads every checked index
    /// view back and throws the CPU's error for the first bad index; nothing when it did not.
    void report_index_errors();

    std::vector<index_check> checks_;

    friend host_tensor download_view(context& ctx, const device_view& v);

private:
    /// The ways record_updates applies a scatter's updates. Without a reduction the last
    /// update per target wins: claims (reduce.comp's PHASE 4 and 5, see claims_scatter), rows
    /// (one winner per row of elements, scatter.comp's PHASE 2 then 1, see winner_row), else
    /// winners (scatter.comp's two passes, the second only where a target repeats), or, where
    /// the caller promised unique indices, direct (one pass that writes every update). With a
    /// reduction: atomics (one pass), or buckets (the updates sorted by target and folded in
    /// their C order: deterministic, and the only way for 8-byte elements on a device without
    /// 64-bit atomics).
    enum class scatter_strategy : std::uint8_t { claims, rows, winners, direct, atomics, buckets };
    struct scatter_route {
        scatter_strategy strategy;
        std::uint64_t row; ///< rows: elements per winner (winner_row); else 1
    };
    /// The cost model of scatters: which strategy records the `n` updates of `j`.
    [[nodiscard]] scatter_route choose_scatter(const update_job& j, std::uint64_t n) const;

    /// What every strategy starts from: the push constants of the update plan (its Dim records
    /// uploaded), the output's bytes and slots, the pipeline key's fields, the hazards' reads.
    struct update_start {
        push p{};
        std::uint64_t n = 0, slots = 0;
        std::uint32_t elem = 0, rank = 0, policy = 0, index_type = 0;
        range out{};
        std::vector<range> reads;
    };
    /// An update plan's Dim records, uploaded.
    VkDeviceAddress upload_update_dims(const plan::update_plan& q);
    void scatter_by_claims(const update_job& j, update_start& u);
    void scatter_by_rows(const update_job& j, update_start& u, std::uint64_t row);
    void scatter_by_winners(update_start& u);
    void scatter_direct(const update_job& j, update_start& u);
    /// The row path's pass 1 and the direct pass in 16-byte pieces (scatter.comp `phase`), where
    /// row_pieces allows for rows of `row` elements; false, having recorded nothing, elsewhere.
    bool dispatch_row_pieces(const update_job& j, const update_start& u, std::uint64_t row, std::uint32_t phase);
    /// The baseline path's scatter onto an output larger than one binding: the winners' two
    /// passes once per window of the output, each over every update, the shader skipping the
    /// targets outside its window (scatter.comp), each window with winner slots of its own.
    void scatter_by_windows(const update_job& j, update_start& u);
    /// The baseline path's atomic reduction onto an output larger than one binding: one pass
    /// over every update per window of the output, each window owning a span of its bytes
    /// (reduce.comp's PHASE 0 leaves the targets outside it), so each target is combined once.
    void reduce_by_windows(const update_job& j, update_start& u);
    /// scatter_by_windows' and reduce_by_windows' condition: updates and indices bound whole.
    void require_whole_updates(const update_job& j, const update_start& u) const;
    void reduce_by_atomics(const update_job& j, update_start& u);
    /// The bucket path: (slot, update number) pairs sorted stably by slot, each slot's run
    /// folded in C order. On the baseline path, an output larger than one binding is taken in
    /// windows, the whole pass once per window over every update (those outside it sorted
    /// past its slots), each window's slots few enough that the scratch fits one binding.
    void reduce_by_buckets(const update_job& j, update_start& u);
};

host_tensor download_view(context& ctx, const device_view& v);

} // namespace detail

} // namespace strix::vulkan
