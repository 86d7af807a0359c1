// Reductions over one dimension of a block: hl::sum, hl::amax, hl::amin, hl::mean,
// hl::argmax, hl::argmin.
//
// Sums accumulate in double and round once at the end, so within one block the
// result does not depend on the order (or on how a loop tiled the other dims).
#pragma once

#include <cmath>

#include "helion/hl/block.h"
#include "helion/hl/ops.h"

namespace helion::detail {

enum class ReduceOp { Sum, Max, Min, Mean, ArgMax, ArgMin };

/// The index along `len` elements (stride `inner` from `base`) of the maximum (or
/// minimum) of x, as torch.argmax: NaN counts as the extreme, ties give the first.
inline int64_t argExtreme(const hl::Block& x, int64_t base, int64_t len, int64_t inner, bool max) {
  int64_t best = 0;
  if (!is_floating(x.dtype())) {
    for (int64_t j = 1; j < len; ++j) {
      int64_t v = x.getInt(base + j * inner), b = x.getInt(base + best * inner);
      if (max ? v > b : v < b)
        best = j;
    }
    return best;
  }
  for (int64_t j = 1; j < len; ++j) {
    double v = x.getFloat(base + j * inner), b = x.getFloat(base + best * inner);
    if (std::isnan(b))
      break;
    if (std::isnan(v) || (max ? v > b : v < b))
      best = j;
  }
  return best;
}

inline hl::Block reduce(ReduceOp op, const hl::Block& x, int64_t dim, bool keepdim,
                        const char* what) {
  int64_t d = x.wrapDim(dim, what);
  const auto& shape = x.shape();
  int64_t outer = 1, inner = 1, len = shape[d];
  for (int64_t i = 0; i < d; ++i)
    outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i)
    inner *= shape[i];
  const bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  if (len == 0 && (op == ReduceOp::Max || op == ReduceOp::Min || arg))
    fail("{}: dimension {} of a block of shape {} is empty", what, dim, shape);
  // sum of integers gives i64 and mean gives f32, as in PyTorch.
  DType in = x.dtype();
  if (is_float8(in))
    throw Error(rules::float8Message(what, dtype_name(in)));
  DType result = in;
  if (op == ReduceOp::Sum && !is_floating(in))
    result = DType::i64;
  if (op == ReduceOp::Mean && !is_floating(in))
    result = DType::f32;
  if (arg)
    result = DType::i64;
  std::vector<int64_t> outShape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (static_cast<int64_t>(i) != d)
      outShape.push_back(shape[i]);
    else if (keepdim)
      outShape.push_back(1);
  }
  hl::Block out(result, outShape);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      int64_t k = o * inner + i;
      if (arg) {
        out.setInt(k, argExtreme(x, base, len, inner, op == ReduceOp::ArgMax));
        continue;
      }
      if (!is_floating(result)) {
        int64_t acc = op == ReduceOp::Sum ? 0 : x.getInt(base);
        for (int64_t j = 0; j < len; ++j) {
          int64_t v = x.getInt(base + j * inner);
          acc = op == ReduceOp::Sum ? static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v))
                : op == ReduceOp::Max ? std::max(acc, v)
                                      : std::min(acc, v);
        }
        out.setInt(k, acc);
        continue;
      }
      double acc = (op == ReduceOp::Sum || op == ReduceOp::Mean) ? 0.0 : x.getFloat(base);
      for (int64_t j = 0; j < len; ++j) {
        double v = x.getFloat(base + j * inner);
        if (op == ReduceOp::Sum || op == ReduceOp::Mean)
          acc += v;
        else if (std::isnan(v) || std::isnan(acc))
          acc = NAN;  // NaN propagates, as in torch.amax
        else
          acc = op == ReduceOp::Max ? std::max(acc, v) : std::min(acc, v);
      }
      if (op == ReduceOp::Mean)
        acc /= static_cast<double>(len);
      out.setFloat(k, roundForCompute(result, acc));
    }
  }
  return out;
}

} // namespace helion::detail

namespace helion::hl {

/// Sum over `dim` (integers give i64); keepdim keeps it as a dimension of size 1.
inline Block sum(const Block& x, int64_t dim, bool keepdim = false) {
  return detail::reduce(detail::ReduceOp::Sum, x, dim, keepdim, "sum");
}
/// Maximum over `dim`.
inline Block amax(const Block& x, int64_t dim, bool keepdim = false) {
  return detail::reduce(detail::ReduceOp::Max, x, dim, keepdim, "amax");
}
/// Minimum over `dim`.
inline Block amin(const Block& x, int64_t dim, bool keepdim = false) {
  return detail::reduce(detail::ReduceOp::Min, x, dim, keepdim, "amin");
}
/// The index (i64) of the maximum along `dim`, as torch.argmax: the first one on ties,
/// the first NaN if any; an empty dim is an error. Indices count from the block's start.
inline Block argmax(const Block& x, int64_t dim, bool keepdim = false) {
  return detail::reduce(detail::ReduceOp::ArgMax, x, dim, keepdim, "argmax");
}
/// The index (i64) of the minimum along `dim` (ties and NaN as argmax).
inline Block argmin(const Block& x, int64_t dim, bool keepdim = false) {
  return detail::reduce(detail::ReduceOp::ArgMin, x, dim, keepdim, "argmin");
}
/// Mean over `dim` (integers give f32).
inline Block mean(const Block& x, int64_t dim, bool keepdim = false) {
  return detail::reduce(detail::ReduceOp::Mean, x, dim, keepdim, "mean");
}

} // namespace helion::hl
