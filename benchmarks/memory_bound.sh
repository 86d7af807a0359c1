#!/usr/bin/env bash
# The memory-bound benchmark, on the GPU machine, in one run: every generated
# variant (scripts/gen_gpu_check.sh made them here into .carry/gen) is checked
# and timed with CUDA events (scripts/gpu_check.sh --bench), then torch eager,
# torch.compile and a 1 GiB device copy are timed (benchmarks/torch_baselines.py),
# and benchmarks/report.py prints one table and writes $OUT/memory_bound.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export OUT=${OUT:-$(mktemp -d)}
"$root/scripts/gpu_check.sh" --bench > "$OUT/gpu_check.log" 2>&1 || { tail -20 "$OUT/gpu_check.log"; exit 1; }
grep -E "passed|FAIL" "$OUT/gpu_check.log" | tail -5
TORCH_DOT_BASELINES=0 python3 "$root/benchmarks/torch_baselines.py" > "$OUT/torch_baselines.log" 2>&1 || tail -20 "$OUT/torch_baselines.log"
python3 "$root/benchmarks/report.py" "$OUT"
