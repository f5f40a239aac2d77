#pragma once
/// The command line of the strix tool: its help texts and a parser from the arguments to a
/// `strix::tool::command`. Parsing reads no file and writes none; every mistake in the
/// arguments throws `strix::error` (`invalid_argument`) with the one-line message the tool prints.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strix/strix.hpp"

namespace strix::tool {

/// Throws the `strix::error` of a bad command line.
[[noreturn]] inline void bad(const std::string& message) { throw error(error_code::invalid_argument, message); }

/// The text of `strix --help`.
inline constexpr const char* usage_text =
    "strix: tensor indexing on .npy files (gather, gather-elements, gather-nd, join, split, pad, scatter, scatter-nd)\n"
    "\n"
    "usage:\n"
    "  strix gather          --input X.npy --indices I.npy --axis A [--index-dimensions K] --output Y.npy\n"
    "  strix gather-elements --input X.npy --indices I.npy --axis A --output Y.npy\n"
    "  strix gather-nd       --input X.npy --indices I.npy [--batch-dimensions B] --output Y.npy\n"
    "  strix join            --input A.npy [--input B.npy ...] --axis A --output Y.npy\n"
    "  strix split           --input X.npy --axis A --sizes S0,S1,.. --output Y0.npy [--output Y1.npy ...]\n"
    "  strix pad             --input X.npy --mode constant|edge|reflect|symmetric|wrap --start P0,P1,.. --end Q0,Q1,.. [--value V] --output Y.npy\n"
    "  strix scatter         --input X.npy --indices I.npy --updates U.npy --axis A [--reduction R] [--deterministic] --output Y.npy\n"
    "  strix scatter-nd      --input X.npy --indices I.npy --updates U.npy [--reduction R] [--deterministic] --output Y.npy\n"
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

/// The text of `strix OP --help` for each operator; its keys are the operators the tool runs.
inline const std::map<std::string, std::string> op_help = {
    {"gather",
     "strix gather --input X.npy --indices I.npy --axis A [--index-dimensions K] --output Y.npy\n"
     "  Natural form (numpy.take, ONNX Gather): output = X.shape[:A] + I.shape + X.shape[A+1:].\n"
     "  With --index-dimensions K (DirectML form): X, I and the output share one rank r; only the\n"
     "  last K dimensions of I are meaningful (the leading ones are 1).\n"
     "  --axis may be negative; indices are int32, int64, uint32 or uint64; negative indices count\n"
     "  from the end. --out-of-range error|clamp, --backend cpu|vulkan.\n"},
    {"join",
     "strix join --input A.npy [--input B.npy ...] --axis A --output Y.npy\n"
     "  Concatenates the inputs along the axis (numpy.concatenate). All inputs have one element type\n"
     "  and one rank, and equal sizes off the axis. --axis may be negative. --backend cpu|vulkan.\n"},
    {"pad",
     "strix pad --input X.npy --mode constant|edge|reflect|symmetric|wrap --start P0,P1,.. --end Q0,Q1,.. [--value V] --output Y.npy\n"
     "  Pads every dimension (numpy.pad): one start and one end count per dimension of X. Pads may be\n"
     "  wider than the input; a negative count crops that side first (ONNX Pad, torch F.pad) and the\n"
     "  positive ones then pad what is left. --value (constant mode, default 0) is a number: an integer\n"
     "  literal is taken exactly, a fractional value truncates toward zero for integer types.\n"
     "  --backend cpu|vulkan.\n"},
    {"scatter",
     "strix scatter --input X.npy --indices I.npy --updates U.npy --axis A [--reduction R] [--deterministic] --output Y.npy\n"
     "  output = X, then output[..., I[j..], ...] = U[j..] along the axis (numpy.put_along_axis, ONNX\n"
     "  ScatterElements). I and U share a shape not larger than X off the axis. Updates apply in\n"
     "  row-major order: with --reduction none (the default) the last one to reach an element wins;\n"
     "  add, mul, min and max combine them. --deterministic makes Vulkan combine in that same order\n"
     "  (bit-identical to the CPU); without it floating-point add and mul may combine in any order.\n"
     "  --out-of-range error|clamp, --backend cpu|vulkan.\n"},
    {"gather-elements",
     "strix gather-elements --input X.npy --indices I.npy --axis A --output Y.npy\n"
     "  output[i][j][k] = X[I[i][j][k]][j][k] for axis 0, likewise for any axis (numpy.take_along_axis,\n"
     "  ONNX GatherElements). I has X's rank and is not larger than X off the axis; the output has I's\n"
     "  shape. --out-of-range error|clamp, --backend cpu|vulkan.\n"},
    {"gather-nd",
     "strix gather-nd --input X.npy --indices I.npy [--batch-dimensions B] --output Y.npy\n"
     "  ONNX GatherND: the last dimension of I holds tuples of k indices into X's axes B..B+k-1 (after\n"
     "  B batch dimensions shared by X and I, default 0); output shape I.shape[:-1] + X.shape[B+k:].\n"
     "  --out-of-range error|clamp, --backend cpu|vulkan.\n"},
    {"split",
     "strix split --input X.npy --axis A --sizes S0,S1,.. --output Y0.npy [--output Y1.npy ...]\n"
     "  Cuts X along the axis into pieces of the given sizes (ONNX Split; the inverse of join): one\n"
     "  --output per size, in order. Sizes may be 0 and must add up to X's size on the axis. Either\n"
     "  every output is written or none is. --backend cpu|vulkan.\n"},
    {"scatter-nd",
     "strix scatter-nd --input X.npy --indices I.npy --updates U.npy [--reduction R] [--deterministic] --output Y.npy\n"
     "  ONNX ScatterND: output = X, then each tuple of k indices in the last dimension of I addresses\n"
     "  the slice output[tuple] that receives the matching slice of U (U's shape is I.shape[:-1] +\n"
     "  X.shape[k:]). Reductions and --deterministic as for scatter. --out-of-range error|clamp,\n"
     "  --backend cpu|vulkan.\n"},
};

/// Parsed `--key value` options; `--input` may repeat for join, `--output` for split.
struct options {
    std::map<std::string, std::string> single;
    std::vector<std::string> inputs, outputs;

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

/// Splits `args` into options, checking each against `allowed`.
inline options parse_options(const std::string& op, const std::vector<std::string>& args, const std::vector<std::string>& allowed) {
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
        bool known = false;
        for (const auto& k : allowed) known |= k == key;
        if (!known) bad("strix " + op + ": unknown option --" + key + " (see strix " + op + " --help)");
        if (key == "input" && op == "join") {
            o.inputs.push_back(value);
        } else if (key == "output" && op == "split") {
            if (std::find(o.outputs.begin(), o.outputs.end(), value) != o.outputs.end()) bad("strix split: --output " + value + " given twice");
            o.outputs.push_back(value);
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

/// What a command line asks the tool to do.
enum class action {
    usage,    ///< print `usage_text`
    op_usage, ///< print the help of `command::op`
    devices,  ///< list the backends and devices
    demo,     ///< run the specification's examples
    run,      ///< run the operator `command::op`
};

/// A parsed command line. For `action::run`, the descriptor of `op` and the file names it
/// takes are filled in; the other descriptors keep their defaults.
struct command {
    action what = action::usage;
    std::string op;                   ///< the operator, for `op_usage` and `run`
    std::string backend;              ///< "cpu", "vulkan", or "" for the best available
    std::vector<std::string> inputs;  ///< the --input files (several for join, else one)
    std::string indices;              ///< the --indices file, for the operators that take one
    std::string updates;              ///< the --updates file, for scatter and scatter-nd
    std::vector<std::string> outputs; ///< the --output files (one per size for split, else one)
    gather_desc gather;
    gather_elements_desc gather_elements;
    gather_nd_desc gather_nd;
    join_desc join;
    split_desc split;
    std::vector<std::int64_t> sizes; ///< split's --sizes
    pad_desc pad;
    scatter_desc scatter;
    scatter_nd_desc scatter_nd;
};

namespace detail {

/// The options of operator `op` (one of `op_help`'s keys), checked in the order the tool has
/// always checked them, so that each mistake gets its message.
inline command parse_operator(const std::string& op, const std::vector<std::string>& args) {
    const std::vector<std::string> common = {"backend", "out-of-range", "output"};
    auto with = [&](std::vector<std::string> v) {
        v.insert(v.end(), common.begin(), common.end());
        return v;
    };
    command c;
    c.what = action::run;
    c.op = op;
    options o;
    if (op == "gather") {
        o = parse_options(op, args, with({"input", "indices", "axis", "index-dimensions"}));
        c.gather.axis = parse_int(op, "--axis", o.need(op, "axis"));
        if (auto k = o.get("index-dimensions")) c.gather.index_dimensions = parse_rank_count(op, "--index-dimensions", *k);
        c.gather.policy = parse_policy(op, o);
    } else if (op == "join") {
        o = parse_options(op, args, with({"input", "axis"}));
        c.join.axis = parse_int(op, "--axis", o.need(op, "axis"));
        (void)o.need(op, "output");
        parse_policy(op, o);
        if (o.inputs.empty()) bad("strix join: missing --input (see strix join --help)");
    } else if (op == "pad") {
        o = parse_options(op, args, with({"input", "mode", "start", "end", "value"}));
        const auto mode = o.need(op, "mode");
        if (mode == "constant") c.pad.mode = strix::pad_mode::constant;
        else if (mode == "edge") c.pad.mode = strix::pad_mode::edge;
        else if (mode == "reflect") c.pad.mode = strix::pad_mode::reflect;
        else if (mode == "symmetric") c.pad.mode = strix::pad_mode::symmetric;
        else if (mode == "wrap") c.pad.mode = strix::pad_mode::wrap;
        else bad("strix pad: --mode must be constant, edge, reflect, symmetric or wrap, got '" + mode + "'");
        c.pad.start = parse_list(op, "--start", o.need(op, "start"));
        c.pad.end = parse_list(op, "--end", o.need(op, "end"));
        if (auto v = o.get("value")) c.pad.value = parse_value(*v); // like DirectML, other modes ignore it
        (void)o.need(op, "output");
        parse_policy(op, o);
    } else if (op == "scatter") {
        o = parse_options(op, args, with({"input", "indices", "updates", "axis", "reduction", "deterministic"}));
        c.scatter.axis = parse_int(op, "--axis", o.need(op, "axis"));
        c.scatter.policy = parse_policy(op, o);
        c.scatter.reduction = parse_reduction(op, o);
        c.scatter.deterministic = o.get("deterministic").has_value();
    } else if (op == "gather-elements") {
        o = parse_options(op, args, with({"input", "indices", "axis"}));
        c.gather_elements.axis = parse_int(op, "--axis", o.need(op, "axis"));
        c.gather_elements.policy = parse_policy(op, o);
    } else if (op == "gather-nd") {
        o = parse_options(op, args, with({"input", "indices", "batch-dimensions"}));
        if (auto b = o.get("batch-dimensions")) c.gather_nd.batch_dimensions = parse_rank_count(op, "--batch-dimensions", *b);
        c.gather_nd.policy = parse_policy(op, o);
    } else if (op == "scatter-nd") {
        o = parse_options(op, args, with({"input", "indices", "updates", "reduction", "deterministic"}));
        c.scatter_nd.policy = parse_policy(op, o);
        c.scatter_nd.reduction = parse_reduction(op, o);
        c.scatter_nd.deterministic = o.get("deterministic").has_value();
    } else if (op == "split") {
        o = parse_options(op, args, with({"input", "axis", "sizes"}));
        c.split.axis = parse_int(op, "--axis", o.need(op, "axis"));
        c.sizes = parse_int_list(op, "--sizes", o.need(op, "sizes"));
        parse_policy(op, o);
        if (o.outputs.empty()) bad("strix split: missing --output (see strix split --help)");
        if (o.outputs.size() != c.sizes.size())
            bad("strix split: " + std::to_string(c.sizes.size()) + " sizes need as many --output files, got " + std::to_string(o.outputs.size()));
    } else {
        bad("strix: unknown command '" + op + "' (see strix --help)");
    }
    c.outputs = op == "split" ? o.outputs : std::vector<std::string>{o.need(op, "output")};
    c.backend = o.get("backend").value_or("");
    if (c.backend != "" && c.backend != "cpu" && c.backend != "vulkan")
        bad("strix " + op + ": --backend must be cpu or vulkan, got '" + c.backend + "'");
    c.inputs = op == "join" ? o.inputs : std::vector<std::string>{o.need(op, "input")};
    if (op != "join" && op != "pad" && op != "split") c.indices = o.need(op, "indices");
    if (op == "scatter" || op == "scatter-nd") c.updates = o.need(op, "updates");
    return c;
}

} // namespace detail

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
    if (!op_help.count(cmd)) bad("strix: unknown command '" + cmd + "' (see strix --help)");
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            c.what = action::op_usage;
            c.op = cmd;
            return c;
        }
    return detail::parse_operator(cmd, {args.begin() + 1, args.end()});
}

} // namespace strix::tool
