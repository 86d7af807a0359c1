"""GPU timing shared by the benchmark and check scripts (torch CUDA events).

bench_ms(fn, runs, warmup, calls): the median over `runs` of the time of `calls`
back-to-back calls of fn(), per call, in milliseconds. calls > 1 overlaps the host's
per-call work (Python, ctypes, the launcher's checks) with the previous call's kernel,
as in a real stream of calls.

bench_us(fn): triton.testing.do_bench's median (one call between L2 flushes, the
tuner's method) in microseconds, or bench_ms's when Triton is missing.

paired_us(fns, rounds): the functions timed alternately, one call each per round after
an L2 flush, in an order shuffled every round (round_orders), so that the clock changes of
a card that heats through the run fall on all of them alike, and so does what the call
before does to the clock: in a fixed cyclic order (rotated each round, as before session
35) the call right after a loop of torch.mm ran 0.7-4.8 % faster than the same call
elsewhere in the order (an H200, the grouped GEMM check). Returns the median µs of each,
per function the median over rounds of its time over fns[0]'s time in the same round, and
every round's times (µs, per function).
"""
import random
import statistics

try:
    import torch
except ImportError:  # round_orders needs no torch (test/scripts/timing_orders.py)
    torch = None


def bench_ms(fn, runs=30, warmup=5, calls=1):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(calls):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / calls)
    return statistics.median(times)


def bench_us(fn):
    try:
        from triton.testing import do_bench
        return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3
    except Exception:  # noqa: BLE001 - no Triton: CUDA events
        return bench_ms(fn, runs=30, warmup=5) * 1e3


def round_orders(n, rounds, seed=0):
    """Per round, the order of n functions: a permutation shuffled by a seeded generator
    (the same orders in every run), so each function follows each other about equally
    often."""
    rng = random.Random(seed)
    orders = []
    for _ in range(rounds):
        order = list(range(n))
        rng.shuffle(order)
        orders.append(order)
    return orders


def paired_us(fns, rounds=30, warmup=3):
    flush = torch.empty(64 * 2**20, dtype=torch.int32, device="cuda")  # 256 MB > L2
    for fn in fns:
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    times = [[] for _ in fns]
    for order in round_orders(len(fns), rounds):
        events = []
        for i in order:
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fns[i]()
            e.record()
            events.append((i, s, e))
        torch.cuda.synchronize()
        for i, s, e in events:
            times[i].append(s.elapsed_time(e) * 1e3)
    medians = [statistics.median(t) for t in times]
    ratios = [statistics.median(t / b for t, b in zip(ts, times[0])) for ts in times]
    return medians, ratios, times
