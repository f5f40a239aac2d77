#!/usr/bin/env bash
# Cross-compiles the library, the strix tool (with the Vulkan backend: volk opens vulkan-1.dll
# at run time), the examples and the test programs for 64-bit Windows with Debian's mingw-w64.
# Platform-neutral headers (Vulkan's, volk's, Catch2's) come from the Debian packages through a
# folder of links, so no Linux system header reaches the Windows compiler.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-windows}
if ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends g++-mingw-w64-x86-64-posix
fi
headers="$out-headers"
rm -rf "$headers" && mkdir -p "$headers"
for h in vulkan vk_video volk.h volk.c catch2; do ln -s "/usr/include/$h" "$headers/$h"; done
cross="$out-cross.ini"
cat > "$cross" <<INI
[binaries]
c = 'x86_64-w64-mingw32-gcc-posix'
cpp = 'x86_64-w64-mingw32-g++-posix'
ar = 'x86_64-w64-mingw32-ar'
strip = 'x86_64-w64-mingw32-strip'
windres = 'x86_64-w64-mingw32-windres'
pkg-config = 'false'

[built-in options]
cpp_args = ['-isystem', '$headers']
cpp_link_args = ['-static', '-static-libgcc', '-static-libstdc++']

[host_machine]
system = 'windows'
cpu_family = 'x86_64'
cpu = 'x86_64'
endian = 'little'
INI
rm -rf "$out"
# a compile check: no optimisation (it took most of CI's 13 minutes on install, cross build and subproject)
meson setup "$out" "$root" --cross-file "$cross" -Dvulkan=enabled --buildtype=plain -Dbenchmarks=false >/dev/null
meson compile -C "$out"
ls -la "$out"/examples/*.exe "$out"/test/*.exe
