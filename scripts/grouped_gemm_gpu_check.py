#!/usr/bin/env python3
"""The grouped GEMM example on the GPU (scripts/grouped_gemm_gpu_check.sh runs this).

examples/grouped_gemm.cpp computes out[offsets[g]:offsets[g+1]] = a[offsets[g]:offsets[g+1]]
@ b[g] for every group g. Each case draws fresh random inputs and group sizes (random
ones with an empty group and sizes that are no multiple of the tile, and uniform ones),
calls the kernel through its C entry (examples/python/helionc_ctypes.py) with its output
NaN-poisoned first (lang_gpu_check.poisoned_call), and compares it with a float64
reference (max |error| over max |reference|; large cases on sampled rows of every
group, with every element scanned for NaN, so a row the kernel never wrote fails).
Then it times the kernel next to torch eager (a Python loop of torch.mm per group: G
cuBLAS calls), torch.compile of that loop, and torch._grouped_mm where the installed
torch has it (bf16; offsets as int32 cumulative ends, b as [G, k, n]), in TFLOP/s.

    python3 scripts/grouped_gemm_gpu_check.py --libdir BUILD/py [--alt-libdir BUILD/py-alt]
        [--json OUT.json]

--alt-libdir: the same kernel built with another config (the .sh builds 128x128, 8
warps, 5 stages), timed next to the default on the bf16 cases.

Groups of more than 256 and fewer than 4096 rows on average in bf16 / f16 run the
row-fitting kernel (gemm_grouped_rows.cuh; the launcher's choice), the others the 128 x
256 one; the "rows-edges" cases aim at the former's row-tile heights, "rows-split" at its
stream-K.
For it, "cap" is the row cap the kernel chooses for the draw (chooseCap, recomputed
here; "-": the 128 x 256 kernel).

Stream-K (gemm_grouped.cuh, gemm_grouped_rows.cuh): each row says into how many
k-pieces the sm90 kernel cuts each of the last T % P tiles ("split"; the plan of
stream_k.cuh, recomputed here from the group sizes: tiles T, grid P, k-blocks kB; "T/P"
column). The "split" cases are small enough that every tile is split; "rounds" (one
group of 1664 rows: the row-fitting kernel, cap 224) fills 1.94 waves, not split.
Every case is also run a second time and must give the same bits (the partials are
added in a fixed order). Timed cases are also
timed with HELIONC_NO_STREAM_K=1 (every tile whole: the kernel before stream-K; the
row-fitting kernel still chooses its cap, priced without a split), as "whole", and where
the row-fitting kernel runs, checked and timed (paired) with HELIONC_NO_ROW_FITTING=1 (the
128 x 256 kernel in its place), as "bmxbn"; where groups of 4096 rows or more on average
run the 128 x 256 kernel, with HELIONC_ROW_FITTING=1 (the row-fitting kernel), as "rows".
"""
import argparse
import contextlib
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
sys.path.insert(0, os.path.join(root, "examples", "python"))
sys.path.insert(0, here)
from helionc_ctypes import HelioncLibrary  # noqa: E402
from lang_gpu_check import bench_us, compiled, poisoned_call  # noqa: E402
from timing import paired_us  # noqa: E402

DEV = "cuda"
TOL = {torch.bfloat16: 1.6e-2, torch.float16: 2e-3, torch.float32: 2e-3}  # f32: tf32
FULL_REF_FLOPS = 2e10  # above this, the reference covers sampled rows of each group


