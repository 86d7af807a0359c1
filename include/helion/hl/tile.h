// Tiles and the loops that yield them: hl::tile, hl::grid, block sizes.
//
// In ref mode a tile loop is a plain sequential loop. Block sizes the source leaves
// to the config ("tunable") come from helion::ref::block_size(), so tests can run the
// same kernel under several block sizes; an edge tile is clamped (end() is at most the
// loop's end) and the blocks it loads have the clamped extent, so no masks are needed.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "helion/hl/error.h"

namespace helion {

namespace ref {
namespace detail {
/// 0 means "not set yet": the first read consults HELION_REF_BLOCK_SIZE.
inline std::atomic<int64_t> blockSize{0};

inline int64_t blockSizeFromEnvironment() {
  const char* text = std::getenv("HELION_REF_BLOCK_SIZE");
  if (!text || !*text)
    return 32;
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 1)
    helion::detail::fail("HELION_REF_BLOCK_SIZE must be a positive integer, got '{}'", text);
  return value;
}
} // namespace detail

/// The block size ref mode gives every tile loop whose block size the source leaves to
/// the config: HELION_REF_BLOCK_SIZE if set, else 32. Any positive value works (1 and
/// 7 are good at finding kernels whose results depend on the block size).
inline int64_t block_size() {
  int64_t current = detail::blockSize.load();
  if (current == 0) {
    current = detail::blockSizeFromEnvironment();
    detail::blockSize.store(current);
  }
  return current;
}

inline void set_block_size(int64_t size) {
  if (size < 1)
    helion::detail::fail("ref::set_block_size: expected a positive block size, got {}", size);
  detail::blockSize.store(size);
}

/// Sets the ref-mode block size for a scope: `helion::ref::ScopedBlockSize bs(7);`.
class ScopedBlockSize {
public:
  explicit ScopedBlockSize(int64_t size) : previous_(block_size()) { set_block_size(size); }
  ~ScopedBlockSize() { detail::blockSize.store(previous_); }
  ScopedBlockSize(const ScopedBlockSize&) = delete;
  ScopedBlockSize& operator=(const ScopedBlockSize&) = delete;

private:
  int64_t previous_;
};
} // namespace ref

namespace hl {

class Block;

/// One tile of a tile loop: the half-open range [begin(), end()) of one dimension.
class Tile {
public:
  Tile() = default;
  Tile(int64_t begin, int64_t end, int64_t blockSize, int64_t id)
      : begin_(begin), end_(end), blockSize_(blockSize), id_(id) {}
  int64_t begin() const { return begin_; }
  /// Clamped at the loop's end, so the last tile may be shorter than block_size().
  int64_t end() const { return end_; }
  /// The loop's block size (not clamped).
  int64_t block_size() const { return blockSize_; }
  /// Which tile of the loop this is: 0, 1, 2, ...
  int64_t id() const { return id_; }
  /// An i64 block of the indices begin() .. end()-1.
  Block index() const;

private:
  int64_t begin_ = 0, end_ = 0, blockSize_ = 1, id_ = 0;
};

/// The tile of an N-D loop whose rank is only known at run time (`hl::tile(x.sizes())`);
/// subscripting a tensor with it, `x[tile]`, indexes every dimension.
class TileND {
public:
  TileND() = default;
  explicit TileND(std::vector<Tile> tiles) : tiles_(std::move(tiles)) {}
  size_t size() const { return tiles_.size(); }
  const Tile& operator[](size_t i) const { return tiles_[i]; }
  const std::vector<Tile>& tiles() const { return tiles_; }

private:
  std::vector<Tile> tiles_;
};

/// `hl::tunable`: leaves a block size to the config (in ref mode: ref::block_size()).
struct Tunable {};
inline constexpr Tunable tunable{};

/// One entry of hl::block_size(...): a fixed size or hl::tunable.
struct BlockSizeSpec {
  constexpr BlockSizeSpec(int64_t size) : value(size) {}
  constexpr BlockSizeSpec(Tunable) : value(0) {}
  int64_t value;  // 0 means tunable
};

/// Block sizes fixed by the source, one per loop dimension.
class BlockSize {
public:
  explicit BlockSize(std::vector<int64_t> sizes) : sizes_(std::move(sizes)) {
    for (int64_t s : sizes_)
      if (s < 0)
        detail::fail("block_size: expected a positive block size or hl::tunable, got {}", s);
  }
  size_t size() const { return sizes_.size(); }
  /// The ref-mode block size of dimension `i`.
  int64_t resolved(size_t i) const { return sizes_[i] ? sizes_[i] : ref::block_size(); }

private:
  std::vector<int64_t> sizes_;
};

inline BlockSize block_size(BlockSizeSpec size) { return BlockSize({size.value}); }
inline BlockSize block_size(std::initializer_list<BlockSizeSpec> sizes) {
  std::vector<int64_t> values;
  for (BlockSizeSpec s : sizes)
    values.push_back(s.value);
  return BlockSize(std::move(values));
}

} // namespace hl

