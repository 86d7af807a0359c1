#!/usr/bin/env python3
"""Every config the spec offers compiles, and every key it offers changes the code.

For each kernel of the given files (by default every examples/*.cpp), with a fixed seed:

 1. `helionc spec FILE --sample N --seed S --variants B` draws N configs the way the
    tuner does (config::randomConfig) and, from the default config and the first B
    samples, every one-key variant the tuner's genes reach (tune::SearchSpace, kept
    when config::isCandidate accepts it, as the search keeps them).
 2. One `helionc compile --config ALL.json` emits them all (one unshaped entry each);
    when it rejects one (its note names the entry), that one is left out and the rest
    compiled again. Every rejection of a config the spec produced is a failure.
 3. The generated code of each entry is its launchers in FILE.helion.cpp (the CUDA
    source is embedded there, with the long-rows variant and the launch geometry),
    with the entry number and the `// config:` comments taken out. For each key entry
    (`num_warps`, `indexing[1]`, ...) and base config, the variants that change only
    it must not all give the base's code: "claims an effect but changes nothing".
 4. A subset (M distinct codes per kernel, samples first) is compiled by NVRTC to
    sm_90a cubins, in parallel, each must exit 0 and write a CUDA ELF.

Usage: random_configs.py --helionc BIN --out DIR [--samples N] [--variants B]
                         [--seed S] [--cubins M] [-j J] [FILE.cpp ...]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import struct
import subprocess
import sys
import time

EM_CUDA = 190

# Keys whose effect depends on what the emitter derives from the whole config, which
# config::canonicalize does not model, with where that is documented. From a base where
# none of their values changes the code they are accepted; a key entry that changes
# nothing from every base tried still fails.
CONDITIONAL = {
    "load_eviction_policies": "configs/README.md: a hint applies to loads the layout reads "
                              "as vectors (the load's last dim is the program's innermost)",
}


# Kernels of integer tensors only (bitwise operators): their cubins' dtypes.
INT_KERNELS = {"hash_bucket": ["i32", "i64"]}


def run(cmd, timeout=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def config_key(c):
    return json.dumps(c, sort_keys=True)


def split_launchers(host, kernel):
    """Entry number -> its generated code: the launcher sections of FILE.helion.cpp
    (each starts with a `// helionc: ` line) that define helionc_launch_K_eN[...], with
    the entry number and the config comments (which name every key) normalized away."""
    out = {}
    sections = re.split(r"(?m)^(?=// helionc: )", host)
    name = re.compile(r"helionc_launch_" + re.escape(kernel) + r"_e(\d+)")
    for sec in sections:
        m = name.search(sec)
        if not m or not sec.startswith("// helionc: launcher"):
            continue
        entry = int(m.group(1))
        text = name.sub("helionc_launch_" + kernel + "_eN", sec)
        text = "\n".join(l for l in text.split("\n") if not l.startswith("// config: "))
        out[entry] = out.get(entry, "") + text
    return out


class Kernel:
    def __init__(self, source, data):
        self.source = source
        self.name = data["kernel"]
        self.default = data["default"]
        self.samples = data["samples"]
        self.variants = data["variants"]
        # Distinct configs, each compiled once: the default, samples, variants (raw and
        # canonical).
        self.configs = []
        self.index = {}
        for c in [self.default] + self.samples + [v[k] for v in self.variants
                                                  for k in ("config", "raw")]:
            self.add(c)
        self.code = {}       # config index -> generated code
        self.rejected = {}   # config index -> stderr
        self.compiles = 0

    def add(self, c):
        k = config_key(c)
        if k not in self.index:
            self.index[k] = len(self.configs)
            self.configs.append(c)
        return self.index[k]

    def code_of(self, c):
        return self.code.get(self.index[config_key(c)])

    def label(self):
        return f"{os.path.basename(self.source)}:{self.name}"


def compile_entries(args, k, indices, out_dir):
    """Emits configs `indices` of kernel k with one helionc compile per rejection: the
    note `in entry N of ...` names the rejected entry, which is left out of the next run."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "configs.json")
    while indices:
        with open(path, "w") as f:
            json.dump({"configs": [{"config": k.configs[i]} for i in indices]}, f)
        p = run([args.helionc, "compile", k.source, "--kernel", k.name, "--config", path, "-o",
                 out_dir])
        k.compiles += 1
        if p.returncode == 0:
            break
        m = re.search(r"note: in entry (\d+) of ", p.stderr)
        e = int(m.group(1)) if m else 0
        if not m and len(indices) > 1:
            k.rejected[indices[0]] = "(no entry named) " + p.stderr.strip()
            return
        k.rejected[indices[e]] = (p.stderr or p.stdout).strip()
        indices = indices[:e] + indices[e + 1:]
    if not indices:
        return
    stem = os.path.splitext(os.path.basename(k.source))[0]
    with open(os.path.join(out_dir, stem + ".helion.cpp")) as f:
        sections = split_launchers(f.read(), k.name)
    for e, i in enumerate(indices):
        if e not in sections:
            k.rejected[i] = f"no launcher helionc_launch_{k.name}_e{e} in the host file"
        else:
            k.code[i] = sections[e]


