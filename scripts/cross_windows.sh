#!/usr/bin/env bash
# Cross-compiles the library, the strix tool (with the Vulkan backend: volk opens vulkan-1.dll
# at run time), the examples and the unit test program (strix-tests.exe; not the Vulkan test
# programs, whose compile would cost CI minutes the demo and the examples already cover) for
# 64-bit Windows with Debian's mingw-w64.
# Platform-neutral headers (Vulkan's, volk's, Catch2's) come from the Debian packages through a
# folder of links, so no Linux system header reaches the Windows compiler.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-windows}
case $out in /*) ;; *) out=$PWD/$out ;; esac # (the setup below runs in another directory)
if ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends g++-mingw-w64-x86-64-posix
fi
# the cross file and the header links live in a folder beside the build (ignored like it), so
# nothing untracked is left in the source tree
setup="$out.setup"
headers="$setup/headers"
rm -rf "$setup" && mkdir -p "$headers"
for h in vulkan vk_video volk.h volk.c catch2 dlpack; do [ -e "/usr/include/$h" ] && ln -s "/usr/include/$h" "$headers/$h"; done
cross="$setup/cross.ini"
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
# a compile check at -O1: quicker than -O2 (install, cross build and subproject took 13 of CI's
# minutes at release), and unlike -O0 it inlines enough that no object outgrows COFF's string table
# (from the setup folder: meson's CMake module runs `cmake --system-information` in the working
# directory, whose scratch folder a meson setup running beside this one would share)
(cd "$setup" && meson setup "$out" "$root" --cross-file "$cross" -Dvulkan=enabled -Doptimization=1 -Ddebug=false -Dbenchmarks=false -Dtests=true >/dev/null)
# every program but the Vulkan test program
targets=$(ninja -C "$out" -t targets all | grep -oE '^[^: ]+\.exe' | grep -v 'strix-vulkan-')
ninja -C "$out" $targets 2>&1 | tee "$setup/compile.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
ls -la "$out"/examples/*.exe "$out"/test/*.exe
# warning-free, as the native build
warnings=$(grep -c "warning:" "$setup/compile.log" || true)
echo "cross build: $warnings compiler warnings"
[ "$warnings" -eq 0 ]
