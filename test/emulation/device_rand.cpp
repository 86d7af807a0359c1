// The device library's hl::rand (runtime/device/helion/random.cuh) compiled for the CPU
// against a shim of the few CUDA intrinsics it uses (__umulhi, __int2float_rn,
// __fmul_rn: IEEE round-to-nearest, as on the GPU) and compared bit for bit with ref
// mode's hl::rand (include/helion/hl/random.h) over seeds and offsets, negative and
// above 2^32 included, one offset at a time and through a RandStream. CI has no GPU; scripts/lang3_gpu_check.sh checks the GPU itself.
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <type_traits>
#define __device__
#define __host__
#define __forceinline__ inline
#define asm(...) ((void)0) // the f16/bf16 conversions of types.cuh, unused here
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
inline float __int_as_float(int u) { float f; std::memcpy(&f, &u, 4); return f; }
#include "helion/random.cuh"
#include <helion/hl/random.h>
int main() {
  int bad = 0;
  unsigned long long seeds[] = {0, 1, 42, 0x123456789abcdefULL, ~0ULL};
  long long far[] = {1LL << 32, (1LL << 32) + 5, 0x7fffffffffffffffLL, -(1LL << 40)};
  for (auto s : seeds)
    for (long long o : far) {
      float g = helion::dev::rand_uniform((long long)s, o);
      float r = helion::detail::randAt(s, (unsigned long long)o);
      bad += std::memcmp(&g, &r, 4) != 0;
    }
  for (auto s : seeds)
    for (long long o = -3; o < 200000; o += 7) {
      float g = helion::dev::rand_uniform((long long)s, o);
      float r = helion::detail::randAt(s, (unsigned long long)o);
      bad += std::memcmp(&g, &r, 4) != 0;
    }
  // A RandStream walking offsets in the orders a thread meets them: consecutive (one
  // Philox per four), strided, backwards, and jumping between seeds.
  for (auto s : seeds)
    for (long long step : {1LL, 2LL, 3LL, 5LL, -1LL, 1LL << 33}) {
      helion::dev::RandStream rs;
      for (long long i = 0; i < 5000; ++i) {
        long long o = -7 + i * step;
        float g = rs.uniform((long long)s, o);
        float r = helion::detail::randAt(s, (unsigned long long)o);
        bad += std::memcmp(&g, &r, 4) != 0;
      }
    }
  helion::dev::RandStream rs;
  for (long long o = 0; o < 64; ++o) {
    unsigned long long s = seeds[o % 5];
    float g = rs.uniform((long long)s, o / 3);
    float r = helion::detail::randAt(s, (unsigned long long)(o / 3));
    bad += std::memcmp(&g, &r, 4) != 0;
  }
  // Runs of V consecutive offsets (a thread's vector run) at every alignment, the
  // wrap past 2^64 included.
  auto runs = [&](auto vtag) {
    constexpr int V = decltype(vtag)::value;
    for (auto s : seeds)
      for (long long o0 : {0LL, 1LL, 2LL, 3LL, 4LL, 8191LL, 8192LL, (1LL << 32) - 2, -6LL, -4LL}) {
        helion::dev::RandStream rs;
        float r[V];
        rs.uniform_run<V>((long long)s, o0, r);
        for (int v = 0; v < V; ++v) {
          float want = helion::detail::randAt(s, (unsigned long long)o0 + v);
          bad += std::memcmp(&r[v], &want, 4) != 0;
        }
      }
  };
  runs(std::integral_constant<int, 1>{});
  runs(std::integral_constant<int, 2>{});
  runs(std::integral_constant<int, 4>{});
  runs(std::integral_constant<int, 8>{});
  runs(std::integral_constant<int, 16>{});
  printf("%d mismatches\n", bad);
  return bad != 0;
}
