#pragma once
/// The Vulkan context: loader (volk), instance, the chosen device, its compute queue, buffers with
/// device addresses, and the compute pipelines (created once per device, kept in a pipeline
/// cache that can be saved to and loaded from disk).
///
/// Threads: a context may be shared by several threads — creating buffers and pipelines and
/// submitting work are synchronised inside. A `stream` (stream.hpp) and a `buffer` are used by
/// one thread at a time.
///
/// What it is made of lives beside it, by concern: instance.hpp (loader, devices, adoption),
/// memory.hpp (buffers), pipelines.hpp (pipelines and their cache), frames.hpp (what a stream
/// runs with) and config.hpp (the switches).

#include <algorithm>
#include <atomic>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <volk.h>

#include "strix/vulkan/check.hpp"
#include "strix/vulkan/config.hpp"
#include "strix/vulkan/frames.hpp"
#include "strix/vulkan/instance.hpp"
#include "strix/vulkan/memory.hpp"
#include "strix/vulkan/owned.hpp"
#include "strix/vulkan/pipelines.hpp"
#include "strix/vulkan/spirv/variants.h"

namespace strix::vulkan {

/// Defined by <strix/vulkan/implementation.hpp>: a program that forgot it fails to link with
/// this name (rather than volk's "undefined reference to vkGetInstanceProcAddr", whose natural
/// fix, -lvulkan, does not help).
extern "C" const int strix_missing_implementation__include_strix_vulkan_implementation_hpp_in_one_cpp_file;

/// One Vulkan device, ready to run strix's operators.
class context {
public:
    /// Loads Vulkan, creates an instance (with the validation messenger when possible), picks a
    /// device (see choose_device) and creates it with one compute queue. Throws strix::error
    /// when there is no loader, no usable device or a call fails.
    explicit context(const context_options& opt = {}) : context(linked{strix_missing_implementation__include_strix_vulkan_implementation_hpp_in_one_cpp_file}, opt) {}

    /// Adopts a device the application made (see adopted_device): strix runs on its queue and
    /// allocates its buffers from it, and never destroys the instance, the device or the queue.
    /// Checks that the device was made with what strix needs (Vulkan 1.2, bufferDeviceAddress,
    /// shaderInt64, a queue family with compute) and throws strix::error naming what is
    /// missing; features strix could use but the device was made without (8/16-bit storage,
    /// 64-bit atomics, float64, float atomics) are taken as absent, and slower paths run.
    explicit context(const adopted_device& user, const context_options& opt = {})
        : context(linked{strix_missing_implementation__include_strix_vulkan_implementation_hpp_in_one_cpp_file}, user, opt) {}
    context(const context&) = delete;
    context& operator=(const context&) = delete;
    /// Waits for the queue, then destroys what the context made: with a device of its own,
    /// the device and instance too; an adopted one is left as it was given.
    ~context();

