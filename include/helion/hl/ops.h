// Pointwise operations, creation, dtype conversion.
//
// Dtypes follow PyTorch promotion (detail::resultType); floating results are
// computed in double and rounded to the precision of the result's arithmetic (f32
// for f16/bf16/f32), so an f16 block's intermediates keep f32 precision until `.to()`
// or a store rounds them.
#pragma once

#include <cmath>
#include <cstdint>

#include "helion/hl/block.h"
#include "helion/hl/rules.h"

namespace helion::detail {

/// A block operand or a C++ scalar (a 0-d "weak" block that does not widen the dtype).
class Operand {
public:
  Operand(const hl::Block& block) : block_(&block) {}
  template <hl::Arithmetic S> Operand(S value) : owned_(hl::Block::scalar(value)), weak_(true) {}
  const hl::Block& get() const { return block_ ? *block_ : owned_; }
  bool weak() const { return weak_; }

private:
  hl::Block owned_;
  const hl::Block* block_ = nullptr;
  bool weak_ = false;
};

enum class BinaryOp { Add, Sub, Mul, Div, Max, Min, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Xor, Shl, Shr, Mod, Pow };

inline bool isBitwise(BinaryOp op) { return op >= BinaryOp::And && op <= BinaryOp::Shr; }

inline bool isComparison(BinaryOp op) { return op >= BinaryOp::Lt && op <= BinaryOp::Ne; }

inline const char* binaryName(BinaryOp op) {
  static const char* names[] = {"+", "-", "*", "/", "maximum", "minimum", "<", "<=", ">",
                                ">=", "==", "!=", "&", "|", "^", "<<", ">>", "%", "pow"};
  return names[static_cast<int>(op)];
}

inline double applyFloat(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::Add: return a + b;
  case BinaryOp::Sub: return a - b;
  case BinaryOp::Mul: return a * b;
  case BinaryOp::Div: return a / b;
  // NaN propagates, as torch.maximum does.
  case BinaryOp::Max: return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
  case BinaryOp::Min: return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
  case BinaryOp::Lt: return a < b;
  case BinaryOp::Le: return a <= b;
  case BinaryOp::Gt: return a > b;
  case BinaryOp::Ge: return a >= b;
  case BinaryOp::Eq: return a == b;
  case BinaryOp::Ne: return a != b;
  case BinaryOp::Mod: return std::fmod(a, b);  // the sign of the dividend, as in C++
  case BinaryOp::Pow: return std::pow(a, b);
  default: fail("operator {} needs integer or bool operands", binaryName(op));
  }
}

/// Bits of an integer dtype (shift amounts must be below it).
inline int64_t intBits(DType d) {
  return d == DType::i8 ? 8 : d == DType::i32 ? 32 : d == DType::b8 ? 1 : 64;
}

inline int64_t applyInt(BinaryOp op, int64_t a, int64_t b) {
  // Unsigned arithmetic wraps instead of overflowing into undefined behaviour.
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
  case BinaryOp::Add: return static_cast<int64_t>(ua + ub);
  case BinaryOp::Sub: return static_cast<int64_t>(ua - ub);
  case BinaryOp::Mul: return static_cast<int64_t>(ua * ub);
  case BinaryOp::Max: return a > b ? a : b;
  case BinaryOp::Min: return a < b ? a : b;
  case BinaryOp::Lt: return a < b;
  case BinaryOp::Le: return a <= b;
  case BinaryOp::Gt: return a > b;
  case BinaryOp::Ge: return a >= b;
  case BinaryOp::Eq: return a == b;
  case BinaryOp::Ne: return a != b;
  case BinaryOp::And: return static_cast<int64_t>(ua & ub);
  case BinaryOp::Or: return static_cast<int64_t>(ua | ub);
  case BinaryOp::Xor: return static_cast<int64_t>(ua ^ ub);
  // Shift amounts are checked by the caller (0 <= b < bits); >> is arithmetic.
  case BinaryOp::Shl: return static_cast<int64_t>(ua << b);
  case BinaryOp::Shr: return a >> b;
  case BinaryOp::Mod:
    // C++'s %: truncating, the sign of the dividend; INT64_MIN % -1 is 0, not UB.
    if (b == 0)
      fail("%: integer remainder by zero");
    return b == -1 ? 0 : a % b;
  default: return 0;  // Div and Pow never take the integer path
  }
}

