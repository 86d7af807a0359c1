// A declarations-only stand-in for <helion/hl.h>, used by the frontend's dev driver
// while the real header is not there. Same qualified names as the language (language.md).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#if defined(__clang__)
#define HELION_KERNEL [[clang::annotate("helion.kernel")]]
#else
#define HELION_KERNEL
#endif
#define HELION_CHECK(cond, ...) ((void)(cond))

namespace helion {
enum class DType : int8_t { f16, bf16, f32, f64, i8, i32, i64, b8 };
struct Device {};
class Tensor;

namespace hl {
inline constexpr DType f16 = DType::f16;
inline constexpr DType bf16 = DType::bf16;
inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i8 = DType::i8;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType b8 = DType::b8;

struct AllT {};
struct NewAxisT {};
inline constexpr AllT all{};
inline constexpr NewAxisT newaxis{};
inline constexpr int64_t tunable = -1;

class Block;
class Tile {
public:
  int64_t begin() const;
  int64_t end() const;
  int64_t block_size() const;
  int64_t id() const;
  Block index() const;
};

struct ShapeDim {
  ShapeDim(const Tile&);
  ShapeDim(int64_t);
};

class Block {
public:
  Block(double);
  Block(const Block&);
  Block& operator=(const Block&);
  template <class... I> Block operator[](const I&... idx) const;
  Block to(DType) const;
  Block transpose(int, int) const;
  Block reshape(std::initializer_list<ShapeDim>) const;
};
Block operator+(const Block&, const Block&);
Block operator-(const Block&, const Block&);
Block operator*(const Block&, const Block&);
Block operator/(const Block&, const Block&);
Block operator<(const Block&, const Block&);
Block operator>(const Block&, const Block&);
Block operator<=(const Block&, const Block&);
Block operator>=(const Block&, const Block&);
Block operator==(const Block&, const Block&);
Block operator!=(const Block&, const Block&);
Block operator-(const Block&);
Block& operator+=(Block&, const Block&);
Block& operator*=(Block&, const Block&);

struct BlockSizeSpec {
  BlockSizeSpec(int64_t);
  template <size_t N> BlockSizeSpec(const int64_t (&)[N]);
};
BlockSizeSpec block_size(int64_t);
template <size_t N> BlockSizeSpec block_size(const int64_t (&)[N]);

struct TileIter {
  Tile operator*() const;
  TileIter& operator++();
  bool operator!=(const TileIter&) const;
};
struct TileRange {
  TileIter begin() const;
  TileIter end() const;
};
template <size_t N> struct TileIterN {
  std::array<Tile, N> operator*() const;
  TileIterN& operator++();
  bool operator!=(const TileIterN&) const;
};
template <size_t N> struct TileRangeN {
  TileIterN<N> begin() const;
  TileIterN<N> end() const;
};
struct GridIter {
  int64_t operator*() const;
  GridIter& operator++();
  bool operator!=(const GridIter&) const;
};
struct GridRange {
  GridIter begin() const;
  GridIter end() const;
};

TileRange tile(int64_t end);
TileRange tile(int64_t end, BlockSizeSpec);
TileRange tile(int64_t begin, int64_t end);
TileRange tile(int64_t begin, int64_t end, BlockSizeSpec);
TileRange tile(const std::vector<int64_t>& sizes);
template <size_t N> TileRangeN<N> tile(const int64_t (&ends)[N]);
template <size_t N> TileRangeN<N> tile(const int64_t (&ends)[N], BlockSizeSpec);
GridRange grid(int64_t end);
GridRange grid(int64_t begin, int64_t end);

int64_t register_block_size(int64_t max);
int64_t register_block_size(int64_t min, int64_t max);
template <class T> T specialize(T v);

Block load(const Tensor&, std::initializer_list<Block>);
Block load(const Tensor&, std::initializer_list<Block>, const Block& mask);
void store(const Tensor&, std::initializer_list<Block>, const Block& value);
void store(const Tensor&, std::initializer_list<Block>, const Block& value, const Block& mask);

Block zeros(std::initializer_list<ShapeDim>, DType = f32);
Block full(std::initializer_list<ShapeDim>, double, DType = f32);
Block arange(int64_t);
Block arange(const Tile&);

Block exp(const Block&);
Block log(const Block&);
Block sqrt(const Block&);
Block rsqrt(const Block&);
Block tanh(const Block&);
Block sigmoid(const Block&);
Block abs(const Block&);
Block maximum(const Block&, const Block&);
Block minimum(const Block&, const Block&);
Block where(const Block&, const Block&, const Block&);
Block sum(const Block&, int dim, bool keepdim = false);
Block amax(const Block&, int dim, bool keepdim = false);
Block amin(const Block&, int dim, bool keepdim = false);
Block mean(const Block&, int dim, bool keepdim = false);
Block dot(const Block&, const Block&);
Block dot(const Block&, const Block&, const Block&);
Block addmm(const Block&, const Block&, const Block&);
} // namespace hl

class Tensor {
public:
  Tensor();
  Tensor(const Tensor&);
  Tensor& operator=(const Tensor&);
  template <class... I> hl::Block operator[](const I&... idx) const;
  DType dtype() const;
  Device device() const;
  int64_t dim() const;
  int64_t size(int64_t) const;
  std::vector<int64_t> sizes() const;
  int64_t numel() const;
  template <size_t N> std::array<int64_t, N> shape() const;
};
Tensor empty(const std::vector<int64_t>&, DType, Device = {});
Tensor empty_like(const Tensor&);
Tensor zeros(const std::vector<int64_t>&, DType, Device = {});
} // namespace helion

namespace hl = helion::hl;
