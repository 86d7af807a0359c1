//===- DeviceStmts.cpp - Tile loops and device statements ------------------===//
//
//   for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({1, hl::tunable})))
//
// becomes one For over two TileVars, each with its BlockSizeDecl (bs0 fixed 1,
// bs1 tunable with hint %n). Inside, `auto v = e;` is a Let, `v = e;` an Assign,
// `t[i, j] = v;` and `hl::store(...)` are Stores, nested tile loops are Fors.
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

namespace helion::frontend {

using namespace clang;

namespace {
std::shared_ptr<ir::Stmt> makeStmt(ir::StmtKind kind, ir::SourceLoc loc) {
  auto s = std::make_shared<ir::Stmt>();
  s->kind = kind;
  s->loc = std::move(loc);
  return s;
}

std::optional<ir::BinaryOp> compoundOp(BinaryOperatorKind k) {
  switch (k) {
  case BO_AddAssign: return ir::BinaryOp::Add;
  case BO_SubAssign: return ir::BinaryOp::Sub;
  case BO_MulAssign: return ir::BinaryOp::Mul;
  case BO_DivAssign: return ir::BinaryOp::Div;
  case BO_RemAssign: return ir::BinaryOp::Mod;
  case BO_AndAssign: return ir::BinaryOp::BitAnd;
  case BO_OrAssign: return ir::BinaryOp::BitOr;
  case BO_XorAssign: return ir::BinaryOp::BitXor;
  case BO_ShlAssign: return ir::BinaryOp::Shl;
  case BO_ShrAssign: return ir::BinaryOp::Shr;
  default: return std::nullopt;
  }
}

std::optional<ir::BinaryOp> compoundOp(OverloadedOperatorKind k) {
  switch (k) {
  case OO_PlusEqual: return ir::BinaryOp::Add;
  case OO_MinusEqual: return ir::BinaryOp::Sub;
  case OO_StarEqual: return ir::BinaryOp::Mul;
  case OO_SlashEqual: return ir::BinaryOp::Div;
  case OO_PercentEqual: return ir::BinaryOp::Mod;
  case OO_AmpEqual: return ir::BinaryOp::BitAnd;
  case OO_PipeEqual: return ir::BinaryOp::BitOr;
  case OO_CaretEqual: return ir::BinaryOp::BitXor;
  case OO_LessLessEqual: return ir::BinaryOp::Shl;
  case OO_GreaterGreaterEqual: return ir::BinaryOp::Shr;
  default: return std::nullopt;
  }
}
} // namespace

/// A block size spec entry: `hl::tunable`, a constant, or a register_block_size variable.
std::optional<int> KernelLowering::blockSizeFor(const Expr* spec, const std::string& name,
                                                ir::SourceLoc at, ir::ExprRef hint) {
  ir::BlockSizeDecl bs;
  bs.id = static_cast<int>(kernel_.blockSizes.size());
  bs.name = name;
  bs.loc = at;
  bs.sizeHint = std::move(hint);
  if (spec) {
    spec = ignoreWrappers(spec);
    const auto* ref = dyn_cast<DeclRefExpr>(spec);
    if (ref && ref->getDecl()->getQualifiedNameAsString() == "helion::hl::tunable") {
      // tunable: a fresh block size of the config
    } else if (auto it = ref ? registeredBlockSize_.find(ref->getDecl())
                             : registeredBlockSize_.end();
               ref && it != registeredBlockSize_.end()) {
      return it->second;
    } else if (auto c = constantInt(spec)) {
      if (*c < 1) {
        error(spec->getBeginLoc(), "block size must be positive, found " + std::to_string(*c));
        return std::nullopt;
      }
      bs.fixed = *c;
    } else {
      error(spec->getBeginLoc(), "expected a constant block size, hl::tunable or a variable from "
                                 "hl::register_block_size, found '" + spelling(spec) + "'");
      return std::nullopt;
    }
  }
  kernel_.blockSizes.push_back(std::move(bs));
  return kernel_.blockSizes.back().id;
}

ir::StmtRef KernelLowering::lowerTileLoop(const CXXForRangeStmt* loop) {
  const auto* call = cast<CallExpr>(ignoreWrappers(loop->getRangeInit()));
  bool grid = calleeName(call) == "helion::hl::grid";
  auto args = writtenArgs(call);

  // Loop variables: `auto t` or `auto [t0, t1, ...]`.
  std::vector<const ValueDecl*> vars;
  const VarDecl* loopVar = loop->getLoopVariable();
  if (const auto* dd = dyn_cast<DecompositionDecl>(loopVar))
    for (const BindingDecl* b : dd->bindings())
      vars.push_back(b);
  else
    vars.push_back(loopVar);

  // Trailing hl::block_size(...).
  std::vector<const Expr*> sizeSpecs;
  bool hasSpec = false;
  if (!args.empty())
    if (const auto* bsCall = dyn_cast<CallExpr>(ignoreWrappers(args.back()));
        bsCall && calleeName(bsCall) == "helion::hl::block_size") {
      if (grid)
        return error(bsCall->getBeginLoc(), "hl::grid takes no block size: its block size is 1");
      hasSpec = true;
      args.pop_back();
      auto specArgs = writtenArgs(bsCall);
      if (specArgs.size() == 1) {
        if (auto list = listElements(specArgs[0]))
          sizeSpecs = *list;
        else
          sizeSpecs.push_back(specArgs[0]);
      }
    }

  std::vector<ir::ExprRef> begins, ends;
  int flatOf = -1;
  ir::SourceLoc callLoc = loc(call->getExprLoc());
  auto list = args.size() == 1 && !grid ? listElements(args[0]) : std::nullopt;
  if (list) {
    for (const Expr* e : *list) {
      begins.push_back(ir::makeConst(0, true, loc(e->getBeginLoc())));
      ends.push_back(lowerExpr(e));
    }
  } else if (const auto* sizes = args.size() == 1 ? dyn_cast<CXXMemberCallExpr>(ignoreWrappers(args[0]))
                                                  : nullptr;
             sizes && !grid && sizes->getMethodDecl() &&
             sizes->getMethodDecl()->getNameAsString() == "sizes") {
    auto p = tensorOf(sizes->getImplicitObjectArgument());
    if (!p)
      return nullptr;
    flatOf = *p;
    // The end of a flat tile is numel(t); TensorSize dim -1 stands for it.
    auto end = std::make_shared<ir::Expr>();
    end->kind = ir::ExprKind::TensorSize;
    end->loc = loc(sizes->getExprLoc());
    end->param = *p;
    end->dim = -1;
    begins.push_back(ir::makeConst(0, true, callLoc));
    ends.push_back(end);
  } else if (args.size() == 1 || args.size() == 2) {
    begins.push_back(args.size() == 2 ? lowerExpr(args[0]) : ir::makeConst(0, true, callLoc));
    ends.push_back(lowerExpr(args.back()));
  } else {
    return error(call->getExprLoc(), std::string("unsupported form of ") +
                                         (grid ? "hl::grid" : "hl::tile") +
                                         ": expected (end), (begin, end) or ({ends...})");
  }
  for (size_t i = 0; i < ends.size(); ++i)
    if (!begins[i] || !ends[i])
      return nullptr;
  if (flatOf >= 0 && vars.size() != 1)
    return error(loopVar->getLocation(), "a tile over 't.sizes()' is one N-D tile: expected one "
                                         "loop variable");
  if (vars.size() != ends.size())
    return error(loopVar->getLocation(),
                 "expected " + std::to_string(ends.size()) + " loop variable" +
                     (ends.size() == 1 ? "" : "s") + " for " + std::to_string(ends.size()) +
                     "-D tiles, found " + std::to_string(vars.size()));
  if (hasSpec && sizeSpecs.size() != ends.size())
    return error(call->getExprLoc(), "expected " + std::to_string(ends.size()) +
                                         " block size(s) in hl::block_size, found " +
                                         std::to_string(sizeSpecs.size()));

  auto forStmt = makeStmt(ir::StmtKind::For, loc(loop->getForLoc()));
  for (size_t i = 0; i < vars.size(); ++i) {
    ir::TileVar t;
    t.id = static_cast<int>(kernel_.tiles.size());
    t.name = vars[i]->getNameAsString();
    t.loc = loc(vars[i]->getLocation());
    t.begin = begins[i];
    t.end = ends[i];
    t.isGrid = grid;
    t.flatOfParam = flatOf;
    if (!grid) {
      ir::ExprRef hint = t.end;
      if (const auto& b = t.begin; b->kind != ir::ExprKind::Const || b->value != 0)
        hint = ir::makeBinary(ir::BinaryOp::Sub, t.end, t.begin, t.end->loc);
      auto bs = blockSizeFor(hasSpec ? sizeSpecs[i] : nullptr, t.name, t.loc, hint);
      if (!bs)
        return nullptr;
      t.blockSize = *bs;
    }
    tileOf_[vars[i]] = t.id;
    forStmt->tiles.push_back(t.id);
    kernel_.tiles.push_back(std::move(t));
  }
  lowerStmt(loop->getBody(), forStmt->body);
  return forStmt;
}

void KernelLowering::lowerStmt(const Stmt* s, std::vector<ir::StmtRef>& out) {
  if (!s)
    return;
  if (const auto* c = dyn_cast<CompoundStmt>(s)) {
    for (const Stmt* child : c->body())
      lowerStmt(child, out);
    return;
  }
  if (isa<NullStmt>(s))
    return;
  // A helper called in this statement puts its statements in `out`, before it.
  struct PendingScope {
    std::vector<ir::StmtRef>*& slot;
    std::vector<ir::StmtRef>* saved;
    ~PendingScope() { slot = saved; }
  } scope{pending_, pending_};
  pending_ = &out;
  if (const auto* e = dyn_cast<Expr>(s))
    return lowerExprStmt(e, out);
  if (const auto* loop = dyn_cast<CXXForRangeStmt>(s)) {
    const auto* call = dyn_cast_or_null<CallExpr>(ignoreWrappers(loop->getRangeInit()));
    std::string name = call ? calleeName(call) : "";
    if (name != "helion::hl::tile" && name != "helion::hl::grid") {
      error(loop->getForLoc(), "unsupported construct in device code: a range-based for loop "
                               "over something other than hl::tile or hl::grid");
      return;
    }
    if (ir::StmtRef f = lowerTileLoop(loop))
      out.push_back(std::move(f));
    return;
  }
  if (const auto* ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl* d : ds->decls()) {
      const auto* v = dyn_cast<VarDecl>(d);
      if (!v) {
        if (!isa<TypedefNameDecl, UsingDecl, UsingDirectiveDecl, StaticAssertDecl>(d))
          error(d->getLocation(), std::string("unsupported construct in device code: ") +
                                      d->getDeclKindName() + " declaration");
        continue;
      }
      if (isa<DecompositionDecl>(v)) {
        error(v->getLocation(), "unsupported construct in device code: structured bindings");
        continue;
      }
      if (v->getType()->isPointerType() || v->getType()->isMemberPointerType()) {
        error(v->getLocation(), "device code cannot use pointers: '" + v->getNameAsString() +
                                    "' has type '" + v->getType().getAsString() + "'");
        continue;
      }
      if (!v->hasLocalStorage()) {
        error(v->getLocation(), "device variables cannot be static or thread_local");
        continue;
      }
      if (isClass(v->getType(), "helion::Tensor")) {
        error(v->getLocation(), "device code cannot allocate tensors or hold tensor variables; "
                                "subscript a host tensor instead");
        continue;
      }
      if (!v->getInit()) {
        error(v->getLocation(), "device variable '" + v->getNameAsString() +
                                    "' must be initialized where it is declared");
        continue;
      }
      ir::ExprRef value = lowerExpr(v->getInit());
      int id = static_cast<int>(kernel_.vars.size());
      kernel_.vars.push_back({id, v->getNameAsString(), loc(v->getLocation())});
      varOf_[v] = id;
      if (!value)
        continue;
      auto let = makeStmt(ir::StmtKind::Let, loc(v->getLocation()));
      let->var = id;
      let->value = std::move(value);
      out.push_back(std::move(let));
    }
    return;
  }
  if (isa<GotoStmt, IndirectGotoStmt>(s)) {
    error(s->getBeginLoc(), "device code cannot use 'goto'");
    return;
  }
  if (const auto* label = dyn_cast<LabelStmt>(s)) {
    error(label->getIdentLoc(), "device code cannot use labels or 'goto'");
    return;
  }
  if (isa<BreakStmt>(s)) {
    error(s->getBeginLoc(), "'break' cannot leave a tile loop: every tile runs to its end");
    return;
  }
  if (isa<ContinueStmt>(s)) {
    error(s->getBeginLoc(), "'continue' is not supported in a tile loop");
    return;
  }
  if (isa<ReturnStmt>(s)) {
    error(s->getBeginLoc(), inlining_.empty()
                                ? "'return' cannot leave a tile loop: device code returns nothing"
                                : "a helper called from device code must have one 'return', "
                                  "its last statement");
    return;
  }
  if (isa<CXXTryStmt>(s)) {
    error(s->getBeginLoc(), "device code cannot use exceptions ('try')");
    return;
  }
  error(s->getBeginLoc(), std::string("unsupported construct in device code: ") +
                              s->getStmtClassName());
}

