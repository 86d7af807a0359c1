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
# ALT_HELIONC=PATH: both examples also built by that helionc (an older build), checked
# and timed in the same turns as "alt" (a before/after comparison in one run); the
# default instantiations' SASS instruction counts of both in $OUT/attention_sass_counts.txt.
# CONFIG_DIR=DIR: attention.json / attention_causal.json there (`helionc tune -o`
# output) for the two main libraries instead of the default configs (alt keeps them).
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
config_of() { # --config FILE when CONFIG_DIR has the kernel's file
  [[ -n ${CONFIG_DIR:-} && -f $CONFIG_DIR/$1.json ]] && echo "--config $CONFIG_DIR/$1.json"
  return 0
}
# shellcheck disable=SC2046
HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/attention_causal.cpp" \
  "$work/py" "$work/rt/libhelion_runtime.a" $(config_of attention_causal) --aot-arch sm_90a \
  --dtype q=bf16,k=bf16,v=bf16,out=bf16,lse=f32 --dtype q=f16,k=f16,v=f16,out=f16,lse=f32 \
  --specialize 64 --specialize 128
# The non-causal example the same way: the template path's speed in the same run.
# shellcheck disable=SC2046
HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/attention.cpp" \
  "$work/py" "$work/rt/libhelion_runtime.a" $(config_of attention) --aot-arch sm_90a \
  --dtype bf16 --dtype f16 \
  --specialize 64 --specialize 128
alt_args=()
if [[ -n ${ALT_HELIONC:-} ]]; then
  for ex in attention_causal attention; do
    dt=(--dtype bf16 --dtype f16)
    [[ $ex == attention_causal ]] && dt=(--dtype q=bf16,k=bf16,v=bf16,out=bf16,lse=f32
                                         --dtype q=f16,k=f16,v=f16,out=f16,lse=f32)
    HELIONC=$ALT_HELIONC bash "$root/examples/python/build.sh" "$root/examples/$ex.cpp" \
      "$work/py-alt" "$work/rt/libhelion_runtime.a" --aot-arch sm_90a "${dt[@]}" \
      --specialize 64 --specialize 128
  done
  alt_args=(--alt "$work/py-alt/libattention_causal.so" --alt-plain "$work/py-alt/libattention.so")
  # SASS instruction counts (whole kernel) of the bf16 instantiations, this helionc and alt.
  for which in new alt; do
    h=$helionc
    [[ $which == alt ]] && h=$ALT_HELIONC
    for ex in attention attention_causal; do
      for d in 64 128; do
        dir=$work/sass/$which-$ex-$d
        dt=bf16
        [[ $ex == attention_causal ]] && dt=q=bf16,k=bf16,v=bf16,out=bf16,lse=f32
        "$h" compile "$root/examples/$ex.cpp" --emit cubin -o "$dir" --dtype "$dt" \
          --specialize "$d" > /dev/null
        echo "== $which $ex d=$d: $("$cuda/bin/cuobjdump" -sass "$dir"/*.cubin | grep -oE \
          '(FMUL|FFMA|MUFU.EX2|FMNMX|FADD|HGMMA|FSEL)[.A-Z0-9]*' | sort | uniq -c | tr -s ' ' \
          | tr '\n' ',')"
      done
    done
  done > "$out/attention_sass_counts.txt" || true
  cat "$out/attention_sass_counts.txt"
fi
"$helionc" compile "$root/examples/attention_causal.cpp" --emit cubin -o "$work/cubin" \
  --dtype q=bf16,k=bf16,v=bf16,out=bf16,lse=f32 --specialize 128 > /dev/null
for c in "$work"/cubin/*.cubin; do
  echo "== $(basename "$c")"
  "$cuda/bin/cuobjdump" --dump-resource-usage "$c" | grep -E "Function|REG|STACK" || true
done > "$out/attention_causal_resources.txt"
cat "$out/attention_causal_resources.txt"
python3 "$root/benchmarks/attention_causal_torch.py" "$work/py/libattention_causal.so" \
  --plain "$work/py/libattention.so" "${alt_args[@]}" --json "$out/attention_causal.json" \
  ${BENCH_ARGS:-}
