// helion/memory.cuh: global memory accesses.
//
// The emitter's `pointer` indexing: each thread moves 16 bytes at a time
// (ld.global.v4 / st.global.v4) when the innermost dimension is contiguous and
// aligned, and masks tile edges with predicated accesses that produce a default
// value instead of branching. Loads may carry an L2 eviction priority (the
// config's `load_eviction_policies`: "", "first", "last") and may use the
// read-only path (ld.global.nc) for tensors the kernel never writes.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// L2 eviction priority of an access; `normal` emits no hint at all.
enum class Evict { normal, first, last };

/// A createpolicy cache policy covering the whole access (fraction 1.0).
template <Evict E> __device__ __forceinline__ uint64 l2_policy() {
  uint64 policy = 0;
  if constexpr (E == Evict::first)
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  else if constexpr (E == Evict::last)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

namespace detail {

/// 16 bytes as four 32-bit registers; `r` holds the default on entry and is
/// overwritten only when `pred` is true.
template <Evict E, bool NonCoherent>
__device__ __forceinline__ void ld16(uint32 (&r)[4], const void* p, bool pred) {
#define HELION_LD16(QUAL, POLICY_OPERAND)                                                        \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"                                     \
               " @p ld.global" QUAL ".v4.u32 {%0, %1, %2, %3}, [%5]" POLICY_OPERAND ";\n}"       \
               : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3])                                  \
               : "r"((int)pred), "l"(p), "l"(policy))
  uint64 policy = l2_policy<E>();
  if constexpr (NonCoherent && E != Evict::normal)
    HELION_LD16(".nc.L2::cache_hint", ", %6");
  else if constexpr (NonCoherent)
    HELION_LD16(".nc", "");
  else if constexpr (E != Evict::normal)
    HELION_LD16(".L2::cache_hint", ", %6");
  else
    HELION_LD16("", "");
#undef HELION_LD16
}

/// One 1-, 2-, 4- or 8-byte word with the same qualifiers as ld16 (a scalar or narrow
/// vector access of a load with an eviction hint); `r` holds the default on entry.
template <Evict E, bool NonCoherent, int Bytes>
__device__ __forceinline__ void ld_word(uint64& r, const void* p, bool pred) {
  uint64 policy = l2_policy<E>();
  constexpr bool hinted = E != Evict::normal;
#define HELION_LDW(TYPE, CON, VAR)                                                                 \
  if constexpr (NonCoherent && hinted)                                                             \
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global.nc.L2::cache_hint" TYPE \
                 " %0, [%2], %3;\n}" : "+" CON(VAR) : "r"((int)pred), "l"(p), "l"(policy));     \
  else if constexpr (NonCoherent)                                                                  \
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global.nc" TYPE " %0, [%2];\n}" \
                 : "+" CON(VAR) : "r"((int)pred), "l"(p));                                       \
  else if constexpr (hinted)                                                                       \
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global.L2::cache_hint" TYPE \
                 " %0, [%2], %3;\n}" : "+" CON(VAR) : "r"((int)pred), "l"(p), "l"(policy));     \
  else                                                                                             \
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global" TYPE " %0, [%2];\n}"  \
                 : "+" CON(VAR) : "r"((int)pred), "l"(p));
  if constexpr (Bytes == 8) {
    HELION_LDW(".b64", "l", r)
  } else if constexpr (Bytes == 4) {
    uint32 w = static_cast<uint32>(r);
    HELION_LDW(".b32", "r", w)
    r = w;
  } else if constexpr (Bytes == 2) {
    uint16 w = static_cast<uint16>(r);
    HELION_LDW(".b16", "h", w)
    r = w;
  } else {
    static_assert(Bytes == 1, "ld_word: 1, 2, 4 or 8 bytes");
    uint32 w = static_cast<uint32>(r) & 0xffu; // u8 into a 32-bit register, zero-extended
    HELION_LDW(".u8", "r", w)
    r = w & 0xffu;
  }
#undef HELION_LDW
}

template <Evict E>
__device__ __forceinline__ void st16(void* p, const uint32 (&r)[4], bool pred) {
  uint64 policy = l2_policy<E>();
  if constexpr (E != Evict::normal)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
                 " @p st.global.L2::cache_hint.v4.u32 [%5], {%0, %1, %2, %3}, %6;\n}"
                 :: "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"((int)pred), "l"(p),
                    "l"(policy) : "memory");
  else
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
                 " @p st.global.v4.u32 [%5], {%0, %1, %2, %3};\n}"
                 :: "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"((int)pred), "l"(p)
                 : "memory");
}

}  // namespace detail

/// Loads 16 bytes (vec16_width<T> elements) from a 16-byte aligned address.
/// When `pred` is false nothing is read and every element is `other`.
template <Evict E = Evict::normal, bool NonCoherent = false, class T>
__device__ __forceinline__ vec<T, vec16_width<T>> load_vec16(const T* p, bool pred = true,
                                                             T other = T()) {
  union {
    vec<T, vec16_width<T>> v;
    uint32 r[4];
  } u;
#pragma unroll
  for (int i = 0; i < vec16_width<T>; ++i)
    u.v[i] = other;
  detail::ld16<E, NonCoherent>(u.r, p, pred);
  return u.v;
}

/// load_vec16 through the read-only (non-coherent) path: only for tensors that
/// no thread of the kernel writes.
template <Evict E = Evict::normal, class T>
__device__ __forceinline__ vec<T, vec16_width<T>> load_vec16_nc(const T* p, bool pred = true,
                                                                T other = T()) {
  return load_vec16<E, true>(p, pred, other);
}