inline hl::Block binary(BinaryOp op, const Operand& lhs, const Operand& rhs) {
  const hl::Block& a = lhs.get();
  const hl::Block& b = rhs.get();
  for (DType d : {a.dtype(), b.dtype()})
    if (is_float8(d))
      throw Error(rules::float8Message(binaryName(op), dtype_name(d)));
  DType common = resultType(a.dtype(), lhs.weak(), b.dtype(), rhs.weak());
  // True division of integers gives the default float dtype, as in PyTorch.
  // so is a power (hl::pow computes in floating point).
  if ((op == BinaryOp::Div || op == BinaryOp::Pow) && !is_floating(common))
    common = DType::f32;
  if (isBitwise(op) && !rules::isBitwiseDtype(dtype_name(common)))
    throw Error(rules::bitwiseMessage(binaryName(op), dtype_name(common)));
  bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
  DType result = isComparison(op) ? DType::b8 : common;
  std::vector<int64_t> shape = broadcastShapes(a.shape(), b.shape(), binaryName(op));
  hl::Block out(result, shape);
  std::array<std::vector<int64_t>, 2> strides{broadcastStrides(a.shape(), shape),
                                              broadcastStrides(b.shape(), shape)};
  if (is_floating(common)) {
    forEachBroadcast(shape, strides, [&](int64_t k, const std::array<int64_t, 2>& o) {
      // Operands are rounded to the arithmetic's precision first (a double scalar
      // times an f32 block multiplies by the f32 value of the scalar, as on the GPU).
      double x = roundForCompute(common, a.getFloat(o[0]));
      double y = roundForCompute(common, b.getFloat(o[1]));
      double r = applyFloat(op, x, y);
      out.setFloat(k, isComparison(op) ? r : roundForCompute(common, r));
    });
  } else {
    forEachBroadcast(shape, strides, [&](int64_t k, const std::array<int64_t, 2>& o) {
      int64_t y = b.getInt(o[1]);
      if (shift && (y < 0 || y >= intBits(common)))
        fail("{}: shift amount {} is out of range for {} (expected 0 to {})", binaryName(op), y,
             common, intBits(common) - 1);
      out.setInt(k, applyInt(op, a.getInt(o[0]), y));
    });
  }
  return out;
}

enum class UnaryOp {
  Neg, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Abs, Not,
  Erf, Floor, Ceil, Round, Sin, Cos, Log1p, Exp2, Log2, BitNot
};

