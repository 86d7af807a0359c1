//===- KernelLowering.cpp - A kernel function: params and host code --------===//
//
// The body of a kernel is a list of top-level statements. Range-fors over
// hl::tile/hl::grid are device loops (lowered to For statements); everything else
// is host code, which stays verbatim: here it is only scanned for what the device
// code needs (tensor ranks, hl::register_block_size, hl::specialize) and for reads
// of tensors that an earlier device loop writes (all loops run as one launch).
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include <clang/AST/Attr.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace helion::frontend {

using namespace clang;

const Expr* ignoreWrappers(const Expr* e) {
  while (e) {
    const Expr* before = e;
    e = e->IgnoreParenImpCasts();
    if (const auto* c = dyn_cast<ExprWithCleanups>(e))
      e = c->getSubExpr();
    else if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e))
      e = b->getSubExpr();
    else if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
      // Copies, moves and implicit conversions (Block from double, Index from Tile).
      if (!isa<CXXTemporaryObjectExpr>(c) && !c->isListInitialization() && c->getNumArgs() >= 1 &&
          (c->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(c->getArg(1))))
        e = c->getArg(0);
    } else if (const auto* m = dyn_cast<CXXMemberCallExpr>(e)) {
      if (isa_and_nonnull<CXXConversionDecl>(m->getMethodDecl()))
        e = m->getImplicitObjectArgument();
    } else if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(e)) {
      if (f->getCastKind() == CK_ConstructorConversion || f->getCastKind() == CK_NoOp)
        e = f->getSubExpr();
    }
    if (e == before)
      return e;
  }
  return e;
}

std::optional<std::vector<const Expr*>> listElements(const Expr* e) {
  for (int guard = 0; e && guard < 16; ++guard) {
    e = ignoreWrappers(e);
    if (const auto* list = dyn_cast<InitListExpr>(e)) {
      if (list->isSyntacticForm() || !list->getSyntacticForm())
        return std::vector<const Expr*>(list->inits().begin(), list->inits().end());
      const InitListExpr* syn = list->getSyntacticForm();
      return std::vector<const Expr*>(syn->inits().begin(), syn->inits().end());
    }
    if (const auto* il = dyn_cast<CXXStdInitializerListExpr>(e)) {
      e = il->getSubExpr();
      continue;
    }
    // `std::vector<int64_t> v = {m, n}`: a list constructor taking an initializer_list
    // (plus defaulted arguments), or an aggregate-like constructor taking the elements.
    const auto* c = dyn_cast<CXXConstructExpr>(e);
    if (!c || !c->isListInitialization())
      return std::nullopt;
    std::vector<const Expr*> args;
    for (const Expr* a : c->arguments())
      if (!isa<CXXDefaultArgExpr>(a))
        args.push_back(a);
    if (args.size() == 1 && isa<CXXStdInitializerListExpr>(ignoreWrappers(args[0])))
      e = args[0];
    else
      return args;
  }
  return std::nullopt;
}

std::string calleeName(const CallExpr* call) {
  if (const FunctionDecl* fn = call->getDirectCallee())
    return fn->getQualifiedNameAsString();
  return "";
}

bool isClass(QualType type, llvm::StringRef qualifiedName) {
  const CXXRecordDecl* rd = type.getNonReferenceType()->getAsCXXRecordDecl();
  return rd && rd->getQualifiedNameAsString() == qualifiedName;
}

std::vector<const Expr*> writtenArgs(const CallExpr* call) {
  std::vector<const Expr*> args;
  for (const Expr* a : call->arguments())
    if (!isa<CXXDefaultArgExpr>(a))
      args.push_back(a);
  return args;
}

ir::SourceLoc KernelLowering::loc(SourceLocation l) const {
  PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(l));
  if (p.isInvalid())
    return {};
  return {p.getFilename(), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
}

std::nullptr_t KernelLowering::error(SourceLocation l, const std::string& message) {
  diags_.error(loc(l), message);
  for (auto it = inlining_.rbegin(); it != inlining_.rend(); ++it)
    diags_.note(loc(it->callSite), "in helper '" + it->name + "' called here");
  failed_ = true;
  return nullptr;
}

