#!/usr/bin/env bash
# On the GPU machine: tunes the language-feature examples whose speed depends most on
# their config (benchmarks/tune_cases_lang.txt: jagged_sum, dropout, grouped_gemm, quick
# effort) into $OUT/h100/KERNEL.quick.json, then runs scripts/lang3_gpu_check.sh and
# scripts/grouped_gemm_gpu_check.sh with those files (each entry keyed by the shapes
# and dtypes it was tuned for), so the timings next to torch are of tuned kernels.
#
#   bash scripts/unpack_helionc.sh && OUT=$OUT bash scripts/tuned_lang_gpu_check.sh
#
# Needs what benchmarks/tune.sh and the two check scripts need. SKIP_TUNE=DIR uses the
# KERNEL.quick.json files in DIR instead of tuning. Logs: $OUT/tune.log, $OUT/lang3.log,
# $OUT/grouped.log; exit 1 when a step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/tuned-lang-gpu-check}
status=0
cfg=$(bash "$root/scripts/tune_cases_gpu.sh" "$root/benchmarks/tune_cases_lang.txt" "$out") \
  || status=1
mkdir -p "$out/cfg"
for k in jagged_sum dropout; do
  [[ -f $cfg/$k.quick.json ]] && cp "$cfg/$k.quick.json" "$out/cfg/$k.json"
done
OUT=$out BUILD_DIR=/tmp/tuned-lang3 CONFIG_DIR=$out/cfg timeout "${LANG3_LIMIT:-150}" \
  bash "$root/scripts/lang3_gpu_check.sh" > "$out/lang3.log" 2>&1 || status=1
grouped=()
[[ -f $cfg/grouped_gemm.quick.json ]] && grouped=(CONFIG="$cfg/grouped_gemm.quick.json")
env "${grouped[@]}" OUT=$out BUILD_DIR=/tmp/tuned-grouped timeout "${GROUPED_LIMIT:-150}" \
  bash "$root/scripts/grouped_gemm_gpu_check.sh" > "$out/grouped.log" 2>&1 || status=1
exit $status
