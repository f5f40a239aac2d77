// Fuzz target: the strix tool's command-line parser (examples/strix_args.hpp).
//
// The input is split at NUL bytes into the arguments after the program name. Parsing must
// either give a command that is consistent with itself or throw strix::error (invalid_argument)
// with a message that starts with "strix"; any other exception, a crash or a sanitizer report is
// a finding. The parser does no file I/O, so nothing here touches a file.
//
//   clang++ -std=c++20 -Iinclude -Iexamples -fsanitize=fuzzer,address,undefined fuzz/fuzz_tool_args.cpp
//   ./a.out -max_total_time=30 fuzz/corpus/tool_args

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "../examples/strix_args.hpp"  // found from this file, with or without -Iexamples
#include "../examples/strix_chain.hpp" // (strix chain's parser)

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_tool_args: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}

// The checks a parsed command must pass.
void check(const strix::tool::command& c) {
    using strix::tool::action;
    switch (c.what) {
    case action::usage:
    case action::devices:
    case action::demo: return;
    case action::op_usage:
        if (!strix::tool::is_operator(c.op)) fail("help asked for an unknown operator", c.op);
        return;
    case action::run: break;
    default: fail("an action out of range");
    }
    if (!strix::tool::is_operator(c.op)) fail("an unknown operator was parsed", c.op);
    if (c.backend != "" && c.backend != "cpu" && c.backend != "vulkan") fail("an unknown backend was accepted", c.backend);
    std::size_t inputs = 0;
    for (const auto& file : c.files) inputs += file.first == "input";
    if (inputs == 0 || (c.op != "join" && inputs != 1)) fail("a wrong number of inputs", c.op);
    if (c.outputs.empty() || (c.op != "split" && c.outputs.size() != 1)) fail("a wrong number of outputs", c.op);
    if (c.op == "split") {
        if (c.outputs.size() != c.sizes.size()) fail("split's outputs do not match its sizes");
        for (std::size_t i = 0; i < c.outputs.size(); ++i)
            for (std::size_t j = i + 1; j < c.outputs.size(); ++j)
                if (c.outputs[i] == c.outputs[j]) fail("split accepted one output twice", c.outputs[i]);
    }
    if (c.desc<strix::gather_desc>().index_dimensions < -1 || c.desc<strix::gather_desc>().index_dimensions > strix::max_rank) fail("--index-dimensions out of range");
    if (c.desc<strix::gather_nd_desc>().batch_dimensions < 0 || c.desc<strix::gather_nd_desc>().batch_dimensions > strix::max_rank) fail("--batch-dimensions out of range");
    if (c.desc<strix::pad_desc>().start.rank < 0 || c.desc<strix::pad_desc>().start.rank > strix::max_rank || c.desc<strix::pad_desc>().end.rank < 0 || c.desc<strix::pad_desc>().end.rank > strix::max_rank)
        fail("a pad list of a bad length");
}

// The checks a parsed `strix chain` must pass.
void check_chain(const strix::tool::chain_command& r) {
    const auto& c = r.base;
    if (c.op != "chain") fail("a chain command of another name", c.op);
    if (c.what == strix::tool::action::op_usage) return;
    if (c.what != strix::tool::action::run) fail("a chain parsed to an action other than run or help");
    if (c.backend != "" && c.backend != "cpu" && c.backend != "vulkan") fail("an unknown backend was accepted", c.backend);
    std::size_t inputs = 0, index_files = 0, updates = 0, joins = 0, index_steps = 0, scatter_steps = 0;
    for (const auto& file : c.files) {
        inputs += file.first == "input";
        index_files += file.first == "gather" || file.first == "gather-elements" || file.first == "gather-nd" || file.first == "scatter" ||
                       file.first == "scatter-nd";
        updates += file.first == "updates";
        joins += file.first == "join";
    }
    for (const auto& s : r.steps) {
        const bool scatter = std::holds_alternative<strix::scatter_desc>(s) || std::holds_alternative<strix::scatter_nd_desc>(s);
        index_steps += scatter || std::holds_alternative<strix::gather_desc>(s) || std::holds_alternative<strix::gather_elements_desc>(s) ||
                       std::holds_alternative<strix::gather_nd_desc>(s);
        scatter_steps += scatter;
    }
    if (inputs != 1) fail("a chain without exactly one input");
    if (index_files != index_steps) fail("a chain whose steps with indices and index files differ in number");
    if (updates != scatter_steps) fail("a chain whose scatters and updates files differ in number");
    if ((joins > 0) != r.joined) fail("a chain's --join files and its joined flag disagree");
    if (c.outputs.size() != 1) fail("a chain without exactly one output");
    for (const auto& s : r.steps)
        if (const auto* p = std::get_if<strix::pad_desc>(&s); p && (p->start.rank > strix::max_rank || p->end.rank > strix::max_rank))
            fail("a chain's pad list of a bad length");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    std::string current;
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            args.push_back(current);
            current.clear();
        } else {
            current += static_cast<char>(data[i]);
        }
    }
    if (size > 0 && data[size - 1] != 0) args.push_back(current); // a last argument without its NUL
    try {
        // (the tool sends `chain` to its own parser: examples/strix.cpp)
        if (!args.empty() && args[0] == "chain") check_chain(strix::tool::parse_chain({args.begin() + 1, args.end()}));
        else check(strix::tool::parse_command(args));
    } catch (const strix::error& e) {
        const std::string m = e.what();
        if (e.code() != strix::error_code::invalid_argument) fail("a parse error of an unexpected code", m);
        if (m.rfind("strix", 0) != 0) fail("a message that does not start with 'strix'", m);
    } catch (const std::exception& e) {
        fail("an exception other than strix::error", e.what());
    } catch (...) {
        fail("an exception of an unknown type");
    }
    return 0;
}
