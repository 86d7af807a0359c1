#!/usr/bin/env bash
# On the GPU machine: variants of the row-fitting grouped GEMM (runtime/device/helion/
# gemm_grouped_rows.cuh, whose kExact form the compiler's grouped launcher runs) built
# with nvcc into shared libraries (test/gpu/grouped_rows.cu) and run by
# scripts/grouped_rows_check.py: checked against float64 with poisoned outputs, then
# timed side by side next to eager, one dense torch.mm and, with
# HELIONC_LIB=libgrouped_gemm.so (examples/python/build.sh of examples/grouped_gemm.cpp),
# the compiled grouped GEMM. Results: a table and
# $OUT/grouped_rows_check.json. Exit 1 when a check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${OUT:-/tmp/grouped-rows-check}
work=${BUILD_DIR:-/tmp/grouped-rows-build}
mkdir -p "$out" "$work"
# Variants: exact (hd::RowBoxes::kExact, one TMA box of each tile's height, what the
# compiler runs) and sk (the same with a stream-K workspace: the last wave split in k
# where it pays), each with its tiles group by group and in order of decreasing height
# (-h, the compiler's).
build() {
  "$cuda/bin/nvcc" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
    -I "$root/runtime/device" -Xcompiler -fPIC -shared "$root/test/gpu/grouped_rows.cu" \
    -L "$cuda/lib64/stubs" -lcuda "$@"
}
build -DBOXES=1 -o "$work/libgrouped_rows.so" & p1=$!
build -DBOXES=1 -DSTREAMK=1 -o "$work/libgrouped_rows_sk.so" & p2=$!
wait $p1 && wait $p2
hl=()
[[ -n ${HELIONC_LIB:-} ]] && hl=(--helionc-lib "$HELIONC_LIB")
python3 "$root/scripts/grouped_rows_check.py" --lib "exact-h=$work/libgrouped_rows.so,height" \
  --lib "sk-h=$work/libgrouped_rows_sk.so,height" --lib "exact=$work/libgrouped_rows.so" \
  --lib "sk=$work/libgrouped_rows_sk.so" "${hl[@]}" --json "$out/grouped_rows_check.json" "$@"