    /// The device in use.
    [[nodiscard]] const device_info& device() const { return info_; }
    /// Whether the context takes the full path (64-bit device addresses and arithmetic: the
    /// device has bufferDeviceAddress and shaderInt64, made with them, and the profile is full),
    /// else the baseline path (shaders/common.glsl): operands bound through descriptor sets.
    [[nodiscard]] bool full_path() const { return full_; }
    /// The baseline path's limits: minStorageBufferOffsetAlignment and maxStorageBufferRange.
    [[nodiscard]] std::uint64_t storage_alignment() const { return storage_alignment_; }
    [[nodiscard]] std::uint64_t max_binding_range() const { return max_binding_range_; }
    /// The baseline path's plan binding: a uniform buffer of plan_window bytes (Vulkan 1.1's
    /// least maxUniformBufferRange; shaders/common.glsl declares as much) from an offset of
    /// this alignment (minUniformBufferOffsetAlignment, and the storage buffers' too: a move's
    /// tables bind as AUX from the same offset).
    static constexpr std::uint64_t plan_window = 16384;
    [[nodiscard]] std::uint64_t plan_alignment() const { return plan_alignment_; }
    /// The descriptor set layout of the baseline path (null on the full path).
    [[nodiscard]] VkDescriptorSetLayout set_layout() const { return set_layout_; }
    /// Whether shader `s` has a variant this context can run (reduce and scan have none on the
    /// baseline path yet).
    [[nodiscard]] bool runs(shader s) const { return variant_[static_cast<std::size_t>(s)] < spirv::variant_count; }
    /// The end of a refusal on the baseline path: "the full path (bufferDeviceAddress and
    /// shaderInt64), which <device> lacks" (or "does not take here", under the baseline profile).
    [[nodiscard]] std::string full_path_needed() const {
        return "the full path (bufferDeviceAddress and shaderInt64), which " + info_.name + (info_.full_path() ? " does not take here" : " lacks");
    }
    /// The optional Vulkan features the context uses, named as Vulkan names them (for `strix devices`).
    [[nodiscard]] std::string features_in_use() const;
    /// Whether 1- and 2-byte elements move through 8/16-bit storage (else through 32-bit words).
    [[nodiscard]] bool small_storage() const { return small_storage_; }
    /// Whether every move is located in 64-bit arithmetic (context_options::always_addr64).
    [[nodiscard]] bool always_addr64() const { return always_addr64_; }
    /// 16-byte moves per invocation of the copy shader and of 16-byte element moves, and
    /// 16-byte output chunks per invocation of a chunked move (context_options::unroll and
    /// chunk_unroll, within 1..8).
    [[nodiscard]] std::uint32_t unroll_16() const { return unroll_; }
    [[nodiscard]] std::uint32_t unroll_chunks() const { return chunk_unroll_; }
    /// 32-bit words of shared memory a gather-elements may tile its input in (tile.comp):
    /// context_options::tile_kib, within the device's limit; 0 when context_options::tile
    /// turns the path off.
    [[nodiscard]] std::uint32_t tile_words() const { return tile_words_; }
    /// How many updates of one target a deterministic scatter reduction folds per dispatch: an
    /// invocation's loop stays short, since some implementations end a loop after 65535
    /// iterations in all (Mesa's llvmpipe, a CPU device, does) and a long one may trip a GPU's
    /// watchdog.
    /// context_options::fold_chunk sets it.
    [[nodiscard]] std::uint64_t fold_chunk() const { return fold_chunk_; }
    /// Outputs of this many elements and more mark a deterministic reduction's targets with a bit
    /// each (a large output's bit map stays small enough for a GPU's cache), smaller ones with a
    /// word each (many updates of one word's 32 targets would queue on its atomics); see
    /// bench/NOTES.md, "Defaults of the Vulkan switches and why". context_options::slot_bits_from
    /// sets it (tests).
    [[nodiscard]] std::uint64_t slot_bits_from() const { return slot_bits_from_; }
    /// Whether scatter reductions of 8-byte elements may use 64-bit atomics (else they take the
    /// deterministic path).
    [[nodiscard]] bool int64_atomics() const { return int64_atomics_; }
    /// Whether shaders may do float64 arithmetic (float64 add/mul reductions need it; float32
    /// ones use it to stay exact on devices that flush subnormals).
    [[nodiscard]] bool float64() const { return float64_; }
    /// Whether float32 add reductions may use the device's float atomic add where its result
    /// equals the CPU's (shaders/reduce.comp); context_options::float_atomics turns it off.
    [[nodiscard]] bool float32_atomic_add() const { return float32_atomic_add_; }
    /// Whether float64 add reductions may likewise use the device's float64 atomic add (which
    /// strix takes only together with the float32 one); context_options::float_atomics turns
    /// it off too.
    [[nodiscard]] bool float64_atomic_add() const { return float64_atomic_add_; }
    /// Whether scatters without a reduction may take the claim path (stream::claims_scatter);
    /// context_options::scatter_claims turns it off.
    [[nodiscard]] bool scatter_claims() const { return scatter_claims_; }
    /// The spirv::feature bits the shader variants may use here: the device's, less what the
    /// options turn off.
    [[nodiscard]] std::uint32_t shader_features() const { return features_; }
    /// The variant of `s` this context runs: spirv::pick(s, shader_features()).
    [[nodiscard]] const spirv::variant& shader_variant(shader s) const { return spirv::variants[variant_[static_cast<std::size_t>(s)]]; }
    /// Validation (and other layer) messages reported so far; each also went to stderr.
    /// (A context on an adopted device has no messenger of its own: 0.)
    [[nodiscard]] int validation_messages() const { return inst_ ? inst_->messages() : 0; }
    /// Whether the device is the application's (context(const adopted_device&)).
    [[nodiscard]] bool adopted() const { return !owns_device_; }
    /// The Vulkan objects in use, for an application that records its own work beside strix's.
    [[nodiscard]] VkInstance instance_handle() const { return instance_; }
    [[nodiscard]] VkPhysicalDevice physical_device() const { return physical_; }
    [[nodiscard]] VkQueue queue() const { return queue_; }
    [[nodiscard]] VkDevice handle() const { return device_; }
    [[nodiscard]] const VolkDeviceTable& vk() const { return table_; }
    [[nodiscard]] std::uint32_t queue_family() const { return family_; }
    [[nodiscard]] std::uint32_t max_groups_x() const { return max_groups_[0]; }
    [[nodiscard]] std::uint32_t max_groups_y() const { return max_groups_[1]; }
    [[nodiscard]] float timestamp_period_ns() const { return timestamp_period_; }
    [[nodiscard]] std::uint32_t timestamp_bits() const { return timestamp_bits_; }

