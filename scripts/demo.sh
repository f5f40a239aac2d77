#!/usr/bin/env bash
# Installs the dependencies, builds the strix tool into build/ (only what the demo needs: the
# tests and benchmarks are built by scripts/test.sh) and runs `strix demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -f build/build.ninja ] || meson setup build --buildtype=release
meson compile -C build strix
build/examples/strix demo "$@"
