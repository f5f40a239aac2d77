#pragma once
/// The Vulkan context: loader (volk), instance, the chosen device, its compute queue, buffers with
/// device addresses, and the compute pipelines (created once per device, kept in a pipeline
/// cache that can be saved to and loaded from disk).
///
/// Threads: a context may be shared by several threads — creating buffers and pipelines and
/// submitting work are synchronised inside. A `stream` (stream.hpp) and a `buffer` are used by
/// one thread at a time.

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
#include "strix/vulkan/owned.hpp"
#include "strix/vulkan/spirv/variants.h"

namespace strix::vulkan {

/// What strix knows about one Vulkan device.
struct device_info {
    std::uint32_t index = 0;                     ///< position in vkEnumeratePhysicalDevices
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    std::uint32_t api_version = 0;
    std::uint64_t device_local_bytes = 0;        ///< size of the largest device-local heap
    std::uint64_t max_storage_buffer_range = 0;
    std::uint64_t max_memory_allocation = 0;
    bool int64 = false;                          ///< shaderInt64
    bool float64 = false;                        ///< shaderFloat64
    bool int64_atomics = false;                  ///< shaderBufferInt64Atomics
    bool float32_atomic_add = false;             ///< VK_EXT_shader_atomic_float's shaderBufferFloat32AtomicAdd
    bool float64_atomic_add = false;             ///< VK_EXT_shader_atomic_float's shaderBufferFloat64AtomicAdd
    bool denorm_preserve32 = false;              ///< shaderDenormPreserveFloat32 (float32 reductions keep subnormals)
    bool storage8 = false;                       ///< storageBuffer8BitAccess
    bool storage16 = false;                      ///< storageBuffer16BitAccess
    bool buffer_device_address = false;
    bool host_visible_device_memory = false;     ///< device-local memory the host can map
    /// VK_EXT_external_memory_host's minImportedHostPointerAlignment (0: no such extension):
    /// host memory the device can copy from and to directly
    std::uint64_t host_import_alignment = 0;
    std::string unusable;                        ///< why strix cannot use it (empty: usable)
};

/// "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other".
inline const char* type_name(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

namespace detail {

int type_rank(VkPhysicalDeviceType t);

/// Loads the Vulkan loader once per process; throws when there is none.
} // namespace detail

/// Defined by <strix/vulkan/volk_implementation.hpp>: a program that forgot it fails to link with
/// this name (rather than volk's "undefined reference to vkGetInstanceProcAddr", whose natural
/// fix, -lvulkan, does not help).
extern "C" const int strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file;

namespace detail {

/// A steady clock's reading in nanoseconds.
std::int64_t steady_ns();
/// The bytes of the file at `path`; none when it does not exist or cannot be read.
std::vector<char> read_file(const std::string& path);
/// Writes `n` bytes to the file at `path` (replacing it); false when that failed.
bool write_file(const std::string& path, const char* data, std::size_t n);

void load_loader();

/// Keeps the drivers loaded for the life of the process with one extra, bare instance: without
/// it every new instance loads the drivers again, and some (NVIDIA's) run out of static TLS
/// after a few dozen loads in one process. Destroyed at exit.
void keep_drivers_loaded();

device_info describe(VkPhysicalDevice pd, std::uint32_t index);

/// A Vulkan instance with the debug-utils messenger when the extension is present (so that
/// validation messages reach strix). `messages` counts what the messenger reported.
class instance {
public:
    explicit instance(bool want_messenger);
    instance(const instance&) = delete;
    instance& operator=(const instance&) = delete;
    ~instance() {
        if (messenger_) destroy_messenger_(handle_, messenger_, nullptr);
        if (handle_) vkDestroyInstance(handle_, nullptr);
    }
    [[nodiscard]] VkInstance get() const { return handle_; }
    [[nodiscard]] int messages() const { return messages_; }

    [[nodiscard]] std::vector<VkPhysicalDevice> physical_devices() const;

private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
        auto* self = static_cast<instance*>(user);
        // the loader's own chatter is informational; everything from a layer counts
        const bool from_validation = data->pMessageIdName && std::strncmp(data->pMessageIdName, "Loader", 6) != 0;
        if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT && from_validation) {
            ++self->messages_;
            std::fprintf(stderr, "strix::vulkan: validation: %s\n", data->pMessage ? data->pMessage : "(no text)");
        }
        return VK_FALSE;
    }
    VkInstance handle_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger_ = nullptr;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
    int messages_ = 0;
};

} // namespace detail

