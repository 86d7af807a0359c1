// hl::Block: the value of device code in ref mode, a small dense n-d array.
//
// Floating blocks keep their values as double at the precision of the arithmetic
// that produced them (f32 for f16/bf16/f32 blocks, see detail::roundForCompute);
// integer and bool blocks keep int64. Blocks are values: every operation returns a
// new block, which is what the generated device code's registers behave like.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "helion/hl/dtype.h"
#include "helion/hl/error.h"
#include "helion/hl/tensor.h"
#include "helion/hl/tile.h"

namespace helion::hl {

/// `hl::all`: a whole dimension in a subscript or a view.
struct All {};
inline constexpr All all{};
/// `hl::newaxis`: inserts a dimension of size 1 (to broadcast).
struct NewAxis {};
inline constexpr NewAxis newaxis{};

/// C++ scalars usable on either side of a block operator.
template <class T>
concept Arithmetic = std::is_arithmetic_v<T>;

/// A shape entry of hl::zeros/hl::full/reshape: a tile (its extent) or an integer.
struct ShapeArg {
  ShapeArg(const Tile& t) : value(t.end() - t.begin()) {}
  template <std::integral I> ShapeArg(I v) : value(static_cast<int64_t>(v)) {}
  int64_t value;
};

class Block {
public:
  /// A 0-d f32 zero.
  Block() : f_(1, 0.0) {}
  /// A zero-filled block.
  Block(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
    int64_t n = detail::checkedNumel(shape_, "block");
    if (is_floating(dtype_))
      f_.assign(static_cast<size_t>(n), 0.0);
    else
      i_.assign(static_cast<size_t>(n), 0);
  }
  /// A 0-d block holding a C++ scalar: f64, i64 or b8.
  template <Arithmetic S> static Block scalar(S value) {
    if constexpr (std::is_same_v<S, bool>) {
      Block b(DType::b8, {});
      b.i_[0] = value;
      return b;
    } else if constexpr (std::is_integral_v<S>) {
      Block b(DType::i64, {});
      b.i_[0] = static_cast<int64_t>(value);
      return b;
    } else {
      Block b(DType::f64, {});
      b.f_[0] = static_cast<double>(value);
      return b;
    }
  }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t d) const { return shape_[wrapDim(d, "size")]; }
  int64_t numel() const { return static_cast<int64_t>(is_floating(dtype_) ? f_.size() : i_.size()); }

  /// Element `k` (row-major) as a double / as an integer.
  double getFloat(int64_t k) const {
    return is_floating(dtype_) ? f_[k] : static_cast<double>(i_[k]);
  }
  int64_t getInt(int64_t k) const {
    return is_floating(dtype_) ? detail::floatToInt(DType::i64, f_[k]) : i_[k];
  }
  /// Sets element `k`; the caller has rounded the value for dtype().
  void setFloat(int64_t k, double v) {
    if (is_floating(dtype_))
      f_[k] = v;
    else
      i_[k] = detail::floatToInt(dtype_, v);
  }
  void setInt(int64_t k, int64_t v) {
    if (is_floating(dtype_))
      f_[k] = detail::roundForCompute(dtype_, static_cast<double>(v));
    else
      i_[k] = detail::wrapInt(dtype_, v);
  }
  /// The only element of a one-element block (for tests and debugging).
  double item() const {
    if (numel() != 1)
      detail::fail("item() called on a block of shape {}", shape_);
    return getFloat(0);
  }
  /// Every element as a double, row-major (for tests and debugging).
  std::vector<double> values() const {
    std::vector<double> out(static_cast<size_t>(numel()));
    for (int64_t k = 0; k < numel(); ++k)
      out[k] = getFloat(k);
    return out;
  }

  /// A copy converted to `dtype`; to f16/bf16 this rounds to nearest even.
  Block to(DType dtype) const;
  /// Swaps dimensions `a` and `b`.
  Block transpose(int64_t a, int64_t b) const;
  /// The same elements in a new shape; one entry may be -1 (inferred).
  Block reshape(std::initializer_list<ShapeArg> shape) const;
  template <class... Sizes> Block reshape(const Sizes&... sizes) const {
    return reshape({ShapeArg(sizes)...});
  }
  /// A view: `v[hl::all, hl::newaxis]`, `v[0]`. hl::all keeps a dimension,
  /// hl::newaxis inserts one of size 1, an integer selects (and drops) one; missing
  /// trailing entries mean hl::all.
  template <class... Index> Block operator[](const Index&... index) const;

  Block& operator+=(const Block& other);
  Block& operator-=(const Block& other);
  Block& operator*=(const Block& other);
  Block& operator/=(const Block& other);
  template <Arithmetic S> Block& operator+=(S other) { return *this += Block::scalarLike(other); }
  template <Arithmetic S> Block& operator-=(S other) { return *this -= Block::scalarLike(other); }
  template <Arithmetic S> Block& operator*=(S other) { return *this *= Block::scalarLike(other); }
  template <Arithmetic S> Block& operator/=(S other) { return *this /= Block::scalarLike(other); }

  int64_t wrapDim(int64_t d, const char* what) const {
    int64_t rank = dim();
    if (d < -rank || d >= rank)
      detail::fail("{}: dimension {} is out of range for a block of rank {}", what, d, rank);
    return d < 0 ? d + rank : d;
  }

private:
  // Compound assignment with a scalar keeps the block's dtype (a C++ scalar is "weak").
  template <Arithmetic S> static Block scalarLike(S v) { return Block::scalar(v); }

  DType dtype_ = DType::f32;
  std::vector<int64_t> shape_;
  std::vector<double> f_;   // floating dtypes
  std::vector<int64_t> i_;  // integer and bool dtypes
};

} // namespace helion::hl

namespace helion::detail {

/// NumPy broadcasting: align trailing dims; each pair must match or one must be 1.
inline std::vector<int64_t> broadcastShapes(const std::vector<int64_t>& a,
                                            const std::vector<int64_t>& b, const char* what) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      fail("{}: shapes {} and {} do not broadcast", what, a, b);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

/// Element strides that read a row-major block of shape `in` as the broadcast shape
/// `out`: 0 on broadcast dims. E.g. in [3, 1] as out [2, 3, 4] gives [0, 1, 0].
inline std::vector<int64_t> broadcastStrides(const std::vector<int64_t>& in,
                                             const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = in.size(); i-- > 0;) {
    size_t o = i + (out.size() - in.size());
    strides[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return strides;
}

/// Calls f(k, offsets) for each element k (row-major) of `shape`, where offsets[j] is
/// the matching element of operand j given its strides (see broadcastStrides).
template <size_t K, class F>
void forEachBroadcast(const std::vector<int64_t>& shape,
                      const std::array<std::vector<int64_t>, K>& strides, F&& f) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  if (n == 0)
    return;
  std::vector<int64_t> index(shape.size(), 0);
  std::array<int64_t, K> offsets{};
  for (int64_t k = 0; k < n; ++k) {
    f(k, offsets);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        for (size_t j = 0; j < K; ++j)
          offsets[j] += strides[j][d];
        break;
      }
      for (size_t j = 0; j < K; ++j)
        offsets[j] -= strides[j][d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

inline std::vector<int64_t> shapeOf(std::initializer_list<hl::ShapeArg> shape, const char* what) {
  std::vector<int64_t> out;
  for (const hl::ShapeArg& s : shape) {
    if (s.value < 0)
      fail("{}: negative size {} in shape", what, s.value);
    out.push_back(s.value);
  }
  return out;
}

} // namespace helion::detail
