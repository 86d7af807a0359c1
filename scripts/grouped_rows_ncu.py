#!/usr/bin/env python3
"""One launch each of a row-fitting grouped GEMM variant, of helionc's plain matmul
(--matmul-lib) and of torch.mm (--dense: cuBLAS) on the same rows, for a profiler
(scripts/grouped_rows_ncu.sh runs this under ncu).

    python3 scripts/grouped_rows_ncu.py --lib libgrouped_rows.so [--matmul-lib libmatmul.so]
        [--dense] [--sizes 8192] [--n 4096] [--k 4096]

Each is called twice (the first warms up); the grouped GEMM has one B per group, the
matmul and torch.mm all rows with b[0] (the same FLOPs).
"""
import argparse
import ctypes
import os
import sys

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
from grouped_rows_lib import bf16_inputs, load  # noqa: E402
from helionc_ctypes import HelioncLibrary  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--matmul-lib")
    ap.add_argument("--dense", action="store_true")
    ap.add_argument("--sizes", default="8192")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    args = ap.parse_args()
    sizes = [int(v) for v in args.sizes.split(",")]
    n, k = args.n, args.k
    offs, a, b, o, c = bf16_inputs(sizes, n, k)
    M, G = offs[-1], len(sizes)
    lib = load(args.lib)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    mm = HelioncLibrary(args.matmul_lib) if args.matmul_lib else None
    b0 = b[0].contiguous()
    for _ in range(2):
        r = lib.grouped_rows(a.data_ptr(), b.data_ptr(), o.data_ptr(), 0, c.data_ptr(), M, n, k,
                             G, 0, 1, stream)
        assert r == 0, r
        if mm:
            mm.call("matmul", a, b0)
        if args.dense:
            torch.mm(a, b0)
    torch.cuda.synchronize()
    print("ok")


if __name__ == "__main__":
    main()
