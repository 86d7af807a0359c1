#!/usr/bin/env python3
"""The wgmma k-loops of a kernel in a SASS dump (`cuobjdump -sass X.cubin`): for each loop
(a backward branch) around an HGMMA and no larger than --max, its instructions, its
R2UR moves (a value that ptxas holds in a per-thread register moved to a uniform one:
before every wgmma when its descriptors are per thread) and its HGMMAs, per k-block.

    cuobjdump -sass k.cubin | python3 scripts/sass_loops.py --kernel _Z19grouped_gemm_kernel

Prints, per kernel whose mangled name starts with --kernel (all kernels without it), its
instruction count and each distinct loop shape with how many loops have it:

    _Z19grouped_gemm_kernel...: 6096 instructions; k-loops: 55 instructions, 2 R2UR, 4 HGMMA (x1)

Session 37 (docs/gemm.md, "Few large groups: the 128 x 256 kernel and its k-loop") read
the grouped kernels this way: the 128 x 256 kernel's loop went from 88 instructions (16
R2UR) to 55 (2); the row-fitting kernel's 32 loops had 77-78 (16), 55-58 (2) since session
38 ("The row-fitting kernel's k-loop in uniform registers"). There is no
disassembler on the build machine: build the cubins there (helionc --emit cubin, or nvcc
-cubin), dump them on the GPU machine (its CUDA toolkit has cuobjdump).
"""
import argparse
import collections
import re
import sys

_FUNCTION = re.compile(r"^\s*Function : (\S+)")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_BRANCH = re.compile(r"\bBRA(?:\.\S+)? (?:\S+, )?(0x[0-9a-f]+)")


def kernels(text):
    """{mangled name: [(address, instruction text)]} of a SASS dump, in dump order."""
    out, name = {}, None
    for line in text.splitlines():
        m = _FUNCTION.match(line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = _INSTRUCTION.match(line)
        if m and name is not None:
            out[name].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def loops(body, limit=400):
    """[(instructions, R2UR, HGMMA)] of the innermost loops in `body` (address, text) that
    hold an HGMMA: from a backward branch's target to the branch, at most `limit`
    instructions, and no other such loop inside (a tile loop around a k-loop is not one)."""
    at = {a: i for i, (a, _) in enumerate(body)}
    spans = set()
    for j, (a, text) in enumerate(body):
        m = _BRANCH.search(text)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target < a and target in at and j + 1 - at[target] <= limit and any(
                "HGMMA" in t for _, t in body[at[target]:j + 1]):
            spans.add((at[target], j))
    inner = [(i, j) for i, j in spans
             if not any((i, j) != (k, l) and i <= k and l <= j for k, l in spans)]
    found = []
    for i, j in sorted(inner):
        loop = [t for _, t in body[i:j + 1]]
        found.append((len(loop), sum(t.split()[0] == "R2UR" for t in loop if t),
                      sum("HGMMA" in t for t in loop)))
    return found


def summary(name, body, limit=400):
    shapes = collections.Counter(loops(body, limit))
    cells = ", ".join(f"{n} instructions, {r} R2UR, {h} HGMMA (x{c})"
                      for (n, r, h), c in sorted(shapes.items()))
    return f"{name}: {len(body)} instructions; k-loops: {cells or 'none'}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sass", nargs="?", help="a cuobjdump -sass dump (default: stdin)")
    ap.add_argument("--kernel", default="", help="mangled names starting with this")
    ap.add_argument("--max", type=int, default=400, help="the longest loop counted")
    args = ap.parse_args()
    text = open(args.sass).read() if args.sass else sys.stdin.read()
    shown = 0
    for name, body in kernels(text).items():
        if name.startswith(args.kernel):
            print(summary(name, body, args.max))
            shown += 1
    if not shown:
        print(f"error: no kernel named {args.kernel}* in the dump", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
