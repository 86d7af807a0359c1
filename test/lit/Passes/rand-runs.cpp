// REQUIRES: frontend
// RUN: %helionc compile %s --stop-after rand-runs | FileCheck %s
// RUN: %helionc compile %s --kernel stride2 --emit cuda | FileCheck %s --check-prefix=ELEM
// RUN: %helionc compile %s --kernel shifted --emit cuda | FileCheck %s --check-prefix=RUNS
// Which hl::rand offsets step by one along the vectorized tile (rand-runs: the
// thread's numbers come from whole Philox blocks, hd::RandStream::uniform_run) and
// which are walked one by one.
#include <helion/hl.h>
using helion::Tensor;

// Offsets with coefficient 2 along tn: one by one.
// CHECK-LABEL: kernel stride2
// CHECK: rand(%seed, %offsets.0){{$}}
// ELEM: hd::RandStream [[RS:rs_[0-9]+]];
// ELEM: = float([[RS]].uniform(int64(p_seed), int64(v0_offsets[i_t1][i_t0])));
HELION_KERNEL Tensor stride2(const Tensor& x, int64_t seed) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto offsets = tm.index()[hl::all, hl::newaxis] * n + tn.index()[hl::newaxis, hl::all] * 2;
    out[tm, tn] = hl::where(hl::rand(seed, offsets) > 0.5f, x[tm, tn], 0.0f);
  }
  return out;
}

// A constant times the row, a scalar and a constant added, a widening cast, a
// subtraction: still one per element along tn.
// CHECK-LABEL: kernel shifted
// CHECK: rand(%seed, {{.*}}) run %tn
// RUNS: float [[RR:rr_[0-9]+]][V_t1];
// RUNS: .uniform_run<V_t1>(int64(p_seed), int64(
// RUNS: = float([[RR]][v]);
HELION_KERNEL Tensor shifted(const Tensor& x, int64_t seed, int64_t base) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto col = tn.index()[hl::newaxis, hl::all];
    auto offsets = tm.index()[hl::all, hl::newaxis] * 3 + base + 7 + (col * 2 - col);
    out[tm, tn] = hl::where(hl::rand(seed, offsets) > 0.5f, x[tm, tn], 0.0f);
  }
  return out;
}

// Offsets along the rows (tn * m + tm): tm is not the vectorized tile.
// CHECK-LABEL: kernel by_column
// CHECK: rand(%seed, %offsets.0){{$}}
HELION_KERNEL Tensor by_column(const Tensor& x, int64_t seed) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto offsets = tn.index()[hl::newaxis, hl::all] * m + tm.index()[hl::all, hl::newaxis];
    out[tm, tn] = hl::where(hl::rand(seed, offsets) > 0.5f, x[tm, tn], 0.0f);
  }
  return out;
}

// Offsets read from a tensor: unknown steps.
// CHECK-LABEL: kernel loaded
// CHECK: rand(%seed, {{.*}}){{$}}
HELION_KERNEL Tensor loaded(const Tensor& x, const Tensor& idx, int64_t seed) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n}))
    out[tm, tn] = hl::where(hl::rand(seed, idx[tm, tn]) > 0.5f, x[tm, tn], 0.0f);
  return out;
}
