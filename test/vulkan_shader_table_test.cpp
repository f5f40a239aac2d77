// The table of shader variants (strix/vulkan/spirv/variants.h, written from spirv/variants.txt):
// every shader resolves to one variant for every set of features a device may have, the choice
// is the one the backend's paths call for, and a context builds a pipeline from each shader's.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "strix/vulkan.hpp"

namespace {

namespace vk = strix::vulkan;
namespace spirv = strix::vulkan::spirv;

constexpr std::uint32_t all_features = (1u << spirv::feature_count) - 1;

bool within(std::uint32_t a, std::uint32_t b) { return (a & ~b) == 0; }

vk::shader shader_at(std::size_t i) { return static_cast<vk::shader>(i); }

/// The features any variant of `s` is built to use.
std::uint32_t used_by(vk::shader s) {
    std::uint32_t u = 0;
    for (const auto& v : spirv::variants)
        if (v.which == s) u |= v.needs;
    return u;
}

/// Every feature set a context's paths can come to (context::choose_paths): the float atomic add
/// only with 64-bit atomics, the float64 one only with the float32 one and float64 arithmetic;
/// on the baseline path (without `full`) none at all (not even the property denorm_preserve32,
/// which needs Vulkan 1.2's float controls there).
std::vector<std::uint32_t> reachable_features() {
    std::vector<std::uint32_t> out;
    for (std::uint32_t on = 0; on <= all_features; ++on) {
        if (!(on & spirv::full) && on != 0) continue;
        if ((on & spirv::float32_atomic_add) && !(on & spirv::int64_atomics)) continue;
        if ((on & spirv::float64_atomic_add) && !((on & spirv::float32_atomic_add) && (on & spirv::float64))) continue;
        out.push_back(on);
    }
    return out;
}

/// The name the backend's choice had before the table, spelled out from the feature bits:
/// move and scatter _1 with 8/16-bit storage; reduce_<float64><int64 atomics>, then d where
/// float32 subnormals are kept, then f with the float32 atomic add or g with the float64 one.
std::string expected_name(vk::shader s, std::uint32_t on) {
    const auto bit = [&](std::uint32_t f) { return (on & f) != 0; };
    if (!bit(spirv::full)) { // the baseline path: _b, where the shader has one
        switch (s) {
        case vk::shader::move: return "move_b";
        case vk::shader::scatter: return "scatter_b";
        case vk::shader::tuples: return "tuples_b";
        case vk::shader::copy: return "copy_b";
        case vk::shader::tile: return "tile_b";
        case vk::shader::scan: return "scan_b";
        case vk::shader::reduce: return "reduce_b";
        }
    }
    switch (s) {
    case vk::shader::move: return bit(spirv::small_storage) ? "move_1" : "move_0";
    case vk::shader::scatter: return bit(spirv::small_storage) ? "scatter_1" : "scatter_0";
    case vk::shader::tuples: return "tuples_0";
    case vk::shader::scan: return "scan_0";
    case vk::shader::copy: return "copy_0";
    case vk::shader::tile: return "tile_0";
    case vk::shader::reduce: {
        std::string n = "reduce_";
        n += bit(spirv::float64) ? '1' : '0';
        n += bit(spirv::int64_atomics) ? '1' : '0';
        if (bit(spirv::denorm_preserve32)) n += 'd';
        if (bit(spirv::float64_atomic_add)) n += 'g';
        else if (bit(spirv::float32_atomic_add)) n += 'f';
        return n;
    }
    }
    return "";
}

// the choice is a constant expression, as the context's is made once per context
static_assert(spirv::pick(vk::shader::copy, 0) < spirv::variant_count);
static_assert(spirv::variants[spirv::pick(vk::shader::copy, 0)].needs == 0);

/// Whether `s` has a variant that needs no feature (a baseline one: every device runs it).
bool has_baseline(vk::shader s) {
    for (const auto& v : spirv::variants)
        if (v.which == s && v.needs == 0) return true;
    return false;
}

} // namespace

TEST_CASE("vulkan: the shader table gives every shader exactly one best variant for every set of features", "[vulkan][shader-table]") {
    // every shader strix::vulkan::shader names has variants, and nothing else does
    std::set<std::string> names;
    for (std::size_t i = 0; i < spirv::variant_count; ++i) {
        const spirv::variant& v = spirv::variants[i];
        INFO(v.name);
        CHECK(static_cast<std::size_t>(v.which) < spirv::shader_count);
        CHECK(within(v.needs, all_features));
        CHECK(names.insert(v.name).second);
        // the committed modules: whole 32-bit words, starting with SPIR-V's magic number
        CHECK(spirv::code(i).bytes > 20);
        CHECK(spirv::code(i).bytes % 4 == 0);
        CHECK(spirv::code(i).data[0] == 0x07230203u);
        // no variant is built for nothing: a device with exactly its features runs it
        CHECK(spirv::pick(v.which, v.needs) == i);
    }
    for (std::size_t s = 0; s < spirv::shader_count; ++s)
        for (std::uint32_t on = 0; on <= all_features; ++on) {
            INFO("shader " << s << ", features " << on);
            const std::size_t m = spirv::pick(shader_at(s), on);
            if (m == spirv::variant_count) { // none: the shader has no baseline variant, and `on` lacks what all others need
                CHECK_FALSE(has_baseline(shader_at(s)));
                for (const auto& v : spirv::variants) CHECK((v.which != shader_at(s) || !within(v.needs, on)));
                continue;
            }
            const spirv::variant& best = spirv::variants[m];
            CHECK(best.which == shader_at(s));
            CHECK(within(best.needs, on));
            // it needs all that any other variant the device could run needs, and is the only such one
            for (std::size_t i = 0; i < spirv::variant_count; ++i) {
                const spirv::variant& v = spirv::variants[i];
                if (v.which != best.which || !within(v.needs, on) || i == m) continue;
                INFO("also runnable: " << v.name);
                CHECK(within(v.needs, best.needs));
                CHECK(v.needs != best.needs);
            }
        }
}

