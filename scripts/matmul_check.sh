#!/usr/bin/env bash
# helionc's tensor-core matmuls on the GPU, through the generated launchers.
#
#   scripts/matmul_check.sh build   here (needs helionc, g++, the CUDA toolkit's
#                                   headers and NVRTC): compiles examples/matmul.cpp
#                                   under several configs and
#                                   test/gpu/kernels/matmul_bias.cpp into .carry/mm/,
#                                   and links test/gpu/matmul_check.cpp with the
#                                   runtime into .carry/mm/matmul_check ($HELIONC,
#                                   default build/bin/helionc; $DEVICE_LIBRARY_CPP,
#                                   default build/runtime/DeviceLibrary.cpp)
#   scripts/matmul_check.sh run     on the GPU machine (no LLVM, no build): the
#                                   correctness checks (bf16, f16, f32 as tf32); JSON
#                                   to $OUT. benchmarks/matmul.sh runs them and the
#                                   timings (paired with cuBLAS, torch) in one go.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.carry/mm
cuda=${CUDA_HOME:-/usr/local/cuda}
case ${1:-} in
build)
  helionc=${HELIONC:-$root/build/bin/helionc}
  rm -rf "$out"; mkdir -p "$out"
  inc=$out/matmul_variants.inc; : > "$inc"; table=""
  # name | kernel file | function | config (empty: the default config) | big shapes |
  # f32 (tf32) checks | timed by --bench
  while IFS='|' read -r name file fn json big f32 bench; do
    dir=$out/$name; mkdir -p "$dir"
    cfg=()
    if [[ -n $json ]]; then echo "$json" > "$dir/config.json"; cfg=(--config "$dir/config.json"); fi
    "$helionc" compile "$root/$file" "${cfg[@]}" -o "$dir"
    stem=$(basename "$file" .cpp)
    printf 'namespace v_%s {\n#include "%s/%s.helion.cpp"\n}\n' "$name" "$name" "$stem" >> "$inc"
    if [[ $fn == matmul_bias ]]; then ptr="nullptr, &v_$name::$fn"; else ptr="&v_$name::$fn, nullptr"; fi
    table+="    {\"$name\", $ptr, $big, $f32, $bench},"$'\n'
  done <<'VARIANTS'
default|examples/matmul.cpp|matmul||true|true|true
s3_g16|examples/matmul.cpp|matmul|{"block_sizes": [128, 256, 64], "num_warps": 12, "num_stages": 3, "pid_type": "persistent_blocked", "l2_groupings": [16], "indexing": "tensor_descriptor"}|false|false|true
256x128_s4|examples/matmul.cpp|matmul|{"block_sizes": [256, 128, 64], "num_warps": 12, "num_stages": 4, "pid_type": "persistent_interleaved", "l2_groupings": [8], "indexing": "tensor_descriptor"}|false|false|true
c1_128x128_s5|examples/matmul.cpp|matmul|{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "pid_type": "persistent_interleaved", "l2_groupings": [8], "indexing": "tensor_descriptor"}|false|false|true
sm90_c1_flat|examples/matmul.cpp|matmul|{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "pid_type": "flat", "l2_groupings": [1], "indexing": "tensor_descriptor"}|false|false|false
sm80|examples/matmul.cpp|matmul|{"block_sizes": [128, 256, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat", "l2_groupings": [8], "indexing": "pointer"}|false|true|false
bias_relu|test/gpu/kernels/matmul_bias.cpp|matmul_bias||false|true|false
VARIANTS
  printf 'inline std::vector<Variant> variants() {\n  return {\n%s  };\n}\n' "$table" >> "$inc"
  objs=()
  cp "${DEVICE_LIBRARY_CPP:-$root/build/runtime/DeviceLibrary.cpp}" "$out/DeviceLibrary.cpp"
  for src in "$root"/runtime/*.cpp "$out/DeviceLibrary.cpp"; do
    obj=$out/obj/$(basename "$src" .cpp).o; mkdir -p "$out/obj"
    g++ -std=c++20 -O2 -c -I "$root/include" -I "$root/runtime" -I "$cuda/include" "$src" -o "$obj"
    objs+=("$obj")
  done
  g++ -std=c++23 -O2 -c -I "$root/include" -I "$cuda/include" -I "$out" \
    "$root/test/gpu/matmul_check.cpp" -o "$out/obj/matmul_check.o"
  g++ "$out/obj/matmul_check.o" "${objs[@]}" -L"$cuda/lib64" -lcublas -lcudart -ldl -pthread \
    -Wl,-rpath,"$cuda/lib64" -Wl,--undefined=helion_rt_install_cuda_backend -o "$out/matmul_check"
  rm -rf "$out/obj"
  echo "built $out/matmul_check"
  ;;
run)
  export OUT=${OUT:-$root/build}
  mkdir -p "$OUT"
  nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv || true
  "$out/matmul_check"
  ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
