#pragma once
/// scatter (elements): `output = input`, then `output[..., indices[j...], ...] = updates[j...]`
/// with the index replacing the coordinate on the axis. In place when the output is the input.

#include <cmath>
#include <type_traits>

#include "strix/ops/common.hpp"

namespace strix {

/// How an update combines with the element it targets (ONNX ScatterElements/ScatterND
/// `reduction`). Updates apply one by one in C order of the updates: with `none` the last one
/// to reach an element wins; the others fold every update into it.
enum class scatter_reduction : std::uint8_t {
    none, ///< assign
    add,  ///< add (integers wrap around; float16 adds in float32 and rounds once; a NaN sum is
          ///< the default quiet NaN, whatever the operands' payloads)
    mul,  ///< multiply (likewise)
    min,  ///< the smaller: a NaN stays once there; -0 is smaller than +0
    max,  ///< the larger: a NaN stays once there; +0 is larger than -0
};

/// Describes a scatter. Structural: usable as a template argument.
struct scatter_desc {
    std::int64_t axis = 0;                            ///< may be negative
    index_policy policy = index_policy::error;        ///< what an out-of-range index does
    scatter_reduction reduction = scatter_reduction::none; ///< how duplicate targets combine
    /// Devices: combine in the CPU's order (C order of the updates), so results are bit-identical
    /// run to run and to the CPU; otherwise floating-point add and mul may combine in any order.
    /// The CPU always runs in that order.
    bool deterministic = false;
};

/// The rules of scatter: input, indices and updates share a rank; updates have the indices'
/// shape; indices are not larger than the input off the axis (ONNX ScatterElements; DirectML
/// asks for equality there). The output has the input's shape.
constexpr inferred scatter_rule(const shape& input, const shape& indices, const shape& updates, const scatter_desc& d) {
    inferred res;
    const int r = input.rank;
    if (r < 1) {
        res.v = {rule::scatter_input_rank, 0};
        return res;
    }
    const int axis = detail::normalize_axis(d.axis, r);
    if (axis < 0) {
        res.v = {rule::scatter_axis_range, 0, -1, d.axis, value_kind::given_axis};
        return res;
    }
    if (indices.rank != r) {
        res.v = {rule::scatter_rank, 1, -1, indices.rank, value_kind::rank};
        return res;
    }
    if (updates.rank != r) {
        res.v = {rule::scatter_rank, 2, -1, updates.rank, value_kind::rank};
        return res;
    }
    for (int i = 0; i < r; ++i) {
        if (updates[i] != indices[i]) {
            res.v = {rule::scatter_updates_shape, 2, i, updates[i], value_kind::size};
            return res;
        }
        if (i != axis && indices[i] > input[i]) {
            res.v = {rule::scatter_indices_larger, 1, i, indices[i], value_kind::size};
            return res;
        }
    }
    res.out = input;
    return res;
}

/// The element-type rules of scatter.
constexpr verdict scatter_type_rule(dtype input, dtype indices, dtype updates, dtype output) {
    if (!is_index_type(indices)) return {rule::scatter_index_type, 1};
    if (updates != input) return {rule::scatter_dtype, 2};
    if (output != input) return {rule::scatter_dtype, 3};
    return {};
}

/// Output extents of a scatter: the input's, after checking the rules (statically when all
/// three are static).
template <scatter_desc D, extents_type In, extents_type Idx, extents_type Upd>
constexpr auto scatter_extents(const In& input, const Idx& indices, const Upd& updates) {
    if constexpr (In::is_static && Idx::is_static && Upd::is_static) {
        constexpr inferred r = scatter_rule(In{}.to_shape(), Idx{}.to_shape(), Upd{}.to_shape(), D);
        static_enforce<r.v>();
        return In{};
    } else {
        const inferred r = scatter_rule(input.to_shape(), indices.to_shape(), updates.to_shape(), D);
        const operand_info ops[] = {{"input", input.to_shape()}, {"indices", indices.to_shape()}, {"updates", updates.to_shape()}};
        enforce(r.v, ops);
        return input;
    }
}

namespace detail {

/// Whether min/max take the update `u` over the accumulated `a` (floating point): a NaN stays
/// once there, a NaN update is taken, and -0 counts as smaller than +0 — so the result does not
/// depend on the order of the updates (NaN payloads aside).
template <class F>
bool takes_update(F a, F u, scatter_reduction r) {
    if (std::isnan(a)) return false;
    if (std::isnan(u)) return true;
    if (r == scatter_reduction::min) return u < a || (u == a && std::signbit(u));
    return u > a || (u == a && !std::signbit(u));
}

/// Combines an update `u` into the element `acc` under reduction `r` (the CPU's definition, which
/// the devices follow bit for bit).
template <class T>
T combine(T acc, T u, scatter_reduction r) {
    if (r == scatter_reduction::none) return u;
    if constexpr (std::is_same_v<T, float16>) {
        const float a = static_cast<float>(acc), b = static_cast<float>(u);
        if (r == scatter_reduction::min || r == scatter_reduction::max) return takes_update(a, b, r) ? u : acc;
        // float32 has 24 >= 2 x 11 + 2 significand bits, so rounding to float32 and then to float16
        // equals one correct rounding of the exact sum or product
        const float x = r == scatter_reduction::add ? a + b : a * b;
        return std::isnan(x) ? float16::from_bits(0x7e00) : float16(x);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (r == scatter_reduction::min || r == scatter_reduction::max) return takes_update(acc, u, r) ? u : acc;
        // a NaN result is the default quiet NaN: which operand's payload an addition passes on
        // depends on the compiler's operand order and on the device
        const T x = r == scatter_reduction::add ? acc + u : acc * u;
        return std::isnan(x) ? std::numeric_limits<T>::quiet_NaN() : x;
    } else {
        using U = std::make_unsigned_t<T>; // wrap around without undefined behaviour
        switch (r) {
        case scatter_reduction::add: return static_cast<T>(static_cast<U>(static_cast<U>(acc) + static_cast<U>(u)));
        case scatter_reduction::mul: return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(acc)) * static_cast<U>(u)));
        case scatter_reduction::min: return u < acc ? u : acc;
        default: return u > acc ? u : acc;
        }
    }
}

