#!/usr/bin/env python3
"""Compiles one kernel to sm_90a cubins with NVRTC under each config of a suite.

A suite (test/cubin/<name>.json) names a kernel file, the kernel, the dtypes and
the variants: each a config (omitted = the kernel's default config), an
optional --size-hint and an optional --specialize (hl::specialize'd values). Every (variant, dtype) pair runs

    helionc compile FILE --kernel K [--config C] --emit cubin --dtype D -o DIR

and must exit 0 and write a CUDA ELF (e_machine EM_CUDA) that defines the
kernel's symbol. A suite with "expect_error" instead checks that compile fails
with exit 1 and that diagnostic text (a construct the emitter does not lower).

Usage: compile_cubins.py --helionc BIN --out DIR SUITE.json
Paths in a suite are relative to the suite's folder; %examples is the repository's
examples/ folder.
"""
import argparse
import glob
import json
import os
import struct
import subprocess
import sys
import time

EM_CUDA = 190


def check_cubin(path, kernel):
    """Returns an error message, or None when `path` is a cubin defining `kernel`."""
    if not os.path.isfile(path):
        return f"{path}: no cubin written"
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        return f"{path}: not an ELF file"
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine != EM_CUDA:
        return f"{path}: e_machine {machine}, expected {EM_CUDA} (EM_CUDA)"
    # The mangled name of `add_kernel<...>` contains `add_kernel`.
    if (kernel + "_kernel").encode() not in data:
        return f"{path}: no symbol of '{kernel}_kernel'"
    return None


def dtype_label(spec):
    """The file-name label of a --dtype spec, as helionc writes it (dtypeSpecLabel):
    `bf16,out=i64,idx=i32` -> `bf16.idx-i32.out-i64` (named tensors in name order)."""
    rest = [part for part in spec.split(",") if "=" not in part]
    named = sorted(tuple(part.split("=", 1)) for part in spec.split(",") if "=" in part)
    return ".".join(rest + [f"{name}-{dtype}" for name, dtype in named])


def resolve(path, suite_dir, examples):
    return path.replace("%examples", examples) if "%examples" in path else os.path.join(suite_dir, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--helionc", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("suite")
    args = ap.parse_args()

    with open(args.suite) as f:
        suite = json.load(f)
    suite_dir = os.path.dirname(os.path.abspath(args.suite))
    source = resolve(suite["file"], suite_dir, args.examples)
    kernel = suite["kernel"]
    os.makedirs(args.out, exist_ok=True)
    failures = []
    runs = 0
    start = time.monotonic()

    def helionc(extra, out_dir, arch=None):
        cmd = [args.helionc, "compile", source, "--kernel", kernel, "--arch", arch or args.arch,
               "-o", out_dir] + extra
        return cmd, subprocess.run(cmd, capture_output=True, text=True)

    if "expect_error" in suite:
        cmd, p = helionc(["--emit", "cubin"], args.out)
        runs += 1
        if p.returncode != 1 or suite["expect_error"] not in p.stderr or "internal" in p.stderr:
            failures.append(f"{' '.join(cmd)}\n  expected exit 1 and '{suite['expect_error']}', "
                            f"got exit {p.returncode}:\n{p.stdout}{p.stderr}")
    for variant in suite.get("variants", []):
        name = variant["name"]
        extra = []
        if "config" in variant:
            cfg = os.path.join(args.out, name + ".json")
            with open(cfg, "w") as f:
                json.dump(variant["config"], f)
            extra += ["--config", cfg]
        if "size_hint" in variant:
            extra += ["--size-hint", str(variant["size_hint"])]
        if "specialize" in variant:
            extra += ["--specialize", str(variant["specialize"])]
        for dtype in variant.get("dtypes", suite["dtypes"]):
            label = dtype_label(dtype)
            out_dir = os.path.join(args.out, f"{name}-{label}")
            # STEM.KERNEL.DTYPE[.nSIZE][.sVALUE].cubin: one instantiation per file.
            pattern = os.path.join(
                out_dir, f"{os.path.splitext(os.path.basename(source))[0]}.{kernel}.{label}*.cubin")
            for old in glob.glob(pattern):
                os.remove(old)
            t0 = time.monotonic()
            cmd, p = helionc(extra + ["--emit", "cubin", "--dtype", dtype], out_dir,
                             variant.get("arch"))
            # A kernel with two chained dots also writes the chain template's program
            # (STEM.KERNEL.DTYPE.chain.kK.vDV.cubin) where it applies: a variant lists
            # the dtypes it expects one for in "chain" and none for the others.
            written = [w for w in glob.glob(pattern) if ".chain." not in w]
            chains = [w for w in glob.glob(pattern) if ".chain." in w]
            cubin = written[0] if len(written) == 1 else pattern
            runs += 1
            problem = (f"exit {p.returncode}" if p.returncode != 0 else check_cubin(cubin, kernel))
            if not problem and dtype in variant.get("chain", []):
                problem = (check_cubin(chains[0], kernel + "_chain") if len(chains) == 1
                           else f"expected one chain cubin, found {chains}")
            elif not problem and chains:
                problem = f"unexpected chain cubins {chains}"
            status = "FAIL" if problem else "ok"
            print(f"{status:4} {kernel} {name} {dtype} ({time.monotonic() - t0:.1f} s)"
                  f"{': ' + p.stdout.strip() if not problem else ''}")
            if problem:
                failures.append(f"{' '.join(cmd)}\n  {problem}\n{p.stdout}{p.stderr}")
    print(f"{kernel}: {runs} compiles, {len(failures)} failed, {time.monotonic() - start:.1f} s")
    for failure in failures:
        print("\nFAILED: " + failure, file=sys.stderr)
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
