#!/usr/bin/env python3
"""helionc's matmul next to torch.matmul (cuBLAS) and torch.compile, in one run.

The card is power-capped (docs/gemm.md): absolute TFLOP/s drift within a run, so
the implementations are timed in interleaved rounds (helionc via
`matmul_check --bench`, then torch eager, then torch.compile, repeated) and the
ratios of each round are reported. JSON to $OUT/matmul_bench.json.
"""
import argparse, json, os, statistics, subprocess

import torch


def bench_ms(fn, runs=50, warmup=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--helionc", required=True, help="matmul_check binary")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    out = os.environ.get("OUT", ".")
    jsonl = os.path.join(out, "matmul_bench.jsonl")
    if os.path.exists(jsonl):
        os.remove(jsonl)
    compiled = torch.compile(torch.matmul)
    rows = []
    for r in range(args.rounds):
        subprocess.run([args.helionc, "--bench"], check=True)
        ours = {}
        with open(jsonl) as f:
            for line in f:
                j = json.loads(line)
                ours[(j["dtype"], j["n"])] = j["tflops"]  # the latest round wins
        for dt_name, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            for n in (4096, 8192):
                a = torch.randn(n, n, device="cuda", dtype=dt)
                b = torch.randn(n, n, device="cuda", dtype=dt)
                flop = 2 * n ** 3
                eager = flop / bench_ms(lambda: torch.matmul(a, b)) / 1e9
                comp = flop / bench_ms(lambda: compiled(a, b)) / 1e9
                h = ours.get((dt_name, n), float("nan"))
                rows.append(dict(round=r, dtype=dt_name, n=n, helionc=h, cublas=eager,
                                 torch_compile=comp, vs_cublas=h / eager, vs_compile=h / comp))
    print(f"{'round':>5} {'dtype':>5} {'n':>5} {'helionc':>8} {'cuBLAS':>8} {'compile':>8} "
          f"{'vs cuBLAS':>9} {'vs compile':>10}   (TFLOP/s)")
    for x in rows:
        print(f"{x['round']:>5} {x['dtype']:>5} {x['n']:>5} {x['helionc']:8.1f} {x['cublas']:8.1f} "
              f"{x['torch_compile']:8.1f} {x['vs_cublas']:9.3f} {x['vs_compile']:10.3f}")
    with open(os.path.join(out, "matmul_bench.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
