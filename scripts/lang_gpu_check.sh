#!/usr/bin/env bash
# On the GPU machine: the language-feature examples (issue 14) checked and timed in one
# run. For each of
#   examples/gelu_helper.cpp     gelu_mul      (a user helper, hl::erf)
#   examples/pointwise_math.cpp  math_mix      (pow erf floor ceil round sin cos log1p exp2 log2)
#   examples/int_hash.cpp        hash_bucket   (integer % & | ^ ~ << >>)
#   examples/argmax.cpp          arg_extremes  (hl::argmax / hl::argmin)
#   examples/histogram.cpp       histogram, scatter_add   (hl::atomic_add)
#   examples/quant_fp8.cpp       quant_fp8, dequant_fp8   (f8e4m3 tensors)
# it compiles the kernel file with helionc, builds a shared library with its C entries
# (examples/python/build.sh), and runs scripts/lang_gpu_check.py: each kernel on fresh
# random inputs against a float64 (or exact integer) torch reference, outputs NaN- or
# garbage-poisoned first, then timed next to torch eager and torch.compile.
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/lang_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME, default /usr/local/cuda),
# python3 with torch ($PYTHON) for step 3. $ARCH (default sm_90a): the cubins of step 2.
# Work files: $BUILD_DIR (default /tmp/lang-gpu-check-build). Results: a table on stdout
# and $OUT/lang_gpu_check.json (default OUT=/tmp/lang-gpu-check). Exit 1 when a check
# fails. DRY_RUN=1 stops after step 2 (no GPU or torch needed: what this script can do
# on the development machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
cuda=${CUDA_HOME:-/usr/local/cuda}
python=${PYTHON:-python3}
arch=${ARCH:-sm_90a}
work=${BUILD_DIR:-/tmp/lang-gpu-check-build}
out=${OUT:-/tmp/lang-gpu-check}
rm -rf "$work"
mkdir -p "$work" "$out"
[[ -x $helionc ]] || { echo "error: no helionc at $helionc (set HELIONC)" >&2; exit 1; }

echo "== 1. runtime"
bash "$root/scripts/build_runtime.sh" "$work/rt"
rtlib=$work/rt/libhelion_runtime.a

echo "== 2. helionc: host files and libraries; cubins for $arch (NVRTC)"
status=0
cubin() { # FILE KERNEL DTYPE...: one cubin per --dtype signature
  local file=$1 kernel=$2
  shift 2
  local flags=()
  for d in "$@"; do flags+=(--dtype "$d"); done
  "$helionc" compile "$root/examples/$file" --kernel "$kernel" --emit cubin --arch "$arch" \
    "${flags[@]}" -o "$work/cubin" || status=1
}
for file in gelu_helper pointwise_math int_hash argmax histogram quant_fp8; do
  HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/$file.cpp" "$work/py" \
    "$rtlib" || status=1
done
cubin gelu_helper.cpp gelu_mul f32 bf16
cubin pointwise_math.cpp math_mix f32 bf16
cubin int_hash.cpp hash_bucket i32 i64
cubin argmax.cpp arg_extremes f32,imax=i64,imin=i64 bf16,imax=i64,imin=i64
cubin histogram.cpp histogram f32,counts=i32
cubin histogram.cpp scatter_add f32,index=i64 bf16,index=i64,out=f32
cubin quant_fp8.cpp quant_fp8 bf16,q=f8e4m3,scale=f32 f32,q=f8e4m3,scale=f32
cubin quant_fp8.cpp dequant_fp8 f8e4m3,scale=f32,out=bf16 f8e5m2,scale=f32,out=f32
ls "$work/py"/*.so
[[ $status == 0 ]] || { echo "error: a compile failed" >&2; exit 1; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  echo "DRY_RUN=1: stopping before the GPU runs"
  exit 0
fi

echo "== 3. checks and timings"
"$python" "$root/scripts/lang_gpu_check.py" --libdir "$work/py" --json "$out/lang_gpu_check.json"