def group_sizes(kind, groups, rows):
    """Sizes of `groups` groups: 'uniform' (each `rows`), 'random' (uniform in
    [0, 2 * rows], group 1 empty, one size of 1 and one one-off a tile of 128), 'halves',
    'ragged' or 'sparse' (below), or the list given."""
    if kind == "uniform":
        return [rows] * groups
    if isinstance(kind, list):  # fixed sizes
        return list(kind)
    if kind == "halves":  # every group's last row block 1 to 64 rows (half tiles)
        return [128 * int(torch.randint(2, 15, ())) + int(torch.randint(1, 65, ()))
                for _ in range(groups)]
    if kind == "ragged":  # in [rows / 2, 3 rows / 2], none a multiple of 128
        return [int(torch.randint(rows // 2, 3 * rows // 2, ())) // 128 * 128 + 1
                + int(torch.randint(0, 127, ())) for _ in range(groups)]
    if kind == "sparse":  # three groups with rows (many CTAs, few tiles: the most pieces)
        sizes = [0] * groups
        sizes[groups // 8], sizes[groups // 2], sizes[-1] = rows, rows - 28, 1
        return sizes
    sizes = torch.randint(0, 2 * rows + 1, (groups,)).tolist()
    sizes[1] = 0
    if groups > 3:
        sizes[2], sizes[3] = 1, 129
    return sizes


def reference_rows(offs, groups, sample):
    """Per group, the rows the reference covers: all, or up to `sample` random ones
    plus the group's first and last rows (where tiles end)."""
    out = []
    for g in range(groups):
        s, e = offs[g], offs[g + 1]
        if e - s <= sample or sample <= 0:
            rows = torch.arange(s, e)
        else:
            rows = torch.cat([torch.tensor([s, e - 1]), torch.randint(s, e, (sample,))])
        out.append(rows.to(DEV))
    return out


def rel_err(got, a, b, offs, groups, sample):
    if torch.isnan(got).any():
        return float("inf")  # a poisoned row the kernel never wrote, or a NaN it made
    num, den = 0.0, 0.0
    for g, rows in enumerate(reference_rows(offs, groups, sample)):
        if rows.numel() == 0:
            continue
        want = a[rows].double() @ b[g].double()
        num = max(num, (got[rows].double() - want).abs().max().item())
        den = max(den, want.abs().max().item())
    return num / max(den, 1e-30)


def eager_loop(a, b, offs, groups):
    def run():
        out = torch.empty(a.shape[0], b.shape[2], device=DEV, dtype=a.dtype)
        for g in range(groups):
            s, e = offs[g], offs[g + 1]
            if e > s:
                torch.mm(a[s:e], b[g], out=out[s:e])
        return out
    return run


def grouped_mm_fn(a, b, ends):
    """torch._grouped_mm(a, b, offs=ends), or None; b as given, else column-major."""
    if not hasattr(torch, "_grouped_mm") or a.dtype != torch.bfloat16:
        return None, "n/a"
    for layout, bb in (("b row-major", b),
                       ("b column-major", b.transpose(-2, -1).contiguous().transpose(-2, -1))):
        try:
            fn = lambda bb=bb: torch._grouped_mm(a, bb, offs=ends)  # noqa: E731
            fn()
            torch.cuda.synchronize()
            return fn, layout
        except Exception as e:  # noqa: BLE001
            err = str(e).splitlines()[0][:160]
    return None, err


def row_tiles(m, cap=256):
    """GroupRows::of(m, cap): (row tiles, rows of each) of a group of m rows in the
    row-fitting kernel."""
    if m <= 0:
        return 0, 16
    t = (m + cap - 1) // cap
    h = ((m + t - 1) // t + 7) // 8 * 8  # GroupRows::kStep
    return (m + h - 1) // h, h


def split_plan(tiles, p, kb):
    """StreamK::plan: (pieces per split tile or 0, the k-blocks of the last wave)."""
    rest = tiles % p
    best, best_cost = 1, kb
    for n in range(2, min(8, kb // 4) + 1):
        if rest == 0 or rest * n > p:
            break
        cost = -(-kb // n) + 2 * n + 1
        if cost < best_cost:
            best, best_cost = n, cost
    split = tiles > 0 and rest != 0 and best >= 2 and kb - best_cost >= 8
    return (best, best_cost) if split else (0, kb if rest else 0)


def choose_cap(sizes, n, p, kb):
    """GroupedRowsShape::chooseCap with capCost: (cap, tiles) of the row-fitting kernel."""
    tn = (n + 127) // 128
    cands = []
    for cap in range(256, 127, -16):
        heights = sorted((h for c, h in (row_tiles(s, cap) for s in sizes) for _ in range(c * tn)),
                         reverse=True)
        tiles, full = len(heights), len(heights) // p
        cost = sum((heights[w * p] + 64) * kb for w in range(full))
        if tiles % p:
            cost += (heights[full * p] + 64) * split_plan(tiles, p, kb)[1]
        cands.append((cap, tiles, cost))
    room = -(-cands[0][1] // p) * p
    best = cands[0]
    for c in cands[1:]:
        if c[1] <= room and c[2] < best[2]:
            best = c
    return best[0], best[1]


def stream_k_plan(sizes, n, k, ctas, rows=False, bm=128, bn=256, bk=64):
    """(T, P, pieces per split tile or 0, row cap) as the kernel decides: the default
    128x256 tiles, or (rows) the row-fitting kernel's of up to `cap` rows x 128."""
    kb = (k + bk - 1) // bk
    cap = 0
    if rows:
        units = (sum(sizes) // 256 + len(sizes)) * ((n + 127) // 128)
        p = max(1, min(units, ctas))
        cap, tiles = choose_cap(sizes, n, p, kb)
    else:
        tiles = sum((s + bm - 1) // bm for s in sizes) * ((n + bn - 1) // bn)
        units = (sum(sizes) // bm + len(sizes)) * ((n + bn - 1) // bn)
        p = max(1, min(units, ctas))
    return tiles, p, split_plan(tiles, p, kb)[0], cap


@contextlib.contextmanager
def env_set(name):
    """The environment variable `name` set to 1 inside the block (the runtime reads
    HELIONC_NO_STREAM_K and HELIONC_NO_ROW_FITTING at every launch)."""
    os.environ[name] = "1"
    try:
        yield
    finally:
        del os.environ[name]


def with_env(name, call):
    """call() with the environment variable `name` set to 1 (env_set)."""
    def run():
        with env_set(name):
            return call()
    return run


def paired(call, eager, a, b, mm_lib, rounds, alt_call=None, other=None, again=False):
    """{name: (median us, median over rounds of helionc's time over this one's, the
    rounds' times)}; other: (name, variable): also helionc's call with that environment
    variable set (the other grouped kernel in its place: other_kernel); again: helionc's
    call a second time, as "again"."""
    b0 = b[0].contiguous()
    fns = {"helionc": call, "eager": eager}
    if again:
        fns["again"] = call
    fns.update({"whole": with_env("HELIONC_NO_STREAM_K", call), "mm": lambda: torch.mm(a, b0)})
    if other is not None:
        fns[other[0]] = with_env(other[1], call)
    if mm_lib is not None:
        fns["matmul"] = lambda: mm_lib.call("matmul", a, b0)
    if alt_call is not None:
        fns["alt"] = alt_call
    med, ratio, times = paired_us(list(fns.values()), rounds)
    return {k: (m, 1.0 / q, t) for k, m, q, t in zip(fns, med, ratio, times)}


def other_kernel(dt, total, groups):
    """(launcher runs the row-fitting kernel, (name, variable) of the other kernel's
    switch or None): MatmulLauncher.cpp's choice, for 16-bit groups of more than 256
    rows on average, below 4096 (GroupedRowsShape::kLargeAverageRows)."""
    if dt == torch.float32 or total <= 256 * groups:
        return False, None
    if total < 4096 * groups:
        return True, ("bmxbn", "HELIONC_NO_ROW_FITTING")
    return False, ("rows", "HELIONC_ROW_FITTING")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--alt-libdir")
    ap.add_argument("--alt-label", default="128x128 s5 c1", help="what the alt library is")
    ap.add_argument("--json")
    ap.add_argument("--matmul-libdir", help="libmatmul.so of examples/matmul.cpp: timed in "
                    "the paired table on all rows of a with b[0] (the same tiles, one group)")
    ap.add_argument("--paired", type=int, default=30, metavar="ROUNDS",
                    help="rounds of the paired timing of the timed cases (0: none)")
    ap.add_argument("--cases", help="comma-separated case names to run (default: all)")
    ap.add_argument("--again", action="store_true",
                    help="paired: helionc's call a second time, as 'again' (the method's "
                         "spread between identical calls)")
    args = ap.parse_args()
    mm_lib = (HelioncLibrary(os.path.join(args.matmul_libdir, "libmatmul.so"))
              if args.matmul_libdir else None)
    lib = HelioncLibrary(os.path.join(args.libdir, "libgrouped_gemm.so"))
    alt = (HelioncLibrary(os.path.join(args.alt_libdir, "libgrouped_gemm.so"))
           if args.alt_libdir else None)
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows = []
    # (name, kind, G, rows per group (average), k, n, dtypes, offsets dtype, timed)
    cases = [
        # Random sizes, four fresh draws (the last wave's fill differs from draw to draw).
        ("random", "random", 8, 1024, 4096, 4096,
         (torch.bfloat16, torch.float16, torch.bfloat16, torch.float16), torch.int32, True),
        ("uniform", "uniform", 8, 1024, 4096, 4096, (torch.bfloat16, torch.float16), torch.int32, True),
        # Session 21's 7.52-wave draw (eager was 5.8% ahead), and groups whose last row
        # block has 1 to 64 rows (its tiles' second warpgroup computes only rows past the
        # group).
        ("draw752", [1025, 0, 1, 129, 1836, 1422, 1917, 958], 8, 0, 4096, 4096,
         (torch.bfloat16,), torch.int32, True),
        ("halves", "halves", 8, 0, 4096, 4096, (torch.bfloat16, torch.bfloat16), torch.int32,
         True),
        # Session 31's `halves` draw that eager led by 2.3 % (10.79 waves of 128x256 tiles;
        # 11.15 of the row-fitting kernel's: its last wave 20 tiles on 132 CTAs).
        ("halves31", [1688, 687, 1045, 1595, 1693, 1702, 411, 1830], 8, 0, 4096, 4096,
         (torch.bfloat16,), torch.int32, True),
        ("uniform", "uniform", 8, 2048, 4096, 4096, (torch.bfloat16,), torch.int32, True),
        # Groups of many row tiles (the row-fitting kernel's bands of 8 row tiles): one
        # group of 8192 rows (a dense product: eager is one torch.mm), two of 6144.
        ("large", [8192], 1, 0, 4096, 4096, (torch.bfloat16,), torch.int32, True),
        ("large", [6144, 6144], 2, 0, 4096, 4096, (torch.bfloat16,), torch.int32, True),
        # 4096 rows or more a group on average (the 128 x 256 kernel since session 37),
        # ragged: sizes off the tile, the waste of the 128 x 256 kernel's last row tiles.
        ("large-ragged", "ragged", 4, 4096, 4096, 4096, (torch.bfloat16, torch.float16),
         torch.int32, True),
        ("large-ragged", [5000, 3241], 2, 0, 4096, 4096, (torch.bfloat16,), torch.int64, True),
        ("moe", "uniform", 64, 256, 4096, 1024, (torch.bfloat16, torch.float16), torch.int32, True),
        ("moe-random", "random", 64, 256, 4096, 1024, (torch.bfloat16,), torch.int64, True),
        ("odd", "random", 5, 100, 72, 200, (torch.bfloat16, torch.float16, torch.float32),
         torch.int64, False),
        ("odd-f32", "random", 8, 300, 256, 136, (torch.float32,), torch.int32, False),
        # Fewer tiles than SMs: every tile split over several CTAs (K = 1000: a partial
        # last k-block).
        ("split", "random", 4, 300, 1024, 512, (torch.bfloat16, torch.float16), torch.int32,
         False),
        ("split", "random", 6, 400, 1000, 384, (torch.float16,), torch.int64, False),
        ("split", "uniform", 3, 128, 4096, 768, (torch.bfloat16,), torch.int32, False),
        ("rounds", "uniform", 1, 1664, 4096, 4096, (torch.bfloat16, torch.float16), torch.int32,
         True),
        ("split", "sparse", 64, 128, 4096, 512, (torch.bfloat16, torch.float16), torch.int64,
         False),
        ("split", "sparse", 64, 256, 1000, 1000, (torch.float16,), torch.int32, False),
        # More than 256 rows per group on average: the row-fitting kernel (16-bit), with
        # groups around its row-tile heights, K with a partial k-block, N off 128.
        ("rows-edges", [0, 1, 7, 8, 9, 15, 16, 17, 120, 127, 128, 129, 255, 256, 257, 4097, 0,
                        300], 18, 0, 72, 200, (torch.bfloat16, torch.float16), torch.int64, False),
        ("rows-edges", [513, 1, 700], 3, 0, 1000, 136, (torch.bfloat16,), torch.int32, False),
        # The row-fitting kernel's stream-K under a cap below 256: cap 208, 176 tiles on 132
        # CTAs, the last 44 split in 3 pieces; cap 240, 192 tiles (N = 4000: a partial
        # column tile), the last 60 in 2. K = 2000: a partial last k-block. Every row
        # checked.
        ("rows-split", [1068, 944], 2, 0, 2000, 2048, (torch.bfloat16, torch.float16),
         torch.int32, False),
        ("rows-split", [757, 374], 2, 0, 2000, 4000, (torch.bfloat16,), torch.int64, False),
    ]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if args.cases:
        cases = [c for c in cases if c[0] in args.cases.split(",")]
    for name, kind, groups, avg, k, n, dtypes, odt, timed in cases:
        for dt in dtypes:
            sizes = group_sizes(kind, groups, avg)
            offs = [0]
            for s in sizes:
                offs.append(offs[-1] + s)
            total = offs[-1]
            offsets = torch.tensor(offs, device=DEV, dtype=odt)
            a = torch.randn(total, k, device=DEV, dtype=dt)
            b = torch.randn(groups, k, n, device=DEV, dtype=dt)
            call = lambda: lib.call("grouped_gemm", a, b, offsets)  # noqa: E731
            got, pz = poisoned_call(call)
            flops = 2.0 * total * k * n
            sample = 0 if flops <= FULL_REF_FLOPS else 64
            err = rel_err(got, a, b, offs, groups, sample)
            again = call()
            torch.cuda.synchronize()
            same = bool(torch.equal(again, got))
            del again
            fit_rows, other = other_kernel(dt, total, groups)
            tiles, p, split, cap = stream_k_plan(sizes, n, k, sms, fit_rows)
            tol = TOL[dt]
            row = {"case": name, "dtype": str(dt).replace("torch.", ""), "groups": groups,
                   "total_m": total, "k": k, "n": n, "offsets": str(odt).replace("torch.", ""),
                   "sizes": sizes, "sampled_rows": sample, "max_rel_err": err, "tol": tol,
                   "ok": err <= tol and same, "same_bits": same, "tiles": tiles, "ctas": p,
                   "split": split, "cap": cap, "poison": pz, "flops": flops, "helionc_us": None,
                   "whole_us": None,
                   "alt_us": None, "eager_us": None, "compile_us": None, "grouped_mm_us": None}
            if timed:
                eager = eager_loop(a, b, offs, groups)
                row["helionc_us"] = bench_us(call)
                with env_set("HELIONC_NO_STREAM_K"):
                    got_whole, _ = poisoned_call(call)
                    row["whole_rel_err"] = rel_err(got_whole, a, b, offs, groups, 64)
                    row["ok"] = row["ok"] and row["whole_rel_err"] <= tol
                    row["whole_us"] = bench_us(call)
                del got_whole
                if other is not None:  # the other kernel in the launcher's choice's place
                    got_other, _ = poisoned_call(with_env(other[1], call))
                    row[other[0] + "_rel_err"] = rel_err(got_other, a, b, offs, groups, 64)
                    row["ok"] = row["ok"] and row[other[0] + "_rel_err"] <= tol
                    del got_other
                row["eager_us"] = bench_us(eager)
                comp = compiled(eager)
                if comp is not None:
                    try:
                        row["compile_us"] = bench_us(comp)
                    except Exception as e:  # noqa: BLE001
                        row["compile_error"] = str(e).splitlines()[0][:200]
                ends = torch.tensor(offs[1:], device=DEV, dtype=torch.int32)
                gmm, how = grouped_mm_fn(a, b, ends)
                row["grouped_mm"] = how
                if gmm is not None:
                    row["grouped_mm_us"] = bench_us(gmm)
                    row["grouped_mm_rel_err"] = rel_err(gmm().float(), a, b, offs, groups, 64)
                alt_call = None
                if alt is not None and dt == torch.bfloat16:
                    alt_call = lambda: alt.call("grouped_gemm", a, b, offsets)  # noqa: E731
                    got_alt, _ = poisoned_call(alt_call)
                    row["alt_rel_err"] = rel_err(got_alt, a, b, offs, groups, 64)
                    row["alt_ok"] = row["alt_rel_err"] <= tol
                    row["alt_us"] = bench_us(alt_call)
                if args.paired > 0:
                    row["paired"] = paired(call, eager, a, b, mm_lib, args.paired, alt_call,
                                           other, args.again)
            rows.append(row)
            del a, b, got
            torch.cuda.empty_cache()

    dev = torch.cuda.get_device_name()
    print(f"\n{dev}: grouped_gemm, helionc vs torch (median us; TFLOP/s of helionc; eager = "
          "a loop of torch.mm per group (cuBLAS); gmm = torch._grouped_mm; alt = helionc, "
          f"{args.alt_label}; whole = HELIONC_NO_STREAM_K=1)")
    hdr = (f"{'case':10} {'dtype':8} {'G':>3} {'total_m':>7} {'k':>5} {'n':>5} {'off':5} "
           f"{'check':5} {'max_err':>8} {'poison':6} {'T/P':>5} {'split':5} {'cap':>3} "
           f"{'helionc':>8} "
           f"{'whole':>8} {'alt':>8} {'eager':>8} "
           f"{'compile':>8} {'gmm':>8} {'TF/s':>6} {'eager/h':>7} {'comp/h':>6} {'gmm/h':>6}")
    print(hdr)
    print("-" * len(hdr))
    fmt = lambda v: f"{v:8.1f}" if v else "     n/a"  # noqa: E731
    ratio = lambda x, h: f"{x / h:6.2f}" if x and h else "   n/a"  # noqa: E731
    for r in rows:
        h = r["helionc_us"]
        ok = r["ok"] and r.get("alt_ok", True)
        tf = f"{r['flops'] / h / 1e6:6.0f}" if h else "   n/a"
        print(f"{r['case']:10} {r['dtype']:8} {r['groups']:3} {r['total_m']:7} {r['k']:5} "
              f"{r['n']:5} {r['offsets'][:5]:5} {'ok' if ok else 'FAIL':5} "
              f"{r['max_rel_err']:8.2g} {str(r['poison']):6} {r['tiles'] / r['ctas']:5.2f} "
              f"{str(r['split']) if r['split'] else 'no':5} {r['cap'] or '-':>3} {fmt(h)} "
              f"{fmt(r['whole_us'])} {fmt(r['alt_us'])} "
              f"{fmt(r['eager_us'])} {fmt(r['compile_us'])} {fmt(r['grouped_mm_us'])} {tf} "
              f"{ratio(r['eager_us'], h):>7} {ratio(r['compile_us'], h)} "
              f"{ratio(r['grouped_mm_us'], h)}")
    paired_rows = [r for r in rows if r.get("paired")]
    if paired_rows:
        print(f"\npaired ({args.paired} rounds, one call of each per round after an L2 flush, "
              "order shuffled each round): median us, and in brackets the median over rounds of "
              "helionc's time over the other's (> 1: helionc slower); mm = torch.mm of all "
              "rows with b[0] (one cuBLAS call, the same FLOPs), matmul = helionc's "
              "examples/matmul.cpp on the same")
        for r in paired_rows:
            cells = "  ".join(f"{k} {v[0]:7.1f} ({v[1]:5.3f})" for k, v in r["paired"].items())
            print(f"{r['case']:10} {r['dtype']:8} T/P {r['tiles'] / r['ctas']:5.2f}  {cells}")
    notes = {r.get("grouped_mm") for r in rows if r.get("grouped_mm")}
    print("torch._grouped_mm: " + "; ".join(sorted(n for n in notes if n)))
    ok = all(r["ok"] and r.get("alt_ok", True) for r in rows)
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev, "torch": torch.__version__, "rows": rows, "ok": ok}, f,
                      indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
