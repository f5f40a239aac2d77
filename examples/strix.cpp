// The strix command line tool: runs the indexing operators on .npy files.
//
//   strix gather          --input X.npy --indices I.npy --axis A [--index-dimensions K] --output Y.npy
//   strix gather-elements --input X.npy --indices I.npy --axis A --output Y.npy
//   strix gather-nd       --input X.npy --indices I.npy [--batch-dimensions B] --output Y.npy
//   strix join            --input A.npy [--input B.npy ...] --axis A --output Y.npy
//   strix split           --input X.npy --axis A --sizes S0,S1,.. --output Y0.npy [--output Y1.npy ..]
//   strix pad             --input X.npy --mode M --start P0,.. --end Q0,.. [--value V] --output Y.npy
//   strix scatter         --input X.npy --indices I.npy --updates U.npy --axis A [--reduction R] [--deterministic] --output Y.npy
//   strix scatter-nd      --input X.npy --indices I.npy --updates U.npy [--reduction R] [--deterministic] --output Y.npy
//   strix devices | demo | --help | OP --help
//
// Exit status: 0 on success, 2 on any bad input (one line on stderr; the output files are then
// neither created nor changed).

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "strix/io/npy.hpp"
#include "strix/strix.hpp"
#ifdef STRIX_HAVE_VULKAN
#include "strix/vulkan.hpp"
#endif

