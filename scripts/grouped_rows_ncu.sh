#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's view of the row-fitting grouped GEMM (an nvcc build
# of test/gpu/grouped_rows.cu, as scripts/grouped_rows_check.sh makes), of helionc's
# plain matmul (MATMUL_LIB) and of cuBLAS (--dense: torch.mm, its kernels named nvjet,
# gemm or cutlass) on the same rows (scripts/grouped_rows_ncu.py), second launches only:
# speed of light, memory, warp stalls and the tensor pipe. The clocks are left alone.
#   ROWS_LIB=libgrouped_rows.so [MATMUL_LIB=libmatmul.so] bash scripts/grouped_rows_ncu.sh \
#       [--dense] [--sizes 8192 --k 4096]
# Result: $OUT/grouped_rows_ncu.txt (default OUT=/tmp/grouped-rows-ncu).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/grouped-rows-ncu}
mkdir -p "$out"
metrics=lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,lts__t_bytes.sum,smsp__cycles_active.avg
mm=()
[[ -n ${MATMUL_LIB:-} ]] && mm=(--matmul-lib "$MATMUL_LIB")
kernels='regex:grouped_rows_kernel|matmul|nvjet|gemm|cutlass'
n=$((1 + ${#mm[@]} / 2)) && [[ " $* " == *" --dense "* ]] && n=$((n + 1))
ncu --clock-control none -k "$kernels" --launch-skip "$n" --launch-count "$n" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section ComputeWorkloadAnalysis --section LaunchStats --metrics "$metrics" \
  python3 "$root/scripts/grouped_rows_ncu.py" --lib "$ROWS_LIB" "${mm[@]}" "$@" \
  > "$out/grouped_rows_ncu.txt" 2>&1
shown="grouped_rows_kernel|matmul|nvjet|gemm|cutlass|Duration|Frequency|Tensor|hit_rate"
shown+="|dram__bytes|lts__t_bytes|Throughput"
grep -E "$shown|Stall|Warp Cycles" "$out/grouped_rows_ncu.txt" | head -80
