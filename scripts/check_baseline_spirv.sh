#!/usr/bin/env bash
# Checks the shaders' baseline path (shaders/common.glsl, BASELINE 1): each shader that has one
# is compiled for Vulkan 1.1 (SPIR-V 1.3) with every optional feature's macro at 0, and its module
# must declare no capability but Shader and ImageBuffer (the flag's storage texel buffer;
# Vulkan 1.0 core, which no feature gates) and no extension (so no Int64, Float64,
# PhysicalStorageBufferAddresses, StorageBuffer8BitAccess or StorageBuffer16BitAccess: what a
# Vulkan 1.1 device without those features refuses), bind at most 4 storage buffers (Vulkan
# 1.1's least maxPerStageDescriptorStorageBuffers), and pass spirv-val for Vulkan 1.1.
# The check is shown able to fail: the same shader on the full path must be caught.
#
# usage: scripts/check_baseline_spirv.sh [GLSLANG] [WORK_DIR]
# Needs glslangValidator (glslang-tools) and spirv-dis / spirv-val (spirv-tools).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
glslang=${1:-glslangValidator}
work=${2:-$(mktemp -d)}
mkdir -p "$work"

# every shader (each has a baseline variant in variants.txt)
shaders=(copy move tile tuples scatter reduce scan)
# every feature macro of backends/vulkan/strix/vulkan/spirv/variants.txt, at 0
features=$(/usr/bin/python3 "$root/scripts/shader_variants.py" meson "$root/backends/vulkan/strix/vulkan/spirv/variants.txt" |
  awk 'NR == 1 { for (i = 4; i <= NF; ++i) { sub(/=.*/, "=0", $i); printf "%s ", $i } }')

failed=0
# what a module declares beyond the baseline: capabilities other than the three, extensions, a
# SPIR-V version above 1.3 (printed, one per line; nothing when it is a baseline module)
beyond_baseline() {
  spirv-dis --raw-id "$1" | awk '
    /^; Version: / { split($3, v, "."); if (v[1] > 1 || v[2] > 3) print "SPIR-V " $3 }
    $1 == "OpCapability" && $2 != "Shader" && $2 != "ImageBuffer" { print "capability " $2 }
    $1 == "OpExtension" { print "extension " $2 }'
}

# how many distinct bindings the module's storage-buffer variables take
storage_bindings() {
  spirv-dis --raw-id "$1" | awk '
    $1 == "OpDecorate" && $3 == "Binding" { binding[$2] = $4 }
    $3 == "OpVariable" && $5 == "StorageBuffer" { used[binding[$1]] = 1 }
    END { n = 0; for (b in used) ++n; print n }'
}

for s in "${shaders[@]}"; do
  out="$work/${s}_baseline.spv"
  # shellcheck disable=SC2086
  if ! "$glslang" --quiet -V --target-env vulkan1.1 $features -DBASELINE=1 -o "$out" "$root/shaders/$s.comp" > "$work/$s.log" 2>&1; then
    echo "FAIL baseline-spirv $s (does not compile: $work/$s.log)"; failed=$((failed + 1)); continue
  fi
  extra=$(beyond_baseline "$out")
  if [ -n "$extra" ]; then
    echo "FAIL baseline-spirv $s declares: $(echo $extra)"; failed=$((failed + 1)); continue
  fi
  # storage buffers: at most Vulkan 1.1's least maxPerStageDescriptorStorageBuffers (4)
  storage=$(storage_bindings "$out")
  if [ "$storage" -gt 4 ]; then
    echo "FAIL baseline-spirv $s binds $storage storage buffers (Vulkan 1.1 promises 4)"; failed=$((failed + 1)); continue
  fi
  if ! spirv-val --target-env vulkan1.1 "$out" > "$work/$s.val" 2>&1; then
    echo "FAIL baseline-spirv $s (spirv-val: $(head -1 "$work/$s.val"))"; failed=$((failed + 1)); continue
  fi
  # the same shader on the full path declares 64-bit integers and device addresses: the check sees them
  full="$work/${s}_full.spv"
  # shellcheck disable=SC2086
  "$glslang" --quiet -V --target-env vulkan1.2 ${features/-DFULL=0/-DFULL=1} -o "$full" "$root/shaders/$s.comp" > /dev/null 2>&1
  caught=$(beyond_baseline "$full")
  if ! grep -q "capability Int64" <<< "$caught" || ! grep -q "capability PhysicalStorageBufferAddresses" <<< "$caught"; then
    echo "FAIL baseline-spirv $s (the check did not catch the full path's Int64 and device addresses)"; failed=$((failed + 1)); continue
  fi
  echo "PASS baseline-spirv $s (SPIR-V 1.3, capabilities Shader and ImageBuffer only; $storage storage buffers; caught on the full path: $(echo $caught | tr '\n' ' '))"
done
exit $((failed > 0))
