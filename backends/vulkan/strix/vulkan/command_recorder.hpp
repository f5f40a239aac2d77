#pragma once
/// Recording strix's operators into the application's own command buffer: the application
/// begins it, records its own work around strix's, ends it, submits it (once or many times)
/// and waits on its own fence or semaphore; strix only records.

#include "strix/vulkan/recording.hpp"

namespace strix::vulkan {

/// The barriers a command_recorder places around strix's commands.
struct command_recorder_options {
    /// At the start: everything earlier in the queue's submission order (any stage's writes,
    /// any stage's reads) before strix's first command — so the application's writes of the
    /// inputs (a copy, a shader, a host write before the submission) are visible to strix, and
    /// strix writes no buffer that earlier work still reads. Turn it off only when the
    /// application places an equivalent barrier itself (to VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
    /// | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT).
    bool barrier_before = true;
    /// At finish(): strix's writes (compute shaders and transfers) made visible to every later
    /// command of any stage and to the host after the application's fence. Off: the
    /// application places it (from VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
    /// VK_PIPELINE_STAGE_TRANSFER_BIT with VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT).
    bool barrier_after = true;
};

/// Records operators into a command buffer the application owns (see README, "strix inside
/// your Vulkan"). The operators are a stream's (the same rules, messages and results); the
/// application submits. The command buffer must be in the recording state, allocated from a
/// pool of ctx.queue_family() (strix's buffers are exclusive to that family), and may be
/// submitted any number of times.
///
/// The recorder holds the metadata and scratch its commands read: it must live until the
/// device has finished every submission of the command buffer. Index checks of the `error`
/// policy: after the application's fence, throw_index_errors() throws the CPU's error when an index was out
/// of range in any submission since the last throw_index_errors() (the output is then not to be trusted).
class command_recorder : public recording {
public:
    command_recorder(context& ctx, VkCommandBuffer cmd, const command_recorder_options& opt = {});
    command_recorder(const command_recorder&) = delete;
    command_recorder& operator=(const command_recorder&) = delete;

    /// Ends strix's part of the command buffer (the closing barrier, see
    /// command_recorder_options::barrier_after); recording an operator afterwards throws. The
    /// application goes on recording its own commands.
    void finish();

    /// After the application has waited for its submission(s): throws the CPU's strix::error
    /// (naming the position and the value) when an index was out of range under the `error`
    /// policy in any of them since the last throw_index_errors(); then starts afresh. Reading the indices
    /// back runs on the context's queue.
    void throw_index_errors();

private:
    command_recorder_options opt_;
};

} // namespace strix::vulkan
