// Loads and stores: Tensor subscripts (hl::TensorRef) and hl::load / hl::store.
//
// A subscript resolves its indices once into byte offsets, checks them against the
// tensor's sizes (a bad index is a helion::Error, never an out-of-bounds access) and
// loads the elements at once, so `auto v = x[t];` is a value that later stores to x do
// not change. Assigning to the subscript *as a temporary* stores:
//     out[tm, tn] = acc;     // stores (out[...] is an rvalue)
//     auto v = x[tm, hl::all];
//     v = v * 2;             // rebinds v, like Python; x is not written
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "helion/hl/block.h"
#include "helion/hl/ops.h"
#include "helion/hl/rules.h"
#include "helion/hl/tensor.h"

namespace helion::hl {

/// One argument of a tensor subscript or of hl::load / hl::store.
struct IndexArg {
  enum class Kind { Tile, Int, All, NewAxis, Block, TileND };
  IndexArg(const hl::Tile& t) : kind(Kind::Tile), tile(t) {}
  template <std::integral I> IndexArg(I v) : kind(Kind::Int), value(static_cast<int64_t>(v)) {}
  IndexArg(All) : kind(Kind::All) {}
  IndexArg(NewAxis) : kind(Kind::NewAxis) {}
  IndexArg(const hl::Block& b) : kind(Kind::Block), block(&b) {}
  IndexArg(const hl::TileND& t) : kind(Kind::TileND), tiles(&t) {}

  Kind kind;
  hl::Tile tile;
  int64_t value = 0;
  const hl::Block* block = nullptr;   // lives until the end of the full expression
  const hl::TileND* tiles = nullptr;
};

/// The result of `tensor[...]`: the loaded block, plus where it came from so that
/// assigning to it as a temporary stores back (see the top of this file).
class TensorRef : public Block {
public:
  /// Loads the elements at `offsets` (bytes from data_ptr(); -1 = masked, reads 0).
  TensorRef(const Tensor& tensor, std::vector<int64_t> shape, std::vector<int64_t> offsets);
  TensorRef(const TensorRef&) = default;
  TensorRef(TensorRef&&) = default;

  /// `out[...] = v`: stores v (broadcast to this shape, cast to the tensor's dtype).
  TensorRef& operator=(const Block& value) && { return store(value); }
  TensorRef& operator=(const TensorRef& value) && { return store(value); }
  template <Arithmetic S> TensorRef& operator=(S value) && { return store(Block::scalar(value)); }
  TensorRef& operator+=(const Block& v) && { return store(*this + v); }
  TensorRef& operator-=(const Block& v) && { return store(*this - v); }
  TensorRef& operator*=(const Block& v) && { return store(*this * v); }
  TensorRef& operator/=(const Block& v) && { return store(*this / v); }
  template <Arithmetic S> TensorRef& operator+=(S v) && { return store(*this + v); }
  template <Arithmetic S> TensorRef& operator-=(S v) && { return store(*this - v); }
  template <Arithmetic S> TensorRef& operator*=(S v) && { return store(*this * v); }
  template <Arithmetic S> TensorRef& operator/=(S v) && { return store(*this / v); }

  /// `v = ...` on a named subscript result rebinds it to a plain value (no store).
  TensorRef& operator=(const Block& value) & { return rebind(value); }
  TensorRef& operator=(const TensorRef& value) & { return rebind(value); }
  template <Arithmetic S> TensorRef& operator=(S value) & { return rebind(Block::scalar(value)); }
  TensorRef& operator+=(const Block& v) & { return rebind(detail::keepDType(*this + v, dtype())); }
  TensorRef& operator-=(const Block& v) & { return rebind(detail::keepDType(*this - v, dtype())); }
  TensorRef& operator*=(const Block& v) & { return rebind(detail::keepDType(*this * v, dtype())); }
  TensorRef& operator/=(const Block& v) & { return rebind(detail::keepDType(*this / v, dtype())); }
  template <Arithmetic S> TensorRef& operator+=(S v) & { return rebind(detail::keepDType(*this + v, dtype())); }
  template <Arithmetic S> TensorRef& operator-=(S v) & { return rebind(detail::keepDType(*this - v, dtype())); }
  template <Arithmetic S> TensorRef& operator*=(S v) & { return rebind(detail::keepDType(*this * v, dtype())); }
  template <Arithmetic S> TensorRef& operator/=(S v) & { return rebind(detail::keepDType(*this / v, dtype())); }

