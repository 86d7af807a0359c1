#!/usr/bin/env python3
"""Variants of the row-fitting grouped GEMM on the GPU (scripts/grouped_rows_check.sh runs this).

hd::GemmGroupedRowsSm90 (runtime/device/helion/gemm_grouped_rows.cuh; the compiler's
grouped launcher runs its kExact form) through test/gpu/grouped_rows.cu's libraries:
first checked on fresh random inputs with a NaN-poisoned output against a float64
reference (every row of small cases, sampled rows of every group of large ones; NaN
anywhere in a group's rows fails), then timed paired (benchmarks/timing.py: one call
of each per round after an L2 flush, order shuffled) next to examples/grouped_gemm.cpp
compiled by helionc (default config), the loop of torch.mm per group (eager) and one
torch.mm of all rows with b[0] (dense).

    python3 scripts/grouped_rows_check.py --lib NAME=LIBGROUPED_ROWS.so[,height] ...
        [--helionc-lib libgrouped_gemm.so] [--matmul-lib libmatmul.so] [--rounds 30]
        [--cases default|sweep] [--json OUT.json]

Each --lib is a variant (a build of test/gpu/grouped_rows.cu; `,height` runs its tiles
in order of decreasing row-tile height, else group by group); all are checked and timed
in the same rounds; ratios are against the first. --matmul-lib (examples/python/build.sh of
examples/matmul.cpp) times helionc's plain matmul on all rows with b[0] ("matmul", the
same FLOPs as "dense"). --cases sweep: one group of 8192 rows and 8 of 1024 at K 1024
.. 8192 (N 4096): the time per k-block and per tile of each variant against the plain
matmul's, from a straight line through the K's (printed at the end).
"""
import argparse
import ctypes
import json
import os
import sys

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
sys.path.insert(0, os.path.join(root, "benchmarks"))
from timing import paired_us  # noqa: E402
from grouped_gemm_gpu_check import stream_k_plan  # noqa: E402
from grouped_rows_lib import load  # noqa: E402

DEV = "cuda"
TOL = {torch.bfloat16: 1.6e-2, torch.float16: 2e-3}


def draw(kind, rng):
    fixed = {
        "draw752": [1025, 0, 1, 129, 1836, 1422, 1917, 958],
        "halves": [1029, 823, 660, 552, 1722, 1560, 922, 1579],
        "halves31": [1688, 687, 1045, 1595, 1693, 1702, 411, 1830],
        "rounds": [1664],  # 1.70 waves of 240-row tiles; cap 224: 1.94 of 208
        "uniform": [1024] * 8,
        "one8192": [8192],
        "moe": [256] * 64,
        "edges": [0, 1, 7, 8, 9, 15, 16, 17, 120, 121, 127, 128, 129, 255, 256, 257, 4097, 0],
    }
    if kind in fixed:
        return fixed[kind]
    if kind == "moe-random":  # 64 experts, skewed routing
        return [int(v) for v in torch.randint(0, 512, (64,), generator=rng)]
    if kind == "sparse":  # 300 groups, 10 with rows: the warp's group walk skips 32 at a time
        sizes = [0] * 300
        for i in torch.randperm(300, generator=rng)[:10].tolist():
            sizes[i] = int(torch.randint(1, 2000, (1,), generator=rng))
        return sizes
    if kind == "many":  # more groups than the height order holds (504): walked by index
        return [int(v) for v in torch.randint(0, 40, (600,), generator=rng)]
    if kind == "small":
        return [int(v) for v in torch.randint(0, 300, (5,), generator=rng)]
    return [int(v) for v in torch.randint(0, 2049, (8,), generator=rng)]  # random


def reference(a, b, offs, sample, gen):
    """(rows, float64 reference rows) per group: all rows, or `sample` random ones."""
    out = []
    for g in range(len(offs) - 1):
        s, e = offs[g], offs[g + 1]
        if e <= s:
            continue
        idx = (torch.arange(s, e, device=DEV) if not sample or e - s <= sample else
               torch.randint(s, e, (sample,), device=DEV, generator=gen))
        out.append((idx, a[idx].double() @ b[g].double()))
    return out


