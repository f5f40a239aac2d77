#!/usr/bin/env bash
# Runs the Windows build (scripts/cross_windows.sh's output) under Wine, as a Windows user would
# run it: the tool's help, the demo on the CPU and on Vulkan (Wine's vulkan-1.dll hands the calls
# to the host's loader, so lavapipe under Xvfb), every example, and the tool against NumPy on a
# sample of cases, and the unit test program. Installs wine and xvfb when missing (Debian 12:
# `wine` is on the PATH, not `wine64`). Prints one line per check; exits non-zero when any failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-windows}
if ! command -v wine >/dev/null || ! command -v xvfb-run >/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends wine wine64 xvfb xauth >/dev/null
fi
# one X server for every Wine process of the run (Wine's Vulkan needs a display)
if [ -z "${DISPLAY:-}" ]; then exec xvfb-run -a bash "$0" "$@"; fi
export WINEPREFIX=${WINEPREFIX:-$out.setup/wineprefix} WINEDEBUG=-all
# a crash ends its program with an error instead of starting Wine's debugger, which waits for a
# terminal that never comes (a CI run once sat there until its time ran out); and no program may
# run longer than `limit` seconds
export WINEDLLOVERRIDES="winedbg.exe=d${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
limit=600
wine_bin=$(command -v wine)
wine() { timeout -k 10 "$limit" "$wine_bin" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
result() { # name, status
  if [ "$2" -eq 0 ]; then echo "  wine PASS $1"; else echo "  wine FAIL $1"; failed=$((failed + 1)); fi
}
exe="$out/examples/strix.exe"
wine wineboot --init >/dev/null 2>&1 || true
wineserver -w # the prefix is made before the first program runs
wine "$exe" --help >"$work/help.txt" 2>&1; s=$?
grep -q "usage:" "$work/help.txt" || s=1
result "strix.exe --help" $s
wine "$exe" demo --backend cpu >"$work/demo-cpu.txt" 2>&1; s=$?
grep -q "gather 1" "$work/demo-cpu.txt" || s=1
result "strix.exe demo --backend cpu" $s
wine "$exe" demo --bogus >/dev/null 2>&1; s=$?
[ "$s" -eq 2 ]; result "strix.exe demo --bogus exits 2" $?
# Vulkan through Wine: the 24 examples bit for bit against the CPU
wine "$exe" demo --backend vulkan >"$work/demo-vk.txt" 2>&1; s=$?
same=$(grep -c "the same output, bit for bit" "$work/demo-vk.txt")
{ [ "$same" -eq 24 ] && ! grep -q "DIFFERENT" "$work/demo-vk.txt"; } || s=1
result "strix.exe demo --backend vulkan ($same of 24 bit for bit, $(head -n1 "$work/demo-vk.txt" | sed 's/.*Vulkan on //'))" $s
# the examples, on Vulkan (each falls back to the CPU without it, which counts as a failure here)
for ex in embedding_lookup image_pad kv_cache_append sparse_update vulkan_interop; do
  wine "$out/examples/$ex.exe" >"$work/$ex.txt" 2>&1; s=$?
  grep -q "Vulkan not available" "$work/$ex.txt" && s=1
  result "$ex.exe on Vulkan" $s
done
# the tool against NumPy: a wrapper that runs strix.exe, the .npy paths reaching it through
# Wine's Z: drive
printf '#!/bin/sh\nexec wine "%s" "$@"\n' "$exe" >"$work/strix"
chmod +x "$work/strix"
/usr/bin/python3 "$root/scripts/check_tool.py" "$work/strix" --backend cpu --limit 60 >"$work/numpy.txt" 2>&1; s=$?
result "strix.exe against NumPy, 60 cases on the CPU ($(tail -n1 "$work/numpy.txt"))" $s
/usr/bin/python3 "$root/scripts/check_tool.py" "$work/strix" --backend vulkan --limit 20 >"$work/numpy-vk.txt" 2>&1; s=$?
result "strix.exe against NumPy, 20 cases on Vulkan ($(tail -n1 "$work/numpy-vk.txt"))" $s
# the unit tests (views, .npy files, float16, the operators against their references, the
# rules, hostile input, DLPack where its header was there): every case, Windows's CRT and file
# system underneath
for t in strix-tests strix-dlpack1-tests; do
  [ -e "$out/test/$t.exe" ] || continue
  wine "$out/test/$t.exe" >"$work/$t.txt" 2>&1; s=$?
  result "$t.exe ($(grep -E "All tests passed|test cases" "$work/$t.txt" | tail -n1))" $s
  [ "$s" -ne 0 ] && tail -n 40 "$work/$t.txt"
done
[ "$failed" -eq 0 ]