/// Every Vulkan device present, in enumeration order. Throws strix::error when there is no loader.
std::vector<device_info> list_devices();

/// Which device `list_devices()[i]` a context picks: `wanted` (an index, or a case-insensitive
/// part of the name; default: the STRIX_VULKAN_DEVICE environment variable), else the best
/// usable one by type (discrete > integrated > virtual > CPU). Throws when none fits.
std::uint32_t choose_device(const std::vector<device_info>& devices, std::optional<std::string> wanted = std::nullopt);

/// How to create a context.
struct context_options {
    std::optional<std::string> device;        ///< index or part of the name; default: STRIX_VULKAN_DEVICE, then the best
    std::string pipeline_cache;               ///< load the pipeline cache from this file (UTF-8 path) when it exists
    bool small_storage = true;                ///< use 8/16-bit storage when the device has it (false: the 32-bit word path)
    /// locate every moved element in 64-bit arithmetic, with pad folds read from their tables:
    /// the path calls of 2^31 or more elements (or offsets) take, for tests and measurements
    /// (STRIX_VULKAN_WIDE=1 does the same); by default calls that fit take the 32-bit path
    bool wide_arithmetic = false;
    /// How long a wait for the device polls before it blocks, in microseconds (default: 1000 on
    /// a GPU, 0 on a CPU device; STRIX_VULKAN_SPIN_US overrides both). Polling returns as soon
    /// as the work is done, where a blocking wait returns tens of microseconds later; it keeps
    /// a core busy while it polls.
    std::optional<std::uint32_t> spin_wait_us;
};

class context;

namespace detail {

/// A serial number unique in the process (never 0, never reused): buffers and contexts take one.
std::uint64_t next_serial() noexcept;

/// Every buffer a context made, by serial number: which are alive (a stream replayed after a
/// tensor it used was destroyed finds out here, and so does an operator given a view of a
/// destroyed or foreign buffer), the address range each holds (so that no operand reaches past
/// its buffer), and where the host-visible ones are mapped (so that a transfer from or to their
/// memory goes straight by the device's copy).
///
/// It also keeps the device from using freed memory: a buffer that submitted work may still use
/// is pinned (pin), and one released while pinned stays allocated, dead to every lookup, until
/// the last pin goes (unpin). Shared by the context and its buffers: when the context goes
/// (close), whatever is left is freed with it, and a buffer released later finds nothing to do.
class buffer_registry {
public:
    /// What a live buffer holds: its handle and device addresses [address, address + size).
    struct extent {
        VkBuffer handle = VK_NULL_HANDLE;
        std::uint64_t address = 0, size = 0;
    };

    buffer_registry(const VolkDeviceTable* vk, VkDevice device);
    ~buffer_registry();
    buffer_registry(const buffer_registry&) = delete;
    buffer_registry& operator=(const buffer_registry&) = delete;

