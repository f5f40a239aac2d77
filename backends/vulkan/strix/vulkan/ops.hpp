#pragma once
/// Convenience calls on host views: upload, run on the device, download. Same signatures as the
/// CPU operators with the context first, into the caller's outputs or (like the CPU's allocating
/// calls) into new C-order host tensors; results are bit-identical to the CPU's. On an index
/// out of range under index_policy::error the output is not written.

#include "strix/vulkan/stream.hpp"

namespace strix::vulkan {

/// Gathers on the device; see strix::gather.
void gather(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_desc& d = {});

/// Joins on the device; see strix::join.
void join(context& ctx, std::span<const any_cview> inputs, const any_view& output, const join_desc& d = {});

/// Pads on the device; see strix::pad.
void pad(context& ctx, const any_cview& input, const any_view& output, const pad_desc& d);

/// Scatters on the device; see strix::scatter (in place when `output` is `input`).
void scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                    const scatter_desc& d = {});

/// Gathers elements on the device; see strix::gather_elements.
void gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output,
                            const gather_elements_desc& d = {});

/// Gathers index tuples on the device; see strix::gather_nd.
void gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_view& output, const gather_nd_desc& d = {});

/// Splits on the device into `outputs`; see strix::split.
void split(context& ctx, const any_cview& input, std::span<const any_view> outputs, const split_desc& d = {});

/// Scatters index tuples on the device; see strix::scatter_nd (in place when `output` is `input`).
void scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                       const scatter_nd_desc& d = {});

// Allocating calls. Each runs the CPU's allocating call's checks before it allocates (so a
// mistake gets the CPU's message), takes the output shape they infer, and runs as the calls
// above do, on new host tensors.

/// Gathers into a new host tensor of the inferred shape; see strix::gather.
host_tensor gather(context& ctx, const any_cview& input, const any_cview& indices, const gather_desc& d = {});

/// Gathers elements into a new host tensor of the indices' shape; see strix::gather_elements.
host_tensor gather_elements(context& ctx, const any_cview& input, const any_cview& indices, const gather_elements_desc& d = {});

/// Gathers index tuples into a new host tensor of the inferred shape; see strix::gather_nd.
host_tensor gather_nd(context& ctx, const any_cview& input, const any_cview& indices, const gather_nd_desc& d = {});

/// Joins into a new host tensor; see strix::join.
host_tensor join(context& ctx, std::span<const any_cview> inputs, const join_desc& d = {});

/// Splits into new host tensors of the given sizes on the axis, in order; see strix::split.
std::vector<host_tensor> split(context& ctx, const any_cview& input, std::span<const std::int64_t> sizes, const split_desc& d = {});

/// Pads into a new host tensor; see strix::pad.
host_tensor pad(context& ctx, const any_cview& input, const pad_desc& d);

/// Scatters into a new host tensor (a copy of `input` with the updates written); see
/// strix::scatter. The output has the input's shape (the rule scatter_output_shape), so the
/// call above checks everything, as the CPU's does.
host_tensor scatter(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_desc& d = {});

/// Scatters index tuples into a new host tensor (a copy of `input` with the updates applied);
/// see strix::scatter_nd. The output has the input's shape (scatter_nd_output_shape).
host_tensor scatter_nd(context& ctx, const any_cview& input, const any_cview& indices, const any_cview& updates,
                              const scatter_nd_desc& d = {});

// Typed calls: the CPU's typed calls with the context first. The same compile-time checks (a
// shape or type mistake between static extents does not compile, with the rule's sentence),
// then the calls above on the views' erased forms.

/// Gathers between typed views on the device; see the typed strix::gather.
template <gather_desc D, typed_view In, typed_view Idx, typed_view Out>
void gather(context& ctx, const In& input, const Idx& indices, const Out& output) {
    strix::detail::gather_typed_rules<D, In, Idx, Out>();
    vulkan::gather(ctx, input.erased(), indices.erased(), output.erased_mut(), D);
}

/// Gathers elements between typed views on the device; see the typed strix::gather_elements.
template <gather_elements_desc D, typed_view In, typed_view Idx, typed_view Out>
void gather_elements(context& ctx, const In& input, const Idx& indices, const Out& output) {
    strix::detail::gather_elements_typed_rules<D, In, Idx, Out>();
    vulkan::gather_elements(ctx, input.erased(), indices.erased(), output.erased_mut(), D);
}

/// Gathers index tuples between typed views on the device; see the typed strix::gather_nd.
template <gather_nd_desc D, typed_view In, typed_view Idx, typed_view Out>
void gather_nd(context& ctx, const In& input, const Idx& indices, const Out& output) {
    strix::detail::gather_nd_typed_rules<D, In, Idx, Out>();
    vulkan::gather_nd(ctx, input.erased(), indices.erased(), output.erased_mut(), D);
}

/// Joins typed views on the device: `join<D>(ctx, output, a, b, ...)`; see the typed strix::join.
template <join_desc D, typed_view Out, typed_view... In>
void join(context& ctx, const Out& output, const In&... inputs) {
    strix::detail::join_typed_rules<D, Out, In...>();
    if constexpr (sizeof...(In) > 0) {
        const any_cview views[] = {inputs.erased()...};
        vulkan::join(ctx, views, output.erased_mut(), D);
    }
}

/// Splits between typed views on the device: `split<D>(ctx, input, out0, out1, ...)`; see the
/// typed strix::split.
template <split_desc D, typed_view In, typed_view... Out>
void split(context& ctx, const In& input, const Out&... outputs) {
    strix::detail::split_typed_rules<D, In, Out...>();
    if constexpr (sizeof...(Out) > 0) {
        const any_view views[] = {outputs.erased_mut()...};
        vulkan::split(ctx, input.erased(), views, D);
    }
}

/// Pads between typed views on the device; see the typed strix::pad.
template <pad_desc D, typed_view In, typed_view Out>
void pad(context& ctx, const In& input, const Out& output) {
    strix::detail::pad_typed_rules<D, In, Out>();
    vulkan::pad(ctx, input.erased(), output.erased_mut(), D);
}

/// Scatters between typed views on the device; see the typed strix::scatter.
template <scatter_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>
void scatter(context& ctx, const In& input, const Idx& indices, const Upd& updates, const Out& output) {
    strix::detail::scatter_typed_rules<D, In, Idx, Upd, Out>();
    vulkan::scatter(ctx, input.erased(), indices.erased(), updates.erased(), output.erased_mut(), D);
}

/// Scatters index tuples between typed views on the device; see the typed strix::scatter_nd.
template <scatter_nd_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>
void scatter_nd(context& ctx, const In& input, const Idx& indices, const Upd& updates, const Out& output) {
    strix::detail::scatter_nd_typed_rules<D, In, Idx, Upd, Out>();
    vulkan::scatter_nd(ctx, input.erased(), indices.erased(), updates.erased(), output.erased_mut(), D);
}

} // namespace strix::vulkan
