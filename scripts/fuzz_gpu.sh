#!/usr/bin/env bash
# On the GPU machine (no LLVM needed), from the repository root: builds the runtime
# and every harness that `test/fuzz/fuzz.py --mode gen-gpu` wrote into .carry/fuzz,
# runs them in parallel (each compares the compiled kernels of its batch, under each
# config, with ref mode on fresh random inputs), and writes $OUT/fuzz_summary.json,
# $OUT/mismatches.jsonl (one line per failing case and shape) and $OUT/logs/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen=${FUZZ_DIR:-$root/.carry/fuzz}
bin=${BUILD_DIR:-/tmp/helion-fuzz}
out=${OUT:-$bin/out}
jobs=${JOBS:-$(nproc)}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$bin" "$out/logs"
: > "$out/mismatches.jsonl"
t0=$(date +%s)
bash "$root/scripts/build_runtime.sh" "$bin" "$gen/DeviceLibrary.cpp"
export root gen bin cuda out
build() {
  b=$(basename "$1")
  g++ -std=c++23 -O1 -w -DHELION_FUZZ_GPU -I "$root/include" -I "$cuda/include" -I "$gen" -I "$1" \
    "$1/harness.cpp" "$bin/libhelion_runtime.a" -ldl \
    -Wl,--undefined=helion_rt_install_cuda_backend -o "$bin/$b" > "$out/logs/$b.build.txt" 2>&1 ||
    echo "BUILD FAILED $b"
}
run() {
  b=$(basename "$1")
  [[ -x "$bin/$b" ]] || { echo "FAIL $b/harness build failed" > "$out/logs/$b.txt"; return 0; }
  FUZZ_FAILURES="$out/mismatches.jsonl" timeout 300 "$bin/$b" > "$out/logs/$b.txt" 2>&1 ||
    echo "harness $b exited with $?" >> "$out/logs/$b.txt"
}
export -f build run
ls -d "$gen"/b[0-9]* | xargs -P "$jobs" -I{} bash -c 'build {}'
t1=$(date +%s)
ls -d "$gen"/b[0-9]* | xargs -P "${RUN_JOBS:-8}" -I{} bash -c 'run {}'
t2=$(date +%s)
python3 - "$out" "$((t1 - t0))" "$((t2 - t1))" <<'PY'
import glob, json, os, sys
out, build_s, run_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ok = fail = rejected = 0
cases, bad_cases, failing, crashed = set(), set(), [], []
for p in sorted(glob.glob(os.path.join(out, "logs", "b*[0-9].txt"))):
    for line in open(p, errors="replace"):
        parts = line.split(" ", 3)
        if parts[0] in ("ok", "FAIL") and len(parts) >= 3:
            cases.add(parts[1])
            if parts[0] == "ok":
                ok += 1
            else:
                fail += 1
                bad_cases.add(parts[1])
                failing.append(line.strip()[:500])
        elif parts[0] == "rejected":  # the instantiation's static_assert: a diagnostic
            rejected += 1
        elif line.startswith("harness ") or "terminate called" in line:
            crashed.append(os.path.basename(p) + ": " + line.strip())
s = {"checks_ok": ok, "checks_failed": fail, "checks_rejected": rejected, "cases": len(cases),
     "cases_failed": len(bad_cases), "harness_crashes": crashed,
     "build_seconds": build_s, "run_seconds": run_s, "failures": failing}
json.dump(s, open(os.path.join(out, "fuzz_summary.json"), "w"), indent=1)
print("\n".join(failing[:60]))
print(f"fuzz_gpu: {len(cases)} cases (kernel x config incl. ref), {len(bad_cases)} failing; "
      f"{ok} checks ok, {fail} failed, {rejected} rejected by the instantiation; "
      f"{len(crashed)} harness crashes; build {build_s} s, run {run_s} s")
sys.exit(1 if fail or crashed or not cases else 0)
PY