def fit_lines(rows):
    """Per draw and timed function: a least-squares line us = a * kBlocks + b over the
    K's; a / tiles-per-CTA is the time of one k-block of a tile, b the time that does
    not grow with K (per launch and per tile: prologue, epilogue, pipeline fill)."""
    print("\nper draw, us = a * kBlocks + b over K (a in ns per k-block, b in us):")
    for kind in sorted({r["draw"] for r in rows if "us" in r}):
        rs = [r for r in rows if r["draw"] == kind and "us" in r]
        if len(rs) < 2:
            continue
        xs = [r["k"] / 64 for r in rs]
        fits = []
        for f in rs[0]["us"]:
            ys = [r["us"][f] for r in rs]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            a = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            fits.append(f"{f} a {1000 * a:6.1f} b {my - a * mx:6.1f}")
            rs[0].setdefault("fit", {})[f] = {"a_us": a, "b_us": my - a * mx}
        print(f"  {kind:8} " + "  ".join(fits))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", required=True)
    ap.add_argument("--helionc-lib")
    ap.add_argument("--matmul-lib")
    ap.add_argument("--cases", choices=["default", "sweep"], default="default")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--json")
    args = ap.parse_args()
    variants = {}
    for spec in args.lib:
        name, _, rest = spec.partition("=")
        path, _, order = rest.partition(",")
        variants[name] = (load(path), int(order == "height"))
    first = next(iter(variants))
    hl = None
    mm = None
    if args.helionc_lib or args.matmul_lib:
        from helionc_ctypes import HelioncLibrary
        hl = HelioncLibrary(args.helionc_lib) if args.helionc_lib else None
        mm = HelioncLibrary(args.matmul_lib) if args.matmul_lib else None
    seed = int.from_bytes(os.urandom(4), "little")
    torch.manual_seed(seed)
    rng = torch.Generator().manual_seed(seed)
    gen = torch.Generator(device=DEV).manual_seed(seed)
    # (draw, n, k, dtype, offsets dtype, timed)
    cases = [("edges", 200, 72, torch.bfloat16, torch.int32, False),
             ("small", 136, 1000, torch.float16, torch.int64, False),
             ("small", 384, 256, torch.bfloat16, torch.int32, False),
             ("sparse", 512, 256, torch.bfloat16, torch.int32, False),
             ("many", 256, 128, torch.float16, torch.int64, False),
             ("draw752", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("halves", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("halves31", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("rounds", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("rounds", 4096, 4096, torch.float16, torch.int64, True),
             ("random", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("random", 4096, 4096, torch.float16, torch.int64, True),
             ("random", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("uniform", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("one8192", 4096, 4096, torch.bfloat16, torch.int32, True),
             ("moe", 1024, 4096, torch.bfloat16, torch.int32, True),
             ("moe-random", 1024, 4096, torch.bfloat16, torch.int32, True),
             ("moe-random", 2048, 4096, torch.bfloat16, torch.int64, True)]
    if args.cases == "sweep":
        cases = [(kind, 4096, k, torch.bfloat16, torch.int32, True)
                 for kind in ("one8192", "uniform") for k in (1024, 2048, 4096, 8192)]
    rows, ok_all = [], True
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    print(f"{torch.cuda.get_device_name()}, seed {seed}")
    for kind, n, k, dt, odt, timed in cases:
        sizes = draw(kind, rng)
        offs = [0]
        for s in sizes:
            offs.append(offs[-1] + s)
        M, G = offs[-1], len(sizes)
        a = torch.randn(M, k, device=DEV, dtype=dt)
        b = torch.randn(G, k, n, device=DEV, dtype=dt)
        o = torch.tensor(offs, device=DEV, dtype=odt)
        c = torch.empty(M, n, device=DEV, dtype=dt)

        def caller(lib, order, c=c, a=a, b=b, o=o, M=M, n=n, k=k, G=G):
            def call():
                r = lib.grouped_rows(a.data_ptr(), b.data_ptr(), o.data_ptr(),
                                     int(odt == torch.int64), c.data_ptr(), M, n, k, G,
                                     int(dt == torch.float16), order, stream)
                if r:
                    raise RuntimeError(f"grouped_rows returned {r}")
                return c
            return call

        calls = {name: caller(*v) for name, v in variants.items()}
        refs = reference(a, b, offs, 64 if timed else 0, gen)
        err, nan, failed = 0.0, False, []
        for name, call in calls.items():
            c.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
            e, has_nan = 0.0, bool(torch.isnan(c).any())
            for idx, want in refs:
                got = c[idx].double()
                e = max(e, ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item())
            if has_nan or not e <= TOL[dt]:
                bad = torch.isnan(c).any(dim=1).nonzero().flatten().tolist()
                failed.append(f"{name} (NaN rows {len(bad)}: {bad[:4]}..{bad[-2:]})"
                              if has_nan else name)
            err, nan = max(err, e), nan or has_nan
        ok = not failed
        ok_all = ok_all and ok
        row = {"draw": kind, "sizes": sizes, "n": n, "k": k, "dtype": str(dt), "rows": M,
               "max_rel_err": err, "nan": nan, "ok": ok, "failed": failed}
        tiles, p, split, cap = stream_k_plan(sizes, n, k, torch.cuda.get_device_properties(0)
                                             .multi_processor_count, True)
        row.update({"tiles": tiles, "ctas": p, "split": split, "cap": cap})
        line = (f"{kind:10} {str(dt)[6:]:8} G {G:2} rows {M:5} n {n:4} k {k:4} cap {cap} T/P "
                f"{tiles / p:.2f}{' split ' + str(split) if split else ''}: "
                f"{'ok' if ok else 'FAIL ' + ', '.join(failed)} max_err {err:.2g}"
                f"{' NaN' if nan else ''}")
        if timed and ok:
            def eager():
                out = torch.empty(M, n, device=DEV, dtype=dt)
                for g in range(G):
                    if offs[g + 1] > offs[g]:
                        torch.mm(a[offs[g]:offs[g + 1]], b[g], out=out[offs[g]:offs[g + 1]])
                return out
            b0 = b[0].contiguous()
            fns = dict(calls)
            fns.update({"eager": eager, "dense": lambda: torch.mm(a, b0)})
            if hl is not None and odt == torch.int32:
                fns["helionc"] = lambda: hl.call("grouped_gemm", a, b, o)
            if mm is not None:
                fns["matmul"] = lambda: mm.call("matmul", a, b0)
            med, ratio, _ = paired_us(list(fns.values()), rounds=args.rounds)
            row["us"] = dict(zip(fns, med))
            row["paired_ratio"] = {f: q for f, q in zip(fns, ratio)}
            line += "  " + "  ".join(f"{f} {m:7.1f}" for f, m in zip(fns, med))
            line += "  (/" + first + ": " + ", ".join(
                f"{f} {row['us'][f] / row['us'][first]:.3f}" for f in fns if f != first) + ")"
        print(line, flush=True)
        rows.append(row)
        del a, b, c
        torch.cuda.empty_cache()
    if args.cases == "sweep":
        fit_lines(rows)
    print("all checks passed" if ok_all else "SOME CHECKS FAILED")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seed": seed, "rows": rows}, f,
                      indent=1)
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
