#pragma once
/// Streams: record many operators on device views and submit them at once, with a barrier
/// only where an operator touches bytes that an earlier one in the stream wrote (or writes
/// bytes that an earlier one read). A stream records into a frame its context keeps (a command
/// buffer, a fence, metadata and scratch), runs, waits, and replays.

#include "strix/vulkan/recording.hpp"

namespace strix::vulkan {

/// How a stream runs.
struct stream_options {
    /// Write device timestamps around the stream's work, for device_seconds(). Off by default:
    /// on some devices (lavapipe) the query reset and the two timestamps cost more than a small
    /// operator.
    bool timestamps = false;
    /// Count what the stream records (dispatches, barriers, the paths its operators take), for
    /// stats(); collect_stats(true) does the same later. Off by default.
    bool stats = false;
};

/// Records operators on device views and runs them together. One thread at a time.
class stream : public recording {
public:
    /// A stream on `ctx`, recording into a frame the context keeps between streams (see
    /// strix::vulkan::frame): making one asks the driver for nothing once a stream has run.
    explicit stream(context& ctx, const stream_options& opt = {});

    /// Submits everything recorded so far (once; replay() submits it again).
    void submit();

    /// Waits for the submitted work. Then, when an index was out of range under the `error`
    /// policy, throws the same strix::error as the CPU would (naming the position and value).
    void wait();

    /// Submits and waits.
    void run() { wait(); }

    /// Submits the recorded work again once the last submission has been waited for: a stream
    /// records once and runs many times (a decode loop's appends and gathers, every token). The
    /// same operators run on the same device views, so their buffers must still be alive (a
    /// strix tensor destroyed since is reported as a strix::error; the application's own
    /// wrapped buffers are its to keep); what they hold may change between runs (write new
    /// rows into a bound tensor, then replay). Asynchronous like submit(): wait() (or a wait on
    /// fence()) waits for it, and wait() reports an out-of-range index of this run. Throws
    /// strix::error when the last submission has not been waited for.
    void replay();

    /// One operand to replace, for rebind: `from` as the operators were given it, `to` the view
    /// they use from now on.
    struct rebinding {
        device_view from, to;
    };

    /// Replaces operands of the recorded operators without the application recording them again:
    /// every operand equal to a `from` (the same buffer, address, type, shape and strides) becomes
    /// its `to`, and the stream records its operators again on the new views (with the same
    /// rules and messages as when they were first recorded), ready for replay(). The decode loop
    /// of a model: rebind the row the token's keys go to, replay. A `to` may differ from its
    /// `from` in address, strides or shape, as far as each operator's rules allow (a longer
    /// gather: rebind its indices and its output together). Costs what recording the
    /// operators costs (host time only; nothing is submitted). For small values that change
    /// every run, such as indices or a position, a tensor the host writes in place
    /// (device_tensor with memory::upload, host_view()) costs nothing at all.
    ///
    /// Throws strix::error when the last submission has not been waited for, when a `from`
    /// is not an operand of the stream, or when an operator's rules refuse the new views (then
    /// the stream is as it was before the call).
    void rebind(std::span<const rebinding> changes);
    void rebind(std::initializer_list<rebinding> changes) { rebind(std::span<const rebinding>(changes.begin(), changes.size())); }

    /// The fence the stream's submissions signal, for a caller that waits on it with its own
    /// Vulkan calls (then call wait(), which returns at once, to have index errors reported).
    [[nodiscard]] VkFence fence() const { return frame_->fence; }

    /// Device time of the stream's work in seconds, from timestamps written around it (after
    /// wait(); 0 unless the stream was made with stream_options::timestamps and the queue has
    /// timestamps).
    [[nodiscard]] double device_seconds() const;

    /// Reads a device view back into a C-order host tensor (synchronously, with its own recording).
    static host_tensor download_view(context& ctx, const device_view& v) { return detail::download_view(ctx, v); }

private:
    /// Begins the frame's command buffer: the flag word cleared, the first timestamp.
    void start();
    /// Ends it: the second timestamp, the device's writes visible to the host.
    void close();
    /// Records `calls` anew into the frame's command buffer; `submitted`: the stream had been
    /// submitted (and waited for), so it ends ready for replay().
    void record_again(const std::vector<call>& calls, bool submitted);

    VkQueryPool queries_ = VK_NULL_HANDLE;
    bool done_ = false;
};

} // namespace strix::vulkan