    /// Registers a buffer (and the memory bound to it, which the registry frees with it); its
    /// serial number. `mapped`: where its memory is mapped (nullptr when it is not).
    std::uint64_t add(VkBuffer handle, VkDeviceMemory memory, std::uint64_t address, std::uint64_t size, std::byte* mapped);
    /// The owner let go of buffer `id`: it is dead from now on, and freed now, or when its last
    /// pin goes.
    void release(std::uint64_t id) noexcept;
    /// Pins every buffer of `ids` (0 stands for none) for work the device may run, unless one of
    /// them is dead: then pins nothing and returns that one. 0 when all were pinned.
    std::uint64_t pin(std::span<const std::uint64_t> ids);
    /// Takes back one pin of each of `ids` (pinned before), freeing the dead ones left unpinned.
    void unpin(std::span<const std::uint64_t> ids) noexcept;
    /// The live buffer `id`'s extent; none when it is dead or not this context's.
    [[nodiscard]] std::optional<extent> find(std::uint64_t id) const;
    /// The first of `ids` that is not alive (0 stands for none), or 0.
    [[nodiscard]] std::uint64_t first_dead(std::span<const std::uint64_t> ids) const;
    /// The live buffer whose mapping holds all of [p, p + bytes), and p's offset in it; a null
    /// handle when none does.
    [[nodiscard]] std::pair<VkBuffer, std::uint64_t> find_mapped(const void* p, std::uint64_t bytes) const;
    /// Buffers released while pinned whose memory is still held (for tests).
    [[nodiscard]] std::size_t deferred() const;
    /// The context is going (its queue is idle): frees every buffer still registered, alive or
    /// not; later calls do nothing.
    void close() noexcept;

private:
    struct state; // the entries and the mappings, in ordered containers (defined with the backend)
    void free_entry(std::uint64_t id) noexcept; // with the lock held
    [[nodiscard]] std::uint64_t first_dead_locked(std::span<const std::uint64_t> ids) const; // with the lock held
    mutable std::mutex mutex_;
    owned<state> s_;
    const VolkDeviceTable* vk_;
    VkDevice device_;
    bool closed_ = false;
};

} // namespace detail

/// A device buffer with a device address (move-only owner). Host-visible buffers stay mapped.
/// Its VkBuffer may be used in the application's own commands (see README, "strix inside your
/// Vulkan"): made with storage, transfer source and destination, indirect and device-address
/// usage, exclusive to the context's queue family.
///
/// Destroying it while a stream that uses it runs is safe: its memory stays allocated until
/// that work is done (buffer_registry); destroying it after its context is too (the context
/// freed it).
class buffer {
public:
    buffer() = default;
    buffer(buffer&& o) noexcept { swap(o); }
    buffer& operator=(buffer&& o) noexcept {
        buffer t(std::move(o));
        swap(t);
        return *this;
    }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    ~buffer() { release(); }

    [[nodiscard]] VkBuffer handle() const { return buf_; }
    [[nodiscard]] std::uint64_t size() const { return size_; }
    [[nodiscard]] VkDeviceAddress address() const { return address_; }
    /// Host pointer to the contents, or nullptr when the memory is not host-visible.
    [[nodiscard]] std::byte* mapped() const { return mapped_; }
    /// Serial number, unique in the process (see device_view::owner); 0 for an empty buffer.
    [[nodiscard]] std::uint64_t id() const { return id_; }

private:
    friend class context;
    void swap(buffer& o) noexcept;
    void release() noexcept;
    std::shared_ptr<detail::buffer_registry> registry_;
    VkBuffer buf_ = VK_NULL_HANDLE;
    std::uint64_t size_ = 0;
    VkDeviceAddress address_ = 0;
    std::byte* mapped_ = nullptr;
    std::uint64_t id_ = 0;
};

/// Where a buffer lives.
enum class memory : std::uint8_t {
    device, ///< device-local (host-visible too when the device has such memory, e.g. lavapipe)
    host,   ///< host-visible and coherent (staging, read-backs)
    /// written by the host, read by the device (plan metadata): device-local and host-visible
    /// where the device has such memory (resizable BAR), else host memory, so that shaders do
    /// not fetch it across the bus
    upload,
};

// (strix::vulkan::shader, the shaders strix runs, is declared in spirv/variants.h with their variants)

