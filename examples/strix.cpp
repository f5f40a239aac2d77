// The strix command line tool: runs the indexing operators on .npy files.
//
//   strix OP --input X.npy ... --output Y.npy    runs operator OP (strix --help lists them)
//   strix OP ... --as bfloat16                    the element files hold bfloat16's bits as <u2
//   strix chain --input X.npy STEP ... --output Y.npy    runs steps as one chain of moves
//   strix devices | demo | --help | OP --help | chain --help
//
// The operators, their options and help are the table in strix_args.hpp, the chain command's
// parsing strix_chain.hpp; this file reads the operands, runs the entry's call (or the chain) on
// the CPU or a Vulkan device, and writes the results.
//
// Exit status: 0 on success, 2 on any bad input (one line on stderr, which names the operator
// when there is one; the output files are then neither created nor changed).

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "strix/io/npy.hpp"
#include "strix/strix.hpp"
#include "strix_args.hpp"
#include "strix_chain.hpp"

// Everything that differs between a build with the Vulkan backend and one without.
#ifdef STRIX_HAVE_VULKAN
#include "strix/vulkan.hpp"

namespace {

constexpr bool have_vulkan = true;
using device = strix::vulkan::context;

/// The device `op` runs on: for `requested` "vulkan", the best device (or the one
/// STRIX_VULKAN_DEVICE names); for "" the same unless it is a CPU device, which is no faster than
/// the CPU, or there is none; null for the CPU.
std::unique_ptr<device> open_device(const std::string& op, const std::string& requested, const std::string& profile) {
    if (requested == "cpu") return nullptr;
    try {
        strix::vulkan::context_options opt; // its defaults: STRIX_VULKAN_DEVICE and the other switches
        if (!profile.empty()) opt.profile = profile == "baseline" ? strix::vulkan::path_profile::baseline : strix::vulkan::path_profile::full;
        if (requested.empty()) {
            try {
                const auto devices = strix::vulkan::list_devices();
                const auto& best = devices.at(strix::vulkan::choose_device(devices, opt.device));
                if (best.type == VK_PHYSICAL_DEVICE_TYPE_CPU && !opt.device) return nullptr; // a CPU device is no faster than the CPU
            } catch (const std::exception&) {
                return nullptr; // no loader or no usable device: the CPU it is
            }
        }
        return std::make_unique<device>(opt);
    } catch (const strix::error& e) {
        throw strix::error(e.code(), "strix " + op + " --backend vulkan: " + std::string(e.what()));
    }
}

/// The shape of the join of chain `c`'s result and `others` along `axis` where the join's rules
/// hold (the stream's join checks them, with the CPU's messages, before it looks at the output);
/// else the chain's own shape, which is then never written.
strix::shape joined_shape(const strix::chain& c, std::span<const strix::any_cview> others, std::int64_t axis) {
    strix::shape s = c.sizes();
    const std::int64_t a = axis < 0 ? axis + s.rank : axis;
    if (a < 0 || a >= s.rank) return s;
    for (const auto& v : others)
        if (v.rank() == s.rank) s[static_cast<int>(a)] += v.size(static_cast<int>(a));
    return s;
}

/// The result of `strix chain` on device `ctx`: chain `c`'s views and `others` uploaded, the
/// chain recorded again on them, evaluated (or joined with `others` along `join->axis`) by a
/// stream, downloaded. An index out of range under the error policy throws from the stream's run,
/// which writes nothing.
strix::host_tensor evaluate_chain(device& ctx, const strix::chain& c, std::span<const strix::any_cview> others,
                                  const strix::join_desc* join) {
    namespace vk = strix::vulkan;
    std::deque<vk::device_tensor> keep;
    std::vector<vk::device_view> views;
    for (const auto& v : c.views()) views.push_back(keep.emplace_back(vk::upload(ctx, v)).view());
    std::span<const vk::device_view> rest(views);
    std::vector<vk::device_chain> parts{c.rebound(rest)};
    for (const auto& v : others) parts.emplace_back(keep.emplace_back(vk::upload(ctx, v)).view());
    const strix::shape sizes = join ? joined_shape(c, others, join->axis) : c.sizes();
    const vk::device_tensor out(ctx, c.type(), sizes);
    {
        vk::stream s(ctx);
        if (join) s.join(parts, out.view(), *join);
        else s.evaluate(parts[0], out.view());
        s.run();
    } // its frame back before the download takes two for staging
    strix::host_tensor r(c.type(), sizes);
    vk::download(ctx, out, r.view());
    return r;
}

/// Lists the Vulkan devices for `strix devices`.
void print_vulkan_devices() {
    try {
        const strix::vulkan::context_options opt; // STRIX_VULKAN_DEVICE, and a malformed switch reported here
        const auto list = strix::vulkan::list_devices();
        std::optional<std::uint32_t> chosen;
        try {
            chosen = strix::vulkan::choose_device(list, opt.device);
        } catch (const std::exception&) {
        }
        bool vulkan_default = false;
        if (chosen) vulkan_default = list[*chosen].type != VK_PHYSICAL_DEVICE_TYPE_CPU || opt.device.has_value();
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
            if (!d.unusable.empty()) {
                std::cout << "      not usable: " << d.unusable << "\n";
                continue;
            }
            // the path each profile takes on it, and the optional features it uses there
            for (const auto profile : {strix::vulkan::path_profile::full, strix::vulkan::path_profile::baseline}) {
                std::cout << "      --vulkan-profile " << strix::vulkan::profile_name(profile) << ": ";
                try {
                    strix::vulkan::context_options o = opt;
                    o.device = std::to_string(d.index);
                    o.profile = profile;
                    const strix::vulkan::context ctx(o);
                    std::cout << (ctx.full_path() ? "full" : "baseline") << " path, optional features used: " << ctx.features_in_use() << "\n";
                } catch (const std::exception& e) {
                    std::cout << "unusable (" << e.what() << ")\n";
                }
            }
        }
        if (list.empty()) std::cout << "  vulkan   no devices\n";
        if (!vulkan_default) std::cout << "  default: cpu\n";
        std::cout << "choose a Vulkan device with STRIX_VULKAN_DEVICE=<index or part of its name>\n";
    } catch (const std::exception& e) {
        std::cout << "  vulkan   unavailable: " << e.what() << "\n  default: cpu\n";
    }
}

} // namespace
#else
namespace {

constexpr bool have_vulkan = false;

/// Stands in for the Vulkan context, which this build lacks; never made.
struct device {
    [[nodiscard]] std::size_t validation_messages() const { return 0; }
};

std::unique_ptr<device> open_device(const std::string& op, const std::string& requested, const std::string&) {
    if (requested == "vulkan")
        throw strix::error(strix::error_code::unsupported, "strix " + op + ": this build of strix has no Vulkan backend (use --backend cpu)");
    return nullptr;
}

void print_vulkan_devices() { std::cout << "  vulkan   not built into this strix\n  default: cpu\n"; }

} // namespace
#endif