/// Where the updates go: for each dimension of the updates, the output's byte stride (0 where
/// the index decides) and the stride of the key into `offsets` (the resolved indices, in bytes
/// of the output, one per key).
struct update_walk {
    std::array<std::int64_t, max_rank> dst{}, key{};
};

/// One application of updates: the updates' walk, and where each one's target offset comes from
/// — a table of resolved offsets (scatter-nd), or the index itself, read and resolved in place
/// (scatter: a table would cost a pass writing as many bytes as the indices and an allocation).
struct update_source {
    const std::int64_t* table = nullptr; ///< offsets[key] (key strides in elements of the table)
    const std::byte* index = nullptr;    ///< else: the index at index + key (key strides in bytes)
    dtype index_type = dtype::int64;
    std::int64_t axis_size = 0, axis_stride = 0; ///< the index's axis and its output byte stride
    bool clamp = false;
};

/// Applies the updates whose target lies at output byte offsets [lo, hi), in C order of the
/// updates: update u goes to the output element at (sum of coordinate times dst) + its target
/// offset. Every worker walks all updates and applies only its own targets, so each element
/// still sees its updates in C order, whatever the number of workers: the results are the
/// single-threaded ones bit for bit, duplicates and reductions included.
template <class T, class I, scatter_reduction red>
void apply_updates_range(const any_cview& updates, const any_view& output, const update_walk& w, const update_source& src,
                         std::int64_t lo, std::int64_t hi) {
    const int r = updates.rank();
    const std::int64_t n = updates.count();
    if (n == 0) return;
    std::array<std::int64_t, max_rank> c{};
    const auto* ub = static_cast<const std::byte*>(updates.data());
    auto* ob = static_cast<std::byte*>(output.data());
    constexpr auto es = static_cast<std::int64_t>(sizeof(T));
    std::int64_t uo = 0, oo = 0, key = 0;
    const std::int64_t inner = r ? updates.size(r - 1) : 1;
    const std::int64_t us = r ? updates.stride(r - 1) * es : 0;
    const std::int64_t os = r ? w.dst[static_cast<std::size_t>(r - 1)] : 0, ks = r ? w.key[static_cast<std::size_t>(r - 1)] : 0;
    const std::int64_t* table = src.table;
    const std::int64_t an = src.axis_size, ast = src.axis_stride;
    const bool clamp = src.clamp;
    auto target = [&](std::int64_t o, std::int64_t kk) {
        return o + (table ? table[kk] : cpu::detail::read_index<I>(src.index + kk, an, clamp) * ast);
    };
    // Targets are random addresses: each block's targets are computed and prefetched one block
    // before they are written, so that many cache misses are in flight instead of one or two.
    constexpr std::int64_t block = 32;
    std::int64_t tg[2][block];
    const std::byte* us_at[2] = {nullptr, nullptr};
    std::int64_t len[2] = {0, 0};
    auto apply_block = [&](int slot) {
        const std::byte* u = us_at[slot];
        const std::int64_t* t = tg[slot];
        if constexpr (red == scatter_reduction::none) {
            for (std::int64_t j = 0; j < len[slot]; ++j) // indexed: no step past the last update
                if (t[j] >= lo && t[j] < hi) std::memcpy(ob + t[j], u + j * us, sizeof(T));
        } else {
            for (std::int64_t j = 0; j < len[slot]; ++j) {
                if (t[j] < lo || t[j] >= hi) continue;
                T v, a;
                std::memcpy(&v, u + j * us, sizeof(T));
                std::memcpy(&a, ob + t[j], sizeof(T));
                a = combine(a, v, red);
                std::memcpy(ob + t[j], &a, sizeof(T));
            }
        }
        len[slot] = 0;
    };
    int cur = 0;
    for (std::int64_t k = 0; k < n;) {
        const std::byte* u = ub + uo;
        std::int64_t o = oo, kk = key;
        for (std::int64_t i0 = 0; i0 < inner; i0 += block) {
            const std::int64_t m = std::min(block, inner - i0);
            std::int64_t* t = tg[cur];
            for (std::int64_t j = 0; j < m; ++j, o += os, kk += ks) {
                t[j] = target(o, kk);
                // only this worker's targets: a prefetch for writing takes the line from the
                // cache of the worker that owns it
                if (t[j] >= lo && t[j] < hi) __builtin_prefetch(ob + t[j], 1);
            }
            us_at[cur] = u + i0 * us; // indexed: no step past the row's last update
            len[cur] = m;
            cur ^= 1;
            if (len[cur]) apply_block(cur); // the previous block, in order
        }
        k += inner;
        for (int d = r - 2; d >= 0; --d) {
            const auto du = static_cast<std::size_t>(d);
            auto& cd = c[du];
            uo += updates.stride(d) * es;
            oo += w.dst[du];
            key += w.key[du];
            if (++cd < updates.size(d)) break;
            uo -= updates.size(d) * updates.stride(d) * es;
            oo -= updates.size(d) * w.dst[du];
            key -= updates.size(d) * w.key[du];
            cd = 0;
        }
    }
    cur ^= 1;
    if (len[cur]) apply_block(cur);
}

