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

    /// Notes the buffers an operator uses, for replays to find destroyed ones.
    void uses(std::span<const device_view> views) {
        for (const auto& v : views)
            if (v.owner && std::find(owners_.begin(), owners_.end(), v.owner) == owners_.end()) owners_.push_back(v.owner);
    }
    std::vector<std::uint64_t> owners_; // strix buffers the recorded operators use

    /// An operator call as a stream keeps it, to record it again on other views (rebind).
    struct call {
        std::vector<device_view> views; ///< its operands, in its parameters' order
        detail::callback<void(recording&, std::span<const device_view>)> record;
    };
    /// Guards a call kept by note_call: drops it again if the operator throws (a rule it
    /// breaks), so that only recorded operators are kept.
    class kept_call {
    public:
        explicit kept_call(std::vector<call>* calls) : calls_(calls) {}
        kept_call(const kept_call&) = delete;
        kept_call& operator=(const kept_call&) = delete;
        ~kept_call() {
            if (calls_ && std::uncaught_exceptions() > exceptions_) calls_->pop_back();
        }

    private:
        std::vector<call>* calls_;
        int exceptions_ = std::uncaught_exceptions();
    };
    /// Every operator's first step: notes the buffers of its operands (uses) and, in streams
    /// (keep_calls_), keeps the call to record it again on other views.
    template <class F>
    [[nodiscard]] kept_call note_call(std::vector<device_view> views, F&& record) {
        uses(views);
        if (!keep_calls_) return kept_call(nullptr);
        calls_.push_back(call{std::move(views), std::forward<F>(record)});
        return kept_call(&calls_);
    }
    bool keep_calls_ = false;
    std::vector<call> calls_;
};

} // namespace strix::vulkan
