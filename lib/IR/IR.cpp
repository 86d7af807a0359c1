//===- IR.cpp - Node builders and names ------------------------------------===//
#include "helion/IR/IR.h"

namespace helion::ir {

const char* unaryOpName(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "neg";
  case UnaryOp::Not: return "not";
  case UnaryOp::Exp: return "exp";
  case UnaryOp::Log: return "log";
  case UnaryOp::Sqrt: return "sqrt";
  case UnaryOp::Rsqrt: return "rsqrt";
  case UnaryOp::Tanh: return "tanh";
  case UnaryOp::Sigmoid: return "sigmoid";
  case UnaryOp::Abs: return "abs";
  case UnaryOp::Erf: return "erf";
  case UnaryOp::Floor: return "floor";
  case UnaryOp::Ceil: return "ceil";
  case UnaryOp::Round: return "round";
  case UnaryOp::Sin: return "sin";
  case UnaryOp::Cos: return "cos";
  case UnaryOp::Log1p: return "log1p";
  case UnaryOp::Exp2: return "exp2";
  case UnaryOp::Log2: return "log2";
  case UnaryOp::BitNot: return "bitnot";
  }
  return "?";
}

const char* binaryOpName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "add";
  case BinaryOp::Sub: return "sub";
  case BinaryOp::Mul: return "mul";
  case BinaryOp::Div: return "div";
  case BinaryOp::Maximum: return "maximum";
  case BinaryOp::Minimum: return "minimum";
  case BinaryOp::Lt: return "lt";
  case BinaryOp::Le: return "le";
  case BinaryOp::Gt: return "gt";
  case BinaryOp::Ge: return "ge";
  case BinaryOp::Eq: return "eq";
  case BinaryOp::Ne: return "ne";
  case BinaryOp::And: return "and";
  case BinaryOp::Or: return "or";
  case BinaryOp::Mod: return "mod";
  case BinaryOp::BitAnd: return "bitand";
  case BinaryOp::BitOr: return "bitor";
  case BinaryOp::BitXor: return "bitxor";
  case BinaryOp::Shl: return "shl";
  case BinaryOp::Shr: return "shr";
  case BinaryOp::Pow: return "pow";
  }
  return "?";
}

const char* reduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum: return "sum";
  case ReduceOp::Max: return "amax";
  case ReduceOp::Min: return "amin";
  case ReduceOp::Mean: return "mean";
  case ReduceOp::ArgMax: return "argmax";
  case ReduceOp::ArgMin: return "argmin";
  }
  return "?";
}

const char* pidName(GridMapping::Pid pid) {
  switch (pid) {
  case GridMapping::Pid::Flat: return "flat";
  case GridMapping::Pid::Xyz: return "xyz";
  case GridMapping::Pid::PersistentBlocked: return "persistent_blocked";
  case GridMapping::Pid::PersistentInterleaved: return "persistent_interleaved";
  }
  return "?";
}

const char* mmaRoleName(MmaRole role) {
  switch (role) {
  case MmaRole::None: return "none";
  case MmaRole::Row: return "rows";
  case MmaRole::Col: return "cols";
  }
  return "?";
}

const char* evictionName(Eviction e) {
  switch (e) {
  case Eviction::None: return "none";
  case Eviction::First: return "evict_first";
  case Eviction::Last: return "evict_last";
  }
  return "?";
}

std::vector<std::string> Kernel::paramNames() const {
  std::vector<std::string> names;
  names.reserve(params.size());
  for (const Param& p : params)
    names.push_back(p.name);
  return names;
}

static std::shared_ptr<Expr> make(ExprKind kind, SourceLoc loc) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->loc = std::move(loc);
  return e;
}

ExprRef makeConst(double v, bool isInt, SourceLoc loc) {
  auto e = make(ExprKind::Const, std::move(loc));
  e->value = v;
  e->isInt = isInt;
  return e;
}

ExprRef makeParamRef(int param, SourceLoc loc) {
  auto e = make(ExprKind::Param, std::move(loc));
  e->param = param;
  return e;
}

ExprRef makeVarRef(int var, SourceLoc loc) {
  auto e = make(ExprKind::Var, std::move(loc));
  e->var = var;
  return e;
}

ExprRef makeUnary(UnaryOp op, ExprRef a, SourceLoc loc) {
  auto e = make(ExprKind::Unary, std::move(loc));
  e->unary = op;
  e->operands = {std::move(a)};
  return e;
}

ExprRef makeBinary(BinaryOp op, ExprRef a, ExprRef b, SourceLoc loc) {
  auto e = make(ExprKind::Binary, std::move(loc));
  e->binary = op;
  e->operands = {std::move(a), std::move(b)};
  return e;
}

ExprRef makeCast(ExprRef a, ScalarType to, SourceLoc loc) {
  auto e = make(ExprKind::Cast, std::move(loc));
  e->castTo = to;
  e->operands = {std::move(a)};
  return e;
}

ExprRef makeReduce(ReduceOp op, ExprRef a, int dim, bool keepdim, SourceLoc loc) {
  auto e = make(ExprKind::Reduce, std::move(loc));
  e->reduce = op;
  e->dim = dim;
  e->keepdim = keepdim;
  e->operands = {std::move(a)};
  return e;
}

std::pair<size_t, size_t> operandArity(ExprKind kind) {
  switch (kind) {
  case ExprKind::Const:
  case ExprKind::Param:
  case ExprKind::Var:
  case ExprKind::TileAttr:
  case ExprKind::TileIndex:
  case ExprKind::TensorSize:
  case ExprKind::Arange: return {0, 0};
  case ExprKind::Load: return {0, 1}; // the mask of hl::load
  case ExprKind::Unary:
  case ExprKind::Cast:
  case ExprKind::Reduce:
  case ExprKind::Full:
  case ExprKind::View:
  case ExprKind::Transpose:
  case ExprKind::Reshape: return {1, 1};
  case ExprKind::Scan: return {1, 1};
  case ExprKind::Binary:
  case ExprKind::Rand: return {2, 2};
  case ExprKind::Where: return {3, 3};
  case ExprKind::Dot: return {2, 3};
  }
  return {0, 0};
}

ExprRef makeLoad(int param, std::vector<Index> indices, SourceLoc loc) {
  auto e = make(ExprKind::Load, std::move(loc));
  e->param = param;
  e->indices = std::move(indices);
  return e;
}

ExprRef withType(const ExprRef& e, BlockType type) {
  auto copy = std::make_shared<Expr>(*e);
  copy->type = std::move(type);
  return copy;
}

ExprRef withOperands(const ExprRef& e, std::vector<ExprRef> operands) {
  auto copy = std::make_shared<Expr>(*e);
  copy->operands = std::move(operands);
  return copy;
}

} // namespace helion::ir
