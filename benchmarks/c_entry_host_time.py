#!/usr/bin/env python3
"""Where the host time of a call through a generated C entry goes (ctypes, Python).

    python3 benchmarks/c_entry_host_time.py LIB.so KERNEL SHAPE [SHAPE ...]

Calls helionc_KERNEL on fresh bf16 CUDA tensors (one per comma-separated SHAPE, e.g.
128x2048x64,128x2048x64,128x2048x64) 50 times without waiting, timing each phase on
the host (perf_counter): to_dlpack of the arguments, the C entry itself, from_dlpack of
the results, and dropping the results (their deleters return the memory to helion's
allocator). Then once more with a synchronize after each call, which separates time the
host spends waiting for the GPU from host work. Prints microseconds per call.
"""
import ctypes
import os
import sys
import time

import torch
import torch.utils.dlpack

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
import helionc_ctypes as hc  # noqa: E402


def phases(lib, kernel, args, calls, sync):
    entry = getattr(lib.lib, "helionc_" + kernel)
    entry.restype = ctypes.c_int
    stream = torch.cuda.current_stream()
    t = {"to_dlpack": 0.0, "entry": 0.0, "from_dlpack": 0.0, "drop": 0.0, "sync": 0.0}
    for _ in range(calls):
        a = time.perf_counter()
        caps = [torch.utils.dlpack.to_dlpack(x) for x in args]
        ptrs = [ctypes.c_void_p(hc._capsule_pointer(c, b"dltensor")) for c in caps]
        results = (ctypes.c_void_p * 8)()
        b = time.perf_counter()
        rc = entry(*ptrs, results, ctypes.c_void_p(stream.cuda_stream))
        c = time.perf_counter()
        assert rc == 0, lib.lib.helion_rt_last_error().decode()
        del caps
        outs = [hc.HelioncLibrary._from_dlpack(r) for r in results if r]
        d = time.perf_counter()
        del outs
        e = time.perf_counter()
        if sync:
            torch.cuda.synchronize()
        f = time.perf_counter()
        for k, v in (("to_dlpack", b - a), ("entry", c - b), ("from_dlpack", d - c),
                     ("drop", e - d), ("sync", f - e)):
            t[k] += v
    return {k: v / calls * 1e6 for k, v in t.items()}


def main():
    lib = hc.HelioncLibrary(sys.argv[1])
    kernel = sys.argv[2]
    for spec in sys.argv[3:]:
        shapes = [tuple(int(x) for x in s.split("x")) for s in spec.split(",")]
        args = [torch.randn(s, device="cuda", dtype=torch.bfloat16) for s in shapes]
        for _ in range(5):
            lib.call(kernel, *args)
        torch.cuda.synchronize()
        for sync in (False, True):
            p = phases(lib, kernel, args, 50, sync)
            torch.cuda.synchronize()
            print(f"{kernel} {spec} {'sync each' if sync else 'no wait  '}: " +
                  " ".join(f"{k} {v:.1f}" for k, v in p.items()) + " us/call", flush=True)


if __name__ == "__main__":
    main()
