#!/usr/bin/env python3
"""The hottest SASS lines of one profiled kernel (ncu's source page, as CSV).

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SASS.csv
    python3 scripts/ncu_hot_sass.py SASS.csv [--top 40] [--min-executed 0]

Prints the total of warp stall samples and, for the --top lines with the most samples,
the line number, its samples, how often it ran and the instruction; then the lines that
ran most often (the hot loop) in program order with their samples, so that a loop's
critical path (what each wait stalls on) reads top to bottom.
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--loop-share", type=float, default=0.5,
                    help="a line is in the hot loop when it ran at least this share of the "
                         "most executed line's count")
    args = ap.parse_args()
    rows = list(csv.reader(open(args.csv, errors="replace")))
    hdr = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if hdr is None:
        print("no 'Source' column: not ncu's source page", file=sys.stderr)
        return 1
    cols = rows[hdr]
    src = cols.index("Source")
    samples = cols.index("Warp Stall Sampling (All Samples)")
    executed = cols.index("Instructions Executed")

    def num(v):
        try:
            return int(v)
        except ValueError:
            return 0

    lines = [(n, num(r[samples]), num(r[executed]), r[src].strip())
             for n, r in enumerate(rows[hdr + 1:]) if len(r) > max(src, samples, executed)]
    total = sum(s for _, s, _, _ in lines)
    print(f"{rows[0][1] if len(rows[0]) > 1 else ''}")
    print(f"{total} stall samples, {sum(e for _, _, e, _ in lines)} instructions executed")
    print(f"\ntop {args.top} lines by samples (line, samples, share, executed, instruction):")
    for n, s, e, text in sorted(lines, key=lambda x: -x[1])[:args.top]:
        print(f"{n:6d} {s:7d} {100.0 * s / max(total, 1):5.1f}% {e:10d}  {text[:90]}")
    most = max((e for _, _, e, _ in lines), default=0)
    loop = [x for x in lines if most and x[2] >= args.loop_share * most]
    print(f"\nthe hot loop ({len(loop)} lines run at least {args.loop_share:.0%} as often as the "
          f"most run one; {sum(s for _, s, _, _ in loop)} samples):")
    for n, s, e, text in loop:
        print(f"{n:6d} {s:7d} {e:10d}  {text[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