inline hl::Block unary(UnaryOp op, const hl::Block& a) {
  // floor/ceil/round of an integer is the integer itself (as in torch).
  bool keepsDType = op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Not ||
                    op == UnaryOp::Floor || op == UnaryOp::Ceil || op == UnaryOp::Round ||
                    op == UnaryOp::BitNot;
  if (is_float8(a.dtype()))
    throw Error(rules::float8Message("a unary operation", dtype_name(a.dtype())));
  if (op == UnaryOp::BitNot && !rules::isBitwiseDtype(dtype_name(a.dtype())))
    throw Error(rules::bitwiseMessage("~", dtype_name(a.dtype())));
  DType result = op == UnaryOp::Not ? DType::b8
                 : keepsDType || is_floating(a.dtype()) ? a.dtype()
                                                        : DType::f32;
  hl::Block out(result, a.shape());
  for (int64_t k = 0; k < a.numel(); ++k) {
    if (!is_floating(result)) {
      int64_t v = a.getInt(k);
      int64_t r = op == UnaryOp::Not   ? (v == 0)
                  : op == UnaryOp::Abs ? (v < 0 ? -v : v)
                  : op == UnaryOp::Neg ? static_cast<int64_t>(0 - static_cast<uint64_t>(v))
                  : op == UnaryOp::BitNot ? (result == DType::b8 ? (v == 0) : ~v)
                                       : v;  // floor, ceil, round
      out.setInt(k, r);
      continue;
    }
    double v = roundForCompute(result, a.getFloat(k));
    double r = 0;
    switch (op) {
    case UnaryOp::Neg: r = -v; break;
    case UnaryOp::Exp: r = std::exp(v); break;
    case UnaryOp::Log: r = std::log(v); break;
    case UnaryOp::Sqrt: r = std::sqrt(v); break;
    case UnaryOp::Rsqrt: r = 1.0 / std::sqrt(v); break;
    case UnaryOp::Tanh: r = std::tanh(v); break;
    case UnaryOp::Sigmoid: r = 1.0 / (1.0 + std::exp(-v)); break;
    case UnaryOp::Abs: r = std::fabs(v); break;
    case UnaryOp::Not: r = v == 0; break;
    case UnaryOp::Erf: r = std::erf(v); break;
    case UnaryOp::Floor: r = std::floor(v); break;
    case UnaryOp::Ceil: r = std::ceil(v); break;
    case UnaryOp::Round: r = std::nearbyint(v); break;  // half to even, as torch.round
    case UnaryOp::Sin: r = std::sin(v); break;
    case UnaryOp::Cos: r = std::cos(v); break;
    case UnaryOp::Log1p: r = std::log1p(v); break;
    case UnaryOp::Exp2: r = std::exp2(v); break;
    case UnaryOp::Log2: r = std::log2(v); break;
    case UnaryOp::BitNot: break;  // rejected above
    }
    out.setFloat(k, roundForCompute(result, r));
  }
  return out;
}

} // namespace helion::detail

