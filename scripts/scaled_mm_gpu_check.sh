#!/usr/bin/env bash
# On the GPU machine: the fp8 scaled matmul (examples/scaled_mm.cpp, torch._scaled_mm
# with per-row scales) checked and timed in one run. It compiles the kernel file with
# helionc twice into shared libraries with its C entries (examples/python/build.sh):
# the default config (the sm90 kernel: TMA + wgmma m64nNk32 e4m3/e5m2) and an
# indexing-pointer config (the sm80 kernel: fp8 widened to f16, mma.sync), compiles
# cubins for $ARCH and sm_80, and runs scripts/scaled_mm_gpu_check.py: fresh random fp8
# inputs against a float64 reference of the dequantized operands, outputs NaN-poisoned
# first, timed next to torch._scaled_mm (cuBLAS fp8), torch eager dequantize-then-matmul
# and torch.compile of that.
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/scaled_mm_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME, default /usr/local/cuda),
# python3 with torch ($PYTHON) for step 3. Work files: $BUILD_DIR (default
# /tmp/scaled-mm-gpu-check-build). Results: a table on stdout and
# $OUT/scaled_mm_gpu_check.json (default OUT=/tmp/scaled-mm-gpu-check). Exit 1 when a
# check fails. DRY_RUN=1 stops after step 2 (no GPU or torch needed).
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
src=$root/examples/scaled_mm.cpp
sm80cfg=$work/sm80.json
echo '{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 4, "indexing": "pointer"}' \
  > "$sm80cfg"
HELIONC=$helionc bash "$root/examples/python/build.sh" "$src" "$work/py" "$rtlib" || status=1
HELIONC=$helionc bash "$root/examples/python/build.sh" "$src" "$work/py80" "$rtlib" \
  --config "$sm80cfg" || status=1
for a in "$arch" sm_80; do
  "$helionc" compile "$src" --kernel scaled_mm --emit cubin --arch "$a" \
    --dtype f8e4m3,scale_x=f32,scale_w=f32,out=bf16 --dtype f8e5m2,scale_x=f32,scale_w=f32,out=bf16 \
    -o "$work/cubin/$a" || status=1
done
ls "$work/py"/*.so "$work/py80"/*.so "$work/cubin"/*/*.cubin
[[ $status == 0 ]] || { echo "error: a compile failed" >&2; exit 1; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  echo "DRY_RUN=1: stopping before the GPU runs"
  exit 0
fi

echo "== 3. checks and timings"
"$python" "$root/scripts/scaled_mm_gpu_check.py" --lib "$work/py/libscaled_mm.so" \
  --lib80 "$work/py80/libscaled_mm.so" --json "$out/scaled_mm_gpu_check.json"
