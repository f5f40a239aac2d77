#pragma once
/// An operator described once. Each operator's header specialises `op_traits<Desc>` for its
/// descriptor, saying what the operator is; the templates here turn that description into every
/// entry point of the CPU (into an output, allocating, typed), and the Vulkan backend turns the
/// same description into its recording, convenience and typed calls (strix/vulkan/recording.hpp,
/// strix/vulkan/ops.hpp). The list of operators is strix/ops/list.hpp.
///
/// What a specialisation `op_traits<D>` states:
///
///   name                 the operator's name in messages and in the tool ("gather-elements")
///   form                 how its operands are laid out in calls (op_form)
///   check(in, out, d)    every run-time check (views, rules, types, the output's shape,
///                        aliasing); `out` empty: an allocating call, whose output is the
///                        C-order tensor of the input's type and the returned `checked::out`
///   run(c, in, out, d, opt)  the CPU run of a checked call
///   typed_rules<D, V...>()   the compile-time checks of a typed call (D and the views' types)
///   lower(in, out, d, c)     (operators whose device path is plain moves) its move plans
///   settings             its descriptor's members by name (a tuple of `setting`), for
///                        programs that take settings by name: the strix tool's options
///   about                what it computes, in a few lines that name its settings
///
/// Operands reach these as spans, inputs then outputs in the order of the operator's calls.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "strix/cpu/executor.hpp"
#include "strix/ops/common.hpp"

