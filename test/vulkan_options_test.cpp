// context_options and the environment's part in them (strix/vulkan/config.hpp): each
// STRIX_VULKAN_* variable fills its field's default by one rule, read from a stand-in
// environment here (the process's is left alone), and a context takes what the fields say.

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>

#include "strix/vulkan.hpp"

namespace {

namespace vk = strix::vulkan;

/// The stand-in environment the lookup below reads.
std::map<std::string, std::string>& variables() {
    static std::map<std::string, std::string> v;
    return v;
}

const char* lookup(const char* name) {
    const auto it = variables().find(name);
    return it == variables().end() ? nullptr : it->second.c_str();
}

/// Options made from exactly these variables.
vk::context_options with(std::map<std::string, std::string> v) {
    variables() = std::move(v);
    return vk::context_options(&lookup);
}

} // namespace

TEST_CASE("vulkan options: the built-in defaults, and every variable filling its field", "[vulkan][options]") {
    const vk::context_options d(nullptr);
    CHECK_FALSE(d.device);
    CHECK(d.small_storage);
    CHECK_FALSE(d.always_addr64);
    CHECK(d.int64_atomics);
    CHECK(d.float64);
    CHECK(d.float_atomics);
    CHECK(d.scatter_claims);
    CHECK(d.tile);
    CHECK(d.tile_kib == 32);
    CHECK(d.unroll == 4);
    CHECK(d.chunk_unroll == 1);
    CHECK_FALSE(d.fold_chunk);
    CHECK(d.slot_bits_from == (std::uint64_t{1} << 22) + 1);
    CHECK_FALSE(d.spin_wait_us);
    CHECK_FALSE(d.host_import);

    const vk::context_options o = with({{"STRIX_VULKAN_DEVICE", "llvm"},
                                        {"STRIX_VULKAN_NO_SMALL_STORAGE", "1"},
                                        {"STRIX_VULKAN_WIDE", "1"},
                                        {"STRIX_VULKAN_NO_INT64_ATOMICS", "1"},
                                        {"STRIX_VULKAN_NO_FLOAT64", "1"},
                                        {"STRIX_VULKAN_NO_FLOAT_ATOMICS", "1"},
                                        {"STRIX_VULKAN_NO_CLAIMS", "1"},
                                        {"STRIX_VULKAN_NO_TILE", "1"},
                                        {"STRIX_VULKAN_TILE_KIB", "8"},
                                        {"STRIX_VULKAN_UNROLL", "2"},
                                        {"STRIX_VULKAN_CHUNK_UNROLL", "3"},
                                        {"STRIX_VULKAN_FOLD_CHUNK", "1048576"},
                                        {"STRIX_VULKAN_SLOT_BITS_FROM", "1"},
                                        {"STRIX_VULKAN_SPIN_US", "0"},
                                        {"STRIX_VULKAN_HOST_IMPORT", "1"}});
    CHECK(o.device == std::string("llvm"));
    CHECK_FALSE(o.small_storage);
    CHECK(o.always_addr64);
    CHECK_FALSE(o.int64_atomics);
    CHECK_FALSE(o.float64);
    CHECK_FALSE(o.float_atomics);
    CHECK_FALSE(o.scatter_claims);
    CHECK_FALSE(o.tile);
    CHECK(o.tile_kib == 8);
    CHECK(o.unroll == 2);
    CHECK(o.chunk_unroll == 3);
    CHECK(o.fold_chunk == std::uint32_t{1048576});
    CHECK(o.slot_bits_from == 1);
    CHECK(o.spin_wait_us == std::uint32_t{0});
    CHECK(o.host_import);
}

TEST_CASE("vulkan options: one rule reads every variable", "[vulkan][options]") {
    // "0" undoes a switch, whichever way its name points; empty is unset
    CHECK(with({{"STRIX_VULKAN_NO_TILE", "0"}}).tile);
    CHECK_FALSE(with({{"STRIX_VULKAN_WIDE", "0"}}).always_addr64);
    CHECK(with({{"STRIX_VULKAN_NO_CLAIMS", ""}}).scatter_claims);
    CHECK(with({{"STRIX_VULKAN_UNROLL", ""}}).unroll == 4);
    // a number too large for its field saturates (the context clamps it to its range)
    CHECK(with({{"STRIX_VULKAN_TILE_KIB", "99999999999999999999999"}}).tile_kib == UINT32_MAX);
    // anything else is refused, naming the variable
    for (const auto& [name, value] : std::map<std::string, std::string>{{"STRIX_VULKAN_NO_CLAIMS", "yes"},
                                                                        {"STRIX_VULKAN_WIDE", "2"},
                                                                        {"STRIX_VULKAN_HOST_IMPORT", "true"},
                                                                        {"STRIX_VULKAN_UNROLL", "-1"},
                                                                        {"STRIX_VULKAN_TILE_KIB", "16k"},
                                                                        {"STRIX_VULKAN_SPIN_US", " 5"}}) {
        INFO(name << "=" << value);
        try {
            (void)with({{name, value}});
            FAIL("accepted");
        } catch (const strix::error& e) {
            CHECK(e.code() == strix::error_code::invalid_argument);
            CHECK_THAT(std::string(e.what()), Catch::Contains(name + "=" + value));
        }
    }
}

TEST_CASE("vulkan options: a context takes its numbers within their ranges", "[vulkan][options]") {
    vk::context_options opt(nullptr);
    opt.unroll = 0;
    opt.chunk_unroll = 100;
    opt.tile_kib = 1;
    opt.fold_chunk = 1;
    opt.slot_bits_from = 7;
    opt.spin_wait_us = 5;
    opt.host_import = true;
    vk::context ctx(opt);
    CHECK(ctx.unroll_16() == 1);
    CHECK(ctx.unroll_chunks() == 8);
    CHECK(ctx.tile_words() == 4 * 256);
    CHECK(ctx.fold_chunk() == 16);
    CHECK(ctx.slot_bits_from() == 7);
    CHECK(ctx.spin_wait_us() == 5);
    CHECK(ctx.host_import());
    opt = vk::context_options(nullptr);
    opt.tile = false;
    vk::context untiled(opt);
    CHECK(untiled.tile_words() == 0);
    CHECK(untiled.unroll_16() == 4);
    CHECK(untiled.fold_chunk() == (untiled.device().type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 4096u : 65536u));
    CHECK(ctx.validation_messages() == 0);
    CHECK(untiled.validation_messages() == 0);
}
