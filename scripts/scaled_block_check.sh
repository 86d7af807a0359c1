#!/usr/bin/env bash
# On the GPU machine: variants of the block-scaled fp8 GEMM (hd::Gemm's K-scale mainloop,
# what examples/scaled_mm_block.cpp compiles to) built with nvcc from
# test/gpu/scaled_block.cu into shared libraries and run by scripts/scaled_block_check.py:
# checked against float64 with poisoned outputs, then timed paired next to
# torch._scaled_mm with block-wise scales. VARIANTS: NAME:NVCC-FLAGS entries separated by
# ';' (flags -DTILE_M=, -DTILE_N=, -DCONSUMERS=, -DSTAGES=, -DCLUSTER=, -DGROUPM=, and
# -I DIR to put DIR's headers ahead of runtime/device's). Results: a table and
# $OUT/scaled_block_check.json. Exit 1 when a check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${OUT:-/tmp/scaled-block-check}
work=${BUILD_DIR:-/tmp/scaled-block-build}
mkdir -p "$out" "$work"
variants=${VARIANTS:-"c2:;c3:-DTILE_M=192 -DCONSUMERS=3"}
libs=() pids=()
IFS=';' read -ra specs <<< "$variants"
for spec in "${specs[@]}"; do
  name=${spec%%:*} flags=${spec#*:}
  # shellcheck disable=SC2086
  "$cuda/bin/nvcc" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a $flags \
    -I "$root/runtime/device" -Xcompiler -fPIC -shared "$root/test/gpu/scaled_block.cu" \
    -L "$cuda/lib64/stubs" -lcuda -Xptxas -v -o "$work/lib$name.so" \
    > "$work/$name.log" 2>&1 & pids+=($!)
  libs+=(--lib "$name=$work/lib$name.so")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { name=${specs[$i]%%:*}; cat "$work/$name.log" >&2; exit 1; }
done
grep -H "registers\|spill" "$work"/*.log || true
python3 "$root/scripts/scaled_block_check.py" "${libs[@]}" --json "$out/scaled_block_check.json" "$@"