/// Specialization constants of a pipeline.
struct pipeline_key {
    shader which = shader::move;
    std::uint32_t elem = 4, rank = 1, index_type = 0, policy = 0, phase = 0;
    std::uint32_t wide = 1; ///< 64-bit coordinate arithmetic (more than 2^32 invocations)
    std::uint32_t type = 0, reduction = 0; ///< reduce.comp: element type (dtype order) and reduction
    std::uint32_t vec = 1; ///< move.comp: elements per chunk (1, or 16/elem for a 16-byte chunk)
    std::uint32_t unroll = 1; ///< move.comp, copy.comp: 16-byte moves per invocation
    std::uint32_t narrow = 0; ///< move.comp: 32-bit arithmetic (every offset of the call fits in an int)
    std::uint32_t fold = 0xffffffffu; ///< move.comp: the pad_mode every padded dimension folds by, computed (0xffffffff: none, tables)
    std::uint32_t tile = 4096; ///< tile.comp: 32-bit words of its shared tile (16 KiB, every device's minimum, unless set)
    auto operator<=>(const pipeline_key&) const = default;
};

namespace detail {
/// Pipelines by key, in key order (a sorted vector: looked up on every dispatch, added to
/// rarely, never removed one by one).
class pipeline_table {
public:
    /// The pipeline made for `key`, or a null handle.
    [[nodiscard]] VkPipeline find(const pipeline_key& key) const;
    /// Keeps `p` for `key` (which must not be there yet).
    void add(const pipeline_key& key, VkPipeline p);
    [[nodiscard]] std::size_t size() const { return entries_.size(); }
    /// Every pipeline kept, for destroying them.
    [[nodiscard]] std::vector<VkPipeline> all() const;

private:
    std::vector<std::pair<pipeline_key, VkPipeline>> entries_;
};
} // namespace detail

/// What one stream records and runs with, made once and kept by its context for the next
/// stream: a command pool and buffer, a fence, two timestamp slots, the out-of-range flag word,
/// upload chunks for plan metadata and device scratch buffers, and the pipelines this frame has
/// looked up (so a dispatch finds its pipeline without taking the context's lock). Nothing on a
/// stream's path asks the driver for memory or objects once its frame has served a stream of
/// the same shape.
struct frame {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    buffer flag;
    std::vector<buffer> meta;      ///< upload chunks for metadata, filled in order
    std::vector<buffer> guards;    ///< upload chunks of guard words, one per operator whose indices are checked
    std::vector<buffer> scratch;   ///< device scratch, each used whole by one request per stream
    std::vector<bool> scratch_used;
    detail::pipeline_table pipelines;
    buffer staging;                ///< host staging of upload and download (made by the first, then kept)
};

/// A Vulkan device the application made, for a context to adopt: strix then runs on the
/// application's queue and allocates from its device, beside the application's own work.
/// The application keeps them: strix never destroys what it was given.
///
/// strix submits to `queue` only inside its own calls (stream::submit/run/replay, upload,
/// download and the ops.hpp calls) and takes no lock the application knows of: do not use the
/// queue from another thread during those calls (Vulkan's external synchronisation rule).
struct adopted_device {
    VkInstance instance = VK_NULL_HANDLE;            ///< made with apiVersion 1.2 or later
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    std::uint32_t queue_family = 0;                  ///< must have compute
    VkQueue queue = VK_NULL_HANDLE;                  ///< a queue of queue_family
    /// How the device was made (its features and extensions are read from it, including the
    /// pNext chain); read during the constructor only. strix needs bufferDeviceAddress and
    /// shaderInt64, and uses storageBuffer8BitAccess + storageBuffer16BitAccess,
    /// shaderBufferInt64Atomics, shaderFloat64 and VK_EXT_shader_atomic_float where on.
    const VkDeviceCreateInfo* create_info = nullptr;
};

