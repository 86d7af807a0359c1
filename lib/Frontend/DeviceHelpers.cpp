//===- DeviceHelpers.cpp - Calls of the user's own functions ---------------===//
//
// Device code may call the user's own free functions (`inline auto gelu(const
// hl::Block& x) { ... }`, templates, constexpr functions): the call is inlined at
// IR level. Each argument becomes a device variable (`let %x = arg`; a tile or a
// tensor argument is bound to the caller's tile or tensor instead), the helper's
// statements are lowered in place, before the statement that made the call, and
// its final `return e;` gives the value of the call. Errors inside a helper point
// at the helper's code and add a note at each call site.
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include <clang/Basic/SourceManager.h>

namespace helion::frontend {

using namespace clang;

namespace {
constexpr size_t kMaxInlineDepth = 16;
} // namespace

bool KernelLowering::isHelperCall(const CallExpr* call) const {
  const FunctionDecl* fn = call->getDirectCallee();
  if (!fn || isa<CXXMethodDecl>(fn) || fn->getBuiltinID() != 0)
    return false;
  std::string q = fn->getQualifiedNameAsString();
  if (llvm::StringRef(q).starts_with("helion::") || llvm::StringRef(q).starts_with("std::"))
    return false;
  return !sm_.isInSystemHeader(sm_.getExpansionLoc(fn->getLocation()));
}

ir::ExprRef KernelLowering::inlineHelper(const CallExpr* call, SourceLocation where) {
  const FunctionDecl* fn = call->getDirectCallee();
  std::string name = fn->getQualifiedNameAsString();
  const FunctionDecl* def = nullptr;
  if (!fn->hasBody(def) || !def || !isa_and_nonnull<CompoundStmt>(def->getBody()))
    return error(where, "device code cannot call '" + name + "': its definition is not visible "
                        "(define helpers in the kernel's translation unit)");
  if (def->isVariadic())
    return error(where, "device code cannot call variadic function '" + name + "'");
  const FunctionDecl* key = def->getTemplateInstantiationPattern();
  key = (key ? key : def)->getCanonicalDecl();
  for (const InlineFrame& frame : inlining_)
    if (frame.helper == key)
      return error(where, "recursive call of helper '" + name + "': helpers are inlined into "
                          "device code, so they cannot recurse");
  if (inlining_.size() >= kMaxInlineDepth)
    return error(where, "helpers nested too deeply (limit " + std::to_string(kMaxInlineDepth) +
                            " calls)");
  if (!pending_)
    return error(where, "helper '" + name + "' cannot be called here: call it in a statement "
                        "inside a device loop");
  std::vector<ir::StmtRef>& out = *pending_;

  // Bind the parameters (before entering the helper: arguments are the caller's code).
  std::vector<const ValueDecl*> bound;
  bool ok = true;
  std::vector<std::pair<const ValueDecl*, int>> lets; // var bindings made after all are lowered
  for (unsigned i = 0; i < def->getNumParams(); ++i) {
    const ParmVarDecl* p = def->getParamDecl(i);
    const Expr* arg = i < call->getNumArgs() ? call->getArg(i) : nullptr;
    if (const auto* d = dyn_cast_or_null<CXXDefaultArgExpr>(arg))
      arg = d->getExpr();
    if (!arg) {
      ok = false;
      error(where, "internal compiler error: missing argument " + std::to_string(i));
      continue;
    }
    QualType pt = p->getType();
    if (pt->isLValueReferenceType() && !pt.getNonReferenceType().isConstQualified() &&
        !isClass(pt, "helion::Tensor")) {
      ok = false;
      error(p->getLocation(), "helper parameter '" + p->getNameAsString() + "' is a non-const "
                              "reference: device helpers take values or const references");
      diags_.note(loc(where), "in helper '" + name + "' called here");
      continue;
    }
    if (auto t = tileOf(arg)) {
      tileOf_[p] = *t;
      bound.push_back(p);
      continue;
    }
    if (isClass(pt, "helion::Tensor")) {
      auto tp = tensorOf(arg);
      if (!tp) {
        ok = false;
        continue;
      }
      paramOf_[p] = *tp;
      bound.push_back(p);
      continue;
    }
    ir::ExprRef v = lowerExpr(arg);
    if (!v) {
      ok = false;
      continue;
    }
    if (auto st = scalarTypeOf(pt, ctx_))
      v = ir::makeCast(v, *st, loc(arg->getBeginLoc()));
    int id = static_cast<int>(kernel_.vars.size());
    kernel_.vars.push_back({id, p->getNameAsString(), loc(p->getLocation())});
    auto let = std::make_shared<ir::Stmt>();
    let->kind = ir::StmtKind::Let;
    let->loc = loc(arg->getBeginLoc());
    let->var = id;
    let->value = std::move(v);
    out.push_back(std::move(let));
    lets.push_back({p, id});
  }
  auto unbind = [&] {
    for (const ValueDecl* d : bound) {
      tileOf_.erase(d);
      paramOf_.erase(d);
    }
    for (const auto& [d, id] : lets)
      varOf_.erase(d);
  };
  if (!ok) {
    unbind();
    return nullptr;
  }
  for (const auto& [d, id] : lets)
    varOf_[d] = id;

  inlining_.push_back({key, where, name});
  const auto* body = cast<CompoundStmt>(def->getBody());
  const ReturnStmt* ret = nullptr;
  for (const Stmt* s : body->body()) {
    if (ret) {
      error(s->getBeginLoc(), "unreachable code after 'return' in helper '" + name + "'");
      break;
    }
    if (const auto* r = dyn_cast<ReturnStmt>(s)) {
      ret = r;
      continue;
    }
    lowerStmt(s, out);
  }
  ir::ExprRef value;
  bool isVoid = def->getReturnType()->isVoidType();
  if (ret && ret->getRetValue() && !isVoid) {
    value = lowerExpr(ret->getRetValue());
    if (value)
      if (auto st = scalarTypeOf(def->getReturnType(), ctx_))
        value = ir::makeCast(value, *st, loc(ret->getRetValue()->getBeginLoc()));
  } else if (!isVoid) {
    error(def->getLocation(), "helper '" + name + "' must end in 'return value;'");
  } else {
    value = ir::makeConst(0, true, loc(where)); // a void call's statement has no value
  }
  inlining_.pop_back();
  unbind();
  return value;
}

} // namespace helion::frontend
