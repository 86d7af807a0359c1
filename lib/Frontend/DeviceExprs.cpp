//===- DeviceExprs.cpp - Device values ------------------------------------===//
//
// Expressions inside device loops become ir::Expr trees. Calls are matched by
// the callee's qualified name (`helion::hl::exp`), so user namespaces and
// `using` declarations do not matter. Constants fold through Clang's evaluator
// (`-INFINITY` is `-__builtin_inff()`, `hl::tunable` a constexpr).
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include <llvm/ADT/StringMap.h>

#include <cmath>

namespace helion::frontend {

using namespace clang;

namespace {
std::shared_ptr<ir::Expr> makeExpr(ir::ExprKind kind, ir::SourceLoc loc) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = kind;
  e->loc = std::move(loc);
  return e;
}

const llvm::StringMap<ir::UnaryOp>& unaryFunctions() {
  static const llvm::StringMap<ir::UnaryOp> map = {
      {"exp", ir::UnaryOp::Exp},   {"log", ir::UnaryOp::Log},         {"sqrt", ir::UnaryOp::Sqrt},
      {"rsqrt", ir::UnaryOp::Rsqrt}, {"tanh", ir::UnaryOp::Tanh},
      {"sigmoid", ir::UnaryOp::Sigmoid}, {"abs", ir::UnaryOp::Abs}};
  return map;
}

const llvm::StringMap<ir::ReduceOp>& reduceFunctions() {
  static const llvm::StringMap<ir::ReduceOp> map = {{"sum", ir::ReduceOp::Sum},
                                                    {"amax", ir::ReduceOp::Max},
                                                    {"amin", ir::ReduceOp::Min},
                                                    {"mean", ir::ReduceOp::Mean}};
  return map;
}

std::optional<ir::BinaryOp> binaryOp(BinaryOperatorKind k) {
  switch (k) {
  case BO_Add: return ir::BinaryOp::Add;
  case BO_Sub: return ir::BinaryOp::Sub;
  case BO_Mul: return ir::BinaryOp::Mul;
  case BO_Div: return ir::BinaryOp::Div;
  case BO_LT: return ir::BinaryOp::Lt;
  case BO_LE: return ir::BinaryOp::Le;
  case BO_GT: return ir::BinaryOp::Gt;
  case BO_GE: return ir::BinaryOp::Ge;
  case BO_EQ: return ir::BinaryOp::Eq;
  case BO_NE: return ir::BinaryOp::Ne;
  case BO_LAnd: return ir::BinaryOp::And;
  case BO_LOr: return ir::BinaryOp::Or;
  default: return std::nullopt;
  }
}

std::optional<ir::BinaryOp> binaryOp(OverloadedOperatorKind k) {
  switch (k) {
  case OO_Plus: return ir::BinaryOp::Add;
  case OO_Minus: return ir::BinaryOp::Sub;
  case OO_Star: return ir::BinaryOp::Mul;
  case OO_Slash: return ir::BinaryOp::Div;
  case OO_Less: return ir::BinaryOp::Lt;
  case OO_LessEqual: return ir::BinaryOp::Le;
  case OO_Greater: return ir::BinaryOp::Gt;
  case OO_GreaterEqual: return ir::BinaryOp::Ge;
  case OO_EqualEqual: return ir::BinaryOp::Eq;
  case OO_ExclaimEqual: return ir::BinaryOp::Ne;
  case OO_AmpAmp: return ir::BinaryOp::And;
  case OO_PipePipe: return ir::BinaryOp::Or;
  default: return std::nullopt;
  }
}

bool isNamed(const Expr* e, llvm::StringRef qualifiedName) {
  const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(e));
  return ref && ref->getDecl()->getQualifiedNameAsString() == qualifiedName;
}
} // namespace

std::optional<int64_t> KernelLowering::constantInt(const Expr* e) {
  Expr::EvalResult r;
  if (e->isValueDependent() || !e->EvaluateAsInt(r, ctx_))
    return std::nullopt;
  return r.Val.getInt().getExtValue();
}