/// Applies the updates in C order. The walk can split the output's addresses among workers (see
/// apply_updates_range), but measured on a 2-core host two workers ran 4-8 times slower than
/// one: each random write then moves its cache line between the cores' caches (the pool does
/// not pin a part to a core, and the copy before splits the output differently). So the
/// updates apply on the calling thread; `max_workers` is kept for hosts where that pays.
/// (A template, so that its 220 type x index x reduction kernels are compiled only in the
/// programs that scatter: see compile cost in bench/NOTES.md.)
template <class = void>
void apply_updates(const any_cview& updates, const any_view& output, const update_walk& w, const update_source& src,
                          scatter_reduction red, const cpu::options& opt = {}) {
    const std::int64_t n = updates.count();
    if (n == 0) return;
    // the output's byte offsets span [omin, omax] (its strides may be negative)
    const auto es = static_cast<std::int64_t>(output.element_size());
    std::int64_t omin = 0, omax = 0;
    for (int i = 0; i < output.rank(); ++i) {
        const std::int64_t span = (output.size(i) - 1) * output.stride(i) * es;
        (span < 0 ? omin : omax) += span;
    }
    constexpr int max_workers = 1;
    const int t = std::min(cpu::detail::threads_for(opt, n * static_cast<std::int64_t>(updates.element_size()), n), max_workers);
    const std::int64_t range = omax + es - omin;
    // the reduction as a template argument, so that an update costs no branch on it (1M float32
    // adds onto 64K targets, one core of a 2-core VM: 3.16-3.18 ms -> 2.94-3.09 ms)
    auto with_reduction = [&](auto f) {
        using R = scatter_reduction;
        switch (red) {
        case R::none: return f(std::integral_constant<R, R::none>{});
        case R::add: return f(std::integral_constant<R, R::add>{});
        case R::mul: return f(std::integral_constant<R, R::mul>{});
        case R::min: return f(std::integral_constant<R, R::min>{});
        case R::max: return f(std::integral_constant<R, R::max>{});
        }
    };
    visit(updates.type(), [&]<class T>(type_tag<T>) {
        cpu::detail::with_index_type(src.table ? dtype::int64 : src.index_type, [&](auto tag) {
            using I = decltype(tag);
            with_reduction([&](auto r) {
                cpu::parallel_tasks(t, [&](int k) {
                    // owners' ranges: element-aligned pieces of [omin, omax + es)
                    const std::int64_t a = omin + range / es * k / t * es, b = k + 1 == t ? omax + es : omin + range / es * (k + 1) / t * es;
                    apply_updates_range<T, I, decltype(r)::value>(updates, output, w, src, a, b);
                });
            });
        });
    });
}

