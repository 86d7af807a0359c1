"""fuzz.py's checks beyond helionc's exit code, and what they need: case data (inputs,
shapes, tolerances), the harness code of a kernel's checks, the host check (g++ on the
generated FILE.helion.cpp), the ref-mode check (g++, block sizes 32, 7 and 1) and the
GPU harnesses of --mode gen-gpu."""
import json
import os
import random
import re
import shutil

import gen_attention
from fuzz_common import HERE, ROOT, Batch, run, write

DTYPES = {"f32": "DType::f32", "f16": "DType::f16", "bf16": "DType::bf16"}
MAIN_END = ('  std::printf("%d checks, %d failed, %d rejected\\n", R.checks, R.failures, '
            'R.rejected);\n'
            "  return R.failures ? 1 : 0;\n}")


# --- case data: inputs, shapes, tolerances ---------------------------------------
def case_plan(k, variant_seed, gpu):
    """Input dtypes, scalar values and shapes for kernel k (deterministic), keyed by the
    parameters' roles (x0, idx, s, ...: the same whatever gen_names.py renamed them to)."""
    rng = random.Random(k.seed * 7919 + variant_seed)
    if "attention" in k.templates:
        return gen_attention.case_plan(k, rng, gpu)
    base = rng.choice(["f32", "f32", "f16", "bf16"])
    dts = {}
    for p in k.params:
        if p["kind"] == "float":
            dts[p["role"]] = base if rng.random() < 0.8 else rng.choice(list(DTYPES))
        elif p["kind"] in ("index", "offsets"):
            dts[p["role"]] = rng.choice(["i64", "i32"])
    if "wg" in dts:  # the grouped GEMM takes one dtype for A and B
        dts["wg"] = dts["x0"]
    shapes = [(rng.randint(1, 40), rng.randint(1, 70), rng.randint(1, 20))]
    if gpu:
        shapes.append((rng.randint(1, 300),
                       rng.choice([rng.randint(1, 300), rng.randint(300, 5000)]),
                       rng.randint(1, 64)))
    else:
        shapes.append((rng.randint(1, 12), rng.randint(60, 300), rng.randint(1, 30)))
    if "grouped" in k.templates and gpu:
        # More than 256 rows per group (G <= 4): the row-fitting kernel where it applies.
        shapes.append((rng.randint(1100, 1600), rng.randint(8, 600), rng.randint(8, 300)))
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
    (namespace, case id). Arguments go by position, in locals named after the
    parameters' roles (in_x0, in_s): whatever the kernel calls its parameters, they meet
    none of the harness's own names (M, N, R, want, ...)."""
    lines = [f"void run_{k.name}(fuzz::Runner& R) {{"]
    # (M, N, V), or (M, N, V, B, D) for the attention template's [B, M|N, D] tensors.
    vars_ = ["M", "N", "V", "B", "D"][:len(plan["shapes"][0])]
    lines.append(f"  for (auto [{', '.join(vars_)}] : std::vector<std::tuple<"
                 + ", ".join(["int64_t"] * len(vars_)) + ">>{"
                 + ", ".join("{" + ", ".join(map(str, s)) + "}" for s in plan["shapes"])
                 + "}) {")
    lines.append(f"    std::string shape = fuzz::shapeStr({', '.join(vars_)});")
    lines.append("    [[maybe_unused]] const int64_t G = 1 + (M + V) % 4;")
    args, gargs = [], []
    for p in k.params:
        role = p["role"]
        n = "in_" + role
        if p["kind"] == "float":
            dims = ", ".join(p["dims"])
            lines.append(f"    Tensor {n} = R.rand({{{dims}}}, DType::{plan['dtypes'][role]});")
        elif p["kind"] == "index":
            lines.append(f"    Tensor {n} = R.index({{M}}, V, DType::{plan['dtypes'][role]});")
        elif p["kind"] == "offsets":
            lines.append(f"    Tensor {n} = R.offsets(G, M, DType::{plan['dtypes'][role]});")
        else:
            lines.append(f"    {p['kind']} {n} = {plan[role]};")
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
    ref = f'R.guard("{k.name}/ref", shape, [&] {{ want = fuzz::outs({ref_ns}::{k.name}({call})); ' \
        "have = true; });"
    if gpu:
        lines.append(f"    {ref}")
    else:
        lines.append("    { helion::ref::ScopedBlockSize bs(32);")
        lines.append(f"      {ref} }}")
    lines.append("    if (!have) continue;")
    for ns, cid in targets:
        got = f"{ns}::{k.name}({gcall})" if gpu else f"{ref_ns}::{k.name}({call})"
        check = f'R.guard("{cid}", shape, [&] {{ R.compare("{cid}", shape, want, ' \
            f"fuzz::outs({got}), {tol}); }});"
        if gpu:
            lines.append(f"    {check}")
        else:
            lines.append(f'    {{ helion::ref::ScopedBlockSize bs({ns});')
            lines.append(f"      {check} }}")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines)