    /// Device memory of `bytes` of memory type `type` that buffers can take the address of, or
    /// VK_NULL_HANDLE (and the reason in `*result`) when it cannot be had. With `dedicated`, the
    /// memory is that buffer's alone (`bytes` must be its requirement's size). Buffers take
    /// dedicated memory: random reads from it can run faster on some drivers (bench/NOTES.md,
    /// "Defaults of the Vulkan switches and why"), and every buffer here has its own allocation
    /// anyway, so dedicating it costs nothing.
    VkDeviceMemory try_allocate(VkDeviceSize bytes, std::uint32_t type, VkResult* result = nullptr, VkBuffer dedicated = VK_NULL_HANDLE) const;

    /// A buffer of `bytes` (rounded up to 16) in `where`. Throws strix::error naming the size
    /// when the device is out of memory. `extra`: usages beyond the storage buffer's, on the
    /// baseline path (the plan chunks' uniform buffer, the flag and guard chunks' storage texel
    /// buffer: those get the R32_UINT view the flag binding reads, buffer_registry::extent).
    buffer create_buffer(std::uint64_t bytes, memory where, VkBufferUsageFlags extra = 0) const;

    /// The smallest host page size of the platforms strix runs on: an import rounded out to an
    /// alignment no larger stays within pages the range touches.
    static constexpr std::uint64_t host_page = 4096;

    /// Whether upload and download import host memory by default (context_options::host_import).
    [[nodiscard]] bool host_import() const { return host_import_; }
    /// Whether import_host can be tried (the device was made with VK_EXT_external_memory_host).
    [[nodiscard]] bool can_import_host() const { return host_import_alignment_ != 0 && table_.vkGetMemoryHostPointerPropertiesEXT; }

    /// A buffer over the application's host memory [p, p + bytes) that the device copies from
    /// and to directly (VK_EXT_external_memory_host: the driver pins the pages while the
    /// buffer lives), with `*offset` the position of `p` in it; an empty buffer when the device
    /// cannot import this memory (no extension, an import alignment above the page size, memory
    /// the driver refuses, such as some file mappings), and the caller copies through staging.
    /// The imported range is `p` and `p + bytes` rounded out to the import alignment: whole
    /// pages that `p`'s range touches, so mapped, and never written outside [p, p + bytes).
    buffer import_host(const void* p, std::uint64_t bytes, std::uint64_t* offset) const;

    /// The compute pipeline for `key`, created on first use (thread-safe).
    VkPipeline pipeline(const pipeline_key& key);
    [[nodiscard]] VkPipelineLayout layout() const { return layout_; }
    /// The first of `ids` (buffer serial numbers) whose buffer was destroyed, or 0.
    template <class Range>
    [[nodiscard]] std::uint64_t first_destroyed(const Range& ids) const { return live_->first_dead(ids); }
    /// The context's host-visible buffer whose mapped memory holds all of [p, p + bytes) (a
    /// memory::host tensor's host_view(), say), and p's offset in it; a null handle when none does.
    [[nodiscard]] std::pair<VkBuffer, std::uint64_t> find_mapped(const void* p, std::uint64_t bytes) const { return live_->find_mapped(p, bytes); }
    /// The buffers of this context, alive and pinned (see buffer_registry).
    [[nodiscard]] detail::buffer_registry& buffers() const { return *live_; }
    /// This context's serial number, unique in the process: device views carry it (device_view::origin).
    [[nodiscard]] std::uint64_t serial() const { return serial_; }
    /// Number of pipelines created so far.
    [[nodiscard]] std::size_t pipeline_count() const {
        std::lock_guard lock(mutex_);
        return pipelines_.size();
    }

    /// Writes the pipeline cache to the file `path` (UTF-8; load it with context_options::pipeline_cache).
    void save_pipeline_cache(const std::string& path) const;

    /// A frame for a new stream: one a finished stream gave back, else a new one (thread-safe).
    /// Its command pool is reset, its fence unsignalled, its scratch free.
    detail::owned<frame> acquire_frame();

    /// Takes back the frame of a stream whose work has finished (or was never submitted):
    /// resets it for the next stream and keeps it, with at most frame_scratch_bytes of scratch.
    void release_frame(detail::owned<frame> f) noexcept;

    /// Frames made so far: as many as streams were ever alive at once, since a stream takes the
    /// frame an earlier one gave back.
    [[nodiscard]] std::size_t frames_made() const { return frames_made_.load(std::memory_order_relaxed); }

