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
                  generated CUDA, or a timeout. Also builds each batch in ref mode
                  with g++ and runs every kernel under block sizes 32 and 7: results
                  must agree (and no kernel may throw).
  --mode gen-gpu  (here) host-rewrites every case into --out (.carry/fuzz) with a
                  harness per batch comparing the compiled kernels with ref mode on
                  the GPU machine: scripts/fuzz_gpu.sh builds and runs them there.

Kernels of the attention template (gen_attention.py) take q [B, M, D] and k, v
[B, N, D] in bf16 or f16 (one dtype): their shapes are (M, N, V, B, D) with D 64 or
128 (small on the CPU, ragged and up to 1100 x 1100 for the GPU), one tolerance per
output (out 2e-2 bf16 / 1e-2 f16, lse 1e-3), configs mostly by the attention rules
(gen_attention.sample_config); in cubin mode a batch holding one compiles with
q, k, v in f16 or bf16 (--dtype f32,q=..,k=..,v=.. when the draw is f32) and
--specialize 64 or 128.

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
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import gen_attention  # noqa: E402

DTYPES = {"f32": "DType::f32", "f16": "DType::f16", "bf16": "DType::bf16"}


def parse_seeds(s):
    """A..B (inclusive), or a comma list of seeds and ranges: 3,8,20..22."""
    seeds = []
    for part in s.split(","):
        a, _, b = part.partition("..")
        seeds += range(int(a), int(b or a) + 1)
    return seeds