/// Applies the updates with target offsets from a table (scatter-nd), in C order of the updates.
template <class = void>
void apply_updates(const any_cview& updates, const any_view& output, const update_walk& w, const std::vector<std::int64_t>& offsets,
                          scatter_reduction red, const cpu::options& opt = {}) {
    update_source src;
    src.table = offsets.data();
    apply_updates(updates, output, w, src, red, opt);
}

inline bool same_view(const any_cview& a, const any_view& b) {
    if (a.data() != b.data() || a.sizes() != b.sizes()) return false;
    for (int i = 0; i < a.rank(); ++i)
        if (a.size(i) > 1 && a.stride(i) != b.stride(i)) return false;
    return true;
}

/// What scatter's checks found: whether it runs in place, and the operands' description.
struct scatter_checked {
    bool in_place = false;
    std::string context;
};

/// The checks scatter and scatter-nd share: the views, then `rules(operands)` — the operator's
/// own shape and type rules — then whether it runs in place, and aliasing.
template <class Rules>
scatter_checked check_scattering(std::string_view op, const any_cview& input, const any_cview& indices, const any_cview& updates,
                                 const any_view& output, Rules&& rules) {
    const operand_info ops[] = {{"input", input.sizes(), input.type()},
                                {"indices", indices.sizes(), indices.type()},
                                {"updates", updates.sizes(), updates.type()},
                                {"output", output.sizes(), output.type()}};
    check_view(op, "input", input, false);
    check_view(op, "indices", indices, false);
    check_view(op, "updates", updates, false);
    check_view(op, "output", output, true);
    rules(std::span<const operand_info>(ops));
    scatter_checked c{same_view(input, output), describe(ops)};
    if (!c.in_place) check_disjoint(op, output, "input", input);
    check_disjoint(op, output, "indices", indices);
    check_disjoint(op, output, "updates", updates);
    return c;
}

/// Every run-time check of a scatter (views, rules, types, output shape, aliasing).
inline scatter_checked check_scatter(const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                                     const scatter_desc& d) {
    const scatter_checked c = check_scattering("scatter", input, indices, updates, output, [&](std::span<const operand_info> ops) {
        const inferred r = scatter_rule(input.sizes(), indices.sizes(), updates.sizes(), d);
        enforce(r.v, ops);
        enforce(scatter_type_rule(input.type(), indices.type(), updates.type(), output.type()), ops);
        if (output.sizes() != r.out) enforce({rule::scatter_output_shape, 3}, ops);
    });
    const int axis = normalize_axis(d.axis, input.rank());
    if (indices.count() > 0 && input.size(axis) == 0)
        throw error(error_code::rule_violation, "strix::" + std::string(rule_text(rule::scatter_empty_axis)) + " (axis " + std::to_string(axis) +
                                                    "; " + c.context + ")");
    return c;
}

} // namespace detail