void KernelLowering::lowerExprStmt(const Expr* e, std::vector<ir::StmtRef>& out) {
  e = ignoreWrappers(e);
  ir::StmtRef s;
  if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) {
    if (b->getOpcode() != BO_Assign && !compoundOp(b->getOpcode())) {
      error(b->getOperatorLoc(), "unsupported operator '" + b->getOpcodeStr().str() +
                                     "' in device code");
      return;
    }
    s = lowerAssign(b->getLHS(), b->getRHS(), compoundOp(b->getOpcode()), b->getOperatorLoc());
  } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e);
             op && (op->getOperator() == OO_Equal || compoundOp(op->getOperator())) &&
             op->getNumArgs() == 2) {
    s = lowerAssign(op->getArg(0), op->getArg(1), compoundOp(op->getOperator()),
                    op->getOperatorLoc());
  } else if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp()) {
    s = lowerAssign(u->getSubExpr(), nullptr,
                    u->isIncrementOp() ? ir::BinaryOp::Add : ir::BinaryOp::Sub,
                    u->getOperatorLoc());
  } else if (const auto* call = dyn_cast<CallExpr>(e);
             call && calleeName(call) == "helion::hl::store") {
    s = lowerStoreCall(call);
  } else if (const auto* call = dyn_cast<CallExpr>(e);
             call && calleeName(call) == "helion::hl::atomic_add") {
    s = lowerAtomicAdd(call);
  } else {
    // An expression for its effect: lower it for its diagnostics (calls, throw, ...).
    if (lowerExpr(e) && !e->getType()->isVoidType())
      diags_.warning(loc(e->getExprLoc()), "expression result unused in device code");
    return;
  }
  if (s)
    out.push_back(std::move(s));
}

