#!/usr/bin/env bash
# On the GPU machine: examples/attention_causal.cpp (causal flash attention with the
# log-sum-exp output) checked against float64 and timed next to torch SDPA (is_causal)
# and torch.compile, through its C entry (benchmarks/attention_causal_torch.py).
#
#   scripts/attention_causal_gpu_check.sh
#
# Needs: helionc ($HELIONC, default /tmp/helionc/bin/helionc: scripts/unpack_helionc.sh),
# g++, cmake, CUDA 13 headers ($CUDA_HOME), python3 with torch. Results: a table on
# stdout, $OUT/attention_causal.json (default OUT=/tmp/attention-causal), the kernels'
# resource usage (cuobjdump) in $OUT/attention_causal_resources.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
cuda=${CUDA_HOME:-/usr/local/cuda}
work=${BUILD_DIR:-/tmp/attention-causal-build}
out=${OUT:-/tmp/attention-causal}
rm -rf "$work"
mkdir -p "$work" "$out"
bash "$root/scripts/build_runtime.sh" "$work/rt" > /dev/null
# Images for sm_90a embedded for the checked dtypes and head dims (no NVRTC at first call).
HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/attention_causal.cpp" \
  "$work/py" "$work/rt/libhelion_runtime.a" --aot-arch sm_90a \
  --dtype q=bf16,k=bf16,v=bf16,out=bf16,lse=f32 --dtype q=f16,k=f16,v=f16,out=f16,lse=f32 \
  --specialize 64 --specialize 128
# The non-causal example the same way: the template path's speed in the same run.
HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/attention.cpp" \
  "$work/py" "$work/rt/libhelion_runtime.a" --aot-arch sm_90a --dtype bf16 --dtype f16 \
  --specialize 64 --specialize 128
"$helionc" compile "$root/examples/attention_causal.cpp" --emit cubin -o "$work/cubin" \
  --dtype q=bf16,k=bf16,v=bf16,out=bf16,lse=f32 --specialize 128 > /dev/null
for c in "$work"/cubin/*.cubin; do
  echo "== $(basename "$c")"
  "$cuda/bin/cuobjdump" --dump-resource-usage "$c" | grep -E "Function|REG|STACK" || true
done > "$out/attention_causal_resources.txt"
cat "$out/attention_causal_resources.txt"
python3 "$root/benchmarks/attention_causal_torch.py" "$work/py/libattention_causal.so" \
  --plain "$work/py/libattention.so" --json "$out/attention_causal.json" ${BENCH_ARGS:-}
