#pragma once
/// The strix tool's operators and command line. One table, `operators`, says for each operator
/// everything the tool knows of it: its command, help, operand files, options, how to parse them
/// and how to call it; parsing, the help texts and running it (examples/strix.cpp) all read that
/// table. Parsing reads no file and writes none; every mistake in the arguments throws
/// `strix::error` (`invalid_argument`) with the one-line message the tool prints.

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "strix/strix.hpp"

namespace strix::tool {

/// Throws the `strix::error` of a bad command line.
[[noreturn]] inline void bad(const std::string& message) { throw error(error_code::invalid_argument, message); }

/// Parsed `--key value` options; `many` holds the values of the one option an operator takes
/// more than once (join's --input, split's --output).
struct options {
    std::map<std::string, std::string> single;
    std::vector<std::string> many;

    /// The value of `key`, if it was given.
    [[nodiscard]] std::optional<std::string> get(const std::string& key) const {
        auto it = single.find(key);
        if (it == single.end()) return std::nullopt;
        return it->second;
    }
    /// The value of `key`; throws, naming `op`, when it was not given.
    [[nodiscard]] std::string need(const std::string& op, const std::string& key) const {
        auto v = get(key);
        if (!v) bad("strix " + op + ": missing --" + key + " (see strix " + op + " --help)");
        return *v;
    }
};

/// Splits `args` into options, checking each against `allowed`; `repeats` names the option that
/// may be given more than once ("" for none), and an output file may not be named twice.
inline options parse_options(const std::string& op, const std::vector<std::string>& args, const std::vector<std::string_view>& allowed,
                             std::string_view repeats) {
    options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0) bad("strix " + op + ": unexpected argument '" + a + "'");
        std::string key = a.substr(2), value;
        if (key == "deterministic") { // a flag, without a value
            if (o.single.count(key)) bad("strix " + op + ": option --" + key + " given twice");
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
                bad("strix " + op + ": unknown option --" + key + " (see strix " + op + " --help)");
            o.single[key] = "1";
            continue;
        }
        if (auto eq = key.find('='); eq != std::string::npos) {
            value = key.substr(eq + 1);
            key = key.substr(0, eq);
        } else {
            if (i + 1 >= args.size()) bad("strix " + op + ": option --" + key + " needs a value");
            value = args[++i];
        }
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            bad("strix " + op + ": unknown option --" + key + " (see strix " + op + " --help)");
        if (key == repeats) {
            if (key == "output" && std::find(o.many.begin(), o.many.end(), value) != o.many.end())
                bad("strix " + op + ": --output " + value + " given twice");
            o.many.push_back(value);
        } else {
            if (o.single.count(key)) bad("strix " + op + ": option --" + key + " given twice");
            o.single[key] = value;
        }
    }
    return o;
}

