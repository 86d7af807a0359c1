#!/usr/bin/env bash
# On the GPU machine (no LLVM needed): builds the runtime and test/gpu/gpu_check.cpp
# over the launchers in .carry/gen (made by scripts/gen_gpu_check.sh), runs the
# correctness checks, and with --bench times the anchor shapes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen=${GEN_DIR:-$root/.carry/gen} # GEN_DIR: another set of generated launchers (an A/B run)
bin=${BUILD_DIR:-/tmp/helion-gpu-check}
mkdir -p "$bin"
cuda=${CUDA_HOME:-/usr/local/cuda}
objs=()
for src in "$root"/runtime/*.cpp "$gen/DeviceLibrary.cpp"; do
  obj=$bin/$(basename "$src" .cpp).o
  g++ -std=c++20 -O2 -c -I "$root/include" -I "$root/runtime" -I "$cuda/include" "$src" -o "$obj" &
  objs+=("$obj")
done
g++ -std=c++23 -O2 -c -I "$root/include" -I "$cuda/include" -I "$gen" "$root/test/gpu/gpu_check.cpp" -o "$bin/gpu_check.o" &
wait
g++ "$bin/gpu_check.o" "${objs[@]}" -ldl \
  -Wl,--undefined=helion_rt_install_cuda_backend -o "$bin/gpu_check"
"$bin/gpu_check" "$@"