namespace helion::hl {

using detail::BinaryOp;
using detail::UnaryOp;

// Arithmetic: a block with a block, or with a C++ scalar on either side.
inline Block operator+(const Block& a, const Block& b) { return detail::binary(BinaryOp::Add, a, b); }
template <Arithmetic S> Block operator+(const Block& a, S b) { return detail::binary(BinaryOp::Add, a, b); }
template <Arithmetic S> Block operator+(S a, const Block& b) { return detail::binary(BinaryOp::Add, a, b); }
inline Block operator-(const Block& a, const Block& b) { return detail::binary(BinaryOp::Sub, a, b); }
template <Arithmetic S> Block operator-(const Block& a, S b) { return detail::binary(BinaryOp::Sub, a, b); }
template <Arithmetic S> Block operator-(S a, const Block& b) { return detail::binary(BinaryOp::Sub, a, b); }
inline Block operator*(const Block& a, const Block& b) { return detail::binary(BinaryOp::Mul, a, b); }
template <Arithmetic S> Block operator*(const Block& a, S b) { return detail::binary(BinaryOp::Mul, a, b); }
template <Arithmetic S> Block operator*(S a, const Block& b) { return detail::binary(BinaryOp::Mul, a, b); }
inline Block operator/(const Block& a, const Block& b) { return detail::binary(BinaryOp::Div, a, b); }
template <Arithmetic S> Block operator/(const Block& a, S b) { return detail::binary(BinaryOp::Div, a, b); }
template <Arithmetic S> Block operator/(S a, const Block& b) { return detail::binary(BinaryOp::Div, a, b); }
inline Block operator-(const Block& a) {
  if (!rules::isNegatable(dtype_name(a.dtype())))
    throw Error(rules::negateBoolMessage());
  return detail::unary(UnaryOp::Neg, a);
}

// Comparisons give b8 blocks.
inline Block operator<(const Block& a, const Block& b) { return detail::binary(BinaryOp::Lt, a, b); }
template <Arithmetic S> Block operator<(const Block& a, S b) { return detail::binary(BinaryOp::Lt, a, b); }
template <Arithmetic S> Block operator<(S a, const Block& b) { return detail::binary(BinaryOp::Lt, a, b); }
inline Block operator<=(const Block& a, const Block& b) { return detail::binary(BinaryOp::Le, a, b); }
template <Arithmetic S> Block operator<=(const Block& a, S b) { return detail::binary(BinaryOp::Le, a, b); }
template <Arithmetic S> Block operator<=(S a, const Block& b) { return detail::binary(BinaryOp::Le, a, b); }
inline Block operator>(const Block& a, const Block& b) { return detail::binary(BinaryOp::Gt, a, b); }
template <Arithmetic S> Block operator>(const Block& a, S b) { return detail::binary(BinaryOp::Gt, a, b); }
template <Arithmetic S> Block operator>(S a, const Block& b) { return detail::binary(BinaryOp::Gt, a, b); }
inline Block operator>=(const Block& a, const Block& b) { return detail::binary(BinaryOp::Ge, a, b); }
template <Arithmetic S> Block operator>=(const Block& a, S b) { return detail::binary(BinaryOp::Ge, a, b); }
template <Arithmetic S> Block operator>=(S a, const Block& b) { return detail::binary(BinaryOp::Ge, a, b); }
inline Block operator==(const Block& a, const Block& b) { return detail::binary(BinaryOp::Eq, a, b); }
template <Arithmetic S> Block operator==(const Block& a, S b) { return detail::binary(BinaryOp::Eq, a, b); }
template <Arithmetic S> Block operator==(S a, const Block& b) { return detail::binary(BinaryOp::Eq, a, b); }
inline Block operator!=(const Block& a, const Block& b) { return detail::binary(BinaryOp::Ne, a, b); }
template <Arithmetic S> Block operator!=(const Block& a, S b) { return detail::binary(BinaryOp::Ne, a, b); }
template <Arithmetic S> Block operator!=(S a, const Block& b) { return detail::binary(BinaryOp::Ne, a, b); }

// Logical operations on b8 (bitwise on integers), e.g. to combine masks.
inline Block operator&(const Block& a, const Block& b) { return detail::binary(BinaryOp::And, a, b); }
inline Block operator|(const Block& a, const Block& b) { return detail::binary(BinaryOp::Or, a, b); }
inline Block operator!(const Block& a) { return detail::unary(UnaryOp::Not, a); }
template <Arithmetic S> Block operator&(const Block& a, S b) { return detail::binary(BinaryOp::And, a, b); }
template <Arithmetic S> Block operator&(S a, const Block& b) { return detail::binary(BinaryOp::And, a, b); }
template <Arithmetic S> Block operator|(const Block& a, S b) { return detail::binary(BinaryOp::Or, a, b); }
template <Arithmetic S> Block operator|(S a, const Block& b) { return detail::binary(BinaryOp::Or, a, b); }

// Bitwise xor, shifts and the bitwise not of integer blocks (~ of b8 is !).
inline Block operator^(const Block& a, const Block& b) { return detail::binary(BinaryOp::Xor, a, b); }
template <Arithmetic S> Block operator^(const Block& a, S b) { return detail::binary(BinaryOp::Xor, a, b); }
template <Arithmetic S> Block operator^(S a, const Block& b) { return detail::binary(BinaryOp::Xor, a, b); }
inline Block operator<<(const Block& a, const Block& b) { return detail::binary(BinaryOp::Shl, a, b); }
template <Arithmetic S> Block operator<<(const Block& a, S b) { return detail::binary(BinaryOp::Shl, a, b); }
template <Arithmetic S> Block operator<<(S a, const Block& b) { return detail::binary(BinaryOp::Shl, a, b); }
inline Block operator>>(const Block& a, const Block& b) { return detail::binary(BinaryOp::Shr, a, b); }
template <Arithmetic S> Block operator>>(const Block& a, S b) { return detail::binary(BinaryOp::Shr, a, b); }
template <Arithmetic S> Block operator>>(S a, const Block& b) { return detail::binary(BinaryOp::Shr, a, b); }
inline Block operator~(const Block& a) { return detail::unary(UnaryOp::BitNot, a); }

/// `%`: the remainder with the sign of the dividend (C++ `%` on integers, std::fmod on
/// floats); an integer remainder by zero is an error.
inline Block operator%(const Block& a, const Block& b) { return detail::binary(BinaryOp::Mod, a, b); }
template <Arithmetic S> Block operator%(const Block& a, S b) { return detail::binary(BinaryOp::Mod, a, b); }
template <Arithmetic S> Block operator%(S a, const Block& b) { return detail::binary(BinaryOp::Mod, a, b); }

} // namespace helion::hl