    /// Scratch a frame keeps between streams (larger requests get a buffer that the stream frees).
    static constexpr std::uint64_t frame_scratch_bytes = 64ull << 20;
    /// Metadata chunks a frame keeps between streams.
    static constexpr std::uint64_t frame_meta_bytes = 4ull << 20;

    /// The baseline path: a descriptor set of frame `f` binding `b` (SRC, DST, IDX, PLAN, FLAG,
    /// AUX), made once per frame and combination; reset_sets forgets them all (the frame's
    /// command buffer must not be running).
    VkDescriptorSet descriptor_set(frame& f, const std::array<bound_buffer, 6>& b);
    void reset_sets(frame& f) noexcept;

    /// A pipeline for `key`, looked up in the frame first (no lock), then in the context.
    VkPipeline pipeline(frame& f, const pipeline_key& key);

    /// Waits for `fence`: first by polling it for up to spin_wait_us() (a blocking wait wakes
    /// the thread tens of microseconds after the device finished; polling sees it at once),
    /// then blocking. Throws strix::error when the device is lost.
    void wait(VkFence fence) const;
    /// How long wait() polls before it blocks (context_options::spin_wait_us).
    [[nodiscard]] std::uint32_t spin_wait_us() const { return spin_us_; }

    /// Submits `cmd` to the queue with `fence` (thread-safe).
    void submit(VkCommandBuffer cmd, VkFence fence);

private:
    /// The value of the symbol implementation.hpp defines, read (not only named, so that
    /// optimised builds ask the linker for it too) where a context is made, in the program's own
    /// files, inline above: a program without that file fails to link naming it. The
    /// constructors below, defined in that file, check the value.
    struct linked {
        int volk;
    };
    context(linked l, const context_options& opt);
    context(linked l, const adopted_device& user, const context_options& opt);

    /// Which paths the device's features (as enabled) allow, less what the options turn off,
    /// and the options' numbers within their ranges.
    void choose_paths(const context_options& opt, bool small_storage, bool int64_atomics, bool float64, bool float32_atomic_add, bool float64_atomic_add);

    /// A compute-only queue family, else any with compute.
    std::uint32_t compute_family();

    /// What both constructors do once the device and queue are there: memory types, limits,
    /// the pipeline cache (from disk when given) and the layout, one 128-byte push-constant range.
    void finish_setup(const context_options& opt);

    void destroy(frame& f) noexcept;

    std::optional<std::uint32_t> find_type(std::uint32_t bits, VkMemoryPropertyFlags want) const;

    std::shared_ptr<detail::buffer_registry> live_; // made by finish_setup; closed by the destructor
    std::uint64_t serial_ = detail::next_serial();
    std::optional<detail::instance> inst_; // none when the device is adopted
    VkInstance instance_ = VK_NULL_HANDLE;
    bool owns_device_ = false;
    device_info info_;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VolkDeviceTable table_{};
    VkQueue queue_ = VK_NULL_HANDLE;
    std::uint32_t family_ = 0;
    std::uint32_t timestamp_bits_ = 0;
    float timestamp_period_ = 1;
    std::array<std::uint32_t, 3> max_groups_{};
    std::uint32_t tile_words_ = 0;
    VkPhysicalDeviceMemoryProperties memory_{};
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE; // the baseline path's
    bool full_ = false;
    std::uint64_t storage_alignment_ = 256, max_binding_range_ = 0;
    std::uint32_t max_texels_ = 0;          // maxTexelBufferElements
    std::uint64_t plan_alignment_ = 256;
    std::array<VkShaderModule, spirv::variant_count> modules_{}; // per variant, made on first use
    std::uint32_t features_ = 0;                                  // spirv::feature bits the paths allow
    std::array<std::size_t, spirv::shader_count> variant_{};      // per shader, its variant in spirv::variants
    detail::pipeline_table pipelines_;
    mutable std::mutex mutex_;
    std::vector<detail::owned<frame>> frames_; // streams' frames, free for the next stream
    std::mutex frames_mutex_;
    std::atomic<std::size_t> frames_made_{0};
    bool small_storage_ = false;
    bool always_addr64_ = false;
    bool int64_atomics_ = false;
    bool float64_ = false;
    bool float32_atomic_add_ = false, float64_atomic_add_ = false;
    std::uint64_t host_import_alignment_ = 0; ///< 0: host memory is not imported
    bool scatter_claims_ = true;
    std::uint32_t spin_us_ = 0;
    std::uint32_t unroll_ = 4, chunk_unroll_ = 1;            // context_options::unroll, chunk_unroll
    std::uint64_t fold_chunk_ = 65536;                        // context_options::fold_chunk, or by device type
    std::uint64_t slot_bits_from_ = (std::uint64_t{1} << 22) + 1; // context_options::slot_bits_from
    bool host_import_ = false;                                // context_options::host_import
};

} // namespace strix::vulkan
