#!/usr/bin/env bash
# Builds what a user compiles (the examples, which include every operator, and the Vulkan
# backend's one compiled file) as a release build (-O3) with GCC's -Wall -Wextra -Wpedantic, and
# fails on any warning. Some of GCC 12's warnings (-Wmaybe-uninitialized, -Wrestrict) appear only
# where -O3 inlines across the headers, which CI's other builds (-O0 sanitized, -O2) never do.
#   scripts/release_check.sh [BUILD_DIR]   (default build-release)
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-release}
if [ ! -f "$dir/build.ninja" ]; then
  log=$(mktemp)
  # (from a directory of its own: meson's CMake module runs `cmake --system-information` in the
  # working directory, whose scratch folder another meson setup beside it would share)
  root=$PWD
  mkdir -p "$dir"
  (cd "$dir" && meson setup . "$root" --buildtype=release -Dtests=false -Dbenchmarks=false) > "$log" 2>&1 ||
    { tail -n 20 "$log"; rm -f "$log"; exit 1; }
  rm -f "$log"
fi
meson compile -C "$dir" > "$dir/compile.log" 2>&1 || { tail -n 40 "$dir/compile.log"; exit 1; }
if grep -q "warning:" "$dir/compile.log"; then
  grep -E -m 20 "warning:|inlined from.*strix" "$dir/compile.log"
  exit 1
fi
echo "release build (-O3, warning_level 3): no warnings in $(grep -c 'Compiling' "$dir/compile.log") translation units"
