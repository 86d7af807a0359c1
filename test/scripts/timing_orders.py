#!/usr/bin/env python3
"""benchmarks/timing.py's round_orders (paired_us's order of calls per round), with no
GPU: every round a permutation, the same orders in every run, and no call always after
the same one (session 35 measured a call right after a loop of torch.mm in a rotated
cyclic order running up to 4.8 % faster than the same call elsewhere). Exit 1 on a
failure."""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "benchmarks"))
from expect import expect, finish  # noqa: E402
from timing import round_orders  # noqa: E402


for n in (1, 2, 5, 8):
    orders = round_orders(n, 30)
    expect(len(orders) == 30, f"n={n}: {len(orders)} rounds")
    expect(all(sorted(o) == list(range(n)) for o in orders), f"n={n}: not permutations")
    expect(orders == round_orders(n, 30), f"n={n}: not the same in every run")
    if n >= 5:
        after = collections.Counter((o[j - 1], o[j]) for o in orders for j in range(1, n))
        most = max(after.values())
        expect(most <= 30 // 2, f"n={n}: one call follows another in {most} of 30 rounds")
        firsts = collections.Counter(o[0] for o in orders)
        expect(len(firsts) == n, f"n={n}: only {len(firsts)} different first calls")
finish("timing orders")
