#!/usr/bin/env python3
"""The fp8 scaled matmul on the GPU (scripts/scaled_mm_gpu_check.sh runs this).

examples/scaled_mm.cpp: out[M, N] = (x @ w^T) * scale_x[:, None] * scale_w[None, :] in
bf16, x [M, K] and w [N, K] in float8_e4m3fn (or float8_e5m2), per-row f32 scales.
Inputs are fresh random bf16 rows quantized per row (amax to the format's largest
value, .to(float8)); each result is compared with a float64 reference of the
dequantized operands (max |error| over max |reference|), the kernel's output NaN-poisoned
first (poisoned_call), and timed next to torch._scaled_mm (cuBLAS fp8, row-wise scales;
tensor-wise when this torch has no row-wise scales, said in the `scaled_mm_scales`
column), torch eager (dequantize to bf16, then matmul) and torch.compile of that.
`--lib80` is the same kernel built with an indexing-pointer config: the sm80 kernel
(fp8 widened to f16 for mma.sync), checked at every shape and timed at the smallest.
scaled_mm_f8 (the same product times an output scale, stored as f8e4m3) is checked on
both kernels and timed on the sm90 one next to eager (dequantize, bf16 matmul, scale,
cast) and torch.compile of that.

    python3 scripts/scaled_mm_gpu_check.py --lib L.so --lib80 L80.so [--json OUT.json]
"""
import argparse
import ctypes
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

DEV = "cuda"
TOL = 1e-2  # bf16 output: one rounding (2^-9 relative) of each element
TOL_F8 = 0.05  # f8e4m3 output: half a step of the top binade is 16 / 448 = 0.036
FMAX = {torch.float8_e4m3fn: 448.0, torch.float8_e5m2: 57344.0}


def quantize(rows, dt):
    """Per-row fp8 quantization as vLLM does it: (q, scale) with rows ~ q * scale[:, None]."""
    amax = rows.float().abs().amax(dim=1).clamp_min(1e-12)
    scale = amax / FMAX[dt]
    return (rows.float() / scale[:, None]).to(dt), scale.contiguous()


def fmt_us(v):
    return f"{v:8.1f}" if v else "     n/a"


def ratio(a, h):
    return f"{a / h:5.2f}" if a and h else "  n/a"


def finish(rows, dev, json_path):
    """Prints whether every row's check passed, writes the JSON; the exit status."""
    ok = all(r["ok"] for r in rows)
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    if json_path:
        os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
        with open(json_path, "w") as f:
            json.dump({"device": dev, "torch": torch.__version__, "rows": rows, "ok": ok}, f,
                      indent=1)
    return 0 if ok else 1


def time_compiled(row, eager):
    """row["compile_us"]: torch.compile of `eager` timed (None where it does not compile),
    or row["compile_error"]: the first line of its error."""
    comp = compiled(eager)
    try:
        row["compile_us"] = bench_us(comp) if comp is not None else None
    except Exception as e:  # noqa: BLE001
        row["compile_error"] = str(e).splitlines()[0][:200]


