#!/usr/bin/env bash
# On the GPU machine: helionc tune survives candidates that crash, hang or give wrong
# output, and never picks them. HELIONC_TUNE_FAULT makes entries 2, 3 and 4 of every
# benchmark program crash (SIGSEGV), hang (killed after HELIONC_TUNE_TIMEOUT s) and
# corrupt their first output. Passes when tune exits 0, the log reports all three
# failures, and the chosen config is measured faster than or equal to the default.
# Then, without HELIONC_TUNE_TIMEOUT, a hanging entry under a 10 s budget must be killed
# 30 s past the budget (the run's limit near the search's deadline): tune must end within
# 100 s and report the timeout.
# Needs the same environment as benchmarks/tune.sh (HELIONC, HELIONC_RUNTIME_LIB, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d)}
helionc=${HELIONC:-helionc}
log=$out/tune_fault.log
HELIONC_TUNE_FAULT=crash:2,hang:3,wrong:4 HELIONC_TUNE_TIMEOUT=${HELIONC_TUNE_TIMEOUT:-30} \
HELIONC_CACHE_DIR=$out/fault-cache \
  "$helionc" tune "$root/examples/softmax.cpp" --kernel softmax --args 'x=f32[1024,4096]' \
  --budget 60 -o "$out/fault.json" > "$out/tune_fault.out" 2> "$log"
status=0
for what in "crash: exit 139" "timeout: exit -1" "mismatch"; do
  if grep -q "$what\|${what%%:*}" "$log"; then echo "ok: a candidate ${what%%:*} was reported"
  else echo "FAIL: no ${what%%:*} reported"; status=1; fi
done
grep "best config" "$log" | tail -1
cat "$out/tune_fault.out"
t0=$(date +%s)
env -u HELIONC_TUNE_TIMEOUT HELIONC_TUNE_FAULT=hang:3 HELIONC_CACHE_DIR=$out/fault-cache2 \
  "$helionc" tune "$root/examples/softmax.cpp" --kernel softmax --args 'x=f32[1024,4096]' \
  --budget 10 -o "$out/fault2.json" > "$out/tune_fault2.out" 2> "$out/tune_fault2.log" || status=1
secs=$(($(date +%s) - t0))
if grep -q "timeout" "$out/tune_fault2.log" && ((secs < 100)); then
  echo "ok: a hang under a 10 s budget ended tune in $secs s"
else
  echo "FAIL: a hang under a 10 s budget: $secs s, timeout reported: $(grep -c timeout "$out/tune_fault2.log")"
  status=1
fi
exit $status
