#pragma once
/// The strix tool's `chain` command: gather, pad, slice and tile steps over one tensor, run as
/// one chain of moves (strix/ops/chain.hpp), and perhaps joined with other tensors.
///
///   strix chain --input X.npy --gather I.npy:axis=1 --pad mode=reflect:start=0,0,3,3:end=0,0,3,3
///               [--join B.npy ...] [--join-axis A] --output Y.npy
///
/// A step is one option whose value holds its settings as NAME=VALUE fields separated by ':'
/// (gather's index file first), named as the options of the operator's own command and read by
/// the same code (strix_args.hpp: parse_settings). The steps run in the order given, so this
/// command keeps its options in order, where parse_options keeps them in a map. Parsing reads no
/// file and writes none; every mistake throws `strix::error` (`invalid_argument`) with the
/// one-line message the tool prints.

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "strix_args.hpp"

namespace strix::tool {

/// The descriptor of one step of the command; its kind is the descriptor's operator.
using chain_step_desc = std::variant<gather_desc, pad_desc, slice_desc, tile_desc>;

/// A parsed `strix chain` command line.
struct chain_command {
    /// op "chain", `what` run or op_usage; its files: ("input", X), ("gather", I) for each gather
    /// in step order, then ("join", B) for each --join; its one output, backend, profile and --as
    command base;
    std::vector<chain_step_desc> steps; ///< in the order given
    bool joined = false;                ///< whether --join was given
    join_desc join{};                   ///< --join-axis
};

/// The options of `strix chain`: those given once, and those that may repeat (the steps, in
/// order, and --join).
inline constexpr std::string_view chain_single_options[] = {"input", "join-axis", "output", "backend", "vulkan-profile", "out-of-range", "as"};
inline constexpr std::string_view chain_repeated_options[] = {"gather", "pad", "slice", "tile", "join"};

namespace chain_detail {

/// Whether `key` is one of `list`.
template <std::size_t N>
bool one_of(const std::string_view (&list)[N], std::string_view key) {
    return std::find(std::begin(list), std::end(list), key) != std::end(list);
}

/// Whether `key` names one of operator `Desc`'s settings.
template <class Desc>
bool is_setting(std::string_view key) {
    return std::apply([&](const auto&... s) { return ((s.name == key) || ...); }, op_traits<Desc>::settings);
}

/// The fields of a step of operator `Desc` as the help gives them: "mode=..:start=..[:value=V]".
template <class Desc>
std::string step_fields() {
    std::string r;
    std::apply(
        [&](const auto&... s) {
            const auto one = [&](const auto& st) {
                const std::string field = std::string(st.name) + "=" + std::string(st.placeholder);
                if (st.required) r += (r.empty() ? "" : ":") + field;
                else r += "[:" + field + "]";
            };
            (one(s), ...);
        },
        op_traits<Desc>::settings);
    return r;
}

/// Reads `spec`, the NAME=VALUE fields of a step of operator `Desc` separated by ':', into `d`
/// (whose defaults stand for the fields not given). `what` names the step in messages: "step 2
/// (--pad)".
template <class Desc>
void parse_step(const std::string& what, std::string_view spec, Desc& d) {
    options o;
    for (std::size_t at = 0; !spec.empty();) {
        const auto colon = spec.find(':', at);
        const std::string field(spec.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at));
        const auto eq = field.find('=');
        const std::string key = field.substr(0, eq);
        if (eq == std::string::npos || !is_setting<Desc>(key))
            bad("strix chain: " + what + " takes " + step_fields<Desc>() + ", not '" + field + "' (see strix chain --help)");
        if (o.single.count(key)) bad("strix chain: " + what + " has " + key + "= twice");
        o.single[key] = field.substr(eq + 1);
        if (colon == std::string_view::npos) break;
        at = colon + 1;
    }
    parse_settings(
        "chain", o, d, [&](const std::string& key) { return what + " " + key; },
        [&](const std::string& key) { bad("strix chain: " + what + " lacks " + key + "= (see strix chain --help)"); });
}

/// Splits gather's `spec` into its index file and its fields: the file ends at the first ':'
/// that starts one of gather's settings ("I.npy:axis=1"), so a name may hold other colons.
inline std::pair<std::string_view, std::string_view> split_gather(std::string_view spec) {
    std::size_t cut = std::string_view::npos;
    std::apply(
        [&](const auto&... s) {
            ((cut = std::min(cut, spec.find(":" + std::string(s.name) + "="))), ...);
        },
        op_traits<gather_desc>::settings);
    if (cut == std::string_view::npos) return {spec, {}};
    return {spec.substr(0, cut), spec.substr(cut + 1)};
}

} // namespace chain_detail

