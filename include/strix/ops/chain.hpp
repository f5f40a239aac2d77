#pragma once
/// Chains of moves: gather, pad (crop), slice and tile steps over one tensor, written as one
/// pass where their terms compose (strix/plan/compose.hpp) instead of one pass and one
/// intermediate tensor per step.
///
///     auto e = strix::lazy(x).gather(channels, {.axis = 1}).pad(reflect3);
///     const strix::chain parts[] = {e, other};
///     strix::join(parts, out, {.axis = 1});      // or strix::evaluate(e, out)
///
/// Each step checks its rules when it is added, with the eager operator's checks and message
/// (naming the step); the result is the eager steps' result, bit for bit. Indices are checked
/// (index_policy::error) or clamped as the eager gather does, and under `error` every index of
/// every gather of the chain is checked before anything is written. Where a step cannot compose
/// with the ones before it (a pad of a gathered dimension, a second gather, a fold of a folded
/// dimension), the chain writes what it has composed into a temporary tensor and goes on from
/// there: `describe_chain` says where. The index-driven steps (gather_elements, gather_nd,
/// scatter, scatter_nd) never compose: the chain splits at each, which runs as its eager operator
/// from one temporary into the next (its rules checked when it is added, its indices when it runs).

#include <concepts>
#include <deque>
#include <ranges>
#include <string>
#include <vector>

#include "strix/ops/gather.hpp"
#include "strix/ops/gather_elements.hpp"
#include "strix/ops/gather_nd.hpp"
#include "strix/ops/join.hpp"
#include "strix/ops/pad.hpp"
#include "strix/ops/scatter.hpp"
#include "strix/ops/scatter_nd.hpp"
#include "strix/ops/slice.hpp"
#include "strix/ops/split.hpp"
#include "strix/ops/tile.hpp"
#include "strix/plan/compose.hpp"
#include "strix/tensor.hpp"

namespace strix {

/// The kinds of step of a chain: the moves, which compose, then the index-driven operators,
/// which split it.
enum class chain_op : std::uint8_t { gather, pad, slice, tile, gather_elements, gather_nd, scatter, scatter_nd };

/// Whether steps of kind `op` split a chain (run as their eager operator between temporaries).
constexpr bool index_driven(chain_op op) { return op >= chain_op::gather_elements; }
/// Whether steps of kind `op` read updates.
constexpr bool has_updates(chain_op op) { return op == chain_op::scatter || op == chain_op::scatter_nd; }

/// One step of a chain over views of type View (its descriptor: the one of its kind).
template <class View>
struct chain_step {
    chain_op op = chain_op::pad;
    gather_desc gather{};
    pad_desc pad{};
    slice_desc slice{};
    tile_desc tile{};
    gather_elements_desc gather_elements{};
    gather_nd_desc gather_nd{};
    scatter_desc scatter{};
    scatter_nd_desc scatter_nd{};
    View indices{};                      ///< the gathers' and scatters'
    View updates{};                      ///< the scatters'
    operand_list context;                ///< gather's operands, for index messages
    int axis = 0;                        ///< gather's axis as its rule normalised it
    shape in{}, out{};                   ///< the tensor's shape before and after the step

