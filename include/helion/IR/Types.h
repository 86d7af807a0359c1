//===- helion/IR/Types.h - Element types, dims and block types --*- C++ -*-===//
//
// Every device value is a *block*: an n-d array whose dims are tiles of the
// kernel's tile loops, whole tensor dimensions (`hl::all`), or broadcast dims
// of size one (`hl::newaxis`). A scalar is a block of rank zero.
//
// Kernels are dtype-generic: one source serves f16, bf16 and f32. Element types
// are therefore either concrete, or "the dtype of tensor parameter p", or the
// promotion of two of those; the emitted CUDA is a template over the tensor
// parameters' dtypes, so the C++ compiler resolves the symbolic ones.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace helion::ir {

/// Where a construct came from in the kernel's source (1-based line/column).
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
  bool valid() const { return line > 0; }
};

/// F8E4M3 / F8E5M2: torch.float8_e4m3fn / torch.float8_e5m2, storage only (a block of
/// them is cast before arithmetic); U8: torch.uint8.
enum class ScalarType : uint8_t { F16, BF16, F32, F64, I8, I32, I64, B8, U8, F8E4M3, F8E5M2 };

/// `f16`, `bf16`, ... as spelled in the language (`hl::f16`).
const char* scalarTypeName(ScalarType t);
std::optional<ScalarType> parseScalarType(const std::string& name);
/// The names parseScalarType takes, for messages: "f16, bf16, ..., f8e4m3 or f8e5m2".
std::string scalarTypeNames();
bool isFloat(ScalarType t);
bool isFloat8(ScalarType t);
int scalarTypeBytes(ScalarType t);

/// The element type of a block: concrete, a tensor parameter's dtype, or a
/// promotion (PyTorch rules) of two element types.
class ElemType {
public:
  enum class Kind : uint8_t { Concrete, OfParam, Promote };

  static ElemType concrete(ScalarType t);
  static ElemType ofParam(int param);
  /// Simplifies when both sides are equal or concrete.
  static ElemType promote(const ElemType& a, const ElemType& b);

  Kind kind() const { return kind_; }
  ScalarType scalar() const { return scalar_; }
  int param() const { return param_; }
  const ElemType& lhs() const { return *lhs_; }
  const ElemType& rhs() const { return *rhs_; }
  bool isConcrete() const { return kind_ == Kind::Concrete; }
  /// True for concrete float types and for tensor dtypes (tensors hold floats
  /// unless the signature says otherwise).
  bool operator==(const ElemType& o) const;

  /// `f32`, `dtype(x)`, `promote(dtype(x), f32)`; parameter names come from the caller.
  std::string str(const std::vector<std::string>& paramNames) const;

private:
  Kind kind_ = Kind::Concrete;
  ScalarType scalar_ = ScalarType::F32;
  int param_ = -1;
  std::shared_ptr<const ElemType> lhs_, rhs_;
};

/// One dim of a block.
struct Dim {
  enum class Kind : uint8_t {
    Tile, ///< the tile of tile variable `tile` (its block size, clamped at the edge)
    Full, ///< a whole tensor dimension: `axis` names the reduction axis it belongs to
    One,  ///< a broadcast dim of size one
  };
  Kind kind = Kind::One;
  int tile = -1;   ///< Tile: the tile variable's id
  int axis = -1;   ///< Full: the kernel's axis id (see Kernel::axes)

  static Dim ofTile(int t) { return {Kind::Tile, t, -1}; }
  static Dim full(int axis) { return {Kind::Full, -1, axis}; }
  static Dim one() { return {Kind::One, -1, -1}; }
  bool operator==(const Dim& o) const = default;
};

struct BlockType {
  ElemType elem;
  std::vector<Dim> dims;
  int rank() const { return static_cast<int>(dims.size()); }
  bool isScalar() const { return dims.empty(); }
};

} // namespace helion::ir
