#pragma once
/// The strix tool's `chain` command: gather, pad, slice and tile steps over one tensor, run as
/// one chain of moves (strix/ops/chain.hpp), and perhaps joined with other tensors; the
/// index-driven steps (gather-elements, gather-nd, scatter, scatter-nd) too, which split it.
///
///   strix chain --input X.npy --gather I.npy:axis=1 --pad mode=reflect:start=0,0,3,3:end=0,0,3,3
///               [--join B.npy ...] [--join-axis A] --output Y.npy
///
/// A step is one option whose value holds its settings as NAME=VALUE fields separated by ':'
/// (the index file of a gather or index-driven step first; a scatter's updates as updates=U.npy), named as the options of the operator's own command and read by
/// the same code (strix_args.hpp: parse_settings). The steps run in the order given, so this
/// command keeps its options in order, where parse_options keeps them in a map. Parsing reads no
/// file and writes none; every mistake throws `strix::error` (`invalid_argument`) with the
/// one-line message the tool prints.

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "strix_args.hpp"

namespace strix::tool {

/// The descriptor of one step of the command; its kind is the descriptor's operator.
using chain_step_desc = std::variant<gather_desc, pad_desc, slice_desc, tile_desc, gather_elements_desc, gather_nd_desc, scatter_desc, scatter_nd_desc>;

/// A parsed `strix chain` command line.
struct chain_command {
    /// op "chain", `what` run or op_usage; its files: ("input", X), then each step's in step order
    /// (("gather", I), ("gather-elements", I), ..., a scatter's ("scatter", I) and ("updates", U)),
    /// then ("join", B) for each --join; its one output, backend, profile and --as
    command base;
    std::vector<chain_step_desc> steps; ///< in the order given
    bool joined = false;                ///< whether --join was given
    join_desc join{};                   ///< --join-axis
};

/// The options of `strix chain`: those given once, and those that may repeat (the steps, in
/// order, and --join).
inline constexpr std::string_view chain_single_options[] = {"input", "join-axis", "output", "backend", "vulkan-profile", "out-of-range", "as"};
inline constexpr std::string_view chain_repeated_options[] = {"gather", "pad", "slice", "tile", "gather-elements", "gather-nd", "scatter", "scatter-nd", "join"};

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

/// Where in `spec`, from `from`, the first ':' starts one of operator `Desc`'s settings (or
/// "updates=" where `updates`); npos: nowhere.
template <class Desc>
std::size_t next_field(std::string_view spec, bool updates, std::size_t from = 0) {
    std::size_t cut = updates ? spec.find(":updates=", from) : std::string_view::npos;
    std::apply([&](const auto&... s) { ((cut = std::min(cut, spec.find(":" + std::string(s.name) + "=", from))), ...); }, op_traits<Desc>::settings);
    return cut;
}

/// Splits the `spec` of a step of operator `Desc` that reads an index file into that file and
/// its fields: the file ends at the first ':' that starts one of its settings ("I.npy:axis=1"),
/// so a name may hold other colons. With `updates` (a scatter), the field updates=U.npy is
/// taken out of the fields into the third part (its name ends as the index file's does).
template <class Desc>
std::tuple<std::string_view, std::string, std::string_view> split_files(std::string_view spec, bool updates) {
    constexpr auto npos = std::string_view::npos;
    const std::size_t cut = next_field<Desc>(spec, updates);
    if (cut == npos) return {spec, {}, {}};
    const std::string_view file = spec.substr(0, cut), rest = spec.substr(cut); // (rest starts with ':')
    const std::size_t at = updates ? rest.find(":updates=") : npos;
    if (at == npos) return {file, std::string(rest.substr(1)), {}};
    const std::size_t from = at + std::string_view(":updates=").size();
    const std::size_t end = next_field<Desc>(rest, false, from);
    const std::string_view upd = rest.substr(from, end == npos ? npos : end - from);
    // the other fields, before and after it (each part starts with its ':')
    std::string fields = std::string(rest.substr(0, at)) + std::string(end == npos ? std::string_view() : rest.substr(end));
    if (!fields.empty()) fields.erase(0, 1);
    return {file, fields, upd};
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
           "  and the index-driven steps, which split the chain (each runs as its own operator):\n"
           "    --gather-elements I.npy:" + chain_detail::step_fields<gather_elements_desc>() + "\n"
           "    --gather-nd I.npy" + chain_detail::step_fields<gather_nd_desc>() + "\n"
           "    --scatter I.npy:updates=U.npy:" + chain_detail::step_fields<scatter_desc>() + "\n"
           "    --scatter-nd I.npy:updates=U.npy" + chain_detail::step_fields<scatter_nd_desc>() + "\n"
           "  (an index or updates file name ends at the first ':' before one of its step's settings;\n"
           "  negative pads crop). --join B.npy, which may repeat and follows the steps, joins the chain's result\n"
           "  and the B's, in that order, along --join-axis A (default 0), as strix join does. A rule a\n"
           "  step breaks is reported naming the step: \"strix::pad (chain step 2): ...\".\n"
           "  --out-of-range error|clamp (the default of the steps with indices that do not say), --backend\n"
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
    for (const auto& option : given) {
        const std::string &key = option.first, &value = option.second; // (named, for the lambdas below)
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
        // a step that reads an index file (and a scatter's updates), the --out-of-range default
        // its policy where it sets none
        const auto indexed = [&]<class Desc>(Desc d, bool updates) {
            const auto [file, fields, upd] = chain_detail::split_files<Desc>(value, updates);
            if (file.empty()) bad("strix chain: " + what + " needs its index file first: --" + key + " I.npy" + (updates ? ":updates=U.npy" : "") + ":...");
            if (updates && upd.empty()) bad("strix chain: " + what + " needs its updates file: --" + key + " I.npy:updates=U.npy:...");
            d.policy = policy;
            add(d, fields);
            c.files.emplace_back(key, std::string(file));
            if (updates) c.files.emplace_back("updates", std::string(upd));
        };
        if (key == "gather") {
            indexed(gather_desc{}, false);
        } else if (key == "gather-elements") {
            indexed(gather_elements_desc{}, false);
        } else if (key == "gather-nd") {
            indexed(gather_nd_desc{}, false);
        } else if (key == "scatter") {
            indexed(scatter_desc{}, true);
        } else if (key == "scatter-nd") {
            indexed(scatter_nd_desc{}, true);
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
