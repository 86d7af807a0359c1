#!/usr/bin/env bash
# On the GPU machine: examples/jagged_sum.cpp under several configs, each checked against
# float64 on fresh random inputs with poisoned outputs and timed in shuffled turns next to
# torch's segment_reduce (benchmarks/jagged_configs.py). A benchmark: it prints a table
# and saves JSON; the configs are the lines of $CONFIGS (default
# benchmarks/jagged_configs.txt: a name, then a config object whose missing keys take
# the default).
#
#   bash scripts/unpack_helionc.sh && OUT=$OUT bash benchmarks/jagged_configs.sh
#
# HELIONC (default /tmp/helionc/bin/helionc); ALT_HELIONC: a second helionc whose
# default config is timed too (as "alt"). Work files: $BUILD_DIR (default
# /tmp/jagged-configs). Results: $OUT/jagged_configs.json (default OUT=/tmp/jagged-configs-out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
work=${BUILD_DIR:-/tmp/jagged-configs}
out=${OUT:-/tmp/jagged-configs-out}
configs=${CONFIGS:-$root/benchmarks/jagged_configs.txt}
rm -rf "$work"
mkdir -p "$work" "$out"
bash "$root/scripts/build_runtime.sh" "$work/rt"
rtlib=$work/rt/libhelion_runtime.a
libs=()
while read -r name cfg; do
  [[ -z $name || $name == \#* ]] && continue
  mkdir -p "$work/$name"
  printf '{"kernels": {"jagged_sum": %s}}\n' "$cfg" >"$work/$name/config.json"
  HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/jagged_sum.cpp" \
    "$work/$name" "$rtlib" --config "$work/$name/config.json" >/dev/null
  libs+=("$name=$work/$name/libjagged_sum.so")
done <"$configs"
if [[ -n ${ALT_HELIONC:-} ]]; then
  HELIONC=$ALT_HELIONC bash "$root/examples/python/build.sh" "$root/examples/jagged_sum.cpp" \
    "$work/alt" "$rtlib" >/dev/null
  libs+=("alt=$work/alt/libjagged_sum.so")
fi
python3 "$root/benchmarks/jagged_configs.py" --json "$out/jagged_configs.json" "${libs[@]}"
