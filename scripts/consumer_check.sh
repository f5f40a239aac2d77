#!/usr/bin/env bash
# Checks strix the way a user's project consumes it:
#   install     meson install into a prefix, then compile programs with `pkg-config strix` and
#               `pkg-config strix-vulkan`, and check what forgetting volk's implementation says
#   cmake       meson install, then a plain CMake project: find_package(strix 0.1 COMPONENTS
#               vulkan), strix::strix and strix::vulkan, built and run (and a version it refuses)
#   subproject  a Meson project that gets strix through a wrap file (the README's), using plain
#               dependency('strix') and dependency('strix_vulkan')
# and straight from the source tree, as the README shows (a clone of the committed HEAD, built
# with a PATH on which glslangValidator cannot be found: the committed SPIR-V is all it takes):
#   fetchcontent     a CMake project with FetchContent_Declare(strix GIT_REPOSITORY file://...)
#                    and FetchContent_MakeAvailable(strix), strix::strix and strix::vulkan
#   add_subdirectory a CMake project with add_subdirectory(strix) on the clone
#   plain            one g++ command line: -I include -I backends/vulkan, the backend's source
#                    file, -pthread -ldl
# Each builds a program that runs a pad and a gather on the CPU and through Vulkan (lavapipe
# here) and fails on any difference between the two or any validation message.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# in the work folder: meson's CMake module runs `cmake --system-information` in the working
# directory, whose scratch folder checks running beside this one would otherwise share
cd "$work"
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
# the Vulkan backend: its implementation (volk's loader and the backend's definitions) comes from
# the build system (Meson, CMake) or from one .cpp file that includes
# <strix/vulkan/implementation.hpp> (pkg-config, plain flags); the old name still forwards there
cat > "$work/vk.cpp" <<'CPP'
#include <strix/vulkan.hpp>
#if defined(WITH_IMPLEMENTATION)
#include <strix/vulkan/implementation.hpp>
#elif defined(WITH_OLD_NAME)
#include <strix/vulkan/volk_implementation.hpp>
#endif
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
# pad and gather on the CPU and through Vulkan, compared bit for bit (the one-line ways)
cat > "$work/both.cpp" <<'CPP'
#include <strix/vulkan.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
int main() {
    namespace vk = strix::vulkan;
    std::vector<float> x(12);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.375f * static_cast<float>(i) - 1.5f;
    const std::int32_t ids[5] = {2, 0, 1, 2, 2};
    const strix::any_cview input(x.data(), strix::dtype::float32, {3, 4});
    const strix::any_cview indices(ids, strix::dtype::int32, {5});
    const strix::pad_desc pad{strix::pad_mode::reflect, {1, 2}, {2, 1}};
    const strix::gather_desc gather{.axis = 0};
    std::vector<float> pad_cpu(6 * 7), pad_gpu(6 * 7, -9.0f), gather_cpu(5 * 4), gather_gpu(5 * 4, -9.0f);
    strix::pad(input, strix::any_view(pad_cpu.data(), strix::dtype::float32, {6, 7}), pad);
    strix::gather(input, indices, strix::any_view(gather_cpu.data(), strix::dtype::float32, {5, 4}), gather);
    vk::context ctx;
    vk::pad(ctx, input, strix::any_view(pad_gpu.data(), strix::dtype::float32, {6, 7}), pad);
    vk::gather(ctx, input, indices, strix::any_view(gather_gpu.data(), strix::dtype::float32, {5, 4}), gather);
    const bool same = std::memcmp(pad_cpu.data(), pad_gpu.data(), pad_cpu.size() * sizeof(float)) == 0 &&
                      std::memcmp(gather_cpu.data(), gather_gpu.data(), gather_cpu.size() * sizeof(float)) == 0;
    std::printf("%s: pad and gather %s, %d validation messages\n", ctx.device().name.c_str(),
                same ? "equal to the CPU's bit for bit" : "DIFFER from the CPU's", ctx.validation_messages());
    return same && ctx.validation_messages() == 0 ? 0 : 1;
}
CPP
install_into_prefix() {
  meson setup "$work/build" "$root" --prefix="$work/prefix" -Dtests=false -Dexamples=false -Dbenchmarks=false >/dev/null
  meson install -C "$work/build" >/dev/null
}
case "${1:-}" in
install)
  install_into_prefix
  pc=$(find "$work/prefix" -name strix.pc -printf '%h\n' | head -n1)
  flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs strix)
  # shellcheck disable=SC2086
  c++ -std=c++20 "$work/main.cpp" $flags -o "$work/app"
  "$work/app"
  vkflags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs strix-vulkan)
  # shellcheck disable=SC2086
  c++ -std=c++20 -DWITH_IMPLEMENTATION "$work/vk.cpp" $vkflags -o "$work/vk"
  "$work/vk"
  # the deprecated name of the header forwards to the new one: the program it makes is the one
  # above, token for token (preprocessed, blank lines and spaces aside; compiling it again took
  # a minute of CI for nothing more)
  # shellcheck disable=SC2086
  c++ -std=c++20 -E -P -DWITH_OLD_NAME "$work/vk.cpp" $vkflags -o "$work/vk-old.ii"
  # shellcheck disable=SC2086
  c++ -std=c++20 -E -P -DWITH_IMPLEMENTATION "$work/vk.cpp" $vkflags -o "$work/vk-new.ii"
  grep -q "strix_missing_implementation__include_strix_vulkan_implementation_hpp_in_one_cpp_file = 1" "$work/vk-new.ii"
  diff -B -w -q "$work/vk-old.ii" "$work/vk-new.ii" >/dev/null || { echo "strix/vulkan/volk_implementation.hpp no longer makes what strix/vulkan/implementation.hpp does"; exit 1; }
  echo "strix/vulkan/volk_implementation.hpp: the same program as strix/vulkan/implementation.hpp"
  # without the implementation the link fails naming the header to include
  # shellcheck disable=SC2086
  if c++ -std=c++20 "$work/vk.cpp" $vkflags -o "$work/vk-novolk" 2>"$work/novolk.txt"; then
    echo "a program without the backend's implementation linked"; exit 1
  fi
  grep -q "strix_missing_implementation__include_strix_vulkan_implementation_hpp_in_one_cpp_file" "$work/novolk.txt"
  echo "without the backend's implementation: the link names strix/vulkan/implementation.hpp"
  ;;
