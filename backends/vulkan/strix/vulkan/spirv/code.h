// Written by scripts/shader_variants.py from backends/vulkan/strix/vulkan/spirv/variants.txt:
// edit that table, not this file, then run `bash scripts/spirv_headers.sh regenerate`.
// Included by strix/vulkan/implementation.hpp only.
#pragma once

#include "strix/vulkan/spirv/variants.h"

// one header per variant (scripts/spirv_headers.sh): one `const uint32_t <name>[]` each, at namespace scope
#include "strix/vulkan/spirv/move_b.h"
#include "strix/vulkan/spirv/move_0.h"
#include "strix/vulkan/spirv/move_1.h"
#include "strix/vulkan/spirv/scatter_b.h"
#include "strix/vulkan/spirv/scatter_0.h"
#include "strix/vulkan/spirv/scatter_1.h"
#include "strix/vulkan/spirv/tuples_b.h"
#include "strix/vulkan/spirv/tuples_0.h"
#include "strix/vulkan/spirv/scan_b.h"
#include "strix/vulkan/spirv/scan_0.h"
#include "strix/vulkan/spirv/reduce_b.h"
#include "strix/vulkan/spirv/reduce_00.h"
#include "strix/vulkan/spirv/reduce_01.h"
#include "strix/vulkan/spirv/reduce_10.h"
#include "strix/vulkan/spirv/reduce_11.h"
#include "strix/vulkan/spirv/reduce_00d.h"
#include "strix/vulkan/spirv/reduce_01d.h"
#include "strix/vulkan/spirv/reduce_10d.h"
#include "strix/vulkan/spirv/reduce_11d.h"
#include "strix/vulkan/spirv/reduce_01f.h"
#include "strix/vulkan/spirv/reduce_11f.h"
#include "strix/vulkan/spirv/reduce_01df.h"
#include "strix/vulkan/spirv/reduce_11df.h"
#include "strix/vulkan/spirv/reduce_11g.h"
#include "strix/vulkan/spirv/reduce_11dg.h"
#include "strix/vulkan/spirv/copy_b.h"
#include "strix/vulkan/spirv/copy_0.h"
#include "strix/vulkan/spirv/tile_b.h"
#include "strix/vulkan/spirv/tile_0.h"

strix::vulkan::spirv::words strix::vulkan::spirv::code(std::size_t i) {
    static constexpr words table[] = {
        {move_b, sizeof move_b},
        {move_0, sizeof move_0},
        {move_1, sizeof move_1},
        {scatter_b, sizeof scatter_b},
        {scatter_0, sizeof scatter_0},
        {scatter_1, sizeof scatter_1},
        {tuples_b, sizeof tuples_b},
        {tuples_0, sizeof tuples_0},
        {scan_b, sizeof scan_b},
        {scan_0, sizeof scan_0},
        {reduce_b, sizeof reduce_b},
        {reduce_00, sizeof reduce_00},
        {reduce_01, sizeof reduce_01},
        {reduce_10, sizeof reduce_10},
        {reduce_11, sizeof reduce_11},
        {reduce_00d, sizeof reduce_00d},
        {reduce_01d, sizeof reduce_01d},
        {reduce_10d, sizeof reduce_10d},
        {reduce_11d, sizeof reduce_11d},
        {reduce_01f, sizeof reduce_01f},
        {reduce_11f, sizeof reduce_11f},
        {reduce_01df, sizeof reduce_01df},
        {reduce_11df, sizeof reduce_11df},
        {reduce_11g, sizeof reduce_11g},
        {reduce_11dg, sizeof reduce_11dg},
        {copy_b, sizeof copy_b},
        {copy_0, sizeof copy_0},
        {tile_b, sizeof tile_b},
        {tile_0, sizeof tile_0},
    };
    static_assert(sizeof table / sizeof table[0] == variant_count);
    return i < variant_count ? table[i] : words{nullptr, 0};
}
