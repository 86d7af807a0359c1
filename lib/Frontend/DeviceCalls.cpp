//===- DeviceCalls.cpp - Calls of hl:: functions and of methods -----------===//
//
// `hl::exp(x)`, `hl::sum(x, 1)`, `hl::zeros({tm}, hl::f32)`, `hl::dot(a, b)`...
// (lowerCall) and `x.size(0)`, `tm.index()`, `acc.to(hl::f16)`... (lowerMemberCall),
// matched by the callee's qualified name.
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

#include <llvm/ADT/StringMap.h>

namespace helion::frontend {

using namespace clang;

namespace {
const llvm::StringMap<ir::UnaryOp>& unaryFunctions() {
  static const llvm::StringMap<ir::UnaryOp> map = {
      {"exp", ir::UnaryOp::Exp},   {"log", ir::UnaryOp::Log},         {"sqrt", ir::UnaryOp::Sqrt},
      {"rsqrt", ir::UnaryOp::Rsqrt}, {"tanh", ir::UnaryOp::Tanh},
      {"sigmoid", ir::UnaryOp::Sigmoid}, {"abs", ir::UnaryOp::Abs},
      {"erf", ir::UnaryOp::Erf},   {"floor", ir::UnaryOp::Floor},     {"ceil", ir::UnaryOp::Ceil},
      {"round", ir::UnaryOp::Round}, {"sin", ir::UnaryOp::Sin},      {"cos", ir::UnaryOp::Cos},
      {"log1p", ir::UnaryOp::Log1p}, {"exp2", ir::UnaryOp::Exp2},    {"log2", ir::UnaryOp::Log2}};
  return map;
}

const llvm::StringMap<ir::ReduceOp>& reduceFunctions() {
  static const llvm::StringMap<ir::ReduceOp> map = {{"sum", ir::ReduceOp::Sum},
                                                    {"amax", ir::ReduceOp::Max},
                                                    {"amin", ir::ReduceOp::Min},
                                                    {"mean", ir::ReduceOp::Mean},
                                                    {"argmax", ir::ReduceOp::ArgMax},
                                                    {"argmin", ir::ReduceOp::ArgMin}};
  return map;
}
} // namespace

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
  if (isHelperCall(call))
    return inlineHelper(call, where);
  if (!name.consume_front("helion::hl::")) {
    // std::sqrt(double) is ::sqrt from <math.h> in libstdc++: both get the hint.
    name.consume_front("std::");
    if (name.size() && (unaryFunctions().count(name) || name == "max" || name == "min" ||
                        name == "fmax" || name == "fmin" || name == "pow"))
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
  if (name == "pow") {
    if (!arity(2, 2, "hl::pow(a, b)"))
      return nullptr;
    auto ops = operands();
    return ops ? ir::makeBinary(ir::BinaryOp::Pow, (*ops)[0], (*ops)[1], at) : nullptr;
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
  if (name == "cumsum" || name == "cumprod") {
    if (!arity(2, 2, ("hl::" + name.str() + "(block, dim)").c_str()))
      return nullptr;
    auto dim = constantInt(args[1]);
    if (!dim)
      return error(args[1]->getBeginLoc(), "expected a constant scan dim, found '" +
                                               spelling(args[1]) + "'");
    ir::ExprRef a = lowerExpr(args[0]);
    if (!a)
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Scan, at);
    e->binary = name == "cumsum" ? ir::BinaryOp::Add : ir::BinaryOp::Mul;
    e->dim = static_cast<int>(*dim);
    e->operands = {a};
    return e;
  }
  if (name == "rand") {
    if (!arity(2, 2, "hl::rand(seed, offsets)"))
      return nullptr;
    auto ops = operands();
    if (!ops)
      return nullptr;
    auto e = makeExpr(ir::ExprKind::Rand, at);
    e->operands = std::move(*ops);
    return e;
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
    bool ok = lowerIndexList(*list, indices);
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
  if (name == "store" || name == "atomic_add")
    return error(where, "hl::" + name.str() + " is a statement: it cannot be used as a value");
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