cmake)
  if ! command -v cmake >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends cmake
  fi
  install_into_prefix
  mkdir -p "$work/cm"
  cp "$work/main.cpp" "$work/vk.cpp" "$work/cm/"
  cat > "$work/cm/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(app CXX)
find_package(strix 0.1 REQUIRED COMPONENTS vulkan)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE strix::strix)
add_executable(vk vk.cpp)
target_link_libraries(vk PRIVATE strix::vulkan)
CMAKE
  cmake -S "$work/cm" -B "$work/cm/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$work/cm/build" >/dev/null
  "$work/cm/build/app"
  "$work/cm/build/vk"
  # a version the package does not offer is refused
  mkdir -p "$work/cm2"
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(app2 CXX)\nfind_package(strix 2.0 REQUIRED)\n' > "$work/cm2/CMakeLists.txt"
  if cmake -S "$work/cm2" -B "$work/cm2/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/cm2.txt" 2>&1; then
    echo "find_package(strix 2.0) succeeded against 0.1"; exit 1
  fi
  grep -q "0.1.0" "$work/cm2.txt"
  echo "find_package(strix 2.0): refused, naming 0.1.0"
  ;;
subproject)
  # strix as users fetch it: a wrap file (here: a git clone of this checkout's HEAD) whose
  # [provide] section lets plain dependency('strix') and dependency('strix_vulkan') find it
  mkdir -p "$work/app/subprojects"
  cat > "$work/app/subprojects/strix.wrap" <<WRAP
[wrap-git]
url = $root
revision = HEAD
depth = 1

[provide]
strix = strix_dep
strix_vulkan = strix_vulkan_dep
WRAP
  cat > "$work/app/meson.build" <<'MESON'