  /// Stores `value` through the offsets this subscript resolved.
  TensorRef& store(const Block& value);
  /// hl::atomic_add: adds `value` (broadcast) to the tensor's elements one by one, each
  /// read fresh, so an element indexed twice gets both additions.
  void atomicAdd(const Block& value);

private:
  TensorRef& rebind(const Block& value) {
    Block::operator=(value);
    tensor_ = Tensor();
    offsets_.clear();
    return *this;
  }

  Tensor tensor_;
  std::vector<int64_t> offsets_;
};

} // namespace helion::hl

namespace helion::detail {

inline void requireCpu(const Tensor& t, const char* what) {
  if (!t.defined())
    fail("{}: the tensor is undefined", what);
  if (t.device().type != DeviceType::CPU)
    fail("{}: ref mode loads and stores CPU tensors only, this one is on {} (use .cpu())", what,
         t.device());
}

inline void requireIntegerIndex(const hl::Block& b, const char* what) {
  if (!rules::isIndexDtype(dtype_name(b.dtype())))
    throw Error(rules::indexDtypeMessage(what, dtype_name(b.dtype())));
}

inline int64_t checkedCoordinate(int64_t i, int64_t size, size_t dim, const char* what) {
  if (i < 0 || i >= size)
    fail("{}: index {} is out of bounds for dimension {} of size {}", what, i, dim, size);
  return i;
}

/// Resolves a subscript into an output shape and byte offsets. Every argument adds its
/// own dims (a tile or hl::all one, an index block its rank, an integer none), so the
/// offsets are the outer sum of per-argument contributions. Example: x of strides
/// [10, 1] (f32) with (tile [2, 4), all of size 3) gives shape [2, 3] and offsets
/// {80, 84, 88, 120, 124, 128}.
inline hl::TensorRef subscript(const Tensor& t, const std::vector<hl::IndexArg>& args) {
  requireCpu(t, "subscript");
  std::vector<hl::IndexArg> index;
  for (const hl::IndexArg& a : args) {
    if (a.kind == hl::IndexArg::Kind::TileND)
      for (const hl::Tile& tile : a.tiles->tiles())
        index.emplace_back(tile);
    else
      index.push_back(a);
  }
  size_t consumed = 0;
  for (const hl::IndexArg& a : index)
    consumed += a.kind != hl::IndexArg::Kind::NewAxis;
  if (consumed > static_cast<size_t>(t.dim()))
    fail("subscript: {} indices for a tensor of rank {}", consumed, t.dim());
  for (size_t d = consumed; d < static_cast<size_t>(t.dim()); ++d)
    index.emplace_back(hl::all);

  std::vector<int64_t> shape, offsets{0};
  const int64_t esize = t.element_size();
  size_t d = 0;
  for (const hl::IndexArg& a : index) {
    std::vector<int64_t> contributions;
    if (a.kind == hl::IndexArg::Kind::NewAxis) {
      shape.push_back(1);
      contributions.push_back(0);
    } else {
      int64_t size = t.size(static_cast<int64_t>(d));
      int64_t stride = t.stride(static_cast<int64_t>(d)) * esize;
      switch (a.kind) {
      case hl::IndexArg::Kind::Tile:
        if (a.tile.begin() < 0 || a.tile.end() > size)
          fail("subscript: tile [{}, {}) is out of bounds for dimension {} of size {}",
               a.tile.begin(), a.tile.end(), d, size);
        shape.push_back(std::max<int64_t>(a.tile.end() - a.tile.begin(), 0));
        for (int64_t i = a.tile.begin(); i < a.tile.end(); ++i)
          contributions.push_back(i * stride);
        break;
      case hl::IndexArg::Kind::All:
        shape.push_back(size);
        for (int64_t i = 0; i < size; ++i)
          contributions.push_back(i * stride);
        break;
      case hl::IndexArg::Kind::Int:
        contributions.push_back(
            checkedCoordinate(a.value < 0 ? a.value + size : a.value, size, d, "subscript") * stride);
        break;
      default:  // Block: a gather along this dimension
        requireIntegerIndex(*a.block, "subscript");
        shape.insert(shape.end(), a.block->shape().begin(), a.block->shape().end());
        for (int64_t k = 0; k < a.block->numel(); ++k)
          contributions.push_back(checkedCoordinate(a.block->getInt(k), size, d, "subscript") * stride);
        break;
      }
      ++d;
    }
    std::vector<int64_t> next;
    next.reserve(offsets.size() * contributions.size());
    for (int64_t o : offsets)
      for (int64_t c : contributions)
        next.push_back(o + c);
    offsets = std::move(next);
  }
  return hl::TensorRef(t, std::move(shape), std::move(offsets));
}

/// Resolves hl::load / hl::store indices: one per dimension, all broadcast together
/// (tiles become their index(), hl::all the whole range), and the optional mask with
/// them. Masked-out elements get offset -1 and their indices are not checked.
inline void resolveBroadcastIndex(const Tensor& t, std::initializer_list<hl::IndexArg> args,
                                  const hl::Block* mask, const char* what,
                                  std::vector<int64_t>& shape, std::vector<int64_t>& offsets) {
  requireCpu(t, what);
  if (args.size() != static_cast<size_t>(t.dim()))
    fail("{}: {} indices for a tensor of rank {}", what, args.size(), t.dim());
  std::vector<hl::Block> blocks;
  for (size_t d = 0; d < args.size(); ++d) {
    const hl::IndexArg& a = args.begin()[d];
    switch (a.kind) {
    case hl::IndexArg::Kind::Tile: blocks.push_back(a.tile.index()); break;
    case hl::IndexArg::Kind::Int: blocks.push_back(hl::Block::scalar(a.value)); break;
    case hl::IndexArg::Kind::All: blocks.push_back(hl::arange(t.size(static_cast<int64_t>(d)))); break;
    case hl::IndexArg::Kind::Block:
      requireIntegerIndex(*a.block, what);
      blocks.push_back(*a.block);
      break;
    default: fail("{}: hl::newaxis and N-D tiles are not indices of {}", what, what);
    }
  }
  shape.clear();
  for (const hl::Block& b : blocks)
    shape = broadcastShapes(shape, b.shape(), what);
  if (mask)
    shape = broadcastShapes(shape, mask->shape(), what);
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  offsets.assign(static_cast<size_t>(n), 0);
  std::vector<bool> active(static_cast<size_t>(n), true);
  if (mask) {
    std::array<std::vector<int64_t>, 1> strides{broadcastStrides(mask->shape(), shape)};
    forEachBroadcast(shape, strides, [&](int64_t k, const std::array<int64_t, 1>& o) {
      active[k] = mask->getFloat(o[0]) != 0;
    });
  }
  for (size_t d = 0; d < blocks.size(); ++d) {
    int64_t size = t.size(static_cast<int64_t>(d));
    int64_t stride = t.stride(static_cast<int64_t>(d)) * t.element_size();
    std::array<std::vector<int64_t>, 1> strides{broadcastStrides(blocks[d].shape(), shape)};
    forEachBroadcast(shape, strides, [&](int64_t k, const std::array<int64_t, 1>& o) {
      if (active[k])
        offsets[k] += checkedCoordinate(blocks[d].getInt(o[0]), size, d, what) * stride;
    });
  }
  for (int64_t k = 0; k < n; ++k)
    if (!active[k])
      offsets[k] = -1;
}

} // namespace helion::detail

