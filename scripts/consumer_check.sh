#!/usr/bin/env bash
# Checks strix the way a user's project consumes it:
#   install     meson install into a prefix, then compile a program with `pkg-config strix`
#   subproject  a Meson project with strix under subprojects/, using dependency('strix')
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/main.cpp" <<'CPP'
#include <strix/strix.hpp>
#include <cstdio>
int main() {
    const float x[4] = {1, 2, 3, 4};
    float y[6] = {};
    strix::pad<strix::pad_desc{strix::pad_mode::reflect, {1}, {1}}>(
        strix::tensor_view<const float, strix::extents<4>>(x), strix::tensor_view<float, strix::extents<6>>(y));
    static_assert(strix::pad_extents<strix::pad_desc{strix::pad_mode::edge, {2}, {3}}>(strix::extents<4>{}) == strix::extents<9>{});
    std::printf("%g %g\n", y[0], y[5]);
    return (y[0] == 2 && y[5] == 3) ? 0 : 1;
}
CPP
case "${1:-}" in
install)
  meson setup "$work/build" "$root" --prefix="$work/prefix" -Dtests=false -Dexamples=false >/dev/null
  meson install -C "$work/build" >/dev/null
  pc=$(find "$work/prefix" -name strix.pc -printf '%h\n' | head -n1)
  flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs strix)
  # shellcheck disable=SC2086
  c++ -std=c++20 "$work/main.cpp" $flags -o "$work/app"
  "$work/app"
  # the Vulkan backend from the installed headers: one file includes volk's implementation
  cat > "$work/vk.cpp" <<'CPP'
#include <strix/vulkan.hpp>
#include <strix/vulkan/volk_implementation.hpp>
#include <cstdio>
int main() {
    strix::vulkan::context ctx;
    const float x[3] = {1, 2, 3};
    float y[5] = {};
    strix::vulkan::pad(ctx, strix::any_cview(x, strix::dtype::float32, {3}), strix::any_view(y, strix::dtype::float32, {5}),
                       strix::pad_desc{strix::pad_mode::symmetric, {1}, {1}});
    std::printf("%s: %g %g\n", ctx.device().name.c_str(), y[0], y[4]);
    return (y[0] == 1 && y[4] == 3 && ctx.validation_messages() == 0) ? 0 : 1;
}
CPP
  # shellcheck disable=SC2086
  c++ -std=c++20 "$work/vk.cpp" $flags -o "$work/vk"
  "$work/vk"
  ;;
subproject)
  mkdir -p "$work/app/subprojects"
  ln -s "$root" "$work/app/subprojects/strix"
  cat > "$work/app/meson.build" <<'MESON'
project('app', 'cpp', default_options: ['cpp_std=c++20'])
strix = dependency('strix', fallback: ['strix', 'strix_dep'])
executable('app', 'main.cpp', dependencies: strix)
MESON
  cp "$work/main.cpp" "$work/app/main.cpp"
  meson setup "$work/app/build" "$work/app" --force-fallback-for=strix >/dev/null
  meson compile -C "$work/app/build" >/dev/null
  # tests, examples and benchmarks are not built for a parent project
  if find "$work/app/build" -name 'strix-tests*' -o -name 'strix' -type f | grep -q .; then
    echo "strix's own targets were built inside the parent project"; exit 1
  fi
  "$work/app/build/app"
  ;;
*) echo "usage: $0 install|subproject"; exit 2 ;;
esac