/// A literal or constant expression of arithmetic type, else null (no diagnostic).
ir::ExprRef KernelLowering::constant(const Expr* e) {
  QualType t = e->getType();
  if (e->isValueDependent() || !(t->isArithmeticType() || t->isEnumeralType()))
    return nullptr;
  Expr::EvalResult r;
  if (!e->EvaluateAsRValue(r, ctx_) || r.HasSideEffects)
    return nullptr;
  ir::SourceLoc at = loc(e->getBeginLoc());
  if (r.Val.isInt())
    return ir::makeConst(static_cast<double>(r.Val.getInt().getExtValue()), true, at);
  if (r.Val.isFloat())
    return ir::makeConst(r.Val.getFloat().convertToDouble(), false, at);
  return nullptr;
}

std::optional<ir::ScalarType> KernelLowering::literalDType(const Expr* e) {
  const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(e));
  if (ref) {
    std::string q = ref->getDecl()->getQualifiedNameAsString();
    llvm::StringRef name(q);
    if (name.consume_front("helion::hl::") || name.consume_front("helion::DType::"))
      if (auto t = ir::parseScalarType(name.str()))
        return t;
  }
  return std::nullopt;
}

std::optional<int> KernelLowering::tensorOf(const Expr* e) {
  const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(e));
  if (!ref && isa<CallExpr>(ignoreWrappers(e)) && !lowerExpr(e))
    return std::nullopt; // its own diagnostic (an allocation, a call) says more
  if (!ref || !isClass(ref->getType(), "helion::Tensor")) {
    error(e->getBeginLoc(), "expected a tensor parameter or host tensor variable, found '" +
                                spelling(e) + "'");
    return std::nullopt;
  }
  return tensorParam(ref->getDecl(), ref->getLocation());
}

std::optional<int> KernelLowering::tileOf(const Expr* e) {
  const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(e));
  if (!ref)
    return std::nullopt;
  auto it = tileOf_.find(ref->getDecl());
  if (it == tileOf_.end())
    return std::nullopt;
  return it->second;
}

ir::ExprRef KernelLowering::lowerExpr(const Expr* e) {
  if (!e)
    return nullptr;
  e = ignoreWrappers(e);
  if (ir::ExprRef c = constant(e))
    return c;
  ir::SourceLoc at = loc(e->getExprLoc());
  if (const auto* ref = dyn_cast<DeclRefExpr>(e))
    return lowerDeclRef(ref);
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e))
    return lowerOperatorCall(op);
  if (const auto* m = dyn_cast<CXXMemberCallExpr>(e))
    return lowerMemberCall(m);
  if (const auto* call = dyn_cast<CallExpr>(e))
    return lowerCall(call);
  if (const auto* b = dyn_cast<BinaryOperator>(e)) {
    if (b->isAssignmentOp())
      return error(b->getOperatorLoc(), "assignments inside expressions are not supported in "
                                        "device code");
    auto op = binaryOp(b->getOpcode());
    if (!op)
      return error(b->getOperatorLoc(), "unsupported operator '" + b->getOpcodeStr().str() +
                                            "' in device code");
    ir::ExprRef l = lowerExpr(b->getLHS()), r = lowerExpr(b->getRHS());
    return l && r ? ir::makeBinary(*op, l, r, loc(b->getOperatorLoc())) : nullptr;
  }
  if (const auto* u = dyn_cast<UnaryOperator>(e)) {
    switch (u->getOpcode()) {
    case UO_AddrOf:
    case UO_Deref:
      return error(u->getOperatorLoc(), "device code cannot use pointers ('" +
                                            UnaryOperator::getOpcodeStr(u->getOpcode()).str() +
                                            "')");
    case UO_Plus: return lowerExpr(u->getSubExpr());
    case UO_Minus:
    case UO_LNot: {
      ir::ExprRef a = lowerExpr(u->getSubExpr());
      return a ? ir::makeUnary(u->getOpcode() == UO_Minus ? ir::UnaryOp::Neg : ir::UnaryOp::Not, a,
                               loc(u->getOperatorLoc()))
               : nullptr;
    }
    default:
      return error(u->getOperatorLoc(), "unsupported operator '" +
                                            UnaryOperator::getOpcodeStr(u->getOpcode()).str() +
                                            "' in device code");
    }
  }
  if (const auto* c = dyn_cast<ConditionalOperator>(e)) {
    ir::ExprRef a = lowerExpr(c->getCond()), b = lowerExpr(c->getTrueExpr()),
                d = lowerExpr(c->getFalseExpr());
    if (!a || !b || !d)
      return nullptr;
    auto w = makeExpr(ir::ExprKind::Where, loc(c->getQuestionLoc()));
    w->operands = {a, b, d};
    return w;
  }
  if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) {
    auto to = [&]() -> std::optional<ir::ScalarType> {
      QualType t = cast->getTypeAsWritten().getCanonicalType();
      if (t->isSpecificBuiltinType(BuiltinType::Float)) return ir::ScalarType::F32;
      if (t->isSpecificBuiltinType(BuiltinType::Double)) return ir::ScalarType::F64;
      if (t->isSpecificBuiltinType(BuiltinType::Bool)) return ir::ScalarType::B8;
      if (t->isIntegerType())
        switch (ctx_.getTypeSize(t)) {
        case 64: return ir::ScalarType::I64;
        case 32: return ir::ScalarType::I32;
        case 8: return ir::ScalarType::I8;
        }
      return std::nullopt;
    }();
    if (!to)
      return error(e->getBeginLoc(), "unsupported cast to '" +
                                         cast->getTypeAsWritten().getAsString() +
                                         "' in device code: expected an arithmetic type");
    ir::ExprRef a = lowerExpr(cast->getSubExpr());
    return a ? ir::makeCast(a, *to, at) : nullptr;
  }
  if (isa<CXXThrowExpr>(e))
    return error(e->getBeginLoc(), "device code cannot throw exceptions");
  if (isa<CXXNewExpr, CXXDeleteExpr>(e))
    return error(e->getBeginLoc(), "device code cannot allocate memory ('new'/'delete')");
  if (isa<CXXThisExpr>(e))
    return error(e->getBeginLoc(), "device code cannot use pointers ('this')");
  if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && isClass(c->getType(), "helion::Tensor"))
    return error(e->getBeginLoc(), "device code cannot allocate tensors: allocate them in host "
                                   "code before the device loop");
  if (isa<LambdaExpr>(e))
    return error(e->getBeginLoc(), "unsupported construct in device code: lambda");
  return error(e->getBeginLoc(), std::string("unsupported construct in device code: ") +
                                     e->getStmtClassName());
}