    [[nodiscard]] std::string_view name() const {
        switch (op) {
        case chain_op::gather: return "gather";
        case chain_op::pad: return "pad";
        case chain_op::slice: return "slice";
        case chain_op::tile: return "tile";
        case chain_op::gather_elements: return op_traits<gather_elements_desc>::name;
        case chain_op::gather_nd: return op_traits<gather_nd_desc>::name;
        case chain_op::scatter: return op_traits<scatter_desc>::name;
        case chain_op::scatter_nd: return op_traits<scatter_nd_desc>::name;
        }
        return "?";
    }
    /// Calls `f(desc)` with the descriptor of an index-driven step.
    template <class F>
    void with_index_desc(F&& f) const {
        switch (op) {
        case chain_op::gather_elements: f(gather_elements); break;
        case chain_op::gather_nd: f(gather_nd); break;
        case chain_op::scatter: f(scatter); break;
        case chain_op::scatter_nd: f(scatter_nd); break;
        default: break;
        }
    }
};

/// The view of the CPU's chains as the rules and plans take it.
inline any_cview chain_view_of(const any_cview& v) { return v; }

namespace detail {
/// Rethrows `e`, thrown by the checks of step `n` (1-based), with the step named: "strix::pad
/// (chain step 2): ...".
[[noreturn]] inline void rethrow_as_step(const error& e, std::string_view op, std::size_t n) {
    const std::string m = e.what(), head = "strix::" + std::string(op) + ": ";
    const std::string tag = "strix::" + std::string(op) + " (chain step " + std::to_string(n) + "): ";
    if (m.rfind(head, 0) == 0) throw error(e.code(), tag + m.substr(head.size()));
    throw error(e.code(), tag + m);
}

/// A view of `type` and `sizes` at a placeholder address, for the rules of a step, which look
/// at shapes and types only. Its strides are 0: a C-order layout could reach past 64-bit
/// offsets where the chain's real tensor (a broadcast input of zero strides) does not, and the
/// view checks would refuse a step that the eager call takes.
inline any_cview shape_only(dtype type, const shape& sizes) {
    static const std::byte placeholder[16]{};
    return any_cview(placeholder, type, sizes, std::array<std::int64_t, max_rank>{});
}
} // namespace detail

/// A lazy chain of moves over one tensor (`source`): each step returns a longer chain; nothing
/// runs until the chain is evaluated (strix::evaluate, strix::join on the CPU; a Vulkan
/// stream's evaluate and join). A tensor converts to the chain of no steps. The views must
/// outlive the chain's evaluation.
template <class View>
class basic_chain {
public:
    basic_chain() = default;
    basic_chain(const View& source) : source_(source), sizes_(chain_view_of(source).sizes()) {} // NOLINT: a tensor is a chain
    template <class V>
        requires(!std::is_same_v<V, View> && std::is_convertible_v<const V&, View>)
    basic_chain(const V& source) : basic_chain(View(source)) {} // NOLINT: (a writable view too)

    /// gather (as strix::gather) of the chain's tensor at `indices`.
    [[nodiscard]] basic_chain gather(const View& indices, const gather_desc& d = {}) const {
        chain_step<View> s;
        s.op = chain_op::gather;
        s.gather = d;
        s.indices = indices;
        return add(std::move(s), [&](const any_cview& in, chain_step<View>& t) {
            const any_cview ops[] = {in, chain_view_of(indices)};
            const strix::detail::checked_call c = op_traits<gather_desc>::check(ops, {}, d);
            t.context = c.context;
            t.axis = c.axis;
            return c.out;
        });
    }
    /// gather_elements (as strix::gather_elements) of the chain's tensor at `indices`; gather_nd,
    /// scatter and scatter_nd likewise (a scatter's input is the chain's tensor, its result a new
    /// one). These split the chain: each runs as its eager operator.
    [[nodiscard]] basic_chain gather_elements(const View& indices, const gather_elements_desc& d = {}) const {
        return index_step(chain_op::gather_elements, d, &chain_step<View>::gather_elements, indices, nullptr);
    }
    [[nodiscard]] basic_chain gather_nd(const View& indices, const gather_nd_desc& d = {}) const {
        return index_step(chain_op::gather_nd, d, &chain_step<View>::gather_nd, indices, nullptr);
    }
    [[nodiscard]] basic_chain scatter(const View& indices, const View& updates, const scatter_desc& d = {}) const {
        return index_step(chain_op::scatter, d, &chain_step<View>::scatter, indices, &updates);
    }
    [[nodiscard]] basic_chain scatter_nd(const View& indices, const View& updates, const scatter_nd_desc& d = {}) const {
        return index_step(chain_op::scatter_nd, d, &chain_step<View>::scatter_nd, indices, &updates);
    }
    /// pad (as strix::pad; negative widths crop).
    [[nodiscard]] basic_chain pad(const pad_desc& d) const { return unary(chain_op::pad, d, &chain_step<View>::pad); }
    /// slice (as strix::slice).
    [[nodiscard]] basic_chain slice(const slice_desc& d) const { return unary(chain_op::slice, d, &chain_step<View>::slice); }
    /// tile (as strix::tile).
    [[nodiscard]] basic_chain tile(const tile_desc& d) const { return unary(chain_op::tile, d, &chain_step<View>::tile); }