def rel_err(got, want):
    if torch.isnan(got).any():
        return float("inf")
    return ((got.double() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def torch_scaled_mm(xq, wq, sx, sw, fast):
    """torch._scaled_mm with row-wise scales, else tensor-wise: (fn, 'rowwise'|'tensorwise'|None).

    fast: use_fast_accum (cuBLAS accumulates in the tensor cores' accumulator only, as the
    helionc kernel does; without it cuBLAS promotes partial sums to f32 every few k-blocks).
    """
    if not hasattr(torch, "_scaled_mm"):
        return None, None
    b = wq.t()  # [K, N] column-major, as cuBLAS fp8 wants it
    rowwise = lambda: torch._scaled_mm(xq, b, scale_a=sx[:, None], scale_b=sw[None, :],  # noqa: E731
                                       out_dtype=torch.bfloat16, use_fast_accum=fast)
    try:
        rowwise()
        return rowwise, "rowwise"
    except Exception:  # noqa: BLE001
        pass
    one = torch.ones((), device=DEV, dtype=torch.float32)
    tensorwise = lambda: torch._scaled_mm(xq, b, scale_a=one, scale_b=one,  # noqa: E731
                                          out_dtype=torch.bfloat16, use_fast_accum=fast)
    try:
        tensorwise()
        return tensorwise, "tensorwise"
    except Exception:  # noqa: BLE001
        return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--lib80", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    libs = {"sm90": HelioncLibrary(args.lib), "sm80": HelioncLibrary(args.lib80)}
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows = []
    cases = [((4096, 4096, 4096), torch.float8_e4m3fn), ((8192, 8192, 8192), torch.float8_e4m3fn),
             ((4000, 4096, 4032), torch.float8_e4m3fn), ((4096, 4096, 4096), torch.float8_e5m2),
             ((333, 200, 80), torch.float8_e4m3fn), ((130, 72, 4112), torch.float8_e5m2)]
    for (m, n, k), dt in cases:
        x, w = torch.randn(m, k, device=DEV, dtype=torch.bfloat16), torch.randn(
            n, k, device=DEV, dtype=torch.bfloat16)
        xq, sx = quantize(x, dt)
        wq, sw = quantize(w, dt)
        want = (xq.double() @ wq.double().t()) * sx.double()[:, None] * sw.double()[None, :]
        big = m * n * k >= 4096**3
        sm, scales = torch_scaled_mm(xq, wq, sx, sw, False)
        smf, _ = torch_scaled_mm(xq, wq, sx, sw, True)
        eager = lambda: ((xq.float() * sx[:, None]).to(torch.bfloat16)  # noqa: E731
                         @ (wq.float() * sw[:, None]).to(torch.bfloat16).t())
        # The sm90 kernel accumulates in the wgmma accumulator only, as cuBLAS with
        # use_fast_accum=True, whose 8-bit sums keep fewer bits than f32: at K >= 8192 its
        # error may pass TOL, and the check then asks for no more than 1.25 x cuBLAS's
        # fast-accumulation error on the same inputs (fast_err).
        fast_err = rel_err(smf(), want) if smf is not None else None
        for kind, lib in libs.items():
            call = lambda: lib.call("scaled_mm", xq, wq, sx, sw)  # noqa: E731
            got, pz = poisoned_call(call)
            err = rel_err(got, want)
            tol = TOL
            if kind == "sm90" and k >= 8192 and fast_err is not None:
                tol = max(TOL, 1.25 * fast_err)
            timed = big and (kind == "sm90" or m * n * k == 4096**3)
            row = {"kernel": f"scaled_mm/{kind}", "dtype": str(dt).replace("torch.", ""),
                   "shape": [m, n, k], "max_rel_err": err, "tol": tol, "fast_err": fast_err,
                   "ok": err <= tol and got.dtype == torch.bfloat16, "poison": pz,
                   "flops": 2.0 * m * n * k, "helionc_us": None, "scaled_mm_us": None,
                   "scaled_mm_fast_us": None,
                   "scaled_mm_scales": scales, "eager_us": None, "compile_us": None}
            if timed:
                row["helionc_us"] = bench_us(call)
                if kind == "sm90":
                    if sm is not None:
                        row["scaled_mm_us"] = bench_us(sm)
                    if smf is not None:
                        row["scaled_mm_fast_us"] = bench_us(smf)
                    row["eager_us"] = bench_us(eager)
                    time_compiled(row, eager)
            rows.append(row)
            del got

    # scaled_mm_f8: the same product times 1 / the output's scale, stored as f8e4m3 (the
    # sm90 kernel at BN 256 stages 1-byte outputs in shared memory and stores them with
    # TMA when N is a multiple of 16, 1000 x 1008 with ragged tiles too; 200 columns take
    # the pairs epilogue). Checked against the
    # float64 product as max |error| over max |reference| (the largest output is 448):
    # one rounding to 3 mantissa bits is at most half a step, 16 / 448 in the top
    # binade; a value next to a rounding midpoint may round the other way after the
    # 8-bit accumulation (seen: 97-99 % of outputs equal the float64 product rounded).
    for (m, n, k), dt in (((4096, 4096, 4096), torch.float8_e4m3fn),
                          ((1000, 1008, 512), torch.float8_e4m3fn),
                          ((333, 200, 80), torch.float8_e5m2)):
        x, w = torch.randn(m, k, device=DEV), torch.randn(n, k, device=DEV)
        xq, sx = quantize(x, dt)
        wq, sw = quantize(w, dt)
        want = (xq.double() @ wq.double().t()) * sx.double()[:, None] * sw.double()[None, :]
        inv = float(448.0 / want.abs().max().item())
        want = want * inv
        eager = lambda: ((xq.float() * sx[:, None]).to(torch.bfloat16)  # noqa: E731
                         @ (wq.float() * sw[:, None]).to(torch.bfloat16).t() * inv).to(
                             torch.float8_e4m3fn)
        for kind, lib in libs.items():
            call = lambda: lib.call("scaled_mm_f8", xq, wq, sx, sw,  # noqa: E731
                                    ctypes.c_float(inv))  # the kernel's float, not a double
            got, pz = poisoned_call(call)
            g = got.double()
            bad = torch.isnan(g).any().item() or got.dtype != torch.float8_e4m3fn
            err = float("inf") if bad else ((g - want).abs().max() / want.abs().max()).item()
            timed = m * n * k == 4096**3 and kind == "sm90"
            row = {"kernel": f"scaled_mm_f8/{kind}", "dtype": str(dt).replace("torch.", ""),
                   "shape": [m, n, k], "max_rel_err": err, "tol": TOL_F8,
                   "ok": err <= TOL_F8, "poison": pz, "flops": 2.0 * m * n * k,
                   "helionc_us": bench_us(call) if timed else None, "scaled_mm_us": None,
                   "scaled_mm_fast_us": None, "scaled_mm_scales": None,
                   "eager_us": bench_us(eager) if timed else None, "compile_us": None}
            if timed:
                time_compiled(row, eager)
            rows.append(row)
            del got

    dev = torch.cuda.get_device_name()
    print(f"\n{dev}: helionc scaled_mm vs torch (median us; TFLOP/s of helionc; "
          "_scaled / _fast = cuBLAS fp8 via torch._scaled_mm, use_fast_accum False / True; "
          "fast = the max error of _fast on the same inputs; "
          "eager = dequantize + bf16 matmul)")
    hdr = (f"{'kernel':17} {'dtype':13} {'MxNxK':15} {'check':5} {'max_err':>8} {'fast':>7} "
           f"{'poison':6} "
           f"{'helionc':>8} {'_scaled':>8} {'_fast':>8} {'eager':>8} {'compile':>8} {'TF/s':>7} "
           f"{'sc/h':>5} {'fst/h':>5} {'eag/h':>5} {'cmp/h':>5}")
    print(hdr)
    print("-" * len(hdr))
    fmt = fmt_us
    for r in rows:
        h = r["helionc_us"]
        tf = f"{r['flops'] / h / 1e6:7.1f}" if h else "    n/a"
        fe = r.get("fast_err")
        print(f"{r['kernel']:17} {r['dtype']:13} {'x'.join(map(str, r['shape'])):15} "
              f"{'ok' if r['ok'] else 'FAIL':5} {r['max_rel_err']:8.2g} "
              f"{f'{fe:7.2g}' if fe is not None else '    n/a'} {str(r['poison']):6} "
              f"{fmt(h)} {fmt(r['scaled_mm_us'])} {fmt(r['scaled_mm_fast_us'])} "
              f"{fmt(r['eager_us'])} {fmt(r['compile_us'])} {tf} {ratio(r['scaled_mm_us'], h)} "
              f"{ratio(r['scaled_mm_fast_us'], h)} {ratio(r['eager_us'], h)} "
              f"{ratio(r['compile_us'], h)}")
    scales = {r["scaled_mm_scales"] for r in rows if r["scaled_mm_us"]}
    if "tensorwise" in scales:
        print("note: this torch's _scaled_mm took no row-wise scales; timed with tensor-wise ones")
    return finish(rows, dev, args.json)


if __name__ == "__main__":
    sys.exit(main())
