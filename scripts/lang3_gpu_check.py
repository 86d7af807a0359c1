#!/usr/bin/env python3
"""The jagged-loop, scan and random-number examples on the GPU (scripts/lang3_gpu_check.sh
runs this).

Each case calls a helionc kernel through its C entry (examples/python/helionc_ctypes.py)
on fresh random inputs, compares it with a float64 torch reference, and times it next
to the same computation in torch eager and under torch.compile.

Poisoned outputs: a kernel that allocates its output is called once, that output is
filled with NaN and dropped; helion's caching allocator hands the same block to the
next call on the stream, whose result is then checked (`poison` says whether the block
was reused).

dropout: the kernel's mask (out != 0, x never 0) must equal, bit for bit, the mask of a
Philox4x32-10 in torch integer ops (key = seed, offset o is word o % 4 at counter
{o / 4, 0, 0}, the uniform conversion of include/helion/hl/random.h), and the kept values
x / (1 - p) within rounding; when Triton is importable, tl.rand4x(seed, q) must give
hl::rand's numbers of offsets 4q .. 4q + 3.

    python3 scripts/lang3_gpu_check.py --libdir BUILD/py [--json OUT.json]
"""
import argparse
import ctypes
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
from helionc_ctypes import HelioncLibrary  # noqa: E402
from lang_gpu_check import bench_us, compiled, poison_, poisoned_call  # noqa: E402

DEV = "cuda"


M32 = 0xFFFFFFFF


def mul32(a, b):
    """(hi, lo) 32-bit words of a * b for 32-bit a, b held in int64 (torch tensors or
    Python ints): 16-bit halves, so no intermediate passes 2^63."""
    ah, al = a >> 16, a & 0xFFFF
    bh, bl = b >> 16, b & 0xFFFF
    t = al * bl
    mid = ah * bl + al * bh + (t >> 16)
    return ah * bh + (mid >> 16), ((mid & 0xFFFF) << 16) | (t & 0xFFFF)


def philox4x32_10(c, k):
    """Philox4x32-10 of the counter words c[0..3] under key words k[0..1] (int64 values
    in [0, 2^32): torch tensors or Python ints)."""
    c0, c1, c2, c3 = c
    k0, k1 = k
    for _ in range(10):
        hi0, lo0 = mul32(c0, 0xD2511F53)
        hi1, lo1 = mul32(c2, 0xCD9E8D57)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return c0, c1, c2, c3


def philox_uniform(seed, offsets):
    """hl::rand(seed, offsets) in torch (int64 offsets): f32 in [0, 1), bit for bit."""
    zero = torch.zeros_like(offsets)
    block = offsets >> 2
    words = philox4x32_10((block & M32, (block >> 32) & M32, zero, zero),
                          (seed & M32, (seed >> 32) & M32))
    sel = offsets & 3
    w = torch.where(sel == 0, words[0], torch.where(sel == 1, words[1],
                    torch.where(sel == 2, words[2], words[3])))
    x = torch.where(w >= 2**31, w - 2**32, w)  # the word as a signed int32
    m = torch.where(x < 0, -x - 1, x)
    return m.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32, device=offsets.device)


try:  # Triton, when installed: its tl.rand4x is an independent Philox for the check
    import triton
    import triton.language as tl

    @triton.jit
    def _triton_rand_kernel(out, seed, n, BLOCK: tl.constexpr):
        q = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        r0, r1, r2, r3 = tl.rand4x(seed, q)
        tl.store(out + 4 * q, r0, mask=4 * q < n)
        tl.store(out + 4 * q + 1, r1, mask=4 * q + 1 < n)
        tl.store(out + 4 * q + 2, r2, mask=4 * q + 2 < n)
        tl.store(out + 4 * q + 3, r3, mask=4 * q + 3 < n)
except Exception:  # noqa: BLE001
    triton = None


