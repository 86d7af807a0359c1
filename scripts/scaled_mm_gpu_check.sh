#!/usr/bin/env bash
# On the GPU machine: the fp8 scaled matmuls checked and timed in one run:
# examples/scaled_mm.cpp (torch._scaled_mm with per-row scales) and
# examples/scaled_mm_block.cpp (per-block scales, DeepSeek-V3 / vLLM block fp8). It compiles
# each kernel file with helionc twice into shared libraries with its C entries
# (examples/python/build.sh): the default config (the sm90 kernel: TMA + wgmma m64nNk32
# e4m3/e5m2) and an indexing-pointer config (the sm80 kernel: fp8 widened to f16,
# mma.sync), compiles cubins for $ARCH and sm_80, and runs scripts/scaled_mm_gpu_check.py
# and scripts/scaled_mm_block_gpu_check.py: fresh random fp8 inputs against a float64
# reference of the dequantized operands, outputs NaN-poisoned first, timed next to
# torch._scaled_mm (cuBLAS fp8, where this torch takes the scales), torch eager
# dequantize-then-matmul and torch.compile of that.
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/scaled_mm_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME, default /usr/local/cuda),
# python3 with torch ($PYTHON) for step 3. Work files: $BUILD_DIR (default
# /tmp/scaled-mm-gpu-check-build). Results: tables on stdout and
# $OUT/scaled_mm_gpu_check.json, $OUT/scaled_mm_block_gpu_check.json (default
# OUT=/tmp/scaled-mm-gpu-check). Exit 1 when a check fails. DRY_RUN=1 stops after step 2
# (no GPU or torch needed). ONLY=scaled_mm or ONLY=scaled_mm_block runs one of the two.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
python=${PYTHON:-python3}
arch=${ARCH:-sm_90a}
work=${BUILD_DIR:-/tmp/scaled-mm-gpu-check-build}
out=${OUT:-/tmp/scaled-mm-gpu-check}
rm -rf "$work"
mkdir -p "$work" "$out"
[[ -x $helionc ]] || { echo "error: no helionc at $helionc (set HELIONC)" >&2; exit 1; }

echo "== 1. runtime"
bash "$root/scripts/build_runtime.sh" "$work/rt"
rtlib=$work/rt/libhelion_runtime.a

echo "== 2. helionc: host files and libraries (default and sm80 configs); cubins for $arch and sm_80"
status=0
sm80cfg=$work/sm80.json
kernels=(scaled_mm scaled_mm_block)
[[ -n ${ONLY:-} ]] && kernels=("$ONLY")
for kernel in "${kernels[@]}"; do
  src=$root/examples/$kernel.cpp
  # scaled_mm_block fixes its column and K tiles (the scales' 128): the config sets tm only.
  if [[ $kernel == scaled_mm ]]; then bs='[128, 128, 64]'; else bs='[128]'; fi
  echo "{\"block_sizes\": $bs, \"num_warps\": 8, \"num_stages\": 4, \"indexing\": \"pointer\"}" \
    > "$sm80cfg"
  HELIONC=$helionc bash "$root/examples/python/build.sh" "$src" "$work/$kernel/py" "$rtlib" ||
    status=1
  HELIONC=$helionc bash "$root/examples/python/build.sh" "$src" "$work/$kernel/py80" "$rtlib" \
    --config "$sm80cfg" || status=1
  for a in "$arch" sm_80; do
    "$helionc" compile "$src" --kernel "$kernel" --emit cubin --arch "$a" \
      --dtype f8e4m3,scale_x=f32,scale_w=f32,out=bf16 \
      --dtype f8e5m2,scale_x=f32,scale_w=f32,out=bf16 -o "$work/$kernel/cubin/$a" || status=1
  done
  ls "$work/$kernel/py"/*.so "$work/$kernel/py80"/*.so "$work/$kernel/cubin"/*/*.cubin
done
[[ $status == 0 ]] || { echo "error: a compile failed" >&2; exit 1; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  echo "DRY_RUN=1: stopping before the GPU runs"
  exit 0
fi

echo "== 3. checks and timings"
for kernel in "${kernels[@]}"; do
  "$python" "$root/scripts/${kernel}_gpu_check.py" --lib "$work/$kernel/py/lib$kernel.so" \
    --lib80 "$work/$kernel/py80/lib$kernel.so" --json "$out/${kernel}_gpu_check.json" ||
    status=1
done
exit $status
