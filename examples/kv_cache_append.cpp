// KV-cache append: during autoregressive decoding, each new token's keys are appended to the
// cache along the sequence axis.
//
//   cache [1, 8, 1023, 64] float16 (batch, heads, sequence, head dim)
//   step  [1, 8,    1, 64] float16                  ->  cache [1, 8, 1024, 64], then 1025, ...
//
// This is join (concatenate) on axis 2. The program appends four decoding steps on the CPU, and
// on the Vulkan device as four joins recorded in one stream: the cache never leaves the device
// between steps, each join writes a new device tensor and reads the one the previous join wrote
// (the stream inserts the barrier that this dependency needs). The final caches must agree bit
// for bit.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;
using strix::float16;

constexpr std::int64_t heads = 8, start_len = 1023, head_dim = 64;
constexpr int steps = 4;
constexpr strix::join_desc on_sequence{.axis = 2};

using cache_ext = strix::extents<1, heads, start_len, head_dim>;
using step_ext = strix::extents<1, heads, 1, head_dim>;
// The first append, typed: the output extents are computed and checked at compile time.
using next_ext = decltype(strix::join_extents<on_sequence>(cache_ext{}, step_ext{}));
static_assert(std::is_same_v<next_ext, strix::extents<1, heads, start_len + 1, head_dim>>);

/// A host tensor of `sizes` float16 values drawn from N(0, 1).
strix::host_tensor random_half(std::mt19937& rng, const strix::shape& sizes) {
    std::normal_distribution<float> value(0.0f, 1.0f);
    strix::host_tensor t(strix::dtype::float16, sizes);
    for (std::int64_t i = 0; i < t.count(); ++i) t.as<float16>()[i] = float16(value(rng));
    return t;
}

int main() {
    std::mt19937 rng(2024);
    const strix::host_tensor cache = random_half(rng, cache_ext{}.to_shape());
    std::vector<strix::host_tensor> new_keys;
    for (int k = 0; k < steps; ++k) new_keys.push_back(random_half(rng, step_ext{}.to_shape()));

    // --- CPU ---------------------------------------------------------------------------------
    // Step 1 with typed views (static extents), the later steps with dtype-erased views, whose
    // sequence length is only known at run time.
    strix::host_tensor cpu_cache(strix::dtype::float16, next_ext{}.to_shape());
    strix::join<on_sequence>(strix::tensor_view<float16, next_ext>(cpu_cache.as<float16>()),
                             strix::tensor_view<const float16, cache_ext>(cache.as<float16>()),
                             strix::tensor_view<const float16, step_ext>(new_keys[0].as<float16>()));
    for (int k = 1; k < steps; ++k) {
        const strix::any_cview parts[] = {cpu_cache.view(), new_keys[static_cast<std::size_t>(k)].view()};
        cpu_cache = strix::join(parts, on_sequence); // a new tensor, one position longer
    }
    std::printf("KV-cache append: cache %s float16 + %d steps of %s -> %s\n", strix::to_string(cache.sizes()).c_str(), steps,
                strix::to_string(step_ext{}.to_shape()).c_str(), strix::to_string(cpu_cache.sizes()).c_str());
    const auto last = strix::tensor_view<const float16, strix::dextents<4>>(cpu_cache.as<float16>(), strix::dextents<4>(cpu_cache.sizes()));
    for (int pos = static_cast<int>(start_len) - 1; pos < static_cast<int>(last.extent(2)); ++pos)
        std::printf("  head 0, position %4d: [%+.4f, %+.4f, %+.4f, ...]%s\n", pos, static_cast<float>(last(0, 0, pos, 0)),
                    static_cast<float>(last(0, 0, pos, 1)), static_cast<float>(last(0, 0, pos, 2)), pos < start_len ? "  (cached)" : "  (appended)");

    // --- Vulkan ------------------------------------------------------------------------------
    std::unique_ptr<vk::context> ctx;
    try {
        ctx = std::make_unique<vk::context>();
    } catch (const strix::error& e) {
        std::printf("Vulkan not available (%s); ran on the CPU only\n", e.what());
        return 0;
    }
    std::printf("Vulkan device: %s (%s)\n", ctx->device().name.c_str(), vk::type_name(ctx->device().type));

    // Everything starts on the device. The tensors must outlive the stream's run, so every
    // cache version is kept (a long-running decoder would recycle them instead).
    std::vector<vk::device_tensor> caches;
    caches.push_back(vk::upload(*ctx, cache.view()));
    std::vector<vk::device_tensor> dev_keys;
    for (const auto& k : new_keys) dev_keys.push_back(vk::upload(*ctx, k.view()));

    vk::stream s(*ctx);
    for (int k = 0; k < steps; ++k) {
        strix::shape longer = caches.back().sizes();
        longer[2] += 1;
        vk::device_tensor next(*ctx, strix::dtype::float16, longer);
        const vk::device_view parts[] = {caches.back().view(), dev_keys[static_cast<std::size_t>(k)].view()};
        s.join(parts, next.view(), on_sequence);
        caches.push_back(std::move(next));
    }
    s.run(); // one submission for all the steps
    std::printf("  %d joins recorded in one stream, submitted once\n", steps);

    strix::host_tensor gpu_cache(strix::dtype::float16, caches.back().sizes());
    vk::download(*ctx, caches.back(), gpu_cache.view());

    // --- Compare bit for bit -----------------------------------------------------------------
    if (gpu_cache.sizes() != cpu_cache.sizes() || std::memcmp(gpu_cache.data(), cpu_cache.data(), cpu_cache.bytes()) != 0) {
        std::printf("MISMATCH: the CPU and Vulkan caches differ\n");
        return 1;
    }
    std::printf("CPU and Vulkan agree (%lld float16 values, bit for bit)\n", static_cast<long long>(gpu_cache.count()));
    return 0;
}
