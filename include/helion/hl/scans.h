// Inclusive scans along one dimension of a block: hl::cumsum, hl::cumprod (as
// torch.cumsum / torch.cumprod).
//
// The result has the block's shape. Floating blocks keep their dtype and scan in the
// precision of their arithmetic (f32 for f16/bf16/f32, see detail::roundForCompute):
// each prefix is accumulated in double and rounded once. Integer and bool blocks give
// i64 (torch's rule), wrapping on overflow.
#pragma once

#include "helion/hl/block.h"

namespace helion::detail {

inline hl::Block scan(bool product, const hl::Block& x, int64_t dim, const char* what) {
  int64_t d = x.wrapDim(dim, what);
  const auto& shape = x.shape();
  int64_t outer = 1, inner = 1, len = shape[d];
  for (int64_t i = 0; i < d; ++i)
    outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i)
    inner *= shape[i];
  const DType result = is_floating(x.dtype()) ? x.dtype() : DType::i64;
  hl::Block out(result, shape);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      double facc = product ? 1.0 : 0.0;
      uint64_t iacc = product ? 1 : 0;
      for (int64_t j = 0; j < len; ++j) {
        int64_t k = base + j * inner;
        if (is_floating(result)) {
          double v = x.getFloat(k);
          facc = product ? facc * v : facc + v;
          out.setFloat(k, roundForCompute(result, facc));
        } else {
          auto v = static_cast<uint64_t>(x.getInt(k));
          iacc = product ? iacc * v : iacc + v;
          out.setInt(k, static_cast<int64_t>(iacc));
        }
      }
    }
  }
  return out;
}

} // namespace helion::detail

namespace helion::hl {

/// Inclusive prefix sums along `dim` (integers and bools give i64).
inline Block cumsum(const Block& x, int64_t dim) { return detail::scan(false, x, dim, "cumsum"); }
/// Inclusive prefix products along `dim` (integers and bools give i64).
inline Block cumprod(const Block& x, int64_t dim) { return detail::scan(true, x, dim, "cumprod"); }

} // namespace helion::hl