namespace {

using strix::error;
using strix::error_code;

[[noreturn]] void bad(const std::string& message) { throw error(error_code::invalid_argument, message); }

constexpr const char* usage_text =
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
    "  strix demo        runs each operator on the examples of the specification\n"
    "  strix --help, strix OP --help\n"
    "\n"
    "options of every operator:\n"
    "  --backend cpu|vulkan        (default: the best available)\n"
    "  --out-of-range error|clamp  (default: error)\n"
    "\n"
    "  R (scatter reductions) is none|add|mul|min|max (default none)\n"
    "\n"
    "Exit status 0 on success, 2 on bad input; the output files are written only on success.\n";

const std::map<std::string, std::string> op_help = {
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

    [[nodiscard]] std::optional<std::string> get(const std::string& key) const {
        auto it = single.find(key);
        if (it == single.end()) return std::nullopt;
        return it->second;
    }
    [[nodiscard]] std::string need(const std::string& op, const std::string& key) const {
        auto v = get(key);
        if (!v) bad("strix " + op + ": missing --" + key + " (see strix " + op + " --help)");
        return *v;
    }
};

options parse_options(const std::string& op, const std::vector<std::string>& args, const std::vector<std::string>& allowed) {
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

std::int64_t parse_int(const std::string& op, const std::string& what, const std::string& s) {
    std::int64_t v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (!s.empty() && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (s.empty() || ec != std::errc() || p != e) bad("strix " + op + ": " + what + " must be an integer, got '" + s + "'");
    return v;
}

strix::shape parse_list(const std::string& op, const std::string& what, const std::string& s) {
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
std::vector<std::int64_t> parse_int_list(const std::string& op, const std::string& what, const std::string& s) {
    std::vector<std::int64_t> r;
    for (std::size_t at = 0; !s.empty();) {
        const auto comma = s.find(',', at);
        r.push_back(parse_int(op, what + " entry", s.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return r;
}

strix::scatter_reduction parse_reduction(const std::string& op, const options& o) {
    const auto v = o.get("reduction").value_or("none");
    if (v == "none") return strix::scatter_reduction::none;
    if (v == "add") return strix::scatter_reduction::add;
    if (v == "mul") return strix::scatter_reduction::mul;
    if (v == "min") return strix::scatter_reduction::min;
    if (v == "max") return strix::scatter_reduction::max;
    bad("strix " + op + ": --reduction must be none, add, mul, min or max, got '" + v + "'");
}

/// An integer literal is kept exact (int64, or uint64 beyond); anything else is a double.
strix::scalar parse_value(const std::string& s) {
    const char* b = s.data();
    const char* e = s.data() + s.size();
    bool integer = !s.empty();
    for (std::size_t i = 0; i < s.size(); ++i)
        integer &= (s[i] >= '0' && s[i] <= '9') || (i == 0 && (s[i] == '-' || s[i] == '+') && s.size() > 1);
    if (integer) {
        if (*b == '+') ++b;
        std::int64_t i = 0;
        if (auto [p, ec] = std::from_chars(b, e, i); ec == std::errc() && p == e) return strix::scalar(i);
        std::uint64_t u = 0;
        if (auto [p, ec] = std::from_chars(b, e, u); ec == std::errc() && p == e) return strix::scalar(u);
        bad("strix pad: --value " + s + " is beyond 64-bit integers");
    }
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])))
        bad("strix pad: --value must be a number, got '" + s + "'");
    return strix::scalar(d);
}

strix::index_policy parse_policy(const std::string& op, const options& o) {
    const auto v = o.get("out-of-range").value_or("error");
    if (v == "error") return strix::index_policy::error;
    if (v == "clamp") return strix::index_policy::clamp;
    bad("strix " + op + ": --out-of-range must be error or clamp, got '" + v + "'");
}

strix::cpu::options cpu_options() {
    strix::cpu::options c;
    c.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return c;
}

/// Runs operators on the backend the command line chose: the CPU, or a Vulkan device.
class backend {
public:
    /// `requested`: "cpu", "vulkan", or empty for the best available — Vulkan on a GPU (or on the
    /// device STRIX_VULKAN_DEVICE names), else the CPU.
    backend(const std::string& op, const std::string& requested) {
        if (requested != "" && requested != "cpu" && requested != "vulkan")
            bad("strix " + op + ": --backend must be cpu or vulkan, got '" + requested + "'");
        if (requested == "cpu") return;
#ifdef STRIX_HAVE_VULKAN
        if (requested.empty()) {
            try {
                const auto devices = strix::vulkan::list_devices();
                const auto& best = devices.at(strix::vulkan::choose_device(devices));
                const char* env = std::getenv("STRIX_VULKAN_DEVICE");
                if (best.type == VK_PHYSICAL_DEVICE_TYPE_CPU && !(env && *env)) return; // a CPU device is no faster than the CPU
            } catch (const std::exception&) {
                return; // no loader or no usable device: the CPU it is
            }
        }
        try {
            ctx_ = std::make_unique<strix::vulkan::context>();
        } catch (const error& e) {
            throw error(e.code(), "strix " + op + " --backend vulkan: " + std::string(e.what()));
        }
#else
        if (requested == "vulkan") throw error(error_code::unsupported, "strix " + op + ": this build of strix has no Vulkan backend (use --backend cpu)");
#endif
    }

    strix::host_tensor gather(const strix::any_cview& x, const strix::any_cview& i, const strix::gather_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            strix::host_tensor out(x.type(), strix::gather_rule(x.sizes(), i.sizes(), d).out);
            strix::vulkan::gather(*ctx_, x, i, out.view(), d);
            return out;
        }
#endif
        return strix::gather(x, i, d, cpu_options());
    }
    strix::host_tensor join(std::span<const strix::any_cview> xs, const strix::join_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            std::vector<strix::shape> shapes;
            for (const auto& v : xs) shapes.push_back(v.sizes());
            strix::host_tensor out(xs.empty() ? strix::dtype::float32 : xs[0].type(), strix::join_rule(shapes, d).out);
            strix::vulkan::join(*ctx_, xs, out.view(), d);
            return out;
        }
#endif
        return strix::join(xs, d, cpu_options());
    }
    strix::host_tensor pad(const strix::any_cview& x, const strix::pad_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            strix::host_tensor out(x.type(), strix::pad_rule(x.sizes(), d).out);
            strix::vulkan::pad(*ctx_, x, out.view(), d);
            return out;
        }
#endif
        return strix::pad(x, d, cpu_options());
    }
    strix::host_tensor scatter(const strix::any_cview& x, const strix::any_cview& i, const strix::any_cview& u, const strix::scatter_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            strix::host_tensor out(x.type(), x.sizes());
            strix::vulkan::scatter(*ctx_, x, i, u, out.view(), d);
            return out;
        }
#endif
        return strix::scatter(x, i, u, d, cpu_options());
    }

    strix::host_tensor gather_elements(const strix::any_cview& x, const strix::any_cview& i, const strix::gather_elements_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            strix::host_tensor out(x.type(), i.sizes());
            strix::vulkan::gather_elements(*ctx_, x, i, out.view(), d);
            return out;
        }
