#!/usr/bin/env bash
# helionc's compiled matmul on the GPU, in one run: correctness (bf16, f16, f32 as
# tf32, the bias + relu epilogue), then TFLOP/s at 4096^3 and 8192^3 of a few
# hand-chosen configs timed alternately with cuBLAS in one process (paired), then
# torch.matmul and torch.compile, and one table with the ratios. JSON under $OUT
# (matmul_check.jsonl, matmul_paired.jsonl, matmul_report.json).
#
#   scripts/matmul_check.sh build     here: the binary into .carry/mm/
#   benchmarks/matmul.sh              on the GPU machine (carry .carry/mm)
#   benchmarks/matmul.sh --no-check   timings only
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MATMUL_CHECK:-$root/.carry/mm/matmul_check}
export OUT=${OUT:-$root/build}
mkdir -p "$OUT"
rm -f "$OUT/matmul_paired.jsonl" "$OUT/matmul_check.jsonl"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv || true
rc=0
if [[ ${1:-} != --no-check ]]; then
  "$bin" 2>&1 | tee "$OUT/matmul_check.log" || rc=1
fi
"$bin" --bench 2>&1 | tee "$OUT/matmul_bench.log" || rc=1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader || true
python3 "$root/benchmarks/matmul_torch.py" --paired "$OUT/matmul_paired.jsonl" \
  --rounds "${ROUNDS:-2}" || rc=1
exit $rc
