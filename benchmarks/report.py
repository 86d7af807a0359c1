"""Merges one run's helionc timings ($OUT/gpu_check.jsonl, CUDA events, median)
with torch's ($OUT/torch_baselines.json, triton.testing.do_bench, median) into
one table: per kernel, the fastest helionc variant next to eager, torch.compile
and the copy ceiling. Writes $OUT/memory_bound.json.

Usage: python3 benchmarks/report.py OUT_DIR
"""
import json
import os
import sys

# The anchors.md shapes (the benchmark times exactly these).
SHAPES = {
    "add": "8192x8192 bf16", "softmax": "8192x8192 bf16", "softmax_two_pass": "8192x8192 bf16",
    "sum": "10240x10240 f32", "rms_norm": "2048x8192 f16", "layer_norm": "4096x10240 f16",
    "cross_entropy": "4096x131072 f32",
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
    ours = {}
    with open(os.path.join(out, "gpu_check.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") != "bench":
                continue
            best = ours.get(r["kernel"])
            if best is None or r["gbps"] > best["gbps"]:
                ours[r["kernel"]] = r
    torch = {}
    path = os.path.join(out, "torch_baselines.json")
    if os.path.exists(path):
        with open(path) as f:
            torch = {r["kernel"]: r for r in json.load(f)}
    copy = torch.get("copy", {}).get("eager_gbps")
    rows = []
    for kernel, shape in SHAPES.items():
        if kernel not in ours:
            continue
        r = ours[kernel]
        base = torch.get(kernel if kernel != "softmax_two_pass" else "softmax", {})
        eager, comp = base.get("eager_gbps"), base.get("compile_gbps")
        rows.append({
            "kernel": kernel, "shape": shape, "variant": r["variant"], "us": r["us"],
            "gbps": r["gbps"], "eager_gbps": eager, "compile_gbps": comp, "copy_gbps": copy,
            "vs_compile": r["gbps"] / comp if comp else None,
            "of_copy": r["gbps"] / copy if copy else None,
        })

    def f(v, fmt="{:.0f}"):
        return "-" if v is None else fmt.format(v)

    print(f"{'kernel':17s} {'shape':17s} {'variant':11s} {'us':>7s} {'GB/s':>6s} "
          f"{'eager':>6s} {'compile':>7s} {'x compile':>9s} {'% copy':>6s}")
    for r in rows:
        print(f"{r['kernel']:17s} {r['shape']:17s} {r['variant']:11s} {r['us']:7.1f} "
              f"{r['gbps']:6.0f} {f(r['eager_gbps']):>6s} {f(r['compile_gbps']):>7s} "
              f"{f(r['vs_compile'], '{:.2f}'):>9s} {f(r['of_copy'] and 100 * r['of_copy']):>6s}")
    print(f"copy ceiling (1 GiB device copy, same run): {f(copy)} GB/s")
    with open(os.path.join(out, "memory_bound.json"), "w") as fh:
        json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