def check_cubin(path, kernel):
    if not os.path.isfile(path):
        return f"{path}: no cubin written"
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or struct.unpack_from("<H", data, 18)[0] != EM_CUDA:
        return f"{path}: not a CUDA ELF"
    if (kernel + "_kernel").encode() not in data:
        return f"{path}: no symbol of '{kernel}_kernel'"
    return None


def cubin_job(args, k, i, n, dtype):
    out_dir = os.path.join(args.out, "cubin", k.name, str(n))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "config.json")
    with open(path, "w") as f:
        json.dump(k.configs[i], f)
    start = time.monotonic()
    cmd = [args.helionc, "compile", k.source, "--kernel", k.name, "--config", path, "--emit",
           "cubin", "--dtype", dtype, "-o", out_dir]
    p = run(cmd)
    seconds = time.monotonic() - start
    stem = os.path.splitext(os.path.basename(k.source))[0]
    err = None
    if p.returncode != 0:
        err = f"exit {p.returncode}:\n{p.stderr.strip()}"
    else:
        # Named by instantiation: STEM.KERNEL.DTYPE[.SIZE].cubin (one per --dtype).
        # The chain template's program (STEM.KERNEL.DTYPE.chain.kK.vDV.cubin) is not it.
        found = sorted(f for f in glob.glob(os.path.join(out_dir, f"{stem}.{k.name}.{dtype}*.cubin"))
                       if ".chain." not in f)
        err = check_cubin(found[0] if found else os.path.join(out_dir, f"{stem}.{k.name}.{dtype}.cubin"),
                          k.name)
    return k, i, dtype, seconds, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--helionc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--examples", help="check every .cpp file with a kernel in this folder")
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--variants", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cubins", type=int, default=4, help="cubins per kernel")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = list(args.files)
    if args.examples:
        files += sorted(f for f in glob.glob(os.path.join(args.examples, "*.cpp"))
                        if "HELION_KERNEL" in open(f).read())
    start = time.monotonic()
    failures = []

    def sample(source):
        p = run([args.helionc, "spec", source, "--sample", str(args.samples), "--seed",
                 str(args.seed), "--variants", str(args.variants)])
        if p.returncode != 0:
            return source, None, p.stderr
        return source, [json.loads(l) for l in p.stdout.splitlines() if l.strip()], None

    kernels = []
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        for source, data, err in pool.map(sample, files):
            if data is None:
                failures.append(f"{source}: helionc spec --sample failed:\n{err}")
                continue
            kernels += [Kernel(source, d) for d in data]
        futures = [pool.submit(compile_entries, args, k, list(range(len(k.configs))),
                               os.path.join(args.out, "emit", k.name)) for k in kernels]
        for f in futures:
            f.result()
    emitted = time.monotonic()

    # (a) Rejections.
    for k in kernels:
        for i, err in sorted(k.rejected.items()):
            failures.append(f"{k.label()}: the spec offered {json.dumps(k.configs[i])}, "
                            f"and helionc compile rejected it:\n{err}")

    # (b) Keys that claim an effect but change nothing, and canonical forms that
    # change the code.
    noop_paths, same_paths, unsound = {}, {}, {}
    for k in kernels:
        bases = [k.default] + k.samples
        groups = {}
        for v in k.variants:
            base = k.code_of(bases[v["base"] + 1])
            raw, canon = k.code_of(v["raw"]), k.code_of(v["config"])
            if base is None or raw is None or canon is None:
                continue  # rejected: reported above
            if raw != canon:
                unsound.setdefault((k.label(), v["path"]), []).append(v)
            if v["offered"]:
                groups.setdefault((v["base"], v["path"]), []).append((v, canon != base))
        effective = set()
        for (b, path), tried in sorted(groups.items()):
            if any(changed for _, changed in tried):
                effective.add(path)
            else:
                noop_paths.setdefault((k.label(), path), []).append((b, tried))
            for v, changed in tried:
                if not changed and path.split("[")[0] not in CONDITIONAL:
                    same_paths.setdefault((k.label(), path), []).append(v)
        for path in effective:
            if path.split("[")[0] in CONDITIONAL:
                noop_paths.pop((k.label(), path), None)

    def where(b):
        return "the default config" if b < 0 else f"sample {b}"

    for (label, path), cases in sorted(noop_paths.items()):
        b, tried = cases[0]
        failures.append(f"{label}: key {path} claims an effect but changes nothing: from "
                        f"{where(b)} ({len(cases)} base(s) in all), none of its "
                        f"{len(tried)} other value(s) changes the code; e.g. "
                        f"{json.dumps(tried[0][0]['config'])}")
    for (label, path), vs in sorted(same_paths.items()):
        if (label, path) in noop_paths:
            continue
        failures.append(f"{label}: {len(vs)} value(s) of {path} the spec offers give the code "
                        f"of their base (the tuner would measure it twice), e.g. from "
                        f"{where(vs[0]['base'])}: {json.dumps(vs[0]['config'])}")
    for (label, path), vs in sorted(unsound.items()):
        failures.append(f"{label}: {len(vs)} config(s) changed in {path} do not give the code of "
                        f"their canonical form (config::canonicalize is wrong), e.g. "
                        f"{json.dumps(vs[0]['raw'])} vs {json.dumps(vs[0]['config'])}")

    # (c) Cubins of a subset: distinct codes, samples first, dtypes in turn.
    jobs = []
    for k in kernels:
        dtypes = (["bf16", "f16"] if "attention" in k.name
                  else INT_KERNELS.get(k.name, ["bf16", "f32", "f16"]))
        seen, picked = set(), []
        order = [k.index[config_key(c)] for c in [k.default] + k.samples]
        order += [k.index[config_key(v["config"])] for v in k.variants if v["offered"]]
        for i in order:
            if i in k.code and k.code[i] not in seen and len(picked) < args.cubins:
                seen.add(k.code[i])
                picked.append(i)
        jobs += [(k, i, n, dtypes[n % len(dtypes)]) for n, i in enumerate(picked)]
    slowest = []
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        for k, i, dtype, seconds, err in pool.map(lambda j: cubin_job(args, *j), jobs):
            slowest.append((seconds, k.label(), dtype))
            if err:
                failures.append(f"{k.label()}: NVRTC ({dtype}) of {json.dumps(k.configs[i])}:"
                                f" {err}")
    end = time.monotonic()

    n_configs = sum(len(k.configs) for k in kernels)
    n_variants = sum(len(k.variants) for k in kernels)
    n_offered = sum(sum(v["offered"] for v in k.variants) for k in kernels)
    for k in kernels:
        distinct = len({k.code[i] for i in k.code})
        offered = sum(v["offered"] for v in k.variants)
        print(f"{k.label()}: {len(k.configs)} configs ({len(k.samples)} samples, "
              f"{len(k.variants)} one-key variants, {offered} of them offered), "
              f"{len(k.rejected)} rejected, {distinct} distinct codes, {k.compiles} helionc runs")
    slowest.sort(reverse=True)
    print(f"{len(kernels)} kernels, {n_configs} configs emitted ({n_variants} one-key variants, "
          f"{n_offered} offered) "
          f"in {emitted - start:.1f} s; {len(jobs)} cubins in {end - emitted:.1f} s (slowest: "
          + ", ".join(f"{l} {d} {s:.1f} s" for s, l, d in slowest[:3]) + ")")
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print(f"{len(failures)} failures, {end - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
