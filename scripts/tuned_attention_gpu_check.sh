#!/usr/bin/env bash
# On the GPU machine: tunes flash attention (benchmarks/tune_cases_attention.txt:
# examples/attention.cpp and attention_causal.cpp, bf16, head dims 64 and 128, quick
# effort) into $OUT/h100/KERNEL.quick.json, then runs scripts/attention_causal_gpu_check.sh
# with those files (CONFIG_DIR) and the default configs as `alt` (the same helionc), so
# tuned and default kernels are checked against float64 and timed in the same turns.
#
#   bash scripts/unpack_helionc.sh && OUT=$OUT bash scripts/tuned_attention_gpu_check.sh
#
# Needs what benchmarks/tune.sh and scripts/attention_causal_gpu_check.sh need.
# SKIP_TUNE=DIR uses the KERNEL.quick.json files in DIR. Logs: $OUT/tune.log,
# $OUT/attention.log; exit 1 when a step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/tuned-attention-gpu-check}
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
status=0
cfg=$(bash "$root/scripts/tune_cases_gpu.sh" "$root/benchmarks/tune_cases_attention.txt" "$out") \
  || status=1
mkdir -p "$out/cfg"
for k in attention attention_causal; do
  [[ -f $cfg/$k.quick.json ]] && cp "$cfg/$k.quick.json" "$out/cfg/$k.json"
done
HELIONC=$helionc ALT_HELIONC=$helionc CONFIG_DIR=$out/cfg OUT=$out BUILD_DIR=/tmp/tuned-attention \
  timeout "${ATTENTION_LIMIT:-300}" bash "$root/scripts/attention_causal_gpu_check.sh" \
  > "$out/attention.log" 2>&1 || status=1
exit $status
