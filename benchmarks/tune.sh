#!/usr/bin/env bash
# helionc tune on the GPU machine: every memory-bound example at its anchors.md shape with
# --effort quick (wall time of the whole command, candidates compiled and timed, tuned and
# default GB/s), optionally a longer search (TUNE_FULL_BUDGET seconds of --effort full) to
# see how far quick is from it, then torch eager / torch.compile / the copy ceiling in the
# same run (benchmarks/torch_baselines.py). Table on stdout, JSON in $OUT/tune.json, the
# tuned configs in $OUT/h100/*.json.
#
# Needs helionc runnable here: a helionc on PATH (LLVM installed), or the bundle made by
# scripts/pack_helionc.sh (HELIONC=/path/to/bin/helionc). The benchmark programs link the
# runtime, built here without the frontend (no LLVM needed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export OUT=${OUT:-$(mktemp -d)}
helionc=${HELIONC:-helionc}
rtbuild=${RUNTIME_BUILD:-/tmp/helion-runtime}
if [[ -z "${HELIONC_RUNTIME_LIB:-}" ]]; then
  cmake -S "$root" -B "$rtbuild" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHELIONC_ENABLE_FRONTEND=OFF \
    -DHELIONC_ENABLE_TESTS=OFF > "$OUT/runtime_build.log" 2>&1
  ninja -C "$rtbuild" helion_runtime >> "$OUT/runtime_build.log" 2>&1
  export HELIONC_RUNTIME_LIB=$rtbuild/runtime/libhelion_runtime.a
fi
export HELIONC_HL_INCLUDE=${HELIONC_HL_INCLUDE:-$root/include}
export HELIONC_CACHE_DIR=${HELIONC_CACHE_DIR:-$OUT/cache}
mkdir -p "$OUT/h100"
# kernel file | kernel | --args | bytes moved (each input read once, each output written once)
cases=(
  "add|add|x=bf16[8192,8192] y=bf16[8192,8192]|$((3 * 8192 * 8192 * 2))"
  "softmax|softmax|x=bf16[8192,8192]|$((2 * 8192 * 8192 * 2))"
  "sum|sum_rows|x=f32[10240,10240]|$((10240 * 10240 * 4 + 10240 * 4))"
  "rms_norm|rms_norm|x=f16[2048,8192] weight=f16[8192] eps=1e-5|$((2 * 2048 * 8192 * 2 + 8192 * 2))"
  "layer_norm|layer_norm|x=f16[4096,10240] weight=f16[10240] bias=f16[10240] eps=1e-5|$((2 * 4096 * 10240 * 2 + 2 * 10240 * 2))"
  "cross_entropy|cross_entropy|logits=f32[4096,131072] labels=i64[4096]|$((4096 * 131072 * 4 + 4096 * 8 + 4096 * 4))"
)
: > "$OUT/tune.jsonl"
for c in "${cases[@]}"; do
  IFS='|' read -r file kernel args bytes <<< "$c"
  for mode in quick ${TUNE_FULL_BUDGET:+full}; do
    extra=(--effort "$mode")
    [[ $mode == full ]] && extra+=(--budget "$TUNE_FULL_BUDGET" --force)
    t0=$(date +%s.%N)
    line=$("$helionc" tune "$root/examples/$file.cpp" --kernel "$kernel" --args "$args" "${extra[@]}" \
             -o "$OUT/h100/$kernel.$mode.json" 2> "$OUT/tune_${kernel}_$mode.log" | tail -1) || {
      echo "tune failed: $kernel ($mode)"; tail -5 "$OUT/tune_${kernel}_$mode.log"; continue; }
    t1=$(date +%s.%N)
    python3 - "$kernel" "$mode" "$bytes" "$t0" "$t1" "$line" >> "$OUT/tune.jsonl" <<'PY'
import json, sys
kernel, mode, nbytes, t0, t1, line = sys.argv[1:7]
f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv and kv.split("=", 1)[0] in
         ("best_ms", "default_ms", "compiled", "timed"))
best, default = float(f["best_ms"]), float(f["default_ms"])
print(json.dumps({"kernel": kernel, "mode": mode, "wall_s": float(t1) - float(t0),
                  "compiled": int(f["compiled"]), "timed": int(f["timed"]),
                  "best_ms": best, "default_ms": default,
                  "tuned_gbps": int(nbytes) / (best * 1e-3) / 1e9,
                  "default_gbps": int(nbytes) / (default * 1e-3) / 1e9}))
PY
    tail -1 "$OUT/tune.jsonl"
  done
done
python3 "$root/benchmarks/torch_baselines.py" > "$OUT/torch_baselines.log" 2>&1 || tail -5 "$OUT/torch_baselines.log"
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "tune.jsonl"))]
torch = {}
p = os.path.join(out, "torch_baselines.json")
if os.path.exists(p):
    torch = {r["kernel"]: r for r in json.load(open(p))}
names = {"sum_rows": "sum"}
full = {r["kernel"]: r for r in rows if r["mode"] == "full"}
print(f"{'kernel':14} {'wall s':>7} {'comp':>5} {'timed':>5} {'tuned GB/s':>10} {'vs full':>8} "
      f"{'default/tuned':>13} {'vs compile':>10}")
table = []
for r in rows:
    if r["mode"] != "quick":
        continue
    t = torch.get(names.get(r["kernel"], r["kernel"]), {})
    comp = t.get("compile_gbps")
    vs_full = r["tuned_gbps"] / full[r["kernel"]]["tuned_gbps"] if r["kernel"] in full else None
    row = dict(r, vs_full=vs_full, default_ratio=r["default_gbps"] / r["tuned_gbps"],
               compile_gbps=comp, vs_compile=r["tuned_gbps"] / comp if comp else None)
    table.append(row)
    fmt = lambda v, f: format(v, f) if v is not None else "-"
    print(f"{r['kernel']:14} {r['wall_s']:7.1f} {r['compiled']:5d} {r['timed']:5d} "
          f"{r['tuned_gbps']:10.0f} {fmt(vs_full, '8.3f')} {row['default_ratio']:13.3f} "
          f"{fmt(row['vs_compile'], '10.3f')}")
json.dump({"rows": table, "full": list(full.values()), "torch": list(torch.values())},
          open(os.path.join(out, "tune.json"), "w"), indent=1)
PY
