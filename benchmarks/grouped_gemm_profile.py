#!/usr/bin/env python3
"""Where the grouped GEMM's time goes (docs/gemm.md, "Where the grouped GEMM's time goes").

Times examples/grouped_gemm.cpp, built as one or more libraries (configs or builds to
compare), on fixed bf16 draws of group sizes (k = n = 4096; MoE: 64 x 256 rows, n =
1024), paired with the loop of torch.mm per group (eager), one torch.mm of all rows
with b[0] (dense), examples/matmul.cpp on the same (dense helionc) and, where this torch
has it and it runs, torch._grouped_mm (torch_grouped_mm): one call of each
per round after an L2 flush, order shuffled each round (benchmarks/timing.py). Checks each library
against eager first (max |difference| / max |eager|, printed). With --profile, also the
CUDA kernels the first library and eager run (torch profiler: name, count, mean µs) and
each group alone (the first library with G = 1, torch.mm, examples/matmul.cpp).

    python3 benchmarks/grouped_gemm_profile.py --lib def=DIR/libgrouped_gemm.so \\
        [--lib s3=DIR2/libgrouped_gemm.so ...] --matmul-lib DIR3/libmatmul.so \\
        [--draws draw752,halves,...] [--rounds 30] [--profile] [--json OUT.json]

Libraries: examples/python/build.sh examples/grouped_gemm.cpp DIR RUNTIME_LIB
[--config FILE] (and the same for examples/matmul.cpp).
Draws: draw752 (1025, 0, 1, 129, 1836, 1422, 1917, 958), draw752r (the same rounded
up to 128 rows), one7288 / one7936 (one group), halves and halvesr (groups whose last
row tile has 1 to 64 rows, and the same rounded up), random, random2, random3 (fixed
seeds), uniform (8 x 1024), moe.
"""
import argparse
import json
import os
import sys

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
sys.path.insert(0, os.path.join(root, "benchmarks"))
from helionc_ctypes import HelioncLibrary  # noqa: E402
from timing import paired_us  # noqa: E402

DEV = "cuda"
FIXED = {
    "draw752": [1025, 0, 1, 129, 1836, 1422, 1917, 958],
    "draw752r": [1152, 0, 128, 256, 1920, 1536, 1920, 1024],
    "one7288": [7288],
    "one7936": [7936],
    "halves": [1029, 823, 660, 552, 1722, 1560, 922, 1579],
    "halvesr": [1152, 896, 768, 640, 1792, 1664, 1024, 1664],
    "uniform": [1024] * 8,
    "moe": [256] * 64,
}
SEEDS = {"random": 7, "random2": 11, "random3": 12}


def sizes_of(draw):
    if draw in FIXED:
        return FIXED[draw]
    g = torch.Generator().manual_seed(SEEDS[draw])
    s = [int(torch.randint(0, 2049, (), generator=g)) for _ in range(8)]
    if draw == "random":
        s[1] = 0
    return s


def eager_fn(a, b, offs):
    def run():
        out = torch.empty(a.shape[0], b.shape[2], device=DEV, dtype=a.dtype)
        for g in range(b.shape[0]):
            if offs[g + 1] > offs[g]:
                torch.mm(a[offs[g]:offs[g + 1]], b[g], out=out[offs[g]:offs[g + 1]])
        return out
    return run


def grouped_mm(a, b, offs):
    """torch._grouped_mm(a, b, offs=ends) where this torch has it and it runs, else None."""
    if not hasattr(torch, "_grouped_mm"):
        return None
    ends = torch.tensor(offs[1:], device=DEV, dtype=torch.int32)
    try:
        torch._grouped_mm(a, b, offs=ends)
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - an older torch or an unsupported layout
        return None
    return lambda: torch._grouped_mm(a, b, offs=ends)


def kernels_of(fns):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            for f in fns:
                f()
        torch.cuda.synchronize()
    return [(e.key[:100], e.count, e.device_time_total / e.count)
            for e in prof.key_averages() if e.device_time_total > 0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--matmul-lib", required=True)
    ap.add_argument("--draws", default="draw752,halves,random,uniform,moe")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    libs = {}
    for spec in args.lib:
        name, _, path = spec.partition("=")
        libs[name] = HelioncLibrary(path)
    first = next(iter(libs))
    mm = HelioncLibrary(args.matmul_lib)
    rows = []
    print(f"{torch.cuda.get_device_name()}: grouped_gemm, bf16, k = 4096, paired "
          f"({args.rounds} rounds), median µs; ratio = {first}'s time over this one's")
    for draw in args.draws.split(","):
        sizes = sizes_of(draw)
        n, k = (1024 if draw == "moe" else 4096), 4096
        offs = [0]
        for s in sizes:
            offs.append(offs[-1] + s)
        a = torch.randn(offs[-1], k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(len(sizes), k, n, device=DEV, dtype=torch.bfloat16)
        o = torch.tensor(offs, device=DEV, dtype=torch.int32)
        eager = eager_fn(a, b, offs)
        want = eager().float()
        row = {"draw": draw, "sizes": sizes, "n": n, "k": k, "err": {}}
        fns = {}
        for name, lib in libs.items():
            fns[name] = lambda lib=lib: lib.call("grouped_gemm", a, b, o)
            got = fns[name]().float()
            row["err"][name] = ((got - want).abs().max() / want.abs().max()).item()
        b0 = b[0].contiguous()
        fns.update({"eager": eager, "dense": lambda: torch.mm(a, b0),
                    "dense_helionc": lambda: mm.call("matmul", a, b0)})
        gmm = grouped_mm(a, b, offs)
        if gmm is not None:
            fns["torch_grouped_mm"] = gmm
        med, ratio, _ = paired_us(list(fns.values()), rounds=args.rounds)
        row["us"] = dict(zip(fns, med))
        row["ratio"] = {f: 1.0 / q for f, q in zip(fns, ratio)}
        shown = sizes if len(sizes) <= 8 else ""
        print(f"\n{draw}: {len(sizes)} groups, {offs[-1]} rows, n {n}: {shown}")
        for f in fns:
            err = f"  max diff {row['err'][f]:.2g}" if f in row["err"] else ""
            print(f"  {f:14} {row['us'][f]:8.1f}  ({row['ratio'][f]:5.3f}){err}")
        if args.profile:
            row["kernels"] = kernels_of([fns[first], eager])
            for name, cnt, t in row["kernels"]:
                print(f"  kernel {t:8.1f} µs x{cnt:3}  {name}")
            per = []
            for g, m in enumerate(sizes if len(sizes) <= 8 else []):
                if m == 0:
                    continue
                ag, bg, bgg = a[offs[g]:offs[g + 1]], b[g:g + 1], b[g]
                og = torch.tensor([0, m], device=DEV, dtype=torch.int32)
                t, _, _ = paired_us([lambda: libs[first].call("grouped_gemm", ag, bg, og),
                                     lambda: torch.mm(ag, bgg),
                                     lambda: mm.call("matmul", ag, bgg)], rounds=10)
                per.append([m] + t)
                print(f"  group of {m:5} rows alone: {first} {t[0]:7.1f}  torch.mm {t[1]:7.1f}"
                      f"  matmul {t[2]:7.1f}")
            row["per_group"] = per
        rows.append(row)
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
