#!/usr/bin/env bash
# On the GPU machine: the tune step of scripts/tuned_lang_gpu_check.sh and
# scripts/tuned_attention_gpu_check.sh. Builds the runtime, then runs benchmarks/tune.sh
# over the cases of CASES (quick effort) into OUT/h100/KERNEL.quick.json, its log in
# OUT/tune.log, within $TUNE_LIMIT seconds (default 300), and prints the directory of
# the tuned files. SKIP_TUNE=DIR tunes nothing and prints DIR.
#
#   cfg=$(bash scripts/tune_cases_gpu.sh CASES OUT)
#
# HELIONC (default /tmp/helionc/bin/helionc) and HELIONC_CACHE_DIR (default
# /tmp/helionc-tune-cache) as benchmarks/tune.sh reads them. Exit 1 when a step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -n ${SKIP_TUNE:-} ]]; then
  echo "$SKIP_TUNE"
  exit 0
fi
cases=$1
out=$2
mkdir -p "$out"
export HELIONC=${HELIONC:-/tmp/helionc/bin/helionc}
export HELIONC_CACHE_DIR=${HELIONC_CACHE_DIR:-/tmp/helionc-tune-cache}
echo "$out/h100"
bash "$root/scripts/build_runtime.sh" "$out/tune-rt" > /dev/null || exit 1
HELIONC_RUNTIME_LIB=$out/tune-rt/libhelion_runtime.a OUT=$out TUNE_CASES=$cases \
  timeout "${TUNE_LIMIT:-300}" bash "$root/benchmarks/tune.sh" > "$out/tune.log" 2>&1
