#!/usr/bin/env python3
"""The SM clock and board power while a GEMM runs back to back, next to the others in the
same run: the row-fitting grouped GEMM (an nvcc build of test/gpu/grouped_rows.cu, as
scripts/grouped_rows_check.sh makes; one or more --lib NAME=PATH), torch eager (one torch.mm
per group), torch.mm on all rows (cuBLAS, the same FLOPs with b[0]) and, with
--matmul-lib (examples/matmul.cpp built by helionc, as scripts/grouped_gemm_gpu_check.sh
DRY_RUN=1 leaves it in $BUILD_DIR/py-mm), helionc's matmul on all rows. An H100/H200 under
dense bf16 tensor work runs into its power limit, so a kernel that moves more bytes per
FLOP gets a lower clock: this shows whether that is where time goes.

    python3 scripts/gemm_clocks.py --lib bal-h=libgrouped_rows.so [--sizes 1688,687,...]
        [--matmul-lib libmatmul.so] [--n 4096] [--k 4096] [--seconds 3] [--json OUT.json]

Per function: launches for --seconds while `nvidia-smi -lms 100` samples the SM clock,
power and temperature; prints µs per launch (CUDA events over the whole loop) and the
samples' medians. Functions alternate twice (A B C A B C) so a drift shows.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

import torch

from grouped_rows_lib import bf16_inputs, load

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples", "python"))

HALVES31 = "1688,687,1045,1595,1693,1702,411,1830"


def sample(fn, seconds):
    """Runs fn back to back for `seconds`; returns (µs per call, samples)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                            "--format=csv,noheader,nounits", "-lms", "100"],
                           stdout=subprocess.PIPE, text=True)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls, t0 = 0, time.time()
    start.record()
    while time.time() - t0 < seconds:
        for _ in range(20):
            fn()
        calls += 20
        torch.cuda.synchronize()
    end.record()
    torch.cuda.synchronize()
    smi.terminate()
    lines = smi.communicate()[0].strip().splitlines()
    samples = []
    for line in lines[2:]:  # the first samples may predate the loop
        try:
            samples.append([float(v) for v in line.split(",")])
        except ValueError:
            pass
    return start.elapsed_time(end) * 1000 / calls, samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", default=[])
    ap.add_argument("--matmul-lib")
    ap.add_argument("--sizes", default=HALVES31)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--json")
    args = ap.parse_args()
    sizes = [int(v) for v in args.sizes.split(",")]
    n, k = args.n, args.k
    offs, a, b, o, c = bf16_inputs(sizes, n, k)
    M, G = offs[-1], len(sizes)
    b0 = b[0].contiguous()
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    fns = {}
    for spec in args.lib:
        name, _, path = spec.partition("=")

        def call(lib=load(path)):
            r = lib.grouped_rows(a.data_ptr(), b.data_ptr(), o.data_ptr(), 0, c.data_ptr(), M, n,
                                 k, G, 0, 1, stream)
            assert r == 0, r
        fns[name] = call

    def eager():
        for g in range(G):
            torch.mm(a[offs[g]:offs[g + 1]], b[g], out=c[offs[g]:offs[g + 1]])
    fns["eager"] = eager
    fns["dense"] = lambda: torch.mm(a, b0)
    if args.matmul_lib:
        from helionc_ctypes import HelioncLibrary
        mm = HelioncLibrary(args.matmul_lib)
        fns["matmul"] = lambda: mm.call("matmul", a, b0)
    print(f"{torch.cuda.get_device_name()}: groups {sizes}, n {n}, k {k}")
    rows = []
    for rnd in range(2):
        for name, fn in fns.items():
            us, smp = sample(fn, args.seconds)
            clk = statistics.median(s[0] for s in smp) if smp else float("nan")
            pw = statistics.median(s[1] for s in smp) if smp else float("nan")
            temp = statistics.median(s[2] for s in smp) if smp else float("nan")
            tflops = 2.0 * M * n * k / us / 1e6
            print(f"round {rnd} {name:10} {us:8.1f} us  {tflops:6.1f} TFLOP/s  SM {clk:6.0f} MHz"
                  f"  {pw:6.1f} W  {temp:4.0f} C  ({len(smp)} samples)", flush=True)
            rows.append({"round": rnd, "name": name, "us": us, "sm_mhz": clk, "watts": pw,
                         "celsius": temp, "samples": len(smp)})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sizes": sizes, "n": n, "k": k, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
