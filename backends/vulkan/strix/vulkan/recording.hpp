#pragma once
/// The operators on device views, as a stream and a command_recorder record them: each checks
/// the operator's rules (the same rules and messages as on the CPU), lowers it to plans and
/// encodes those into dispatches. The calls come from the operator list (strix/ops/list.hpp)
/// and each operator's op_traits.

#include <exception>
#include <optional>
#include <span>

#include "strix/ops/list.hpp"
#include "strix/vulkan/encode.hpp"

// A recording's calls of an operator `op` of each form (see STRIX_OPERATORS).
#define STRIX_RECORDING_CALLS_unary(op)                                                                    \
    void op(const device_view& input, const device_view& output, const op##_desc& d = {}) {                \
        const device_view v[] = {input, output};                                                           \
        record<op##_desc>(v, d);                                                                           \
    }
#define STRIX_RECORDING_CALLS_indexed(op)                                                                  \
    void op(const device_view& input, const device_view& indices, const device_view& output, const op##_desc& d = {}) { \
        const device_view v[] = {input, indices, output};                                                  \
        record<op##_desc>(v, d);                                                                           \
    }
#define STRIX_RECORDING_CALLS_update(op)                                                                   \
    void op(const device_view& input, const device_view& indices, const device_view& updates, const device_view& output, \
            const op##_desc& d = {}) {                                                                     \
        const device_view v[] = {input, indices, updates, output};                                         \
        record<op##_desc>(v, d);                                                                           \
    }
#define STRIX_RECORDING_CALLS_joining(op)                                                                  \
    void op(std::span<const device_view> inputs, const device_view& output, const op##_desc& d = {}) {     \
        std::vector<device_view> v(inputs.begin(), inputs.end());                                          \
        v.push_back(output);                                                                               \
        record<op##_desc>(v, d);                                                                           \
    }
#define STRIX_RECORDING_CALLS_splitting(op)                                                                \
    void op(const device_view& input, std::span<const device_view> outputs, const op##_desc& d = {}) {     \
        std::vector<device_view> v{input};                                                                 \
        v.insert(v.end(), outputs.begin(), outputs.end());                                                 \
        record<op##_desc>(v, d);                                                                           \
    }

namespace strix::vulkan {

/// A chain of moves over device views (strix/ops/chain.hpp), recorded by a stream's evaluate
/// and join.
using device_chain = basic_chain<device_view>;
/// The view a device chain's rules and plans take (its data pointer the device address).
inline any_cview chain_view_of(const device_view& v) { return v.as_any(); }
/// The chain of no steps over device view `x`, to add steps to.
inline device_chain lazy(const device_view& x) { return device_chain(x); }

/// What stream and command_recorder share: recording operators. Not made directly.
class recording : public detail::encoder {
public:
    // The operators (strix/ops/list.hpp), each with the rules and messages of its CPU call:
    // `gather(input, indices, output, d)`, `pad(input, output, d)`, `join(inputs, output, d)`,
    // `split(input, outputs, d)`, `scatter(input, indices, updates, output, d)` (in place when
    // `output` is `input`; duplicate targets resolve as on the CPU — the last update in C order
    // wins — without a reduction; with one, see scatter_desc::deterministic) and so on.
#define STRIX_RECORDING_CALL(op, form) STRIX_RECORDING_CALLS_##form(op)
    STRIX_OPERATORS(STRIX_RECORDING_CALL)
#undef STRIX_RECORDING_CALL

