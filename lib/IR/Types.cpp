//===- Types.cpp - Element types ------------------------------------------===//
#include "helion/IR/Types.h"

#include <iterator>

namespace helion::ir {

const char* scalarTypeName(ScalarType t) {
  switch (t) {
  case ScalarType::F16: return "f16";
  case ScalarType::BF16: return "bf16";
  case ScalarType::F32: return "f32";
  case ScalarType::F64: return "f64";
  case ScalarType::I8: return "i8";
  case ScalarType::I32: return "i32";
  case ScalarType::I64: return "i64";
  case ScalarType::B8: return "b8";
  case ScalarType::U8: return "u8";
  case ScalarType::F8E4M3: return "f8e4m3";
  case ScalarType::F8E5M2: return "f8e5m2";
  }
  return "?";
}

namespace {
/// Every dtype a name can give, in the order messages list them.
constexpr ScalarType kNamedTypes[] = {ScalarType::F16, ScalarType::BF16,   ScalarType::F32,
                                      ScalarType::F64, ScalarType::I8,     ScalarType::I32,
                                      ScalarType::I64, ScalarType::B8,     ScalarType::U8,
                                      ScalarType::F8E4M3, ScalarType::F8E5M2};
} // namespace

std::optional<ScalarType> parseScalarType(const std::string& name) {
  for (ScalarType t : kNamedTypes)
    if (name == scalarTypeName(t))
      return t;
  return std::nullopt;
}

std::string scalarTypeNames() {
  std::string out;
  const size_t n = std::size(kNamedTypes);
  for (size_t i = 0; i < n; ++i) {
    out += i == 0 ? "" : i + 1 == n ? " or " : ", ";
    out += scalarTypeName(kNamedTypes[i]);
  }
  return out;
}

bool isFloat(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16 || t == ScalarType::F32 ||
         t == ScalarType::F64 || isFloat8(t);
}

bool isFloat8(ScalarType t) { return t == ScalarType::F8E4M3 || t == ScalarType::F8E5M2; }

int scalarTypeBytes(ScalarType t) {
  switch (t) {
  case ScalarType::F16:
  case ScalarType::BF16: return 2;
  case ScalarType::F32:
  case ScalarType::I32: return 4;
  case ScalarType::F64:
  case ScalarType::I64: return 8;
  case ScalarType::I8:
  case ScalarType::B8:
  case ScalarType::U8:
  case ScalarType::F8E4M3:
  case ScalarType::F8E5M2: return 1;
  }
  return 4;
}

ElemType ElemType::concrete(ScalarType t) {
  ElemType e;
  e.kind_ = Kind::Concrete;
  e.scalar_ = t;
  return e;
}

ElemType ElemType::ofParam(int param) {
  ElemType e;
  e.kind_ = Kind::OfParam;
  e.param_ = param;
  return e;
}

// PyTorch promotion between concrete types: bool < ints < floats; among floats,
// f16 and bf16 promote to f32. u8 with i8 gives i32 (torch: i16, which helion lacks).
// The 8-bit floats never meet arithmetic (infer-types rejects it); they rank as f16.
static ScalarType promoteConcrete(ScalarType a, ScalarType b) {
  if (a == b)
    return a;
  auto rank = [](ScalarType t) {
    switch (t) {
    case ScalarType::B8: return 0;
    case ScalarType::I8:
    case ScalarType::U8: return 1;
    case ScalarType::I32: return 2;
    case ScalarType::I64: return 3;
    case ScalarType::F16: return 4;
    case ScalarType::BF16:
    case ScalarType::F8E4M3:
    case ScalarType::F8E5M2: return 4;
    case ScalarType::F32: return 5;
    case ScalarType::F64: return 6;
    }
    return 0;
  };
  if (rank(a) == 4 && rank(b) == 4)
    return ScalarType::F32;
  if (rank(a) == 1 && rank(b) == 1)
    return ScalarType::I32; // u8 and i8
  return rank(a) >= rank(b) ? a : b;
}

ElemType ElemType::promote(const ElemType& a, const ElemType& b) {
  if (a == b)
    return a;
  if (a.isConcrete() && b.isConcrete())
    return concrete(promoteConcrete(a.scalar(), b.scalar()));
  // f64 absorbs everything; a concrete bool never wins.
  if (a.isConcrete() && a.scalar() == ScalarType::F64)
    return a;
  if (b.isConcrete() && b.scalar() == ScalarType::F64)
    return b;
  ElemType e;
  e.kind_ = Kind::Promote;
  e.lhs_ = std::make_shared<ElemType>(a);
  e.rhs_ = std::make_shared<ElemType>(b);
  return e;
}

bool ElemType::operator==(const ElemType& o) const {
  if (kind_ != o.kind_)
    return false;
  switch (kind_) {
  case Kind::Concrete: return scalar_ == o.scalar_;
  case Kind::OfParam: return param_ == o.param_;
  case Kind::Promote: return *lhs_ == *o.lhs_ && *rhs_ == *o.rhs_;
  }
  return false;
}

std::string ElemType::str(const std::vector<std::string>& paramNames) const {
  switch (kind_) {
  case Kind::Concrete: return scalarTypeName(scalar_);
  case Kind::OfParam:
    return "dtype(" +
           (param_ >= 0 && param_ < static_cast<int>(paramNames.size()) ? paramNames[param_]
                                                                        : "?") +
           ")";
  case Kind::Promote: return "promote(" + lhs_->str(paramNames) + ", " + rhs_->str(paramNames) + ")";
  }
  return "?";
}

} // namespace helion::ir