    /// The views the chain reads: its source, then each step's indices (and a scatter's updates).
    [[nodiscard]] std::vector<View> views() const {
        std::vector<View> v{source_};
        for (const auto& s : steps_) {
            if (s.op == chain_op::gather || index_driven(s.op)) v.push_back(s.indices);
            if (has_updates(s.op)) v.push_back(s.updates);
        }
        return v;
    }
    /// What each of views() is to its step: "input", "indices" or "updates".
    [[nodiscard]] std::vector<const char*> view_roles() const {
        std::vector<const char*> r{"input"};
        for (const auto& s : steps_) {
            if (s.op == chain_op::gather || index_driven(s.op)) r.push_back("indices");
            if (has_updates(s.op)) r.push_back("updates");
        }
        return r;
    }
    /// The same steps over other views (as views() orders them, from `v`'s front, which moves
    /// past them), checked again: to record a chain again on other tensors, or a chain of host
    /// views on device views.
    template <class V>
    [[nodiscard]] basic_chain<V> rebound(std::span<const V>& v) const {
        basic_chain<V> r(v.front());
        v = v.subspan(1);
        for (const auto& s : steps_) {
            switch (s.op) {
            case chain_op::gather:
                r = r.gather(v.front(), s.gather);
                v = v.subspan(1);
                break;
            case chain_op::pad: r = r.pad(s.pad); break;
            case chain_op::slice: r = r.slice(s.slice); break;
            case chain_op::tile: r = r.tile(s.tile); break;
            case chain_op::gather_elements: r = r.gather_elements(v.front(), s.gather_elements); break;
            case chain_op::gather_nd: r = r.gather_nd(v.front(), s.gather_nd); break;
            case chain_op::scatter: r = r.scatter(v[0], v[1], s.scatter); break;
            case chain_op::scatter_nd: r = r.scatter_nd(v[0], v[1], s.scatter_nd); break;
            }
            if (index_driven(s.op)) v = v.subspan(has_updates(s.op) ? 2 : 1);
        }
        return r;
    }
    [[nodiscard]] const View& source() const { return source_; }
    [[nodiscard]] const std::vector<chain_step<View>>& steps() const { return steps_; }
    /// The shape of the chain's result.
    [[nodiscard]] const shape& sizes() const { return sizes_; }
    [[nodiscard]] dtype type() const { return chain_view_of(source_).type(); }

private:
    template <class F>
    basic_chain add(chain_step<View> s, F&& rule) const {
        s.in = sizes_;
        try {
            s.out = rule(detail::shape_only(type(), sizes_), s);
        } catch (const error& e) {
            detail::rethrow_as_step(e, s.name(), steps_.size() + 1);
        }
        basic_chain r = *this;
        r.sizes_ = s.out;
        r.steps_.push_back(std::move(s));
        return r;
    }
    template <class Desc>
    basic_chain unary(chain_op op, const Desc& d, Desc chain_step<View>::*member) const {
        chain_step<View> s;
        s.op = op;
        s.*member = d;
        return add(std::move(s), [&](const any_cview& in, chain_step<View>&) { return op_traits<Desc>::check(std::span(&in, 1), {}, d).out; });
    }
    template <class Desc>
    basic_chain index_step(chain_op op, const Desc& d, Desc chain_step<View>::*member, const View& indices, const View* updates) const {
        chain_step<View> s;
        s.op = op;
        s.*member = d;
        s.indices = indices;
        if (updates) s.updates = *updates;
        return add(std::move(s), [&](const any_cview& in, chain_step<View>& t) {
            std::vector<any_cview> ops{in, chain_view_of(indices)};
            if (updates) ops.push_back(chain_view_of(*updates));
            const strix::detail::checked_call c = op_traits<Desc>::check(ops, {}, d);
            t.context = c.context;
            return c.out;
        });
    }