# --- host check ------------------------------------------------------------------
HOST_MARK = re.compile(r"^// helionc: .*'(\w+)'|^HELION_KERNEL .*?\b(\w+)\(", re.M)
# FILE:LINE[:COLUMN]: error: (g++ drops the column in very long files)
HOST_ERROR = re.compile(r"^\S*c(\d+)/host/ns\.helion\.cpp:(\d+)(?::\d+)?: error: .*$", re.M)


def host_check(args, d, bi, variants, configs, stats, failures):
    """The host code helionc writes (FILE.helion.cpp: launchers, the kernels' rewritten
    bodies, the C entries) compiles: for each config, the kernels --emit cubin compiled
    go through `helionc compile` without --emit (no NVRTC), then g++ -fsyntax-only
    (HELIONC_C_API defined) takes every config's file at once, each in a namespace.
    When g++ fails, each config's file is checked alone: its first error fails the
    kernel whose launcher, body or entry holds it (the errors after it may follow from
    it), and the file is written and checked again without that kernel."""
    files = {}  # config -> the kernels in its c{j}/host/ns.helion.cpp
    for j, ok, _ in variants:
        if ok and host_code(args, d, bi, j, ok, configs[j], stats, failures):
            files[j] = list(ok)
            stats["host_checks"] += len(ok)
    if not files or host_gxx(d, "host.cpp", list(files), stats)[0] == 0:
        return
    bad = {}  # kernel -> (configs, error lines)
    for j, ks in files.items():
        while ks:
            rc, text = host_gxx(d, f"host_c{j}.cpp", [j], stats)
            m = HOST_ERROR.search(text)
            if rc == 0 or not m:
                if rc != 0:
                    failures.append({"label": f"b{bi:04d}/c{j}/host", "file": d,
                                     "why": f"host: g++ exit {rc} without a located error",
                                     "output": text[-3000:]})
                    stats["failed"] += 1
                break
            with open(os.path.join(d, f"c{j}", "host", "ns.helion.cpp")) as f:
                head = "\n".join(f.read().split("\n")[:int(m.group(2))])
            owner = ([a or b for a, b in HOST_MARK.findall(head)] or [None])[-1]
            k = next((k for k in ks if k.name == owner), None)
            if k is None:
                failures.append({"label": f"b{bi:04d}/c{j}/host", "file": d,
                                 "why": "host: g++ rejected the generated host code outside "
                                        "a kernel's part", "output": text[-3000:]})
                stats["failed"] += 1
                break
            js, lines = bad.setdefault(k, ([], []))
            js.append(j)
            lines.append(f"c{j}" + m.group(0).split("/host/ns")[-1][:300])
            ks = [x for x in ks if x is not k]
            if not ks or not host_code(args, d, bi, j, ks, configs[j], stats, failures):
                break
    for k, (js, lines) in bad.items():
        keep = os.path.join(d, f"c{js[0]}", f"fail_{k.name}")
        write(os.path.join(keep, "k.cpp"), Batch([k]).text)
        write(os.path.join(keep, "config.json"), json.dumps(configs[js[0]][k.name]))
        write(os.path.join(keep, "meta.json"), json.dumps(k.meta(), indent=1))
        failures.append({"label": f"b{bi:04d}/host", "kernel": k.name, "seed": k.seed,
                         "configs": js, "dir": keep, "output": "\n".join(lines),
                         "why": "host: g++ rejected the generated host code"})
        stats["failed"] += 1


