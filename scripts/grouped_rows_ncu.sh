#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's view of the row-fitting grouped GEMM (an nvcc build
# of test/gpu/grouped_rows.cu, as scripts/grouped_rows_check.sh makes) and of helionc's
# plain matmul on the same rows (scripts/grouped_rows_ncu.py), second launches only:
# speed of light, memory, warp stalls and the tensor pipe. The clocks are left alone.
#   ROWS_LIB=libgrouped_rows.so MATMUL_LIB=libmatmul.so bash scripts/grouped_rows_ncu.sh \
#       [--sizes 8192 --k 4096]
# Result: $OUT/grouped_rows_ncu.txt (default OUT=/tmp/grouped-rows-ncu).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/grouped-rows-ncu}
mkdir -p "$out"
metrics=lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,lts__t_bytes.sum,smsp__cycles_active.avg
ncu --clock-control none -k 'regex:grouped_rows_kernel|matmul' --launch-skip 2 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section ComputeWorkloadAnalysis --section LaunchStats --metrics "$metrics" \
  python3 "$root/scripts/grouped_rows_ncu.py" --lib "$ROWS_LIB" --matmul-lib "$MATMUL_LIB" "$@" \
  > "$out/grouped_rows_ncu.txt" 2>&1
shown="grouped_rows_kernel|matmul|Duration|Tensor|hit_rate|dram__bytes|lts__t_bytes|Throughput"
grep -E "$shown|Stall|Warp Cycles" "$out/grouped_rows_ncu.txt" | head -80