namespace detail {
inline int64_t checkedBlockSize(int64_t b) {
  if (b < 1)
    fail("tile: block size must be positive, got {}", b);
  return b;
}
inline std::vector<int64_t> resolveBlockSizes(const hl::BlockSize* fixed, size_t rank) {
  if (fixed && fixed->size() != rank)
    fail("tile: {} block sizes given for a loop over {} dimensions",
                         fixed->size(), rank);
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i)
    out[i] = checkedBlockSize(fixed ? fixed->resolved(i) : ref::block_size());
  return out;
}
inline hl::Tile makeTile(int64_t begin, int64_t end, int64_t blockSize, int64_t id) {
  int64_t start = begin + id * blockSize;
  return hl::Tile(start, std::min(end, start + blockSize), blockSize, id);
}
inline int64_t tileCount(int64_t begin, int64_t end, int64_t blockSize) {
  return end > begin ? (end - begin + blockSize - 1) / blockSize : 0;
}
} // namespace detail

namespace hl {

/// The range of a 1-D tile loop; iterating yields Tile.
class TileRange {
public:
  TileRange(int64_t begin, int64_t end, int64_t blockSize)
      : begin_(begin), end_(end), blockSize_(detail::checkedBlockSize(blockSize)) {}
  struct iterator {
    const TileRange* range;
    int64_t id;
    Tile operator*() const { return detail::makeTile(range->begin_, range->end_, range->blockSize_, id); }
    iterator& operator++() { ++id; return *this; }
    bool operator!=(const iterator& other) const { return id != other.id; }
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, detail::tileCount(begin_, end_, blockSize_)}; }

private:
  int64_t begin_, end_, blockSize_;
};

/// The range of an N-D tile loop (rank known at compile time); iterating yields
/// std::array<Tile, N>, the last dimension varying fastest.
template <size_t N> class TileRangeN {
public:
  TileRangeN(const std::array<int64_t, N>& ends, const std::vector<int64_t>& blockSizes)
      : ends_(ends) {
    count_ = 1;
    for (size_t i = 0; i < N; ++i) {
      blockSizes_[i] = blockSizes[i];
      counts_[i] = detail::tileCount(0, ends_[i], blockSizes_[i]);
      count_ *= counts_[i];
    }
  }
  struct iterator {
    const TileRangeN* range;
    int64_t flat;
    std::array<Tile, N> operator*() const {
      std::array<Tile, N> tiles;
      int64_t rest = flat;
      for (size_t i = N; i-- > 0;) {
        tiles[i] = detail::makeTile(0, range->ends_[i], range->blockSizes_[i], rest % range->counts_[i]);
        rest /= range->counts_[i];
      }
      return tiles;
    }
    iterator& operator++() { ++flat; return *this; }
    bool operator!=(const iterator& other) const { return flat != other.flat; }
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, count_}; }

private:
  std::array<int64_t, N> ends_, blockSizes_{}, counts_{};
  int64_t count_ = 0;
};

