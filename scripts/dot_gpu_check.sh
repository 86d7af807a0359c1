#!/usr/bin/env bash
# On the GPU machine: the hl::dot examples (issue 14) checked and timed in one run:
#   examples/bmm.cpp               bmm               (batched dot on the GEMM templates)
#   examples/matmul_bias_relu.cpp  matmul_bias_relu  (a constant tile in the epilogue)
#   examples/dot_generic.cpp       mlp_relu          (chained dots: the general lowering)
# It compiles each kernel file with helionc, builds a shared library with its C entries
# (examples/python/build.sh), and runs scripts/dot_gpu_check.py: each kernel on fresh
# random inputs against a float64 torch reference, outputs NaN-poisoned first, then
# timed next to torch.bmm (cuBLAS) / torch eager and torch.compile.
#
#   bash scripts/unpack_helionc.sh && HELIONC=/tmp/helionc/bin/helionc OUT=$OUT bash scripts/dot_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc), g++,
# cmake (to embed the device library), CUDA 13 ($CUDA_HOME, default /usr/local/cuda),
# python3 with torch ($PYTHON) for step 3. $ARCH (default sm_90a): the cubins of step 2.
# Work files: $BUILD_DIR (default /tmp/dot-gpu-check-build). Results: a table on stdout
# and $OUT/dot_gpu_check.json (default OUT=/tmp/dot-gpu-check). Exit 1 when a check
# fails. ONLY=REGEX checks and times only the cases it matches (dot_gpu_check.py --only;
# every library is still built, unless DK_ONLY=1: then only the test/gpu/dot_kernels.cpp
# libraries (dk_*) and no cubins, for ONLY regexes of those kernels). DRY_RUN=1 stops after step 2 (no GPU or torch needed: what this script can do
# on the development machine). PAIRED=ROUNDS also times each timed row's helionc and
# eager calls alternately (dot_gpu_check.py --paired; the table's last column, helionc
# over eager).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
python=${PYTHON:-python3}
arch=${ARCH:-sm_90a}
work=${BUILD_DIR:-/tmp/dot-gpu-check-build}
out=${OUT:-/tmp/dot-gpu-check}
rm -rf "$work"
mkdir -p "$work" "$out"
[[ -x $helionc ]] || { echo "error: no helionc at $helionc (set HELIONC)" >&2; exit 1; }

echo "== 1. runtime"
bash "$root/scripts/build_runtime.sh" "$work/rt"
rtlib=$work/rt/libhelion_runtime.a

echo "== 2. helionc: host files and libraries; cubins for $arch and sm_80 (NVRTC)"
status=0
cubin() { # FILE KERNEL ARCH DTYPE...: one cubin per --dtype
  local file=$1 kernel=$2 a=$3
  shift 3
  local flags=()
  for d in "$@"; do flags+=(--dtype "$d"); done
  "$helionc" compile "$root/examples/$file" --kernel "$kernel" --emit cubin --arch "$a" \
    "${flags[@]}" -o "$work/cubin/$a" || status=1
}
dk_only=${DK_ONLY:-0}
if [[ $dk_only != 1 ]]; then
  for file in bmm matmul_bias_relu dot_generic; do
    HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/$file.cpp" "$work/py" \
      "$rtlib" || status=1
  done
  # bmm on the general lowering (every dot, template or not: HELIONC_GENERAL_DOTS=1), as
  # libbmm_general.so beside the template's libbmm.so.
  HELIONC_GENERAL_DOTS=1 HELIONC=$helionc bash "$root/examples/python/build.sh" \
    "$root/examples/bmm.cpp" "$work/py-general" "$rtlib" && \
    cp "$work/py-general/libbmm.so" "$work/py/libbmm_general.so" || status=1
