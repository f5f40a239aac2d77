#!/usr/bin/env bash
# Builds the Vulkan test program with ThreadSanitizer into build-tsan/ and runs the cases where
# threads share a context: the four threads with their own streams, and the misuse cases (threads
# destroying a tensor their submitted streams read, while they make and destroy their own). Run
# by hand (about 10 minutes on 2 cores; CI's hour has no room for a third sanitized build).
# lavapipe runs under TSan; its own threads are not instrumented, so a race inside the driver is
# not what this looks for — strix's locks around the registry, frames and queue are.
#   scripts/tsan_check.sh [extra Catch2 test spec]
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f build-tsan/build.ninja ] || meson setup build-tsan -Db_sanitize=thread -Db_lundef=false --buildtype=debug -Dbenchmarks=false -Dexamples=false >/dev/null || exit 1
meson compile -C build-tsan test/strix-vulkan-tests || exit 1
# without the validation layer: its own locks are not instrumented, and TSan reports races between
# them that are not strix's (seen: a delete in the layer against its rwlock)
unset VK_LOADER_LAYERS_ENABLE
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
status=0
for spec in "vulkan: four threads with their own streams share one context" "[misuse]" "$@"; do
  echo "== $spec"
  build-tsan/test/strix-vulkan-tests "$spec" || status=1
done
exit $status