/// The range of an N-D tile loop whose rank is known at run time; yields TileND.
class TileRangeND {
public:
  TileRangeND(std::vector<int64_t> ends, std::vector<int64_t> blockSizes)
      : ends_(std::move(ends)), blockSizes_(std::move(blockSizes)) {
    count_ = 1;
    for (size_t i = 0; i < ends_.size(); ++i) {
      counts_.push_back(detail::tileCount(0, ends_[i], blockSizes_[i]));
      count_ *= counts_.back();
    }
  }
  struct iterator {
    const TileRangeND* range;
    int64_t flat;
    TileND operator*() const {
      std::vector<Tile> tiles(range->ends_.size());
      int64_t rest = flat;
      for (size_t i = tiles.size(); i-- > 0;) {
        tiles[i] = detail::makeTile(0, range->ends_[i], range->blockSizes_[i], rest % range->counts_[i]);
        rest /= range->counts_[i];
      }
      return TileND(std::move(tiles));
    }
    iterator& operator++() { ++flat; return *this; }
    bool operator!=(const iterator& other) const { return flat != other.flat; }
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, count_}; }

private:
  std::vector<int64_t> ends_, blockSizes_, counts_;
  int64_t count_ = 0;
};

/// The range of hl::grid: scalar indices begin .. end-1 (block size 1).
class GridRange {
public:
  GridRange(int64_t begin, int64_t end) : begin_(begin), end_(std::max(begin, end)) {}
  struct iterator {
    int64_t value;
    int64_t operator*() const { return value; }
    iterator& operator++() { ++value; return *this; }
    bool operator!=(const iterator& other) const { return value != other.value; }
  };
  iterator begin() const { return {begin_}; }
  iterator end() const { return {end_}; }

private:
  int64_t begin_, end_;
};

/// `for (auto t : hl::tile(n))`: tiles of [0, n).
inline TileRange tile(int64_t end) { return TileRange(0, end, ref::block_size()); }
/// `for (auto t : hl::tile(b, e))`: tiles of [b, e).
inline TileRange tile(int64_t begin, int64_t end) { return TileRange(begin, end, ref::block_size()); }
/// `hl::tile(n, hl::block_size(64))`: a block size fixed by the source.
inline TileRange tile(int64_t end, const BlockSize& size) {
  return TileRange(0, end, detail::resolveBlockSizes(&size, 1)[0]);
}
inline TileRange tile(int64_t begin, int64_t end, const BlockSize& size) {
  return TileRange(begin, end, detail::resolveBlockSizes(&size, 1)[0]);
}
/// `for (auto [tm, tn] : hl::tile({m, n}))`.
template <size_t N> TileRangeN<N> tile(const int64_t (&ends)[N]) {
  std::array<int64_t, N> e;
  std::copy(ends, ends + N, e.begin());
  return TileRangeN<N>(e, detail::resolveBlockSizes(nullptr, N));
}
/// `hl::tile({m, n}, hl::block_size({1, hl::tunable}))`.
template <size_t N> TileRangeN<N> tile(const int64_t (&ends)[N], const BlockSize& size) {
  std::array<int64_t, N> e;
  std::copy(ends, ends + N, e.begin());
  return TileRangeN<N>(e, detail::resolveBlockSizes(&size, N));
}
/// `for (auto t : hl::tile(x.sizes()))`: every dimension of a tensor; `x[t]` subscripts.
inline TileRangeND tile(const std::vector<int64_t>& ends) {
  return TileRangeND(ends, detail::resolveBlockSizes(nullptr, ends.size()));
}
inline TileRangeND tile(const std::vector<int64_t>& ends, const BlockSize& size) {
  return TileRangeND(ends, detail::resolveBlockSizes(&size, ends.size()));
}

/// `for (int64_t i : hl::grid(n))`: scalar indices.
inline GridRange grid(int64_t end) { return GridRange(0, end); }
inline GridRange grid(int64_t begin, int64_t end) { return GridRange(begin, end); }

/// An extra tunable block size for loops over a dimension of `size` elements, to share
/// between loops via hl::block_size(b). Ref mode: ref::block_size().
inline int64_t register_block_size(int64_t size) {
  (void)size;
  return ref::block_size();
}
/// The same, bounded to [lo, hi] (ref mode: ref::block_size() clamped to the bounds).
inline int64_t register_block_size(int64_t lo, int64_t hi) {
  if (lo < 1 || hi < lo)
    detail::fail("register_block_size: expected 1 <= lo <= hi, got lo={} hi={}", lo, hi);
  return std::clamp(ref::block_size(), lo, hi);
}

/// Makes a size part of the specialization key (a compile-time constant in the
/// generated kernel). Ref mode: the value itself.
inline int64_t specialize(int64_t value) { return value; }

} // namespace hl
} // namespace helion