    /// Records operator `Desc` on `views` (its inputs, then its outputs). `given`: the checks of
    /// the call, already made (a convenience call checks the caller's host views and records on
    /// device copies of them that hold by construction); null: made here.
    template <operator_desc Desc>
    void record(std::span<const device_view> views, const Desc& d, const strix::detail::checked_call* given = nullptr) {
        using T = op_traits<Desc>;
        const auto noted = note_call(
            call_name(T::name), {views.begin(), views.end()}, [n = views.size()](std::size_t i) { return operand_role(T::form, i, n); },
            [d](recording& r, std::span<const device_view> v) { r.record<Desc>(v, d); });
        const std::size_t outs = T::form == op_form::splitting ? views.size() - 1 : 1;
        std::vector<any_cview> in;
        std::vector<any_view> out;
        for (std::size_t i = 0; i < views.size(); ++i) {
            if (i < views.size() - outs) in.push_back(views[i].as_any());
            else out.push_back(views[i].as_any());
        }
        const strix::detail::checked_call c = given ? *given : T::check(in, out, d);
        record_checked(views, in, out, d, c);
    }

    /// Records chain `c` (strix/ops/chain.hpp, over device views) into `output`, composed into
    /// as few passes as its steps allow (a temporary in the stream's scratch where one does not
    /// compose), with the rules and messages of the CPU's strix::evaluate.
    void evaluate(const basic_chain<device_view>& c, const device_view& output) { record_chains({&c, 1}, output, nullptr); }
    /// Records the join of chains `inputs` along `d.axis` into `output` (each chain composed into
    /// its part of the output), as the CPU's strix::join of chains.
    /// (`inputs`: an array, vector or span of chains.)
    template <std::ranges::contiguous_range R>
        requires std::same_as<std::ranges::range_value_t<R>, basic_chain<device_view>>
    void join(const R& inputs, const device_view& output, const join_desc& d = {}) {
        record_chains({std::ranges::data(inputs), std::ranges::size(inputs)}, output, &d);
    }

    /// Records a copy of `input` into `output`: the same type and shape, any strides, no
    /// overlap. Views that are contiguous and 16-byte aligned run as the plain 16-byte copy
    /// shader; others as a move plan.
    void copy(const device_view& input, const device_view& output);
protected:
    using encoder::encoder;

    /// What each operator records once checked (impl/recording.ipp, impl/ops.ipp): its own
    /// passes for the operators with indices, the move plans of op_traits::lower for the others.
    template <operator_desc Desc>
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out, const Desc& d,
                        const strix::detail::checked_call& c) {
        record_moves(op_traits<Desc>::lower(in, out, d, c), v, v.size() - out.size());
    }
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out, const gather_desc& d,
                        const strix::detail::checked_call& c);
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                        const gather_elements_desc& d, const strix::detail::checked_call& c);
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                        const gather_nd_desc& d, const strix::detail::checked_call& c);
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out, const join_desc& d,
                        const strix::detail::checked_call& c);
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out, const scatter_desc& d,
                        const strix::detail::checked_call& c);
    void record_checked(std::span<const device_view> v, std::span<const any_cview> in, std::span<const any_view> out,
                        const scatter_nd_desc& d, const strix::detail::checked_call& c);
    /// Records operator `Desc` on `v` (its inputs, then its output) without noting a call: a
    /// chain's index-driven step, whose rules the chain checked (its views are the chain's or
    /// scratch).
    template <operator_desc Desc>
    void record_step(std::span<const device_view> v, const Desc& d) {
        std::vector<any_cview> in;
        for (std::size_t i = 0; i + 1 < v.size(); ++i) in.push_back(v[i].as_any());
        const any_view out[] = {v.back().as_any()};
        record_checked(v, in, out, d, op_traits<Desc>::check(in, out, d));
    }
    /// evaluate (no `join`) or join of chains.
    void record_chains(std::span<const basic_chain<device_view>> chains, const device_view& output, const join_desc* join);
    /// Records move plans over `v`'s first `inputs` views (read) into the rest (written): one
    /// output each, in order, or (one output) every plan into it.
    void record_moves(const std::vector<plan::move_plan>& plans, std::span<const device_view> v, std::size_t inputs);
    /// The C++ name of an operator ("gather_elements" for "gather-elements"), as the Vulkan
    /// backend's messages give it.
    static std::string call_name(std::string_view name) {
        std::string s(name);
        for (char& ch : s)
            if (ch == '-') ch = '_';
        return s;
    }

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
