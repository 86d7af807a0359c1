#!/usr/bin/env bash
# Shape-keyed dispatch on the GPU. Here (helionc needs Clang): `scripts/dispatch_check.sh gen`
# compiles examples/softmax.cpp under test/gpu/dispatch/softmax_dispatch.json into
# .carry/dispatch. On the GPU machine (no LLVM): `scripts/dispatch_check.sh run` builds
# the runtime and test/gpu/dispatch_check.cpp over it and runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/.carry/dispatch
case ${1:-} in
gen)
  rm -rf "$gen"; mkdir -p "$gen"
  "${HELIONC:-$root/build/bin/helionc}" compile "$root/examples/softmax.cpp" --kernel softmax_two_pass \
    --config "$root/test/gpu/dispatch/softmax_dispatch.json" -o "$gen"
  cp "${DEVICE_LIBRARY_CPP:-$root/build/runtime/DeviceLibrary.cpp}" "$gen/DeviceLibrary.cpp"
  echo "generated $gen" ;;
run)
  bin=${BUILD_DIR:-/tmp/helion-dispatch-check}; mkdir -p "$bin"
  cuda=${CUDA_HOME:-/usr/local/cuda}
  bash "$root/scripts/build_runtime.sh" "$bin" "$gen/DeviceLibrary.cpp"
  g++ -std=c++23 -O2 -c -I "$root/include" -I "$cuda/include" -I "$gen" \
    "$root/test/gpu/dispatch_check.cpp" -o "$bin/dispatch_check.o"
  g++ "$bin/dispatch_check.o" "$bin/libhelion_runtime.a" -ldl \
    -Wl,--undefined=helion_rt_install_cuda_backend -o "$bin/dispatch_check"
  "$bin/dispatch_check" ;;
*) echo "usage: scripts/dispatch_check.sh gen|run" >&2; exit 2 ;;
esac
