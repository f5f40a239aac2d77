#pragma once
/// Typed chains: a chain of moves over typed views (strix/ops/chain.hpp), whose steps' rules run
/// at compile time on static extents.
///
///     auto e = strix::lazy(x).pad<reflect3>().gather<along1>(channels);   // x: a tensor_view
///     strix::evaluate(e, out);                                           // checked at compile time

#include <type_traits>
#include <utility>

#include "strix/ops/chain.hpp"

namespace strix {

/// A chain whose element type `T` and extents `E` are known at compile time (of typed views):
/// each step's rules run at compile time on static extents, with the eager operator's message
/// (`typed_chain<..>.pad<D>()` of a pad that breaks a rule does not compile), and at run time on
/// dynamic ones. `chain()` is the chain to evaluate or join.
template <class T, extents_type E>
class typed_chain {
public:
    typed_chain(strix::chain c, E ext) : c_(std::move(c)), ext_(ext) {}

    template <gather_desc D, typed_view Idx>
    [[nodiscard]] auto gather(const Idx& indices) const {
        static_enforce<gather_type_rule(dtype_of<std::remove_const_t<T>>, dtype_of<std::remove_const_t<typename Idx::element_type>>,
                                        dtype_of<std::remove_const_t<T>>)>();
        if constexpr (!std::is_void_v<decltype(gather_extents<D>(ext_, indices.extents()))>) {
            const auto out = gather_extents<D>(ext_, indices.extents());
            return typed_chain<T, std::remove_const_t<decltype(out)>>(c_.gather(indices.erased(), D), out);
        }
    }
    template <pad_desc D>
    [[nodiscard]] auto pad() const {
        if constexpr (!std::is_void_v<decltype(pad_extents<D>(ext_))>) { // (void: a rule broke, and said so)
            const auto out = pad_extents<D>(ext_);
            return typed_chain<T, std::remove_const_t<decltype(out)>>(c_.pad(D), out);
        }
    }
    template <slice_desc D>
    [[nodiscard]] auto slice() const {
        if constexpr (!std::is_void_v<decltype(slice_extents<D>(ext_))>) { // (void: a rule broke, and said so)
            const auto out = slice_extents<D>(ext_);
            return typed_chain<T, std::remove_const_t<decltype(out)>>(c_.slice(D), out);
        }
    }
    template <tile_desc D>
    [[nodiscard]] auto tile() const {
        if constexpr (!std::is_void_v<decltype(tile_extents<D>(ext_))>) { // (void: a rule broke, and said so)
            const auto out = tile_extents<D>(ext_);
            return typed_chain<T, std::remove_const_t<decltype(out)>>(c_.tile(D), out);
        }
    }

    [[nodiscard]] const strix::chain& chain() const { return c_; }
    [[nodiscard]] const E& extents() const { return ext_; }

private:
    strix::chain c_;
    E ext_;
};

/// The typed chain of no steps over typed view `x`.
template <typed_view V>
typed_chain<typename V::element_type, typename V::extents_type> lazy(const V& x) {
    return {strix::chain(x.erased()), x.extents()};
}

/// Writes typed chain `c` into typed view `output`: its element type and, where both are static,
/// its extents are checked at compile time (else at run time, as evaluate does).
template <class T, extents_type E, typed_view Out>
void evaluate(const typed_chain<T, E>& c, const Out& output, const cpu::options& opt = {}) {
    // (the output receives a copy of the chain's result: copy's two rules)
    static_enforce<verdict{std::is_same_v<std::remove_const_t<T>, typename Out::element_type> ? rule::ok : rule::copy_dtype, 1}>();
    if constexpr (E::is_static && Out::extents_type::is_static)
        static_output_check<inferred{verdict{}, E{}.to_shape()}, rule::copy_shape, 1, typename Out::extents_type>();
    evaluate(c.chain(), output.erased_mut(), opt);
}

} // namespace strix
