#!/usr/bin/env bash
# Installs the dependencies, builds everything into build/ and runs `strix demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -f build/build.ninja ] || meson setup build --buildtype=release
meson compile -C build
build/examples/strix demo
