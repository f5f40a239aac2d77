#!/usr/bin/env bash
# Builds every fuzz target (fuzz/fuzz_<name>.cpp, one translation unit each) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer into build-fuzz/, and runs each for the given
# number of seconds (default 60; as many at once as there are cores) over a copy of its seed
# corpus (fuzz/corpus/<name>/; the repository's corpus is never written). Prints one line per
# target, in order:
#   PASS fuzz-<name> (N execs)   or   FAIL fuzz-<name> (what went wrong),
# and exits non-zero when any target failed to build or found something. A finding's input is
# saved under fuzz/findings/<name>/ (not committed) and its log is build-fuzz/<name>.log.
#
# Needs clang++ and libFuzzer's runtime (Debian 12: clang and libclang-rt-14-dev; `scripts/deps.sh
# fuzz` installs them). Environment: CXX (default clang++), FUZZ_JOBS (parallel builds, default
# the number of cores), FUZZ_ARGS (extra libFuzzer arguments).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds-per-target]" >&2; exit 2 ;; esac
cxx=${CXX:-clang++}
out=build-fuzz
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Iexamples)
mkdir -p "$out"

# the toolchain: a trivial target must compile and link against libFuzzer
if ! command -v "$cxx" >/dev/null; then
  echo "FAIL fuzz (no $cxx: install clang and libclang-rt-14-dev, e.g. scripts/deps.sh fuzz)"
  exit 1
fi
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$out/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$out/probe.cpp" -o "$out/probe" 2> "$out/probe.log"; then
  echo "FAIL fuzz ($cxx cannot link -fsanitize=fuzzer: install libclang-rt-14-dev; see $out/probe.log)"
  exit 1
fi

targets=()
for src in fuzz/fuzz_*.cpp; do
  [ -e "$src" ] || continue
  name=${src#fuzz/fuzz_}
  targets+=("${name%.cpp}")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "FAIL fuzz (no targets in fuzz/)"
  exit 1
fi

# The CPU kernels are compiled once for every target, in three parts that run side by side
# (strix/cpu/kernels_instance.hpp), into an archive each target links: the targets are built with
# STRIX_SEPARATE_KERNELS, which declares them compiled elsewhere (before, each target that
# includes strix.hpp compiled all of them again, fuzz_ops alone for about 8 minutes on 2 cores).
# The kernels get the targets' instrumentation (coverage, ASan, UBSan), only not libFuzzer's main.
# A file is rebuilt when its source or any header is newer than what it made.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
kernel_flags=("${flags[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -DSTRIX_SEPARATE_KERNELS)
stale() { # made, sources... : made is missing or older than a source or a header
  [ -e "$1" ] || return 0
  local made=$1; shift
  [ -n "$(find "$@" include examples -newer "$made" \( -name '*.hpp' -o -name '*.cpp' \) -print -quit)" ]
}
build_part() { # 1..3
  local obj=$out/kernels_$1.o
  stale "$obj" include || return 0
  rm -f "$obj"
  printf '#include "strix/strix.hpp"\n#include "strix/cpu/kernels_instance.hpp"\n' > "$out/kernels_$1.cpp"
  "$cxx" "${kernel_flags[@]}" -DSTRIX_KERNELS_PART="$1" -c "$out/kernels_$1.cpp" -o "$obj" > "$out/kernels_$1.build.log" 2>&1
}
build() { # name
  local name=$1 obj=$out/fuzz_$1.o
  stale "$obj" "fuzz/fuzz_$name.cpp" || return 0
  # (and its binary: a target that no longer compiles must fail, not run the one built before)
  rm -f "$obj" "$out/fuzz-${name//_/-}"
  "$cxx" "${flags[@]}" -DSTRIX_SEPARATE_KERNELS -c "fuzz/fuzz_$name.cpp" -o "$out/fuzz_$name.o" > "$out/$name.build.log" 2>&1
}
start=$SECONDS
running=0
# the largest first: kernel parts 3 and 2, then the targets' own files and part 1
for item in part:3 part:2 "${targets[@]}" part:1; do
  case $item in part:*) build_part "${item#part:}" & ;; *) build "$item" & ;; esac
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
lib=$out/libkernels.a
if [ ! -e "$lib" ] || [ "$out/kernels_1.o" -nt "$lib" ] || [ "$out/kernels_2.o" -nt "$lib" ] || [ "$out/kernels_3.o" -nt "$lib" ]; then
  rm -f "$lib"
  ar rcs "$out/libkernels.a" "$out"/kernels_1.o "$out"/kernels_2.o "$out"/kernels_3.o 2>> "$out/kernels_1.build.log"
fi
# link (a target whose object is newer than it, or that is missing); the archive's members are
# pulled in only where a target calls the kernels
for name in "${targets[@]}"; do
  bin=$out/fuzz-${name//_/-}
  obj=$out/fuzz_$name.o
  [ -e "$obj" ] || continue
  [ -x "$bin" ] && [ "$bin" -nt "$obj" ] && [ "$bin" -nt "$out/libkernels.a" ] && continue
  "$cxx" "${flags[@]}" "$obj" "$out/libkernels.a" -o "$bin" >> "$out/$name.build.log" 2>&1 || rm -f "$bin"
done
echo "fuzz: built ${#targets[@]} targets in $((SECONDS - start)) s"

export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# each target in a process of its own (one core each), `jobs` at a time; the lines in order
fuzz_one() { # name: its PASS/FAIL line into $out/<name>.result
  local name=$1 label=fuzz-${1//_/-}
  local bin=$out/$label corpus=$out/corpus/$1 log=$out/$1.log status execs what saved
  if [ ! -x "$bin" ]; then
    echo "FAIL $label (build failed: $out/$name.build.log)" > "$out/$name.result"
    return
  fi
  rm -rf "$corpus"
  mkdir -p "$corpus" "fuzz/findings/$name"
  [ -d "fuzz/corpus/$name" ] && cp -R "fuzz/corpus/$name/." "$corpus/"
  # shellcheck disable=SC2086 # FUZZ_ARGS is a list of arguments
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="fuzz/findings/$name/" ${FUZZ_ARGS:-} "$corpus" > "$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ $status -eq 0 ]; then
    echo "PASS $label (${execs:-0} execs)" > "$out/$name.result"
  else
    what=$(grep -m 1 -E '^SUMMARY|^==[0-9]+==ERROR|runtime error|^fuzz_[a-z_]+: ' "$log" | cut -c 1-200)
    saved=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    echo "FAIL $label (${what:-exit status $status}; input ${saved:-not saved}; log $log)" > "$out/$name.result"
  fi
}
running=0
for name in "${targets[@]}"; do
  rm -f "$out/$name.result"
  fuzz_one "$name" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
failed=0
for name in "${targets[@]}"; do
  if [ -s "$out/$name.result" ]; then cat "$out/$name.result"; else echo "FAIL fuzz-${name//_/-} (no result)"; fi
  grep -q '^PASS ' "$out/$name.result" 2>/dev/null || failed=$((failed + 1))
done
[ $failed -eq 0 ]