#endif
        return strix::gather_elements(x, i, d, cpu_options());
    }
    strix::host_tensor gather_nd(const strix::any_cview& x, const strix::any_cview& i, const strix::gather_nd_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            strix::host_tensor out(x.type(), strix::gather_nd_rule(x.sizes(), i.sizes(), d).out);
            strix::vulkan::gather_nd(*ctx_, x, i, out.view(), d);
            return out;
        }
#endif
        return strix::gather_nd(x, i, d, cpu_options());
    }
    std::vector<strix::host_tensor> split(const strix::any_cview& x, std::span<const std::int64_t> sizes, const strix::split_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            std::vector<strix::host_tensor> outs;
            std::vector<strix::any_view> views;
            for (const auto& s : strix::detail::checked_split_shapes(x.sizes(), x.type(), sizes, d)) outs.emplace_back(x.type(), s);
            for (auto& t : outs) views.push_back(t.view());
            strix::vulkan::split(*ctx_, x, views, d);
            return outs;
        }
#endif
        return strix::split(x, sizes, d, cpu_options());
    }
    strix::host_tensor scatter_nd(const strix::any_cview& x, const strix::any_cview& i, const strix::any_cview& u, const strix::scatter_nd_desc& d) {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_) {
            strix::host_tensor out(x.type(), x.sizes());
            strix::vulkan::scatter_nd(*ctx_, x, i, u, out.view(), d);
            return out;
        }
#endif
        return strix::scatter_nd(x, i, u, d, cpu_options());
    }

    /// Throws when the Vulkan validation layer reported anything (each message went to stderr).
    void check_clean(const std::string& op) const {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_ && ctx_->validation_messages() > 0)
            throw error(error_code::unsupported, "strix " + op + ": the Vulkan validation layer reported " + std::to_string(ctx_->validation_messages()) +
                                                     " message(s); no output written");
#else
        (void)op;
#endif
    }

private:
#ifdef STRIX_HAVE_VULKAN
    std::unique_ptr<strix::vulkan::context> ctx_;
#endif
};

/// Writes every result or none: each goes to a temporary file beside its target first, and the
/// temporaries are renamed only when all were written.
void write_all(const std::vector<std::string>& paths, const std::vector<strix::host_tensor>& results) {
    std::vector<std::string> temps;
    try {
        for (std::size_t k = 0; k < paths.size(); ++k) {
            temps.push_back(paths[k] + ".strix-partial");
            strix::io::write_npy(temps.back(), results[k].view());
        }
    } catch (...) {
        for (const auto& t : temps) std::remove(t.c_str());
        throw;
    }
    for (std::size_t k = 0; k < paths.size(); ++k)
        if (std::rename(temps[k].c_str(), paths[k].c_str()) != 0) {
            for (std::size_t j = k; j < paths.size(); ++j) std::remove(temps[j].c_str());
            throw error(error_code::io, "strix split: cannot rename " + temps[k] + " to " + paths[k]);
        }
}

