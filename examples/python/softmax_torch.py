#!/usr/bin/env python3
"""examples/softmax.cpp's `softmax` called from PyTorch through its C entry.

Build the library (examples/python/build.sh; with --aot-arch the kernels are embedded
and NVRTC is never loaded), then run this next to torch:

    examples/python/build.sh examples/softmax.cpp build/py build/runtime/libhelion_runtime.a \\
        --kernel softmax --aot-arch sm_90a --dtype f32 --dtype bf16
    python3 examples/python/softmax_torch.py build/py/libsoftmax.so [--json OUT.json]

It compares helionc's softmax with torch.softmax in f32 and bf16 on torch's current
stream, on a side stream (torch.cuda.stream), and prints the embedded images and
whether NVRTC was loaded.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helionc_ctypes import HelioncLibrary  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    lib = HelioncLibrary(args.lib)
    torch.manual_seed(0)
    results = []
    ok = True
    for dtype, tol in ((torch.float32, 1e-5), (torch.bfloat16, 2e-2)):
        x = torch.randn(1024, 4096, device="cuda", dtype=dtype)
        want = torch.softmax(x.float(), dim=1)
        # On torch's current stream.
        got = lib.call("softmax", x)
        err = (got.float() - want).abs().max().item()
        results.append({"dtype": str(dtype), "stream": "current", "max_abs_err": err})
        ok &= err <= tol
        # On a side stream: the inputs are ready there first, the result is used after.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            got_side = lib.call("softmax", x)
        torch.cuda.current_stream().wait_stream(side)
        err = (got_side.float() - want).abs().max().item()
        results.append({"dtype": str(dtype), "stream": "side", "max_abs_err": err})
        ok &= err <= tol
    for r in results:
        print(f"softmax {r['dtype']:15} on the {r['stream']:7} stream: max |helionc - torch| "
              f"= {r['max_abs_err']:.3g}")
    images = lib.aot_images()
    print(f"{len(images)} embedded images; NVRTC loaded: {lib.nvrtc_loaded()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "embedded_images": len(images),
                       "nvrtc_loaded": lib.nvrtc_loaded(), "ok": ok}, f, indent=1)
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
