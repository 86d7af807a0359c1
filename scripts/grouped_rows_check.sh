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
# Variants, all hd::RowBoxes::kExact (one TMA box of each tile's height) with the tiles
# in order of decreasing height (-h) and a stream-K workspace (the last wave split in k
# where it pays): bal-h (the row cap chosen per launch to fill the waves, 256 .. 128,
# each CTA taking the next unit from an atomic counter: what the compiler runs), static-h
# (bal-h with units dealt out statically, CTA c: c, c + P, ...) and sk-h (row tiles of up
# to 256 rows). OVERHEADS="32 48": also bal-h with the cap model's per-tile rows
# at those values (bal32-h, bal48-h). PROBE=1: first, bal-h with timing probes
# (scripts/grouped_rows_probe.py --dense: where one launch's time goes, beside the plain
# matmul template's). OLD=DIR: also "old-h",
# bal-h as DIR/runtime/device and DIR/test/gpu/grouped_rows.cu have it (another commit's
# tree, e.g. from git archive), for a before/after comparison in the same rounds.
# VARIANTS: below.
build() {
  "$cuda/bin/nvcc" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
    -I "$root/runtime/device" -Xcompiler -fPIC -shared "$root/test/gpu/grouped_rows.cu" \
    -L "$cuda/lib64/stubs" -lcuda "$@"
}
build -DSTREAMK=1 -o "$work/libgrouped_rows_bal.so" & p1=$!
build -DBALANCE=0 -DSTREAMK=1 -o "$work/libgrouped_rows_sk.so" & p2=$!
build -DSTREAMK=1 -DDYNAMIC=0 -o "$work/libgrouped_rows_static.so" & p3=$!
extra=() pids=()
# VARIANTS="s3-h:-DSTAGES=3;o32-h:-DOVERHEAD=32": more bal-h builds, each a
# name and its nvcc flags (test/gpu/grouped_rows.cu's macros), timed beside the others.
IFS=';' read -r -a variants <<< "${VARIANTS:-}"
for o in ${OVERHEADS:-}; do # OVERHEADS="32 48": bal32-h, bal48-h
  variants+=("bal$o-h:-DOVERHEAD=$o")
done
for v in "${variants[@]}"; do
  [[ -z $v ]] && continue
  name=${v%%:*} flags=${v#*:}
  # shellcheck disable=SC2086 # the flags are words
  build -DSTREAMK=1 $flags -o "$work/libgrouped_rows_v_$name.so" & pids+=($!)
  extra+=(--lib "$name=$work/libgrouped_rows_v_$name.so,height")
done
if [[ ${PROBE:-0} == 1 ]]; then # bal-h with timing probes: scripts/grouped_rows_probe.py
  build -DSTREAMK=1 -DPROBE -o "$work/libgrouped_rows_probe.so"
  timeout "${PROBE_TIMEOUT:-120}" python3 "$root/scripts/grouped_rows_probe.py" \
    --lib "$work/libgrouped_rows_probe.so" --dense --json "$out/grouped_rows_probe.json"
fi
wait $p1 && wait $p2 && wait $p3
if [[ -n ${OLD:-} ]]; then
  "$cuda/bin/nvcc" -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
    -I "$OLD/runtime/device" -Xcompiler -fPIC -shared "$OLD/test/gpu/grouped_rows.cu" \
    -L "$cuda/lib64/stubs" -lcuda -DSTREAMK=1 -o "$work/libgrouped_rows_old.so" & pids+=($!)
  extra+=(--lib "old-h=$work/libgrouped_rows_old.so,height")
fi
for p in "${pids[@]}"; do wait "$p"; done
hl=()
[[ -n ${HELIONC_LIB:-} ]] && hl=(--helionc-lib "$HELIONC_LIB")
python3 "$root/scripts/grouped_rows_check.py" --lib "bal-h=$work/libgrouped_rows_bal.so,height" \
  --lib "static-h=$work/libgrouped_rows_static.so,height" \
  --lib "sk-h=$work/libgrouped_rows_sk.so,height" "${extra[@]}" "${hl[@]}" \
  --json "$out/grouped_rows_check.json" "$@"
