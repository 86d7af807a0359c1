#!/usr/bin/env bash
# On the GPU machine: builds test/gpu/gemm_check.cu with nvcc and runs it
# (correctness of the device library's GEMMs at large and ragged shapes, then
# TFLOP/s next to cuBLAS in the same run). JSON lines go to
# $OUT/gemm_check.jsonl (./build/gemm_check.jsonl without $OUT); the table is
# printed last. Arguments are passed on (--quick skips 8192^3 checks and sm80
# timings). GEMM_CHECK_BIN=path runs a binary built elsewhere (e.g. here, with
# no GPU: `GEMM_CHECK_BUILD_ONLY=1 scripts/gemm_check.sh`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${OUT:-$root/build}
bin=${GEMM_CHECK_BIN:-}
if [[ -z $bin ]]; then
  bin=${BUILD_DIR:-$root/build/gemm-check}/gemm_check
  mkdir -p "$(dirname "$bin")"
  "$cuda/bin/nvcc" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
    -I "$root/runtime/device" "$root/test/gpu/gemm_check.cu" \
    -L "$cuda/lib64" -L "$cuda/lib64/stubs" -lcuda -lcublas -o "$bin"
  [[ -n ${GEMM_CHECK_BUILD_ONLY:-} ]] && { echo "built $bin"; exit 0; }
fi
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv \
  || true
"$bin" --out "$out/gemm_check${GEMM_CHECK_TAG:-}.jsonl" "$@"
