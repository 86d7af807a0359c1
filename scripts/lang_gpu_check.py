#!/usr/bin/env python3
"""The language-feature examples on the GPU (scripts/lang_gpu_check.sh runs this).

Each case calls a helionc kernel through its C entry (examples/python/helionc_ctypes.py)
on fresh random inputs, compares it with a float64 (or exact integer) torch reference,
and times it next to the same computation in torch eager and under torch.compile.

Poisoned outputs: a kernel that allocates its output is called once, that output is
filled with NaN (floats) or 0x5A5A... (integers) and dropped; helion's caching allocator
hands the same block to the next call on the stream, whose result is then checked
(`poison` says whether the block was reused). Outputs the caller passes (arg_extremes)
are filled before the call. histogram and scatter_add accumulate into zeros by design.

    python3 scripts/lang_gpu_check.py --libdir BUILD/py [--json OUT.json]
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
sys.path.insert(0, os.path.join(root, "benchmarks"))
from helionc_ctypes import HelioncLibrary  # noqa: E402
from timing import bench_us  # noqa: E402

DEV = "cuda"


def compiled(fn):
    try:
        return torch.compile(fn)
    except Exception:  # noqa: BLE001
        return None


def poison_(t):
    if t.is_floating_point():
        t.fill_(float("nan"))
    else:
        t.fill_(0x5A5A5A5A if t.dtype != torch.bool else True)


def poisoned_call(call):
    """call() twice: the first result poisoned and dropped, its block reused by the second."""
    first = call()
    ptr = first.data_ptr()
    poison_(first)
    torch.cuda.synchronize()
    del first
    got = call()
    torch.cuda.synchronize()
    return got, got.data_ptr() == ptr


def gelu64(v):
    return 0.5 * v * (1.0 + torch.erf(v / math.sqrt(2.0)))


def math_mix_ref(v):  # examples/pointwise_math.cpp in any dtype torch computes in
    a = v.abs()
    return (torch.sin(v) * torch.cos(v) + torch.erf(v) + torch.log1p(a) + torch.pow(a, 1.5) +
            torch.floor(v * 4) - torch.ceil(v) + torch.round(v * 2) + torch.exp2(-a) +
            torch.log2(a + 1))


def hash_ref(x, buckets):  # examples/int_hash.cpp; the low 31 bits do not depend on width
    v = x.to(torch.int64)
    h = v ^ (v >> 7)
    h = (h << 3) ^ ~h
    h = (h | 1) & 0x7FFFFFFF
    return (h % buckets).to(x.dtype)


def hist_bins(x, bins, lo, hi):  # examples/histogram.cpp's bin, in f32 as the kernel
    scale = torch.tensor(bins / (hi - lo), dtype=torch.float32, device=x.device)
    b = ((x.float() - torch.tensor(lo, dtype=torch.float32, device=x.device)) * scale)
    return b.to(torch.int64).clamp(0, bins - 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    lib = {n: HelioncLibrary(os.path.join(args.libdir, f"lib{n}.so"))
           for n in ("gelu_helper", "pointwise_math", "int_hash", "argmax", "histogram",
                     "quant_fp8")}
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows = []

    def record(kernel, dtype, shape, err, tol, ok, poison, h_fn, eager_fn):
        comp = compiled(eager_fn)
        row = {"kernel": kernel, "dtype": str(dtype).replace("torch.", ""), "shape": list(shape),
               "max_err": err, "tol": tol, "ok": bool(ok), "poison": poison,
               "helionc_us": bench_us(h_fn), "eager_us": bench_us(eager_fn),
               "compile_us": None}
        if comp is not None:
            try:
                row["compile_us"] = bench_us(comp)
            except Exception as e:  # noqa: BLE001
                row["compile_error"] = str(e).splitlines()[0][:200]
        rows.append(row)

    # gelu_mul: a user helper called twice.
    for dt, tol in ((torch.float32, 1e-5), (torch.bfloat16, 1.6e-2)):
        n = 1 << 24
        x = torch.randn(n, device=DEV, dtype=dt) * 2
        y = torch.randn(n, device=DEV, dtype=dt) * 2
        got, pz = poisoned_call(lambda: lib["gelu_helper"].call("gelu_mul", x, y))
        want = gelu64(x.double()) * gelu64(y.double())
        err = ((got.double() - want).abs() / (want.abs() + 1)).max().item()
        record("gelu_mul", dt, [n], err, tol, err <= tol, pz,
               lambda: lib["gelu_helper"].call("gelu_mul", x, y),
               lambda: F.gelu(x) * F.gelu(y))

    # math_mix: the math functions.
    for dt, tol in ((torch.float32, 1e-5), (torch.bfloat16, 1.6e-2)):
        n = 1 << 24
        x = (torch.rand(n, device=DEV) * 6 - 3).to(dt)
        got, pz = poisoned_call(lambda: lib["pointwise_math"].call("math_mix", x))
        want = math_mix_ref(x.double())
        err = ((got.double() - want).abs() / (want.abs() + 1)).max().item()
        record("math_mix", dt, [n], err, tol, err <= tol, pz,
               lambda: lib["pointwise_math"].call("math_mix", x), lambda: math_mix_ref(x))

    # hash_bucket: integer operators, exact.
    for dt in (torch.int32, torch.int64):
        n = 1 << 24
        x = torch.randint(-2**31, 2**31 - 1, (n,), device=DEV, dtype=torch.int64).to(dt)
        buckets = 1000
        got, pz = poisoned_call(lambda: lib["int_hash"].call("hash_bucket", x, buckets))
        want = hash_ref(x, buckets)
        err = (got.to(torch.int64) - want.to(torch.int64)).abs().max().item()
        record("hash_bucket", dt, [n], err, 0, err == 0 and got.dtype == dt, pz,
               lambda: lib["int_hash"].call("hash_bucket", x, buckets),
               lambda: hash_ref(x, buckets))

    # arg_extremes: argmax/argmin rows, NaN rows and ties included; exact.
    for dt in (torch.float32, torch.bfloat16):
        for m, n in ((8192, 1024), (1024, 16384)):
            x = torch.randn(m, n, device=DEV).to(dt)
            x[3, 100] = float("nan")
            x[3, 7] = float("nan")
            x[5] = 0.25  # ties everywhere: index 0
            imax = torch.empty(m, device=DEV, dtype=torch.int64)
            imin = torch.empty(m, device=DEV, dtype=torch.int64)
            poison_(imax)
            poison_(imin)
            lib["argmax"].call("arg_extremes", x, imax, imin)
            torch.cuda.synchronize()
            wmax, wmin = torch.argmax(x, dim=1), torch.argmin(x, dim=1)
            bad = int((imax != wmax).sum().item() + (imin != wmin).sum().item())
            record("arg_extremes", dt, [m, n], bad, 0, bad == 0, "passed in",
                   lambda: lib["argmax"].call("arg_extremes", x, imax, imin),
                   lambda: (torch.argmax(x, dim=1), torch.argmin(x, dim=1)))

    # histogram: atomic i32 counts, exact.
    for dt in (torch.float32, torch.bfloat16):
        n, bins, lo, hi = 1 << 24, 256, -3.0, 3.0
        x = torch.randn(n, device=DEV).to(dt)
        got = lib["histogram"].call("histogram", x, bins, lo, hi)
        torch.cuda.synchronize()
        want = torch.bincount(hist_bins(x, bins, lo, hi), minlength=bins)
        err = (got.to(torch.int64) - want).abs().max().item()
        record("histogram", dt, [n], err, 0, err == 0 and got.dtype == torch.int32, "zeros",
               lambda: lib["histogram"].call("histogram", x, bins, lo, hi),
               lambda: torch.bincount(hist_bins(x, bins, lo, hi), minlength=bins))

    # scatter_add: atomic f32 row accumulation (index_add_), against float64.
    for dt, tol in ((torch.float32, 1e-4), (torch.bfloat16, 1e-4)):
        n, d, out_rows = 1 << 16, 256, 1024
        src = torch.randn(n, d, device=DEV).to(dt)
        index = torch.randint(0, out_rows, (n,), device=DEV, dtype=torch.int64)
        got = lib["histogram"].call("scatter_add", src, index, out_rows)
        torch.cuda.synchronize()
        want = torch.zeros(out_rows, d, device=DEV, dtype=torch.float64).index_add_(
            0, index, src.double())
        err = ((got.double() - want).abs() / (want.abs() + 1)).max().item()
        record("scatter_add", dt, [n, d], err, tol, err <= tol and got.dtype == torch.float32,
               "zeros", lambda: lib["histogram"].call("scatter_add", src, index, out_rows),
               lambda: torch.zeros(out_rows, d, device=DEV, dtype=torch.float32).index_add_(
                   0, index, src.float()))

    # quant_fp8: per-row f8e4m3 quantization, bit-exact against the same arithmetic in
    # torch (amax, 448 / amax, the product rounded by .to(float8_e4m3fn)); dequant_fp8
    # against float64.
    def torch_quant(x):
        row = x.float()
        amax = row.abs().amax(1).clamp_min(1e-12)
        # torch computes `448.0 / amax` as reciprocal(amax) * 448 (two roundings); the
        # kernel's 448.0f / amax is one correctly rounded division, as tensor / tensor.
        inv = torch.full_like(amax, 448.0) / amax
        return (row * inv[:, None]).to(torch.float8_e4m3fn), amax / 448.0

    for dt, tol in ((torch.bfloat16, 4e-3), (torch.float32, 1e-6)):
        m, n = 8192, 4096
        x = (torch.randn(m, n, device=DEV) * 3).to(dt)
        x[7, 11] = 1e4
        x[9] = 0  # an all-zero row: scale 1e-12 / 448, zeros
        q, s = lib["quant_fp8"].call("quant_fp8", x)
        torch.cuda.synchronize()
        wq, ws = torch_quant(x)
        # The scale is amax / 448: a division by a constant, which the kernel computes as
        # a product with the rounded reciprocal (div_bcast, within 1.5 ulp).
        bad = int((q.view(torch.uint8) != wq.view(torch.uint8)).sum().item() +
                  ((s - ws).abs() > 2.4e-7 * ws).sum().item())
        record("quant_fp8", dt, [m, n], bad, 0, bad == 0 and q.dtype == torch.float8_e4m3fn,
               "n/a", lambda: lib["quant_fp8"].call("quant_fp8", x), lambda: torch_quant(x))
        out = torch.empty(m, n, device=DEV, dtype=dt)
        poison_(out)
        lib["quant_fp8"].call("dequant_fp8", q, s, out)
        torch.cuda.synchronize()
        want = q.double() * s.double()[:, None]
        err = ((out.double() - want).abs() / (want.abs() + 1e-30)).max().item()
        record("dequant_fp8", dt, [m, n], err, tol, err <= tol, "passed in",
               lambda: lib["quant_fp8"].call("dequant_fp8", q, s, out),
               lambda: out.copy_(q.float() * s[:, None]))

    # dequant_fp8 of an f8e5m2 tensor made by torch: every code's decoding.
    m, n = 4096, 4096
    q5 = torch.randint(0, 256, (m, n), device=DEV, dtype=torch.uint8).view(torch.float8_e5m2)
    q5.view(torch.uint8)[0, :256] = torch.arange(256, device=DEV, dtype=torch.uint8)
    s5 = torch.rand(m, device=DEV) + 0.5
    out = torch.empty(m, n, device=DEV, dtype=torch.float32)
    poison_(out)
    lib["quant_fp8"].call("dequant_fp8", q5, s5, out)
    torch.cuda.synchronize()
    want = q5.float() * s5[:, None]
    bad = int(((out != want) & ~(out.isnan() & want.isnan())).sum().item())
    record("dequant_fp8", torch.float8_e5m2, [m, n], bad, 0, bad == 0, "passed in",
           lambda: lib["quant_fp8"].call("dequant_fp8", q5, s5, out),
           lambda: out.copy_(q5.float() * s5[:, None]))

    dev = torch.cuda.get_device_name()
    print(f"\n{dev}: helionc vs torch (median us; lower is better)")
    hdr = (f"{'kernel':13} {'dtype':9} {'shape':14} {'check':5} {'max_err':>9} {'poison':10} "
           f"{'helionc':>9} {'eager':>9} {'compile':>9} {'eager/h':>7} {'comp/h':>7}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        c, h = r["compile_us"], r["helionc_us"]
        shape = "x".join(map(str, r["shape"]))
        check = "ok" if r["ok"] else "FAIL"
        comp = f"{c:9.1f}" if c else "      n/a"
        comp_ratio = f"{c / h:7.2f}" if c else "    n/a"
        print(f"{r['kernel']:13} {r['dtype']:9} {shape:14} {check:5} {r['max_err']:9.2g} "
              f"{str(r['poison']):10} {h:9.1f} {r['eager_us']:9.1f} {comp} "
              f"{r['eager_us'] / h:7.2f} {comp_ratio}")
    ok = all(r["ok"] for r in rows)
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev, "rows": rows, "ok": ok}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
