#!/usr/bin/env bash
# Builds every fuzz target (fuzz/fuzz_<name>.cpp, one translation unit each) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer into build-fuzz/, and runs each for the given
# number of seconds (default 60) over a copy of its seed corpus (fuzz/corpus/<name>/; the
# repository's corpus is never written). Prints one line per target,
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

# build (a target is rebuilt when its source or any header is newer than it), a few at a time
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
build() { # name
  local name=$1 bin=$out/fuzz-${1//_/-}
  if [ -x "$bin" ] && [ -z "$(find "fuzz/fuzz_$name.cpp" include examples -newer "$bin" \( -name '*.hpp' -o -name '*.cpp' \) -print -quit)" ]; then
    return 0
  fi
  rm -f "$bin"
  "$cxx" "${flags[@]}" "fuzz/fuzz_$name.cpp" -o "$bin" > "$out/$name.build.log" 2>&1
}
start=$SECONDS
running=0
for name in "${targets[@]}"; do
  build "$name" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
echo "fuzz: built ${#targets[@]} targets in $((SECONDS - start)) s"

export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
for name in "${targets[@]}"; do
  label=fuzz-${name//_/-}
  bin=$out/$label
  if [ ! -x "$bin" ]; then
    echo "FAIL $label (build failed: $out/$name.build.log)"
    failed=$((failed + 1))
    continue
  fi
  corpus=$out/corpus/$name
  rm -rf "$corpus"
  mkdir -p "$corpus" "fuzz/findings/$name"
  [ -d "fuzz/corpus/$name" ] && cp -R "fuzz/corpus/$name/." "$corpus/"
  log=$out/$name.log
  # shellcheck disable=SC2086 # FUZZ_ARGS is a list of arguments
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="fuzz/findings/$name/" ${FUZZ_ARGS:-} "$corpus" > "$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ $status -eq 0 ]; then
    echo "PASS $label (${execs:-0} execs)"
  else
    what=$(grep -m 1 -E '^SUMMARY|^==[0-9]+==ERROR|runtime error|^fuzz_[a-z_]+: ' "$log" | cut -c 1-200)
    saved=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    echo "FAIL $label (${what:-exit status $status}; input ${saved:-not saved}; log $log)"
    failed=$((failed + 1))
  fi
done
[ $failed -eq 0 ]
