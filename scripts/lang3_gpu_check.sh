#!/usr/bin/env bash
# On the GPU machine: the jagged-loop, scan and random-number examples (issue 14, the
# lang3 branch) checked and timed in one run. For each of
#   examples/jagged_sum.cpp  jagged_sum                 (hl::tile(start, end), bounds loaded)
#   examples/cumsum.cpp      cumsum_rows, cumprod_rows  (hl::cumsum / hl::cumprod)
#   examples/dropout.cpp     dropout                    (hl::rand: Philox4x32-10)
# it compiles the kernel file with helionc, builds a shared library with its C entries
# (examples/python/build.sh), and runs scripts/lang3_gpu_check.py: each kernel on fresh
# random inputs with poisoned outputs against a float64 torch reference (dropout: the
# mask bit for bit against a NumPy Philox4x32-10, and against Triton's tl.rand when
# Triton is there), then timed next to torch eager and torch.compile.
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/lang3_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME, default /usr/local/cuda),
# python3 with torch ($PYTHON; Triton optional) for step 3. $ARCH (default sm_90a): the cubins of
# step 2. CONFIG_DIR: a directory of config files (`helionc tune -o` output) named
# after the example (jagged_sum.json, ...), compiled with --config when there is one
# (default: each kernel's default config). Work files: $BUILD_DIR (default /tmp/lang3-gpu-check-build). Results: a table on
# stdout and $OUT/lang3_gpu_check.json (default OUT=/tmp/lang3-gpu-check). Exit 1 when a
# check fails. DRY_RUN=1 stops after step 2 (no GPU or torch needed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
cuda=${CUDA_HOME:-/usr/local/cuda}
python=${PYTHON:-python3}
arch=${ARCH:-sm_90a}
work=${BUILD_DIR:-/tmp/lang3-gpu-check-build}
out=${OUT:-/tmp/lang3-gpu-check}
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
for file in jagged_sum cumsum dropout; do
  config=()
  [[ -n ${CONFIG_DIR:-} && -f $CONFIG_DIR/$file.json ]] && config=(--config "$CONFIG_DIR/$file.json")
  HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/$file.cpp" "$work/py" \
    "$rtlib" "${config[@]}" || status=1
done
cubin jagged_sum.cpp jagged_sum f32,offsets=i64 bf16,offsets=i64
cubin cumsum.cpp cumsum_rows f32 bf16
cubin cumsum.cpp cumprod_rows f32 bf16
cubin dropout.cpp dropout f32 bf16
ls "$work/py"/*.so
[[ $status == 0 ]] || { echo "error: a compile failed" >&2; exit 1; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  echo "DRY_RUN=1: stopping before the GPU runs"
  exit 0
fi

echo "== 3. checks and timings"
"$python" "$root/scripts/lang3_gpu_check.py" --libdir "$work/py" --json "$out/lang3_gpu_check.json"