/// A decimal integer (an optional sign, digits, nothing else).
inline std::int64_t parse_int(const std::string& op, const std::string& what, const std::string& s) {
    std::int64_t v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (!s.empty() && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (s.empty() || ec != std::errc() || p != e) bad("strix " + op + ": " + what + " must be an integer, got '" + s + "'");
    return v;
}

/// A count of dimensions, 0 to 8 (--index-dimensions, --batch-dimensions).
inline int parse_rank_count(const std::string& op, const std::string& what, const std::string& s) {
    const auto v = parse_int(op, what, s);
    if (v < 0 || v > strix::max_rank) bad("strix " + op + ": " + what + " must lie in [0, 8], got " + s);
    return static_cast<int>(v);
}

/// A comma-separated list of at most 8 integers ("" is the empty list).
inline strix::shape parse_list(const std::string& op, const std::string& what, const std::string& s) {
    strix::shape r;
    std::size_t at = 0;
    if (s.empty()) return r; // a rank-0 input has no pads
    while (true) {
        const auto comma = s.find(',', at);
        const std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (r.rank == strix::max_rank) bad("strix " + op + ": " + what + " has more than 8 entries");
        r.push_back(parse_int(op, what + " entry", item));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return r;
}

/// A comma-separated list of any length of integers ("" is the empty list).
inline std::vector<std::int64_t> parse_int_list(const std::string& op, const std::string& what, const std::string& s) {
    std::vector<std::int64_t> r;
    for (std::size_t at = 0; !s.empty();) {
        const auto comma = s.find(',', at);
        r.push_back(parse_int(op, what + " entry", s.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return r;
}

/// The --reduction option (none when absent).
inline strix::scatter_reduction parse_reduction(const std::string& op, const options& o) {
    const auto v = o.get("reduction").value_or("none");
    if (v == "none") return strix::scatter_reduction::none;
    if (v == "add") return strix::scatter_reduction::add;
    if (v == "mul") return strix::scatter_reduction::mul;
    if (v == "min") return strix::scatter_reduction::min;
    if (v == "max") return strix::scatter_reduction::max;
    bad("strix " + op + ": --reduction must be none, add, mul, min or max, got '" + v + "'");
}

/// An integer literal is kept exact (int64, or uint64 beyond); anything else is a double, and
/// a finite number beyond a double (1e400) is kept as such, so that the pad refuses it for every
/// element type rather than writing infinity (strix::parse_scalar).
inline strix::scalar parse_value(const std::string& s) {
    try {
        return strix::parse_scalar(s);
    } catch (const strix::error& e) {
        if (std::string_view(e.what()).find("beyond 64-bit integers") != std::string_view::npos)
            bad("strix pad: --value " + s + " is beyond 64-bit integers");
        bad("strix pad: --value must be a number, got '" + s + "'");
    }
}

/// The --out-of-range option (error when absent).
inline strix::index_policy parse_policy(const std::string& op, const options& o) {
    const auto v = o.get("out-of-range").value_or("error");
    if (v == "error") return strix::index_policy::error;
    if (v == "clamp") return strix::index_policy::clamp;
    bad("strix " + op + ": --out-of-range must be error or clamp, got '" + v + "'");
}

/// The --mode option of pad.
inline strix::pad_mode parse_mode(const std::string& mode) {
    if (mode == "constant") return strix::pad_mode::constant;
    if (mode == "edge") return strix::pad_mode::edge;
    if (mode == "reflect") return strix::pad_mode::reflect;
    if (mode == "symmetric") return strix::pad_mode::symmetric;
    if (mode == "wrap") return strix::pad_mode::wrap;
    bad("strix pad: --mode must be constant, edge, reflect, symmetric or wrap, got '" + mode + "'");
}

/// What a command line asks the tool to do.
enum class action {
    usage,    ///< print usage_text()
    op_usage, ///< print the help of `command::op` (op_help_text)
    devices,  ///< list the backends and devices
    demo,     ///< run the specification's examples
    run,      ///< run the operator `command::op`
};

/// A parsed command line. For `action::run`, the descriptor of `op` and the files it reads and
/// writes are filled in; the other descriptors keep their defaults.
struct command {
    action what = action::usage;
    std::string op;      ///< the operator, for `op_usage` and `run`
    std::string backend; ///< "cpu", "vulkan", or "" for the best available
    /// The files the operator reads, in the order it reads them: (operand, path) for its input
    /// (each of join's inputs), then its indices and updates where it takes them.
    std::vector<std::pair<std::string, std::string>> files;
    std::vector<std::string> outputs; ///< the --output files (one per size for split, else one)
    gather_desc gather;
    gather_elements_desc gather_elements;
    gather_nd_desc gather_nd;
    join_desc join;
    split_desc split;
    std::vector<std::int64_t> sizes; ///< split's --sizes
    pad_desc pad;
    slice_desc slice;
    tile_desc tile;
    scatter_desc scatter;
    scatter_nd_desc scatter_nd;
};

/// What an operator makes: one tensor, or one per piece for split.
using results = std::vector<host_tensor>;
inline results as_results(host_tensor t) {
    results r;
    r.push_back(std::move(t));
    return r;
}
inline results as_results(results r) { return r; }

/// An operator's operands, read from its files in order.
using operands = std::span<const any_cview>;

/// One operator of the tool (an entry of `operators`).
template <class Call>
struct op_entry {
    std::string_view name;     ///< its command
    std::string_view synopsis; ///< its arguments, as `strix --help` and `strix NAME --help` give them
    std::string_view about;    ///< the rest of `strix NAME --help`
    /// The files it reads, as the options that name them, in the order it reads them ("" after the last).
    std::array<std::string_view, 3> files;
    std::array<std::string_view, 4> settings; ///< its options other than files and common_options ("" after the last)
    std::string_view repeats;                 ///< the option it takes more than once: "input", "output" or ""
    /// Reads its settings from `o` into `c` (whose `op` is set), checking each; runs after the
    /// options were split and before the files are looked up, so that each mistake keeps its message.
    void (*parse)(const options& o, command& c);
    /// `call(on, c, x)` runs it on the operands `x` with the settings in `c`: `on(f, args...)`
    /// is the backend, which calls `f`, one of the library's allocating calls, with `args` and
    /// its own arguments (see examples/strix.cpp).
    Call call;
};
/// (Aggregates deduce their template arguments without a guide only from clang 17 on.)
template <class Call>
op_entry(std::string_view, std::string_view, std::string_view, std::array<std::string_view, 3>, std::array<std::string_view, 4>, std::string_view,
         void (*)(const options&, command&), Call) -> op_entry<Call>;

/// The options every operator takes.
inline constexpr std::string_view common_options[] = {"backend", "out-of-range", "output"};

// The calls below name the library's allocating calls without a namespace: strix::gather (and the
// like) for the CPU's arguments, strix::vulkan::gather, found through the context's namespace,
// for a device's. The two sets take the same operands and settings.

/// The tool's operators, in the order `strix --help` lists them. A tuple, as each call is a
/// generic lambda of its own type: its body (and the operator's kernels) is compiled only where
/// the tool calls it, not in a program that only parses, such as fuzz/fuzz_tool_args.cpp.
inline constexpr std::tuple operators{
    op_entry{"gather", "--input X.npy --indices I.npy --axis A [--index-dimensions K] --output Y.npy",
        "  Natural form (numpy.take, ONNX Gather): output = X.shape[:A] + I.shape + X.shape[A+1:].\n"
        "  With --index-dimensions K (DirectML form): X, I and the output share one rank r; only the\n"
        "  last K dimensions of I are meaningful (the leading ones are 1).\n"
        "  --axis may be negative; indices are int32, int64, uint32 or uint64; negative indices count\n"
        "  from the end. --out-of-range error|clamp, --backend cpu|vulkan.\n",
        {"input", "indices"}, {"axis", "index-dimensions"}, "",
        [](const options& o, command& c) {
            c.gather.axis = parse_int(c.op, "--axis", o.need(c.op, "axis"));
            if (auto k = o.get("index-dimensions")) c.gather.index_dimensions = parse_rank_count(c.op, "--index-dimensions", *k);
            c.gather.policy = parse_policy(c.op, o);
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return gather(a...); }, x[0], x[1], c.gather); }},
    op_entry{"gather-elements", "--input X.npy --indices I.npy --axis A --output Y.npy",
        "  output[i][j][k] = X[I[i][j][k]][j][k] for axis 0, likewise for any axis (numpy.take_along_axis,\n"
        "  ONNX GatherElements). I has X's rank and is not larger than X off the axis; the output has I's\n"
        "  shape. --out-of-range error|clamp, --backend cpu|vulkan.\n",
        {"input", "indices"}, {"axis"}, "",
        [](const options& o, command& c) {
            c.gather_elements.axis = parse_int(c.op, "--axis", o.need(c.op, "axis"));
            c.gather_elements.policy = parse_policy(c.op, o);
        },
        [](const auto& on, const command& c, operands x) {
            return on([](auto&&... a) { return gather_elements(a...); }, x[0], x[1], c.gather_elements);
        }},
    op_entry{"gather-nd", "--input X.npy --indices I.npy [--batch-dimensions B] --output Y.npy",
        "  ONNX GatherND: the last dimension of I holds tuples of k indices into X's axes B..B+k-1 (after\n"
        "  B batch dimensions shared by X and I, default 0); output shape I.shape[:-1] + X.shape[B+k:].\n"
        "  --out-of-range error|clamp, --backend cpu|vulkan.\n",
        {"input", "indices"}, {"batch-dimensions"}, "",
        [](const options& o, command& c) {
            if (auto b = o.get("batch-dimensions")) c.gather_nd.batch_dimensions = parse_rank_count(c.op, "--batch-dimensions", *b);
            c.gather_nd.policy = parse_policy(c.op, o);
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return gather_nd(a...); }, x[0], x[1], c.gather_nd); }},
    op_entry{"join", "--input A.npy [--input B.npy ...] --axis A --output Y.npy",
        "  Concatenates the inputs along the axis (numpy.concatenate). All inputs have one element type\n"
        "  and one rank, and equal sizes off the axis. --axis may be negative. --backend cpu|vulkan.\n",
        {"input"}, {"axis"}, "input",
        [](const options& o, command& c) {
            c.join.axis = parse_int(c.op, "--axis", o.need(c.op, "axis"));
            (void)o.need(c.op, "output");
            parse_policy(c.op, o);
            if (o.many.empty()) bad("strix join: missing --input (see strix join --help)");
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return join(a...); }, x, c.join); }},
    op_entry{"split", "--input X.npy --axis A --sizes S0,S1,.. --output Y0.npy [--output Y1.npy ...]",
        "  Cuts X along the axis into pieces of the given sizes (ONNX Split; the inverse of join): one\n"
        "  --output per size, in order. Sizes may be 0 and must add up to X's size on the axis. Either\n"
        "  every output is written or none is. --backend cpu|vulkan.\n",
        {"input"}, {"axis", "sizes"}, "output",
        [](const options& o, command& c) {
            c.split.axis = parse_int(c.op, "--axis", o.need(c.op, "axis"));
            c.sizes = parse_int_list(c.op, "--sizes", o.need(c.op, "sizes"));
            parse_policy(c.op, o);
            if (o.many.empty()) bad("strix split: missing --output (see strix split --help)");
            if (o.many.size() != c.sizes.size())
                bad("strix split: " + std::to_string(c.sizes.size()) + " sizes need as many --output files, got " + std::to_string(o.many.size()));
        },
        [](const auto& on, const command& c, operands x) {
            return on([](auto&&... a) { return split(a...); }, x[0], std::span<const std::int64_t>(c.sizes), c.split);
        }},
    op_entry{"pad", "--input X.npy --mode constant|edge|reflect|symmetric|wrap --start P0,P1,.. --end Q0,Q1,.. [--value V] --output Y.npy",
        "  Pads every dimension (numpy.pad): one start and one end count per dimension of X. Pads may be\n"
        "  wider than the input; a negative count crops that side first (ONNX Pad, torch F.pad) and the\n"
        "  positive ones then pad what is left. --value (constant mode, default 0) is a number: an integer\n"
        "  literal is taken exactly, a fractional value truncates toward zero for integer types.\n"
        "  --backend cpu|vulkan.\n",
        {"input"}, {"mode", "start", "end", "value"}, "",
        [](const options& o, command& c) {
            c.pad.mode = parse_mode(o.need(c.op, "mode"));
            c.pad.start = parse_list(c.op, "--start", o.need(c.op, "start"));
            c.pad.end = parse_list(c.op, "--end", o.need(c.op, "end"));
            if (auto v = o.get("value")) c.pad.value = parse_value(*v); // like DirectML, other modes ignore it
            (void)o.need(c.op, "output");
            parse_policy(c.op, o);
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return pad(a...); }, x[0], c.pad); }},
    op_entry{"slice", "--input X.npy --starts S0,S1,.. --ends E0,E1,.. [--axes A0,A1,..] [--steps T0,T1,..] --output Y.npy",
        "  ONNX Slice (numpy's X[s0:e0:t0, ...]): on each of the axes (default 0, 1, ...) the elements\n"
        "  start, start + step, ... short of end. Negative starts and ends count from the end of the axis;\n"
        "  both are clamped into it as ONNX clamps them; steps (default 1) may be negative, not 0; axes\n"
        "  not named are kept whole. --backend cpu|vulkan.\n",
        {"input"}, {"starts", "ends", "axes", "steps"}, "",
        [](const options& o, command& c) {
            c.slice.starts = parse_list(c.op, "--starts", o.need(c.op, "starts"));
            c.slice.ends = parse_list(c.op, "--ends", o.need(c.op, "ends"));
            if (auto a = o.get("axes")) c.slice.axes = parse_list(c.op, "--axes", *a);
            if (auto t = o.get("steps")) c.slice.steps = parse_list(c.op, "--steps", *t);
            (void)o.need(c.op, "output");
            parse_policy(c.op, o);
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return slice(a...); }, x[0], c.slice); }},
    op_entry{"tile", "--input X.npy --repeats R0,R1,.. --output Y.npy",
        "  ONNX Tile (numpy.tile): X repeated R0 times along axis 0, R1 times along axis 1, ... (one\n"
        "  count per dimension of X, none negative; 0 empties the axis). --backend cpu|vulkan.\n",
        {"input"}, {"repeats"}, "",
        [](const options& o, command& c) {
            c.tile.repeats = parse_list(c.op, "--repeats", o.need(c.op, "repeats"));
            (void)o.need(c.op, "output");
            parse_policy(c.op, o);
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return tile(a...); }, x[0], c.tile); }},
    op_entry{"scatter", "--input X.npy --indices I.npy --updates U.npy --axis A [--reduction R] [--deterministic] --output Y.npy",
        "  output = X, then output[..., I[j..], ...] = U[j..] along the axis (numpy.put_along_axis, ONNX\n"
        "  ScatterElements). I and U share a shape not larger than X off the axis. Updates apply in\n"
        "  row-major order: with --reduction none (the default) the last one to reach an element wins;\n"
        "  add, mul, min and max combine them. --deterministic makes Vulkan combine in that same order\n"
        "  (bit-identical to the CPU); without it floating-point add and mul may combine in any order.\n"
        "  --out-of-range error|clamp, --backend cpu|vulkan.\n",
        {"input", "indices", "updates"}, {"axis", "reduction", "deterministic"}, "",
        [](const options& o, command& c) {
            c.scatter.axis = parse_int(c.op, "--axis", o.need(c.op, "axis"));
            c.scatter.policy = parse_policy(c.op, o);
            c.scatter.reduction = parse_reduction(c.op, o);
            c.scatter.deterministic = o.get("deterministic").has_value();
        },
        [](const auto& on, const command& c, operands x) { return on([](auto&&... a) { return scatter(a...); }, x[0], x[1], x[2], c.scatter); }},
    op_entry{"scatter-nd", "--input X.npy --indices I.npy --updates U.npy [--reduction R] [--deterministic] --output Y.npy",
        "  ONNX ScatterND: output = X, then each tuple of k indices in the last dimension of I addresses\n"
        "  the slice output[tuple] that receives the matching slice of U (U's shape is I.shape[:-1] +\n"
        "  X.shape[k:]). Reductions and --deterministic as for scatter. --out-of-range error|clamp,\n"
        "  --backend cpu|vulkan.\n",
        {"input", "indices", "updates"}, {"reduction", "deterministic"}, "",
        [](const options& o, command& c) {
            c.scatter_nd.policy = parse_policy(c.op, o);
            c.scatter_nd.reduction = parse_reduction(c.op, o);
            c.scatter_nd.deterministic = o.get("deterministic").has_value();
        },
        [](const auto& on, const command& c, operands x) {
            return on([](auto&&... a) { return scatter_nd(a...); }, x[0], x[1], x[2], c.scatter_nd);
        }},
};

