#!/usr/bin/env python3
"""How much of a timing of examples/attention_causal.cpp through its C entry is Python.

    python3 benchmarks/attention_causal_calls.py LIB.so

LIB.so: the library scripts/attention_causal_gpu_check.sh builds
(/tmp/attention-causal-build/py/libattention_causal.so). Per shape (bf16): the host time
of one call (50 calls without waiting, then a synchronize), and the time per call with
1, 10 and 50 back-to-back calls between CUDA events (benchmarks/timing.py), next to
SDPA is_causal with 10 and 50. Where the host time of a call nears the kernel's, the
10-call figure of benchmarks/attention_causal_torch.py includes host time.
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "benchmarks"))
sys.path.insert(0, os.path.join(root, "examples", "python"))
from timing import bench_ms  # noqa: E402
from helionc_ctypes import HelioncLibrary  # noqa: E402
lib = HelioncLibrary(sys.argv[1])
for (bh, s, d) in ((128, 2048, 64), (128, 4096, 128), (1, 128, 64)):
    q, k, v = (torch.randn(bh, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    f = lambda: lib.call("attention_causal", q, k, v)
    for _ in range(5): f()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(50): f()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    host = (t1 - t0) / 50 * 1e6
    res = {c: bench_ms(f, calls=c) * 1e3 for c in (1, 10, 50)}
    q4, k4, v4 = (t.view(1, bh, s, d) for t in (q, k, v))
    sd = {c: bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=True), calls=c) * 1e3 for c in (10, 50)}
    flop = 2 * bh * s * s * d
    print(f"bh={bh} s={s} d={d}: host per call {host:.1f} us; helionc us/call calls=1 {res[1]:.1f} calls=10 {res[10]:.1f} calls=50 {res[50]:.1f} "
          f"({flop / res[50] / 1e6:.1f} TFLOP/s); SDPA calls=10 {sd[10]:.1f} calls=50 {sd[50]:.1f} ({flop / sd[50] / 1e6:.1f} TFLOP/s)", flush=True)
