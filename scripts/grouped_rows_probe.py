#!/usr/bin/env python3
"""Where the row-fitting grouped GEMM's time goes inside one launch, from its timing probes
(test/gpu/grouped_rows.cu built with -DPROBE; scripts/grouped_rows_check.sh PROBE=1 builds
it as libgrouped_rows_probe.so).

    python3 scripts/grouped_rows_probe.py --lib libgrouped_rows_probe.so
        [--draws uniform,halves31,one8192] [--k 4096] [--n 4096] [--dense] [--time ROUNDS]
        [--json OUT.json]

Per draw, the third of three launches: per CTA, in microseconds at the CTA's own clock
rate (clock64 cycles over globaltimer ns between its entry and end): the set-up and pricing
(entry .. plan), the height order (plan .. order), the producer's first load and the first
consumer's first data after entry, its epilogues (sum, and per tile) and the gaps
between a tile's epilogue end and the next tile's first data (sum, per tile), and the
CTA's whole time; the median and the largest over CTAs, and the spread of the CTAs'
entries and ends (globaltimer). --dense: the same for the plain persistent matmul template
(gemm_sm90.cuh's Gemm, 128 x 256 tiles, as examples/matmul.cpp compiles to; the library's
dense_probe) on all rows with b[0], which has the same probes. --time: both timed with
events, paired (benchmarks/timing.py), beside the probes' spans.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "benchmarks"))
from timing import paired_us  # noqa: E402

SLOTS = ["entry", "planned", "ordered", "firstLoad", "firstData", "epilogueBegin",
         "epilogueEnd", "end", "gaps", "gapsN", "epilogues", "epiloguesN", "ns0", "ns1"]
K_SLOTS, K_CTAS = 16, 1024
DRAWS = {"uniform": [1024] * 8, "one8192": [8192],
         "halves31": [1688, 687, 1045, 1595, 1693, 1702, 411, 1830],
         "moe": [256] * 64}


def summarize(name, buf, shape, rows):
    """The probes of one launch (buf), per CTA, summarized and printed; rows: the
    row-fitting kernel (else the plain matmul, which has no pricing or order)."""
    ctas = []
    for i in range(K_CTAS):
        row = dict(zip(SLOTS, buf[i * K_SLOTS:i * K_SLOTS + len(SLOTS)]))
        if row["entry"] and row["end"]:
            ctas.append(row)
    per = {"pricing": [], "order": [], "firstLoad": [], "firstData": [], "epilogues": [],
           "epilogue/tile": [], "gaps": [], "gap/tile": [], "whole": [], "GHz": []}
    if not rows:
        del per["pricing"], per["order"]
    for r in ctas:
        ns = max(1, r["ns1"] - r["ns0"])
        ghz = (r["end"] - r["entry"]) / ns
        us = lambda cyc: cyc / ghz / 1000  # noqa: E731
        per["GHz"].append(ghz)
        if rows:
            per["pricing"].append(us(r["planned"] - r["entry"]))
            per["order"].append(us(r["ordered"] - r["planned"]))
        per["firstLoad"].append(us(r["firstLoad"] - r["entry"]))
        per["firstData"].append(us(r["firstData"] - r["entry"]))
        per["epilogues"].append(us(r["epilogues"]))
        per["epilogue/tile"].append(us(r["epilogues"]) / max(1, r["epiloguesN"]))
        per["gaps"].append(us(r["gaps"]))
        per["gap/tile"].append(us(r["gaps"]) / max(1, r["gapsN"]))
        per["whole"].append(ns / 1000)
    starts = [r["ns0"] for r in ctas]
    ends = [r["ns1"] for r in ctas]
    summary = {f: {"median": statistics.median(v), "max": max(v)} for f, v in per.items()}
    summary["entry_spread_us"] = (max(starts) - min(starts)) / 1000
    summary["end_spread_us"] = (max(ends) - min(ends)) / 1000
    summary["first_to_last_us"] = (max(ends) - min(starts)) / 1000
    summary["ctas"] = len(ctas)
    print(f"{name:9} {shape}, {len(ctas)} CTAs; kernel "
          f"{summary['first_to_last_us']:.1f} us (entries spread "
          f"{summary['entry_spread_us']:.1f}, ends "
          f"{summary['end_spread_us']:.1f})", flush=True)
    print("   " + "  ".join(f"{f} {v['median']:.2f}/{v['max']:.2f}" for f, v in summary.items()
                            if isinstance(v, dict)), flush=True)
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--draws", default="uniform,halves31,one8192,moe")
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--dense", action="store_true",
                    help="also the plain matmul template (dense_probe) on all rows with b[0]")
    ap.add_argument("--time", type=int, default=0, metavar="ROUNDS",
                    help="also time both kernels with events, paired (benchmarks/timing.py)")
    ap.add_argument("--json")
    args = ap.parse_args()
    lib = ctypes.CDLL(args.lib)
    lib.grouped_rows.restype = ctypes.c_int
    lib.grouped_rows.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p] + \
        [ctypes.c_int] * 6 + [ctypes.c_void_p]
    lib.grouped_rows_probe.restype = ctypes.c_int
    lib.grouped_rows_probe.argtypes = [ctypes.c_void_p]
    lib.dense_probe.restype = ctypes.c_int
    lib.dense_probe.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3 + [ctypes.c_void_p]
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    buf = (ctypes.c_longlong * (K_CTAS * K_SLOTS))()
    out = {}
    for name in args.draws.split(","):
        sizes = DRAWS[name]
        offs = [0]
        for s in sizes:
            offs.append(offs[-1] + s)
        M, G, n, k = offs[-1], len(sizes), args.n, args.k
        if name == "moe":
            n = 1024
        a = torch.randn(M, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(G, k, n, device="cuda", dtype=torch.bfloat16)
        o = torch.tensor(offs, device="cuda", dtype=torch.int32)
        c = torch.empty(M, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(3):
            torch.cuda.synchronize()
            assert lib.grouped_rows_probe(buf) == 0
            r = lib.grouped_rows(a.data_ptr(), b.data_ptr(), o.data_ptr(), 0, c.data_ptr(), M, n,
                                 k, G, 0, 1, stream)
            assert r == 0, r
            torch.cuda.synchronize()
        assert lib.grouped_rows_probe(buf) == 0
        out[name] = summarize(name, buf, f"M {M} n {n} k {k}", True)
        if args.time:  # event times (paired) beside the probes' spans
            b0 = b[0].contiguous()
            fns = [lambda: lib.grouped_rows(a.data_ptr(), b.data_ptr(), o.data_ptr(), 0,
                                            c.data_ptr(), M, n, k, G, 0, 1, stream),
                   lambda: lib.dense_probe(a.data_ptr(), b0.data_ptr(), c.data_ptr(), M, n, k,
                                           stream)]
            med, _, _ = paired_us(fns, args.time)
            print(f"   events: rows {med[0]:.1f} us, dense {med[1]:.1f} us", flush=True)
            out[name]["events_us"] = med
        if args.dense:  # the plain matmul template on all rows with b[0]
            b0 = b[0].contiguous()
            for _ in range(3):
                torch.cuda.synchronize()
                assert lib.grouped_rows_probe(buf) == 0
                r = lib.dense_probe(a.data_ptr(), b0.data_ptr(), c.data_ptr(), M, n, k, stream)
                assert r == 0, r
                torch.cuda.synchronize()
            assert lib.grouped_rows_probe(buf) == 0
            out[name + "/dense"] = summarize(name + "/dense", buf, f"M {M} n {n} k {k}", False)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