namespace helion::detail {
/// Compound assignment keeps the left side's dtype; a result of the same dtype is kept
/// as is (no extra rounding, as `acc = acc + x` would not round either).
inline hl::Block keepDType(const hl::Block& result, DType dtype) {
  return result.dtype() == dtype ? result : result.to(dtype);
}
} // namespace helion::detail

namespace helion::hl {

inline Block& Block::operator+=(const Block& other) { return *this = detail::keepDType(*this + other, dtype_); }
inline Block& Block::operator-=(const Block& other) { return *this = detail::keepDType(*this - other, dtype_); }
inline Block& Block::operator*=(const Block& other) { return *this = detail::keepDType(*this * other, dtype_); }
inline Block& Block::operator/=(const Block& other) { return *this = detail::keepDType(*this / other, dtype_); }

// Math functions; integer inputs give f32.
inline Block exp(const Block& x) { return detail::unary(UnaryOp::Exp, x); }
inline Block log(const Block& x) { return detail::unary(UnaryOp::Log, x); }
inline Block sqrt(const Block& x) { return detail::unary(UnaryOp::Sqrt, x); }
inline Block rsqrt(const Block& x) { return detail::unary(UnaryOp::Rsqrt, x); }
inline Block tanh(const Block& x) { return detail::unary(UnaryOp::Tanh, x); }
inline Block sigmoid(const Block& x) { return detail::unary(UnaryOp::Sigmoid, x); }
inline Block abs(const Block& x) { return detail::unary(UnaryOp::Abs, x); }
inline Block erf(const Block& x) { return detail::unary(UnaryOp::Erf, x); }
inline Block sin(const Block& x) { return detail::unary(UnaryOp::Sin, x); }
inline Block cos(const Block& x) { return detail::unary(UnaryOp::Cos, x); }
inline Block log1p(const Block& x) { return detail::unary(UnaryOp::Log1p, x); }
inline Block exp2(const Block& x) { return detail::unary(UnaryOp::Exp2, x); }
inline Block log2(const Block& x) { return detail::unary(UnaryOp::Log2, x); }
/// floor, ceil and round (half to even) keep the dtype; of an integer block, a copy.
inline Block floor(const Block& x) { return detail::unary(UnaryOp::Floor, x); }
inline Block ceil(const Block& x) { return detail::unary(UnaryOp::Ceil, x); }
inline Block round(const Block& x) { return detail::unary(UnaryOp::Round, x); }

/// `a` to the power `b`, computed in floating point (integer operands give f32).
inline Block pow(const Block& a, const Block& b) { return detail::binary(BinaryOp::Pow, a, b); }
template <Arithmetic S> Block pow(const Block& a, S b) { return detail::binary(BinaryOp::Pow, a, b); }
template <Arithmetic S> Block pow(S a, const Block& b) { return detail::binary(BinaryOp::Pow, a, b); }

/// Elementwise maximum / minimum (NaN propagates).
inline Block maximum(const Block& a, const Block& b) { return detail::binary(BinaryOp::Max, a, b); }
template <Arithmetic S> Block maximum(const Block& a, S b) { return detail::binary(BinaryOp::Max, a, b); }
template <Arithmetic S> Block maximum(S a, const Block& b) { return detail::binary(BinaryOp::Max, a, b); }
inline Block minimum(const Block& a, const Block& b) { return detail::binary(BinaryOp::Min, a, b); }
template <Arithmetic S> Block minimum(const Block& a, S b) { return detail::binary(BinaryOp::Min, a, b); }
template <Arithmetic S> Block minimum(S a, const Block& b) { return detail::binary(BinaryOp::Min, a, b); }

/// `hl::where(cond, a, b)`: a where cond is true, else b; a and b may be scalars.
Block where(const Block& cond, const detail::Operand& a, const detail::Operand& b);

/// A block of zeros: `hl::zeros({tm, tn}, hl::f32)`.
inline Block zeros(std::initializer_list<ShapeArg> shape, DType dtype = DType::f32) {
  return Block(dtype, detail::shapeOf(shape, "zeros"));
}

/// A block filled with `value`: `hl::full({tm}, -INFINITY, hl::f32)`.
template <Arithmetic S>
Block full(std::initializer_list<ShapeArg> shape, S value, DType dtype = DType::f32) {
  Block out(dtype, detail::shapeOf(shape, "full"));
  for (int64_t k = 0; k < out.numel(); ++k) {
    if constexpr (std::is_integral_v<S>)
      out.setInt(k, static_cast<int64_t>(value));
    else
      out.setFloat(k, detail::roundForCompute(dtype, detail::roundToDType(dtype, value)));
  }
  return out;
}

/// `hl::arange(end)`, `hl::arange(begin, end, dtype)`: begin, begin+1, ..., end-1.
inline Block arange(int64_t begin, int64_t end, DType dtype = DType::i64) {
  Block out(dtype, {end > begin ? end - begin : 0});
  for (int64_t k = 0; k < out.numel(); ++k)
    out.setInt(k, begin + k);
  return out;
}
inline Block arange(int64_t end) { return arange(0, end); }

inline Block Tile::index() const { return arange(begin_, end_, DType::i64); }

inline Block Block::to(DType dtype) const {
  Block out(dtype, shape_);
  for (int64_t k = 0; k < numel(); ++k) {
    if (is_floating(dtype_) && is_floating(dtype))
      out.setFloat(k, detail::roundToDType(dtype, f_[k]));
    else if (is_floating(dtype))
      out.setFloat(k, detail::roundToDType(dtype, static_cast<double>(i_[k])));
    else if (is_floating(dtype_))
      out.setInt(k, detail::floatToInt(dtype, f_[k]));
    else
      out.setInt(k, i_[k]);
  }
  return out;
}

inline Block where(const Block& cond, const detail::Operand& a, const detail::Operand& b) {
  const Block& x = a.get();
  const Block& y = b.get();
  DType dtype = detail::resultType(x.dtype(), a.weak(), y.dtype(), b.weak());
  std::vector<int64_t> shape = detail::broadcastShapes(
      detail::broadcastShapes(cond.shape(), x.shape(), "where"), y.shape(), "where");
  Block out(dtype, shape);
  std::array<std::vector<int64_t>, 3> strides{detail::broadcastStrides(cond.shape(), shape),
                                              detail::broadcastStrides(x.shape(), shape),
                                              detail::broadcastStrides(y.shape(), shape)};
  detail::forEachBroadcast(shape, strides, [&](int64_t k, const std::array<int64_t, 3>& o) {
    const Block& pick = cond.getFloat(o[0]) != 0 ? x : y;
    int64_t at = cond.getFloat(o[0]) != 0 ? o[1] : o[2];
    if (is_floating(dtype))
      out.setFloat(k, detail::roundForCompute(dtype, pick.getFloat(at)));
    else
      out.setInt(k, pick.getInt(at));
  });
  return out;
}

} // namespace helion::hl
