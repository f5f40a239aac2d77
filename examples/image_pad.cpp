// Image padding: grow a batch of images by 3 pixels on every side before a 7x7 convolution.
//
//   images [2, 3, 128, 128] float32 (N, C, H, W)  ->  padded [2, 3, 134, 134] float32
//
// Two border modes, as numpy.pad names them:
//   reflect:   mirror without repeating the edge   [a b c d ...] -> d c b [a b c d ...]
//   symmetric: mirror repeating the edge           [a b c d ...] -> c b a [a b c d ...]
// The program pads on the CPU and on the Vulkan device (both pads in one submission) and checks
// that the results are identical bit for bit.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "strix/vulkan.hpp"

namespace vk = strix::vulkan;

using image_ext = strix::extents<2, 3, 128, 128>;

// Pad 3 before and after the two spatial axes (H and W), nothing on the batch and channel axes.
constexpr strix::pad_desc reflect3{.mode = strix::pad_mode::reflect, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};
constexpr strix::pad_desc symmetric3{.mode = strix::pad_mode::symmetric, .start = {0, 0, 3, 3}, .end = {0, 0, 3, 3}};

// The padded extents, computed (and checked) at compile time.
using padded_ext = decltype(strix::pad_extents<reflect3>(image_ext{}));
static_assert(std::is_same_v<padded_ext, strix::extents<2, 3, 134, 134>>);

int main() {
    // Smooth images with a little noise, values in about [0, 1].
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 0.02f);
    std::vector<float> pixels(static_cast<std::size_t>(image_ext{}.to_shape().count()));
    const strix::tensor_view<float, image_ext> images(pixels.data());
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 3; ++c)
            for (int y = 0; y < 128; ++y)
                for (int x = 0; x < 128; ++x)
                    images(n, c, y, x) = 0.5f + 0.4f * std::sin(0.05f * static_cast<float>(x + 2 * y + 40 * c + 90 * n)) + noise(rng);

    // --- CPU ---------------------------------------------------------------------------------
    const std::size_t padded_count = static_cast<std::size_t>(padded_ext{}.to_shape().count());
    std::vector<float> cpu_reflect(padded_count), cpu_symmetric(padded_count);
    const strix::tensor_view<float, padded_ext> reflected(cpu_reflect.data());
    const strix::tensor_view<float, padded_ext> mirrored(cpu_symmetric.data());
    strix::pad<reflect3>(images, reflected);   // typed: shapes checked at compile time
    strix::pad(images, mirrored, symmetric3); // the same call on dtype-erased views, checked at run time

    std::printf("image pad: images %s float32 -> %s float32 (pad 3 on H and W)\n", strix::to_string(images.sizes()).c_str(),
                strix::to_string(reflected.sizes()).c_str());
    // the first row of image 0, channel 0, and the same row in both padded images
    std::printf("  input row:        %18s", "");
    for (int x = 0; x < 5; ++x) std::printf(" %.3f", images(0, 0, 0, x));
    std::printf(" ...\n  padded, reflect:   ");
    for (int x = 0; x < 8; ++x) std::printf(" %.3f", reflected(0, 0, 3, x));
    std::printf(" ...\n  padded, symmetric: ");
    for (int x = 0; x < 8; ++x) std::printf(" %.3f", mirrored(0, 0, 3, x));
    std::printf(" ...\n");

    // --- Vulkan ------------------------------------------------------------------------------
    std::unique_ptr<vk::context> ctx;
    try {
        ctx = std::make_unique<vk::context>();
    } catch (const strix::error& e) {
        std::printf("Vulkan not available (%s); ran on the CPU only\n", e.what());
        return 0;
    }
    std::printf("Vulkan device: %s (%s)\n", ctx->device().name.c_str(), vk::type_name(ctx->device().type));

    // Upload the batch once and record both pads in one stream: they read the same input and
    // write different outputs, so they need no barrier between them.
    const vk::device_tensor dev_images = vk::upload(*ctx, images);
    const vk::device_tensor dev_reflect(*ctx, strix::dtype::float32, padded_ext{}.to_shape());
    const vk::device_tensor dev_symmetric(*ctx, strix::dtype::float32, padded_ext{}.to_shape());
    vk::stream s(*ctx);
    s.pad(dev_images.view(), dev_reflect.view(), reflect3);
    s.pad(dev_images.view(), dev_symmetric.view(), symmetric3);
    s.run();

    std::vector<float> gpu_reflect(padded_count), gpu_symmetric(padded_count);
    vk::download(*ctx, dev_reflect, strix::tensor_view<float, padded_ext>(gpu_reflect.data()));
    vk::download(*ctx, dev_symmetric, strix::tensor_view<float, padded_ext>(gpu_symmetric.data()));

    // --- Compare bit for bit -----------------------------------------------------------------
    const std::size_t bytes = padded_count * sizeof(float);
    if (std::memcmp(cpu_reflect.data(), gpu_reflect.data(), bytes) != 0 ||
        std::memcmp(cpu_symmetric.data(), gpu_symmetric.data(), bytes) != 0) {
        std::printf("MISMATCH: the CPU and Vulkan padded images differ\n");
        return 1;
    }
    std::printf("CPU and Vulkan agree (reflect and symmetric, %zu floats each, bit for bit)\n", padded_count);
    return 0;
}
