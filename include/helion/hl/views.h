// Views of blocks: subscripts with hl::all / hl::newaxis / integers, transpose,
// reshape. In ref mode a view is a copy; blocks are values, so nothing can tell.
#pragma once

#include "helion/hl/block.h"

namespace helion::detail {

/// One entry of a block subscript.
struct ViewIndex {
  enum class Kind { All, NewAxis, Select } kind;
  int64_t value = 0;
  ViewIndex(hl::All) : kind(Kind::All) {}
  ViewIndex(hl::NewAxis) : kind(Kind::NewAxis) {}
  template <std::integral I> ViewIndex(I v) : kind(Kind::Select), value(static_cast<int64_t>(v)) {}
};

/// Copies the elements of `x` selected by `index` into a new block.
/// Example: x of shape [4, 5] with (all, newaxis) gives [4, 1, 5]; with (2) gives [5].
inline hl::Block viewBlock(const hl::Block& x, const std::vector<ViewIndex>& index) {
  std::vector<int64_t> inStrides(x.shape().size(), 1);
  for (size_t i = x.shape().size(); i-- > 1;)
    inStrides[i - 1] = inStrides[i] * x.shape()[i];
  std::vector<int64_t> outShape, outStrides;
  int64_t base = 0;
  size_t d = 0;
  for (const ViewIndex& v : index) {
    if (v.kind == ViewIndex::Kind::NewAxis) {
      outShape.push_back(1);
      outStrides.push_back(0);
      continue;
    }
    if (d >= x.shape().size())
      fail("block subscript: too many indices for a block of shape {}", x.shape());
    if (v.kind == ViewIndex::Kind::All) {
      outShape.push_back(x.shape()[d]);
      outStrides.push_back(inStrides[d]);
    } else {
      int64_t i = v.value < 0 ? v.value + x.shape()[d] : v.value;
      if (i < 0 || i >= x.shape()[d])
        fail("block subscript: index {} is out of range for dimension {} of size {}", v.value, d,
             x.shape()[d]);
      base += i * inStrides[d];
    }
    ++d;
  }
  for (; d < x.shape().size(); ++d) {
    outShape.push_back(x.shape()[d]);
    outStrides.push_back(inStrides[d]);
  }
  hl::Block out(x.dtype(), outShape);
  std::array<std::vector<int64_t>, 1> strides{outStrides};
  forEachBroadcast(outShape, strides, [&](int64_t k, const std::array<int64_t, 1>& o) {
    if (is_floating(x.dtype()))
      out.setFloat(k, x.getFloat(base + o[0]));
    else
      out.setInt(k, x.getInt(base + o[0]));
  });
  return out;
}

} // namespace helion::detail

namespace helion::hl {

template <class... Index> Block Block::operator[](const Index&... index) const {
  return detail::viewBlock(*this, {detail::ViewIndex(index)...});
}

inline Block Block::transpose(int64_t a, int64_t b) const {
  int64_t da = wrapDim(a, "transpose"), db = wrapDim(b, "transpose");
  std::vector<int64_t> inStrides(shape_.size(), 1);
  for (size_t i = shape_.size(); i-- > 1;)
    inStrides[i - 1] = inStrides[i] * shape_[i];
  std::vector<int64_t> outShape = shape_;
  std::swap(outShape[da], outShape[db]);
  std::swap(inStrides[da], inStrides[db]);
  Block out(dtype_, outShape);
  std::array<std::vector<int64_t>, 1> strides{inStrides};
  detail::forEachBroadcast(outShape, strides, [&](int64_t k, const std::array<int64_t, 1>& o) {
    if (is_floating(dtype_))
      out.f_[k] = f_[o[0]];
    else
      out.i_[k] = i_[o[0]];
  });
  return out;
}

inline Block Block::reshape(std::initializer_list<ShapeArg> shape) const {
  std::vector<int64_t> out;
  int64_t known = 1, inferred = -1;
  for (const ShapeArg& s : shape) {
    if (s.value == -1) {
      if (inferred >= 0)
        detail::fail("reshape: more than one -1 in {}", out);
      inferred = static_cast<int64_t>(out.size());
    } else if (s.value < 0) {
      detail::fail("reshape: negative size {}", s.value);
    } else {
      known *= s.value;
    }
    out.push_back(s.value);
  }
  if (inferred >= 0 && known != 0 && numel() % known == 0)
    out[inferred] = numel() / known, known *= out[inferred];
  if (known != numel() || (inferred >= 0 && out[inferred] < 0))
    detail::fail("reshape: cannot view a block of shape {} ({} elements) as {}", shape_, numel(),
                 out);
  Block result = *this;
  result.shape_ = out;
  return result;
}

} // namespace helion::hl