    View source_{};
    std::vector<chain_step<View>> steps_;
    shape sizes_{};
};

/// A chain over host views.
using chain = basic_chain<any_cview>;

/// The chain of no steps over `x`, to add steps to.
inline chain lazy(const any_cview& x) { return chain(x); }

namespace detail {

/// One pass of a lowered chain: a move plan over steps [first, last) (0: the source) that
/// writes temporary `writes` (-1: the output) from temporary `reads` (-1: the chain's source);
/// `gather` is the step whose indices it reads (-1: none) and `why` what kept the next step out
/// (null for the last pass). Or, where `step` >= 0, that index-driven step run as its eager
/// operator from `reads` into temporary `writes` (no plan; first = step, last = step + 1).
struct chain_pass {
    plan::move_plan plan;
    int writes = -1, reads = -1, gather = -1;
    std::size_t first = 0, last = 0;
    const char* why = nullptr;
    int step = -1;
};

/// Why step `s` does not compose with a tensor `c` (for describe_chain).
template <class View>
const char* split_reason(const chain_step<View>& s, const plan::composed& c) {
    switch (s.op) {
    case chain_op::gather:
        return c.p.index ? "a second gather (a composed plan reads one set of indices)" : "a gather along a padded or tiled axis";
    case chain_op::slice: return "a strided slice across a fold";
    case chain_op::pad:
    case chain_op::tile: return c.p.index ? "a fold of a gathered axis, or of an axis already folded" : "a fold of an axis already folded another way";
    case chain_op::gather_elements:
    case chain_op::gather_nd:
    case chain_op::scatter:
    case chain_op::scatter_nd: return "index-driven (it runs as its own operator)";
    }
    return "";
}

/// Applies step `s` to `c`, a tensor of element type `type`; false where it does not compose
/// (`c` is then left as it was).
template <class View>
bool compose_step(plan::composed& c, const chain_step<View>& s, dtype type) {
    plan::composed n = c;
    const int r = s.in.rank;
    auto pad_with = [&](const pad_desc& d) {
        std::array<std::byte, 16> fill{};
        if (d.mode == pad_mode::constant) scalar_bytes(d.value, type, fill.data());
        for (int i = 0; i < r; ++i) {
            const std::int64_t a = d.start[i], b = d.end[i];
            // negative widths crop first (as pad does), then the positive ones pad
            const std::int64_t first = a < 0 ? -a : 0, kept = n.dim(i).size + (a < 0 ? a : 0) + (b < 0 ? b : 0);
            if ((first != 0 || kept != n.dim(i).size) && !n.slice(i, first, 1, kept)) return false;
            if (!n.pad(i, d.mode, a > 0 ? a : 0, b > 0 ? b : 0, fill)) return false;
        }
        return true;
    };
    bool ok = true;
    switch (s.op) {
    case chain_op::slice:
        for (int i = 0; ok && i < s.slice.starts.rank; ++i) {
            const int axis = normalize_axis(s.slice.axes.rank ? s.slice.axes[i] : i, r);
            const slice_axis a = clamp_slice(s.slice.starts[i], s.slice.ends[i], s.slice.steps.rank ? s.slice.steps[i] : 1, s.in[axis]);
            ok = n.slice(axis, a.first, a.step, a.count);
        }
        break;
    case chain_op::pad: ok = pad_with(s.pad); break;
    case chain_op::tile: ok = pad_with(tile_as_pad(s.in, s.tile)); break;
    case chain_op::gather_elements:
    case chain_op::gather_nd:
    case chain_op::scatter:
    case chain_op::scatter_nd: return false; // (lower_chain runs these on their own)
    case chain_op::gather: {
        const any_cview full = chain_view_of(s.indices);
        const any_cview idx = gather_index_view(full, s.gather);
        const int k = idx.rank();
        std::array<std::int64_t, max_rank> sizes{}, strides{};
        for (int j = 0; j < k; ++j) {
            sizes[static_cast<std::size_t>(j)] = idx.size(j);
            strides[static_cast<std::size_t>(j)] = idx.stride(j) * static_cast<std::int64_t>(idx.element_size());
        }
        const int whole = r - 1 + k; // input[0..axis) ++ idx ++ input(axis..r)
        const int out_rank = s.out.rank;
        ok = n.gather(s.axis, static_cast<const std::byte*>(idx.data()), idx.type(), k, sizes.data(), strides.data(),
                      s.gather.policy == index_policy::clamp, whole > out_rank ? whole - out_rank : 0, out_rank > whole);
        break;
    }
    }
    if (ok) c = n;
    return ok;
}

/// The composed form of view `v` (its own source).
inline plan::composed composed_of(const any_cview& v) {
    std::array<std::int64_t, max_rank> st{};
    const auto es = static_cast<std::int64_t>(v.element_size());
    for (int i = 0; i < v.rank(); ++i) st[static_cast<std::size_t>(i)] = v.stride(i) * es;
    return plan::composed::of(static_cast<const std::byte*>(v.data()), v.element_size(), v.rank(), v.sizes().dims.data(), st.data());
}

/// `v`'s strides in bytes.
template <bool M>
std::array<std::int64_t, max_rank> byte_strides(const basic_any_view<M>& v) {
    std::array<std::int64_t, max_rank> st{};
    for (int i = 0; i < v.rank(); ++i) st[static_cast<std::size_t>(i)] = v.stride(i) * static_cast<std::int64_t>(v.element_size());
    return st;
}

/// Lowers chain `c` into its passes, the last of which writes `out` (of the chain's shape and
/// type). Where a step does not compose, `make_temp(type, shape)` gives a C-order tensor
/// (any_view) for what came before it, and the next pass reads that.
template <class View, class MakeTemp>
std::vector<chain_pass> lower_chain(const basic_chain<View>& c, const any_view& out, MakeTemp&& make_temp) {
    std::vector<chain_pass> passes;
    const dtype type = c.type();
    plan::composed cur = composed_of(chain_view_of(c.source()));
    int reads = -1, gather = -1, temps = 0;
    std::size_t first = 0;
    const auto& steps = c.steps();
    // what steps [first, i) composed, written into a new temporary (which the next pass reads),
    // as step i is kept out for `why`; the composition starts again from that temporary
    auto write_out = [&](std::size_t i, const shape& sizes, const char* why) {
        const any_view t = make_temp(type, sizes);
        const auto st = byte_strides(t);
        passes.push_back({cur.finish(static_cast<std::byte*>(t.data()), st.data()), temps, reads, gather, first, i, why});
        reads = temps++;
        gather = -1;
        cur = composed_of(t);
    };
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& s = steps[i];
        if (index_driven(s.op)) {
            // the operator reads what the steps since the last split composed, written out
            // (nothing to write where none did: it reads the source or the last temporary)
            if (i > first) write_out(i, s.in, split_reason(s, cur));
            const any_view t = make_temp(type, s.out);
            passes.push_back({{}, temps, reads, -1, i, i + 1, nullptr, static_cast<int>(i)});
            reads = temps++;
            first = i + 1;
            cur = composed_of(t);
            continue;
        }
        if (!compose_step(cur, s, type)) {
            write_out(i, s.in, split_reason(s, cur));
            first = i;
            compose_step(cur, s, type); // (every step composes with a view)
        }
        if (s.op == chain_op::gather) gather = static_cast<int>(i);
    }
    const auto st = byte_strides(out);
    passes.push_back({cur.finish(static_cast<std::byte*>(out.data()), st.data()), -1, reads, gather, first, steps.size(), nullptr});
    return passes;
}

/// The checks of evaluating chain `c` into `out` (as an operator's: the views, the output's type
/// and shape, no overlap of the output with what the chain reads). `op`, `number`: how messages
/// name the output's operator and the chain (a join's input k).
template <class View>
void check_chain_output(const basic_chain<View>& c, const any_view& out, std::string_view op, int number = -1) {
    const any_cview src = chain_view_of(c.source());
    check_view(op, "input", src, false, number);
    for (const auto& s : c.steps()) {
        if (s.op == chain_op::gather || index_driven(s.op)) check_disjoint(op, out, "indices", chain_view_of(s.indices), number);
        if (has_updates(s.op)) check_disjoint(op, out, "updates", chain_view_of(s.updates), number);
    }
    check_disjoint(op, out, "input", src, number);
}

/// Every check of evaluating chain `c` into `output`: the output's view, its type and shape
/// (the chain's), no overlap with what the chain reads.
template <class View>
void check_chain_evaluate(const basic_chain<View>& c, const any_view& output) {
    check_view("chain", "output", output, true);
    if (output.type() != c.type() || output.sizes() != c.sizes())
        throw error(error_code::rule_violation, "strix::chain: the output " + to_string(output.sizes()) + " of " + std::string(name(output.type())) +
                                                    " is not the chain's result " + to_string(c.sizes()) + " of " + std::string(name(c.type())));
    check_chain_output(c, output, "chain");
}

/// Checks every index of the gathers of chain `c` under index_policy::error (throwing the
/// eager gather's message, naming the step); `nonnegative[i]`: whether step i's indices all lie
/// in [0, n), which the passes may then read unsigned.
template <class View>
std::vector<bool> check_chain_indices(const basic_chain<View>& c, const cpu::options& opt) {
    std::vector<bool> nonnegative(c.steps().size());
    for (std::size_t i = 0; i < c.steps().size(); ++i) {
        const auto& s = c.steps()[i];
        if (s.op != chain_op::gather || s.gather.policy != index_policy::error) continue;
        const any_cview idx = gather_index_view(chain_view_of(s.indices), s.gather);
        const std::int64_t n = s.in[s.axis];
        if (indices_in_range(idx, n, opt, true)) nonnegative[i] = true;
        else if (!indices_in_range(idx, n, opt)) {
            try {
                resolve_indices(idx, n, 1, s.gather.policy, "gather", s.axis, s.context);
            } catch (const error& e) {
                rethrow_as_step(e, s.name(), i + 1);
            }
        }
    }
    return nonnegative;
}

/// Runs index-driven step `s` (the chain's step `number`, 0-based) as its eager operator from
/// `in` into `out`, its errors naming the step.
template <class View>
void run_index_step(const chain_step<View>& s, std::size_t number, const any_cview& in, const any_view& out, const cpu::options& opt) {
    try {
        s.with_index_desc([&]<class Desc>(const Desc& d) {
            std::vector<any_cview> ins{in, chain_view_of(s.indices)};
            if (has_updates(s.op)) ins.push_back(chain_view_of(s.updates));
            call_into<Desc>(ins, {&out, 1}, d, opt);
        });
    } catch (const error& e) {
        rethrow_as_step(e, s.name(), number + 1);
    }
}

/// Runs the passes of chains `chains` (a join's, or one) on the CPU: each chain's passes into
/// temporaries in turn, then the last passes of all together (disjoint outputs).
template <class Make>
void run_chains(std::span<const chain> chains, Make&& lower_one, const cpu::options& opt, std::int64_t blocks_hint = 0) {
    std::deque<host_tensor> temps;
    std::vector<plan::move_plan> last;
    for (std::size_t k = 0; k < chains.size(); ++k) {
        const std::size_t base = temps.size(); // (a chain's temporaries are numbered from 0)
        auto passes = lower_one(k, [&](dtype t, const shape& s) { return temps.emplace_back(t, s).view(); });
        for (auto& pass : passes) {
            if (pass.step >= 0) {
                const auto step = static_cast<std::size_t>(pass.step);
                const any_cview in = pass.reads < 0 ? chains[k].source() : any_cview(temps[base + static_cast<std::size_t>(pass.reads)].view());
                run_index_step(chains[k].steps()[step], step, in, temps[base + static_cast<std::size_t>(pass.writes)].view(), opt);
            } else if (pass.writes >= 0) cpu::execute(pass.plan, opt);
            else last.push_back(std::move(pass.plan));
        }
    }
    cpu::execute_together(last, opt, blocks_hint);
}

/// The passes' index types made unsigned where their gather's indices were all found in [0, n).
inline void unsigned_where_checked(std::vector<chain_pass>& passes, const std::vector<bool>& nonnegative) {
    for (auto& pass : passes)
        if (pass.gather >= 0 && nonnegative[static_cast<std::size_t>(pass.gather)] && pass.plan.index)
            pass.plan.index_type = unsigned_index_type(pass.plan.index_type);
}

} // namespace detail

