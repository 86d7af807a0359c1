#!/usr/bin/env bash
# NVRTC time per example kernel, CPU only (no GPU needed). For each kernel it
# emits the CUDA (helionc compile --emit cuda) and the instantiation that
# --emit cubin compiles (--dtype $DTYPE, --size-hint $SIZE_HINT), then
# benchmarks/nvrtc_time.cpp compiles it REPS times in one process through
# helion::rt::compile (the runtime's options and embedded headers, disk cache
# off). Prints one table (CPU and wall ms) and writes $OUT/nvrtc_time.json.
#
# Usage: benchmarks/nvrtc_time.sh [BUILD_DIR]   (default: build)
#   env: REPS (5), DTYPE (bf16), SIZE_HINT (4096), ARCH (sm_90a), OUT (a new temporary folder),
#        KERNELS ("file:kernel[:variant] ..." to time others), CUDA_HOME (/usr/local/cuda),
#        HELIONC (the helionc that emits the CUDA; default BUILD_DIR/bin/helionc)
# CPU time is the figure to compare on a shared machine; `taskset -c 0` in front
# pins the whole run to one core.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
reps=${REPS:-5}
dtype=${DTYPE:-bf16}
size_hint=${SIZE_HINT:-4096}
arch=${ARCH:-sm_90a}
cuda=${CUDA_HOME:-/usr/local/cuda}
# file:kernel[:variant]; a variant is a config of configs/gpu-check/variants.txt
# (the memory-bound table's variants), else the kernel's default config.
kernels=${KERNELS:-"add:add softmax:softmax softmax:softmax:rows4pers softmax:softmax_two_pass \
rms_norm:rms_norm layer_norm:layer_norm sum:sum_rows sum:sum_rows:rows4w8 \
cross_entropy:cross_entropy cross_entropy:cross_entropy:looped matmul:matmul"}
helionc=${HELIONC:-$build/bin/helionc}

tool=$out/nvrtc_time
c++ -std=c++20 -O2 -I"$root/include" -I"$cuda/include" "$root/benchmarks/nvrtc_time.cpp" \
  "$build/runtime/libhelion_runtime.a" -ldl -lpthread -o "$tool"

# The --emit cubin below only reports the name expression; give it its own cache.
export HELIONC_CACHE_DIR=$out/cache
args=()
for spec in $kernels; do
  IFS=: read -r file kernel variant <<< "$spec"
  src=$root/examples/$file.cpp
  label=$kernel${variant:+/$variant}
  stem=${label//\//.}
  config=()
  if [ -n "$variant" ]; then
    # variants.txt names sum_rows' variants "sum": its first column is the file.
    awk -v f="$file" -v k="$kernel" -v v="$variant" '($1 == f || $1 == k) && $2 == v {
      sub(/^[^{]*/, ""); print; exit }' "$root/configs/gpu-check/variants.txt" > "$out/$stem.json"
    [ -s "$out/$stem.json" ] || { echo "no variant $variant of $kernel" >&2; exit 1; }
    config=(--config "$out/$stem.json")
  fi
  cu=$out/$stem.cu
  "$helionc" compile "$src" --kernel "$kernel" "${config[@]}" --emit cuda > "$cu"
  # "<dir>/x.y.cubin: EXPR (sm_90a, N bytes, NVRTC M ms)" -> EXPR
  line=$("$helionc" compile "$src" --kernel "$kernel" "${config[@]}" --emit cubin \
    --dtype "$dtype" --size-hint "$size_hint" --arch "$arch" -o "$out/cubin")
  expr=$(sed -E 's/^[^ ]*: //; s/ \([^(]*$//' <<< "$line")
  args+=("$label" "$cu" "$expr")
done
"$tool" --reps "$reps" --arch "$arch" --json "$out/nvrtc_time.json" "${args[@]}"
echo "($dtype, size hint $size_hint, $arch, $reps compiles per kernel; JSON: $out/nvrtc_time.json)"
