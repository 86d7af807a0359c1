#!/usr/bin/env python3
"""Shrinks a failing fuzz case (kernel file + config) while the failure persists.

  reduce.py DIR/k.cpp --config DIR/config.json --extra "--emit cubin --dtype f16"
  reduce.py DIR/k.cpp --config DIR/config.json --host
  reduce.py k.cpp --config c.json --test "sh check.sh {kernel} {config}"

The default test compiles with helionc (--extra appended) and keeps a candidate
when fuzz.py's classification of the outcome is the same failure as the
original's (say "NVRTC rejected the generated CUDA"); --host keeps it while
g++ -fsyntax-only rejects the FILE.helion.cpp that `helionc compile` (no --emit)
writes (fuzz.py's host check); --test runs a command instead (exit 0 = still
failing), e.g. a GPU harness for a mismatch. Steps, to
a fixed point: config keys reset to the default (dropped), statements and whole
loops deleted, calls `hl::f(a, b)` replaced by one of their arguments, binary
operations by an operand. Writes KERNEL.reduced.cpp and CONFIG.reduced.json.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fuzz  # noqa: E402


def matching(text, i):
    """Index of the bracket closing text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] in "([{":
            depth += 1
        elif text[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_args(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


class Reducer:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="helion-reduce-")
        self.calls = 0
        self.want = None

    def outcome(self, src, cfg):
        kf = os.path.join(self.tmp, "k.cpp")
        cf = os.path.join(self.tmp, "config.json")
        with open(kf, "w") as f:
            f.write(src)
        with open(cf, "w") as f:
            json.dump(cfg, f)
        self.calls += 1
        if self.args.test:
            cmd = self.args.test.replace("{kernel}", kf).replace("{config}", cf)
            rc = subprocess.run(cmd, shell=True, capture_output=True).returncode
            return "fails" if rc == 0 else None
        out = os.path.join(self.tmp, "out")
        if self.args.host:
            rc, text, _ = fuzz.run([self.args.helionc, "compile", kf, "--config", cf, "-o", out],
                                   self.args.timeout)
            if rc != 0:
                return f"helionc exit {rc}"
            rc, text, _ = fuzz.run(["g++", "-std=c++23", "-fsyntax-only", "-w", "-DHELIONC_C_API",
                                    "-I", os.path.join(fuzz.ROOT, "include"),
                                    os.path.join(out, "k.helion.cpp")], self.args.timeout)
            return "host: g++ rejected the generated host code" if rc != 0 else None
        rc, text, _ = fuzz.run([self.args.helionc, "compile", kf, "--config", cf, "-o", out]
                               + shlex.split(self.args.extra), self.args.timeout)
        return fuzz.classify(rc, text, kf, cf)

    def fails(self, src, cfg):
        return self.outcome(src, cfg) == self.want

    def reduce_config(self, src, cfg):
        for key in list(cfg):
            c = {k: v for k, v in cfg.items() if k != key}
            if self.fails(src, c):
                cfg = c
        return cfg

    def statements(self, src):
        """Candidate deletions: (start, end) line ranges of statements and loops in
        the kernel bodies (not the shape line, allocations or returns)."""
        lines = src.split("\n")
        cands = []
        for i, l in enumerate(lines):
            s = l.strip()
            if s.startswith("for ("):
                depth, j = 0, i
                while j < len(lines):
                    depth += lines[j].count("{") - lines[j].count("}")
                    if depth == 0 and lines[j].strip().endswith(("}", ";")):
                        break
                    j += 1
                cands.append((i, j))
            elif s.endswith(";") and \
                    not s.startswith(("return", "auto [", "Tensor ", "#", "using")) \
                    and l.startswith("  "):
                cands.append((i, i))
        return cands

    def reduce_statements(self, src, cfg):
        changed = True
        while changed:
            changed = False
            for a, b in sorted(self.statements(src), key=lambda r: r[0] - r[1]):
                lines = src.split("\n")
                if b >= len(lines):
                    continue
                cand = "\n".join(lines[:a] + lines[b + 1:])
                if self.fails(cand, cfg):
                    src, changed = cand, True
                    break
        return src

    def reduce_exprs(self, src, cfg):
        changed = True
        while changed:
            changed = False
            for m in list(re.finditer(r"hl::(\w+)\(", src)):
                if m.group(1) in ("tile", "grid", "all", "newaxis", "register_block_size",
                                  "block_size", "zeros", "full", "empty"):
                    continue
                open_ = m.end() - 1
                close = matching(src, open_)
                if close < 0:
                    continue
                for arg in split_args(src[open_ + 1:close]):
                    if not arg or arg.startswith("{") or \
                            re.fullmatch(r"-?\d+|true|false|/\*.*", arg):
                        continue
                    cand = src[:m.start()] + "(" + arg + ")" + src[close + 1:]
                    if self.fails(cand, cfg):
                        src, changed = cand, True
                        break
                if changed:
                    break
        return src

    def run(self, src, cfg):
        self.want = self.outcome(src, cfg)
        if self.want is None:
            sys.exit("reduce.py: the case does not fail")
        print(f"failure: {self.want}")
        while True:
            before = (src, json.dumps(cfg))
            cfg = self.reduce_config(src, cfg)
            src = self.reduce_statements(src, cfg)
            src = self.reduce_exprs(src, cfg)
            if (src, json.dumps(cfg)) == before:
                return src, cfg


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernel")
    ap.add_argument("--config", required=True)
    ap.add_argument("--extra", default="--emit cubin --dtype f32",
                    help="more helionc compile arguments")
    ap.add_argument("--host", action="store_true",
                    help="the failure: g++ rejecting the generated FILE.helion.cpp")
    ap.add_argument("--test",
                    help="command: exit 0 while the failure persists ({kernel}, {config})")
    ap.add_argument("--helionc", default=os.path.join(fuzz.ROOT, "build", "bin", "helionc"))
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    os.environ.setdefault("HELIONC_NO_CACHE", "1")
    with open(args.kernel) as f:
        src = f.read()
    with open(args.config) as f:
        cfg = json.load(f)
    if "kernels" in cfg and len(cfg) == 1 and len(cfg["kernels"]) == 1:
        cfg = next(iter(cfg["kernels"].values()))
    r = Reducer(args)
    src, cfg = r.run(src, cfg)
    base = os.path.splitext(args.kernel)[0]
    with open(base + ".reduced.cpp", "w") as f:
        f.write(src)
    with open(os.path.splitext(args.config)[0] + ".reduced.json", "w") as f:
        json.dump(cfg, f)
    print(src)
    print(json.dumps(cfg))
    print(f"{r.calls} tries; wrote {base}.reduced.cpp")


if __name__ == "__main__":
    main()
