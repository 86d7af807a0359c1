#!/usr/bin/env bash
# Builds the runtime library without CMake or LLVM (the GPU machine's way):
#   scripts/build_runtime.sh BUILD_DIR [DEVICE_LIBRARY_CPP]
# compiles runtime/*.cpp and the embedded device library (DeviceLibrary.cpp, which CMake
# generates here; without the argument it is generated from runtime/device into BUILD_DIR
# with `cmake -P`, as the build does) in parallel and writes BUILD_DIR/libhelion_runtime.a (position
# independent: it links into shared libraries too). Link it with -ldl
# -Wl,--undefined=helion_rt_install_cuda_backend; libcuda and NVRTC are opened at run time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$1
devlib=${2:-}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$bin"
if [[ -z $devlib ]]; then
  devlib=$bin/DeviceLibrary.cpp
  headers=$(sed -n '/^set(HELION_DEVICE_HEADERS/,/)/p' "$root/runtime/CMakeLists.txt" |
    grep -o 'helion/[a-z0-9_]*\.cuh' | paste -sd';')
  cmake -DDEVICE_DIR="$root/runtime/device" -DOUTPUT="$devlib" "-DHEADERS=$headers" \
    -P "$root/runtime/EmbedDeviceLibrary.cmake" > /dev/null
fi
objs=()
for src in "$root"/runtime/*.cpp "$devlib"; do
  obj=$bin/rt_$(basename "$src" .cpp).o
  g++ -std=c++20 -O2 -fPIC -c -I "$root/include" -I "$root/runtime" -I "$cuda/include" "$src" -o "$obj" &
  objs+=("$obj")
done
for job in $(jobs -p); do wait "$job"; done
ar rcs "$bin/libhelion_runtime.a" "${objs[@]}"
