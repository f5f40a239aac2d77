// Sparse row update: overwrite a few thousand rows of a parameter table in place.
//
//   params [4096, 64] float32, row ids [3000] int64, new rows [3000, 64] float32
//
// This is scatter (ONNX ScatterElements) on axis 0: params[ids[i, j], j] = rows[i, j]. The
// indices have the updates' shape [3000, 64]; here they are the 3000 row ids broadcast along
// the columns (a view with column stride 0), so no [3000, 64] index array is ever built.
// Some ids repeat: among updates of the same element the last one (in C order) wins, on the
// CPU and on the device alike. The table stays on the device and is updated in place there.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;

constexpr std::int64_t rows = 4096, cols = 64, updates = 3000;
using params_ext = strix::extents<rows, cols>;
using update_ext = strix::extents<updates, cols>;
constexpr strix::scatter_desc by_row{.axis = 0};

// Checked at compile time: the indices and updates fit the table, and the output is the table's.
static_assert(std::is_same_v<decltype(strix::scatter_extents<by_row>(params_ext{}, update_ext{}, update_ext{})), params_ext>);

int main() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::uniform_int_distribution<std::int64_t> row(0, rows - 1);
    std::vector<float> original(static_cast<std::size_t>(rows * cols)), new_rows(static_cast<std::size_t>(updates * cols));
    for (auto& v : original) v = value(rng);
    for (auto& v : new_rows) v = value(rng);
    std::vector<std::int64_t> ids(static_cast<std::size_t>(updates));
    for (auto& id : ids) id = row(rng); // 3000 draws from 4096 rows: many repeat

    // Typed views; the indices are [3000, 64] with strides {1, 0}: id i for every column.
    const strix::tensor_view<const std::int64_t, update_ext> index_view(ids.data(), update_ext{}, {1, 0});
    const strix::tensor_view<const float, update_ext> update_view(new_rows.data());

    // --- CPU ---------------------------------------------------------------------------------
    std::vector<float> cpu_params = original;
    const strix::tensor_view<float, params_ext> params(cpu_params.data());
    strix::scatter<by_row>(params, index_view, update_view, params); // output == input: in place

    // Which update each row ends up holding: the last one that names it.
    std::vector<std::int64_t> winner(static_cast<std::size_t>(rows), -1), writes(static_cast<std::size_t>(rows), 0);
    for (std::int64_t i = 0; i < updates; ++i) {
        winner[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)])] = i;
        ++writes[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)])];
    }
    std::int64_t repeated = 0, example = -1;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto w = winner[static_cast<std::size_t>(r)];
        const float* expected = w < 0 ? &original[static_cast<std::size_t>(r * cols)] : &new_rows[static_cast<std::size_t>(w * cols)];
        if (std::memcmp(&params(r, 0), expected, cols * sizeof(float)) != 0) {
            std::printf("MISMATCH: row %lld does not hold its last update\n", static_cast<long long>(r));
            return 1;
        }
        if (writes[static_cast<std::size_t>(r)] > 1 && ++repeated == 1) example = r;
    }
    std::printf("sparse update: params %s float32, %lld row updates (%lld rows named more than once)\n",
                strix::to_string(params.sizes()).c_str(), static_cast<long long>(updates), static_cast<long long>(repeated));
    if (example >= 0) {
        std::printf("  row %lld is named by updates", static_cast<long long>(example));
        for (std::int64_t i = 0; i < updates; ++i)
            if (ids[static_cast<std::size_t>(i)] == example) std::printf(" #%lld", static_cast<long long>(i));
        const auto w = winner[static_cast<std::size_t>(example)];
        std::printf("; it holds #%lld: [%+.4f, %+.4f, ...] (last update wins)\n", static_cast<long long>(w), params(example, 0),
                    params(example, 1));
    }

    // --- Vulkan ------------------------------------------------------------------------------
    std::unique_ptr<vk::context> ctx;
    try {
        ctx = std::make_unique<vk::context>();
    } catch (const strix::error& e) {
        std::printf("Vulkan not available (%s); ran on the CPU only\n", e.what());
        return 0;
    }
    std::printf("Vulkan device: %s (%s)\n", ctx->device().name.c_str(), vk::type_name(ctx->device().type));

    // The table lives on the device. Upload the ids as they are ([3000]) and broadcast them on
    // the device with a view of shape [3000, 64] and strides {1, 0}.
    const vk::device_tensor dev_params = vk::upload(*ctx, strix::tensor_view<const float, params_ext>(original.data()));
    const vk::device_tensor dev_ids = vk::upload(*ctx, strix::tensor_view<const std::int64_t, strix::extents<updates>>(ids.data()));
    const vk::device_tensor dev_rows = vk::upload(*ctx, update_view);
    vk::device_view id_view = dev_ids.view();
    id_view.sizes = strix::shape{updates, cols};
    id_view.strides = {1, 0};

    vk::stream s(*ctx);
    s.scatter(dev_params.view(), id_view, dev_rows.view(), dev_params.view(), by_row); // in place on the device
    s.run();

    std::vector<float> gpu_params(original.size());
    vk::download(*ctx, dev_params, strix::tensor_view<float, params_ext>(gpu_params.data()));

    // --- Compare bit for bit -----------------------------------------------------------------
    if (std::memcmp(cpu_params.data(), gpu_params.data(), cpu_params.size() * sizeof(float)) != 0) {
        std::printf("MISMATCH: the CPU and Vulkan tables differ\n");
        return 1;
    }
    std::printf("CPU and Vulkan agree (%zu floats, bit for bit)\n", gpu_params.size());
    return 0;
}