/// Whether the table has an entry named `name`.
constexpr bool has_entry(std::string_view name) {
    return std::apply([&](const auto&... e) { return ((e.name == name) || ...); }, operators);
}
// the table has one entry per operator of the list (strix/ops/list.hpp), named as op_traits names it
static_assert(std::tuple_size_v<decltype(operators)> == static_cast<std::size_t>(strix::operator_count),
              "the tool's table must have one entry per operator of strix/ops/list.hpp");
static_assert([] {
    bool all = true;
    strix::with_operators([&]<class D>() { all = all && has_entry(strix::op_traits<D>::name); });
    return all;
}(), "an operator of strix/ops/list.hpp has no entry in the tool's table (named as its op_traits<>::name)");

/// Calls `f(entry)` for every entry of `operators`, in order.
template <class F>
void for_each_operator(F&& f) {
    std::apply([&](const auto&... e) { (f(e), ...); }, operators);
}

/// Calls `f(entry)` with the entry of operator `name` in `operators`; false when there is none.
template <class F>
bool with_operator(std::string_view name, F&& f) {
    return std::apply([&](const auto&... e) { return ((e.name == name && (f(e), true)) || ...); }, operators);
}

/// Whether `name` is one of the tool's operators.
inline bool is_operator(std::string_view name) {
    return with_operator(name, [](const auto&) {});
}

