#!/usr/bin/env bash
# On the GPU machine: examples/grouped_gemm.cpp (grouped GEMM over row offsets, the
# matmul template's grouped form; issue 14) checked and timed in one run. It compiles
# the kernel file with helionc twice (the default config, and 128x128 with 8 warps and
# 5 stages as `alt`), builds shared libraries with their C entries
# (examples/python/build.sh), compiles the cubins for $ARCH and sm_80, and runs
# scripts/grouped_gemm_gpu_check.py: fresh random bf16 / f16 / f32 inputs and group
# sizes (random with an empty group and sizes off the tile, uniform G=8 x 1024 and x 2048
# rows with k = n = 4096, MoE-like G=64 x 256 rows with k = 4096, n = 1024), outputs
# NaN-poisoned, against float64; timed next to a loop of torch.mm per group (eager),
# torch.compile of that loop and torch._grouped_mm (when torch has it), in TFLOP/s.
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/grouped_gemm_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME, default /usr/local/cuda),
# python3 with torch ($PYTHON) for step 3. $ARCH (default sm_90a): the cubins of step 2.
# CONFIG: a config file (`helionc tune -o` output) for the main library instead of the
# default config.
# Work files: $BUILD_DIR (default /tmp/grouped-gemm-gpu-check-build). Results: a table on
# stdout and $OUT/grouped_gemm_gpu_check.json (default OUT=/tmp/grouped-gemm-gpu-check).
# Exit 1 when a check fails. DRY_RUN=1 stops after step 2 (no GPU or torch needed).
# ALT_GENERAL=1: `alt` is the kernel on the general lowering of hl::dot (compiled with
# HELIONC_GENERAL_DOTS=1, its default config) instead of the 128x128 config.
# ALT_HELIONC=PATH: `alt` is the default config compiled by that helionc (an older build,
# for a before/after comparison in one run; ALT_LABEL names it).
# Arguments go to the .py (e.g. --cases uniform,random --paired 40). The timed cases are
# also timed paired (alternately, order shuffled each round) with eager, "whole", torch.mm of all rows
# with b[0] and examples/matmul.cpp on the same (a third library, built here).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
python=${PYTHON:-python3}
arch=${ARCH:-sm_90a}
work=${BUILD_DIR:-/tmp/grouped-gemm-gpu-check-build}
out=${OUT:-/tmp/grouped-gemm-gpu-check}
rm -rf "$work"
mkdir -p "$work" "$out"
[[ -x $helionc ]] || { echo "error: no helionc at $helionc (set HELIONC)" >&2; exit 1; }

echo "== 1. runtime"
bash "$root/scripts/build_runtime.sh" "$work/rt"
rtlib=$work/rt/libhelion_runtime.a

echo "== 2. helionc: host files and libraries; cubins for $arch and sm_80 (NVRTC)"
status=0
src=$root/examples/grouped_gemm.cpp
alt='{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "indexing": "tensor_descriptor"}'
echo "$alt" > "$work/alt.json"
alt_args=(--config "$work/alt.json")
alt_label="128x128 s5 c1"
if [[ ${ALT_GENERAL:-0} == 1 ]]; then # alt: the general lowering of hl::dot, default config
  alt_args=()
  alt_label="the general lowering (HELIONC_GENERAL_DOTS=1)"
fi
alt_helionc=$helionc
if [[ -n ${ALT_HELIONC:-} ]]; then # alt: another helionc's default config
  alt_args=()
  alt_helionc=$ALT_HELIONC
  alt_label=${ALT_LABEL:-"helionc at $ALT_HELIONC"}
fi
config=()
[[ -n ${CONFIG:-} ]] && config=(--config "$CONFIG")
HELIONC=$helionc bash "$root/examples/python/build.sh" "$src" "$work/py" "$rtlib" "${config[@]}" || status=1
HELIONC_GENERAL_DOTS=${ALT_GENERAL:-0} HELIONC=$alt_helionc bash "$root/examples/python/build.sh" \
  "$src" "$work/py-alt" "$rtlib" "${alt_args[@]}" || status=1
HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/matmul.cpp" \
  "$work/py-mm" "$rtlib" || status=1
for a in "$arch" sm_80; do
  "$helionc" compile "$src" --kernel grouped_gemm --emit cubin --arch "$a" \
    --dtype bf16,offsets=i32 --dtype f16,offsets=i64 --dtype f32,offsets=i32 \
    -o "$work/cubin/$a" || status=1
done
ls "$work/py"/*.so "$work/py-alt"/*.so
[[ $status == 0 ]] || { echo "error: a compile failed" >&2; exit 1; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  echo "DRY_RUN=1: stopping before the GPU runs"
  exit 0
fi

echo "== 3. checks and timings"
"$python" "$root/scripts/grouped_gemm_gpu_check.py" --libdir "$work/py" \
  --alt-libdir "$work/py-alt" --alt-label "$alt_label" --matmul-libdir "$work/py-mm" \
  --json "$out/grouped_gemm_gpu_check.json" "$@"
