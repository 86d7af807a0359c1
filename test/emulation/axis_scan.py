#!/usr/bin/env python3
"""The generic kernels' axis_scan_excl (runtime/device/helion/generic_scan.cuh) run on the CPU.

CI has no GPU, so this test takes the scan helper's CUDA text out of the header, compiles
it with the host C++ compiler against a small shim (one std::thread per CUDA thread;
__shfl_up_sync, __shfl_sync and __syncthreads as barriers over a shared exchange
buffer, lanes as a warp of 32 sees them) and checks it against a sequential scan for
the axis shapes the layout produces: T threads ST apart inside one warp, across warps,
with replicated threads, and three calls in a row (the alternating smem_raw buffers).

    python3 test/emulation/axis_scan.py --cxx g++ --header runtime/device/helion/generic_scan.cuh --work DIR
"""
import argparse
import os
import subprocess
import sys

SHIM = r'''
#include <barrier>
#include <cstring>
#include <cstdio>
#include <thread>
#include <vector>
#include <cstdint>
#include <random>
#define __device__
#define __forceinline__
struct Dim3 { unsigned x; };
thread_local Dim3 threadIdx;
static std::barrier<>* bar;
static unsigned char slots[4096 * 16];
template <class C> C __shfl_up_sync(unsigned, C v, int delta) {
  int tid = threadIdx.x; std::memcpy(slots + tid * 16, &v, sizeof(C)); bar->arrive_and_wait();
  int lane = tid % 32; C r = v; if (lane - delta >= 0) std::memcpy(&r, slots + (tid - delta) * 16, sizeof(C));
  bar->arrive_and_wait(); return r; }
template <class C> C __shfl_sync(unsigned, C v, int src) {
  int tid = threadIdx.x; std::memcpy(slots + tid * 16, &v, sizeof(C)); bar->arrive_and_wait();
  C r; std::memcpy(&r, slots + ((tid / 32) * 32 + src % 32) * 16, sizeof(C)); bar->arrive_and_wait(); return r; }
void __syncthreads() { bar->arrive_and_wait(); }
struct OpSum { template <class C> C operator()(C a, C b) const { return a + b; }
  template <class C> static C identity() { return C(0); } };
'''

TEST = r'''// One axis of T threads, stride ST, in a CTA of NT threads: each thread's v = f(tid);
// expected exclusive scan over th of the thread's own group (the other coordinates fixed).
template <int T, int ST, int NT> int run(std::mt19937& rng) {
  std::vector<long long> v(NT), excl(NT), total(NT);
  for (auto& x : v) x = rng() % 1000;
  double smem[2][NT];
  std::barrier b(NT); bar = &b;
  std::vector<std::thread> ts;
  for (int t = 0; t < NT; ++t) ts.emplace_back([&, t] {
    threadIdx.x = t; int red_phase = 0; long long tot;
    long long e = axis_scan_excl<T, ST>(v[t], OpSum(), (long long*)smem[red_phase++ & 1], tot);
    // a second call, as consecutive rounds do (the other buffer)
    long long tot2; long long e2 = axis_scan_excl<T, ST>(v[t] * 3, OpSum(), (long long*)smem[red_phase++ & 1], tot2);
    long long tot3; long long e3 = axis_scan_excl<T, ST>(v[t] * 5, OpSum(), (long long*)smem[red_phase++ & 1], tot3);
    if (e2 != 3 * e || tot2 != 3 * tot || e3 != 5 * e || tot3 != 5 * tot) { excl[t] = -1; return; }
    excl[t] = e; total[t] = tot; });
  for (auto& th : ts) th.join();
  int bad = 0;
  for (int t = 0; t < NT; ++t) {
    int th = (t / ST) % T, base = t - th * ST;
    long long want = 0, all = 0;
    for (int j = 0; j < T; ++j) { long long x = v[base + j * ST]; if (j < th) want += x; all += x; }
    if (excl[t] != want || total[t] != all) ++bad;
  }
  printf("T=%d ST=%d NT=%d: %s\n", T, ST, NT, bad ? "FAIL" : "ok");
  return bad;
}
int main() {
  std::mt19937 rng(1); int bad = 0;
  bad += run<1, 1, 32>(rng);
  bad += run<8, 1, 32>(rng);
  bad += run<32, 1, 32>(rng);
  bad += run<32, 1, 128>(rng);
  bad += run<128, 1, 128>(rng);
  bad += run<512, 1, 512>(rng);
  bad += run<4, 8, 64>(rng);
  bad += run<8, 4, 256>(rng);
  bad += run<16, 4, 256>(rng);
  bad += run<64, 4, 256>(rng);
  bad += run<4, 32, 256>(rng);
  bad += run<2, 64, 256>(rng);
  bad += run<16, 16, 256>(rng);
  bad += run<2, 1, 64>(rng);
  return bad != 0;
}
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--header", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    text = open(args.header).read()
    scan = text[text.index("/// The exclusive scan of v"):]  # the function, without the includes
    os.makedirs(args.work, exist_ok=True)
    src = os.path.join(args.work, "axis_scan_emulation.cpp")
    exe = os.path.join(args.work, "axis_scan_emulation")
    with open(src, "w") as f:
        f.write(SHIM + scan + TEST)
    subprocess.run([args.cxx, "-std=c++20", "-O1", "-pthread", src, "-o", exe], check=True)
    return subprocess.run([exe]).returncode


if __name__ == "__main__":
    sys.exit(main())
