// Embedding lookup: gather the rows of a token-embedding table for a batch of token ids.
//
//   table [32768, 256] float32, ids [4096] int64  ->  embeddings [4096, 256] float32
//
// This is gather in its natural form (numpy.take, ONNX Gather) on axis 0. The program runs it on
// the CPU and on the Vulkan device, where the table stays resident, and checks that the two
// results are identical bit for bit.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;

// Sizes known at compile time: the typed API checks the shapes while compiling.
constexpr std::int64_t vocab = 32768, width = 256, tokens = 4096;
using table_ext = strix::extents<vocab, width>;
using ids_ext = strix::extents<tokens>;

// One row of the table per id: gather along axis 0, out-of-range ids throw (the default policy).
constexpr strix::gather_desc by_row{.axis = 0};

// The output extents follow from the rule, computed at compile time: [4096, 256].
using out_ext = decltype(strix::gather_extents<by_row>(table_ext{}, ids_ext{}));
static_assert(std::is_same_v<out_ext, strix::extents<tokens, width>>);

int main() {
    // A table of small random weights and a batch of token ids (fixed seeds: reproducible runs).
    std::mt19937_64 rng(42);
    std::normal_distribution<float> weight(0.0f, 0.02f);
    std::uniform_int_distribution<std::int64_t> token(0, vocab - 1);
    std::vector<float> table_data(static_cast<std::size_t>(vocab * width));
    for (auto& w : table_data) w = weight(rng);
    std::vector<std::int64_t> id_data(static_cast<std::size_t>(tokens));
    for (auto& t : id_data) t = token(rng);

    // Typed views over the host memory.
    const strix::tensor_view<const float, table_ext> table(table_data.data());
    const strix::tensor_view<const std::int64_t, ids_ext> ids(id_data.data());
    std::vector<float> cpu_data(static_cast<std::size_t>(tokens * width));
    const strix::tensor_view<float, out_ext> cpu_out(cpu_data.data());

    // --- CPU ---------------------------------------------------------------------------------
    strix::gather<by_row>(table, ids, cpu_out);
    std::printf("embedding lookup: table %s float32, ids %s int64 -> %s float32\n", strix::to_string(table.sizes()).c_str(),
                strix::to_string(ids.sizes()).c_str(), strix::to_string(cpu_out.sizes()).c_str());
    for (int i = 0; i < 3; ++i) // each output row is the table row its id names
        std::printf("  ids[%d] = %5lld -> embeddings[%d] = [%+.5f, %+.5f, %+.5f, ...]\n", i, static_cast<long long>(ids(i)), i,
                    cpu_out(i, 0), cpu_out(i, 1), cpu_out(i, 2));

    // --- Vulkan ------------------------------------------------------------------------------
    // The context picks the best device (STRIX_VULKAN_DEVICE overrides); without a loader or a
    // usable device it throws strix::error, and the example stops after the CPU part.
    std::unique_ptr<vk::context> ctx;
    try {
        ctx = std::make_unique<vk::context>();
    } catch (const strix::error& e) {
        std::printf("Vulkan not available (%s); ran on the CPU only\n", e.what());
        return 0;
    }
    std::printf("Vulkan device: %s (%s)\n", ctx->device().name.c_str(), vk::type_name(ctx->device().type));

    // Upload the table once: in a model it lives on the device and serves every batch.
    const vk::device_tensor dev_table = vk::upload(*ctx, table);
    // Per batch: upload the ids, gather on the device, and read the embeddings back.
    const vk::device_tensor dev_ids = vk::upload(*ctx, ids);
    const vk::device_tensor dev_out(*ctx, strix::dtype::float32, out_ext{}.to_shape());
    vk::stream s(*ctx);
    s.gather(dev_table.view(), dev_ids.view(), dev_out.view(), by_row);
    s.run(); // submits and waits; an out-of-range id would throw here, as on the CPU

    std::vector<float> gpu_data(cpu_data.size());
    vk::download(*ctx, dev_out, strix::tensor_view<float, out_ext>(gpu_data.data()));

    // --- Compare bit for bit -----------------------------------------------------------------
    if (std::memcmp(cpu_data.data(), gpu_data.data(), cpu_data.size() * sizeof(float)) != 0) {
        std::printf("MISMATCH: the CPU and Vulkan embeddings differ\n");
        return 1;
    }
    std::printf("CPU and Vulkan agree (%zu floats, bit for bit)\n", gpu_data.size());
    return 0;
}