/// `v = e`, `v += e`, `t[i, j] = e`, `t[i, j] += e`; `rhs` null means `v++` (compound 1).
ir::StmtRef KernelLowering::lowerAssign(const Expr* lhs, const Expr* rhs,
                                        std::optional<ir::BinaryOp> compound,
                                        SourceLocation opLoc) {
  const Expr* target = ignoreWrappers(lhs);
  auto value = [&](ir::ExprRef current) -> ir::ExprRef {
    ir::ExprRef v = rhs ? lowerExpr(rhs) : ir::makeConst(1, true, loc(opLoc));
    if (!v || !compound)
      return v;
    if (!current)
      return nullptr;
    return ir::makeBinary(*compound, std::move(current), std::move(v), loc(opLoc));
  };
  if (const auto* ref = dyn_cast<DeclRefExpr>(target)) {
    const ValueDecl* d = ref->getDecl();
    if (auto it = varOf_.find(d); it != varOf_.end()) {
      ir::ExprRef v = value(ir::makeVarRef(it->second, loc(ref->getLocation())));
      if (!v)
        return nullptr;
      auto s = makeStmt(ir::StmtKind::Assign, loc(ref->getLocation()));
      s->var = it->second;
      s->value = std::move(v);
      return s;
    }
    if (tileOf_.count(d))
      return error(ref->getLocation(), "cannot assign to tile variable '" + d->getNameAsString() + "'");
    return error(ref->getLocation(), "device code cannot assign to host variable '" +
                                         d->getNameAsString() +
                                         "': host variables are read-only in device loops");
  }
  const auto* sub = dyn_cast<CXXOperatorCallExpr>(target);
  if (sub && sub->getOperator() == OO_Subscript && isClass(sub->getArg(0)->getType(), "helion::Tensor")) {
    auto p = tensorOf(sub->getArg(0));
    if (!p)
      return nullptr;
    std::vector<ir::Index> indices;
    std::vector<const Expr*> args(sub->arg_begin() + 1, sub->arg_end());
    if (!lowerIndices(args, indices))
      return nullptr;
    ir::ExprRef current;
    if (compound)
      current = ir::makeLoad(*p, indices, loc(sub->getBeginLoc()));
    ir::ExprRef v = value(current);
    if (!v)
      return nullptr;
    auto s = makeStmt(ir::StmtKind::Store, loc(sub->getBeginLoc()));
    s->param = *p;
    s->indices = std::move(indices);
    s->value = std::move(v);
    if (const auto* obj = dyn_cast<DeclRefExpr>(ignoreWrappers(sub->getArg(0))))
      writtenBy_[obj->getDecl()] = s->loc.line;
    return s;
  }
  return error(target->getBeginLoc(), "unsupported assignment in device code: expected a device "
                                      "variable or a tensor subscript on the left, found '" +
                                          spelling(target) + "'");
}