namespace detail {

/// The features a device was made with, from its VkDeviceCreateInfo (core structures of 1.0
/// to 1.2 and their extension forms, in pEnabledFeatures or the pNext chain).
struct enabled_features {
    bool buffer_device_address = false, int64 = false, float64 = false, storage8 = false, storage16 = false;
    bool int64_atomics = false, float32_atomic_add = false, float64_atomic_add = false, atomic_float_extension = false;
    bool external_memory_host = false;

    static enabled_features of(const VkDeviceCreateInfo& ci);
};

} // namespace detail

/// One Vulkan device, ready to run strix's operators.
class context {
public:
    /// Loads Vulkan, creates an instance (with the validation messenger when possible), picks a
    /// device (see choose_device) and creates it with one compute queue. Throws strix::error
    /// when there is no loader, no usable device or a call fails.
    explicit context(const context_options& opt = {}) : context(linked{strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file}, opt) {}

    /// Adopts a device the application made (see adopted_device): strix runs on its queue and
    /// allocates its buffers from it, and never destroys the instance, the device or the queue.
    /// Checks that the device was made with what strix needs (Vulkan 1.2, bufferDeviceAddress,
    /// shaderInt64, a queue family with compute) and throws strix::error naming what is
    /// missing; features strix could use but the device was made without (8/16-bit storage,
    /// 64-bit atomics, float64, float atomics) are taken as absent, and slower paths run.
    explicit context(const adopted_device& user, const context_options& opt = {})
        : context(linked{strix_missing_volk_implementation__include_strix_vulkan_volk_implementation_hpp_in_one_cpp_file}, user, opt) {}
    context(const context&) = delete;
    context& operator=(const context&) = delete;
    /// Waits for the queue, then destroys what the context made: with a device of its own,
    /// the device and instance too; an adopted one is left as it was given.
    ~context();

    /// The device in use.
    [[nodiscard]] const device_info& device() const { return info_; }
    /// Whether 1- and 2-byte elements move through 8/16-bit storage (else through 32-bit words).
    [[nodiscard]] bool small_storage() const { return small_storage_; }
    /// Whether every move is located in 64-bit arithmetic (context_options::wide_arithmetic).
    [[nodiscard]] bool wide_arithmetic() const { return wide_arithmetic_; }
    /// 16-byte moves per invocation of the copy shader and of 16-byte element moves, and
    /// 16-byte output chunks per invocation of a chunked move (config.hpp).
    [[nodiscard]] std::uint32_t unroll_16() const { return env_.unroll; }
    [[nodiscard]] std::uint32_t unroll_chunks() const { return env_.chunk_unroll; }
    /// 32-bit words of shared memory a gather-elements may tile its input in (tile.comp): 32 KiB
    /// (STRIX_VULKAN_TILE_KIB), within the device's limit; 0 when STRIX_VULKAN_NO_TILE turns
    /// the path off.
    [[nodiscard]] std::uint32_t tile_words() const { return tile_words_; }
    /// How many updates of one target a deterministic scatter reduction folds per dispatch: an
    /// invocation's loop stays short, since some implementations end a loop after 65535
    /// iterations in all (Mesa's llvmpipe, a CPU device, does) and a long one may trip a GPU's
    /// watchdog.
    [[nodiscard]] std::uint64_t fold_chunk() const {
        return env_.fold_chunk ? *env_.fold_chunk : info_.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 4096 : 65536;
    }
    /// Outputs of this many elements and more mark a deterministic reduction's targets with a bit
    /// each (a 16M-element output's 2 MiB stay in an H200's L2), smaller ones with a word each
    /// (many updates of one word's 32 targets would queue on its atomics: 1M onto 64K targets
    /// took 0.366 ms with bits, 0.32 with words). STRIX_VULKAN_SLOT_BITS_FROM sets it (tests).
    [[nodiscard]] std::uint64_t slot_bits_from() const { return env_.slot_bits_from; }
    /// Whether scatter reductions of 8-byte elements may use 64-bit atomics (else they take the
    /// deterministic path).
    [[nodiscard]] bool int64_atomics() const { return int64_atomics_; }
    /// Whether shaders may do float64 arithmetic (float64 add/mul reductions need it; float32
    /// ones use it to stay exact on devices that flush subnormals).
    [[nodiscard]] bool float64() const { return float64_; }
    /// Whether float32 add reductions may use the device's float atomic add where its result
    /// equals the CPU's (shaders/reduce.comp); STRIX_VULKAN_NO_FLOAT_ATOMICS=1 turns it off.
    [[nodiscard]] bool float32_atomic_add() const { return float32_atomic_add_; }
    /// Whether float64 add reductions may likewise use the device's float64 atomic add (which
    /// strix takes only together with the float32 one); STRIX_VULKAN_NO_FLOAT_ATOMICS=1 turns
    /// it off too.
    [[nodiscard]] bool float64_atomic_add() const { return float64_atomic_add_; }
    /// Whether scatters without a reduction may take the claim path (stream::claims_scatter);
    /// STRIX_VULKAN_NO_CLAIMS=1 turns it off.
    [[nodiscard]] bool scatter_claims() const { return scatter_claims_; }
    /// The spirv::feature bits the shader variants may use here: the device's, less what the
    /// options and the STRIX_VULKAN_NO_* switches turn off.
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
    /// memory is that buffer's alone (`bytes` must be its requirement's size). Measured on an
    /// NVIDIA H200: 8192 random 16 KiB rows gathered from a 2 GiB table ran at 0.56 of a copy in
    /// plain allocations and 0.81 in dedicated ones (4 GiB: 0.43 and 0.80), as if the driver
    /// mapped dedicated memory with larger pages. Every buffer here has its own allocation
    /// anyway, so dedicating it costs nothing.
    VkDeviceMemory try_allocate(VkDeviceSize bytes, std::uint32_t type, VkResult* result = nullptr, VkBuffer dedicated = VK_NULL_HANDLE) const;

