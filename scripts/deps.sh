#!/usr/bin/env bash
# Installs what strix needs to build and test on Debian 12 (skipped when everything is present);
# with the argument `bench`, also what the benchmark plots need; with `peers`, also the benchmarks'
# PyTorch CPU peer; with `fuzz`, only what the fuzz targets need; with `consumers`, only what CI's
# consumer and Windows checks need.
set -euo pipefail
packages=(g++ meson ninja-build pkg-config catch2 python3 python3-numpy python3-onnx
          libvulkan-dev libvulkan-volk-dev glslang-tools mesa-vulkan-drivers vulkan-validationlayers
          libdlpack-dev spirv-tools)
# `deps.sh bench`: also what bench/make_results.sh draws its plots with
[ "${1:-}" = bench ] && packages+=(python3-matplotlib)
# `deps.sh peers`: also PyTorch for bench/torch_peer.py --device cpu (Debian's 1.13; NumPy, the
# other CPU peer, is in the list above) and Eigen, whose Tensor expressions bench/eigen_chains
# runs beside strix's chains. About 780 MB, so CI, which runs no peer, never asks.
[ "${1:-}" = peers ] && packages+=(python3-torch libeigen3-dev)
# `deps.sh fuzz`: only what scripts/fuzz.sh needs (clang with libFuzzer and the sanitizers' runtime)
[ "${1:-}" = fuzz ] && packages=(clang libclang-rt-14-dev)
# `deps.sh consumers`: only what CI's checks of consumers and of Windows need (CMake, the MinGW
# cross compiler, Wine with a virtual display), which their scripts would otherwise each install
[ "${1:-}" = consumers ] && packages=(cmake g++-mingw-w64-x86-64-posix wine wine64 xvfb xauth)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing: ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