/// hl::store(t, {i0, i1, ...}, value[, mask])
ir::StmtRef KernelLowering::lowerStoreCall(const CallExpr* call) {
  auto args = writtenArgs(call);
  if (args.size() != 3 && args.size() != 4)
    return error(call->getExprLoc(), "expected hl::store(tensor, {indices...}, value[, mask])");
  auto p = tensorOf(args[0]);
  auto list = listElements(args[1]);
  if (!list)
    return error(args[1]->getBeginLoc(), "expected a braced list of indices, found '" +
                                             spelling(args[1]) + "'");
  std::vector<ir::Index> indices;
  bool ok = lowerIndexList(*list, indices);
  ir::ExprRef value = lowerExpr(args[2]);
  ir::ExprRef mask = args.size() == 4 ? lowerExpr(args[3]) : nullptr;
  if (!p || !ok || !value || (args.size() == 4 && !mask))
    return nullptr;
  auto s = makeStmt(ir::StmtKind::Store, loc(call->getExprLoc()));
  s->param = *p;
  s->indices = std::move(indices);
  s->gatherAll = true;
  s->value = std::move(value);
  s->mask = std::move(mask);
  if (const auto* obj = dyn_cast<DeclRefExpr>(ignoreWrappers(args[0])))
    writtenBy_[obj->getDecl()] = s->loc.line;
  return s;
}

} // namespace helion::frontend

