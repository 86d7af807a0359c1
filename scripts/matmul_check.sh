#!/usr/bin/env bash
# helionc's tensor-core matmuls on the GPU, through the generated launchers.
#
#   scripts/matmul_check.sh build   here (needs helionc, g++, the CUDA toolkit's
#                                   headers and NVRTC): compiles examples/matmul.cpp
#                                   under several configs and
#                                   test/gpu/kernels/matmul_bias.cpp into .carry/mm/,
#                                   and links test/gpu/matmul_check.cpp with the
#                                   runtime into .carry/mm/matmul_check
#   scripts/matmul_check.sh run     on the GPU machine (no LLVM, no build): the
#                                   correctness checks, then benchmarks/matmul_torch.py
#                                   (helionc vs torch.matmul (cuBLAS) vs torch.compile,
#                                   interleaved rounds in one run); JSON to $OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.carry/mm
cuda=${CUDA_HOME:-/usr/local/cuda}
case ${1:-} in
build)
  helionc=${HELIONC:-$root/build-mm/bin/helionc}
  rm -rf "$out"; mkdir -p "$out"
  inc=$out/matmul_variants.inc; : > "$inc"; table=""
  # name | kernel file | function | config (empty: the default config) | big shapes
  while IFS='|' read -r name file fn json big; do
    dir=$out/$name; mkdir -p "$dir"
    cfg=()
    if [[ -n $json ]]; then echo "$json" > "$dir/config.json"; cfg=(--config "$dir/config.json"); fi
    "$helionc" compile "$root/$file" "${cfg[@]}" -o "$dir"
    stem=$(basename "$file" .cpp)
    printf 'namespace v_%s {\n#include "%s/%s.helion.cpp"\n}\n' "$name" "$name" "$stem" >> "$inc"
    if [[ $fn == matmul_bias ]]; then ptr="nullptr, &v_$name::$fn"; else ptr="&v_$name::$fn, nullptr"; fi
    table+="    {\"$name\", $ptr, $big},"$'\n'
  done <<'VARIANTS'
default|examples/matmul.cpp|matmul||true
sm90_c1_flat|examples/matmul.cpp|matmul|{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "pid_type": "flat", "l2_groupings": [1], "indexing": "tensor_descriptor"}|false
sm80|examples/matmul.cpp|matmul|{"block_sizes": [128, 256, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat", "l2_groupings": [8], "indexing": "pointer"}|false
bias_relu|test/gpu/kernels/matmul_bias.cpp|matmul_bias||false
VARIANTS
  printf 'inline std::vector<Variant> variants() {\n  return {\n%s  };\n}\n' "$table" >> "$inc"
  objs=()
  cp "${DEVICE_LIBRARY_CPP:-$root/build-mm/runtime/DeviceLibrary.cpp}" "$out/DeviceLibrary.cpp"
  for src in "$root"/runtime/*.cpp "$out/DeviceLibrary.cpp"; do
    obj=$out/obj/$(basename "$src" .cpp).o; mkdir -p "$out/obj"
    g++ -std=c++20 -O2 -c -I "$root/include" -I "$root/runtime" -I "$cuda/include" "$src" -o "$obj"
    objs+=("$obj")
  done
  g++ -std=c++23 -O2 -c -I "$root/include" -I "$cuda/include" -I "$out" \
    "$root/test/gpu/matmul_check.cpp" -o "$out/obj/matmul_check.o"
  g++ "$out/obj/matmul_check.o" "${objs[@]}" -L"$cuda/lib64" -lnvrtc -ldl -pthread \
    -Wl,-rpath,"$cuda/lib64" -Wl,--undefined=helion_rt_install_cuda_backend -o "$out/matmul_check"
  rm -rf "$out/obj"
  echo "built $out/matmul_check"
  ;;
run)
  export OUT=${OUT:-$root/build}
  mkdir -p "$OUT"
  nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv || true
  rc=0
  "$out/matmul_check" || rc=$?
  python3 "$root/benchmarks/matmul_torch.py" --helionc "$out/matmul_check" --rounds "${ROUNDS:-2}"
  exit $rc
  ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
