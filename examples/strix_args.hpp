#pragma once
/// The strix tool's operators and command line. The table `operators` has one entry per line of
/// the operator list (strix/ops/list.hpp), made from the operator's op_traits: its command is the
/// operator's name, its options the descriptor's settings (read by their types), its help the
/// operator's `about`, its files follow from its form. Parsing, the help texts and running it
/// (examples/strix.cpp) all read that table, so an operator added to the list is in the tool.
/// Parsing reads no file and writes none; every mistake in the arguments throws `strix::error`
/// (`invalid_argument`) with the one-line message the tool prints.

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
        if (key == "deterministic" || key == "unique-indices") { // a flag, without a value
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
/// element type rather than writing infinity (strix::parse_scalar). `op`, `what`: how messages
/// name the command and the setting.
inline strix::scalar parse_value(const std::string& s, const std::string& op = "pad", const std::string& what = "--value") {
    try {
        return strix::parse_scalar(s);
    } catch (const strix::error& e) {
        if (std::string_view(e.what()).find("beyond 64-bit integers") != std::string_view::npos)
            bad("strix " + op + ": " + what + " " + s + " is beyond 64-bit integers");
        bad("strix " + op + ": " + what + " must be a number, got '" + s + "'");
    }
}

/// The --out-of-range option (error when absent); `what`: how messages name it.
inline strix::index_policy parse_policy(const std::string& op, const options& o, const std::string& what = "--out-of-range") {
    const auto v = o.get("out-of-range").value_or("error");
    if (v == "error") return strix::index_policy::error;
    if (v == "clamp") return strix::index_policy::clamp;
    bad("strix " + op + ": " + what + " must be error or clamp, got '" + v + "'");
}

/// The --mode option of pad; `op`, `what`: how messages name the command and the setting.
inline strix::pad_mode parse_mode(const std::string& mode, const std::string& op = "pad", const std::string& what = "--mode") {
    if (mode == "constant") return strix::pad_mode::constant;
    if (mode == "edge") return strix::pad_mode::edge;
    if (mode == "reflect") return strix::pad_mode::reflect;
    if (mode == "symmetric") return strix::pad_mode::symmetric;
    if (mode == "wrap") return strix::pad_mode::wrap;
    bad("strix " + op + ": " + what + " must be constant, edge, reflect, symmetric or wrap, got '" + mode + "'");
}

/// The element types --as names: those NumPy has no type of its own for. A program that has them
/// (ml_dtypes' arrays) writes their bits as unsigned integers of their size (`.view(np.uint16)`,
/// `.view(np.uint8)`), which --as reads back as the type.
inline constexpr dtype as_types[] = {dtype::bfloat16, dtype::float8_e4m3fn, dtype::float8_e5m2};

/// The unsigned integer type whose files --as `t` reads as `t`: uint16 for bfloat16, uint8 for
/// the float8 types.
constexpr dtype bits_type(dtype t) { return size_of(t) == 2 ? dtype::uint16 : dtype::uint8; }

/// The --as option: one of as_types, by its name.
inline dtype parse_as(const std::string& op, const std::string& v) {
    for (const dtype t : as_types)
        if (name(t) == v) return t;
    bad("strix " + op + ": --as must be bfloat16, float8_e4m3fn or float8_e5m2, got '" + v + "'");
}

/// Whether the operand `option` ("input", "indices", "updates"; the chain's "join" and "gather")
/// holds elements, which --as reinterprets; index files are read as they are.
constexpr bool holds_elements(std::string_view option) {
    return option != "indices" && option != "gather" && option != "gather-elements" && option != "gather-nd" && option != "scatter" &&
           option != "scatter-nd";
}

/// What a command line asks the tool to do.
enum class action {
    usage,    ///< print usage_text()
    op_usage, ///< print the help of `command::op` (op_help_text)
    devices,  ///< list the backends and devices
    demo,     ///< run the specification's examples
    run,      ///< run the operator `command::op`
};

/// Every operator's descriptor, in the order of the list (strix/ops/list.hpp), as one tuple type.
#define STRIX_TOOL_DESC(op, form) std::tuple<op##_desc>{},
using descriptor_tuple = decltype(std::tuple_cat(STRIX_OPERATORS(STRIX_TOOL_DESC) std::tuple<>{}));
#undef STRIX_TOOL_DESC

/// A parsed command line. For `action::run`, the descriptor of `op` and the files it reads and
/// writes are filled in; the other descriptors keep their defaults.
struct command {
    action what = action::usage;
    std::string op;      ///< the operator, for `op_usage` and `run`
    std::string backend; ///< "cpu", "vulkan", or "" for the best available
    std::string profile; ///< the Vulkan profile: "full", "baseline", or "" for STRIX_VULKAN_PROFILE's (full)
    /// --as: the type the element files (not the indices) hold the bits of, one of as_types
    std::optional<dtype> as;
    /// The files the operator reads, in the order it reads them: (operand, path) for its input
    /// (each of join's inputs), then its indices and updates where it takes them.
    std::vector<std::pair<std::string, std::string>> files;
    std::vector<std::string> outputs; ///< the --output files (one per size for split, else one)
    descriptor_tuple descs{};         ///< every operator's descriptor (one of them filled in)
    std::vector<std::int64_t> sizes;  ///< split's --sizes

    /// The descriptor of operator `Desc`.
    template <class Desc>
    [[nodiscard]] Desc& desc() { return std::get<Desc>(descs); }
    template <class Desc>
    [[nodiscard]] const Desc& desc() const { return std::get<Desc>(descs); }
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

/// The element type the tool takes operand `option`'s file `path`, of element type `file_type`,
/// as: under --as, an element file (not the indices) of the type's bits (bits_type: <u2 for
/// bfloat16, |u1 for the float8 types) is taken as the --as type, as is one of that type
/// already; anything else is `file_type`. Throws, naming the file, its type and the option, for
/// an element file under --as of any other type.
inline dtype operand_type(const command& c, std::string_view option, const std::string& path, dtype file_type) {
    if (!c.as || !holds_elements(option)) return file_type;
    const dtype t = *c.as, bits = bits_type(t);
    if (file_type == bits || file_type == t) return t;
    bad("strix " + c.op + ": --" + std::string(option) + " " + path + " holds " + std::string(name(file_type)) + " (" +
        std::string(info_of(file_type).npy) + "), but --as " + std::string(name(t)) + " reads " + std::to_string(size_of(t)) +
        "-byte unsigned integers (" + std::string(info_of(bits).npy) + ") as " + std::string(name(t)));
}

/// The options every operator takes.
inline constexpr std::string_view common_options[] = {"backend", "vulkan-profile", "out-of-range", "output", "as"};

/// The options that name the files an operator reads, in the order it reads them (as many as its form takes).
inline constexpr std::string_view operand_files[] = {"input", "indices", "updates"};

/// A setting's value, read by its type (the descriptors' members: axes, counts of dimensions,
/// lists, modes, fill values, reductions, policies, flags); `what`: how messages name it.
template <class T>
T parse_setting(const std::string& op, const std::string& key, const options& o, const std::string& what) {
    if constexpr (std::is_same_v<T, bool>) {
        return o.get(key).has_value();
    } else {
        const std::string v = o.get(key).value_or("");
        if constexpr (std::is_same_v<T, std::int64_t>) return parse_int(op, what, v);
        else if constexpr (std::is_same_v<T, int>) return parse_rank_count(op, what, v);
        else if constexpr (std::is_same_v<T, strix::shape>) return parse_list(op, what, v);
        else if constexpr (std::is_same_v<T, strix::pad_mode>) return parse_mode(v, op, what);
        else if constexpr (std::is_same_v<T, strix::scalar>) return parse_value(v, op, what);
        else if constexpr (std::is_same_v<T, strix::scatter_reduction>) return parse_reduction(op, o);
        else if constexpr (std::is_same_v<T, strix::index_policy>) return parse_policy(op, o, what);
        else static_assert(sizeof(T) == 0, "the tool cannot read a setting of this type");
    }
}

/// Reads the settings of operator `Desc` (its op_traits' `settings`, in their order) from `o`
/// into `d`, each by its type: an operator's options, and the fields of a step of `strix chain`
/// (strix_chain.hpp). `name(key)` is how messages name setting `key` ("--axis"); `missing(key)`
/// throws for a required setting that `o` lacks.
template <class Desc, class Name, class Missing>
void parse_settings(const std::string& op, const options& o, Desc& d, Name&& name, Missing&& missing) {
    std::apply(
        [&](const auto&... s) {
            const auto one = [&](const auto& st) {
                using T = typename std::remove_cvref_t<decltype(st)>::type;
                const std::string key(st.name);
                if (st.required && !o.get(key)) missing(key);
                if (st.required || o.get(key) || std::is_same_v<T, bool>) d.*st.member = parse_setting<T>(op, key, o, name(key));
            };
            (one(s), ...);
        },
        strix::op_traits<Desc>::settings);
}

/// Reads the options every command that runs takes (common_options less the policy and the
/// output, which the command reads itself): --backend, --vulkan-profile and --as, checked.
inline void parse_common(const options& o, command& c) {
    const std::string& op = c.op;
    c.backend = o.get("backend").value_or("");
    if (c.backend != "" && c.backend != "cpu" && c.backend != "vulkan")
        bad("strix " + op + ": --backend must be cpu or vulkan, got '" + c.backend + "'");
    c.profile = o.get("vulkan-profile").value_or("");
    if (c.profile != "" && c.profile != "full" && c.profile != "baseline")
        bad("strix " + op + ": --vulkan-profile must be full or baseline, got '" + c.profile + "'");
    if (const auto as = o.get("as")) c.as = parse_as(op, *as);
}

/// One operator of the tool, made from its op_traits (strix/ops/traits.hpp): its command is the
/// operator's name, its options the descriptor's settings, its help the operator's `about`, its
/// files and repeated option follow from its form. `Call` is the operator's allocating call,
/// named without a namespace: strix::gather (and the like) for the CPU's arguments,
/// strix::vulkan::gather, found through the context's namespace, for a device's.
template <class Desc, class Call>
struct op_entry {
    using traits = strix::op_traits<Desc>;
    static constexpr std::string_view name = traits::name;
    static constexpr op_form form = traits::form;
    /// The files it reads, as the options that name them, in the order it reads them.
    static constexpr std::span<const std::string_view> files() {
        return {operand_files, form == op_form::update ? 3u : form == op_form::indexed ? 2u : 1u};
    }
    /// The option it takes more than once: "input" (join), "output" (split) or "".
    static constexpr std::string_view repeats = form == op_form::joining ? "input" : form == op_form::splitting ? "output" : "";
    /// Whether setting `S` is the index policy, which is --out-of-range, one of common_options.
    template <class S>
    static constexpr bool is_policy = std::is_same_v<typename std::remove_cvref_t<S>::type, index_policy>;
    static constexpr bool has_policy = std::apply([](const auto&... s) { return (is_policy<decltype(s)> || ...); }, traits::settings);
    Call call;

    /// Its options other than its files and common_options.
    static std::vector<std::string_view> settings() {
        std::vector<std::string_view> r;
        std::apply([&](const auto&... s) { ((is_policy<decltype(s)> ? void() : r.push_back(s.name)), ...); }, traits::settings);
        if (form == op_form::splitting) r.push_back("sizes");
        return r;
    }

    /// Its arguments, as `strix --help` and `strix NAME --help` give them.
    static std::string synopsis() {
        std::string r;
        const auto add = [&](std::string_view piece) {
            if (!r.empty()) r += ' ';
            r += piece;
        };
        if (form == op_form::joining) add("--input A.npy [--input B.npy ...]");
        else {
            static constexpr std::string_view placeholders[] = {"X", "I", "U"};
            for (std::size_t i = 0; i < files().size(); ++i) add("--" + std::string(files()[i]) + " " + std::string(placeholders[i]) + ".npy");
        }
        std::apply(
            [&](const auto&... s) {
                const auto one = [&](const auto& st) {
                    if (is_policy<decltype(st)>) return; // one of common_options
                    std::string o = "--" + std::string(st.name);
                    if (!st.placeholder.empty()) o += " " + std::string(st.placeholder);
                    add(st.required ? o : "[" + o + "]");
                };
                (one(s), ...);
            },
            traits::settings);
        if (form == op_form::splitting) add("--sizes S0,S1,.. --output Y0.npy [--output Y1.npy ...]");
        else add("--output Y.npy");
        return r;
    }

    /// The rest of `strix NAME --help`: the operator's `about`, indented, and the common options.
    static std::string about() {
        std::string r;
        for (std::size_t at = 0; at < traits::about.size();) {
            const auto nl = traits::about.find('\n', at);
            const auto end = nl == std::string_view::npos ? traits::about.size() : nl;
            r += "  ";
            r += traits::about.substr(at, end - at);
            r += '\n';
            at = end + 1;
        }
        r += has_policy ? "  --out-of-range error|clamp, --backend cpu|vulkan, --vulkan-profile full|baseline,\n"
                        : "  --backend cpu|vulkan, --vulkan-profile full|baseline,\n";
        r += form == op_form::update ? "  --as bfloat16|float8_e4m3fn|float8_e5m2 (--input and --updates hold the type's bits).\n"
                                     : "  --as bfloat16|float8_e4m3fn|float8_e5m2 (--input holds the type's bits).\n";
        return r;
    }

    /// Reads its settings from `o` into `c` (whose `op` is set), checking each; runs after the
    /// options were split and before the files are looked up, so that each mistake keeps its message.
    static void parse(const options& o, command& c) {
        parse_settings(
            c.op, o, c.desc<Desc>(), [](const std::string& key) { return "--" + key; },
            [&](const std::string& key) { (void)o.need(c.op, key); });
        if (form == op_form::splitting) c.sizes = parse_int_list(c.op, "--sizes", o.need(c.op, "sizes"));
        if (form != op_form::splitting) (void)o.need(c.op, "output");
        if (!has_policy) parse_policy(c.op, o); // taken by every operator, checked by every one
        if (!repeats.empty() && o.many.empty()) bad("strix " + c.op + ": missing --" + std::string(repeats) + " (see strix " + c.op + " --help)");
        if (form == op_form::splitting && o.many.size() != c.sizes.size())
            bad("strix " + c.op + ": " + std::to_string(c.sizes.size()) + " sizes need as many --output files, got " + std::to_string(o.many.size()));
    }

    /// Runs it on the operands `x` with the settings in `c`: `on(f, args...)` is the backend,
    /// which calls `f` (this entry's `call`) with `args` and its own arguments (examples/strix.cpp).
    template <class On>
    results run(const On& on, const command& c, operands x) const {
        const Desc& d = c.desc<Desc>();
        if constexpr (form == op_form::unary) return on(call, x[0], d);
        else if constexpr (form == op_form::indexed) return on(call, x[0], x[1], d);
        else if constexpr (form == op_form::update) return on(call, x[0], x[1], x[2], d);
        else if constexpr (form == op_form::joining) return on(call, x, d);
        else return on(call, x[0], std::span<const std::int64_t>(c.sizes), d);
    }
};

/// The tool's operators, one per line of the list (strix/ops/list.hpp), in its order, which
/// `strix --help` keeps. A tuple, as each call is a generic lambda of its own type: its body
/// (and the operator's kernels) is compiled only where the tool calls it, not in a program that
/// only parses, such as fuzz/fuzz_tool_args.cpp.
template <class Desc, class Call>
constexpr op_entry<Desc, Call> entry(Call call) {
    return {call};
}
#define STRIX_TOOL_ENTRY(op, form) entry<op##_desc>([](auto&&... a) { return op(a...); }),
inline constexpr std::tuple operators{STRIX_OPERATORS(STRIX_TOOL_ENTRY)};
#undef STRIX_TOOL_ENTRY

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
        lines += e.synopsis();
        lines += '\n';
    });
    return "strix: tensor indexing on .npy files (" + names + ")\n"
           "\n"
           "usage:\n" +
           lines +
           "  strix chain           --input X.npy STEP ... [--join B.npy ...] [--join-axis A] --output Y.npy\n"
           "                    runs the steps in the order given as one chain of moves; a STEP is\n"
           "                    --gather I.npy:axis=A[:..], --pad mode=M:start=..:end=..[:..],\n"
           "                    --slice starts=..:ends=..[:..], --tile repeats=.., or an index-driven\n"
           "                    --gather-elements, --gather-nd, --scatter, --scatter-nd (strix chain --help)\n"
           "  strix devices     lists the backends and devices that can run operators\n"
           "  strix demo [--backend cpu|vulkan] [--vulkan-profile full|baseline]\n"
           "                    runs each operator on the examples of the specification, on the CPU and\n"
           "                    compared bit for bit on the best Vulkan device (--backend: one of them)\n"
           "  strix --help, strix OP --help\n"
           "\n"
           "options of every operator:\n"
           "  --backend cpu|vulkan        (default: the best available)\n"
           "  --vulkan-profile full|baseline\n"
           "                              which Vulkan features to use: full, whatever the device has\n"
           "                              (default); baseline, Vulkan 1.1 core compute only\n"
           "  --out-of-range error|clamp  (default: error)\n"
           "  --as bfloat16|float8_e4m3fn|float8_e5m2\n"
           "                              the element files (--input, --updates; not --indices) hold\n"
           "                              the type's bits, as NumPy stores them without ml_dtypes:\n"
           "                              2-byte unsigned (<u2) for bfloat16, 1-byte unsigned (|u1)\n"
           "                              for the float8 types (a file of the type itself is taken\n"
           "                              too); the outputs are written as the type (.npy descr <V2,\n"
           "                              <V1, <f1, as np.save writes ml_dtypes' arrays), and pad's\n"
           "                              --value is rounded into it. bool needs no --as (|b1)\n"
           "\n"
           "  R (scatter reductions) is none|add|mul|min|max (default none)\n"
           "\n"
           "Exit status 0 on success, 2 on bad input; the output files are written only on success.\n";
}