# --- case data: inputs, shapes, tolerances ---------------------------------------
def case_plan(k, variant_seed, gpu):
    """Input dtypes, scalar values and shapes for kernel k (deterministic)."""
    rng = random.Random(k.seed * 7919 + variant_seed)
    if "attention" in k.templates:
        return gen_attention.case_plan(k, rng, gpu)
    base = rng.choice(["f32", "f32", "f16", "bf16"])
    dts = {}
    for p in k.params:
        if p["kind"] == "float":
            dts[p["name"]] = base if rng.random() < 0.8 else rng.choice(list(DTYPES))
        elif p["kind"] in ("index", "offsets"):
            dts[p["name"]] = rng.choice(["i64", "i32"])
    if "wg" in dts:  # the grouped GEMM takes one dtype for A and B
        dts["wg"] = dts["x0"]
    shapes = [(rng.randint(1, 40), rng.randint(1, 70), rng.randint(1, 20))]
    if gpu:
        shapes.append((rng.randint(1, 300), rng.choice([rng.randint(1, 300), rng.randint(300, 5000)]),
                       rng.randint(1, 64)))
    else:
        shapes.append((rng.randint(1, 12), rng.randint(60, 300), rng.randint(1, 30)))
    if "grouped" in k.templates:
        # TMA and cp.async need 16-byte aligned rows of x0 [M, N], wg [G, N, V] and the
        # output [M, V]: N and V multiples of 8 (a located launcher error otherwise).
        shapes = [(m, max(8, n // 8 * 8), max(8, v // 8 * 8)) for m, n, v in shapes]
    worst = "f32"
    for d in list(dts.values()) + [o["dtype"] for o in k.outputs]:
        if "f16" in d and worst == "f32":
            worst = "f16"
        if "bf16" in d:
            worst = "bf16"
    if k.half:
        worst = "bf16"
    tol = {"f32": 1e-4, "f16": 1e-2, "bf16": 3e-2}[worst]
    return {"dtypes": dts, "s": rng.choice([0.75, 1.25]), "k": rng.choice([2, -1]),
            "shapes": shapes, "tol": tol}


def harness_case(k, plan, ref_ns, targets, gpu):
    """C++ of one kernel's checks: inputs per shape, the reference, then each target
    (namespace, case id)."""
    lines = [f"void run_{k.name}(fuzz::Runner& R) {{"]
    # (M, N, V), or (M, N, V, B, D) for the attention template's [B, M|N, D] tensors.
    vars_ = ["M", "N", "V", "B", "D"][:len(plan["shapes"][0])]
    lines.append(f"  for (auto [{', '.join(vars_)}] : std::vector<std::tuple<"
                 + ", ".join(["int64_t"] * len(vars_)) + ">>{"
                 + ", ".join("{" + ", ".join(map(str, s)) + "}" for s in plan["shapes"]) + "}) {")
    lines.append(f"    std::string shape = fuzz::shapeStr({', '.join(vars_)});")
    lines.append("    [[maybe_unused]] const int64_t G = 1 + (M + V) % 4;")
    args, gargs = [], []
    for p in k.params:
        n = p["name"]
        if p["kind"] == "float":
            dims = ", ".join(p["dims"])
            lines.append(f"    Tensor {n} = R.rand({{{dims}}}, DType::{plan['dtypes'][n]});")
        elif p["kind"] == "index":
            lines.append(f"    Tensor {n} = R.index({{M}}, V, DType::{plan['dtypes'][n]});")
        elif p["kind"] == "offsets":
            lines.append(f"    Tensor {n} = R.offsets(G, M, DType::{plan['dtypes'][n]});")
        else:
            lines.append(f"    {p['kind']} {n} = {plan[n]};")
        args.append(n)
        if p["kind"] in ("float", "index", "offsets"):
            lines.append(f"    Tensor {n}_g = {'fuzz::gpu(' + n + ')' if gpu else n};")
            gargs.append(f"{n}_g")
        else:
            gargs.append(n)
    call = ", ".join(args)
    # One tolerance, or one per output (the attention template: out and lse).
    tol = plan["tol"]
    tol = "std::vector<double>{" + ", ".join(map(repr, tol)) + "}" if isinstance(tol, list) else tol
    gcall = ", ".join(gargs)
    lines.append("    std::vector<Tensor> want;")
    lines.append("    bool have = false;")
    if gpu:
        lines.append(f'    R.guard("{k.name}/ref", shape, [&] {{ want = fuzz::outs({ref_ns}::{k.name}({call})); have = true; }});')
    else:
        lines.append("    { helion::ref::ScopedBlockSize bs(32);")
        lines.append(f'      R.guard("{k.name}/ref", shape, [&] {{ want = fuzz::outs({ref_ns}::{k.name}({call})); have = true; }}); }}')
    lines.append("    if (!have) continue;")
    for ns, cid in targets:
        if gpu:
            lines.append(f'    R.guard("{cid}", shape, [&] {{ R.compare("{cid}", shape, want, fuzz::outs({ns}::{k.name}({gcall})), {tol}); }});')
        else:
            lines.append(f'    {{ helion::ref::ScopedBlockSize bs({ns});')
            lines.append(f'      R.guard("{cid}", shape, [&] {{ R.compare("{cid}", shape, want, fuzz::outs({ref_ns}::{k.name}({call})), {tol}); }}); }}')
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines)


# --- running helionc -----------------------------------------------------------
ERR_RE = re.compile(r"^(.*?):(\d+):(\d+): error: ", re.M)


def run(cmd, timeout, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", out, time.monotonic() - t0


def classify(rc, text, kfile, cfgfile):
    """None when (rc, text) is an acceptable outcome, else why not."""
    if rc == "timeout":
        return "timeout"
    if rc < 0:
        return f"killed by signal {-rc}"
    if rc not in (0, 1):
        return f"exit code {rc}"
    if "internal compiler error" in text:
        return "internal compiler error"
    if "NVRTC failed" in text or "nvrtc" in text.lower() and rc == 1 and "error" in text.lower() \
            and "NVRTC" in text:
        return "NVRTC rejected the generated CUDA"
    if rc == 1:
        located = any(os.path.basename(m.group(1)) == os.path.basename(kfile)
                      for m in ERR_RE.finditer(text))
        config = cfgfile and (os.path.basename(cfgfile) in text) and "error" in text
        if not located and not config:
            return "exit 1 without a located diagnostic"
    return None


def error_lines(text, kfile):
    return sorted({int(m.group(2)) for m in ERR_RE.finditer(text)
                   if os.path.basename(m.group(1)) == os.path.basename(kfile)})


class Batch:
    """Kernels of one file, with the line span of each."""

    def __init__(self, kernels):
        self.kernels = kernels
        self.text = gen.kernel_file(kernels)
        self.spans = {}
        line = gen.PRELUDE.count("\n") + 1
        for k in kernels:
            n = k.source.count("\n")
            self.spans[k.name] = (line, line + n)
            line += n + 1

    def owner(self, lineno):
        for name, (a, b) in self.spans.items():
            if a <= lineno <= b:
                return name
        return None


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def batch_extra(kernels, extra):
    """`extra` for these kernels: a --dtype naming q, k, v (for attention kernels) loses
    those names when no attention kernel is left (helionc rejects a name no kernel has)."""
    if "--dtype" not in extra or any("attention" in k.templates for k in kernels):
        return extra
    e = list(extra)
    i = e.index("--dtype") + 1
    e[i] = e[i].split(",")[0]
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
        # An acceptable exit 1: drop the kernels the diagnostics point into.
        names = {b.owner(l) for l in error_lines(text, kfile)} - {None}
        m = re.findall(r"kernels\.(k_\d+)", text)
        names |= set(m)
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
    """One batch: spec, configs, compiles; in cubin mode also the ref-mode check."""
    stats = {"helionc_calls": 0, "helionc_seconds": 0.0, "passed": 0, "failed": 0, "rejected": 0,
             "cases": 0, "ref_checks": 0}
    failures = []
    d = os.path.join(args.out, f"b{bi:04d}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    kernels = [gen.kernel(s) for s in seeds]
    kernels, specs = specs_for(args.helionc, kernels, os.path.join(d, "spec"), args.timeout, stats, failures)
    rng = random.Random(hash(tuple(seeds)) & 0xffffffff)
    rng = random.Random(seeds[0] * 1000003 + len(seeds))
    variants = []
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
                # 128 (hl::specialize); the batch's other kernels keep `dtype`.
                if dtype == "f32":
                    qkv = rng.choice(["f16", "bf16"])
                    extra[3] = f"f32,q={qkv},k={qkv},v={qkv}"
                extra += ["--specialize", str(rng.choice([64, 128]))]
        else:
            extra = []
        ok, kfile = compile_batch(args.helionc, kernels, cfgs, vd, extra, args.timeout, stats, failures,
                                  f"b{bi:04d}/c{j}")
        variants.append((j, ok, kfile))
    result = {"stats": stats, "failures": failures, "kernels": [k.name for k in kernels]}
    if mode == "cubin" and kernels and not args.no_ref:
        ref_check(args, d, kernels, stats, failures)
    if mode == "gen-gpu":
        write_gpu_harness(args, d, bi, kernels, variants)
        result["gpu_cases"] = sum(len(ok) for _, ok, _ in variants)
    return result


def ref_check(args, d, kernels, stats, failures):
    """Ref mode with g++: every kernel under block sizes 32 and 7 (and 1)."""
    b = Batch(kernels)
    write(os.path.join(d, "ref", "batch.cpp"), b.text)
    parts = ['#include "harness.h"', "namespace refk {", '#include "batch.cpp"', "}",
             "using fuzz::DType; using fuzz::Tensor;"]
    names = []
    for k in kernels:
        plan = case_plan(k, 0, gpu=False)
        parts.append(harness_case(k, plan, "refk", [("7", f"{k.name}/bs7"), ("1", f"{k.name}/bs1")], gpu=False))
        names.append(k.name)
    parts.append("int main() {\n  fuzz::Runner R(1);")
    parts += [f"  run_{n}(R);" for n in names]
    parts.append('  std::printf("%d checks, %d failed\\n", R.checks, R.failures);\n  return R.failures ? 1 : 0;\n}')
    src = os.path.join(d, "ref", "harness.cpp")
    write(src, "\n".join(parts) + "\n")
    exe = os.path.join(d, "ref", "harness")
    rc, text, secs = run(["g++", "-std=c++23", "-O1", "-w", "-I", os.path.join(ROOT, "include"),
                          "-I", HERE, "-I", os.path.join(d, "ref"), src, "-o", exe], 600)
    stats["gxx_seconds"] = secs
    if rc != 0:
        failures.append({"label": f"{d}/ref", "why": "ref mode: g++ failed", "rc": str(rc),
                         "output": text[-3000:], "file": src})
        stats["failed"] += 1
        return
    rc, text, secs = run([exe], 300)
    stats["ref_checks"] += text.count("\nok ") + text.startswith("ok ") + text.count("FAIL ")
    if rc != 0:
        for line in text.splitlines():
            if line.startswith("FAIL"):
                failures.append({"label": f"{d}/ref", "why": "ref mode: " + line[:400], "file": src})
                stats["failed"] += 1


# --- GPU harness -----------------------------------------------------------------
def write_gpu_harness(args, d, bi, kernels, variants):
    """harness.cpp for the GPU machine: the ref-mode source and each variant's
    .helion.cpp in namespaces; relative includes only (the folder moves)."""
    parts = ['#include "harness.h"', "namespace refk {", '#include "ref/batch.cpp"', "}"]
    write(os.path.join(d, "ref", "batch.cpp"), Batch(kernels).text)
    for j, ok, kfile in variants:
        if ok:
            parts += [f"namespace v{j} {{", f'#include "c{j}/batch.helion.cpp"', "}"]
    parts.append("using fuzz::DType; using fuzz::Tensor;")
    names = []
    for k in kernels:
        targets = [(f"v{j}", f"b{bi:04d}/c{j}/{k.name}") for j, ok, _ in variants if k in ok]
        if not targets:
            continue
        plan = case_plan(k, 1, gpu=True)
        parts.append(harness_case(k, plan, "refk", targets, gpu=True))
        names.append(k.name)
    parts.append("int main() {\n  fuzz::poisonDeviceAllocations();\n"
                 f"  fuzz::Runner R({bi + 1});\n"
                 '  if (const char* out = std::getenv("FUZZ_FAILURES")) R.log = std::fopen(out, "a");')
    parts += [f"  run_{n}(R);" for n in names]
    parts.append('  std::printf("%d checks, %d failed\\n", R.checks, R.failures);\n  return R.failures ? 1 : 0;\n}')
    write(os.path.join(d, "harness.cpp"), "\n".join(parts) + "\n")
    # Each variant's .helion.cpp goes into a namespace of its own: its C API entry
    # points (extern "C", one name per kernel) become static, its helper namespace
    # is not shared through the include guard.
    for j, ok, _ in variants:
        p = os.path.join(d, f"c{j}", "batch.helion.cpp")
        if ok and os.path.isfile(p):
            with open(p) as f:
                t = f.read()
            t = t.replace('extern "C" int helionc_', "static int helionc_")
            t = t.replace("#ifndef HELIONC_C_API_HELPERS", "#if 1").replace("#define HELIONC_C_API_HELPERS", "")
            with open(p, "w") as f:
                f.write(t)
    # Only what the GPU machine needs stays.
    for j, ok, _ in variants:
        vd = os.path.join(d, f"c{j}")
        for f in os.listdir(vd):
            p = os.path.join(vd, f)
            if os.path.isdir(p) and not f.startswith("fail_"):
                shutil.rmtree(p)
            elif f.endswith(".cu"):  # embedded in the .helion.cpp too
                os.remove(p)
    shutil.rmtree(os.path.join(d, "spec"), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["cubin", "gen-gpu"], default="cubin")
    ap.add_argument("--seeds", default="0..99")
    ap.add_argument("--batch", type=int, default=8, help="kernels per file")
    ap.add_argument("--configs", type=int, default=3, help="configs per kernel (the first: default)")
    ap.add_argument("--helionc", default=os.path.join(ROOT, "build", "bin", "helionc"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per helionc call")
    ap.add_argument("--no-ref", action="store_true", help="skip the ref-mode g++ check")
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
             "helionc_seconds": 0.0, "ref_checks": 0, "gpu_cases": 0}
    rejections = {}
    failures = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(do_batch, args, i, b, args.mode) for i, b in enumerate(batches)]
        for f in cf.as_completed(futs):
            r = f.result()
            for key in total:
                total[key] += r["stats"].get(key, 0) if key != "gpu_cases" else r.get("gpu_cases", 0)
            for key, v in r["stats"].get("rejections", {}).items():
                rejections[key] = rejections.get(key, 0) + v
            failures += r["failures"]
            for fl in r["failures"]:
                print(f"failed {fl.get('label')} {fl.get('kernel', fl.get('kernels', ''))}: {fl['why']}",
                      flush=True)
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
    print(f"{args.mode}: {total['cases']} kernel x config cases ({len(seeds)} kernels), "
          f"{total['passed']} compiled, {total['rejected']} rejected with a diagnostic, "
          f"{len(failures)} failed, {len(open_bugs)} known; {total['ref_checks']} ref-mode checks; "
          f"{total['helionc_calls']} helionc calls; {secs:.1f} s")
    if args.mode == "gen-gpu":
        print(f"gen-gpu: {total['gpu_cases']} cases for the GPU in {args.out}")
    if rejections:
        print("rejections: " + "; ".join(f"{v}x {k}" for k, v in sorted(rejections.items(), key=lambda x: -x[1])))
    if total["cases"] < args.min_cases:
        print(f"FAIL: only {total['cases']} cases, expected at least {args.min_cases}")
        return 1
    for f in failures:
        print(f"FAIL {f.get('label')} {f.get('kernel', f.get('kernels', ''))}: {f['why']} "
              f"({f.get('dir', f.get('file', ''))})")
    return 1 if failures else 0


def finish_gen_gpu(args):
    """What the GPU machine needs next to the batches: harness.h and the runtime's
    embedded device library."""
    shutil.copy(os.path.join(HERE, "harness.h"), args.out)
    lib = os.path.join(os.path.dirname(os.path.dirname(args.helionc)), "runtime", "DeviceLibrary.cpp")
    if os.path.isfile(lib):
        shutil.copy(lib, args.out)
    else:
        print(f"warning: {lib} not found (build helionc first)")


if __name__ == "__main__":
    sys.exit(main())