/// The text of `strix --help`.
inline std::string usage_text() {
    std::string names, lines;
    for_each_operator([&](const auto& e) { // one piece per append (GCC 12 warns falsely of overlap otherwise)
        if (!names.empty()) names += ", ";
        names += e.name;
        lines += "  strix ";
        lines += e.name;
        lines.append(e.name.size() < 16 ? 16 - e.name.size() : 1, ' '); // the synopses in one column
        lines += e.synopsis;
        lines += '\n';
    });
    return "strix: tensor indexing on .npy files (" + names + ")\n"
           "\n"
           "usage:\n" +
           lines +
           "  strix devices     lists the backends and devices that can run operators\n"
           "  strix demo [--backend cpu|vulkan]\n"
           "                    runs each operator on the examples of the specification, on the CPU and\n"
           "                    compared bit for bit on the best Vulkan device (--backend: one of them)\n"
           "  strix --help, strix OP --help\n"
           "\n"
           "options of every operator:\n"
           "  --backend cpu|vulkan        (default: the best available)\n"
           "  --out-of-range error|clamp  (default: error)\n"
           "\n"
           "  R (scatter reductions) is none|add|mul|min|max (default none)\n"
           "\n"
           "Exit status 0 on success, 2 on bad input; the output files are written only on success.\n";
}