def triton_rand(seed, n):
    """tl.rand4x(seed, q) for q < n / 4 interleaved (a seed below 2^31), or None
    without Triton or when it fails (the reason is printed)."""
    if triton is None:
        return None
    try:
        out = torch.empty(n, device=DEV, dtype=torch.float32)
        _triton_rand_kernel[(triton.cdiv(n, 4096),)](out, seed, n, BLOCK=1024)
        torch.cuda.synchronize()
        return out
    except Exception as e:  # noqa: BLE001
        print(f"note: Triton's tl.rand could not run ({str(e).splitlines()[0][:120]})")
        return None


def jagged_case(nrows, maxlen, d, dt):
    """jagged_sum's inputs (rows of random lengths up to maxlen, every 7th empty) and
    their float64 row sums: (lengths, offsets, values, want)."""
    lengths = torch.randint(0, maxlen + 1, (nrows,), device=DEV)
    lengths[::7] = 0
    offsets = torch.zeros(nrows + 1, device=DEV, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    total = int(offsets[-1].item())
    values = torch.randn(total, d, device=DEV).to(dt)
    cs = torch.zeros(total + 1, d, device=DEV, dtype=torch.float64)
    cs[1:] = values.double().cumsum(0)
    return lengths, offsets, values, cs[offsets[1:]] - cs[offsets[:-1]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    lib = {n: HelioncLibrary(os.path.join(args.libdir, f"lib{n}.so"))
           for n in ("jagged_sum", "cumsum", "dropout")}
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows = []
    # The reference Philox itself, against Random123's known answers.
    kats = (((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
            ((M32,) * 4, (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
            ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
             (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)))
    for c, k, want in kats:
        assert philox4x32_10(c, k) == want, "reference Philox4x32-10 fails a known answer"

    def record(kernel, dtype, shape, err, tol, ok, poison, h_fn, eager_fn, **extra):
        comp = compiled(eager_fn)
        row = {"kernel": kernel, "dtype": str(dtype).replace("torch.", ""), "shape": list(shape),
               "max_err": err, "tol": tol, "ok": bool(ok), "poison": poison,
               "helionc_us": bench_us(h_fn), "eager_us": bench_us(eager_fn),
               "compile_us": None, **extra}
        if comp is not None:
            try:
                row["compile_us"] = bench_us(comp)
            except Exception as e:  # noqa: BLE001
                row["compile_error"] = str(e).splitlines()[0][:200]
        rows.append(row)

    # jagged_sum: rows of random lengths (some empty), sums against float64 prefix sums.
    for dt, tol in ((torch.float32, 1e-5), (torch.bfloat16, 1.6e-2)):
        for nrows, maxlen, d in ((4096, 256, 256), (16384, 64, 128)):
            lengths, offsets, values, want = jagged_case(nrows, maxlen, d, dt)
            total = values.shape[0]
            got, pz = poisoned_call(lambda: lib["jagged_sum"].call("jagged_sum", values, offsets))
            err = ((got.double() - want).abs() / (want.abs() + 1)).max().item()
            lens = lengths

            def eager(values=values, offsets=offsets, lens=lens):
                return torch.segment_reduce(values, "sum", lengths=lens, axis=0, unsafe=True)

            try:
                eager()
            except Exception:  # noqa: BLE001 - segment_reduce missing: index_add_ instead
                ids = torch.repeat_interleave(torch.arange(nrows, device=DEV), lengths)

                def eager(values=values, ids=ids, n=nrows, d=d):
                    return torch.zeros(n, d, device=DEV, dtype=values.dtype).index_add_(0, ids, values)

            record("jagged_sum", dt, [nrows, d, total], err, tol, err <= tol, pz,
                   lambda: lib["jagged_sum"].call("jagged_sum", values, offsets), eager)

    # cumsum_rows / cumprod_rows: against float64 scans.
    for dt, tol in ((torch.float32, 1e-4), (torch.bfloat16, 2e-2)):
        for m, n in ((8192, 1024), (2048, 4096), (256, 32768)):  # the last: looped (long rows)
            x = torch.randn(m, n, device=DEV).to(dt)
            got, pz = poisoned_call(lambda: lib["cumsum"].call("cumsum_rows", x))
            want = x.double().cumsum(1)
            # |error| against the prefix's typical size (sqrt of its length for N(0, 1)
            # inputs), as a prefix that crosses 0 keeps the rounding of its large terms.
            typical = torch.arange(1, n + 1, device=DEV, dtype=torch.float64).sqrt()
            err = ((got.double() - want).abs() / (want.abs() + typical)).max().item()
            record("cumsum_rows", dt, [m, n], err, tol, err <= tol, pz,
                   lambda: lib["cumsum"].call("cumsum_rows", x), lambda: torch.cumsum(x, 1))
            y = (torch.rand(m, n, device=DEV) * 0.2 + 0.9).to(dt)
            got, pz = poisoned_call(lambda: lib["cumsum"].call("cumprod_rows", y))
            want = y.double().cumprod(1)
            # Relative error, against the dtype's smallest normal number at least: a row's
            # product drifts down like e^(-0.0017 k) with spread 0.058 sqrt(k), so a few of
            # 256 rows of 32768 end below it, where bf16 subnormals keep a bit or two.
            floor = torch.finfo(dt).tiny
            err = ((got.double() - want).abs() / want.abs().clamp_min(floor)).max().item()
            record("cumprod_rows", dt, [m, n], err, 2 * tol, err <= 2 * tol, pz,
                   lambda: lib["cumsum"].call("cumprod_rows", y), lambda: torch.cumprod(y, 1))

    # dropout: the mask bit for bit (Philox in torch, Triton's tl.rand4x), the kept values.
    seed = int.from_bytes(os.urandom(8), "little") & ((1 << 62) - 1)
    p = 0.25
    for dt, tol in ((torch.float32, 1e-6), (torch.bfloat16, 8e-3)):
        m, n = 8192, 8192
        x = (torch.rand(m, n, device=DEV) + 0.5).to(dt)
        got, pz = poisoned_call(lambda: lib["dropout"].call("dropout", x, ctypes.c_float(p), seed))
        u = philox_uniform(seed, torch.arange(m * n, device=DEV)).reshape(m, n)
        keep_want = u > torch.tensor(p, dtype=torch.float32, device=DEV)
        keep_got = got != 0
        mask_bad = int((keep_got != keep_want).sum().item())
        scale = (torch.tensor(1.0) / (torch.tensor(1.0) - torch.tensor(p))).item()  # f32, as the kernel
        want = torch.where(keep_want, x.double() * scale, torch.zeros((), device=DEV, dtype=torch.float64))
        err = ((got.double() - want).abs() / (want.abs() + 1)).max().item()
        tri = triton_rand(seed & 0x7FFFFFFF, 1 << 20)
        tri_bad = None
        if tri is not None:
            mine = philox_uniform(seed & 0x7FFFFFFF, torch.arange(1 << 20, device=DEV))
            tri_bad = int((tri.view(torch.int32) != mine.view(torch.int32)).sum().item())
        frac = keep_got.float().mean().item()
        ok = mask_bad == 0 and err <= tol and abs(frac - (1 - p)) < 0.01 and tri_bad in (None, 0)
        record("dropout", dt, [m, n], err, tol, ok, pz,
               lambda: lib["dropout"].call("dropout", x, ctypes.c_float(p), seed),
               lambda: F.dropout(x, p, training=True),
               mask_mismatches=mask_bad, kept_fraction=frac, triton_rand_mismatches=tri_bad)

    dev = torch.cuda.get_device_name()
    print(f"\n{dev}: helionc vs torch (median us; lower is better)")
    hdr = (f"{'kernel':13} {'dtype':9} {'shape':18} {'check':5} {'max_err':>9} {'poison':10} "
           f"{'helionc':>9} {'eager':>9} {'compile':>9} {'eager/h':>7} {'comp/h':>7}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        c, h = r["compile_us"], r["helionc_us"]
        shape = "x".join(map(str, r["shape"]))
        check = "ok" if r["ok"] else "FAIL"
        comp = f"{c:9.1f}" if c else "      n/a"
        comp_ratio = f"{c / h:7.2f}" if c else "    n/a"
        print(f"{r['kernel']:13} {r['dtype']:9} {shape:18} {check:5} {r['max_err']:9.2g} "
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