int run_op(const std::string& op, const std::vector<std::string>& args) {
    namespace io = strix::io;
    const std::vector<std::string> common = {"backend", "out-of-range", "output"};
    auto with = [&](std::vector<std::string> v) {
        v.insert(v.end(), common.begin(), common.end());
        return v;
    };
    strix::host_tensor result;
    std::string output;
    if (op == "gather") {
        const auto o = parse_options(op, args, with({"input", "indices", "axis", "index-dimensions"}));
        strix::gather_desc d;
        d.axis = parse_int(op, "--axis", o.need(op, "axis"));
        if (auto k = o.get("index-dimensions")) {
            const auto kv = parse_int(op, "--index-dimensions", *k);
            if (kv < 0 || kv > strix::max_rank) bad("strix gather: --index-dimensions must lie in [0, 8], got " + *k);
            d.index_dimensions = static_cast<int>(kv);
        }
        d.policy = parse_policy(op, o);
        output = o.need(op, "output");
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        const auto i = io::read_npy(o.need(op, "indices"));
        result = be.gather(x.view(), i.view(), d);
        be.check_clean(op);
    } else if (op == "join") {
        const auto o = parse_options(op, args, with({"input", "axis"}));
        strix::join_desc d;
        d.axis = parse_int(op, "--axis", o.need(op, "axis"));
        output = o.need(op, "output");
        parse_policy(op, o);
        if (o.inputs.empty()) bad("strix join: missing --input (see strix join --help)");
        backend be(op, o.get("backend").value_or(""));
        std::vector<io::npy_array> arrays;
        std::vector<strix::any_cview> views;
        for (const auto& path : o.inputs) arrays.push_back(io::read_npy(path));
        for (const auto& a : arrays) views.push_back(a.view());
        result = be.join(views, d);
        be.check_clean(op);
    } else if (op == "pad") {
        const auto o = parse_options(op, args, with({"input", "mode", "start", "end", "value"}));
        strix::pad_desc d;
        const auto mode = o.need(op, "mode");
        if (mode == "constant") d.mode = strix::pad_mode::constant;
        else if (mode == "edge") d.mode = strix::pad_mode::edge;
        else if (mode == "reflect") d.mode = strix::pad_mode::reflect;
        else if (mode == "symmetric") d.mode = strix::pad_mode::symmetric;
        else if (mode == "wrap") d.mode = strix::pad_mode::wrap;
        else bad("strix pad: --mode must be constant, edge, reflect, symmetric or wrap, got '" + mode + "'");
        d.start = parse_list(op, "--start", o.need(op, "start"));
        d.end = parse_list(op, "--end", o.need(op, "end"));
        if (auto v = o.get("value")) d.value = parse_value(*v); // like DirectML, other modes ignore it
        output = o.need(op, "output");
        parse_policy(op, o);
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        result = be.pad(x.view(), d);
        be.check_clean(op);
    } else if (op == "scatter") {
        const auto o = parse_options(op, args, with({"input", "indices", "updates", "axis", "reduction", "deterministic"}));
        strix::scatter_desc d;
        d.axis = parse_int(op, "--axis", o.need(op, "axis"));
        d.policy = parse_policy(op, o);
        d.reduction = parse_reduction(op, o);
        d.deterministic = o.get("deterministic").has_value();
        output = o.need(op, "output");
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        const auto i = io::read_npy(o.need(op, "indices"));
        const auto u = io::read_npy(o.need(op, "updates"));
        result = be.scatter(x.view(), i.view(), u.view(), d);
        be.check_clean(op);
    } else if (op == "gather-elements") {
        const auto o = parse_options(op, args, with({"input", "indices", "axis"}));
        strix::gather_elements_desc d;
        d.axis = parse_int(op, "--axis", o.need(op, "axis"));
        d.policy = parse_policy(op, o);
        output = o.need(op, "output");
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        const auto i = io::read_npy(o.need(op, "indices"));
        result = be.gather_elements(x.view(), i.view(), d);
        be.check_clean(op);
    } else if (op == "gather-nd") {
        const auto o = parse_options(op, args, with({"input", "indices", "batch-dimensions"}));
        strix::gather_nd_desc d;
        if (auto b = o.get("batch-dimensions")) {
            const auto bv = parse_int(op, "--batch-dimensions", *b);
            if (bv < 0 || bv > strix::max_rank) bad("strix gather-nd: --batch-dimensions must lie in [0, 8], got " + *b);
            d.batch_dimensions = static_cast<int>(bv);
        }
        d.policy = parse_policy(op, o);
        output = o.need(op, "output");
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        const auto i = io::read_npy(o.need(op, "indices"));
        result = be.gather_nd(x.view(), i.view(), d);
        be.check_clean(op);
    } else if (op == "scatter-nd") {
        const auto o = parse_options(op, args, with({"input", "indices", "updates", "reduction", "deterministic"}));
        strix::scatter_nd_desc d;
        d.policy = parse_policy(op, o);
        d.reduction = parse_reduction(op, o);
        d.deterministic = o.get("deterministic").has_value();
        output = o.need(op, "output");
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        const auto i = io::read_npy(o.need(op, "indices"));
        const auto u = io::read_npy(o.need(op, "updates"));
        result = be.scatter_nd(x.view(), i.view(), u.view(), d);
        be.check_clean(op);
    } else if (op == "split") {
        const auto o = parse_options(op, args, with({"input", "axis", "sizes"}));
        strix::split_desc d;
        d.axis = parse_int(op, "--axis", o.need(op, "axis"));
        const auto sizes = parse_int_list(op, "--sizes", o.need(op, "sizes"));
        parse_policy(op, o);
        if (o.outputs.empty()) bad("strix split: missing --output (see strix split --help)");
        if (o.outputs.size() != sizes.size())
            bad("strix split: " + std::to_string(sizes.size()) + " sizes need as many --output files, got " + std::to_string(o.outputs.size()));
        backend be(op, o.get("backend").value_or(""));
        const auto x = io::read_npy(o.need(op, "input"));
        const auto parts = be.split(x.view(), sizes, d);
        be.check_clean(op);
        write_all(o.outputs, parts);
        return 0;
    }
    io::write_npy(output, result.view());
    return 0;
}