ir::ExprRef KernelLowering::lowerDeclRef(const DeclRefExpr* ref) {
  const ValueDecl* d = ref->getDecl();
  ir::SourceLoc at = loc(ref->getLocation());
  if (auto it = varOf_.find(d); it != varOf_.end())
    return ir::makeVarRef(it->second, at);
  if (auto it = tileOf_.find(d); it != tileOf_.end()) {
    const ir::TileVar& t = kernel_.tiles[it->second];
    if (t.isGrid) { // a grid index is its tile's begin (block size 1)
      auto e = makeExpr(ir::ExprKind::TileAttr, at);
      e->tile = t.id;
      e->attr = ir::TileAttr::Begin;
      return e;
    }
    return error(ref->getLocation(), "tile '" + t.name + "' cannot be used as a value: use it in "
                                     "a subscript or a shape, or call .index(), .begin(), ...");
  }
  std::string q = d->getQualifiedNameAsString();
  if (q == "helion::hl::all" || q == "helion::hl::newaxis")
    return error(ref->getLocation(), "'" + q.substr(8) + "' can only be used in a subscript");
  if (isa<FunctionDecl>(d))
    return error(ref->getLocation(), "device code cannot take the address of function '" + q + "'");
  if (isClass(d->getType(), "helion::Tensor")) {
    if (isHostDecl(d) || paramOf_.count(d))
      return error(ref->getLocation(), "tensor '" + d->getNameAsString() +
                                           "' must be subscripted in device code (x[tile, ...]) "
                                           "or passed to hl::load/hl::store");
  }
  if (d->getType()->isPointerType())
    return error(ref->getLocation(), "device code cannot use pointers: '" + d->getNameAsString() +
                                         "' has type '" + d->getType().getAsString() + "'");
  if (!isHostDecl(d) && !paramOf_.count(d))
    return error(ref->getLocation(), "device code cannot read '" + q +
                                         "': expected a kernel parameter, a host local or a "
                                         "device variable");
  auto p = scalarParam(d, ref->getLocation());
  return p ? ir::makeParamRef(*p, at) : nullptr;
}

