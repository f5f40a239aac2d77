#pragma once
/// The operators on device views, as a stream and a command_recorder record them: each checks
/// the operator's rules (the same rules and messages as on the CPU), lowers it to plans and
/// encodes those into dispatches.

#include <exception>
#include <optional>
#include <span>

#include "strix/ops/gather.hpp"
#include "strix/ops/gather_elements.hpp"
#include "strix/ops/gather_nd.hpp"
#include "strix/ops/join.hpp"
#include "strix/ops/pad.hpp"
#include "strix/ops/scatter.hpp"
#include "strix/ops/scatter_nd.hpp"
#include "strix/ops/split.hpp"
#include "strix/vulkan/encode.hpp"

namespace strix::vulkan {

class recording;
namespace detail {
/// Makes the next operator `r` records take `c` as its checks instead of running them: the
/// convenience calls check the caller's host views once (the CPU's checks, before anything is
/// uploaded) and record on device copies of them that hold by construction.
void give_checks(recording& r, strix::detail::checked c);
} // namespace detail

/// What stream and command_recorder share: recording operators. Not made directly.
class recording : public detail::encoder {
public:
    /// Records a gather (same rules and messages as strix::gather).
    void gather(const device_view& input, const device_view& indices, const device_view& output, const gather_desc& d = {});

    /// Records a join (same rules and messages as strix::join).
    void join(std::span<const device_view> inputs, const device_view& output, const join_desc& d = {});

    /// Records a pad (same rules and messages as strix::pad).
    void pad(const device_view& input, const device_view& output, const pad_desc& d);

    /// Records a scatter (same rules and messages as strix::scatter); in place when `output` is
    /// `input`. Duplicate targets resolve as on the CPU (the last update in C order wins) without
    /// a reduction; with one, see scatter_desc::deterministic.
    void scatter(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output,
                 const scatter_desc& d = {});

    /// Records a gather-elements (same rules and messages as strix::gather_elements).
    void gather_elements(const device_view& input, const device_view& indices, const device_view& output, const gather_elements_desc& d = {});

    /// Records a gather-nd (same rules and messages as strix::gather_nd): a pass that resolves the
    /// index tuples into offsets, then a move that reads them.
    void gather_nd(const device_view& input, const device_view& indices, const device_view& output, const gather_nd_desc& d = {});

    /// Records a split into `outputs` (same rules and messages as strix::split).
    void split(const device_view& input, std::span<const device_view> outputs, const split_desc& d = {});

    /// Records a copy of `input` into `output`: the same type and shape, any strides, no
    /// overlap. Views that are contiguous and 16-byte aligned run as the plain 16-byte copy
    /// shader; others as a move plan.
    void copy(const device_view& input, const device_view& output);

    /// Records a scatter-nd (same rules and messages as strix::scatter_nd); in place when
    /// `output` is `input`: a pass that resolves the index tuples into offsets, then the updates.
    void scatter_nd(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output,
                    const scatter_nd_desc& d = {});
protected:
    using encoder::encoder;

    /// An operator's checks: `check()`, or the ones given for it (give_checks), taken once.
    template <class Check>
    strix::detail::checked checks(Check&& check) {
        if (!given_) return check();
        strix::detail::checked c = std::move(*given_);
        given_.reset();
        return c;
    }
    std::optional<strix::detail::checked> given_;
    friend void detail::give_checks(recording& r, strix::detail::checked c);

    /// Notes the buffers an operator uses, for submissions to pin and replays to find
    /// destroyed ones (a command_recorder pins them at once: its application may submit any time).
    void uses(std::span<const device_view> views) {
        const std::size_t before = owners_.size();
        for (const auto& v : views)
            if (v.owner && std::find(owners_.begin(), owners_.end(), v.owner) == owners_.end()) owners_.push_back(v.owner);
        if (pin_on_record_ && owners_.size() > before) {
            const std::span<const std::uint64_t> added(owners_.data() + before, owners_.size() - before);
            if (const std::uint64_t dead = ctx_->buffers().pin(added)) {
                owners_.resize(before);
                throw error(error_code::invalid_argument, "strix::vulkan: buffer #" + std::to_string(dead) + " was destroyed");
            }
        }
    }

    /// An operator call as a stream keeps it, to record it again on other views (rebind).
    struct call {
        std::vector<device_view> views; ///< its operands, in its parameters' order
        detail::callback<void(recording&, std::span<const device_view>)> record;
    };
    /// One operator recording, all or nothing: its commands are kept aside (recorder::pending_)
    /// and written into the command buffer when it returns; when it throws (a rule it breaks,
    /// an allocation that fails), everything it did is undone — commands, hazards, metadata,
    /// scratch, index checks, guard words, the buffers noted, and the call a stream kept — so
    /// that the recording is as it was before the call.
    class op_scope {
    public:
        op_scope(recording& r, std::vector<call>* calls, op_saved&& saved) : r_(r), calls_(calls), saved_(std::move(saved)) { ++r_.op_depth_; }
        op_scope(const op_scope&) = delete;
        op_scope& operator=(const op_scope&) = delete;
        ~op_scope() {
            --r_.op_depth_;
            const bool failed = std::uncaught_exceptions() > exceptions_;
            if (failed && calls_) calls_->pop_back();
            if (r_.op_depth_ > 0) return;
            if (failed) r_.rollback(std::move(saved_));
            else r_.commit();
        }

    private:
        recording& r_;
        std::vector<call>* calls_;
        op_saved saved_;
        int exceptions_ = std::uncaught_exceptions();
    };
    /// Every operator's first step: checks each operand (`roles(i)` names operand i in messages)
    /// against the context (detail::check_operand), opens the operator's op_scope, notes the
    /// buffers of its operands (uses) and, in streams (keep_calls_), keeps the call to record
    /// it again on other views.
    template <class Roles, class F>
    [[nodiscard]] op_scope note_call(std::string_view op, std::vector<device_view> views, Roles&& roles, F&& record) {
        ensure_recording();
        for (std::size_t i = 0; i < views.size(); ++i) detail::check_operand(*ctx_, views[i], op, roles(i));
        op_saved saved = save_op();
        uses(views); // (undoes itself when it throws)
        std::vector<call>* kept = nullptr;
        if (keep_calls_) {
            calls_.push_back(call{std::move(views), std::forward<F>(record)});
            kept = &calls_;
        }
        return op_scope(*this, kept, std::move(saved));
    }
    /// Roles of operands in a fixed order.
    struct roles_of {
        std::initializer_list<const char*> names;
        std::string operator()(std::size_t i) const { return names.begin()[i]; }
    };
    bool keep_calls_ = false;
    std::vector<call> calls_;
};

} // namespace strix::vulkan
