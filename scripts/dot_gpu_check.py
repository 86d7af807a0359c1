#!/usr/bin/env python3
"""The hl::dot examples on the GPU (scripts/dot_gpu_check.sh runs this).

Each case calls a helionc kernel through its C entry (examples/python/helionc_ctypes.py)
on fresh random inputs, compares it with a float64 torch reference (max |error| over
max |reference|), and times it next to the same computation in torch eager (torch.bmm
and torch.matmul are cuBLAS) and under torch.compile. Outputs are allocated by the
kernels: the first call's output is NaN-poisoned and dropped, and the caching
allocator hands its block to the checked call (`poison`: whether it did).

    python3 scripts/dot_gpu_check.py --libdir BUILD/py [--json OUT.json] [--only REGEX]
                                     [--paired ROUNDS]

Timed rows also carry `*_stream_us`: 20 calls back to back per event pair (host work
overlapped), next to do_bench's one call between L2 flushes. --paired ROUNDS also times
each timed row's helionc and eager calls alternately (order shuffled each round, one call
after an L2 flush each): `paired_ratio` is the median over rounds of helionc's time over
eager's (> 1: helionc slower), printed as the table's last column.
--only keeps the cases whose name (`bmm`, `mlp_relu.tn128`, `dot_product_a.default`, ...)
REGEX matches (re.search). Each row is printed as it is recorded, and the table at the end.
"""
import argparse
import json
import os
import re
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
sys.path.insert(0, os.path.join(root, "examples", "python"))
sys.path.insert(0, here)
from helionc_ctypes import HelioncError, HelioncLibrary  # noqa: E402
from lang_gpu_check import bench_us, compiled, poisoned_call  # noqa: E402
from timing import bench_ms, paired_us  # noqa: E402  (benchmarks/, on lang_gpu_check's path)

DEV = "cuda"
TOL = {torch.bfloat16: 1.6e-2, torch.float16: 2e-3, torch.float32: 2e-3,  # f32: tf32
       torch.float8_e4m3fn: 2e-3}  # 8-bit values are exact in tf32


