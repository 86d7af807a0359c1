#!/usr/bin/env python3
"""Variants of the block-scaled fp8 GEMM on the GPU (scripts/scaled_block_check.sh runs this).

hd::Gemm's K-scale mainloop (what examples/scaled_mm_block.cpp compiles to) built by
nvcc from test/gpu/scaled_block.cu with other tiles, consumers, stages or clusters:
each variant is checked on fresh random inputs quantized per block against a float64
reference of the dequantized operands (output NaN-poisoned first), then all are timed
paired (benchmarks/timing.py: one call of each per round after an L2 flush, order
shuffled each round) next to torch._scaled_mm with 1 x 128 and 128 x 128 scales (cuBLAS).

    python3 scripts/scaled_block_check.py --lib NAME=LIB.so ... [--rounds 30] [--json F]
    python3 scripts/scaled_block_check.py [--lib NAME=LIB.so] --profile 4096x4096x4096

Ratios are each variant's time over the first's, per round, median. --profile only calls
each --lib (or, without one, torch._scaled_mm) three times at that shape, for ncu
(scripts/scaled_block_check.sh with NCU=1).
"""
import argparse
import ctypes
import json
import os
import sys

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "benchmarks"))
sys.path.insert(0, os.path.join(root, "scripts"))
from timing import paired_us  # noqa: E402
from scaled_mm_block_gpu_check import expand, quantize_blocks, torch_blockwise  # noqa: E402
from scaled_mm_gpu_check import TOL, rel_err  # noqa: E402

DEV = "cuda"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", default=[])
    ap.add_argument("--profile", metavar="MxNxK")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--json")
    ap.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192,4096x7168x2048,"
                    "2048x7168x7168,8192x2048x7168,4096x1024x1024")
    args = ap.parse_args()
    libs = {}
    for spec in args.lib:
        name, path = spec.split("=", 1)
        lib = ctypes.CDLL(path)
        lib.scaled_block.restype = ctypes.c_int
        lib.scaled_block.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int] * 3 + [ctypes.c_void_p]
        libs[name] = lib
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    e4 = torch.float8_e4m3fn

    def caller(lib, xq, wq, sx, sw, out):
        m, k = xq.shape
        n = wq.shape[0]
        def call():
            rc = lib.scaled_block(xq.data_ptr(), wq.data_ptr(), sx.data_ptr(), sw.data_ptr(),
                                  out.data_ptr(), m, n, k,
                                  ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            if rc:
                raise RuntimeError(f"scaled_block returned {rc}")
        return call

    if args.profile:
        m, n, k = map(int, args.profile.split("x"))
        xq, sx = quantize_blocks(torch.randn(m, k, device=DEV), e4, 1)
        wq, sw = quantize_blocks(torch.randn(n, k, device=DEV), e4, 128)
        out = torch.empty(m, n, device=DEV, dtype=torch.bfloat16)
        fn = caller(next(iter(libs.values())), xq, wq, sx, sw, out) if libs else \
            torch_blockwise(xq, wq, sx, sw)
        if fn is None:
            print("this torch has no block-wise torch._scaled_mm", file=sys.stderr)
            return 1
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        return 0
    if not libs:
        ap.error("--lib is needed to check and time")
    results = {"device": torch.cuda.get_device_name(), "checks": [], "timings": []}
    failed = 0
    # Checks: every variant, ragged and small shapes too.
    # K blocks: 32, 8, 1, 32 and 9 (an odd count past the two-part loop's unrolled pairs)
    for m, n, k in ((4096, 4096, 4096), (1000, 1000, 1008), (333, 200, 80), (4000, 4096, 4032),
                    (512, 384, 1136)):
        x, w = torch.randn(m, k, device=DEV), torch.randn(n, k, device=DEV)
        xq, sx = quantize_blocks(x, e4, 1)
        wq, sw = quantize_blocks(w, e4, 128)
        want = (xq.double() * expand(sx.double(), 1, m, k)) @ (
            wq.double() * expand(sw.double(), 128, n, k)).t()
        for name, lib in libs.items():
            out = torch.full((m, n), float("nan"), device=DEV, dtype=torch.bfloat16)
            caller(lib, xq, wq, sx, sw, out)()
            torch.cuda.synchronize()
            err = rel_err(out, want)
            ok = err <= TOL
            failed += not ok
            results["checks"].append({"variant": name, "shape": [m, n, k], "err": err, "ok": ok})
            print(f"check {name:12} {m}x{n}x{k}: max rel err {err:.3g} {'ok' if ok else 'FAIL'}")
    # Timings, paired.
    names = list(libs)
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        x, w = torch.randn(m, k, device=DEV), torch.randn(n, k, device=DEV)
        xq, sx = quantize_blocks(x, e4, 1)
        wq, sw = quantize_blocks(w, e4, 128)
        fns, labels = [], []
        for name in names:
            out = torch.empty(m, n, device=DEV, dtype=torch.bfloat16)
            fns.append(caller(libs[name], xq, wq, sx, sw, out))
            labels.append(name)
        block = torch_blockwise(xq, wq, sx, sw)
        if block is not None:
            fns.append(block)
            labels.append("_scaled_mm")
        med, rat, _ = paired_us(fns, rounds=args.rounds)
        flops = 2.0 * m * n * k
        print(f"\n{m}x{n}x{k} (paired, {args.rounds} rounds): "
              + ", ".join(f"{lb} {t:.1f} us ({flops / t / 1e6:.0f} TF/s, x{r:.3f})"
                          for lb, t, r in zip(labels, med, rat)))
        results["timings"].append({"shape": [m, n, k], "us": dict(zip(labels, med)),
                                   "ratio_to_first": dict(zip(labels, rat))})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"\n{failed} checks failed" if failed else "\nall checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
