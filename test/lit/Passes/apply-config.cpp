// REQUIRES: frontend
// RUN: echo '{"block_sizes": [32]}' > %t.json
// RUN: %helionc compile %s --config %t.json --stop-after apply-config | FileCheck %s
// RUN: %helionc compile %s --stop-after apply-config | FileCheck %s --check-prefix=DEFAULT
// RUN: %helionc compile %s --config %t.json --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: echo '{"reduction_loops": [1024]}' > %t.rl.json
// RUN: %helionc compile %examples/sum.cpp --config %t.rl.json --stop-after apply-config | FileCheck %s --check-prefix=LOOPED
// RUN: %helionc compile %examples/sum.cpp --config %t.rl.json --emit cuda | FileCheck %s --check-prefix=LOOPED-CUDA
// RUN: %helionc compile %examples/sum.cpp --stop-after apply-config | FileCheck %s --check-prefix=PERSISTENT
// RUN: echo '{"range_unroll_factors": [1, 2]}' > %t.ru.json
// RUN: %helionc compile %S/../CodeGen/cuda-range-unroll.cpp --config %t.ru.json --stop-after apply-config | FileCheck %s --check-prefix=UNROLL
// RUN: %helionc compile %S/../CodeGen/cuda-range-unroll.cpp --config %t.ru.json --emit cuda | FileCheck %s --check-prefix=UNROLL-CUDA
// RUN: echo '{"load_eviction_policies": ["last", "first", "last"]}' > %t.ev.json
// RUN: %helionc compile %examples/cross_entropy.cpp --config %t.ev.json --stop-after apply-config | FileCheck %s --check-prefix=EVICT
// RUN: %helionc compile %examples/cross_entropy.cpp --config %t.ev.json --emit cuda | FileCheck %s --check-prefix=EVICT-CUDA
// RUN: echo '{"block_sizes": [1], "num_warps": 8, "maxnreg": 128, "vector_bytes": 8, "num_sm_multiplier": 2, "pid_type": "persistent_blocked"}' > %t.launch.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.launch.json --stop-after apply-config | FileCheck %s --check-prefix=LAUNCH
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.launch.json --emit cuda | FileCheck %s --check-prefix=LAUNCH-CUDA
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.launch.json --emit host | FileCheck %s --check-prefix=LAUNCH-HOST
// RUN: %helionc compile %examples/matmul.cpp --stop-after apply-config | FileCheck %s --check-prefix=MATMUL
// apply-config resolves every block size once, into the IR: a size the source fixes
// keeps its value and has no config entry; the tunable ones take block_sizes in
// declaration order. Each reduction axis is looped in chunks of its reduction_loops
// entry, or persistent (null). Each inner loop takes its range_unroll_factors entry,
// each hintable load its load_eviction_policies entry, and a kernel the generic
// emitter prints its launch (threads, vector bytes, SM multiplier, register cap).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor fixed_then_tuned(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m, hl::block_size(8))) {
    for (auto tn : hl::tile(n)) {
      out[tm, tn] = x[tm, tn] + 1.0f;
    }
  }
  return out;
}

// CHECK:      // -----// IR after apply-config //----- //
// CHECK-NEXT: kernel fixed_then_tuned(
// CHECK-NEXT:   block_sizes: bs0(tm, fixed 8{{.*}}) = 8 bs1(tn, hint {{.*}}) = 32 (block_sizes[0])
// CHECK-NOT:  // -----// IR after

// DEFAULT: block_sizes: bs0(tm, fixed 8{{.*}}) = 8 bs1(tn, hint {{.*}}) = {{[0-9]+}} (block_sizes[0])

// The emitter reads the chosen sizes.
// CUDA: constexpr int S_t1 = 32;
// CUDA: const int64 nt_t0 = hd::cdiv<int64>(end_t0 - begin_t0, 8);

// LOOPED:      // -----// IR after apply-config //----- //
// LOOPED-NEXT: kernel sum_rows(
// LOOPED-NEXT:   block_sizes: bs0(tm, hint %m) = {{[0-9]+}} (block_sizes[0])
// LOOPED-NEXT:   axes: a0(%x.size(1)) looped 1024{{$}}
// LOOPED-CUDA: // axis a0: reduction axis a0 (looped)
// LOOPED-CUDA: constexpr int S_a0 = 1024;

// PERSISTENT: axes: a0(%x.size(1)) persistent{{$}}

// The inner loops, numbered in pre-order as the spec numbers them; the grid loop takes
// no entry. The emitter prints each factor as it is (0: no pragma).
// UNROLL:      for %tm in tile(0, %m) block bs0 {
// UNROLL:      for %tn in tile(0, %n) block bs1 unroll 1 = range_unroll_factors[0] {
// UNROLL:      for %tn in tile(0, %n) block bs2 unroll 2 = range_unroll_factors[1] {
// UNROLL-CUDA:      const int64 end_t1 =
// UNROLL-CUDA-NEXT: #pragma unroll 1
// UNROLL-CUDA:      const int64 end_t2 =
// UNROLL-CUDA-NEXT: #pragma unroll 2

// load_eviction_policies is numbered over the load sites (labels 0, logits 1, the
// gather 2); the gather takes no hint (not hintable), whatever its entry says.
// EVICT:     launch: threads {{[0-9]+}}, vector_bytes 16, num_sm_multiplier 1{{$}}
// EVICT:     let %lbl.0 : dtype(labels)[tn] = load %labels[%tn] evict_last (load_eviction_policies[0])
// EVICT:     = load %logits[%tn, :] evict_first (load_eviction_policies[1])
// EVICT:     = load_gather %logits[gather(%tn.index), gather(%lbl.0)]{{$}}
// EVICT-CUDA-DAG: load_hint<hd::Evict::first, true>(reinterpret_cast<const hvec<T_p_logits, V_a0>*>(p_logits +
// EVICT-CUDA-DAG: hd::Evict::last

// LAUNCH:      axes: a0(%x.size(1)) persistent
// LAUNCH-NEXT: launch: threads 256, vector_bytes 8, num_sm_multiplier 2, maxnreg 128{{$}}
// LAUNCH-CUDA: __global__ __maxnreg__(128) void rms_norm_kernel(
// LAUNCH-CUDA: constexpr int NT = 256;
// The host launches what the IR says: vectors of at most 8 bytes, 2 programs per SM of
// 256 threads.
// LAUNCH-HOST: helion::rt::vectorWidth({&p_x, &p_weight, &p_out}, 8)
// LAUNCH-HOST: std::min(2, kernel.residentBlocksPerSm(256))
// LAUNCH-HOST: helion::rt::Dim3(256)

// A template kernel plans its own launch: none in the IR.
// MATMUL:     // -----// IR after apply-config //----- //
// MATMUL-NOT: launch:
