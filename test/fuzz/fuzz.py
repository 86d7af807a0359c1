#!/usr/bin/env python3
"""Differential fuzzing of helionc against ref mode.

Kernels come from gen.py (deterministic per seed), several per file ("batch")
so that one Clang parse serves them all; each batch is compiled under
--configs random configs sampled from `helionc spec` (one config per kernel,
through the {"kernels": {...}} config form). A case is one kernel x config.

  --mode cubin    (CI, no GPU) every case through `helionc compile --emit cubin`:
                  passes on exit 0 with a cubin per kernel, or exit 1 with a located
                  diagnostic (FILE:L:C: error: in the kernel file, or a config error
                  naming its key). Fails on a signal, another exit code, "internal
                  compiler error", exit 1 without a diagnostic, NVRTC rejecting the
                  generated CUDA, or a timeout. Then the host check (--no-host skips
                  it): the kernels that compiled, under the same configs, through
                  `helionc compile` without --emit, and g++ -fsyntax-only on the
                  FILE.helion.cpp of every config (launchers, rewritten bodies, C
                  entries): a g++ error fails the kernel it is in. Also builds each
                  batch in ref mode with g++ and runs every kernel under block sizes
                  32 and 7: results must agree (and no kernel may throw).
  --mode gen-gpu  (here) host-rewrites every case into --out (.carry/fuzz) with a
                  harness per batch comparing the compiled kernels with ref mode on
                  the GPU machine: scripts/fuzz_gpu.sh builds and runs them there.

A kernel in four is renamed (gen_names.py): its parameters and locals take names the
compiler generates itself (pid, v, acc, T_t0, row, epi, threadIdx, min, ...), so a
collision with a generated identifier fails a case; the names include the host
launchers' and entries' own locals (kSource, found, args, grid, a0, stream, M, N, ...),
which the host check catches. A failure lists its
kernels' names ("names": {kernel: {role: name}} in summary.json, "names:" on its line;
fail_KERNEL/meta.json). The harnesses pass arguments by position from locals named
after the roles (in_x0, in_s), so no kernel name meets a harness name.

Kernels of the attention template (gen_attention.py) take q [B, M, D] and k, v
[B, N, D] in bf16 or f16 (one dtype): their shapes are (M, N, V, B, D) with D 64 or
128 (small on the CPU, ragged and up to 1100 x 1100 for the GPU), one tolerance per
output (out 2e-2 bf16 / 1e-2 f16, lse 1e-3), configs mostly by the attention rules
(gen_attention.sample_config); in cubin mode a batch holding one compiles with
q, k, v in f16 or bf16 (--dtype f32,q=..,k=..,v=.. when the draw is f32, under the
tensors' names when renamed) and --specialize 64 or 128.

Seeds: --seeds A..B (inclusive) gives the kernels k_A .. k_B; --seeds 3,8,20..22 a list.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import random
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import gen_attention  # noqa: E402
import gen_names  # noqa: E402
from fuzz_checks import finish_gen_gpu, host_check, ref_check, write_gpu_harness  # noqa: E402
# reduce.py calls fuzz.run, fuzz.classify and fuzz.ROOT.
from fuzz_common import (ROOT, Batch, classify, error_lines, names_note,  # noqa: E402,F401
                         names_of, run, write)


def parse_seeds(s):
    """A..B (inclusive), or a comma list of seeds and ranges: 3,8,20..22."""
    seeds = []
    for part in s.split(","):
        a, _, b = part.partition("..")
        seeds += range(int(a), int(b or a) + 1)
    return seeds


def batch_extra(kernels, extra):
    """`extra` for these kernels. do_batch writes a --dtype that gives attention kernels
    their q, k, v dtype by role (f32,q=f16,k=f16,v=f16): here the roles become the names
    of these kernels' attention tensors (gen_names.py may have renamed them), and go when
    no attention kernel is left (helionc rejects a name no kernel has). Where such a name
    is another kernel's index tensor, the whole file takes q's dtype instead (index
    tensors keep i64)."""
    if "--dtype" not in extra:
        return extra
    e = list(extra)
    i = e.index("--dtype") + 1
    base, *roles = e[i].split(",")
    if not roles:
        return extra
    qkv = roles[0].split("=")[1]
    names = [k.param(r) for k in kernels if "attention" in k.templates for r in "qkv"]
    ints = {p["name"] for k in kernels for p in k.params if p["kind"] in ("index", "offsets")}
    if ints & set(names):
        e[i] = qkv
    else:
        e[i] = ",".join([base] + [f"{n}={qkv}" for n in dict.fromkeys(names)])
    return e


def compile_batch(helionc, kernels, configs, d, extra, timeout, stats, failures, label):
    """Compiles `kernels` (each with configs[name]) in one helionc call; on an
    acceptable exit 1 drops the kernels the diagnostics point into (or, for a
    config error, the kernel it names) and retries. Returns the kernels compiled
    and the path of the last file."""
    kernels = list(kernels)
    while kernels:
        b = Batch(kernels)
        kfile = os.path.join(d, "batch.cpp")
        cfile = os.path.join(d, "config.json")
        write(kfile, b.text)
        write(cfile, json.dumps({"kernels": {k.name: configs[k.name] for k in kernels}}, indent=1))
        rc, text, secs = run([helionc, "compile", kfile, "--config", cfile, "-o", d]
                             + batch_extra(kernels, extra), timeout)
        stats["helionc_calls"] += 1
        stats["helionc_seconds"] += secs
        why = classify(rc, text, kfile, cfile)
        if why:
            # The kernel responsible: named by NVRTC's error, located by a diagnostic,
            # else found by compiling each alone.
            names = set(re.findall(r"NVRTC failed for kernel '(\w+)'", text))
            names |= {b.owner(l) for l in error_lines(text, kfile)} - {None}
            culprits = [(k, why, rc, text) for k in kernels if k.name in names]
            if not culprits and len(kernels) == 1:
                culprits = [(kernels[0], why, rc, text)]
            for k in kernels if not culprits else []:
                sub = os.path.join(d, f"single_{k.name}")
                kf, cf_ = os.path.join(sub, "batch.cpp"), os.path.join(sub, "config.json")
                write(kf, Batch([k]).text)
                write(cf_, json.dumps({"kernels": {k.name: configs[k.name]}}))
                rc2, text2, _ = run([helionc, "compile", kf, "--config", cf_, "-o", sub]
                                    + batch_extra([k], extra), timeout)
                stats["helionc_calls"] += 1
                why2 = classify(rc2, text2, kf, cf_)
                if why2:
                    culprits.append((k, why2, rc2, text2))
            if not culprits:  # fails together only: report the batch
                failures.append({"label": label, "kernels": [k.name for k in kernels], "why": why,
                                 "rc": str(rc), "output": text[-3000:], "dir": d})
                stats["failed"] += len(kernels)
                return [], kfile
            for k, w, rc2, t2 in culprits:
                keep = os.path.join(d, f"fail_{k.name}")
                write(os.path.join(keep, "k.cpp"), Batch([k]).text)
                write(os.path.join(keep, "config.json"), json.dumps(configs[k.name]))
                write(os.path.join(keep, "meta.json"), json.dumps(k.meta(), indent=1))
                failures.append({"label": label, "kernel": k.name, "seed": k.seed, "why": w,
                                 "rc": str(rc2), "extra": batch_extra([k], extra), "dir": keep,
                                 "output": t2[-3000:]})
                stats["failed"] += 1
            bad = {c[0].name for c in culprits}
            kernels = [k for k in kernels if k.name not in bad]
            continue
        if rc == 0:
            if "--emit" in extra:
                # batch.KERNEL.DTYPE[.nSIZE].cubin
                missing = [k for k in kernels
                           if not glob.glob(os.path.join(d, f"batch.{k.name}.*.cubin"))]
                for k in missing:
                    failures.append({"label": label, "kernel": k.name, "seed": k.seed,
                                     "why": "exit 0 without a cubin", "output": text[-2000:]})
                stats["failed"] += len(missing)
                stats["passed"] += len(kernels) - len(missing)
                return [k for k in kernels if k not in missing], kfile
            stats["passed"] += len(kernels)
            return kernels, kfile
        # An acceptable exit 1: drop the kernels the diagnostics point into (or that the
        # instantiation's own static_assert rejected: NVRTC names the kernel).
        names = {b.owner(l) for l in error_lines(text, kfile)} - {None}
        m = re.findall(r"kernels\.(k_\d+)", text)
        names |= set(m)
        names |= set(re.findall(r"NVRTC failed for kernel '(\w+)'", text))
        if not names:
            names = {kernels[0].name} if len(kernels) == 1 else set()
        if not names:
            failures.append({"label": label, "kernels": [k.name for k in kernels],
                             "why": "exit 1 naming no kernel", "output": text[-3000:]})
            stats["failed"] += len(kernels)
            return [], kfile
        for n in names:
            stats["rejected"] += 1
            stats.setdefault("rejections", {})
            msg = re.search(r"error: (.*)", text)
            key = (msg.group(1) if msg else "?")[:80]
            stats["rejections"][key] = stats["rejections"].get(key, 0) + 1
        kernels = [k for k in kernels if k.name not in names]
    return [], None


def specs_for(helionc, kernels, d, timeout, stats, failures):
    """Parsed `helionc spec` of the kernels (dropping the ones the frontend rejects)."""
    kernels = list(kernels)
    while kernels:
        b = Batch(kernels)
        kfile = os.path.join(d, "batch.cpp")
        write(kfile, b.text)
        rc, text, secs = run([helionc, "spec", kfile], timeout)
        stats["helionc_calls"] += 1
        stats["helionc_seconds"] += secs
        why = classify(rc, text, kfile, None)
        if why:
            failures.append({"label": "spec", "kernels": [k.name for k in kernels], "why": why,
                             "rc": str(rc), "output": text[-3000:], "file": kfile})
            stats["failed"] += len(kernels)
            return [], {}
        if rc == 0:
            return kernels, gen.parse_spec(text)
        names = {b.owner(l) for l in error_lines(text, kfile)} - {None}
        if not names:
            failures.append({"label": "spec", "kernels": [k.name for k in kernels],
                             "why": "exit 1 naming no kernel", "output": text[-3000:]})
            return [], {}
        for n in names:
            # The generator writes kernels ref mode runs (checked on its own): the
            # frontend rejecting one means the two disagree on what is legal.
            stats["frontend_rejected"] = stats.get("frontend_rejected", 0) + 1
            msg = re.search(r"error: (.*)", text)
            key = (msg.group(1) if msg else "?")[:80]
            stats.setdefault("rejections", {})
            stats["rejections"][key] = stats["rejections"].get(key, 0) + 1
            failures.append({"label": "spec", "kernels": [n], "kernel": n,
                             "why": "helionc rejected a kernel ref mode accepts",
                             "output": text[-3000:], "file": kfile})
            stats["failed"] += 1
        kernels = [k for k in kernels if k.name not in names]
    return [], {}


def do_batch(args, bi, seeds, mode):
    """One batch: spec, configs, compiles; in cubin mode also the host and ref-mode
    checks."""
    stats = {"helionc_calls": 0, "helionc_seconds": 0.0, "passed": 0, "failed": 0,
             "rejected": 0, "cases": 0, "ref_checks": 0, "host_checks": 0}
    failures = []
    d = os.path.join(args.out, f"b{bi:04d}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    every = [gen.kernel(s) for s in seeds]
    kernels, specs = specs_for(args.helionc, every, os.path.join(d, "spec"), args.timeout,
                               stats, failures)
    rng = random.Random(seeds[0] * 1000003 + len(seeds))
    variants = []
    configs = {}
    for j in range(args.configs):
        cfgs = {}
        for k in kernels:
            spec = specs.get(k.name)
            if not spec or j == 0:
                cfgs[k.name] = {}
            elif "attention" in k.templates:
                cfgs[k.name] = gen_attention.sample_config(spec, rng, gen.sample_config)
            else:
                cfgs[k.name] = gen.sample_config(spec, rng)
        dtype = rng.choice(["f32", "f16", "bf16"])
        attention = any("attention" in k.templates for k in kernels)
        vd = os.path.join(d, f"c{j}")
        stats["cases"] += len(kernels)
        if mode == "cubin":
            extra = ["--emit", "cubin", "--dtype", dtype,
                     "--size-hint", str(rng.choice([64, 128, 256]))]
            if attention:
                # Flash attention takes bf16 or f16 q, k, v (one dtype) and head dim 64 or
                # 128 (hl::specialize); the batch's other kernels keep `dtype`. q, k, v
                # are roles here: batch_extra names the kernels' tensors.
                if dtype == "f32":
                    qkv = rng.choice(["f16", "bf16"])
                    extra[3] = f"f32,q={qkv},k={qkv},v={qkv}"
                extra += ["--specialize", str(rng.choice([64, 128]))]
        else:
            extra = []
        ok, kfile = compile_batch(args.helionc, kernels, cfgs, vd, extra, args.timeout, stats,
                                  failures, f"b{bi:04d}/c{j}")
        variants.append((j, ok, kfile))
        configs[j] = cfgs
    result = {"stats": stats, "failures": failures, "kernels": [k.name for k in kernels]}
    if mode == "cubin" and not args.no_host:
        host_check(args, d, bi, variants, configs, stats, failures)
    if mode == "cubin" and kernels and not args.no_ref:
        ref_check(args, d, kernels, stats, failures)
    if mode == "gen-gpu":
        write_gpu_harness(args, d, bi, kernels, variants)
        result["gpu_cases"] = sum(len(ok) for _, ok, _ in variants)
    # A failure shows the names gen_names.py gave its kernels: {kernel: {role: name}}.
    for f in failures:
        names = names_of(k for k in every if k.name in [f.get("kernel")] + f.get("kernels", []))
        if names:
            f["names"] = names
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["cubin", "gen-gpu"], default="cubin")
    ap.add_argument("--seeds", default="0..99")
    ap.add_argument("--batch", type=int, default=8, help="kernels per file")
    ap.add_argument("--configs", type=int, default=3,
                    help="configs per kernel (the first: default)")
    ap.add_argument("--helionc", default=os.path.join(ROOT, "build", "bin", "helionc"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per helionc call")
    ap.add_argument("--no-ref", action="store_true", help="skip the ref-mode g++ check")
    ap.add_argument("--no-host", action="store_true",
                    help="skip the host check (g++ -fsyntax-only on FILE.helion.cpp)")
    ap.add_argument("--min-cases", type=int, default=0, help="fail when fewer cases ran")
    ap.add_argument("--known", help="JSON {kernel: failure} of open bugs: reported, not failing")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    args.helionc = os.path.abspath(args.helionc)
    os.environ.setdefault("HELIONC_NO_CACHE", "1")
    os.environ["NO_COLOR"] = "1"
    seeds = parse_seeds(args.seeds)
    if args.mode == "gen-gpu":
        shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out, exist_ok=True)
    batches = [seeds[i:i + args.batch] for i in range(0, len(seeds), args.batch)]
    t0 = time.monotonic()
    total = {"passed": 0, "failed": 0, "rejected": 0, "cases": 0, "helionc_calls": 0,
             "helionc_seconds": 0.0, "ref_checks": 0, "host_checks": 0, "gpu_cases": 0,
             "renamed": sum(1 for s in seeds if gen.kernel(s).names)}
    rejections = {}
    failures = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(do_batch, args, i, b, args.mode) for i, b in enumerate(batches)]
        for f in cf.as_completed(futs):
            r = f.result()
            for key in total:
                total[key] += r["stats"].get(key, 0) if key != "gpu_cases" \
                    else r.get("gpu_cases", 0)
            for key, v in r["stats"].get("rejections", {}).items():
                rejections[key] = rejections.get(key, 0) + v
            failures += r["failures"]
            for fl in r["failures"]:
                print(f"failed {fl.get('label')} {fl.get('kernel', fl.get('kernels', ''))}: "
                      f"{fl['why']}{names_note(fl)}", flush=True)
    secs = time.monotonic() - t0
    known = {}
    if args.known:
        with open(args.known) as f:
            known = {k: v for k, v in json.load(f).items() if not k.startswith("#")}
    open_bugs = [f for f in failures if known.get(f.get("kernel")) == f["why"]]
    failures = [f for f in failures if f not in open_bugs]
    for f in open_bugs:
        print(f"KNOWN {f.get('label')} {f['kernel']}: {f['why']} (an open bug, --known)")
    summary = {"mode": args.mode, "seeds": args.seeds, "seconds": round(secs, 1), **total,
               "rejections": rejections, "failures": failures, "known": open_bugs}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    if args.mode == "gen-gpu":
        finish_gen_gpu(args)
    print(f"{args.mode}: {total['cases']} kernel x config cases ({len(seeds)} kernels, "
          f"{total['renamed']} renamed), {total['passed']} compiled, {total['rejected']} "
          f"rejected with a diagnostic, {len(failures)} failed, {len(open_bugs)} known; "
          f"{total['host_checks']} host-checked; {total['ref_checks']} ref-mode checks; "
          f"{total['helionc_calls']} helionc calls; {secs:.1f} s")
    if args.mode == "gen-gpu":
        print(f"gen-gpu: {total['gpu_cases']} cases for the GPU in {args.out}")
    if rejections:
        print("rejections: " + "; ".join(
            f"{v}x {k}" for k, v in sorted(rejections.items(), key=lambda x: -x[1])))
    if total["cases"] < args.min_cases:
        print(f"FAIL: only {total['cases']} cases, expected at least {args.min_cases}")
        return 1
    for f in failures:
        print(f"FAIL {f.get('label')} {f.get('kernel', f.get('kernels', ''))}: {f['why']} "
              f"({f.get('dir', f.get('file', ''))}){names_note(f)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