/// The text of `strix OP --help` for operator `name` ("" when there is none).
inline std::string op_help_text(std::string_view name) {
    std::string text;
    with_operator(name, [&](const auto& e) { text = "strix " + std::string(e.name) + " " + e.synopsis() + "\n" + e.about(); });
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
    const auto settings = e.settings();
    for (const auto list : {e.files(), std::span<const std::string_view>(settings), std::span<const std::string_view>(common_options)})
        for (const auto key : list) allowed.push_back(key);
    const options o = parse_options(op, args, allowed, e.repeats);
    e.parse(o, c);
    c.outputs = e.repeats == "output" ? o.many : std::vector<std::string>{o.need(op, "output")};
    parse_common(o, c);
    for (const auto file : e.files()) {
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
            // demo's options, each once, with one of two values
            const auto take = [&](std::string& field, const char* first, const char* second) {
                const std::string option(a);
                if (!field.empty()) bad("strix demo: " + option + " given twice");
                if (i + 1 == args.size()) bad("strix demo: " + option + " needs a value: " + first + " or " + second);
                field = args[++i];
                if (field != first && field != second) bad("strix demo: " + option + " must be " + first + " or " + second + ", not '" + field + "'");
            };
            if (cmd == "demo" && a == "--backend") {
                take(c.backend, "cpu", "vulkan");
                continue;
            }
            if (cmd == "demo" && a == "--vulkan-profile") {
                take(c.profile, "full", "baseline");
                continue;
            }
            bad("strix " + cmd + ": unknown argument '" + a + "'" +
                (cmd == "demo" ? " (it takes --backend cpu|vulkan and --vulkan-profile full|baseline)" : " (it takes none)"));
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

