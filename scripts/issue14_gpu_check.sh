#!/usr/bin/env bash
# On the GPU machine: the language-feature checks (each checks against float64 or exact
# torch references on fresh random inputs with poisoned outputs, then times next to
# torch eager and torch.compile) run one after another in one device call, each under
# its own time limit so that one slow script does not take the others' time.
#
#   bash scripts/unpack_helionc.sh && OUT=$OUT bash scripts/issue14_gpu_check.sh [NAME[:SECONDS] ...]
#
# NAME is a scripts/NAME_gpu_check.sh or scripts/NAME_check.sh (dot, grouped_gemm,
# attention_causal, scaled_mm, lang, lang3); without names, all six. SECONDS bounds that
# script (default 240; dot 480: its build and checks took 282 s on an H200 in session
# 38). Each script's output goes to $OUT/NAME.log (and its JSON to
# $OUT); a summary line per script (exit status, seconds) goes to stdout and
# $OUT/summary.txt. Exit 1 when a script failed or ran out of time.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/issue14-gpu-check}
export HELIONC=${HELIONC:-/tmp/helionc/bin/helionc}
mkdir -p "$out"
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(dot grouped_gemm attention_causal scaled_mm lang lang3)
status=0
for spec in "${names[@]}"; do
  name=${spec%%:*}
  limit=240
  [[ $name == dot ]] && limit=480
  [[ $spec == *:* ]] && limit=${spec##*:}
  script=$root/scripts/${name}_gpu_check.sh
  [[ -f $script ]] || script=$root/scripts/${name}_check.sh
  if [[ ! -f $script ]]; then
    echo "$name: no scripts/${name}_gpu_check.sh" | tee -a "$out/summary.txt"
    status=1
    continue
  fi
  start=$(date +%s)
  OUT=$out BUILD_DIR=/tmp/issue14-$name timeout "$limit" bash "$script" >"$out/$name.log" 2>&1
  rc=$?
  line="$name: exit $rc in $(($(date +%s) - start)) s$([[ $rc == 124 ]] && echo " (time limit $limit s)")"
  echo "$line" | tee -a "$out/summary.txt"
  [[ $rc == 0 ]] || status=1
done
exit $status