    /// A buffer of `bytes` (rounded up to 16) in `where`. Throws strix::error naming the size
    /// when the device is out of memory.
    buffer create_buffer(std::uint64_t bytes, memory where) const;

    /// The smallest host page size of the platforms strix runs on: an import rounded out to an
    /// alignment no larger stays within pages the range touches.
    static constexpr std::uint64_t host_page = 4096;

    /// Whether upload and download import host memory by default (STRIX_VULKAN_HOST_IMPORT=1).
    [[nodiscard]] bool host_import() const { return env_.host_import; }
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
    /// The value of the symbol volk_implementation.hpp defines, read (not only named, so that
    /// optimised builds ask the linker for it too) where a context is made, in the program's own
    /// files, inline above: a program without that file fails to link naming it. The
    /// constructors below, defined in that file, check the value.
    struct linked {
        int volk;
    };
    context(linked l, const context_options& opt);
    context(linked l, const adopted_device& user, const context_options& opt);

    /// Which paths the device's features (as enabled) allow, less what the options and the
    /// environment turn off.
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
    detail::environment env_;
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
    std::array<VkShaderModule, spirv::variant_count> modules_{}; // per variant, made on first use
    std::uint32_t features_ = 0;                                  // spirv::feature bits the paths allow
    std::array<std::size_t, spirv::shader_count> variant_{};      // per shader, its variant in spirv::variants
    detail::pipeline_table pipelines_;
    mutable std::mutex mutex_;
    std::vector<detail::owned<frame>> frames_; // streams' frames, free for the next stream
    std::mutex frames_mutex_;
    std::atomic<std::size_t> frames_made_{0};
    bool small_storage_ = false;
    bool wide_arithmetic_ = false;
    bool int64_atomics_ = false;
    bool float64_ = false;
    bool float32_atomic_add_ = false, float64_atomic_add_ = false;
    std::uint64_t host_import_alignment_ = 0; ///< 0: host memory is not imported
    bool scatter_claims_ = true;
    std::uint32_t spin_us_ = 0;
};

} // namespace strix::vulkan