ir::ExprRef KernelLowering::lowerOperatorCall(const CXXOperatorCallExpr* op) {
  OverloadedOperatorKind k = op->getOperator();
  ir::SourceLoc at = loc(op->getOperatorLoc());
  if (k == OO_Subscript)
    return lowerSubscript(op);
  if (k == OO_Equal || k == OO_PlusEqual || k == OO_MinusEqual || k == OO_StarEqual ||
      k == OO_SlashEqual)
    return error(op->getOperatorLoc(), "assignments inside expressions are not supported in "
                                       "device code");
  if (op->getNumArgs() == 1 && (k == OO_Minus || k == OO_Exclaim || k == OO_Plus)) {
    ir::ExprRef a = lowerExpr(op->getArg(0));
    if (!a || k == OO_Plus)
      return a;
    return ir::makeUnary(k == OO_Minus ? ir::UnaryOp::Neg : ir::UnaryOp::Not, a, at);
  }
  if (op->getNumArgs() == 2)
    if (auto b = binaryOp(k)) {
      ir::ExprRef l = lowerExpr(op->getArg(0)), r = lowerExpr(op->getArg(1));
      return l && r ? ir::makeBinary(*b, l, r, at) : nullptr;
    }
  if (k == OO_Amp || k == OO_Star || k == OO_Arrow)
    return error(op->getOperatorLoc(), "device code cannot use pointers");
  std::string name = op->getDirectCallee() ? op->getDirectCallee()->getQualifiedNameAsString()
                                           : std::string("operator");
  return error(op->getOperatorLoc(), "device code cannot call '" + name + "'");
}

/// `x[tm, hl::all]` on a tensor is a Load; on a block, a View.
ir::ExprRef KernelLowering::lowerSubscript(const CXXOperatorCallExpr* op) {
  const Expr* object = op->getArg(0);
  std::vector<const Expr*> args(op->arg_begin() + 1, op->arg_end());
  std::vector<ir::Index> indices;
  if (isClass(object->getType(), "helion::Tensor")) {
    auto p = tensorOf(object);
    bool ok = lowerIndices(args, indices);
    if (!p || !ok)
      return nullptr;
    return ir::makeLoad(*p, std::move(indices), loc(op->getBeginLoc()));
  }
  ir::ExprRef base = lowerExpr(object);
  bool ok = lowerIndices(args, indices);
  if (!base || !ok)
    return nullptr;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i].kind != ir::Index::Kind::All && indices[i].kind != ir::Index::Kind::NewAxis)
      return error(args[i]->getBeginLoc(), "a block can only be subscripted with hl::all and "
                                           "hl::newaxis, found '" + spelling(args[i]) + "'");
  auto v = makeExpr(ir::ExprKind::View, loc(op->getBeginLoc()));
  v->operands = {base};
  v->indices = std::move(indices);
  return v;
}

std::optional<ir::Index> KernelLowering::lowerIndex(const Expr* e) {
  const Expr* s = ignoreWrappers(e);
  if (isNamed(s, "helion::hl::all"))
    return ir::Index::all();
  if (isNamed(s, "helion::hl::newaxis"))
    return ir::Index::newAxis();
  if (auto t = tileOf(s)) {
    const ir::TileVar& tv = kernel_.tiles[*t];
    if (tv.isGrid)
      return ir::Index::scalar(lowerExpr(s));
    return tv.flatOfParam >= 0 ? ir::Index::flat(*t) : ir::Index::ofTile(*t);
  }
  ir::ExprRef v = lowerExpr(s);
  if (!v)
    return std::nullopt;
  if (s->getType()->isIntegralOrEnumerationType())
    return ir::Index::scalar(std::move(v));
  if (s->getType()->isArithmeticType()) {
    error(s->getBeginLoc(), "expected an integer index, found '" + s->getType().getAsString() + "'");
    return std::nullopt;
  }
  return ir::Index::gather(std::move(v));
}

bool KernelLowering::lowerIndices(llvm::ArrayRef<const Expr*> args, std::vector<ir::Index>& out) {
  bool ok = true;
  for (const Expr* a : args) {
    if (isa<CXXDefaultArgExpr>(a))
      continue;
    auto i = lowerIndex(a);
    if (!i) {
      ok = false;
      continue;
    }
    out.push_back(std::move(*i));
  }
  return ok;
}