/// Writes the result of chain `c` into `output` (any strides; the chain's shape and element
/// type), composed into as few passes as its steps allow. Throws strix::error, before anything
/// is written, when the output does not fit the chain, overlaps what it reads or itself, or (under
/// index_policy::error) an index of one of its gathers is out of range.
template <class = void>
void evaluate(const chain& c, const any_view& output, const cpu::options& opt = {}) {
    detail::check_chain_evaluate(c, output);
    const auto nonnegative = detail::check_chain_indices(c, opt);
    detail::run_chains({&c, 1}, [&](std::size_t, auto&& make) {
        auto passes = detail::lower_chain(c, output, make);
        detail::unsigned_where_checked(passes, nonnegative);
        return passes;
    }, opt);
}

/// The result of chain `c` as a new C-order host tensor.
template <class = void>
host_tensor evaluate(const chain& c, const cpu::options& opt = {}) {
    host_tensor out(c.type(), c.sizes());
    evaluate(c, out.view(), opt);
    return out;
}

namespace detail {
/// The checks of a join of chains (its rules on the chains' shapes and types, with the eager
/// join's messages; then the output's); the checked call (its axis).
template <class View>
checked_call check_chain_join(std::span<const basic_chain<View>> inputs, const any_view* output, const join_desc& d) {
    std::vector<any_cview> shapes;
    for (const auto& c : inputs) shapes.push_back(shape_only(c.type(), c.sizes()));
    checked_call r = check_join(shapes, nullptr, d);
    if (!output) return r;
    check_view("join", "output", *output, true);
    const auto ops = join_operands(shapes, output);
    if (output->type() != inputs[0].type()) enforce({rule::join_dtype, static_cast<int>(inputs.size())}, ops);
    if (r.out != output->sizes()) enforce({rule::join_output_shape, static_cast<int>(inputs.size())}, ops);
    for (std::size_t k = 0; k < inputs.size(); ++k) check_chain_output(inputs[k], *output, "join", static_cast<int>(k));
    return r;
}

/// Output `out`'s part that input `k` of a join along `axis` writes (`at`: the inputs' sizes
/// along the axis before it).
inline any_view join_part(const any_view& out, const shape& sizes, int axis, std::int64_t at) {
    const std::int64_t offset = sizes.count() == 0 ? 0 : at * out.stride(axis) * static_cast<std::int64_t>(out.element_size());
    const auto address = reinterpret_cast<std::uintptr_t>(out.data()) + static_cast<std::uintptr_t>(offset);
    return any_view(reinterpret_cast<std::byte*>(address), out.type(), sizes, out.strides());
}
} // namespace detail

