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
mkdir -p "$out"
export HELIONC=${HELIONC:-/tmp/helionc/bin/helionc}
export HELIONC_CACHE_DIR=${HELIONC_CACHE_DIR:-/tmp/helionc-tune-cache}
status=0
if [[ -z ${SKIP_TUNE:-} ]]; then
  rt=/tmp/tuned-attention-rt
  bash "$root/scripts/build_runtime.sh" "$rt" > /dev/null || exit 1
  HELIONC_RUNTIME_LIB=$rt/libhelion_runtime.a OUT=$out \
    TUNE_CASES=$root/benchmarks/tune_cases_attention.txt \
    timeout "${TUNE_LIMIT:-300}" bash "$root/benchmarks/tune.sh" > "$out/tune.log" 2>&1 || status=1
  cfg=$out/h100
else
  cfg=$SKIP_TUNE
fi
mkdir -p "$out/cfg"
for k in attention attention_causal; do
  [[ -f $cfg/$k.quick.json ]] && cp "$cfg/$k.quick.json" "$out/cfg/$k.json"
done
ALT_HELIONC=$HELIONC CONFIG_DIR=$out/cfg OUT=$out BUILD_DIR=/tmp/tuned-attention \
  timeout "${ATTENTION_LIMIT:-300}" bash "$root/scripts/attention_causal_gpu_check.sh" \
  > "$out/attention.log" 2>&1 || status=1
exit $status
