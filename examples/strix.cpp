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
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "strix/io/npy.hpp"
#include "strix/strix.hpp"
#include "strix_args.hpp"
#ifdef STRIX_HAVE_VULKAN
#include "strix/vulkan.hpp"
#endif

namespace {

using strix::error;
using strix::error_code;
using strix::tool::bad;

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

/// A shape and element type as the tool's messages give them: "shape [2,3], float32".
std::string shape_and_type(const strix::shape& s, strix::dtype t) {
    return "shape " + strix::to_string(s) + ", " + std::string(strix::name(t));
}

/// Reads the operand `option` (such as "--input") from `path`; running out of memory for it is
/// a one-line error that names the operator, the operand and the bytes it needed.
strix::io::npy_array read_operand(const std::string& op, const std::string& option, const std::string& path) {
    try {
        return strix::io::read_npy(path);
    } catch (const strix::out_of_memory& e) {
        throw error(error_code::unsupported, "strix " + op + ": cannot allocate " + std::to_string(e.bytes()) + " bytes for " + option + " " +
                                                 path + " (" + shape_and_type(e.sizes(), e.type()) + ")");
    }
}

/// Runs `f`, which makes the result; running out of memory for a tensor is a one-line error
/// that names the operator and the bytes the result needed.
template <class F>
auto make_result(const std::string& op, F&& f) {
    try {
        return f();
    } catch (const strix::out_of_memory& e) {
        throw error(error_code::unsupported, "strix " + op + ": cannot allocate " + std::to_string(e.bytes()) + " bytes for " +
                                                 (op == "split" ? "an output" : "the output") + " (" + shape_and_type(e.sizes(), e.type()) + ")");
    }
}

int run_op(const strix::tool::command& c) {
    const std::string& op = c.op;
    backend be(op, c.backend);
    std::vector<strix::io::npy_array> inputs;
    for (const auto& path : c.inputs) inputs.push_back(read_operand(op, "--input", path));
    std::optional<strix::io::npy_array> indices, updates;
    if (op != "join" && op != "pad" && op != "split") indices = read_operand(op, "--indices", c.indices);
    if (op == "scatter" || op == "scatter-nd") updates = read_operand(op, "--updates", c.updates);
    const auto x = inputs.at(0).view();
    std::vector<strix::host_tensor> results;
    make_result(op, [&] {
        if (op == "gather") results.push_back(be.gather(x, indices->view(), c.gather));
        else if (op == "gather-elements") results.push_back(be.gather_elements(x, indices->view(), c.gather_elements));
        else if (op == "gather-nd") results.push_back(be.gather_nd(x, indices->view(), c.gather_nd));
        else if (op == "scatter") results.push_back(be.scatter(x, indices->view(), updates->view(), c.scatter));
        else if (op == "scatter-nd") results.push_back(be.scatter_nd(x, indices->view(), updates->view(), c.scatter_nd));
        else if (op == "pad") results.push_back(be.pad(x, c.pad));
        else if (op == "split") results = be.split(x, c.sizes, c.split);
        else if (op == "join") {
            std::vector<strix::any_cview> views;
            for (const auto& a : inputs) views.push_back(a.view());
            results.push_back(be.join(views, c.join));
        }
        return 0;
    });
    be.check_clean(op);
    // every output or none: see strix::io::write_npy_files
    const std::vector<std::filesystem::path> paths(c.outputs.begin(), c.outputs.end());
    std::vector<strix::any_cview> views;
    for (const auto& r : results) views.push_back(r.view());
    strix::io::write_npy_files(paths, views);
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

int demo(const std::string& backend); // examples/demo.cpp

int main(int argc, char** argv) {
#ifdef SIGPIPE
    // A FIFO whose reader went away is a write error (reported, outputs rolled back), not a
    // silent death that would leave temporary files behind.
    std::signal(SIGPIPE, SIG_IGN);
#endif
    std::string op;
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        const auto c = strix::tool::parse_command(args);
        op = c.op;
        switch (c.what) {
        case strix::tool::action::usage: std::cout << strix::tool::usage_text; return 0;
        case strix::tool::action::op_usage: std::cout << strix::tool::op_help.at(c.op); return 0;
        case strix::tool::action::devices: return devices();
        case strix::tool::action::demo: return demo(c.backend);
        case strix::tool::action::run: return run_op(c);
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