namespace helion {

template <class... Index> hl::TensorRef Tensor::operator[](const Index&... index) const {
  return detail::subscript(*this, {hl::IndexArg(index)...});
}

namespace hl {

inline TensorRef::TensorRef(const Tensor& tensor, std::vector<int64_t> shape,
                            std::vector<int64_t> offsets)
    : Block(tensor.dtype(), std::move(shape)), tensor_(tensor), offsets_(std::move(offsets)) {
  const auto* base = static_cast<const unsigned char*>(tensor.data_ptr());
  const DType dtype = tensor.dtype();
  for (int64_t k = 0; k < numel(); ++k) {
    int64_t o = offsets_[k];
    if (o < 0)
      continue;  // masked: stays 0
    if (is_floating(dtype))
      setFloat(k, detail::loadFloat(base + o, dtype));
    else
      setInt(k, detail::loadInt(base + o, dtype));
  }
}

inline TensorRef& TensorRef::store(const Block& value) {
  if (!tensor_.defined())
    detail::fail("store: this block was reassigned and no longer refers to tensor memory");
  if (detail::broadcastShapes(shape(), value.shape(), "store") != shape())
    detail::fail("store: cannot store a block of shape {} into a subscript of shape {}",
                 value.shape(), shape());
  auto* base = static_cast<unsigned char*>(tensor_.data_ptr());
  const DType dtype = tensor_.dtype();
  std::array<std::vector<int64_t>, 1> strides{detail::broadcastStrides(value.shape(), shape())};
  detail::forEachBroadcast(shape(), strides, [&](int64_t k, const std::array<int64_t, 1>& o) {
    int64_t at = offsets_[k];
    if (is_floating(value.dtype())) {
      double v = detail::roundToDType(dtype, value.getFloat(o[0]));
      if (at >= 0)
        detail::storeFloat(base + at, dtype, v);
      setFloat(k, v);
    } else {
      int64_t v = value.getInt(o[0]);
      if (at >= 0)
        detail::storeInt(base + at, dtype, v);
      setInt(k, v);
    }
  });
  return *this;
}

inline void TensorRef::atomicAdd(const Block& value) {
  if (!tensor_.defined())
    detail::fail("atomic_add: this block was reassigned and no longer refers to tensor memory");
  const DType dtype = tensor_.dtype();
  if (!rules::isAtomicDtype(dtype_name(dtype)))
    throw Error(rules::atomicDtypeMessage(dtype_name(dtype)));
  if (detail::broadcastShapes(shape(), value.shape(), "atomic_add") != shape())
    detail::fail("atomic_add: cannot add a block of shape {} into a subscript of shape {}",
                 value.shape(), shape());
  auto* base = static_cast<unsigned char*>(tensor_.data_ptr());
  std::array<std::vector<int64_t>, 1> strides{detail::broadcastStrides(value.shape(), shape())};
  detail::forEachBroadcast(shape(), strides, [&](int64_t k, const std::array<int64_t, 1>& o) {
    int64_t at = offsets_[k];
    if (at < 0)
      return;  // masked out
    if (is_floating(dtype)) {
      // The value is rounded to the tensor's dtype, then the sum (as the GPU's atomics).
      double v = detail::roundToDType(dtype, value.getFloat(o[0]));
      double old = detail::loadFloat(base + at, dtype);
      detail::storeFloat(base + at, dtype, detail::roundToDType(dtype, old + v));
    } else {
      int64_t v = is_floating(value.dtype()) ? detail::floatToInt(dtype, value.getFloat(o[0]))
                                             : value.getInt(o[0]);
      int64_t old = detail::loadInt(base + at, dtype);
      detail::storeInt(base + at, dtype,
                       static_cast<int64_t>(static_cast<uint64_t>(old) + static_cast<uint64_t>(v)));
    }
  });
}

/// `hl::atomic_add(t[i, ...], v)`: t[i, ...] += v, atomically on the GPU; elements that
/// the subscript names several times (a gather with repeated indices) get every addition.
inline void atomic_add(TensorRef&& target, const detail::Operand& value) {
  target.atomicAdd(value.get());
}
/// `hl::atomic_add(t, {i0, i1, ...}, v[, mask])`: the same with hl::store's indices.
inline void atomic_add(const Tensor& t, std::initializer_list<IndexArg> index,
                       const detail::Operand& value) {
  std::vector<int64_t> shape, offsets;
  detail::resolveBroadcastIndex(t, index, nullptr, "atomic_add", shape, offsets);
  TensorRef(t, std::move(shape), std::move(offsets)).atomicAdd(value.get());
}
inline void atomic_add(const Tensor& t, std::initializer_list<IndexArg> index,
                       const detail::Operand& value, const Block& mask) {
  std::vector<int64_t> shape, offsets;
  detail::resolveBroadcastIndex(t, index, &mask, "atomic_add", shape, offsets);
  TensorRef(t, std::move(shape), std::move(offsets)).atomicAdd(value.get());
}

/// `hl::load(t, {i0, i1, ...})`: the element at (i0, i1, ...) for every position of
/// the indices broadcast together, e.g. `hl::load(logits, {tn.index(), labels})` is
/// logits[i, labels[i]] for each i of tn.
inline Block load(const Tensor& t, std::initializer_list<IndexArg> index) {
  std::vector<int64_t> shape, offsets;
  detail::resolveBroadcastIndex(t, index, nullptr, "load", shape, offsets);
  return TensorRef(t, std::move(shape), std::move(offsets));
}
/// The same where `mask` is true; masked-out elements read 0 and are not checked.
inline Block load(const Tensor& t, std::initializer_list<IndexArg> index, const Block& mask) {
  std::vector<int64_t> shape, offsets;
  detail::resolveBroadcastIndex(t, index, &mask, "load", shape, offsets);
  return TensorRef(t, std::move(shape), std::move(offsets));
}

/// `hl::store(t, {i0, i1, ...}, v)`: writes v (broadcast, cast to t's dtype).
inline void store(const Tensor& t, std::initializer_list<IndexArg> index, const Block& value) {
  std::vector<int64_t> shape, offsets;
  detail::resolveBroadcastIndex(t, index, nullptr, "store", shape, offsets);
  TensorRef(t, std::move(shape), std::move(offsets)).store(value);
}
/// The same where `mask` is true.
inline void store(const Tensor& t, std::initializer_list<IndexArg> index, const Block& value,
                  const Block& mask) {
  std::vector<int64_t> shape, offsets;
  detail::resolveBroadcastIndex(t, index, &mask, "store", shape, offsets);
  TensorRef(t, std::move(shape), std::move(offsets)).store(value);
}

} // namespace hl
} // namespace helion
