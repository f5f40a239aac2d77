#!/usr/bin/env bash
# Installs the dependencies, builds everything into build/ and runs the whole test suite.
# Ends with one line "N passed, N failed, N skipped" counted from meson's test log. The compiler's
# output is kept in build/compile.log (CI checks that it holds no warning).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh || exit 1
[ -f build/build.ninja ] || meson setup build || exit 1
meson compile -C build 2>&1 | tee build/compile.log
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
meson test -C build --print-errorlogs --num-processes 2
status=$?
python3 scripts/summarize.py build/meson-logs/testlog.json
exit $status