def host_code(args, d, bi, j, kernels, configs, stats, failures):
    """c{j}/host/ns.helion.cpp: the host code of `kernels` under config j, its C entries
    (extern "C", one name per kernel) made static; False when helionc fails."""
    hd = os.path.join(d, f"c{j}", "host")
    kfile, cfile = os.path.join(hd, "batch.cpp"), os.path.join(hd, "config.json")
    write(kfile, Batch(kernels).text)
    write(cfile, json.dumps({"kernels": {k.name: configs[k.name] for k in kernels}}))
    rc, text, secs = run([args.helionc, "compile", kfile, "--config", cfile, "-o", hd],
                         args.timeout)
    stats["helionc_calls"] += 1
    stats["helionc_seconds"] += secs
    out = os.path.join(hd, "batch.helion.cpp")
    if rc != 0 or not os.path.isfile(out):
        failures.append({"label": f"b{bi:04d}/c{j}/host", "kernels": [k.name for k in kernels],
                         "rc": str(rc), "output": text[-3000:], "dir": hd,
                         "why": "host: helionc compile without --emit failed where --emit "
                                "cubin compiled"})
        stats["failed"] += len(kernels)
        return False
    with open(out) as f:
        code = f.read()
    write(os.path.join(hd, "ns.helion.cpp"),
          code.replace('extern "C" int helionc_', "static int helionc_"))
    return True


def host_gxx(d, name, configs, stats):
    """g++ -fsyntax-only on d/name: the host code of `configs` in namespaces v0, v1, ...
    after every header they include. Returns (exit code, output)."""
    headers, parts = {}, []
    for j in configs:
        with open(os.path.join(d, f"c{j}", "host", "ns.helion.cpp")) as f:
            headers.update(dict.fromkeys(re.findall(r"^#include <[^>]+>", f.read(), re.M)))
        parts.append(f'namespace v{j} {{\n#include "c{j}/host/ns.helion.cpp"\n}}')
    src = os.path.join(d, name)
    write(src, "\n".join(["#define HELIONC_C_API 1"] + list(headers) + parts) + "\n")
    rc, text, secs = run(["g++", "-std=c++23", "-fsyntax-only", "-w", "-I",
                          os.path.join(ROOT, "include"), src], 600)
    stats["gxx_seconds"] = stats.get("gxx_seconds", 0) + secs
    return rc, text


def ref_check(args, d, kernels, stats, failures):
    """Ref mode with g++: every kernel under block sizes 32 and 7 (and 1)."""
    b = Batch(kernels)
    write(os.path.join(d, "ref", "batch.cpp"), b.text)
    parts = ['#include "harness.h"', "namespace refk {", '#include "batch.cpp"', "}",
             "using fuzz::DType; using fuzz::Tensor;"]
    names = []
    for k in kernels:
        plan = case_plan(k, 0, gpu=False)
        targets = [("7", f"{k.name}/bs7"), ("1", f"{k.name}/bs1")]
        parts.append(harness_case(k, plan, "refk", targets, gpu=False))
        names.append(k.name)
    parts.append("int main() {\n  fuzz::Runner R(1);")
    parts += [f"  run_{n}(R);" for n in names]
    parts.append(MAIN_END)
    src = os.path.join(d, "ref", "harness.cpp")
    write(src, "\n".join(parts) + "\n")
    exe = os.path.join(d, "ref", "harness")
    rc, text, secs = run(["g++", "-std=c++23", "-O1", "-w", "-I", os.path.join(ROOT, "include"),
                          "-I", HERE, "-I", os.path.join(d, "ref"), src, "-o", exe], 600)
    stats["gxx_seconds"] = stats.get("gxx_seconds", 0) + secs
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
                failures.append({"label": f"{d}/ref", "why": "ref mode: " + line[:400],
                                 "kernel": line.split()[1].split("/")[0], "file": src})
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
                 '  if (const char* out = std::getenv("FUZZ_FAILURES"))\n'
                 '    R.log = std::fopen(out, "a");')
    parts += [f"  run_{n}(R);" for n in names]
    parts.append(MAIN_END)
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
            t = t.replace("#ifndef HELIONC_C_API_HELPERS", "#if 1")
            t = t.replace("#define HELIONC_C_API_HELPERS", "")
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


def finish_gen_gpu(args):
    """What the GPU machine needs next to the batches: harness.h and the runtime's
    embedded device library."""
    shutil.copy(os.path.join(HERE, "harness.h"), args.out)
    lib = os.path.join(os.path.dirname(os.path.dirname(args.helionc)), "runtime",
                       "DeviceLibrary.cpp")
    if os.path.isfile(lib):
        shutil.copy(lib, args.out)
    else:
        print(f"warning: {lib} not found (build helionc first)")