/// Joins the results of chains `inputs` along `d.axis` into `output` (as strix::join), each
/// chain composed into its part of the output: a gather, pad and join read each input once and
/// write the output once.
/// (`inputs`: an array, vector or span of chains; a tensor converts to a chain of no steps.)
template <std::ranges::contiguous_range R>
    requires std::same_as<std::ranges::range_value_t<R>, chain>
void join(const R& chains, const any_view& output, const join_desc& d = {}, const cpu::options& opt = {}) {
    const std::span<const chain> inputs(std::ranges::data(chains), std::ranges::size(chains));
    const detail::checked_call c = detail::check_chain_join(inputs, &output, d);
    std::vector<std::vector<bool>> nonnegative;
    for (const auto& in : inputs) nonnegative.push_back(detail::check_chain_indices(in, opt));
    std::vector<std::int64_t> at(inputs.size() + 1);
    for (std::size_t k = 0; k < inputs.size(); ++k) at[k + 1] = at[k] + inputs[k].sizes()[c.axis];
    // the parts run together in blocks of whole output coordinates before the axis
    std::int64_t outer = c.out.count() > 0 ? 1 : 0; // (an empty output's sizes may multiply past 64 bits)
    for (int i = 0; outer > 0 && i < c.axis; ++i) outer *= c.out[i];
    detail::run_chains(inputs, [&](std::size_t k, auto&& make) {
        auto passes = detail::lower_chain(inputs[k], detail::join_part(output, inputs[k].sizes(), c.axis, at[k]), make);
        detail::unsigned_where_checked(passes, nonnegative[k]);
        return passes;
    }, opt, outer);
}