std::string KernelLowering::spelling(const Expr* e) const {
  CharSourceRange r = sm_.getExpansionRange(e->getSourceRange());
  return Lexer::getSourceText(r, sm_, ctx_.getLangOpts()).str();
}

HostRegion KernelLowering::tokenRange(SourceLocation begin, SourceLocation end) const {
  SourceLocation b = sm_.getExpansionLoc(begin);
  SourceLocation e = Lexer::getLocForEndOfToken(sm_.getExpansionRange(end).getEnd(), 0, sm_,
                                                ctx_.getLangOpts());
  return {sm_.getFileOffset(b), sm_.getFileOffset(e)};
}

bool KernelLowering::isHostDecl(const ValueDecl* d) const {
  if (const auto* p = dyn_cast<ParmVarDecl>(d))
    return p->getDeclContext() == fn_;
  if (const auto* v = dyn_cast<VarDecl>(d))
    return v->isLocalVarDecl() && !varOf_.count(d) && !tileOf_.count(d);
  if (isa<BindingDecl>(d))
    return !varOf_.count(d) && !tileOf_.count(d);
  return false;
}

std::optional<ir::ScalarType> scalarTypeOf(QualType t, const ASTContext& ctx) {
  t = t.getNonReferenceType().getCanonicalType();
  const auto* b = t->getAs<BuiltinType>();
  if (!b)
    return std::nullopt;
  if (b->getKind() == BuiltinType::Bool)
    return ir::ScalarType::B8;
  if (b->getKind() == BuiltinType::Float)
    return ir::ScalarType::F32;
  if (b->getKind() == BuiltinType::Double)
    return ir::ScalarType::F64;
  if (b->isInteger()) {
    uint64_t bits = ctx.getTypeSize(t);
    if (bits == 64)
      return ir::ScalarType::I64;
    if (bits == 32)
      return ir::ScalarType::I32;
    if (bits == 8)
      return ir::ScalarType::I8;
  }
  return std::nullopt;
}

void KernelLowering::addFunctionParams() {
  for (const ParmVarDecl* p : fn_->parameters()) {
    ir::Param param;
    param.name = p->getNameAsString();
    param.loc = loc(p->getLocation());
    if (isClass(p->getType(), "helion::Tensor")) {
      param.kind = ir::Param::Kind::Tensor;
    } else if (auto st = scalarTypeOf(p->getType(), ctx_)) {
      param.kind = ir::Param::Kind::Scalar;
      param.scalarType = *st;
    } else {
      error(p->getLocation(), "unsupported kernel parameter type '" + p->getType().getAsString() +
                                  "': expected a helion::Tensor or an arithmetic scalar");
      continue;
    }
    paramOf_[p] = static_cast<int>(kernel_.params.size());
    host_.captures.push_back({static_cast<int>(kernel_.params.size()), param.name});
    kernel_.params.push_back(std::move(param));
  }
}

std::optional<int> KernelLowering::tensorParam(const ValueDecl* d, SourceLocation use) {
  if (auto it = paramOf_.find(d); it != paramOf_.end())
    return it->second;
  if (!isHostDecl(d) || !isClass(d->getType(), "helion::Tensor")) {
    error(use, "expected a tensor parameter or host tensor variable, found '" +
                   d->getNameAsString() + "'");
    return std::nullopt;
  }
  ir::Param param;
  param.kind = ir::Param::Kind::Tensor;
  param.name = d->getNameAsString();
  param.loc = loc(d->getLocation());
  param.captured = true;
  int id = static_cast<int>(kernel_.params.size());
  paramOf_[d] = id;
  host_.captures.push_back({id, param.name});
  kernel_.params.push_back(std::move(param));
  return id;
}

