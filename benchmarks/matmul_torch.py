#!/usr/bin/env python3
"""torch.matmul (cuBLAS) and torch.compile next to helionc's paired figures.

Times torch.matmul and torch.compile(torch.matmul) on random bf16 / f16 square
matrices (CUDA events, median of 50 after 10 warm-ups, the two interleaved in
`--rounds` rounds, best round kept), then reads matmul_check --bench's paired
helionc / cuBLAS lines ($OUT/matmul_paired.jsonl) and prints one table:
helionc (the best of its timed configs), cuBLAS timed alternately with it in the
same process, the ratio of the two (the figure to read: the power-capped card's
clocks move more between runs than the differences), and torch / torch.compile
from this process, with helionc's ratio to them (not paired: another process,
some seconds later). JSON to $OUT/matmul_report.json.
"""
import argparse, json, os

import torch

from timing import bench_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paired", help="matmul_check --bench output (JSON lines)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sizes", default="4096,8192")
    args = ap.parse_args()
    out = os.environ.get("OUT", ".")
    sizes = [int(x) for x in args.sizes.split(",")]
    compiled = torch.compile(torch.matmul)
    torch_rows = {}
    for dt_name, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        for n in sizes:
            a = torch.randn(n, n, device="cuda", dtype=dt)
            b = torch.randn(n, n, device="cuda", dtype=dt)
            flop = 2 * n ** 3
            eager, comp = [], []
            for _ in range(args.rounds):
                eager.append(flop / bench_ms(lambda: torch.matmul(a, b), runs=50, warmup=10) / 1e9)
                comp.append(flop / bench_ms(lambda: compiled(a, b), runs=50, warmup=10) / 1e9)
            torch_rows[(dt_name, n)] = dict(torch=max(eager), torch_compile=max(comp),
                                            torch_rounds=eager, compile_rounds=comp)
    paired = []
    if args.paired and os.path.exists(args.paired):
        with open(args.paired) as f:
            paired = [json.loads(line) for line in f if line.strip()]
    rows = []
    for dt_name in ("bf16", "f16", "f32"):
        for n in sizes:
            mine = [p for p in paired if p["dtype"] == dt_name and p["n"] == n]
            t = torch_rows.get((dt_name, n), {})
            if not mine and not t:
                continue
            best = max(mine, key=lambda p: p["ratio"]) if mine else None
            row = dict(dtype=dt_name, n=n, **{k: v for k, v in t.items()})
            if best:
                row.update(helionc=best["tflops"], config=best["variant"],
                           cublas_paired=best["cublas_tflops"], ratio_cublas=best["ratio"],
                           configs={p["variant"]: dict(tflops=p["tflops"], cublas=p["cublas_tflops"],
                                                       ratio=p["ratio"]) for p in mine})
                if t:
                    row.update(ratio_torch=best["tflops"] / t["torch"],
                               ratio_compile=best["tflops"] / t["torch_compile"])
            rows.append(row)
    print("\nTFLOP/s (helionc = best config by paired ratio; cuBLAS paired with it in one process;"
          " torch/compile: this process)")
    print(f"{'dtype':>5} {'n':>5} {'config':>14} {'helionc':>8} {'cuBLAS':>8} {'ratio':>6} "
          f"{'torch':>8} {'compile':>8} {'vs torch':>8} {'vs comp':>8}")
    nan = float("nan")
    for r in rows:
        print(f"{r['dtype']:>5} {r['n']:>5} {r.get('config', '-'):>14} {r.get('helionc', nan):8.1f} "
              f"{r.get('cublas_paired', nan):8.1f} {r.get('ratio_cublas', nan):6.3f} "
              f"{r.get('torch', nan):8.1f} {r.get('torch_compile', nan):8.1f} "
              f"{r.get('ratio_torch', nan):8.3f} {r.get('ratio_compile', nan):8.3f}")
    with open(os.path.join(out, "matmul_report.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=rows, paired=paired), f, indent=1)


if __name__ == "__main__":
    main()
