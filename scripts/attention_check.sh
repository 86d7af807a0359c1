#!/usr/bin/env bash
# helionc's flash attention on the GPU, through the generated launchers.
#
#   scripts/attention_check.sh build   here (needs helionc, g++, the CUDA toolkit's
#                                      headers and NVRTC): compiles
#                                      examples/attention.cpp under several configs
#                                      into .carry/attn/, and links
#                                      test/gpu/attention_check.cpp with the runtime
#                                      into .carry/attn/attention_check
#   scripts/attention_check.sh run     on the GPU machine (no LLVM, no build): the
#                                      correctness checks, then
#                                      benchmarks/attention_torch.py (helionc vs
#                                      torch SDPA vs torch.compile of the naive
#                                      formula, interleaved rounds; BENCH_VARIANTS:
#                                      comma-separated variants to time, default
#                                      the default config; ROUNDS, default 2;
#                                      BENCH_ARGS=--no-compile skips torch.compile;
#                                      CHECK_VARIANTS: the variants to check, default
#                                      all);
#                                      JSON to $OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.carry/attn
cuda=${CUDA_HOME:-/usr/local/cuda}
case ${1:-} in
build)
  helionc=${HELIONC:-$root/build-attn/bin/helionc}
  rm -rf "$out"; mkdir -p "$out"
  inc=$out/attention_variants.inc; : > "$inc"; table=""
  # name | config (empty: the default config) | every shape (else the ragged ones)
  while IFS='|' read -r name json all; do
    dir=$out/$name; mkdir -p "$dir"
    cfg=()
    if [[ -n $json ]]; then echo "$json" > "$dir/config.json"; cfg=(--config "$dir/config.json"); fi
    "$helionc" compile "$root/examples/attention.cpp" "${cfg[@]}" -o "$dir"
    printf 'namespace v_%s {\n#include "%s/attention.helion.cpp"\n}\n' "$name" "$name" >> "$inc"
    table+="    {\"$name\", &v_$name::attention, $all},"$'\n'
  done <<'VARIANTS'
default||true
sm80_default|{"block_sizes": [128, 64], "num_warps": 4, "num_stages": 2, "indexing": "pointer"}|true
w8_bm128_bn64|{"block_sizes": [128, 64], "num_warps": 8, "num_stages": 2, "indexing": "pointer"}|false
w4_bm64_bn128|{"block_sizes": [64, 128], "num_warps": 4, "num_stages": 2, "indexing": "pointer"}|false
w4_bm128_bn32|{"block_sizes": [128, 32], "num_warps": 4, "num_stages": 2, "indexing": "block_ptr"}|false
w8_bm256_bn64|{"block_sizes": [256, 64], "num_warps": 8, "num_stages": 2, "indexing": "pointer"}|false
sm90_c2_bn128|{"block_sizes": [128, 128], "num_warps": 12, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "flat"}|true
sm90_c2_bn64_s3|{"block_sizes": [128, 64], "num_warps": 12, "num_stages": 3, "indexing": "tensor_descriptor", "pid_type": "flat"}|false
sm90_c1_bn128|{"block_sizes": [64, 128], "num_warps": 8, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "flat"}|false
sm90_c2_bn128_s3|{"block_sizes": [128, 128], "num_warps": 12, "num_stages": 3, "indexing": "tensor_descriptor", "pid_type": "flat"}|false
sm90_c2_p|{"block_sizes": [128, 128], "num_warps": 12, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "persistent_interleaved"}|false
sm90_c2_s3_p|{"block_sizes": [128, 128], "num_warps": 12, "num_stages": 3, "indexing": "tensor_descriptor", "pid_type": "persistent_interleaved"}|false
sm90_c3|{"block_sizes": [192, 128], "num_warps": 16, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "flat"}|false
sm90_c3_p|{"block_sizes": [192, 128], "num_warps": 16, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "persistent_interleaved"}|false
sm90_c3_bn64_p|{"block_sizes": [192, 64], "num_warps": 16, "num_stages": 3, "indexing": "tensor_descriptor", "pid_type": "persistent_interleaved"}|false
VARIANTS
  printf 'inline std::vector<Variant> variants() {\n  return {\n%s  };\n}\n' "$table" >> "$inc"
  objs=()
  cp "${DEVICE_LIBRARY_CPP:-$root/build-attn/runtime/DeviceLibrary.cpp}" "$out/DeviceLibrary.cpp"
  mkdir -p "$out/obj"
  for src in "$root"/runtime/*.cpp "$out/DeviceLibrary.cpp"; do
    obj=$out/obj/$(basename "$src" .cpp).o
    g++ -std=c++20 -O2 -c -I "$root/include" -I "$root/runtime" -I "$cuda/include" "$src" -o "$obj" &
    objs+=("$obj")
  done
  wait
  g++ -std=c++23 -O2 -c -I "$root/include" -I "$cuda/include" -I "$out" \
    "$root/test/gpu/attention_check.cpp" -o "$out/obj/attention_check.o"
  g++ "$out/obj/attention_check.o" "${objs[@]}" -ldl -pthread \
    -Wl,-rpath,"$cuda/lib64" -Wl,--undefined=helion_rt_install_cuda_backend -o "$out/attention_check"
  rm -rf "$out/obj"
  echo "built $out/attention_check"
  ;;
run)
  export OUT=${OUT:-$root/build}
  mkdir -p "$OUT"
  nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv || true
  rc=0
  timeout "${CHECK_TIMEOUT:-300}" "$out/attention_check" || rc=$?  # a hung kernel fails, not stalls
  # shellcheck disable=SC2086  # BENCH_ARGS: more flags (--no-compile)
  python3 "$root/benchmarks/attention_torch.py" --helionc "$out/attention_check" --rounds "${ROUNDS:-2}" \
    --variants "${BENCH_VARIANTS:-default}" ${BENCH_ARGS:-}
  exit $rc
  ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