fi
# The general dot under other configs (a copy of the source per config: one library
# each, libmlp_NAME.so / libdk_NAME.so): the mma layout's tile shapes, K padding, and
# the shared-memory fallback (rows not a multiple of 16 per warp). DK_ONLY=1: dk_* only.
variant() { # SRC NAME CONFIG_JSON
  [[ $dk_only == 1 && $2 != dk_* ]] && return 0
  mkdir -p "$work/src"
  cp "$1" "$work/src/$2.cpp"
  printf '%s\n' "$3" > "$work/src/$2.json"
  HELIONC=$helionc bash "$root/examples/python/build.sh" "$work/src/$2.cpp" "$work/py" "$rtlib" \
    --config "$work/src/$2.json" || status=1
}
mlp=$root/examples/dot_generic.cpp
variant "$mlp" mlp_tn128 '{"block_sizes": [64, 128, 64, 64], "num_warps": 4}'
variant "$mlp" mlp_tn256 '{"block_sizes": [64, 256, 64, 64], "num_warps": 4}'
variant "$mlp" mlp_tn256_h32 '{"block_sizes": [64, 256, 32, 64], "num_warps": 4}'
variant "$mlp" mlp_w8_128x256 '{"block_sizes": [128, 256, 64, 64], "num_warps": 8}'
variant "$mlp" mlp_k64 '{"block_sizes": [64, 64, 64, 64], "num_warps": 4}'
variant "$mlp" mlp_k8 '{"block_sizes": [32, 64, 16, 8], "num_warps": 2}'
variant "$mlp" mlp_fallback '{"block_sizes": [16, 8, 8, 8], "num_warps": 2}'
variant "$mlp" mlp_s4 '{"block_sizes": [64, 128, 64, 32], "num_warps": 4, "num_stages": 4}'
variant "$mlp" mlp_s2 '{"block_sizes": [128, 64, 32, 32], "num_warps": 4, "num_stages": 2}'
variant "$mlp" mlp_s1 '{"block_sizes": [64, 128, 64, 64], "num_warps": 4, "num_stages": 1}'
dk=$root/test/gpu/dot_kernels.cpp
variant "$dk" dk_default '{}'
variant "$dk" dk_w8 '{"kernels": {"mlp_bias": {"block_sizes": [128, 64, 64, 32], "num_warps": 8}, "dot_chain_t": {"block_sizes": [128, 64, 64, 32], "num_warps": 8}, "dot_relu_b": {"block_sizes": [128, 128, 32], "num_warps": 8}, "dot_half_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_bias_early": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_both": {"block_sizes": [64, 64, 16], "num_warps": 4}, "dot_rowscale_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_recip_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "bmm_half_a": {}, "bmm_chain_t": {}, "bmm_chain_all": {}, "dot_colscale_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_product_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_index_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_tril_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_loop_a": {"block_sizes": [128, 64, 16], "num_warps": 8}, "dot_nested_a": {"block_sizes": [128, 128, 64], "num_warps": 8}, "dot_kscale": {"block_sizes": [64, 128], "num_warps": 8}}}'
variant "$dk" dk_k64 '{"kernels": {"mlp_bias": {"block_sizes": [64, 64, 64, 64], "num_warps": 4}, "dot_chain_t": {"block_sizes": [64, 64, 64, 64], "num_warps": 4}, "dot_relu_b": {"block_sizes": [64, 64, 64], "num_warps": 4}, "dot_half_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_bias_early": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_both": {"block_sizes": [64, 64, 16], "num_warps": 4}, "dot_rowscale_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_recip_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "bmm_half_a": {}, "bmm_chain_t": {"block_sizes": [64, 64, 64, 32], "num_warps": 4}, "bmm_chain_all": {}, "dot_colscale_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_product_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_index_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_tril_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_loop_a": {"block_sizes": [64, 64, 64], "num_warps": 4}, "dot_nested_a": {"block_sizes": [64, 64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}, "dot_kscale": {"block_sizes": [64, 64], "num_warps": 8, "num_stages": 3, "pid_type": "flat"}}}'
variant "$dk" dk_m128 '{"kernels": {"mlp_bias": {"block_sizes": [128, 64, 64, 32], "num_warps": 4}, "dot_chain_t": {"block_sizes": [128, 64, 64, 32], "num_warps": 4}, "dot_relu_b": {"block_sizes": [128, 128, 32], "num_warps": 4}, "dot_half_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_bias_early": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_both": {"block_sizes": [64, 64, 16], "num_warps": 4}, "dot_rowscale_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_recip_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "bmm_half_a": {}, "bmm_chain_t": {}, "bmm_chain_all": {}, "dot_colscale_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_product_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_index_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_tril_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_loop_a": {"block_sizes": [128, 128, 32], "num_warps": 4}, "dot_nested_a": {"block_sizes": [128, 128, 64], "num_warps": 12, "indexing": "pointer"}, "dot_kscale": {"block_sizes": [128, 128], "num_warps": 12, "indexing": "pointer"}}}'
variant "$dk" dk_small '{"kernels": {"mlp_bias": {"block_sizes": [32, 16, 16, 8], "num_warps": 2}, "dot_chain_t": {"block_sizes": [32, 16, 16, 8], "num_warps": 2}, "dot_relu_b": {"block_sizes": [16, 8, 8], "num_warps": 1}, "dot_half_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_bias_early": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_both": {"block_sizes": [64, 64, 16], "num_warps": 4}, "dot_rowscale_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_recip_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "bmm_half_a": {}, "bmm_chain_t": {}, "bmm_chain_all": {}, "dot_colscale_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_product_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_index_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_tril_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_loop_a": {"block_sizes": [16, 8, 16], "num_warps": 1}, "dot_nested_a": {"block_sizes": [64, 256, 64], "num_warps": 8, "l2_groupings": [1]}, "dot_kscale": {"block_sizes": [64, 64], "num_warps": 8, "l2_groupings": [1]}}}'
# dot_kscale on 3 consumer warpgroups of 64 rows (16 warps, tm 192); the others default.
variant "$dk" dk_c3 '{"kernels": {"mlp_bias": {}, "dot_chain_t": {}, "dot_relu_b": {}, "dot_half_a": {}, "dot_bias_early": {}, "dot_both": {}, "dot_rowscale_a": {}, "dot_recip_a": {}, "bmm_half_a": {}, "bmm_chain_t": {}, "bmm_chain_all": {}, "dot_colscale_a": {}, "dot_product_a": {}, "dot_index_a": {}, "dot_tril_a": {}, "dot_loop_a": {}, "dot_nested_a": {}, "dot_kscale": {"block_sizes": [192, 128], "num_warps": 16}}}'

[[ $dk_only == 1 ]] || for a in "$arch" sm_80; do
  cubin bmm.cpp bmm "$a" bf16 f16 f32
  cubin matmul_bias_relu.cpp matmul_bias_relu "$a" bf16 f32
  cubin dot_generic.cpp mlp_relu "$a" bf16 f16 f32
done
ls "$work/py"/*.so
[[ $status == 0 ]] || { echo "error: a compile failed" >&2; exit 1; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  echo "DRY_RUN=1: stopping before the GPU runs"
  exit 0
fi

echo "== 3. checks and timings"
"$python" "$root/scripts/dot_gpu_check.py" --libdir "$work/py" --json "$out/dot_gpu_check.json" \
  ${PAIRED:+--paired "$PAIRED"} \
  ${ONLY:+--only "$ONLY"}