std::optional<int> KernelLowering::scalarParam(const ValueDecl* d, SourceLocation use) {
  if (auto it = paramOf_.find(d); it != paramOf_.end())
    return it->second;
  auto st = scalarTypeOf(d->getType(), ctx_);
  if (!isHostDecl(d) || !st) {
    error(use, "device code cannot read '" + d->getNameAsString() + "' of type '" +
                   d->getType().getAsString() + "': expected a tensor or an arithmetic scalar");
    return std::nullopt;
  }
  ir::Param param;
  param.kind = ir::Param::Kind::Scalar;
  param.name = d->getNameAsString();
  param.loc = loc(d->getLocation());
  param.scalarType = *st;
  param.captured = true;
  param.specialized = specialized_.count(d) > 0;
  int id = static_cast<int>(kernel_.params.size());
  paramOf_[d] = id;
  host_.captures.push_back({id, param.name});
  kernel_.params.push_back(std::move(param));
  return id;
}

/// `auto [m, n] = x.shape<2>()`, `empty({m, n}, ...)`, `empty_like(x)`.
void KernelLowering::noteRank(const ValueDecl* d, const Expr* init) {
  init = ignoreWrappers(init);
  const auto* call = dyn_cast_or_null<CallExpr>(init);
  if (!call)
    return;
  std::string name = calleeName(call);
  auto args = writtenArgs(call);
  if ((name == "helion::empty" || name == "helion::zeros") && !args.empty()) {
    if (auto list = listElements(args[0]))
      rankOf_[d] = static_cast<int>(list->size());
  } else if (name == "helion::empty_like" && !args.empty()) {
    if (const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(args[0])))
      if (auto it = rankOf_.find(ref->getDecl()); it != rankOf_.end())
        rankOf_[d] = it->second;
  }
}

namespace {
template <class F> void forEachSubStmt(const Stmt* s, F&& f) {
  if (!s)
    return;
  f(s);
  for (const Stmt* c : s->children())
    forEachSubStmt(c, f);
}
} // namespace

void KernelLowering::scanHostStmt(const Stmt* s, bool betweenLoops) {
  forEachSubStmt(s, [&](const Stmt* sub) {
    // x.shape<N>() fixes the rank of x.
    if (const auto* m = dyn_cast<CXXMemberCallExpr>(sub)) {
      const auto* md = m->getMethodDecl();
      if (md && md->getNameAsString() == "shape" && isClass(m->getObjectType(), "helion::Tensor"))
        if (const auto* args = md->getTemplateSpecializationArgs())
          if (args->size() == 1 && args->get(0).getKind() == TemplateArgument::Integral)
            if (const auto* ref = dyn_cast<DeclRefExpr>(ignoreWrappers(m->getImplicitObjectArgument())))
              rankOf_[ref->getDecl()] = static_cast<int>(args->get(0).getAsIntegral().getExtValue());
    }
    if (const auto* ref = dyn_cast<DeclRefExpr>(sub); ref && betweenLoops) {
      if (auto it = writtenBy_.find(ref->getDecl()); it != writtenBy_.end())
        error(ref->getLocation(),
              "host code between device loops cannot read '" + ref->getDecl()->getNameAsString() +
                  "', which the device loop at line " + std::to_string(it->second) +
                  " writes: all device loops of a kernel run as one launch");
    }
    const auto* ds = dyn_cast<DeclStmt>(sub);
    if (!ds)
      return;
    for (const Decl* d : ds->decls()) {
      const auto* v = dyn_cast<VarDecl>(d);
      if (!v || !v->getInit())
        continue;
      noteRank(v, v->getInit());
      const auto* call = dyn_cast<CallExpr>(ignoreWrappers(v->getInit()));
      std::string name = call ? calleeName(call) : "";
      if (name == "helion::hl::specialize")
        specialized_.insert(v);
      if (name != "helion::hl::register_block_size")
        continue;
      auto args = writtenArgs(call);
      ir::BlockSizeDecl bs;
      bs.id = static_cast<int>(kernel_.blockSizes.size());
      bs.name = v->getNameAsString();
      bs.loc = loc(v->getLocation());
      if (args.size() == 2) {
        if (auto lo = constantInt(args[0]))
          bs.min = *lo;
        if (auto hi = constantInt(args[1]))
          bs.max = *hi;
      }
      if (!args.empty())
        bs.sizeHint = lowerExpr(args.back());
      registeredBlockSize_[v] = bs.id;
      host_.registerBlockSizeCalls.push_back(
          {tokenRange(call->getBeginLoc(), call->getEndLoc()), bs.id,
           tokenRange(v->getBeginLoc(), v->getBeginLoc()).begin});
      kernel_.blockSizes.push_back(std::move(bs));
    }
  });
}