namespace {

using strix::error;
using strix::error_code;

strix::cpu::options cpu_options() {
    strix::cpu::options c;
    c.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return c;
}

/// Where the tool runs operators: on `gpu` when it opened one, else on the CPU. The table's calls
/// give it one of the library's allocating calls and its operands; it adds its own argument
/// (the Vulkan context first, or the CPU's options last), which is all the two sets of calls
/// differ in.
struct backend {
    strix::cpu::options cpu;
    std::unique_ptr<device> gpu;

    template <class F, class... A>
    strix::tool::results operator()(F f, const A&... a) const {
        if constexpr (have_vulkan)
            if (gpu) return strix::tool::as_results(f(*gpu, a...));
        return strix::tool::as_results(f(a..., cpu));
    }

    /// Throws when the Vulkan validation layer reported anything (each message went to stderr).
    void check_clean(const std::string& op) const {
        if (gpu && gpu->validation_messages() > 0)
            throw error(error_code::unsupported, "strix " + op + ": the Vulkan validation layer reported " + std::to_string(gpu->validation_messages()) +
                                                     " message(s); no output written");
    }
};

/// A shape and element type as the tool's messages give them: "shape [2,3], float32".
std::string shape_and_type(const strix::shape& s, strix::dtype t) {
    return "shape " + strix::to_string(s) + ", " + std::string(strix::name(t));
}

/// The error of a file the tool reads or writes for `op` (strix::io names the file and what went
/// wrong with it) with the operator in front, as every other error line of the tool has it.
[[noreturn]] void file_error(const std::string& op, const error& e) { throw error(e.code(), "strix " + op + ": " + e.what()); }

/// Reads the operand `option` (such as "--input") from `path`; what is wrong with the file is a
/// one-line error that names the operator and the file, and running out of memory for it one
/// that names the operator, the operand and the bytes it needed.
strix::io::npy_array read_operand(const std::string& op, const std::string& option, const std::string& path) {
    try {
        return strix::io::read_npy(path);
    } catch (const strix::out_of_memory& e) {
        throw error(error_code::unsupported, "strix " + op + ": cannot allocate " + std::to_string(e.bytes()) + " bytes for " + option + " " +
                                                 path + " (" + shape_and_type(e.sizes(), e.type()) + ")");
    } catch (const error& e) {
        file_error(op, e);
    }
}

/// Runs `f`, which makes the results (`several` of them, or one); running out of memory for a
/// tensor is a one-line error that names the operator and the bytes the result needed.
template <class F>
auto make_result(const std::string& op, bool several, F&& f) {
    try {
        return f();
    } catch (const strix::out_of_memory& e) {
        throw error(error_code::unsupported, "strix " + op + ": cannot allocate " + std::to_string(e.bytes()) + " bytes for " +
                                                 (several ? "an output" : "the output") + " (" + shape_and_type(e.sizes(), e.type()) + ")");
    }
}

/// Reads the files of command `c` into `arrays`; their views, in the order of `c.files`.
std::vector<strix::any_cview> read_operands(const strix::tool::command& c, std::vector<strix::io::npy_array>& arrays) {
    std::vector<strix::any_cview> x;
    for (const auto& [operand, path] : c.files) {
        arrays.push_back(read_operand(c.op, "--" + operand, path));
        // under --as, an element file of the type's bits is the type (strix_args.hpp: operand_type)
        const auto v = arrays.back().view();
        x.emplace_back(v.data(), strix::tool::operand_type(c, operand, path, v.type()), v.sizes(), v.strides());
    }
    return x;
}

/// Writes `results` into the output files of command `c`: every output or none (see
/// strix::io::write_npy_files, whose errors name the file only).
void write_results(const strix::tool::command& c, const strix::tool::results& results) {
    const std::vector<std::filesystem::path> paths(c.outputs.begin(), c.outputs.end());
    std::vector<strix::any_cview> views;
    for (const auto& r : results) views.push_back(r.view());
    try {
        strix::io::write_npy_files(paths, views);
    } catch (const error& e) {
        file_error(c.op, e);
    }
}

/// Runs the operator of command `c`, entry `e` of the table, and writes its outputs.
template <class Entry>
void run(const strix::tool::command& c, const Entry& e) {
    const std::string& op = c.op;
    backend on{cpu_options(), open_device(op, c.backend, c.profile)};
    std::vector<strix::io::npy_array> arrays;
    const auto x = read_operands(c, arrays);
    const bool several = e.repeats == "output";
    const auto results = make_result(op, several, [&] { return e.run(on, c, strix::tool::operands(x)); });
    on.check_clean(op);
    write_results(c, results);
}

/// The result of `strix chain` on the CPU: chain `c` evaluated, or joined with `others` along
/// `join->axis`.
strix::host_tensor evaluate_chain(const strix::chain& c, std::span<const strix::any_cview> others, const strix::join_desc* join,
                                  const strix::cpu::options& opt) {
    if (!join) return strix::evaluate(c, opt);
    std::vector<strix::chain> parts{c};
    parts.insert(parts.end(), others.begin(), others.end());
    return strix::join(parts, *join, opt);
}

/// Runs `strix chain` (strix_chain.hpp): its steps added to a chain over --input in order, each
/// checked as it is added (a rule it breaks names the step), then the chain evaluated or joined
/// with the --join tensors on the backend, and the output written.
void run_chain(const strix::tool::chain_command& cc) {
    const strix::tool::command& c = cc.base;
    const std::string& op = c.op;
    backend on{cpu_options(), open_device(op, c.backend, c.profile)};
    std::vector<strix::io::npy_array> arrays;
    const auto x = read_operands(c, arrays);
    std::size_t next = 1; // the next file after --input: the gathers' indices in step order, then the joins
    strix::chain chain = strix::lazy(x[0]);
    for (const auto& step : cc.steps) {
        std::visit(
            [&](const auto& d) {
                using D = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<D, strix::gather_desc>) chain = chain.gather(x[next++], d);
                else if constexpr (std::is_same_v<D, strix::pad_desc>) chain = chain.pad(d);
                else if constexpr (std::is_same_v<D, strix::slice_desc>) chain = chain.slice(d);
                else if constexpr (std::is_same_v<D, strix::tile_desc>) chain = chain.tile(d);
                else if constexpr (std::is_same_v<D, strix::gather_elements_desc>) chain = chain.gather_elements(x[next++], d);
                else if constexpr (std::is_same_v<D, strix::gather_nd_desc>) chain = chain.gather_nd(x[next++], d);
                else { // a scatter: its indices, then its updates
                    if constexpr (std::is_same_v<D, strix::scatter_desc>) chain = chain.scatter(x[next], x[next + 1], d);
                    else chain = chain.scatter_nd(x[next], x[next + 1], d);
                    next += 2;
                }
            },
            step);
    }
    const std::span<const strix::any_cview> others = std::span(x).subspan(next);
    const strix::join_desc* join = cc.joined ? &cc.join : nullptr;
    const auto results = make_result(op, false, [&] { return on([](auto&&... a) { return evaluate_chain(a...); }, chain, others, join); });
    on.check_clean(op);
    write_results(c, results);
}