int devices() {
    std::cout << "backends and devices:\n";
    std::cout << "  cpu      host CPU, " << std::max(1u, std::thread::hardware_concurrency()) << " hardware threads\n";
#ifdef STRIX_HAVE_VULKAN
    try {
        const auto list = strix::vulkan::list_devices();
        std::optional<std::uint32_t> chosen;
        try {
            chosen = strix::vulkan::choose_device(list);
        } catch (const std::exception&) {
        }
        bool vulkan_default = false;
        if (chosen) {
            const char* env = std::getenv("STRIX_VULKAN_DEVICE");
            vulkan_default = list[*chosen].type != VK_PHYSICAL_DEVICE_TYPE_CPU || (env && *env);
        }
        for (const auto& d : list) {
            std::cout << "  vulkan " << d.index << ": " << d.name << " (" << strix::vulkan::type_name(d.type) << ", Vulkan "
                      << VK_API_VERSION_MAJOR(d.api_version) << "." << VK_API_VERSION_MINOR(d.api_version) << ")";
            if (chosen && *chosen == d.index) std::cout << (vulkan_default ? "   [default]" : "   [the vulkan default; the CPU is the overall default]");
            std::cout << "\n      memory " << d.device_local_bytes / (1024 * 1024) << " MiB device-local"
                      << (d.host_visible_device_memory ? " (host-visible)" : "") << ", maxStorageBufferRange " << d.max_storage_buffer_range
                      << ", maxMemoryAllocationSize " << d.max_memory_allocation << "\n      int64 " << (d.int64 ? "yes" : "no")
                      << ", float64 " << (d.float64 ? "yes" : "no") << ", 8-bit storage " << (d.storage8 ? "yes" : "no")
                      << ", 16-bit storage " << (d.storage16 ? "yes" : "no") << ", buffer device address "
                      << (d.buffer_device_address ? "yes" : "no") << "\n      64-bit atomics " << (d.int64_atomics ? "yes" : "no")
                      << ", float32 subnormals kept " << (d.denorm_preserve32 ? "yes" : "no") << "\n";
            if (!d.unusable.empty()) std::cout << "      not usable: " << d.unusable << "\n";
        }
        if (list.empty()) std::cout << "  vulkan   no devices\n";
        if (!vulkan_default) std::cout << "  default: cpu\n";
        std::cout << "choose a Vulkan device with STRIX_VULKAN_DEVICE=<index or part of its name>\n";
    } catch (const std::exception& e) {
        std::cout << "  vulkan   unavailable: " << e.what() << "\n  default: cpu\n";
    }
#else
    std::cout << "  vulkan   not built into this strix\n  default: cpu\n";
#endif
    return 0;
}

}  // namespace

int demo(); // examples/demo.cpp

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.empty()) {
            std::cerr << "strix: missing command (see strix --help)\n";
            return 2;
        }
        const std::string cmd = args[0];
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << usage_text;
            return 0;
        }
        if (cmd == "devices") return devices();
        if (cmd == "demo") return demo();
        if (!op_help.count(cmd)) {
            std::cerr << "strix: unknown command '" << cmd << "' (see strix --help)\n";
            return 2;
        }
        for (const auto& a : args)
            if (a == "--help" || a == "-h") {
                std::cout << op_help.at(cmd);
                return 0;
            }
        return run_op(cmd, {args.begin() + 1, args.end()});
    } catch (const std::exception& e) {
        std::string m = e.what();
        for (auto& c : m)
            if (c == '\n') c = ' ';
        std::cerr << m << "\n";
        return 2;
    }
}
