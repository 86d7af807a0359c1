#!/usr/bin/env bash
# Builds a shared library with the C entries of one kernel file, for helionc_ctypes.py:
#   examples/python/build.sh KERNEL.cpp OUT_DIR RUNTIME_LIB [helionc compile options...]
# e.g. (this checkout, built with CMake into build/):
#   examples/python/build.sh examples/softmax.cpp build/py build/runtime/libhelion_runtime.a \
#     --kernel softmax --aot-arch sm_90a --dtype f32 --dtype bf16
# writes OUT_DIR/STEM.helion.cpp and OUT_DIR/libSTEM.so. HELIONC: the helionc to use
# (default build/bin/helionc); CUDA_HOME: where cuda.h is (default /usr/local/cuda).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$1 out=$2 runtime=$3
shift 3
helionc=${HELIONC:-$root/build/bin/helionc}
cuda=${CUDA_HOME:-/usr/local/cuda}
stem=$(basename "$src" .cpp)
mkdir -p "$out"
"$helionc" compile "$src" -o "$out" "$@"
# -DHELIONC_C_API compiles the extern "C" entries; the runtime is linked in whole (its
# C functions, helion_rt_last_error..., are exported with them). The runtime archive
# must be position independent (CMake's and scripts/build_runtime.sh's are).
g++ -std=c++23 -O2 -shared -fPIC -DHELIONC_C_API -I "$root/include" -I "$cuda/include" \
  "$out/$stem.helion.cpp" -Wl,--whole-archive "$runtime" -Wl,--no-whole-archive -ldl -pthread \
  -o "$out/lib$stem.so"
echo "$out/lib$stem.so"
