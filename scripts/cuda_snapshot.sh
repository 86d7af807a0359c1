#!/usr/bin/env bash
# Runs here (helionc needs Clang, no GPU): compiles every example kernel under its
# default config, every config of configs/gpu-check/variants.txt and configs/h100/, the
# matmul and attention variants of scripts/matmul_check.sh and scripts/attention_check.sh,
# and every kernel file of test/lit/{CodeGen,Fuzz} and test/gpu/kernels with its default
# config, writing the CUDA and host files into OUTDIR/<case>/. A refactoring that must not
# change the generated code is checked by snapshotting before and after and diffing:
#   bash scripts/cuda_snapshot.sh /tmp/before   # on the old tree
#   bash scripts/cuda_snapshot.sh /tmp/after    # on the new one
#   diff -r /tmp/before /tmp/after              # no output: byte-identical
# With EMIT_PTX=ARCH (sm_90a, sm_80) each case's NVRTC PTX is kept too (OUTDIR/<case>/ptx,
# instantiated with --dtype $PTX_DTYPE, default bf16) without its debug lines and sections
# (line numbers and names in them move with the source text): a change to
# the device library or to how the CUDA text is laid out must leave it unchanged.
# Each case's exit code and diagnostics are kept too (OUTDIR/<case>/rc, stderr), so a
# kernel that starts or stops failing shows up in the diff.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-$root/build/bin/helionc}
out=${1:?usage: cuda_snapshot.sh OUTDIR}
rm -rf "$out"; mkdir -p "$out"
# The output directory's path is written into nothing but diagnostics; work in a fixed
# scratch dir so two snapshots compare equal wherever they are kept.
work=$(mktemp -d /tmp/cuda_snapshot.XXXXXX)

# run CASE SRC [helionc args...]: compile SRC into OUTDIR/CASE.
run() {
  local name=$1 src=$2; shift 2
  local dir=$work/case; rm -rf "$dir"; mkdir -p "$dir"
  (cd "$root" && "$helionc" compile "$src" "$@" -o "$dir" 2> "$dir/stderr")
  echo $? > "$dir/rc"
  if [[ -n ${EMIT_PTX:-} ]]; then # NVRTC's PTX too, without its debug lines (.loc, .file)
    mkdir -p "$dir/ptx"
    (cd "$root" && "$helionc" compile "$src" "$@" --emit ptx --arch "$EMIT_PTX" \
       --dtype "${PTX_DTYPE:-bf16}" -o "$dir/ptx" 2> "$dir/ptx_stderr")
    echo $? > "$dir/ptx_rc"
    for p in "$dir"/ptx/*.ptx; do
      [[ -e $p ]] && sed -i '/^\s*\.section\s*\.debug/,$d; /^\s*\.loc\s/d; /^\s*\.file\s/d' "$p"
    done
    sed -i "s|$work|WORK|g; s|$root|ROOT|g" "$dir/ptx_stderr"
  fi
  sed -i "s|$work|WORK|g; s|$root|ROOT|g" "$dir/stderr"
  mv "$dir" "$out/$name"
}

# config CASE JSON: writes JSON where `run` can read it, prints the path.
config() {
  mkdir -p "$work/cfg"; echo "$2" > "$work/cfg/$1.json"; echo "$work/cfg/$1.json"
}

for f in "$root"/examples/*.cpp; do
  stem=$(basename "$f" .cpp)
  [[ $stem == ref_demo ]] && continue
  run "default_$stem" "examples/$stem.cpp"
done

while read -r file name json; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  # no config file (the default_* snapshots above) or a file of configs/h100 (below)
  [[ $json == none || $json == @* ]] && continue
  src=$file; flags=()
  if [[ $file == softmax_two_pass ]]; then src=softmax; flags=(--kernel softmax_two_pass); fi
  if [[ $file == softmax ]]; then flags=(--kernel softmax); fi
  run "variant_${file}_$name" "examples/$src.cpp" "${flags[@]}" \
    --config "$(config "v_${file}_$name" "$json")"
done < "$root/configs/gpu-check/variants.txt"

for c in "$root"/configs/h100/*.json; do
  stem=$(basename "$c" .json)
  src=$stem; flags=()
  [[ $stem == sum_rows ]] && src=sum
  [[ $stem == softmax ]] && flags=(--kernel softmax) # softmax.cpp also holds softmax_two_pass
  run "h100_$stem" "examples/$src.cpp" "${flags[@]}" --config "configs/h100/$stem.json"
done

# The heredoc tables of the GPU check scripts: `name|file|fn|json|...` and `name|json|...`.
sed -n '/^default|examples\/matmul.cpp/,/^VARIANTS/p' "$root/scripts/matmul_check.sh" |
  while IFS='|' read -r name file fn json rest; do
    [[ $name == VARIANTS ]] && continue
    flags=(); [[ -n $json ]] && flags=(--config "$(config "mm_$name" "$json")")
    run "matmul_$name" "$file" "${flags[@]}"
  done
sed -n '/^default||true/,/^VARIANTS/p' "$root/scripts/attention_check.sh" |
  while IFS='|' read -r name json rest; do
    [[ $name == VARIANTS ]] && continue
    flags=(); [[ -n $json ]] && flags=(--config "$(config "at_$name" "$json")")
    run "attention_$name" examples/attention.cpp "${flags[@]}"
  done

for f in "$root"/test/lit/CodeGen/*.cpp "$root"/test/lit/Fuzz/*.cpp "$root"/test/gpu/kernels/*.cpp; do
  rel=${f#"$root"/}
  run "test_$(echo "${rel%.cpp}" | tr / _)" "$rel"
done
rm -rf "$work"
echo "$(ls "$out" | wc -l) cases in $out ($(grep -L '^0$' "$out"/*/rc | wc -l) exit nonzero)"