namespace strix {

/// How an operator's operands appear in its calls.
enum class op_form : std::uint8_t {
    unary,     ///< (input, output): pad, slice, tile
    indexed,   ///< (input, indices, output): gather, gather-elements, gather-nd
    update,    ///< (input, indices, updates, output), in place when output is input: the scatters
    joining,   ///< (inputs..., output): join
    splitting, ///< (input, outputs...): split
};

/// What an operator is (see above); specialised in each operator's header.
template <class Desc>
struct op_traits;

/// Whether `Desc` is the descriptor of an operator.
template <class Desc>
concept operator_desc = requires { op_traits<Desc>::name; op_traits<Desc>::form; };

/// One member of an operator's descriptor as a program that takes settings by name sees it:
/// its name ("axis", "index-dimensions"), the member, how a usage line writes its value ("A",
/// "S0,S1,..", "" for a flag) and whether it must be given. Its type says how it is read.
template <class Desc, class T>
struct setting {
    using type = T;
    std::string_view name;
    T Desc::*member;
    std::string_view placeholder;
    bool required = false;
};
template <class Desc, class T>
setting(std::string_view, T Desc::*, std::string_view, bool) -> setting<Desc, T>;
template <class Desc, class T>
setting(std::string_view, T Desc::*, std::string_view) -> setting<Desc, T>;

/// The number of fixed inputs of a form (joining: any number).
constexpr int fixed_inputs(op_form f) {
    switch (f) {
    case op_form::unary: return 1;
    case op_form::indexed: return 2;
    case op_form::update: return 3;
    case op_form::joining: return -1;
    case op_form::splitting: return 1;
    }
    return 0;
}

/// The name of operand `i` of an operator of form `f` with `n` operands in all (inputs, then
/// outputs), as messages give it: "input", "indices", "updates", "output", "input 2", "output 0".
inline std::string operand_role(op_form f, std::size_t i, std::size_t n) {
    switch (f) {
    case op_form::joining: return i + 1 == n ? std::string("output") : "input " + std::to_string(i);
    case op_form::splitting: return i == 0 ? std::string("input") : "output " + std::to_string(i - 1);
    default: break;
    }
    static constexpr const char* fixed[] = {"input", "indices", "updates"};
    if (i + 1 == n) return "output";
    return f == op_form::unary ? "input" : fixed[i];
}

namespace detail {

/// Runs operator `Desc` on the CPU into `out` (checked first).
template <operator_desc Desc>
void call_into(std::span<const any_cview> in, std::span<const any_view> out, const Desc& d, const cpu::options& opt) {
    using T = op_traits<Desc>;
    T::run(T::check(in, out, d), in, out, d, opt);
}

/// Runs operator `Desc` on the CPU into a new C-order host tensor of the inferred shape (an
/// update: of the input's shape, the updates applied to a copy of the input).
template <operator_desc Desc>
host_tensor call_new(std::span<const any_cview> in, const Desc& d, const cpu::options& opt) {
    using T = op_traits<Desc>;
    if constexpr (T::form == op_form::update) {
        check_view(T::name, "input", in[0], false); // before its shape makes a tensor
        host_tensor out(in[0].type(), in[0].sizes());
        const any_view o = out.view();
        call_into(in, {&o, 1}, d, opt);
        return out;
    } else {
        const checked_call c = T::check(in, {}, d); // (at least one input from here on)
        host_tensor out(in[0].type(), c.out);
        const any_view o = out.view();
        T::run(c, in, {&o, 1}, d, opt);
        return out;
    }
}

/// The CPU run of an operator whose work is its move plans (op_traits::lower), all run together.
template <operator_desc Desc>
void run_moves(const checked_call& c, std::span<const any_cview> in, std::span<const any_view> out, const Desc& d, const cpu::options& opt) {
    cpu::execute_together(op_traits<Desc>::lower(in, out, d, c), opt);
}

/// The check and the CPU run of an operator of one input and one output whose device path is
/// plain moves: `Check(input, output or null, d)` and `Lower(input, output, d)`, its one plan.
template <class Desc, auto Check, auto Lower>
struct moves_operator {
    static checked_call check(std::span<const any_cview> in, std::span<const any_view> out, const Desc& d) {
        return Check(in[0], out.empty() ? nullptr : &out[0], d);
    }
    static std::vector<plan::move_plan> lower(std::span<const any_cview> in, std::span<const any_view> out, const Desc& d, const checked_call&) {
        return {Lower(in[0], out[0], d)};
    }
    static void run(const checked_call& c, std::span<const any_cview> in, std::span<const any_view> out, const Desc& d, const cpu::options& opt) {
        run_moves(c, in, out, d, opt);
    }
};

/// The check and the CPU run of an operator of the indexed form: `Check(input, indices, output
/// or null, d)`, `Run(checked, input, indices, output, d, opt)`.
template <class Desc, auto Check, auto Run>
struct indexed_operator {
    static checked_call check(std::span<const any_cview> in, std::span<const any_view> out, const Desc& d) {
        return Check(in[0], in[1], out.empty() ? nullptr : &out[0], d);
    }
    static void run(const checked_call& c, std::span<const any_cview> in, std::span<const any_view> out, const Desc& d, const cpu::options& opt) {
        Run(c, in[0], in[1], out[0], d, opt);
    }
};

/// The check and the CPU run of an operator of the update form: `Check(input, indices, updates,
/// output or null, d)` (null: the rules without the output's checks, as a chain's step) and
/// `Run(checked, input, indices, updates, output, d, opt)`.
template <class Desc, auto Check, auto Run>
struct update_operator {
    static checked_call check(std::span<const any_cview> in, std::span<const any_view> out, const Desc& d) {
        return Check(in[0], in[1], in[2], out.empty() ? nullptr : &out[0], d);
    }
    static void run(const checked_call& c, std::span<const any_cview> in, std::span<const any_view> out, const Desc& d, const cpu::options& opt) {
        Run(c, in[0], in[1], in[2], out[0], d, opt);
    }
};

/// What the typed calls' compile-time checks read off their views.
template <class View>
inline constexpr dtype view_dtype = dtype_of<typename View::element_type>;
template <class... Views>
inline constexpr bool all_static = (Views::extents_type::is_static && ...);
/// The shape of a view type's static extents.
template <class View>
constexpr shape static_shape() {
    return typename View::extents_type{}.to_shape();
}
/// Checks a typed call whose inputs have static extents: the rules' result `R` (the rule that
/// broke, and nothing after it), then the output's extents against the inferred shape
/// (`Mismatch`, naming operand `Operand`).
template <inferred R, rule Mismatch, int Operand, class Out>
void output_check() {
    static_output_check<R, Mismatch, Operand, typename Out::extents_type>();
}
/// The output extents of an operator of one input whose rule is `Rule(input shape, D)`: static
/// when the input's are (a broken rule fails to compile), else checked at run time.
template <auto Rule, auto D, extents_type In>
constexpr auto unary_extents(const In& input) {
    if constexpr (In::is_static) {
        constexpr inferred r = Rule(In{}.to_shape(), D);
        static_enforce<r.v>();
        if constexpr (r.v.ok()) return static_extents<r.out>{};
    } else {
        const inferred r = Rule(input.to_shape(), D);
        const operand_info ops[] = {{"input", input.to_shape()}};
        enforce(r.v, ops);
        return dextents<In::rank>(r.out);
    }
}

/// The element-type rules of an operator of the update form (input, indices, updates, output):
/// indices of an index type (else `index_rule`), updates and output of the input's type (else
/// `dtype_rule`, naming the operand).
constexpr verdict update_type_rule(dtype input, dtype indices, dtype updates, dtype output, rule index_rule, rule dtype_rule) {
    if (!is_index_type(indices)) return {index_rule, 1};
    if (updates != input) return {dtype_rule, 2};
    if (output != input) return {dtype_rule, 3};
    return {};
}

/// A rank rule of a typed call with dynamic extents: `holds`, or `r` naming `operand`.
constexpr verdict rank_verdict(bool holds, rule r, int operand) { return holds ? verdict{} : verdict{r, operand}; }


} // namespace detail

// The CPU's entry points of an operator `op` (descriptor `op_desc`), by form. Each operator's
// header ends with STRIX_CPU_CALLS(op, form). `template <class = void>`: a call is compiled only
// where a program makes it (the scatters' kernels are hundreds of type combinations).

/// (input, output): into an output, allocating, typed.
#define STRIX_CPU_CALLS_unary(op)                                                                                           \
    template <class = void>                                                                                                 \
    void op(const any_cview& input, const any_view& output, const op##_desc& d = {}, const cpu::options& opt = {}) {        \
        detail::call_into<op##_desc>({&input, 1}, {&output, 1}, d, opt);                                                    \
    }                                                                                                                       \
    template <class = void>                                                                                                 \
    host_tensor op(const any_cview& input, const op##_desc& d = {}, const cpu::options& opt = {}) {                         \
        return detail::call_new<op##_desc>({&input, 1}, d, opt);                                                            \
    }                                                                                                                       \
    template <op##_desc D, typed_view In, typed_view Out>                                                                   \
    void op(const In& input, const Out& output, const cpu::options& opt = {}) {                                             \
        op_traits<op##_desc>::template typed_rules<D, In, Out>();                                                           \
        op(input.erased(), output.erased_mut(), D, opt);                                                                    \
    }

/// (input, indices, output).
#define STRIX_CPU_CALLS_indexed(op)                                                                                         \
    template <class = void>                                                                                                 \
    void op(const any_cview& input, const any_cview& indices, const any_view& output, const op##_desc& d = {},              \
            const cpu::options& opt = {}) {                                                                                 \
        const any_cview in[] = {input, indices};                                                                            \
        detail::call_into<op##_desc>(in, {&output, 1}, d, opt);                                                             \
    }                                                                                                                       \
    template <class = void>                                                                                                 \
    host_tensor op(const any_cview& input, const any_cview& indices, const op##_desc& d = {}, const cpu::options& opt = {}) { \
        const any_cview in[] = {input, indices};                                                                            \
        return detail::call_new<op##_desc>(in, d, opt);                                                                     \
    }                                                                                                                       \
    template <op##_desc D, typed_view In, typed_view Idx, typed_view Out>                                                   \
    void op(const In& input, const Idx& indices, const Out& output, const cpu::options& opt = {}) {                         \
        op_traits<op##_desc>::template typed_rules<D, In, Idx, Out>();                                                      \
        op(input.erased(), indices.erased(), output.erased_mut(), D, opt);                                                  \
    }

/// (input, indices, updates, output), in place when `output` is `input`.
#define STRIX_CPU_CALLS_update(op)                                                                                          \
    template <class = void>                                                                                                 \
    void op(const any_cview& input, const any_cview& indices, const any_cview& updates, const any_view& output,             \
            const op##_desc& d = {}, const cpu::options& opt = {}) {                                                        \
        const any_cview in[] = {input, indices, updates};                                                                   \
        detail::call_into<op##_desc>(in, {&output, 1}, d, opt);                                                             \
    }                                                                                                                       \
    template <class = void>                                                                                                 \
    host_tensor op(const any_cview& input, const any_cview& indices, const any_cview& updates, const op##_desc& d = {},     \
                   const cpu::options& opt = {}) {                                                                          \
        const any_cview in[] = {input, indices, updates};                                                                   \
        return detail::call_new<op##_desc>(in, d, opt);                                                                     \
    }                                                                                                                       \
    template <op##_desc D, typed_view In, typed_view Idx, typed_view Upd, typed_view Out>                                   \
    void op(const In& input, const Idx& indices, const Upd& updates, const Out& output, const cpu::options& opt = {}) {     \
        op_traits<op##_desc>::template typed_rules<D, In, Idx, Upd, Out>();                                                 \
        op(input.erased(), indices.erased(), updates.erased(), output.erased_mut(), D, opt);                                \
    }

/// (inputs..., output); the typed call takes the output first: `op<D>(output, a, b, ...)`.
#define STRIX_CPU_CALLS_joining(op)                                                                                         \
    template <class = void>                                                                                                 \
    void op(std::span<const any_cview> inputs, const any_view& output, const op##_desc& d = {}, const cpu::options& opt = {}) { \
        detail::call_into<op##_desc>(inputs, {&output, 1}, d, opt);                                                         \
    }                                                                                                                       \
    template <class = void>                                                                                                 \
    host_tensor op(std::span<const any_cview> inputs, const op##_desc& d = {}, const cpu::options& opt = {}) {              \
        return detail::call_new<op##_desc>(inputs, d, opt);                                                                 \
    }                                                                                                                       \
    template <op##_desc D, typed_view Out, typed_view... In>                                                                \
    void op(const Out& output, const In&... inputs) {                                                                       \
        op_traits<op##_desc>::template typed_rules<D, Out, In...>();                                                        \
        if constexpr (sizeof...(In) > 0) {                                                                                  \
            const any_cview views[] = {inputs.erased()...};                                                                 \
            op(views, output.erased_mut(), D);                                                                              \
        }                                                                                                                   \
    }

/// (input, outputs...); the allocating call takes the outputs' sizes on the axis.
#define STRIX_CPU_CALLS_splitting(op)                                                                                       \
    template <class = void>                                                                                                 \
    void op(const any_cview& input, std::span<const any_view> outputs, const op##_desc& d = {}, const cpu::options& opt = {}) { \
        detail::call_into<op##_desc>({&input, 1}, outputs, d, opt);                                                         \
    }                                                                                                                       \
    template <class = void>                                                                                                 \
    std::vector<host_tensor> op(const any_cview& input, std::span<const std::int64_t> sizes, const op##_desc& d = {},       \
                                const cpu::options& opt = {}) {                                                             \
        std::vector<host_tensor> out;                                                                                       \
        for (const auto& s : op_traits<op##_desc>::output_shapes(input, sizes, d)) out.emplace_back(input.type(), s);       \
        std::vector<any_view> views;                                                                                        \
        for (auto& t : out) views.push_back(t.view());                                                                      \
        op_traits<op##_desc>::run({}, {&input, 1}, views, d, opt); /* new outputs of the checked shapes */                  \
        return out;                                                                                                         \
    }                                                                                                                       \
    template <op##_desc D, typed_view In, typed_view... Out>                                                                \
    void op(const In& input, const Out&... outputs) {                                                                       \
        op_traits<op##_desc>::template typed_rules<D, In, Out...>();                                                        \
        if constexpr (sizeof...(Out) > 0) {                                                                                 \
            const any_view views[] = {outputs.erased_mut()...};                                                             \
            op(input.erased(), views, D);                                                                                   \
        }                                                                                                                   \
    }

#define STRIX_CPU_CALLS(op, form) STRIX_CPU_CALLS_##form(op)

} // namespace strix