/// Scatters `updates` into `output` at `indices` along `d.axis`; `output` starts as a copy of
/// `input`, or is `input` itself (the same view: in place). Every index is checked before
/// anything is written. Duplicate targets combine under `d.reduction`, in C order of the
/// updates (with `none`, the last one wins).
/// Throws strix::error naming the operand, axis and shapes when a rule breaks, when an index is
/// out of range under index_policy::error, or when the output overlaps an operand (other than
/// being the input itself).
template <class = void> // instantiated only where called (its kernels are 220 type combinations)
void scatter(const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,
                    const scatter_desc& d = {}, const cpu::options& opt = {}) {
    const auto c = detail::check_scatter(input, indices, updates, output, d);
    const int axis = detail::normalize_axis(d.axis, input.rank());
    const auto oes = static_cast<std::int64_t>(output.element_size());
    // every index is checked before anything is written; the first bad one (C order) is named
    // by resolve_indices, whatever the number of threads
    if (indices.count() > 0 && d.policy == index_policy::error && !detail::indices_in_range(indices, input.size(axis), opt))
        detail::resolve_indices(indices, input.size(axis), 1, d.policy, "scatter", axis, c.context);
    if (!c.in_place) {
        auto p = detail::copy_plan(input, output);
        plan::collapse(p);
        cpu::execute(p, opt);
    }
    if (indices.count() == 0) return;
    detail::update_walk w;
    const auto ies = static_cast<std::int64_t>(indices.element_size());
    for (int i = 0; i < updates.rank(); ++i) {
        w.dst[static_cast<std::size_t>(i)] = i == axis ? 0 : output.stride(i) * oes;
        w.key[static_cast<std::size_t>(i)] = indices.stride(i) * ies; // updates and indices share a shape
    }
    detail::update_source src;
    src.index = static_cast<const std::byte*>(indices.data());
    src.index_type = indices.type();
    src.axis_size = input.size(axis);
    src.axis_stride = output.stride(axis) * oes;
    src.clamp = d.policy == index_policy::clamp;
    detail::apply_updates(updates, output, w, src, d.reduction, opt);
}

/// Scatters into a new C-order host tensor (a copy of `input` with the updates written).
template <class = void>
host_tensor scatter(const any_cview& input, const any_cview& indices, const any_cview& updates, const scatter_desc& d = {},
                           const cpu::options& opt = {}) {
    host_tensor out(input.type(), input.sizes());
    scatter(input, indices, updates, out.view(), d, opt);
    return out;
}

/// Scatters between typed views; with static extents the shapes are checked at compile time.
template <scatter_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>
void scatter(const In& input, const Idx& indices, const Upd& updates, const Out& output, const cpu::options& opt = {}) {
    constexpr verdict tv = scatter_type_rule(dtype_of<typename In::element_type>, dtype_of<typename Idx::element_type>,
                                             dtype_of<typename Upd::element_type>, dtype_of<typename Out::element_type>);
    static_enforce<tv>();
    using in_ext = typename In::extents_type;
    using idx_ext = typename Idx::extents_type;
    using upd_ext = typename Upd::extents_type;
    using out_ext = typename Out::extents_type;
    if constexpr (in_ext::is_static && idx_ext::is_static && upd_ext::is_static) {
        constexpr inferred r = scatter_rule(in_ext{}.to_shape(), idx_ext{}.to_shape(), upd_ext{}.to_shape(), D);
        static_output_check<r, rule::scatter_output_shape, 3, out_ext>(); // the rule that broke, and nothing after it
    } else {
        static_enforce<verdict{In::rank == Idx::rank && In::rank == Upd::rank ? rule::ok : rule::scatter_rank, 1}>();
        static_enforce<verdict{In::rank == Out::rank ? rule::ok : rule::scatter_output_shape, 3}>();
    }
    scatter(input.erased(), indices.erased(), updates.erased(), output.erased_mut(), D, opt);
}

} // namespace strix