namespace helion::frontend {

/// hl::atomic_add(t[i, ...], value) or hl::atomic_add(t, {i0, i1, ...}, value[, mask]):
/// a Store that adds atomically.
ir::StmtRef KernelLowering::lowerAtomicAdd(const CallExpr* call) {
  auto args = writtenArgs(call);
  if (args.size() == 3 || args.size() == 4) {
    ir::StmtRef s = lowerStoreCall(call);
    if (!s)
      return nullptr;
    auto atomic = std::make_shared<ir::Stmt>(*s);
    atomic->atomicAdd = true;
    return atomic;
  }
  if (args.size() != 2)
    return error(call->getExprLoc(), "expected hl::atomic_add(tensor[indices...], value) or "
                                     "hl::atomic_add(tensor, {indices...}, value[, mask]), found " +
                                         std::to_string(args.size()) + " arguments");
  const auto* sub = dyn_cast<CXXOperatorCallExpr>(ignoreWrappers(args[0]));
  if (!sub || sub->getOperator() != OO_Subscript || !isClass(sub->getArg(0)->getType(), "helion::Tensor"))
    return error(args[0]->getBeginLoc(), "expected a tensor subscript such as hist[idx] as the "
                                         "target of hl::atomic_add, found '" + spelling(args[0]) + "'");
  auto p = tensorOf(sub->getArg(0));
  std::vector<ir::Index> indices;
  std::vector<const Expr*> subArgs(sub->arg_begin() + 1, sub->arg_end());
  bool ok = lowerIndices(subArgs, indices);
  ir::ExprRef value = lowerExpr(args[1]);
  if (!p || !ok || !value)
    return nullptr;
  auto s = std::make_shared<ir::Stmt>();
  s->kind = ir::StmtKind::Store;
  s->loc = loc(call->getExprLoc());
  s->param = *p;
  s->indices = std::move(indices);
  s->value = std::move(value);
  s->atomicAdd = true;
  if (const auto* obj = dyn_cast<DeclRefExpr>(ignoreWrappers(sub->getArg(0))))
    writtenBy_[obj->getDecl()] = s->loc.line;
  return s;
}

} // namespace helion::frontend
