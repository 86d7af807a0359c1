"""examples/jagged_sum.cpp under several configs (benchmarks/jagged_configs.sh builds one
library per config): each checked against a float64 reference on fresh random inputs with
a poisoned output, then all timed in shuffled turns (timing.paired_us: one call each per
round after an L2 flush) next to torch.segment_reduce. Prints a table of median µs and
of each one's median ratio to eager's time in the same round; saves JSON.

  python3 benchmarks/jagged_configs.py [--json F] NAME=LIB.so ...
"""
import argparse
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "examples", "python"))
sys.path.insert(0, os.path.join(here, "..", "scripts"))
from helionc_ctypes import HelioncLibrary  # noqa: E402
from lang3_gpu_check import jagged_case  # noqa: E402
from lang_gpu_check import poisoned_call  # noqa: E402
from timing import paired_us  # noqa: E402

DEV = "cuda"
# (rows, longest row, width): session 8's shapes, and a long-row case
CASES = ((4096, 256, 256), (16384, 64, 128), (2048, 1024, 256))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("libs", nargs="+", help="NAME=path/to/libjagged_sum.so")
    args = ap.parse_args()
    libs = [(s.split("=", 1)[0], HelioncLibrary(s.split("=", 1)[1])) for s in args.libs]
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows, failed = [], 0
    for dt, tol0 in ((torch.float32, 1e-5), (torch.bfloat16, 1.6e-2)):
        for nrows, maxlen, d in CASES:
            tol = tol0 * max(1, maxlen // 256)  # float error grows with the rows summed
            lengths, offsets, values, want = jagged_case(nrows, maxlen, d, dt)
            total = values.shape[0]
            fns, names, errs = [], [], {}
            eager = lambda v=values, n=lengths: torch.segment_reduce(  # noqa: E731
                v, "sum", lengths=n, axis=0, unsafe=True)
            fns.append(eager)
            names.append("eager")
            for name, lib in libs:
                call = lambda lib=lib: lib.call("jagged_sum", values, offsets)  # noqa: E731
                got, pz = poisoned_call(call)
                err = ((got.double() - want).abs() / (want.abs() + 1)).max().item()
                ok = err <= tol and bool(torch.isfinite(got).all())
                failed += not ok
                errs[name] = {"max_err": err, "ok": ok, "poison": pz}
                fns.append(call)
                names.append(name)
            med, ratio, _ = paired_us(fns, rounds=args.rounds)
            gbs = values.numel() * values.element_size() / 1e3
            row = {"dtype": str(dt).replace("torch.", ""), "nrows": nrows, "d": d,
                   "total": total, "us": dict(zip(names, med)),
                   "eager_over": {n: 1 / r for n, r in zip(names, ratio)}, "checks": errs,
                   "read_gbs": {n: gbs / m for n, m in zip(names, med)}}
            rows.append(row)
            print(f"{row['dtype']:9} {nrows}x{d} ({total} values)")
            for n, m, r in zip(names, med, ratio):
                chk = errs.get(n)
                flag = "" if chk is None else ("ok" if chk["ok"] else "FAIL")
                print(f"  {n:14} {m:9.1f} us  {gbs / m:7.0f} GB/s  eager/this {1 / r:5.2f}  {flag}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
    print("FAILED" if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
