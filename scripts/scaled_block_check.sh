#!/usr/bin/env bash
# On the GPU machine: variants of the block-scaled fp8 GEMM (hd::Gemm's K-scale mainloop,
# what examples/scaled_mm_block.cpp compiles to) built with nvcc from
# test/gpu/scaled_block.cu into shared libraries and run by scripts/scaled_block_check.py:
# checked against float64 with poisoned outputs, then timed paired next to
# torch._scaled_mm with block-wise scales. VARIANTS: NAME:NVCC-FLAGS entries separated by
# ';' (flags -DTILE_M=, -DTILE_N=, -DCONSUMERS=, -DSTAGES=, -DCLUSTER=, -DGROUPM=,
# -DNOSCALE=1, -DAUTO=1 (2 or 3 consumers per call by a wave model), and
# -I DIR to put DIR's headers ahead of runtime/device's). Results: a table and
# $OUT/scaled_block_check.json. Exit 1 when a check fails.
# NCU=1: instead, profiles each variant and torch._scaled_mm once at NCU_SHAPE (default
# 4096x4096x4096) with ncu: $OUT/ncu_NAME.txt (sections: throughput, warp states,
# occupancy) and $OUT/ncu_NAME_hot.txt (scripts/ncu_hot_sass.py: the SASS lines with the
# most stall samples and the hot loop in program order).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${OUT:-/tmp/scaled-block-check}
work=${BUILD_DIR:-/tmp/scaled-block-build}
mkdir -p "$out" "$work"
variants=${VARIANTS:-"c2:;c3:-DTILE_M=192 -DCONSUMERS=3;auto:-DAUTO=1"}
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
if [[ ${NCU:-0} == 1 ]]; then
  ncu=${NCU_BIN:-$cuda/bin/ncu}
  shape=${NCU_SHAPE:-4096x4096x4096}
  sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats
    --section Occupancy --section LaunchStats --section SourceCounters --import-source no)
  profile() { # NAME KERNEL-REGEX ARGS...
    local name=$1 regex=$2
    shift 2
    timeout 150 "$ncu" "${sections[@]}" -k "regex:$regex" --launch-skip 1 --launch-count 1 \
      -f -o "$work/ncu_$name" python3 "$root/scripts/scaled_block_check.py" "$@" \
      --profile "$shape" > "$work/ncu_$name.log" 2>&1 || { tail -5 "$work/ncu_$name.log"; return; }
    "$ncu" -i "$work/ncu_$name.ncu-rep" --page details > "$out/ncu_$name.txt" 2>&1
    "$ncu" -i "$work/ncu_$name.ncu-rep" --page source --csv --print-source sass \
      > "$work/ncu_$name.csv" 2>&1
    python3 "$root/scripts/ncu_hot_sass.py" "$work/ncu_$name.csv" > "$out/ncu_${name}_hot.txt"
    grep -E "Duration|Compute \(SM\) Throughput|Registers Per" "$out/ncu_$name.txt" |
      sed "s/^/$name: /"
  }
  for spec in "${specs[@]}"; do
    name=${spec%%:*}
    profile "$name" gemm_kernel --lib "$name=$work/lib$name.so"
  done
  profile cublas 'nvjet|sm90|cutlass|xmma|gemm'
  exit 0
fi
python3 "$root/scripts/scaled_block_check.py" "${libs[@]}" --json "$out/scaled_block_check.json" "$@"
