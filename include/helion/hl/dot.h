// Matrix products of blocks: hl::dot(a, b), hl::dot(a, b, acc), hl::addmm(acc, a, b).
//
// 2-D [M, K] x [K, N] or batched 3-D [B, M, K] x [B, K, N]. Operands are first
// rounded to their own dtype (what the tensor cores read), products are summed in
// double, and the result is f32 (f64 when an operand is f64). The GPU runs f32
// operands through TF32 by default; ref mode keeps full f32 precision.
#pragma once

#include "helion/hl/block.h"
#include "helion/hl/ops.h"

namespace helion::detail {

inline void checkDotOperand(const hl::Block& x, const char* what, const char* name) {
  if (!is_floating(x.dtype()))
    fail("{}: expected a floating block for {}, got {}", what, name, x.dtype());
  if (x.dim() != 2 && x.dim() != 3)
    fail("{}: expected a 2-D or 3-D block for {}, got shape {}", what, name, x.shape());
}

/// acc + a @ b (acc may be null).
inline hl::Block matmulBlocks(const hl::Block& a, const hl::Block& b, const hl::Block* acc,
                              const char* what) {
  checkDotOperand(a, what, "a");
  checkDotOperand(b, what, "b");
  if (a.dim() != b.dim())
    fail("{}: operands of rank {} and {} (shapes {} and {})", what, a.dim(), b.dim(), a.shape(),
         b.shape());
  bool batched = a.dim() == 3;
  int64_t batch = batched ? a.shape()[0] : 1;
  int64_t m = a.shape()[a.dim() - 2], k = a.shape()[a.dim() - 1];
  int64_t k2 = b.shape()[b.dim() - 2], n = b.shape()[b.dim() - 1];
  if (k != k2 || (batched && b.shape()[0] != batch))
    fail("{}: shapes {} and {} do not multiply", what, a.shape(), b.shape());
  DType result = a.dtype() == DType::f64 || b.dtype() == DType::f64 ? DType::f64 : DType::f32;
  std::vector<int64_t> shape = batched ? std::vector<int64_t>{batch, m, n} : std::vector<int64_t>{m, n};
  if (acc) {
    if (acc->shape() != shape)
      fail("{}: accumulator of shape {}, expected {}", what, acc->shape(), shape);
    if (!is_floating(acc->dtype()))
      fail("{}: expected a floating accumulator, got {}", what, acc->dtype());
    result = acc->dtype();
  }
  // Operands rounded once to their dtype (an f16 block may hold f32-precision values).
  std::vector<double> av(a.numel()), bv(b.numel());
  for (int64_t i = 0; i < a.numel(); ++i)
    av[i] = roundToDType(a.dtype(), a.getFloat(i));
  for (int64_t i = 0; i < b.numel(); ++i)
    bv[i] = roundToDType(b.dtype(), b.getFloat(i));
  hl::Block out(result, shape);
  std::vector<double> row(n);
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t kk = 0; kk < k; ++kk) {
        double x = av[(p * m + i) * k + kk];
        const double* brow = &bv[(p * k + kk) * n];
        for (int64_t j = 0; j < n; ++j)
          row[j] += x * brow[j];
      }
      for (int64_t j = 0; j < n; ++j) {
        int64_t o = (p * m + i) * n + j;
        double v = row[j] + (acc ? acc->getFloat(o) : 0.0);
        out.setFloat(o, roundForCompute(result, v));
      }
    }
  }
  return out;
}

} // namespace helion::detail

namespace helion::hl {

/// a @ b, with an f32 result.
inline Block dot(const Block& a, const Block& b) { return detail::matmulBlocks(a, b, nullptr, "dot"); }
/// acc + a @ b, in acc's dtype.
inline Block dot(const Block& a, const Block& b, const Block& acc) {
  return detail::matmulBlocks(a, b, &acc, "dot");
}
/// acc + a @ b, in acc's dtype (torch.addmm's argument order).
inline Block addmm(const Block& acc, const Block& a, const Block& b) {
  return detail::matmulBlocks(a, b, &acc, "addmm");
}

} // namespace helion::hl