/// The join of chains `inputs` as a new C-order host tensor.
template <std::ranges::contiguous_range R>
    requires std::same_as<std::ranges::range_value_t<R>, chain>
host_tensor join(const R& chains, const join_desc& d = {}, const cpu::options& opt = {}) {
    const std::span<const chain> inputs(std::ranges::data(chains), std::ranges::size(chains));
    const detail::checked_call c = detail::check_chain_join(inputs, nullptr, d);
    host_tensor out(inputs[0].type(), c.out);
    join(inputs, out.view(), d, opt);
    return out;
}

/// The chains that split the result of `c` along `d.axis` into pieces of `sizes` (as
/// strix::split's outputs), each a slice of it, to go on with or evaluate.
template <class View>
std::vector<basic_chain<View>> split(const basic_chain<View>& c, std::span<const std::int64_t> sizes, const split_desc& d = {}) {
    detail::checked_split_shapes(c.sizes(), c.type(), sizes, d);
    const int axis = detail::normalize_axis(d.axis, c.sizes().rank);
    std::vector<basic_chain<View>> out;
    std::int64_t at = 0;
    for (const auto n : sizes) {
        out.push_back(c.slice({.starts = {at}, .ends = {at + n}, .axes = {axis}}));
        at += n;
    }
    return out;
}

