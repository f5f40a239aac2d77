#!/usr/bin/env bash
# Checks the shaders' baseline path (shaders/common.glsl, BASELINE 1) as strix embeds it: the
# baseline variant of each shader in backends/vulkan/strix/vulkan/spirv/variants.txt (the one that
# needs no feature: FULL 0, so BASELINE 1, compiled for Vulkan 1.1, SPIR-V 1.3), read back from its
# committed header (<variant>.h, written by scripts/spirv_headers.sh), must declare no capability
# but Shader and ImageBuffer (the flag's storage texel buffer; Vulkan 1.0 core, which no feature
# gates) and no extension (so no Int64, Float64, PhysicalStorageBufferAddresses,
# StorageBuffer8BitAccess or StorageBuffer16BitAccess: what a Vulkan 1.1 device without those
# features refuses), bind at most 4 storage buffers (Vulkan 1.1's least
# maxPerStageDescriptorStorageBuffers), and pass spirv-val for Vulkan 1.1. Every shader needs such
# a variant (the baseline profile runs them all). The check is shown able to fail: the same
# shader's full-path variant (the one that needs `full` only) must be caught.
# That the committed headers are what shaders/ compiles to is scripts/spirv_headers.sh check's
# business.
#
# usage: scripts/check_baseline_spirv.sh [WORK_DIR]
# Needs spirv-dis / spirv-val (spirv-tools) and python3; no shader compiler.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spirv=$root/backends/vulkan/strix/vulkan/spirv
work=${1:-$(mktemp -d)}
mkdir -p "$work"

# of each shader, in the table's order: its name, its baseline variant (every feature macro at 0)
# and its full-path variant (FULL 1, every other macro at 0); "-" where there is none
if ! listing=$(/usr/bin/python3 "$root/scripts/shader_variants.py" meson "$spirv/variants.txt"); then
  echo "FAIL baseline-spirv (variants.txt does not read)"; exit 1
fi
shader_lines=$(awk '
  { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2; base[$2] = "-"; full[$2] = "-" }
    on = ""; for (i = 4; i <= NF; ++i) if ($i ~ /=1$/) { sub(/^-D/, "", $i); sub(/=1$/, "", $i); on = on " " $i }
    if (on == "") base[$2] = $1
    if (on == " FULL") full[$2] = $1 }
  END { for (i = 1; i <= n; ++i) print order[i], base[order[i]], full[order[i]] }' <<< "$listing")

# module NAME OUT: the words of the committed header NAME.h written to OUT as a SPIR-V module
module() {
  /usr/bin/python3 "$root/scripts/shader_variants.py" words "$spirv/$1.h" "$2"
}

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

while read -r s baseline fullpath; do
  if [ "$baseline" = - ]; then
    echo "FAIL baseline-spirv $s (variants.txt gives it no variant that needs nothing)"; failed=$((failed + 1)); continue
  fi
  out="$work/$baseline.spv"
  if ! module "$baseline" "$out" > "$work/$s.log" 2>&1; then
    echo "FAIL baseline-spirv $s ($baseline.h does not read: $(head -1 "$work/$s.log"))"; failed=$((failed + 1)); continue
  fi
  extra=$(beyond_baseline "$out")
  if [ -n "$extra" ]; then
    echo "FAIL baseline-spirv $s ($baseline) declares: $(echo $extra)"; failed=$((failed + 1)); continue
  fi
  # storage buffers: at most Vulkan 1.1's least maxPerStageDescriptorStorageBuffers (4)
  storage=$(storage_bindings "$out")
  if [ "$storage" -gt 4 ]; then
    echo "FAIL baseline-spirv $s ($baseline) binds $storage storage buffers (Vulkan 1.1 promises 4)"; failed=$((failed + 1)); continue
  fi
  if ! spirv-val --target-env vulkan1.1 "$out" > "$work/$s.val" 2>&1; then
    echo "FAIL baseline-spirv $s ($baseline; spirv-val: $(head -1 "$work/$s.val"))"; failed=$((failed + 1)); continue
  fi
  # the same shader on the full path declares 64-bit integers and device addresses: the check sees them
  caught=
  if [ "$fullpath" != - ] && module "$fullpath" "$work/$fullpath.spv" > /dev/null 2>&1; then
    caught=$(beyond_baseline "$work/$fullpath.spv")
  fi
  if ! grep -q "capability Int64" <<< "$caught" || ! grep -q "capability PhysicalStorageBufferAddresses" <<< "$caught"; then
    echo "FAIL baseline-spirv $s (the check did not catch the full path's Int64 and device addresses in '$fullpath')"; failed=$((failed + 1)); continue
  fi
  echo "PASS baseline-spirv $s ($baseline: SPIR-V 1.3, capabilities Shader and ImageBuffer only; $storage storage buffers; caught in $fullpath: $(echo $caught | tr '\n' ' '))"
done <<< "$shader_lines"
exit $((failed > 0))