TEST_CASE("vulkan: for every set of paths a context can take, each shader runs the variant that uses all of them", "[vulkan][shader-table]") {
    std::set<std::string> used;
    for (const std::uint32_t on : reachable_features())
        for (std::size_t s = 0; s < spirv::shader_count; ++s) {
            const std::size_t m = spirv::pick(shader_at(s), on);
            INFO("shader " << s << ", features " << on);
            if (m == spirv::variant_count) { // (reduce and scan on the baseline path)
                CHECK_FALSE((on & spirv::full));
                CHECK(expected_name(shader_at(s), on).empty());
                continue;
            }
            const spirv::variant& v = spirv::variants[m];
            INFO(v.name);
            // every feature the shader has a variant for and the paths allow is used
            CHECK(v.needs == (on & used_by(shader_at(s))));
            CHECK(std::string(v.name) == expected_name(shader_at(s), on));
            used.insert(v.name);
        }
    // and every variant built is one of those
    CHECK(used.size() == spirv::variant_count);
}

TEST_CASE("vulkan: a context runs each shader's variant for its paths and builds its pipelines", "[vulkan][shader-table]") {
    // the device as it is, then with each path that an option turns off
    struct off_switch {
        const char* name;
        bool vk::context_options::*option;
        std::uint32_t features; // what it turns off
    };
    const off_switch switches[] = {{nullptr, nullptr, 0},
                                   {"small_storage", &vk::context_options::small_storage, spirv::small_storage},
                                   {"float64", &vk::context_options::float64, spirv::float64 | spirv::float64_atomic_add},
                                   {"int64_atomics", &vk::context_options::int64_atomics, spirv::int64_atomics | spirv::float32_atomic_add | spirv::float64_atomic_add},
                                   {"float_atomics", &vk::context_options::float_atomics, spirv::float32_atomic_add | spirv::float64_atomic_add}};
    for (const off_switch& sw : switches) {
        vk::context_options opt;
        if (sw.option) opt.*sw.option = false;
        vk::context full(opt);
        const bool full_allowed = opt.profile == vk::path_profile::full; // (STRIX_VULKAN_PROFILE may say baseline)
        opt.profile = vk::path_profile::baseline;
        vk::context baseline(opt);
      for (vk::context* c : {&full, &baseline}) {
        vk::context& ctx = *c;
        INFO(ctx.device().name << (sw.name ? std::string(" with ") + sw.name + " = false" : std::string()) << ", "
                               << (ctx.full_path() ? "full" : "baseline") << " path");
        CHECK((c == &baseline ? !ctx.full_path() : ctx.full_path() == (full_allowed && ctx.device().full_path())));
        const std::uint32_t on = ctx.shader_features();
        const auto bit = [&](std::uint32_t f) { return (on & f) != 0; };
        CHECK(bit(spirv::small_storage) == ctx.small_storage());
        CHECK(bit(spirv::float64) == ctx.float64());
        CHECK(bit(spirv::int64_atomics) == ctx.int64_atomics());
        CHECK(bit(spirv::denorm_preserve32) == (ctx.device().denorm_preserve32 && ctx.full_path()));
        CHECK(bit(spirv::full) == ctx.full_path());
        CHECK(bit(spirv::float32_atomic_add) == ctx.float32_atomic_add());
        CHECK(bit(spirv::float64_atomic_add) == ctx.float64_atomic_add());
        CHECK((on & sw.features) == 0);
        for (std::size_t s = 0; s < spirv::shader_count; ++s) {
            vk::pipeline_key key;
            key.which = shader_at(s);
            if (!ctx.runs(shader_at(s))) { // no baseline variant: refused, naming the full path
                CHECK_FALSE(ctx.full_path());
                CHECK_FALSE(has_baseline(shader_at(s)));
                try {
                    (void)ctx.pipeline(key);
                    FAIL("a shader without a variant for the path made a pipeline");
                } catch (const strix::error& e) {
                    CHECK(e.code() == strix::error_code::unsupported);
                    CHECK(std::string(e.what()).find("full path") != std::string::npos);
                }
                continue;
            }
            const spirv::variant& v = ctx.shader_variant(shader_at(s));
            INFO(v.name);
            CHECK(v.which == shader_at(s));
            CHECK(v.needs == (on & used_by(shader_at(s))));
            CHECK(ctx.pipeline(key) != VK_NULL_HANDLE);
        }
        CHECK(ctx.validation_messages() == 0);
      }
    }
}
