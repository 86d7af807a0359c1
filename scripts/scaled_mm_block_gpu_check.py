#!/usr/bin/env python3
"""The fp8 matmul with per-block scales on the GPU (scripts/scaled_mm_gpu_check.sh runs this).

examples/scaled_mm_block.cpp: out[M, N] = sum over 128-wide K blocks kb of
(x[:, kb] @ w[:, kb]^T) * scale_x[:, kb] * scale_w[n / 128, kb] in bf16, x [M, K] and w
[N, K] in float8_e4m3fn (or float8_e5m2), scale_x [M, cdiv(K, 128)] and scale_w
[cdiv(N, 128), cdiv(K, 128)] f32 (DeepSeek-V3's and vLLM's block fp8). Inputs are fresh
random bf16 values quantized per block (amax to the format's largest value); each result is
compared with a float64 reference of the dequantized operands (max |error| over max
|reference|), the kernel's output NaN-poisoned first, and timed next to torch eager
(dequantize to bf16, then matmul), torch.compile of that, and torch._scaled_mm with
block-wise scales where this torch and cuBLAS take them (else n/a). `--lib80` is the same
kernel built with an indexing-pointer config (the sm80 kernel), checked at every shape and
timed at 4096^3.

    python3 scripts/scaled_mm_block_gpu_check.py --lib L.so --lib80 L80.so [--json OUT.json]
"""
import argparse
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(here), "examples", "python"))
sys.path.insert(0, here)
from helionc_ctypes import HelioncLibrary  # noqa: E402
from lang_gpu_check import bench_us, poisoned_call  # noqa: E402
from scaled_mm_gpu_check import (FMAX, TOL, finish, fmt_us, ratio, rel_err,  # noqa: E402
                                 time_compiled)

DEV = "cuda"
B = 128  # the scales' block


def cdiv(a, b):
    return (a + b - 1) // b


def quantize_blocks(v, dt, rows_per_block):
    """v [R, K] quantized per (rows_per_block x 128) block.

    Returns (q, scale) with scale [cdiv(R, rows_per_block), cdiv(K, 128)]."""
    r, k = v.shape
    pad = torch.zeros(cdiv(r, rows_per_block) * rows_per_block, cdiv(k, B) * B, device=DEV)
    pad[:r, :k] = v.float()
    blocks = pad.view(pad.shape[0] // rows_per_block, rows_per_block, pad.shape[1] // B, B)
    scale = (blocks.abs().amax(dim=(1, 3)).clamp_min(1e-12) / FMAX[dt]).contiguous()
    q = (blocks / scale[:, None, :, None]).view_as(pad)[:r, :k].to(dt).contiguous()
    return q, scale


def expand(scale, rows_per_block, r, k):
    """A block scale as one value per element of an [r, k] operand."""
    return scale.repeat_interleave(rows_per_block, 0)[:r].repeat_interleave(B, 1)[:, :k]


def torch_blockwise(xq, wq, sx, sw):
    """torch._scaled_mm with 1x128 scales for x and 128x128 for w, when this torch takes them."""
    if not hasattr(torch, "_scaled_mm"):
        return None
    b = wq.t()  # [K, N] column-major, as cuBLAS fp8 wants it
    for sa, sb in ((sx, sw.t()), (sx.t().contiguous().t(), sw.t().contiguous()),
                   (sx.t().contiguous().t(), sw.t())):
        fn = lambda sa=sa, sb=sb: torch._scaled_mm(xq, b, scale_a=sa, scale_b=sb,  # noqa: E731
                                                   out_dtype=torch.bfloat16)
        try:
            fn()
            return fn
        except Exception:  # noqa: BLE001
            continue
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--lib80", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    libs = {"sm90": HelioncLibrary(args.lib), "sm80": HelioncLibrary(args.lib80)}
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    e4, e5 = torch.float8_e4m3fn, torch.float8_e5m2
    cases = [((4096, 4096, 4096), e4), ((8192, 8192, 8192), e4), ((4096, 7168, 2048), e4),
             ((4096, 4096, 4096), e5), ((1000, 1000, 1008), e4), ((333, 200, 80), e5),
             ((512, 384, 1136), e4)]  # 9 K blocks: an odd count past the unrolled pairs
    rows = []
    for (m, n, k), dt in cases:
        x = torch.randn(m, k, device=DEV)
        w = torch.randn(n, k, device=DEV)
        xq, sx = quantize_blocks(x, dt, 1)
        wq, sw = quantize_blocks(w, dt, B)
        xd, wd = xq.double() * expand(sx.double(), 1, m, k), wq.double() * expand(
            sw.double(), B, n, k)
        want = xd @ wd.t()
        del xd, wd
        big = m * n * k >= 4096**3 // 4
        block = torch_blockwise(xq, wq, sx, sw)
        sxe, swe = expand(sx, 1, m, k), expand(sw, B, n, k)
        eager = lambda: ((xq.float() * sxe).to(torch.bfloat16)  # noqa: E731
                         @ (wq.float() * swe).to(torch.bfloat16).t())
        for kind, lib in libs.items():
            call = lambda: lib.call("scaled_mm_block", xq, wq, sx, sw)  # noqa: E731
            got, pz = poisoned_call(call)
            err = rel_err(got, want)
            timed = big and (kind == "sm90" or m * n * k == 4096**3)
            row = {"kernel": f"scaled_mm_block/{kind}", "dtype": str(dt).replace("torch.", ""),
                   "shape": [m, n, k], "max_rel_err": err, "tol": TOL,
                   "ok": err <= TOL and got.dtype == torch.bfloat16, "poison": pz,
                   "flops": 2.0 * m * n * k, "helionc_us": None, "blockwise_us": None,
                   "eager_us": None, "compile_us": None}
            if timed:
                row["helionc_us"] = bench_us(call)
                if kind == "sm90":
                    if block is not None:
                        row["blockwise_us"] = bench_us(block)
                    row["eager_us"] = bench_us(eager)
                    time_compiled(row, eager)
            rows.append(row)
            del got

    dev = torch.cuda.get_device_name()
    print(f"\n{dev}: helionc scaled_mm_block vs torch (median us; TFLOP/s of helionc; "
          "_block = torch._scaled_mm with block-wise scales (cuBLAS); eager = dequantize + "
          "bf16 matmul)")
    hdr = (f"{'kernel':21} {'dtype':13} {'MxNxK':15} {'check':5} {'max_err':>8} {'poison':6} "
           f"{'helionc':>8} {'_block':>8} {'eager':>8} {'compile':>8} {'TF/s':>7} "
           f"{'bl/h':>5} {'eag/h':>5} {'cmp/h':>5}")
    print(hdr)
    print("-" * len(hdr))
    fmt = fmt_us
    for r in rows:
        h = r["helionc_us"]
        tf = f"{r['flops'] / h / 1e6:7.1f}" if h else "    n/a"
        print(f"{r['kernel']:21} {r['dtype']:13} {'x'.join(map(str, r['shape'])):15} "
              f"{'ok' if r['ok'] else 'FAIL':5} {r['max_rel_err']:8.2g} {str(r['poison']):6} "
              f"{fmt(h)} {fmt(r['blockwise_us'])} {fmt(r['eager_us'])} {fmt(r['compile_us'])} "
              f"{tf} {ratio(r['blockwise_us'], h)} {ratio(r['eager_us'], h)} "
              f"{ratio(r['compile_us'], h)}")
    return finish(rows, dev, args.json)


if __name__ == "__main__":
    sys.exit(main())
