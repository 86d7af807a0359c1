#!/usr/bin/env python3
"""helionc's flash attention next to torch SDPA and torch.compile, in one run.

Non-causal attention forward, softmax(q k^T / sqrt(d)) v, at (B=4, H=32, S=4096,
D=128) and (B=8, H=16, S=2048, D=64), bf16 and f16; TFLOP/s count 4 B H S^2 D
flops. The card is power-capped (docs/gemm.md), so the implementations are timed
in interleaved rounds (helionc via `attention_check --bench`, then
torch.nn.functional.scaled_dot_product_attention, then torch.compile of the naive
formula) and each round's ratios are reported, for each helionc variant named by
--variants (attention_check's names). JSON to $OUT/attention_bench.json.
"""
import argparse, json, math, os, subprocess, time

import torch

from timing import bench_ms
import torch.nn.functional as F

SHAPES = [(4, 32, 4096, 128), (8, 16, 2048, 64)]


def naive(q, k, v):
    s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--helionc", required=True, help="attention_check binary")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--variants", default="default",
                    help="comma-separated attention_check variants to time (first: the ratios)")
    args = ap.parse_args()
    out = os.environ.get("OUT", ".")
    jsonl = os.path.join(out, "attention_bench.jsonl")
    if os.path.exists(jsonl):
        os.remove(jsonl)
    compiled = torch.compile(naive, dynamic=False)
    backends = set()
    rows = []
    for r in range(args.rounds):
        subprocess.run([args.helionc, "--bench", args.variants], check=True)
        ours = {}
        with open(jsonl) as f:
            for line in f:
                j = json.loads(line)
                key = (j["variant"], j["dtype"], j["bh"], j["s"], j["d"])
                ours[key] = j["tflops"]  # latest round wins
        for dt_name, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            for (b, h, s, d) in SHAPES:
                q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dt) for _ in range(3))
                flop = 4 * b * h * s * s * d
                sdpa = flop / bench_ms(lambda: F.scaled_dot_product_attention(q, k, v)) / 1e9
                if r == 0:
                    try:
                        from torch.nn.attention import sdpa_kernel, SDPBackend  # noqa
                        for be in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
                                   SDPBackend.EFFICIENT_ATTENTION):
                            with sdpa_kernel([be]):
                                try:
                                    F.scaled_dot_product_attention(q, k, v)
                                    backends.add(str(be))
                                except RuntimeError:
                                    pass
                    except ImportError:
                        pass
                comp = float("nan")
                if not args.no_compile:
                    t0 = time.time()
                    comp = flop / bench_ms(lambda: compiled(q, k, v), runs=10, warmup=2) / 1e9
                    if r == 0:
                        print(f"torch.compile {dt_name} {(b, h, s, d)}: {time.time() - t0:.1f} s "
                              f"incl. compile", flush=True)
                for variant in args.variants.split(","):
                    hc = ours.get((variant, dt_name, b * h, s, d), float("nan"))
                    row = dict(round=r, variant=variant, dtype=dt_name, B=b, H=h, S=s, D=d,
                               helionc=hc, sdpa=sdpa, torch_compile=comp, vs_sdpa=hc / sdpa,
                               vs_compile=hc / comp)
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                del q, k, v
                with open(os.path.join(out, "attention_bench.json"), "w") as f:
                    json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                                   sdpa_backends_that_run=sorted(backends), rows=rows), f, indent=1)
    print(f"{'round':>5} {'variant':>16} {'dtype':>5} {'B,H,S,D':>16} {'helionc':>8} {'SDPA':>8} "
          f"{'compile':>8} {'vs SDPA':>8} {'vs compile':>10}   (TFLOP/s)")
    for x in rows:
        shape = f"{x['B']},{x['H']},{x['S']},{x['D']}"
        print(f"{x['round']:>5} {x['variant']:>16} {x['dtype']:>5} {shape:>16} "
              f"{x['helionc']:8.1f} {x['sdpa']:8.1f} {x['torch_compile']:8.1f} "
              f"{x['vs_sdpa']:8.3f} {x['vs_compile']:10.3f}")


if __name__ == "__main__":
    main()
