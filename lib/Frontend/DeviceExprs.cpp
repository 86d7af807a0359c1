//===- DeviceExprs.cpp - Device values ------------------------------------===//
//
// Expressions inside device loops become ir::Expr trees: constants, operators,
// variables and tiles here; subscripts and shapes in DeviceIndexing.cpp; calls
// of hl:: functions and of Tensor and tile methods in DeviceCalls.cpp. Calls are
// matched by the callee's qualified name (`helion::hl::exp`), so user namespaces
// and `using` declarations do not matter. Constants fold through Clang's
// evaluator (`-INFINITY` is `-__builtin_inff()`, `hl::tunable` a constexpr).
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

namespace helion::frontend {

using namespace clang;

std::shared_ptr<ir::Expr> makeExpr(ir::ExprKind kind, ir::SourceLoc loc) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = kind;
  e->loc = std::move(loc);
  return e;
}

bool isNamed(const Expr* e, llvm::StringRef qualifiedName) {
  const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(e));
  return ref && ref->getDecl()->getQualifiedNameAsString() == qualifiedName;
}

namespace {
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
  case BO_Rem: return ir::BinaryOp::Mod;
  case BO_And: return ir::BinaryOp::BitAnd;
  case BO_Or: return ir::BinaryOp::BitOr;
  case BO_Xor: return ir::BinaryOp::BitXor;
  case BO_Shl: return ir::BinaryOp::Shl;
  case BO_Shr: return ir::BinaryOp::Shr;
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
  // hl::operator& | ^ on blocks: bitwise on integers, logical on b8 masks; a unary &
  // is a pointer (below).
  case OO_Amp: return ir::BinaryOp::BitAnd;
  case OO_Pipe: return ir::BinaryOp::BitOr;
  case OO_Caret: return ir::BinaryOp::BitXor;
  case OO_Percent: return ir::BinaryOp::Mod;
  case OO_LessLess: return ir::BinaryOp::Shl;
  case OO_GreaterGreater: return ir::BinaryOp::Shr;
  default: return std::nullopt;
  }
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
    case UO_LNot:
    case UO_Not: {
      ir::ExprRef a = lowerExpr(u->getSubExpr());
      ir::UnaryOp op = u->getOpcode() == UO_Minus ? ir::UnaryOp::Neg
                       : u->getOpcode() == UO_Not ? ir::UnaryOp::BitNot
                                                  : ir::UnaryOp::Not;
      return a ? ir::makeUnary(op, a, loc(u->getOperatorLoc())) : nullptr;
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
      k == OO_SlashEqual || k == OO_PercentEqual || k == OO_AmpEqual || k == OO_PipeEqual ||
      k == OO_CaretEqual || k == OO_LessLessEqual || k == OO_GreaterGreaterEqual)
    return error(op->getOperatorLoc(), "assignments inside expressions are not supported in "
                                       "device code");
  if (op->getNumArgs() == 1 && (k == OO_Minus || k == OO_Exclaim || k == OO_Plus || k == OO_Tilde)) {
    ir::ExprRef a = lowerExpr(op->getArg(0));
    if (!a || k == OO_Plus)
      return a;
    return ir::makeUnary(k == OO_Minus   ? ir::UnaryOp::Neg
                         : k == OO_Tilde ? ir::UnaryOp::BitNot
                                         : ir::UnaryOp::Not,
                         a, at);
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

} // namespace helion::frontend