/// `{tm, tn, d}`: tiles become Tile dims, integers One dims with a shapeSizes entry.
bool KernelLowering::lowerShape(const Expr* list, ir::Expr& into) {
  auto elems = listElements(list);
  if (!elems) {
    error(list->getBeginLoc(), "expected a braced shape such as {tm, tn}, found '" +
                                   spelling(list) + "'");
    return false;
  }
  bool ok = true;
  for (const Expr* e : *elems) {
    if (auto t = tileOf(e); t && !kernel_.tiles[*t].isGrid) {
      into.shape.push_back(ir::Dim::ofTile(*t));
      continue;
    }
    ir::ExprRef size = lowerExpr(e);
    if (!size) {
      ok = false;
      continue;
    }
    into.shape.push_back(ir::Dim::one());
    into.shapeSizes.push_back(std::move(size));
  }
  return ok;
}

ir::ExprRef KernelLowering::lowerCall(const CallExpr* call) {
  std::string q = calleeName(call);
  // Diagnostics point at the callee's name: `exp` in `hl::exp(x)`.
  SourceLocation where = call->getBeginLoc();
  if (const Expr* callee = call->getCallee()) {
    callee = callee->IgnoreParenImpCasts();
    if (const auto* ref = dyn_cast<DeclRefExpr>(callee))
      where = ref->getLocation();
    else
      where = callee->getExprLoc();
  }
  ir::SourceLoc at = loc(where);
  auto args = writtenArgs(call);
  llvm::StringRef name(q);
  auto arity = [&](size_t lo, size_t hi, const char* form) -> bool {
    if (args.size() >= lo && args.size() <= hi)
      return true;
    error(where, std::string("expected ") + form + ", found " + std::to_string(args.size()) +
                     " argument" + (args.size() == 1 ? "" : "s"));
    return false;
  };
  auto operands = [&](size_t from = 0) -> std::optional<std::vector<ir::ExprRef>> {
    std::vector<ir::ExprRef> ops;
    bool ok = true;
    for (size_t i = from; i < args.size(); ++i) {
      ops.push_back(lowerExpr(args[i]));
      ok = ok && ops.back();
    }
    if (!ok)
      return std::nullopt;
    return ops;
  };

  if (name == "helion::empty" || name == "helion::empty_like" || name == "helion::zeros")
    return error(where, "device code cannot allocate tensors ('" + q + "'): allocate them in "
                        "host code before the device loop");
  if (!name.consume_front("helion::hl::")) {
    // std::sqrt(double) is ::sqrt from <math.h> in libstdc++: both get the hint.
    name.consume_front("std::");
    if (name.size() && (unaryFunctions().count(name) || name == "max" || name == "min" ||
                        name == "fmax" || name == "fmin"))
      return error(where, "device code cannot call '" + spelling(call->getCallee()) +
                              "': use hl::" +
                              (name.ends_with("max") ? std::string("maximum")
                               : name.ends_with("min") ? std::string("minimum")
                                                       : name.str()));
    return error(where, "device code cannot call '" + (q.empty() ? spelling(call->getCallee()) : q) + "'");
  }
  if (auto it = unaryFunctions().find(name); it != unaryFunctions().end()) {
    if (!arity(1, 1, ("hl::" + name.str() + "(block)").c_str()))
      return nullptr;
    auto ops = operands();
    return ops ? ir::makeUnary(it->second, (*ops)[0], at) : nullptr;
  }
  if (name == "maximum" || name == "minimum") {
    if (!arity(2, 2, ("hl::" + name.str() + "(a, b)").c_str()))
      return nullptr;
    auto ops = operands();
    return ops ? ir::makeBinary(name == "maximum" ? ir::BinaryOp::Maximum : ir::BinaryOp::Minimum,
                                (*ops)[0], (*ops)[1], at)
               : nullptr;
  }
  if (name == "where") {
    if (!arity(3, 3, "hl::where(cond, a, b)"))
      return nullptr;
    auto ops = operands();
    if (!ops)
      return nullptr;
    auto w = makeExpr(ir::ExprKind::Where, at);
    w->operands = std::move(*ops);
    return w;
  }
  if (auto it = reduceFunctions().find(name); it != reduceFunctions().end()) {
    if (!arity(2, 3, ("hl::" + name.str() + "(block, dim[, keepdim])").c_str()))
      return nullptr;
    auto dim = constantInt(args[1]);
    if (!dim)
      return error(args[1]->getBeginLoc(), "expected a constant reduction dim, found '" +
                                               spelling(args[1]) + "'");
    std::optional<int64_t> keep = args.size() == 3 ? constantInt(args[2]) : 0;
    if (!keep)
      return error(args[2]->getBeginLoc(), "expected a constant keepdim, found '" +
                                               spelling(args[2]) + "'");
    ir::ExprRef a = lowerExpr(args[0]);
    return a ? ir::makeReduce(it->second, a, static_cast<int>(*dim), *keep != 0, at) : nullptr;
  }
  if (name == "zeros" || name == "full") {
    bool full = name == "full";
    if (!arity(full ? 2 : 1, full ? 3 : 2,
               full ? "hl::full(shape, value[, dtype])" : "hl::zeros(shape[, dtype])"))
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Full, at);
    bool ok = lowerShape(args[0], *e);
    ir::ExprRef value = full ? lowerExpr(args[1]) : ir::makeConst(0, false, at);
    size_t dtypeArg = full ? 2 : 1;
    if (args.size() > dtypeArg) {
      e->castTo = literalDType(args[dtypeArg]);
      if (!e->castTo)
        return error(args[dtypeArg]->getBeginLoc(), "expected a dtype such as hl::f32, found '" +
                                                        spelling(args[dtypeArg]) + "'");
    }
    if (!ok || !value)
      return nullptr;
    e->operands = {value};
    return e;
  }
  if (name == "arange") {
    // The IR's Arange starts at 0: hl::arange(begin, end) is not expressible yet.
    if (!arity(1, 1, "hl::arange(size)"))
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Arange, at);
    if (auto t = tileOf(args[0]); t && !kernel_.tiles[*t].isGrid) {
      e->shape.push_back(ir::Dim::ofTile(*t));
      return e;
    }
    ir::ExprRef size = lowerExpr(args[0]);
    if (!size)
      return nullptr;
    e->shape.push_back(ir::Dim::one());
    e->shapeSizes.push_back(size);
    return e;
  }
  if (name == "dot" || name == "addmm") {
    bool addmm = name == "addmm";
    if (!arity(addmm ? 3 : 2, 3, addmm ? "hl::addmm(acc, a, b)" : "hl::dot(a, b[, acc])"))
      return nullptr;
    auto ops = operands();
    if (!ops)
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Dot, at);
    e->operands = addmm ? std::vector<ir::ExprRef>{(*ops)[1], (*ops)[2], (*ops)[0]} : *ops;
    return e;
  }
  if (name == "load") {
    if (!arity(2, 3, "hl::load(tensor, {indices...}[, mask])"))
      return nullptr;
    auto p = tensorOf(args[0]);
    auto list = listElements(args[1]);
    if (!list)
      return error(args[1]->getBeginLoc(), "expected a braced list of indices, found '" +
                                               spelling(args[1]) + "'");
    std::vector<ir::Index> indices;
    bool ok = lowerIndices(*list, indices);
    ir::ExprRef mask = args.size() == 3 ? lowerExpr(args[2]) : nullptr;
    if (!p || !ok || (args.size() == 3 && !mask))
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Load, at);
    e->param = *p;
    e->indices = std::move(indices);
    e->gatherAll = true;
    if (mask) // the optional mask of hl::load rides as operands[0]
      e->operands.push_back(mask);
    return e;
  }
  if (name == "store")
    return error(where, "hl::store is a statement: it cannot be used as a value");
  if (name == "tile" || name == "grid")
    return error(where, "hl::" + name.str() + " can only be the range of a for loop");
  if (name == "specialize" || name == "register_block_size")
    return error(where, "hl::" + name.str() + " belongs in host code, before the device loop");
  return error(where, "device code cannot call '" + q + "'");
}