/// The text of `strix OP --help` for operator `name` ("" when there is none).
inline std::string op_help_text(std::string_view name) {
    std::string text;
    with_operator(name, [&](const auto& e) { text = "strix " + std::string(e.name) + " " + std::string(e.synopsis) + "\n" + std::string(e.about); });
    return text;
}

/// Parses the options `args` of operator entry `e`: first their form (each known, given once,
/// with a value), then the operator's settings, then the files, in the order the tool has always
/// checked them, so that each mistake gets its message.
template <class Op>
command parse_operator(const Op& e, const std::vector<std::string>& args) {
    command c;
    c.what = action::run;
    c.op = std::string(e.name);
    const std::string& op = c.op;
    std::vector<std::string_view> allowed;
    for (const auto list : {std::span<const std::string_view>(e.files), std::span<const std::string_view>(e.settings),
                            std::span<const std::string_view>(common_options)})
        for (const auto key : list)
            if (!key.empty()) allowed.push_back(key);
    const options o = parse_options(op, args, allowed, e.repeats);
    e.parse(o, c);
    c.outputs = e.repeats == "output" ? o.many : std::vector<std::string>{o.need(op, "output")};
    c.backend = o.get("backend").value_or("");
    if (c.backend != "" && c.backend != "cpu" && c.backend != "vulkan")
        bad("strix " + op + ": --backend must be cpu or vulkan, got '" + c.backend + "'");
    for (const auto file : e.files) {
        if (file.empty()) break;
        const std::string key(file);
        if (file == e.repeats)
            for (const auto& path : o.many) c.files.emplace_back(key, path);
        else
            c.files.emplace_back(key, o.need(op, key));
    }
    return c;
}