int devices() {
    std::cout << "backends and devices:\n";
    std::cout << "  cpu      host CPU, " << std::max(1u, std::thread::hardware_concurrency()) << " hardware threads\n";
    print_vulkan_devices();
    // every element type, on both backends (the one list, strix/dtype.hpp)
    std::cout << "element types (every operator, both backends):";
    for (const strix::dtype t : strix::all_dtypes) std::cout << ' ' << strix::name(t);
    std::cout << "\n";
    return 0;
}

}  // namespace

int demo(const std::string& backend, const std::string& profile); // examples/demo.cpp

int main(int argc, char** argv) {
#ifdef SIGPIPE
    // A FIFO whose reader went away is a write error (reported, outputs rolled back), not a
    // silent death that would leave temporary files behind.
    std::signal(SIGPIPE, SIG_IGN);
#endif
    std::string op;
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        if (!args.empty() && args[0] == "chain") { // (not an operator of the table: parsed apart)
            op = "chain";
            const auto cc = strix::tool::parse_chain({args.begin() + 1, args.end()});
            if (cc.base.what == strix::tool::action::op_usage) std::cout << strix::tool::chain_help_text();
            else run_chain(cc);
            return 0;
        }
        const auto c = strix::tool::parse_command(args);
        op = c.op;
        switch (c.what) {
        case strix::tool::action::usage: std::cout << strix::tool::usage_text(); return 0;
        case strix::tool::action::op_usage: std::cout << strix::tool::op_help_text(c.op); return 0;
        case strix::tool::action::devices: return devices();
        case strix::tool::action::demo: return demo(c.backend, c.profile);
        case strix::tool::action::run: strix::tool::with_operator(c.op, [&](const auto& e) { run(c, e); }); return 0;
        }
        return 2;
    } catch (const std::bad_alloc& e) {
        // the last resort, for allocations that do not say what they were for; the message is
        // written without allocating
        std::fputs("strix", stderr);
        if (!op.empty()) {
            std::fputs(" ", stderr);
            std::fputs(op.c_str(), stderr);
        }
        std::fputs(": out of memory (", stderr);
        std::fputs(e.what(), stderr);
        std::fputs(")\n", stderr);
        return 2;
    } catch (const std::exception& e) {
        std::string m = e.what();
        for (auto& ch : m)
            if (ch == '\n') ch = ' ';
        std::cerr << m << "\n";
        return 2;
    }
}
