#pragma once
/// Convenience calls on host views: upload, run on the device, download. Same signatures as the
/// CPU operators with the context first, into the caller's outputs or (like the CPU's allocating
/// calls) into new C-order host tensors; results are bit-identical to the CPU's. On an index
/// out of range under index_policy::error the output is not written.

#include "strix/vulkan/stream.hpp"

// The convenience calls of an operator `op` of each form (see STRIX_OPERATORS): declarations
// (and typed calls) here, definitions in impl/ops.ipp.
#define STRIX_VULKAN_CALLS_unary(op)                                                                           \
    void op(context& ctx, const any_cview& input, const any_view& output, const op##_desc& d = {});             \
    host_tensor op(context& ctx, const any_cview& input, const op##_desc& d = {});                              \
    template <op##_desc D, typed_view In, typed_view Out>                                                       \
    void op(context& ctx, const In& input, const Out& output) {                                                 \
        op_traits<op##_desc>::template typed_rules<D, In, Out>();                                               \
        vulkan::op(ctx, input.erased(), output.erased_mut(), D);                                                \
    }
#define STRIX_VULKAN_CALLS_indexed(op)                                                                         \
    void op(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const op##_desc& d = {}); \
    host_tensor op(context& ctx, const any_cview& input, const any_cview& indices, const op##_desc& d = {});     \
    template <op##_desc D, typed_view In, typed_view Idx, typed_view Out>                                       \
    void op(context& ctx, const In& input, const Idx& indices, const Out& output) {                             \
        op_traits<op##_desc>::template typed_rules<D, In, Idx, Out>();                                          \
        vulkan::op(ctx, input.erased(), indices.erased(), output.erased_mut(), D);                              \
    }
#define STRIX_VULKAN_CALLS_update(op)                                                                          \
    void op(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output, \
            const op##_desc& d = {});                                                                           \
    host_tensor op(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates,    \
                   const op##_desc& d = {});                                                                    \
    template <op##_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>                       \
    void op(context& ctx, const In& input, const Idx& indices, const Upd& updates, const Out& output) {         \
        op_traits<op##_desc>::template typed_rules<D, In, Idx, Upd, Out>();                                     \
        vulkan::op(ctx, input.erased(), indices.erased(), updates.erased(), output.erased_mut(), D);            \
    }
#define STRIX_VULKAN_CALLS_joining(op)                                                                         \
    void op(context& ctx, std::span<const any_cview> inputs, const any_view& output, const op##_desc& d = {});   \
    host_tensor op(context& ctx, std::span<const any_cview> inputs, const op##_desc& d = {});                   \
    template <op##_desc D, typed_view Out, typed_view... In>                                                    \
    void op(context& ctx, const Out& output, const In&... inputs) {                                             \
        op_traits<op##_desc>::template typed_rules<D, Out, In...>();                                            \
        if constexpr (sizeof...(In) > 0) {                                                                      \
            const any_cview views[] = {inputs.erased()...};                                                     \
            vulkan::op(ctx, views, output.erased_mut(), D);                                                     \
        }                                                                                                       \
    }
#define STRIX_VULKAN_CALLS_splitting(op)                                                                       \
    void op(context& ctx, const any_cview& input, std::span<const any_view> outputs, const op##_desc& d = {});   \
    std::vector<host_tensor> op(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const op##_desc& d = {}); \
    template <op##_desc D, typed_view In, typed_view... Out>                                                    \
    void op(context& ctx, const In& input, const Out&... outputs) {                                             \
        op_traits<op##_desc>::template typed_rules<D, In, Out...>();                                            \
        if constexpr (sizeof...(Out) > 0) {                                                                     \
            const any_view views[] = {outputs.erased_mut()...};                                                 \
            vulkan::op(ctx, input.erased(), views, D);                                                          \
        }                                                                                                       \
    }

// Their definitions (impl/ops.ipp).
#define STRIX_VULKAN_DEFINE_CALLS_unary(op)                                                                    \
    void op(context& ctx, const any_cview& input, const any_view& output, const op##_desc& d) {                  \
        detail::on_device(ctx, {&input, 1}, {&output, 1}, d);                                                   \
    }                                                                                                           \
    host_tensor op(context& ctx, const any_cview& input, const op##_desc& d) {                                  \
        return std::move(detail::on_device_new(ctx, {&input, 1}, d)[0]);                                       \
    }
#define STRIX_VULKAN_DEFINE_CALLS_indexed(op)                                                                  \
    void op(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const op##_desc& d) { \
        const any_cview in[] = {input, indices};                                                                \
        detail::on_device(ctx, in, {&output, 1}, d);                                                            \
    }                                                                                                           \
    host_tensor op(context& ctx, const any_cview& input, const any_cview& indices, const op##_desc& d) {        \
        const any_cview in[] = {input, indices};                                                                \
        return std::move(detail::on_device_new(ctx, in, d)[0]);                                                 \
    }
#define STRIX_VULKAN_DEFINE_CALLS_update(op)                                                                   \
    void op(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output, \
            const op##_desc& d) {                                                                               \
        const any_cview in[] = {input, indices, updates};                                                       \
        detail::on_device(ctx, in, {&output, 1}, d);                                                            \
    }                                                                                                           \
    host_tensor op(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const op##_desc& d) { \
        const any_cview in[] = {input, indices, updates};                                                       \
        return std::move(detail::on_device_new(ctx, in, d)[0]);                                                 \
    }
#define STRIX_VULKAN_DEFINE_CALLS_joining(op)                                                                  \
    void op(context& ctx, std::span<const any_cview> inputs, const any_view& output, const op##_desc& d) {      \
        detail::on_device(ctx, inputs, {&output, 1}, d);                                                        \
    }                                                                                                           \
    host_tensor op(context& ctx, std::span<const any_cview> inputs, const op##_desc& d) {                       \
        return std::move(detail::on_device_new(ctx, inputs, d)[0]);                                             \
    }
#define STRIX_VULKAN_DEFINE_CALLS_splitting(op)                                                                \
    void op(context& ctx, const any_cview& input, std::span<const any_view> outputs, const op##_desc& d) {      \
        detail::on_device(ctx, {&input, 1}, outputs, d);                                                        \
    }                                                                                                           \
    std::vector<host_tensor> op(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const op##_desc& d) { \
        return detail::on_device_new(ctx, {&input, 1}, d, sizes);                                               \
    }

namespace strix::vulkan {

/// Every operator of the list (strix/ops/list.hpp), on the device: `gather(ctx, input, indices,
/// output, d)`, its allocating call `gather(ctx, input, indices, d)` and its typed call
/// `gather<D>(ctx, typed views...)` — the CPU's calls with the context first, the same checks
/// (at compile time for the typed calls), results bit-identical to the CPU's. The scatters update
/// the input's device copy in place and download it into the output. On an index out of range
/// under index_policy::error the output is not written.
#define STRIX_VULKAN_CALLS(op, form) STRIX_VULKAN_CALLS_##form(op)
STRIX_OPERATORS(STRIX_VULKAN_CALLS)
#undef STRIX_VULKAN_CALLS

} // namespace strix::vulkan
