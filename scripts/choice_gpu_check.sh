#!/usr/bin/env bash
# On the GPU machine: run-time choice among the candidates of a "choose" entry
# (configs/README.md). Compiles test/gpu/kernels/accumulate.cpp (acc += x, in place) and
# examples/matmul.cpp with a slow and a fast candidate each (test/gpu/choice/*.json), builds
# test/gpu/choice_check.cpp over them and the runtime, and runs it with
# HELIONC_PRINT_CHOICE=1: each kernel's candidates timed alone, then the launcher's own
# choice (it must run the fastest) and the results (acc0 + x after one call, acc0 + 2x after
# two: the timing ran on scratch copies; the matmul against float64 dots).
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/choice_gpu_check.sh
#
# Needs helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME). Work files: $BUILD_DIR
# (default /tmp/choice-gpu-check). Output: stdout and $OUT/choice_gpu_check.log. Exit 1 on
# any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
cuda=${CUDA_HOME:-/usr/local/cuda}
work=${BUILD_DIR:-/tmp/choice-gpu-check}
out=${OUT:-/tmp/choice-gpu-check-out}
rm -rf "$work"
mkdir -p "$work/gen" "$out"
[[ -x $helionc ]] || { echo "error: no helionc at $helionc (set HELIONC)" >&2; exit 1; }
export HELIONC_HL_INCLUDE=${HELIONC_HL_INCLUDE:-$root/include}

echo "== runtime"
bash "$root/scripts/build_runtime.sh" "$work/rt"

echo "== helionc compile (choose entries)"
"$helionc" compile "$root/test/gpu/kernels/accumulate.cpp" \
  --config "$root/test/gpu/choice/accumulate.json" -o "$work/gen"
"$helionc" compile "$root/examples/matmul.cpp" --config "$root/test/gpu/choice/matmul.json" \
  -o "$work/gen"

echo "== build"
g++ -std=c++23 -O2 -I "$root/include" -I "$cuda/include" -I "$work/gen" \
  "$root/test/gpu/choice_check.cpp" "$work/rt/libhelion_runtime.a" -ldl -pthread \
  -Wl,--undefined=helion_rt_install_cuda_backend -o "$work/choice_check"

echo "== run"
set +e
HELIONC_PRINT_CHOICE=1 "$work/choice_check" 2>&1 | tee "$out/choice_gpu_check.log"
rc=${PIPESTATUS[0]}
set -e
exit "$rc"