static bool isDeviceLoop(const Stmt* s) {
  const auto* loop = dyn_cast<CXXForRangeStmt>(s);
  if (!loop || !loop->getRangeInit())
    return false;
  const auto* call = dyn_cast<CallExpr>(ignoreWrappers(loop->getRangeInit()));
  if (!call)
    return false;
  std::string name = calleeName(call);
  return name == "helion::hl::tile" || name == "helion::hl::grid";
}

std::optional<ParsedKernel> KernelLowering::run() {
  kernel_.name = fn_->getNameAsString();
  kernel_.loc = loc(fn_->getLocation());
  const auto* body = dyn_cast_or_null<CompoundStmt>(fn_->getBody());
  if (!body) {
    error(fn_->getLocation(), "a kernel needs a body");
    return std::nullopt;
  }
  // The definition starts at HELION_KERNEL when it comes first.
  SourceLocation start = fn_->getOuterLocStart();
  for (const auto* a : fn_->specific_attrs<AnnotateAttr>()) {
    SourceLocation at = sm_.getExpansionLoc(a->getLocation());
    if (sm_.isBeforeInTranslationUnit(at, sm_.getExpansionLoc(start)))
      start = at;
  }
  host_.function = tokenRange(start, fn_->getEndLoc());
  host_.body = tokenRange(body->getLBracLoc(), body->getRBracLoc());
  // Where the host rewriter copies the parameter list from (the stream overload).
  if (FunctionTypeLoc f = fn_->getFunctionTypeLoc())
    host_.params = {tokenRange(f.getLParenLoc(), f.getLParenLoc()).end,
                    tokenRange(f.getRParenLoc(), f.getRParenLoc()).begin};
  for (const ParmVarDecl* p : fn_->parameters())
    if (p->hasDefaultArg() && !p->hasInheritedDefaultArg())
      host_.defaultArgs.push_back({tokenRange(p->getLocation(), p->getLocation()).end,
                                   tokenRange(p->getBeginLoc(), p->getEndLoc()).end});
  addFunctionParams();

  std::vector<const Stmt*> stmts(body->body_begin(), body->body_end());
  int firstLoop = -1, lastLoop = -1;
  for (int i = 0; i < static_cast<int>(stmts.size()); ++i)
    if (isDeviceLoop(stmts[i])) {
      firstLoop = firstLoop < 0 ? i : firstLoop;
      lastLoop = i;
    }
  if (firstLoop < 0) {
    error(fn_->getLocation(), "kernel '" + kernel_.name +
                                  "' has no device loop: expected a top-level 'for' over "
                                  "hl::tile(...) or hl::grid(...)");
    return std::nullopt;
  }
  for (int i = 0; i < static_cast<int>(stmts.size()); ++i) {
    const auto* loop = dyn_cast<CXXForRangeStmt>(stmts[i]);
    if (!isDeviceLoop(stmts[i])) {
      scanHostStmt(stmts[i], i > firstLoop && i < lastLoop);
      continue;
    }
    // The loop statement, up to its closing brace or semicolon.
    SourceLocation end = loop->getEndLoc();
    if (!isa<CompoundStmt>(loop->getBody()))
      if (auto semi = Lexer::findNextToken(sm_.getExpansionLoc(end), sm_, ctx_.getLangOpts());
          semi && semi->is(tok::semi))
        end = semi->getLocation();
    host_.deviceLoops.push_back(tokenRange(loop->getBeginLoc(), end));
    if (ir::StmtRef s = lowerTileLoop(loop))
      kernel_.body.push_back(std::move(s));
  }
  for (auto& [decl, id] : paramOf_)
    if (auto it = rankOf_.find(decl); it != rankOf_.end())
      kernel_.params[id].rank = it->second;
  if (failed_)
    return std::nullopt;
  return ParsedKernel{std::move(kernel_), std::move(host_)};
}

} // namespace helion::frontend