project('app', 'cpp', default_options: ['cpp_std=c++20'])
executable('app', 'main.cpp', dependencies: dependency('strix'))
executable('vk', 'vk.cpp', dependencies: dependency('strix_vulkan'))
MESON
  cp "$work/main.cpp" "$work/vk.cpp" "$work/app/"
  meson setup "$work/app/build" "$work/app" --force-fallback-for=strix >/dev/null
  meson compile -C "$work/app/build" >/dev/null
  # tests, examples and benchmarks are not built for a parent project
  if find "$work/app/build" -name 'strix-tests*' -o -name 'strix' -type f | grep -q .; then
    echo "strix's own targets were built inside the parent project"; exit 1
  fi
  "$work/app/build/app"
  "$work/app/build/vk"
  ;;
fetchcontent | add_subdirectory | plain)
  # what is committed, not the work tree
  git clone --quiet "$root" "$work/strix"
  head=$(git -C "$work/strix" rev-parse HEAD)
  # a PATH of links to everything on PATH but glslang: strix must build without a shader compiler
  mkdir -p "$work/path"
  IFS=: read -r -a path_dirs <<<"$PATH"
  for d in "${path_dirs[@]}"; do
    # the first directory of PATH to hold a name wins, as it does on PATH (ln keeps what is there)
    if [ -d "$d" ]; then ln -s "$d"/* "$work/path/" 2>/dev/null || true; fi
  done
  rm -f "$work/path"/glslang*
  if PATH="$work/path" command -v glslangValidator >/dev/null; then
    echo "glslangValidator is still on the PATH meant to lack it"; exit 1
  fi
  # the programs run under the Khronos validation layer (a message fails them), as CI's do
  export VK_LOADER_LAYERS_ENABLE="${VK_LOADER_LAYERS_ENABLE-*validation}"
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  case "$1" in
  fetchcontent)
    mkdir -p "$work/fc"
    cp "$work/main.cpp" "$work/both.cpp" "$work/fc/"
    cat > "$work/fc/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(app CXX)
include(FetchContent)
FetchContent_Declare(strix GIT_REPOSITORY file://$work/strix GIT_TAG $head)
FetchContent_MakeAvailable(strix)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE strix::strix)
add_executable(both both.cpp)
target_link_libraries(both PRIVATE strix::vulkan)
CMAKE
    app=$work/fc
    ;;
  add_subdirectory)
    mkdir -p "$work/as/third_party"
    mv "$work/strix" "$work/as/third_party/strix"
    cp "$work/main.cpp" "$work/both.cpp" "$work/as/"
    # this parent finds Threads itself first (fetchcontent's leaves it to strix)
    cat > "$work/as/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(app CXX)
find_package(Threads REQUIRED)
add_subdirectory(third_party/strix)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE strix::strix)
add_executable(both both.cpp)
target_link_libraries(both PRIVATE strix::vulkan Threads::Threads)
CMAKE
    app=$work/as
    ;;
  plain)
    mkdir -p "$work/plain"
    (cd "$work/strix" && PATH="$work/path" c++ -std=c++20 -pthread -I include "$work/main.cpp" -o "$work/plain/app")
    (cd "$work/strix" && PATH="$work/path" c++ -std=c++20 -pthread -I include -I backends/vulkan "$work/both.cpp" \
      backends/vulkan/volk_implementation.cpp -ldl -o "$work/plain/both")
    "$work/plain/app"
    "$work/plain/both"
    exit 0
    ;;
  esac
  PATH="$work/path" cmake -S "$app" -B "$app/build" "${generator[@]}" >"$work/configure.txt" || { cat "$work/configure.txt"; exit 1; }
  PATH="$work/path" cmake --build "$app/build" >"$work/build.txt" || { tail -n 40 "$work/build.txt"; exit 1; }
  # strix's own programs and tests are not built for a parent project, nor is any shader
  if find "$app/build" -type f \( -name strix -o -name 'strix-*tests' \) | grep .; then
    echo "strix's own targets were built inside the parent project"; exit 1
  fi
  if grep -rl --include='*.ninja' --include=Makefile --exclude-dir=strix-src glslang "$app/build" | grep .; then
    echo "the build runs glslang"; exit 1
  fi
  "$app/build/app"
  "$app/build/both"
  ;;
*) echo "usage: $0 install|cmake|subproject|fetchcontent|add_subdirectory|plain"; exit 2 ;;
esac
