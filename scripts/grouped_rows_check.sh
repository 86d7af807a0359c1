#!/usr/bin/env bash
# On the GPU machine: the row-fitting grouped GEMM prototype (runtime/device/helion/
# gemm_grouped_rows.cuh, not used by the compiler yet) built with nvcc into a shared
# library (test/gpu/grouped_rows.cu) and run by scripts/grouped_rows_check.py: checked
# against float64 with poisoned outputs, then timed next to eager, one dense torch.mm
# and, with HELIONC_LIB=libgrouped_gemm.so (examples/python/build.sh of
# examples/grouped_gemm.cpp), the compiled grouped GEMM. Results: a table and
# $OUT/grouped_rows_check.json. Exit 1 when a check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${OUT:-/tmp/grouped-rows-check}
work=${BUILD_DIR:-/tmp/grouped-rows-build}
mkdir -p "$out" "$work"
"$cuda/bin/nvcc" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I "$root/runtime/device" \
  -Xcompiler -fPIC -shared "$root/test/gpu/grouped_rows.cu" -L "$cuda/lib64/stubs" -lcuda \
  -o "$work/libgrouped_rows.so"
hl=()
[[ -n ${HELIONC_LIB:-} ]] && hl=(--helionc-lib "$HELIONC_LIB")
python3 "$root/scripts/grouped_rows_check.py" --lib "$work/libgrouped_rows.so" "${hl[@]}" \
  --json "$out/grouped_rows_check.json" "$@"
