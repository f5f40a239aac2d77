namespace strix::vulkan {

command_recorder::command_recorder(context& ctx, VkCommandBuffer cmd, const command_recorder_options& opt) : recording(ctx, cmd), opt_(opt) {
    if (cmd == VK_NULL_HANDLE) throw error(error_code::invalid_argument, "strix::vulkan::command_recorder: no command buffer given");
    pin_on_record_ = true; // the application submits whenever it likes, until the recorder is destroyed
    clear_flag();
    if (opt_.barrier_before) {
        auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                           VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
        ctx_->vk().vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0,
                                        1, &mb, 0, nullptr, 0, nullptr);
    }
}

void command_recorder::finish() {
    if (closed_) return;
    closed_ = true;
    if (!opt_.barrier_after) return;
    auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
    ctx_->vk().vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void command_recorder::throw_index_errors() {
    struct clear_after {
        command_recorder& r;
        ~clear_after() { r.clear_flag(); }
    } guard{*this};
    report_index_errors();
}

} // namespace strix::vulkan