/// Stores 16 bytes to a 16-byte aligned address when `pred` is true.
template <Evict E = Evict::normal, class T>
__device__ __forceinline__ void store_vec16(T* p, const vec<T, vec16_width<T>>& v,
                                            bool pred = true) {
  union {
    vec<T, vec16_width<T>> v;
    uint32 r[4];
  } u;
  u.v = v;
  detail::st16<E>(p, u.r, pred);
}

/// A masked scalar load: `*p` when `pred`, else `other`; never touches memory
/// when `pred` is false, so `p` may point out of bounds.
template <class T> __device__ __forceinline__ T load(const T* p, bool pred, T other) {
  if constexpr (sizeof(T) == 2) {
    union { T v; uint16 b; } u;
    u.v = other;
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global.b16 %0, [%2];\n}"
                 : "+h"(u.b) : "r"((int)pred), "l"(p));
    return u.v;
  } else if constexpr (sizeof(T) == 4) {
    union { T v; uint32 b; } u;
    u.v = other;
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global.b32 %0, [%2];\n}"
                 : "+r"(u.b) : "r"((int)pred), "l"(p));
    return u.v;
  } else if constexpr (sizeof(T) == 8) {
    union { T v; uint64 b; } u;
    u.v = other;
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %1, 0;\n @p ld.global.b64 %0, [%2];\n}"
                 : "+l"(u.b) : "r"((int)pred), "l"(p));
    return u.v;
  } else {
    return pred ? *p : other;
  }
}

/// The read-only path: `__ldg` semantics, for tensors the kernel never writes.
template <class T> __device__ __forceinline__ T load_nc(const T* p) {
  if constexpr (sizeof(T) == 4) {
    union { T v; uint32 b; } u;
    asm("ld.global.nc.b32 %0, [%1];" : "=r"(u.b) : "l"(p));
    return u.v;
  } else if constexpr (sizeof(T) == 8) {
    union { T v; uint64 b; } u;
    asm("ld.global.nc.b64 %0, [%1];" : "=l"(u.b) : "l"(p));
    return u.v;
  } else if constexpr (sizeof(T) == 2) {
    union { T v; uint16 b; } u;
    asm("ld.global.nc.b16 %0, [%1];" : "=h"(u.b) : "l"(p));
    return u.v;
  } else {
    return *p;
  }
}

/// A masked scalar store: writes only when `pred`.
template <class T> __device__ __forceinline__ void store(T* p, T v, bool pred = true) {
  if (pred)
    *p = v;
}


// ---------------------------------------------------------------------------
// hl::atomic_add: *p += v, atomically (relaxed, device scope, as CUDA's atomicAdd).
// f16 through red.add.f16 (sm_70+), bf16 through red.add.bf16 on sm_90 and a
// compare-and-swap loop on the 32-bit word around it before; i8 and b8 are rejected.
__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int32* p, int32 v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int64* p, int64 v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void atomic_add(f16* p, f16 v) {
  asm volatile("red.relaxed.gpu.add.noftz.f16 [%0], %1;" ::"l"(p), "h"(v.bits) : "memory");
}
__device__ __forceinline__ void atomic_add(bf16* p, bf16 v) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.relaxed.gpu.add.noftz.bf16 [%0], %1;" ::"l"(p), "h"(v.bits) : "memory");
#else
  const uint64 addr = reinterpret_cast<uint64>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uint64(3));
  const unsigned int shift = (addr & 2) ? 16u : 0u;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const bf16 cur{static_cast<uint16>((assumed >> shift) & 0xffffu)};
    const unsigned int sum = to_bf16(to_float(cur) + to_float(v)).bits;
    const unsigned int next = (assumed & ~(0xffffu << shift)) | (sum << shift);
    old = atomicCAS(word, assumed, next);
  } while (old != assumed);
#endif
}
/// The word type of a program's private copy of a tensor that only atomic adds write
/// (privatize-atomics): the tensor's own, float for f16 and bf16 (one rounding, at the
/// flush, and the native shared-memory float add).
template <class T> struct private_acc { typedef T type; };
template <> struct private_acc<f16> { typedef float type; };
template <> struct private_acc<bf16> { typedef float type; };
template <class T> using private_acc_t = typename private_acc<T>::type;

template <class T, class V> __device__ __forceinline__ void atomic_add(T*, V) {
  static_assert(sizeof(T) == 0, "hl::atomic_add: a tensor of this dtype cannot be accumulated "
                                "into atomically (expected f32, f64, f16, bf16, i32 or i64)");
}

/// hl::atomic_add of V consecutive elements p[0..V) += v[0..V) (p aligned to V
/// elements): f32 through vector reductions on sm_90 (red.global.add.v4.f32, one
/// operation per 16 bytes), every other case element by element.
template <int V, class T, class C> __device__ __forceinline__ void atomic_add_vec(T* p, const C (&v)[V]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (is_same_v<T, float> && V % 4 == 0) {
#pragma unroll
    for (int i = 0; i < V; i += 4)
      asm volatile("red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p + i),
                   "f"(float(v[i])), "f"(float(v[i + 1])), "f"(float(v[i + 2])), "f"(float(v[i + 3]))
                   : "memory");
  } else if constexpr (is_same_v<T, float> && V == 2) {
    asm volatile("red.relaxed.gpu.global.add.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(float(v[0])),
                 "f"(float(v[1]))
                 : "memory");
  } else
#endif
  { // (an `else`, not a return above it: NVRTC warns of an unreachable loop)
#pragma unroll
    for (int i = 0; i < V; ++i)
      atomic_add(p + i, from_compute<T>(v[i]));
  }
}

}  // namespace helion::dev