ir::ExprRef KernelLowering::lowerMemberCall(const CXXMemberCallExpr* call) {
  const CXXMethodDecl* md = call->getMethodDecl();
  SourceLocation where = call->getExprLoc();
  ir::SourceLoc at = loc(where);
  if (!md)
    return error(where, "unsupported construct in device code: call through a member pointer");
  std::string method = md->getNameAsString();
  if (md->isVirtual())
    return error(where, "device code cannot make virtual calls ('" +
                            md->getQualifiedNameAsString() + "')");
  const Expr* object = call->getImplicitObjectArgument();
  auto args = writtenArgs(call);
  QualType objType = call->getObjectType();

  if (isClass(objType, "helion::hl::Tile")) {
    auto t = tileOf(object);
    if (!t)
      return error(object->getBeginLoc(), "expected a tile loop variable, found '" +
                                              spelling(object) + "'");
    if (method == "index") {
      auto e = makeExpr(ir::ExprKind::TileIndex, at);
      e->tile = *t;
      return e;
    }
    static const llvm::StringMap<ir::TileAttr> attrs = {{"begin", ir::TileAttr::Begin},
                                                        {"end", ir::TileAttr::End},
                                                        {"block_size", ir::TileAttr::BlockSize},
                                                        {"id", ir::TileAttr::Id}};
    auto it = attrs.find(method);
    if (it == attrs.end())
      return error(where, "device code cannot call '" + md->getQualifiedNameAsString() + "'");
    auto e = makeExpr(ir::ExprKind::TileAttr, at);
    e->tile = *t;
    e->attr = it->second;
    return e;
  }
  if (isClass(objType, "helion::Tensor")) {
    if (method == "size" && args.size() == 1) {
      auto p = tensorOf(object);
      auto dim = constantInt(args[0]);
      if (!dim)
        return error(args[0]->getBeginLoc(), "expected a constant dim, found '" +
                                                 spelling(args[0]) + "'");
      if (!p)
        return nullptr;
      auto e = makeExpr(ir::ExprKind::TensorSize, at);
      e->param = *p;
      e->dim = static_cast<int>(*dim);
      return e;
    }
    if (method == "dtype")
      return error(where, "'" + spelling(object) + ".dtype()' can only be used as the argument "
                          "of .to(...) in device code");
    return error(where, "device code cannot call '" + md->getQualifiedNameAsString() + "'");
  }
  if (method == "to" && args.size() == 1) {
    ir::ExprRef a = lowerExpr(object);
    if (auto t = literalDType(args[0]))
      return a ? ir::makeCast(a, *t, at) : nullptr;
    // `p.to(v.dtype())`: Cast without castTo means the dtype of tensor `param`.
    const auto* dt = dyn_cast<CXXMemberCallExpr>(ignoreWrappers(args[0]));
    if (dt && dt->getMethodDecl() && dt->getMethodDecl()->getNameAsString() == "dtype" &&
        isClass(dt->getObjectType(), "helion::Tensor")) {
      auto p = tensorOf(dt->getImplicitObjectArgument());
      if (!p || !a)
        return nullptr;
      auto e = makeExpr(ir::ExprKind::Cast, at);
      e->operands = {a};
      e->param = *p;
      return e;
    }
    return error(args[0]->getBeginLoc(), "expected a dtype such as hl::f32 or t.dtype() of a "
                                         "tensor, found '" + spelling(args[0]) + "'");
  }
  if (method == "transpose" && args.size() == 2) {
    auto d0 = constantInt(args[0]), d1 = constantInt(args[1]);
    if (!d0 || !d1)
      return error(args[d0 ? 1 : 0]->getBeginLoc(), "expected constant dims in .transpose(i, j)");
    ir::ExprRef a = lowerExpr(object);
    if (!a)
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Transpose, at);
    e->operands = {a};
    e->dim = static_cast<int>(*d0);
    e->dim2 = static_cast<int>(*d1);
    return e;
  }
  if (method == "reshape" && args.size() == 1) {
    ir::ExprRef a = lowerExpr(object);
    auto e = makeExpr(ir::ExprKind::Reshape, at);
    bool ok = lowerShape(args[0], *e);
    if (!a || !ok)
      return nullptr;
    e->operands = {a};
    return e;
  }
  return error(where, "device code cannot call '" + md->getQualifiedNameAsString() + "'");
}

} // namespace helion::frontend
