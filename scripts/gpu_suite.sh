#!/usr/bin/env bash
# Runs the test suite and the demo from an existing build tree on whatever Vulkan device the
# machine has (a real GPU, typically), without Meson: for machines that have the loader and a
# driver but no build tools. Logs go to OUT (default: ./gpu-logs); the last line is a summary.
#   scripts/gpu_suite.sh BUILD_DIR [OUT]
set -uo pipefail
build=${1:?usage: gpu_suite.sh BUILD_DIR [OUT]}
out=${2:-gpu-logs}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
py=$(command -v python3)
pass=0; fail=0
step() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  if "$@" > "$out/$name.log" 2>&1; then pass=$((pass + 1)); r=PASS; else fail=$((fail + 1)); r=FAIL; fi
  echo "$r $name ($((SECONDS - t0)) s)"
}
"$build/examples/strix" devices | tee "$out/devices.log"
step demo "$build/examples/strix" demo
step unit "$build/test/strix-tests"
step vulkan "$build/test/strix-vulkan-tests" '[vulkan]'
if [ -n "${VK_LOADER_LAYERS_ENABLE:-}" ] || ls /usr/share/vulkan/explicit_layer.d/*validation* >/dev/null 2>&1; then
  step vulkan-validation env VK_LOADER_LAYERS_ENABLE='*validation' "$build/test/strix-vulkan-tests" '[vulkan]'
fi
step vulkan-words env STRIX_VULKAN_NO_SMALL_STORAGE=1 "$build/test/strix-vulkan-tests" '[vulkan]'
# the baseline path (the device made without optional features; shaders/common.glsl's BASELINE)
step vulkan-baseline env STRIX_VULKAN_PROFILE=baseline "$build/test/strix-vulkan-tests" '[vulkan]'
step demo-baseline "$build/examples/strix" demo --backend vulkan --vulkan-profile baseline
for ex in embedding_lookup image_pad kv_cache_append sparse_update; do
  step "example-$ex" "$build/examples/$ex"
done
if "$py" -c 'import numpy' 2>/dev/null; then
  step tool "$py" "$root/test/tool_test.py" "$build/examples/strix"
  step tool-numpy-vulkan "$py" "$root/scripts/check_tool.py" "$build/examples/strix" --backend vulkan --cases 1
  step tool-numpy-vulkan-baseline "$py" "$root/scripts/check_tool.py" "$build/examples/strix" --backend vulkan --vulkan-profile baseline --cases 1
fi
echo "$pass passed, $fail failed"