/// What chain `c` runs as: its passes, the steps each composes, and why a pass ends where one
/// follows it ("steps 1-3 (gather, pad, slice) in one pass" when all compose).
template <class View>
std::string describe_chain(const basic_chain<View>& c) {
    const any_view out(const_cast<std::byte*>(static_cast<const std::byte*>(detail::shape_only(c.type(), c.sizes()).data())), c.type(), c.sizes());
    const auto passes = detail::lower_chain(c, out, [](dtype t, const shape& s) {
        return any_view(const_cast<std::byte*>(static_cast<const std::byte*>(detail::shape_only(t, s).data())), t, s);
    });
    auto names = [&](std::size_t a, std::size_t b) {
        std::string r;
        for (std::size_t i = a; i < b; ++i) r += (i > a ? ", " : "") + std::string(c.steps()[i].name());
        return r;
    };
    std::string r;
    for (std::size_t k = 0; k < passes.size(); ++k) {
        const auto& p = passes[k];
        if (k) r += "; ";
        if (p.step >= 0) {
            r += "step " + std::to_string(p.step + 1) + " (" + names(p.first, p.last) + ") as its own operator into a temporary " + to_string(c.steps()[p.first].out);
            continue;
        }
        r += p.last > p.first ? "steps " + std::to_string(p.first + 1) + "-" + std::to_string(p.last) + " (" + names(p.first, p.last) + ")"
                              : std::string("a copy");
        r += p.writes >= 0 ? " into a temporary " + to_string(c.steps()[p.last].in) + ", as step " + std::to_string(p.last + 1) + " is " + p.why
                           : " in one pass";
    }
    return r;
}

} // namespace strix