/// Parses the tool's arguments (`argv` without the program name). Reads and writes nothing;
/// throws `strix::error` (`invalid_argument`) with the message to print for a missing or unknown
/// command, an unknown, repeated or missing option, or a value that is not what its option takes.
inline command parse_command(const std::vector<std::string>& args) {
    command c;
    if (args.empty()) bad("strix: missing command (see strix --help)");
    const std::string& cmd = args[0];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return c;
    if (cmd == "devices" || cmd == "demo") {
        c.what = cmd == "devices" ? action::devices : action::demo;
        for (std::size_t i = 1; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "--help" || a == "-h") return command{}; // the usage, which describes both
            if (cmd == "demo" && a == "--backend") {
                if (!c.backend.empty()) bad("strix demo: --backend given twice");
                if (i + 1 == args.size()) bad("strix demo: --backend needs a value: cpu or vulkan");
                c.backend = args[++i];
                if (c.backend != "cpu" && c.backend != "vulkan") bad("strix demo: --backend must be cpu or vulkan, not '" + c.backend + "'");
                continue;
            }
            bad("strix " + cmd + ": unknown argument '" + a + "'" + (cmd == "demo" ? " (it takes --backend cpu|vulkan)" : " (it takes none)"));
        }
        return c;
    }
    if (!is_operator(cmd)) bad("strix: unknown command '" + cmd + "' (see strix --help)");
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            c.what = action::op_usage;
            c.op = cmd;
            return c;
        }
    with_operator(cmd, [&](const auto& e) { c = parse_operator(e, {args.begin() + 1, args.end()}); });
    return c;
}

} // namespace strix::tool

