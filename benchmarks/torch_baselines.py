"""Torch eager, torch.compile and the copy ceiling at the anchors.md shapes.

Run in the same command as scripts/gpu_check.sh --bench so ratios come from one
machine state. Prints a table and writes $OUT/torch_baselines.json.
"""
import json
import os

import torch
import triton.testing as tt

torch.manual_seed(0)
dev = "cuda"


def gbps(fn, nbytes):
    ms = tt.do_bench(fn, warmup=10, rep=100)
    return nbytes / (ms * 1e-3) / 1e9


def tflops(fn, flop):
    # do_bench times each call alone between L2 flushes, as helionc tune does.
    ms = tt.do_bench(fn, warmup=10, rep=100)
    return flop / (ms * 1e-3) / 1e12


def naive_attention(q, k, v):
    s = (q @ k.transpose(-2, -1)) * (1.0 / q.shape[-1] ** 0.5)
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v


def dot_rows():
    """matmul 4096^3 bf16 (eager: cuBLAS) and attention q, k, v [128, 4096, 128] bf16
    (eager: SDPA; torch.compile: the naive formula), in TFLOP/s, at the shapes
    benchmarks/tune.sh tunes."""
    rows = []
    a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    mm = lambda x, y: x @ y
    flop = 2 * 4096 ** 3
    cmm = torch.compile(mm)
    cmm(a, b)
    rows.append(("matmul", tflops(lambda: mm(a, b), flop), tflops(lambda: cmm(a, b), flop)))
    q, k, v = (torch.randn(1, 128, 4096, 128, device=dev, dtype=torch.bfloat16) for _ in range(3))
    flop = 4 * 128 * 4096 * 4096 * 128
    sdpa = torch.nn.functional.scaled_dot_product_attention
    cna = torch.compile(naive_attention)
    cna(q, k, v)
    rows.append(("attention", tflops(lambda: sdpa(q, k, v), flop),
                 tflops(lambda: cna(q, k, v), flop)))
    return rows


def main():
    rows = []
    x = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    y = torch.randn_like(x)
    big = torch.empty(1 << 29, device=dev, dtype=torch.uint8)
    rows.append(("copy", "1GiB", gbps(lambda: big.clone(), 2 * big.numel()), None))
    cases = {
        "add": (lambda a, b: a + b, (x, y), 3 * x.numel() * 2),
        "softmax": (lambda a: torch.softmax(a, -1), (x,), 2 * x.numel() * 2),
    }
    s = torch.randn(10240, 10240, device=dev)
    cases["sum"] = (lambda a: a.sum(1), (s,), s.numel() * 4 + 10240 * 4)
    r = torch.randn(2048, 8192, device=dev, dtype=torch.float16)
    rw = torch.randn(8192, device=dev, dtype=torch.float16)
    cases["rms_norm"] = (
        lambda a, w: (a.float() * torch.rsqrt(a.float().pow(2).mean(-1, keepdim=True) + 1e-5) * w).to(a.dtype),
        (r, rw), 2 * r.numel() * 2 + 8192 * 2)
    l = torch.randn(4096, 10240, device=dev, dtype=torch.float16)
    lw = torch.randn(10240, device=dev, dtype=torch.float16)
    lb = torch.randn(10240, device=dev, dtype=torch.float16)
    cases["layer_norm"] = (lambda a, w, b: torch.nn.functional.layer_norm(a, (10240,), w, b, 1e-5),
                           (l, lw, lb), 2 * l.numel() * 2 + 4 * 10240)
    ce = torch.randn(4096, 131072, device=dev)
    lab = torch.randint(0, 131072, (4096,), device=dev)
    cases["cross_entropy"] = (lambda a, b: torch.nn.functional.cross_entropy(a, b, reduction="none"),
                              (ce, lab), ce.numel() * 4 + 4096 * 12)
    for name, (fn, args, nbytes) in cases.items():
        eager = gbps(lambda: fn(*args), nbytes)
        try:
            cfn = torch.compile(fn)
            cfn(*args)
            comp = gbps(lambda: cfn(*args), nbytes)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"torch.compile failed for {name}: {e}")
            comp = None
        rows.append((name, "anchor", eager, comp))
    print(f"{'kernel':15s} {'eager GB/s':>11s} {'compile GB/s':>13s}")
    for name, _, eager, comp in rows:
        print(f"{name:15s} {eager:11.0f} {'-' if comp is None else round(comp):>13}")
    records = [{"kernel": n, "eager_gbps": e, "compile_gbps": c} for n, _, e, c in rows]
    if os.environ.get("TORCH_DOT_BASELINES", "1") != "0":
        for name, eager, comp in dot_rows():
            print(f"{name:15s} {eager:8.0f} TFLOP/s {comp:8.0f} TFLOP/s")
            records.append({"kernel": name, "eager_tflops": eager, "compile_tflops": comp})
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "torch_baselines.json"), "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
