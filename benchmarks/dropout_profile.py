#!/usr/bin/env python3
"""Calls examples/dropout.cpp's kernel and torch's F.dropout on the same bf16 and f32
8192 x 8192 inputs, twice each, for a profiler (ncu) to read the kernels' counters:

    ncu --clock-control none --metrics ... python3 benchmarks/dropout_profile.py --libdir BUILD/py

BUILD/py holds libdropout.so (examples/python/build.sh). Prints nothing of its own
but the kernels' names in the order they ran."""
import argparse
import ctypes
import os
import sys

import torch
import torch.nn.functional as F

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
from helionc_ctypes import HelioncLibrary  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--libdir", required=True)
args = ap.parse_args()
lib = HelioncLibrary(os.path.join(args.libdir, "libdropout.so"))
for dt in (torch.bfloat16, torch.float32):
    x = (torch.rand(8192, 8192, device="cuda") + 0.5).to(dt)
    for _ in range(2):
        lib.call("dropout", x, ctypes.c_float(0.25), 1234567)
        F.dropout(x, 0.25, training=True)
    torch.cuda.synchronize()
    print(f"dropout {dt}: helionc, torch, helionc, torch")