def rel_err(got, want):
    if torch.isnan(got).any():
        return float("inf")
    return ((got.double() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--json")
    ap.add_argument("--only", help="check and time only the cases this regex matches")
    ap.add_argument("--paired", type=int, default=0, metavar="ROUNDS",
                    help="also time helionc and eager alternately, ROUNDS rounds (0: not)")
    args = ap.parse_args()

    def selected(kernel):
        return not args.only or re.search(args.only, kernel) is not None
    mlp_variants = ["tn128", "tn256", "tn256_h32", "w8_128x256", "k64", "k8", "fallback", "s4",
                    "s2", "s1"]
    dk_variants = ["default", "k64", "m128", "w8", "small", "c3"]
    class Libraries(dict):  # loaded at first use: DK_ONLY=1 builds the dk_* ones only
        def __missing__(self, n):
            self[n] = HelioncLibrary(os.path.join(args.libdir, f"lib{n}.so"))
            return self[n]
    lib = Libraries()
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows = []

    def record(kernel, dtype, shape, flops, err, poison, h_fn, eager_fn, timed=True,
               with_compile=True):
        tol = TOL[dtype]
        row = {"kernel": kernel, "dtype": str(dtype).replace("torch.", ""), "shape": list(shape),
               "max_rel_err": err, "tol": tol, "ok": err <= tol, "poison": poison,
               "flops": flops, "helionc_us": None, "eager_us": None, "compile_us": None,
               "helionc_stream_us": None, "eager_stream_us": None}
        if timed:
            row["helionc_us"] = bench_us(h_fn)
            row["eager_us"] = bench_us(eager_fn)
            # 20 calls back to back (host work overlapped with the previous kernel): the
            # GPU's time where do_bench's one call between L2 flushes is host-bound.
            row["helionc_stream_us"] = bench_ms(h_fn, runs=10, warmup=3, calls=20) * 1e3
            row["eager_stream_us"] = bench_ms(eager_fn, runs=10, warmup=3, calls=20) * 1e3
            if args.paired:
                _, ratios, _ = paired_us([h_fn, eager_fn], rounds=args.paired)
                row["paired_ratio"] = 1.0 / ratios[1]  # ratios: eager over helionc
            comp = compiled(eager_fn) if with_compile else None
            if comp is not None:
                try:
                    row["compile_us"] = bench_us(comp)
                except Exception as e:  # noqa: BLE001
                    row["compile_error"] = str(e).splitlines()[0][:200]
        rows.append(row)
        print(f"row {kernel} {row['dtype']} {'x'.join(map(str, shape))} "
              f"{'ok' if row['ok'] else 'FAIL'} err {err:.2g} helionc {row['helionc_us']} "
              f"eager {row['eager_us']} compile {row['compile_us']} stream: helionc "
              f"{row['helionc_stream_us']} eager {row['eager_stream_us']}"
              f"{' paired h/e ' + format(row['paired_ratio'], '.3f') if 'paired_ratio' in row else ''}",
              flush=True)

    def failed(kernel, dtype, shape, e):
        print(f"FAIL {kernel} {dtype} {shape}: {str(e)[:2000]}")
        rows.append({"kernel": kernel, "dtype": str(dtype).replace("torch.", ""),
                     "shape": list(shape), "max_rel_err": float("inf"), "tol": TOL[dtype],
                     "ok": False, "poison": False, "flops": 0, "helionc_us": None,
                     "eager_us": None, "compile_us": None, "error": str(e)[:2000]})

    def checked(kernel, dtype, shape, call):
        if not selected(kernel):
            return None, None
        try:
            return poisoned_call(call)
        except HelioncError as e:
            failed(kernel, dtype, shape, e)
            return None, None

    # bmm: timed at the large shapes next to torch.bmm (cuBLAS); the odd shapes check
    # partial tiles (M, N, K not multiples of the tile) and batches of one.
    bmm_shapes = [((16, 1024, 1024, 1024), True), ((64, 512, 512, 512), True),
                  ((3, 333, 200, 72), False), ((5, 127, 136, 264), False),
                  ((1, 256, 512, 128), False)]
    for dt in (torch.bfloat16, torch.float16, torch.float32) if selected("bmm") else ():
        for (b, m, n, k), timed in bmm_shapes:
            if dt == torch.float32 and timed and b * m * n * k > 2**33:
                timed = False  # tf32 on the sm80 kernel: checked, not timed at the largest
            x = torch.randn(b, m, k, device=DEV, dtype=dt)
            y = torch.randn(b, k, n, device=DEV, dtype=dt)
            got, pz = poisoned_call(lambda: lib["bmm"].call("bmm", x, y))
            err = rel_err(got, torch.bmm(x.double(), y.double()))
            record("bmm", dt, [b, m, n, k], 2.0 * b * m * n * k, err, pz,
                   lambda: lib["bmm"].call("bmm", x, y), lambda: torch.bmm(x, y), timed)

    # bmm on the general lowering (libbmm_general.so: examples/bmm.cpp compiled with
    # HELIONC_GENERAL_DOTS=1), next to the template (the rows above) and torch.bmm.
    for dt in (torch.bfloat16,) if selected("bmm_general") else ():
        for (b, m, n, k), timed in bmm_shapes[:3]:
            x = torch.randn(b, m, k, device=DEV, dtype=dt)
            y = torch.randn(b, k, n, device=DEV, dtype=dt)
            call = lambda: lib["bmm_general"].call("bmm", x, y)  # noqa: E731
            got, pz = checked("bmm_general", dt, [b, m, n, k], call)
            if got is not None:
                record("bmm_general", dt, [b, m, n, k], 2.0 * b * m * n * k,
                       rel_err(got, torch.bmm(x.double(), y.double())), pz, call,
                       lambda: torch.bmm(x, y), timed, False)

    # matmul_bias_relu: the constant zero tile of the epilogue.
    for dt in (torch.bfloat16, torch.float32) if selected("matmul_bias_relu") else ():
        for (m, n, k), timed in (((4096, 4096, 4096), True), ((333, 200, 72), False)):
            x = torch.randn(m, k, device=DEV, dtype=dt)
            y = torch.randn(k, n, device=DEV, dtype=dt)
            bias = torch.randn(n, device=DEV, dtype=dt)
            call = lambda: lib["matmul_bias_relu"].call("matmul_bias_relu", x, y, bias)  # noqa: E731
            got, pz = poisoned_call(call)
            want = torch.relu(x.double() @ y.double() + bias.double())
            err = rel_err(got, want)
            record("matmul_bias_relu", dt, [m, n, k], 2.0 * m * n * k, err, pz, call,
                   lambda: torch.relu(x @ y + bias), timed)

    # mlp_relu: two chained dots on the general lowering (mma layout, or shared memory
    # for the fallback variant), under the default config and the variants.
    for name in ["dot_generic"] + [f"mlp_{v}" for v in mlp_variants]:
        label = "mlp_relu" + ("" if name == "dot_generic" else "." + name[4:])
        # f32 stages 4-byte operands: the wide-tile variants do not fit 48 KB in f32 (s4 runs
        # there with its ring lowered to 2 buffers).
        with_f32 = ("mlp_k8", "mlp_fallback", "mlp_s2", "mlp_s4")
        dts = (torch.bfloat16, torch.float16, torch.float32) if name == "dot_generic" else \
            (torch.bfloat16, torch.float32) if name in with_f32 else (torch.bfloat16,)
        for dt in dts:
            # 8192x256x256x256 and the ragged 1000x128x200x200 fit the chain template on
            # sm_90 (K 64/128/256, N a multiple of 8); K = 72 runs the generic kernel.
            for (m, k, h, n), timed in (((8192, 256, 256, 256), True),
                                        ((1000, 128, 200, 200), False),
                                        ((1000, 72, 40, 24), False)):
                x = torch.randn(m, k, device=DEV, dtype=dt) / 4
                w1 = torch.randn(k, h, device=DEV, dtype=dt) / 4
                w2 = torch.randn(h, n, device=DEV, dtype=dt) / 4
                call = lambda: lib[name].call("mlp_relu", x, w1, w2)  # noqa: E731
                if not selected(label):
                    continue
                try:
                    got, pz = poisoned_call(call)
                except HelioncError as e:  # a failed case is a row, the run goes on
                    failed(label, dt, [m, k, h, n], e)
                    continue
                act = torch.relu(x.double() @ w1.double()).to(dt).double()
                err = rel_err(got, act @ w2.double())
                record(label, dt, [m, k, h, n], 2.0 * m * h * (k + n), err, pz, call,
                       lambda: torch.relu(x @ w1) @ w2, timed and dt != torch.float32,
                       name == "dot_generic")

    # test/gpu/dot_kernels.cpp's mlp_bias: relu(x @ w1 + b1) @ w2 + b2, the chain template
    # with a bias in its activation and its epilogue (default config; K 128 and 256),
    # the general lowering for K 72 and under dk_small's [32, 16, 16, 8].
    for v in ("default", "small"):
        for dt in (torch.bfloat16, torch.float16):
            for (m, k, h, n), timed in (((8192, 256, 256, 256), True),
                                        ((1000, 128, 200, 200), False),
                                        ((1000, 72, 40, 24), False)):
                x = torch.randn(m, k, device=DEV, dtype=dt) / 4
                w1 = torch.randn(k, h, device=DEV, dtype=dt) / 4
                b1 = torch.randn(h, device=DEV, dtype=dt)
                w2 = torch.randn(h, n, device=DEV, dtype=dt) / 4
                b2 = torch.randn(n, device=DEV, dtype=dt)
                call = lambda: lib[f"dk_{v}"].call("mlp_bias", x, w1, b1, w2, b2)  # noqa: E731
                got, pz = checked(f"mlp_bias.{v}", dt, [m, k, h, n], call)
                if got is None:
                    continue
                act = torch.relu(x.double() @ w1.double() + b1.double()).to(dt).double()
                record(f"mlp_bias.{v}", dt, [m, k, h, n], 2.0 * m * h * (k + n),
                       rel_err(got, act @ w2.double() + b2.double()), pz, call,
                       lambda: torch.addmm(b2, torch.relu(torch.addmm(b1, x, w1)), w2),
                       timed and (v == "default" or dt == torch.bfloat16), v == "default")

    # test/gpu/dot_kernels.cpp: a transposed load as B, a computed B, a computed A.
    for v in dk_variants:
        dl = lib[f"dk_{v}"]
        for dt in (torch.bfloat16, torch.float32):
            # Batched chained dots (the chain template on sm_90a for bf16 and K 64, 128 or
            # 256, else the general lowering): over [tb, tm, te] tiles, and over [tb, tm]
            # with whole head dims (attention without its softmax).
            for name, shapes in (("bmm_chain_t", (((8, 1024, 64, 1024, 64), True),
                                                  ((3, 333, 72, 200, 40), False))),
                                 ("bmm_chain_all", (((8, 1024, 64, 1024, 64), True),
                                                    ((3, 333, 64, 200, 64), False),
                                                    ((2, 200, 128, 136, 128), False)))):
                if name == "bmm_chain_all" and v != "default":
                    continue
                for (b, m, k, n, d), timed in shapes:
                    q = torch.randn(b, m, k, device=DEV, dtype=dt) / 4
                    kt = torch.randn(b, n, k, device=DEV, dtype=dt) / 4
                    vv = torch.randn(b, n, d, device=DEV, dtype=dt) / 4
                    call = lambda: dl.call(name, q, kt, vv)  # noqa: E731
                    got, pz = checked(f"{name}.{v}", dt, [b, m, k, n, d], call)
                    if got is None:
                        continue
                    s64 = (q.double() @ kt.double().transpose(1, 2)).to(dt).double()
                    record(f"{name}.{v}", dt, [b, m, k, n, d], 2.0 * b * m * n * (k + d),
                           rel_err(got, s64 @ vv.double()), pz, call,
                           lambda: (q @ kt.transpose(1, 2)).to(dt) @ vv,
                           timed and dt != torch.float32, v == "default")
            for (m, k, n, d), timed in (((4096, 64, 1024, 64), True), ((333, 128, 200, 40), False),
                                        ((333, 72, 200, 40), False)):
                q = torch.randn(m, k, device=DEV, dtype=dt) / 4
                kt = torch.randn(n, k, device=DEV, dtype=dt) / 4
                vv = torch.randn(n, d, device=DEV, dtype=dt) / 4
                call = lambda: dl.call("dot_chain_t", q, kt, vv)  # noqa: E731
                got, pz = checked(f"dot_chain_t.{v}", dt, [m, k, n, d], call)
                if got is None:
                    continue
                s64 = (q.double() @ kt.double().T).to(dt).double()
                record(f"dot_chain_t.{v}", dt, [m, k, n, d], 2.0 * m * n * (k + d),
                       rel_err(got, s64 @ vv.double()), pz, call,
                       lambda: (q @ kt.T).to(dt) @ vv, timed and dt != torch.float32,
                       v == "default")
            # k 296: 5 K blocks of 64 (dot_kscale's two-part loop past its unrolled pairs)
            for (m, k, n), timed in (((4096, 1024, 1024), True), ((333, 72, 200), False),
                                     ((200, 296, 136), False)):
                x = torch.randn(m, k, device=DEV, dtype=dt)
                w = torch.randn(k, n, device=DEV, dtype=dt)
                bias = torch.randn(n, device=DEV, dtype=dt)
                call = lambda: dl.call("dot_relu_b", x, w)  # noqa: E731
                got, pz = checked(f"dot_relu_b.{v}", dt, [m, k, n], call)
                want = x.double() @ torch.relu(w.double()) + 1.0
                if got is not None:
                    record(f"dot_relu_b.{v}", dt, [m, k, n], 2.0 * m * n * k, rel_err(got, want),
                       pz, call, lambda: x.float() @ torch.relu(w).float() + 1.0,
                       timed and dt != torch.float32, v == "default")
                call = lambda: dl.call("dot_both", x, w)  # noqa: E731
                # Both operands computed: checked once (its default config), not timed.
                got, pz = checked(f"dot_both.{v}", dt, [m, k, n], call) if v == "default" \
                    else (None, None)
                want = (x.double() * 0.5).to(dt).double() @ torch.relu(w.double())
                if got is not None:
                    record(f"dot_both.{v}", dt, [m, k, n], 2.0 * m * n * k, rel_err(got, want),
                           pz, call, lambda: (x * 0.5) @ torch.relu(w), False, False)
                # A prologue whose value at 0 is infinite: A's padding past K must be
                # zeroed, or the product is NaN (the ragged K = 72 shape).
                xr = (torch.rand(m, k, device=DEV) + 1.0).to(dt) * \
                    torch.where(torch.rand(m, k, device=DEV) < 0.5, -1.0, 1.0).to(dt)
                call = lambda: dl.call("dot_recip_a", xr, w)  # noqa: E731
                got, pz = checked(f"dot_recip_a.{v}", dt, [m, k, n], call)
                want = (1.0 / xr.double()).to(dt).double() @ w.double()
                if got is not None:
                    record(f"dot_recip_a.{v}", dt, [m, k, n], 2.0 * m * n * k, rel_err(got, want),
                           pz, call, lambda: (1.0 / xr) @ w, timed and dt != torch.float32,
                           v == "default")
                # An A prologue that reads a vector along K: at the ragged K = 72, A's
                # elements past K read scol[K - 1] and are zeroed.
                scol = torch.randn(k, device=DEV, dtype=dt)
                call = lambda: dl.call("dot_colscale_a", x, scol, w)  # noqa: E731
                got, pz = checked(f"dot_colscale_a.{v}", dt, [m, k, n], call)
                want = (x.double() * scol.double()[None, :]).to(dt).double() @ w.double()
                if got is not None:
                    record(f"dot_colscale_a.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call,
                           lambda: ((x * scol[None, :]) @ w).float(),
                           timed and dt != torch.float32, v == "default")
                # A computed from two loads at the same subscripts (an A prologue that
                # reads y per element): checked under every variant, timed under the
                # default config.
                y = torch.randn(m, k, device=DEV, dtype=dt)
                call = lambda: dl.call("dot_product_a", x, y, w)  # noqa: E731
                got, pz = checked(f"dot_product_a.{v}", dt, [m, k, n], call)
                want = (x.double() * y.double()).to(dt).double() @ w.double()
                if got is not None:
                    record(f"dot_product_a.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call, lambda: ((x * y) @ w).float(),
                           timed and dt != torch.float32 and v == "default", v == "default")
                # A computed from its load and its K tile's index (an A prologue that
                # reads the element's k): checked under every variant, timed under the
                # default config.
                shift = (torch.arange(k, device=DEV) % 3).to(torch.float64) * 0.25
                call = lambda: dl.call("dot_index_a", x, w)  # noqa: E731
                got, pz = checked(f"dot_index_a.{v}", dt, [m, k, n], call)
                want = (x.double() + shift[None, :]).to(dt).double() @ w.double()
                if got is not None:
                    record(f"dot_index_a.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call,
                           lambda: ((x + shift.to(dt)[None, :]) @ w).float(),
                           timed and dt != torch.float32 and v == "default", v == "default")
                # A lower-triangular A (both tile indices: row and k): eager is
                # torch.tril then the product.
                call = lambda: dl.call("dot_tril_a", x, w)  # noqa: E731
                got, pz = checked(f"dot_tril_a.{v}", dt, [m, k, n], call)
                want = torch.tril(x.double()) @ w.double()
                if got is not None:
                    record(f"dot_tril_a.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call,
                           lambda: (torch.tril(x) @ w).float(),
                           timed and dt != torch.float32 and v == "default", v == "default")
                # Each 64-wide K block's product scaled by s[kb] before it is added: the
                # GEMM templates' K-scale mainloop (a part accumulator per block). Eager
                # scales w's rows instead (the same sum).
                sk = torch.rand((k + 63) // 64, device=DEV, dtype=torch.float32) + 0.5
                call = lambda: dl.call("dot_kscale", x, w, sk)  # noqa: E731
                got, pz = checked(f"dot_kscale.{v}", dt, [m, k, n], call)
                srow = sk.repeat_interleave(64)[:k]
                want = x.double() @ (w.double() * srow.double()[:, None])
                if got is not None:
                    record(f"dot_kscale.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call,
                           lambda: (x @ (w * srow.to(dt)[:, None])).float(),
                           timed and dt != torch.float32 and v in ("default", "c3"),
                           v == "default")
                # A computed in a loop shape no template takes (column tiles inside the
                # row grid loop, carrying each row's sum): the general lowering, A in
                # registers. The row sums (f32) are checked too.
                rowsum = torch.full((m,), float("nan"), device=DEV, dtype=torch.float32)
                call = lambda: dl.call("dot_loop_a", x, w, rowsum)  # noqa: E731
                got, pz = checked(f"dot_loop_a.{v}", dt, [m, k, n], call)
                want = (x.double() * 0.5).to(dt).double() @ w.double()
                if got is not None:
                    err = max(rel_err(got, want), rel_err(rowsum, got.double().sum(1)))
                    record(f"dot_loop_a.{v}", dt, [m, k, n], 2.0 * m * n * k, err, pz, call,
                           lambda: ((x * 0.5) @ w).float(),
                           timed and dt != torch.float32 and v == "default", v == "default")
                # The same product written as nested loops with nothing carried:
                # flatten-grid makes them one grid, so the GEMM templates' A prologue.
                call = lambda: dl.call("dot_nested_a", x, w)  # noqa: E731
                got, pz = checked(f"dot_nested_a.{v}", dt, [m, k, n], call)
                if got is not None:
                    record(f"dot_nested_a.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call, lambda: ((x * 0.5) @ w).float(),
                           timed and dt != torch.float32 and v == "default", v == "default")
                srow = torch.randn(m, device=DEV, dtype=dt)
                call = lambda: dl.call("dot_rowscale_a", x, srow, w)  # noqa: E731
                got, pz = checked(f"dot_rowscale_a.{v}", dt, [m, k, n], call)
                want = (x.double() * srow.double()[:, None]).to(dt).double() @ w.double()
                if got is not None:
                    record(f"dot_rowscale_a.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, want), pz, call,
                           lambda: ((x * srow[:, None]) @ w).float(),
                           timed and dt != torch.float32, v == "default")
                if v == "default":  # the batched A prologue: 4 products of this shape
                    xb = torch.randn(4, m, k, device=DEV, dtype=dt)
                    yb = torch.randn(4, k, n, device=DEV, dtype=dt)
                    call = lambda: dl.call("bmm_half_a", xb, yb)  # noqa: E731
                    got, pz = checked("bmm_half_a", dt, [4, m, k, n], call)
                    want = (xb.double() * 0.5).to(dt).double() @ yb.double()
                    if got is not None:
                        record("bmm_half_a", dt, [4, m, k, n], 8.0 * m * n * k,
                               rel_err(got, want), pz, call, lambda: (xb * 0.5) @ yb,
                               timed and dt != torch.float32, True)
                # The bias read before the K loop: an epilogue value on the templates.
                call = lambda: dl.call("dot_bias_early", x, w, bias)  # noqa: E731
                got, pz = checked(f"dot_bias_early.{v}", dt, [m, k, n], call)
                if got is not None:
                    record(f"dot_bias_early.{v}", dt, [m, k, n], 2.0 * m * n * k,
                           rel_err(got, x.double() @ w.double() + bias.double()), pz, call,
                           lambda: torch.addmm(bias, x, w), timed and dt != torch.float32,
                           v == "default")
                call = lambda: dl.call("dot_half_a", x, w, bias)  # noqa: E731
                got, pz = checked(f"dot_half_a.{v}", dt, [m, k, n], call)
                want = (x.double() * 0.5).to(dt).double() @ w.double() + bias.double()
                if got is not None:
                    record(f"dot_half_a.{v}", dt, [m, k, n], 2.0 * m * n * k, rel_err(got, want),
                       pz, call, lambda: (x * 0.5) @ w + bias, timed and dt != torch.float32,
                       v == "default")

    dev = torch.cuda.get_device_name()
    print(f"\n{dev}: helionc vs torch (median us; TFLOP/s; eager = torch.bmm / torch.matmul "
          "(cuBLAS))")
    hdr = (f"{'kernel':24} {'dtype':9} {'shape':20} {'check':5} {'max_err':>9} {'poison':6} "
           f"{'helionc':>9} {'eager':>9} {'compile':>9} {'TF/s':>7} {'eager/h':>7} {'comp/h':>7}"
           + (f" {'h/e pair':>8}" if args.paired else ""))
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        h, e, c = r["helionc_us"], r["eager_us"], r["compile_us"]
        shape = "x".join(map(str, r["shape"]))
        check = "ok" if r["ok"] else "FAIL"
        fmt = lambda v: f"{v:9.1f}" if v else "      n/a"  # noqa: E731
        tf = f"{r['flops'] / h / 1e6:7.1f}" if h else "    n/a"
        er = f"{e / h:7.2f}" if h and e else "    n/a"
        cr = f"{c / h:7.2f}" if h and c else "    n/a"
        print(f"{r['kernel']:24} {r['dtype']:9} {shape:20} {check:5} {r['max_rel_err']:9.2g} "
              f"{str(r['poison']):6} {fmt(h)} {fmt(e)} {fmt(c)} {tf} {er} {cr}"
              + (f" {r['paired_ratio']:8.3f}" if "paired_ratio" in r else ""))
    ok = all(r["ok"] for r in rows)
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev, "rows": rows, "ok": ok}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
