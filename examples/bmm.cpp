// Batched matrix product out[b] = x[b] @ y[b] (torch.bmm), accumulated in float32
// over K tiles. The batch tile has block size 1: each program computes one
// [tm, tn] tile of one product, the matmul template's batched form (docs/gemm.md).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor bmm(const Tensor& x, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto [b2, k2, n] = y.shape<3>();
  HELION_CHECK(b == b2, "bmm: batch sizes differ");
  HELION_CHECK(k == k2, "bmm: inner dimensions differ");
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::dot(x[tb, tm, tk], y[tb, tk, tn], acc);
    }
    out[tb, tm, tn] = acc;  // stores cast to the destination's dtype
  }
  return out;
}
