#!/usr/bin/env bash
# Checks that every translation unit of the project (the examples and the tool, the benchmarks,
# the tests, the fuzz targets: between them every public header, the Vulkan backend's included)
# compiles with clang++ at -Wall -Wextra -Wpedantic without one warning. Syntax and semantic
# analysis only (-fsyntax-only): templates are instantiated, nothing is generated, so it takes a
# minute or two on 2 cores. The GCC side is the project's own build (warning_level=3), whose
# output scripts/test.sh keeps in build/compile.log for CI to read.
#
#   scripts/clang_check.sh [BUILD]   BUILD: a configured build, for the operators' test files
#                                    test/meson.build writes there (default build/)
#
# The tests whose reference is the compiler's own _Float16 arithmetic (float16_test.cpp, and the
# unit program's scatter and scatter-nd tests, through the build's test/ops_updates.cpp) are left out where clang
# has no _Float16 for the target (clang 14 on x86-64; 15 and later have it); the script says so.
# Environment: CXX (default clang++). Exits non-zero on any warning or error.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cxx=${CXX:-clang++}
cd "$root"
if ! command -v "$cxx" >/dev/null; then
  echo "clang check: no $cxx (install clang, e.g. scripts/deps.sh fuzz)"
  exit 1
fi
# the operators' tests as the test programs build them (the build's test/ops_moves.cpp and
# ops_updates.cpp, which test/meson.build writes from the operator list, each including its
# operators' files), twice: the unit program's cases, and the Vulkan program's (vulkan:)
ops=("$build/test/ops_moves.cpp" "$build/test/ops_updates.cpp")
for f in "${ops[@]}"; do
  [ -f "$f" ] || { echo "clang check: $build has no $f (configure it first)"; exit 1; }
done
# (the backend's implementation files: its definitions, the committed SPIR-V and the CPU kernels)
files=(examples/*.cpp bench/*.cpp test/*.cpp "${ops[@]}" "${ops[@]/#/vulkan:}" fuzz/*.cpp backends/vulkan/implementation_*.cpp)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '_Float16 h = 1;\n' >"$work/probe.cpp"
if ! "$cxx" -std=c++20 -fsyntax-only "$work/probe.cpp" 2>/dev/null; then
  keep=()
  for f in "${files[@]}"; do
    case $f in test/float16_test.cpp | "$build/test/ops_updates.cpp") echo "clang check: $f left out ($cxx has no _Float16 on this target)" ;; *) keep+=("$f") ;; esac
  done
  files=("${keep[@]}")
fi
if [ ! -f /usr/include/dlpack/dlpack.h ]; then
  keep=()
  for f in "${files[@]}"; do
    if [ "$f" = test/dlpack_test.cpp ]; then echo "clang check: $f left out (no dlpack/dlpack.h)"; else keep+=("$f"); fi
  done
  files=("${keep[@]}")
fi
# bench/eigen_chains.cpp runs Eigen beside strix where Eigen is installed (scripts/deps.sh peers);
# its headers are taken as system headers (their own C++20 deprecations are Eigen's)
if [ ! -f /usr/include/eigen3/unsupported/Eigen/CXX11/Tensor ]; then
  keep=()
  for f in "${files[@]}"; do
    if [ "$f" = bench/eigen_chains.cpp ]; then echo "clang check: $f left out (no Eigen: scripts/deps.sh peers)"; else keep+=("$f"); fi
  done
  files=("${keep[@]}")
fi
# (the backend's files compile with STRIX_SEPARATE_KERNELS in every build; it changes only what
# the others declare, so all take it here)
flags=(-std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -DSTRIX_HAVE_VULKAN=1 -DSTRIX_SEPARATE_KERNELS -Iinclude -Ibackends/vulkan -Iexamples "-I$build/test" -DSTRIX_TEST_VECTORS=\"test/vectors\")
export cxx work
export flags_line="${flags[*]}"
# one log per file, named after it with / as @
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -I{} bash -c 'f=${1#vulkan:}; x=""; [ "$f" != "$1" ] && x=-DSTRIX_TEST_VULKAN=1 # as the Vulkan test program builds it
    [ "$f" = test/dlpack1_test.cpp ] && x=-Itest/dlpack1 # its DLPack 1.1-shaped header
    [ "$f" = bench/eigen_chains.cpp ] && x="-isystem /usr/include/eigen3"
    $cxx $flags_line $x "$f" >"$work/$(echo "$1" | tr / @).log" 2>&1 || touch "$work/$(echo "$1" | tr / @).failed"' _ {}
status=0
n=0
for log in "$work"/*.log; do
  n=$((n + 1))
  if [ -s "$log" ] || [ -e "${log%.log}.failed" ]; then
    status=1
    echo "clang check: $(basename "${log%.log}" | tr @ /) is not clean:"
    head -n 40 "$log"
  fi
done
echo "clang check: $n translation units with $($cxx --version | head -n1), -Wall -Wextra -Wpedantic: $([ $status -eq 0 ] && echo "no warnings" || echo "warnings or errors above")"
exit $status