/// The text of `strix chain --help`.
inline std::string chain_help_text() {
    return "strix chain --input X.npy STEP ... [--join B.npy ...] [--join-axis A] --output Y.npy\n"
           "  Runs moves over X as one chain (strix::lazy): the steps in the order given, each on the\n"
           "  result of the one before. The result is that of the operators of the same names run one\n"
           "  after another, bit for bit; the chain composes the steps into as few passes as they allow.\n"
           "  A step is one option whose value holds its settings as NAME=VALUE fields separated by ':',\n"
           "  named as the operator's own options (strix OP --help), in any order:\n"
           "    --gather I.npy:" + chain_detail::step_fields<gather_desc>() + "\n"
           "    --pad " + chain_detail::step_fields<pad_desc>() + "\n"
           "    --slice " + chain_detail::step_fields<slice_desc>() + "\n"
           "    --tile " + chain_detail::step_fields<tile_desc>() + "\n"
           "  (gather's index file name ends at the first ':' before one of its settings; negative\n"
           "  pads crop). --join B.npy, which may repeat and follows the steps, joins the chain's result\n"
           "  and the B's, in that order, along --join-axis A (default 0), as strix join does. A rule a\n"
           "  step breaks is reported naming the step: \"strix::pad (chain step 2): ...\".\n"
           "  --out-of-range error|clamp (the default of the gathers that do not say), --backend\n"
           "  cpu|vulkan, --vulkan-profile full|baseline, --as bfloat16|float8_e4m3fn|float8_e5m2\n"
           "  (--input and --join hold the type's bits; the gathers' index files are read as they are).\n";
}

/// Parses the arguments of `strix chain` (after the command's name): its options in the order
/// given, each known; the steps, each checked against its operator's settings; then the options
/// given once. Reads and writes nothing.
inline chain_command parse_chain(const std::vector<std::string>& args) {
    chain_command r;
    command& c = r.base;
    c.op = "chain";
    const std::string& op = c.op;
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            c.what = action::op_usage;
            return r;
        }
    c.what = action::run;
    // the options in the order given, as "--key value" or "--key=value"
    std::vector<std::pair<std::string, std::string>> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0) bad("strix chain: unexpected argument '" + a + "'");
        std::string key = a.substr(2), value;
        const auto eq = key.find('=');
        if (eq != std::string::npos) {
            value = key.substr(eq + 1);
            key.resize(eq);
        }
        if (!chain_detail::one_of(chain_single_options, key) && !chain_detail::one_of(chain_repeated_options, key))
            bad("strix chain: unknown option --" + key + " (see strix chain --help)");
        if (eq == std::string::npos) {
            if (i + 1 >= args.size()) bad("strix chain: option --" + key + " needs a value");
            value = args[++i];
        }
        given.emplace_back(std::move(key), std::move(value));
    }
    options o; // the options given once
    for (const auto& [key, value] : given) {
        if (chain_detail::one_of(chain_repeated_options, key)) continue;
        if (o.single.count(key)) bad("strix chain: option --" + key + " given twice");
        o.single[key] = value;
    }
    const index_policy policy = parse_policy(op, o); // the gathers' default
    c.files.emplace_back("input", o.need(op, "input"));
    std::size_t n = 0;
    for (const auto& [key, value] : given) {
        if (key == "join") {
            r.joined = true;
            c.files.emplace_back("join", value);
            continue;
        }
        if (!chain_detail::one_of(chain_repeated_options, key)) continue;
        if (r.joined) bad("strix chain: --" + key + " after --join: the steps apply to --input before the join, so they come first");
        const std::string what = "step " + std::to_string(++n) + " (--" + key + ")";
        const auto add = [&](auto d, std::string_view fields) {
            chain_detail::parse_step(what, fields, d);
            r.steps.emplace_back(d);
        };
        if (key == "gather") {
            const auto [file, fields] = chain_detail::split_gather(value);
            if (file.empty()) bad("strix chain: " + what + " needs its index file first: --gather I.npy:axis=A");
            gather_desc d;
            d.policy = policy;
            add(d, fields);
            c.files.emplace_back("gather", std::string(file));
        } else if (key == "pad") {
            add(pad_desc{}, value);
        } else if (key == "slice") {
            add(slice_desc{}, value);
        } else {
            add(tile_desc{}, value);
        }
    }
    if (const auto axis = o.get("join-axis")) {
        if (!r.joined) bad("strix chain: --join-axis without --join");
        options j;
        j.single["axis"] = *axis;
        parse_settings(
            op, j, r.join, [](const std::string&) { return std::string("--join-axis"); }, [](const std::string&) {});
    }
    c.outputs = {o.need(op, "output")};
    parse_common(o, c);
    return r;
}

} // namespace strix::tool
