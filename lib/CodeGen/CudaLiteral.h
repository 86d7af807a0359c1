//===- CudaLiteral.h - Numbers and types as C++ source text -----*- C++ -*-===//
//
// Shared by the elementwise, matmul and attention emitters and their launchers.
//===----------------------------------------------------------------------===//
#pragma once

#include "CudaNames.h"
#include "helion/CodeGen/CudaEmitter.h"
#include "helion/IR/IR.h"

#include <cmath>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace helion::codegen {

/// A constant as CUDA source: int64(...) for integers, a float literal
/// otherwise (infinities and NaN through bit patterns, which NVRTC accepts
/// without <cmath>).
inline std::string cudaLiteral(double v, bool isInt) {
  if (isInt)
    return "int64(" + std::to_string(static_cast<long long>(v)) + ")";
  if (std::isinf(v))
    return v > 0 ? "__int_as_float(0x7f800000)" : "(-__int_as_float(0x7f800000))";
  if (std::isnan(v))
    return "__int_as_float(0x7fffffff)";
  std::ostringstream os;
  os.precision(9);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

/// The device type an element type computes in (f16/bf16/f32 in float; a
/// param's dtype through hd::compute_t<T_param>).
inline std::string cudaComputeType(const ir::ElemType& t, const ir::Kernel& k) {
  switch (t.kind()) {
  case ir::ElemType::Kind::Concrete:
    switch (t.scalar()) {
    case ir::ScalarType::F16:
    case ir::ScalarType::BF16:
    case ir::ScalarType::F8E4M3:
    case ir::ScalarType::F8E5M2:
    case ir::ScalarType::F32: return "float";
    case ir::ScalarType::F64: return "double";
    case ir::ScalarType::B8: return "bool";
    default: return "int64";
    }
  case ir::ElemType::Kind::OfParam:
    return "hd::compute_t<" + genType(k.params.at(t.param())) + ">";
  case ir::ElemType::Kind::Promote:
    return "decltype(" + cudaComputeType(t.lhs(), k) + "() + " + cudaComputeType(t.rhs(), k) +
           "())";
  }
  return "float";
}

/// The elementwise cast `e` (ExprKind::Cast) of `operand` (its printed text), the one
/// rule of every emitter (elementwise, matmul and attention epilogues): to f32, f64,
/// i64 or bool a conversion to the compute type; to any other storage type (f16, bf16,
/// f8e4m3, f8e5m2, i8, i32, u8, or a tensor's dtype) a round trip through it
/// (hd::round_to), so the value is what storing and reloading it gives, as in ref mode.
inline std::string cudaCast(const ir::Expr& e, const std::string& operand, const ir::Kernel& k) {
  const std::string to = cudaComputeType(e.type->elem, k);
  if (e.castTo && (*e.castTo == ir::ScalarType::F32 || *e.castTo == ir::ScalarType::F64 ||
                   *e.castTo == ir::ScalarType::I64 || *e.castTo == ir::ScalarType::B8))
    return to + "(" + operand + ")";
  const std::string storage =
      e.castTo ? deviceTypeName(*e.castTo) : genType(k.params.at(e.param));
  return "hd::round_to<" + storage + ">(" + cudaComputeType(e.operands[0]->type->elem, k) + "(" +
         operand + "))";
}

/// An elementwise unary op as CUDA: `a` is the operand, `ct` the result's compute type
/// (exp, log, ... of an integer block compute in the float result type). Every emitter
/// (elementwise, matmul and attention epilogues) spells ops through here.
inline std::string cudaUnary(ir::UnaryOp op, const std::string& a, const std::string& ct) {
  switch (op) {
  case ir::UnaryOp::Neg: return "(-" + a + ")";
  case ir::UnaryOp::Not: return "(!" + a + ")";
  case ir::UnaryOp::Abs: return "hd::abs(" + a + ")";
  case ir::UnaryOp::BitNot: return "hd::bit_not(" + ct + "(" + a + "))";
  default: return std::string("hd::") + ir::unaryOpName(op) + "(" + ct + "(" + a + "))";
  }
}

/// An elementwise binary op as CUDA; `ct` is the result's compute type (bool for
/// comparisons, whose operands keep their own types).
inline std::string cudaBinary(ir::BinaryOp op, const std::string& a, const std::string& b,
                              const std::string& ct) {
  using ir::BinaryOp;
  auto infix = [&](const char* sym) { return "(" + ct + "(" + a + ") " + sym + " " + ct + "(" + b + "))"; };
  switch (op) {
  case BinaryOp::Add: return infix("+");
  case BinaryOp::Sub: return infix("-");
  case BinaryOp::Mul: return infix("*");
  case BinaryOp::Div: return infix("/");
  case BinaryOp::Maximum: return "hd::maximum<" + ct + ">(" + a + ", " + b + ")";
  case BinaryOp::Minimum: return "hd::minimum<" + ct + ">(" + a + ", " + b + ")";
  case BinaryOp::Lt: return "(" + a + " < " + b + ")";
  case BinaryOp::Le: return "(" + a + " <= " + b + ")";
  case BinaryOp::Gt: return "(" + a + " > " + b + ")";
  case BinaryOp::Ge: return "(" + a + " >= " + b + ")";
  case BinaryOp::Eq: return "(" + a + " == " + b + ")";
  case BinaryOp::Ne: return "(" + a + " != " + b + ")";
  case BinaryOp::And: return "(" + a + " && " + b + ")";
  case BinaryOp::Or: return "(" + a + " || " + b + ")";
  case BinaryOp::Mod: return "hd::mod(" + ct + "(" + a + "), " + ct + "(" + b + "))";
  case BinaryOp::Pow: return "hd::pow(" + ct + "(" + a + "), " + ct + "(" + b + "))";
  case BinaryOp::BitAnd: return infix("&");
  case BinaryOp::BitOr: return infix("|");
  case BinaryOp::BitXor: return infix("^");
  case BinaryOp::Shl: return infix("<<");
  case BinaryOp::Shr: return infix(">>");
  }
  return "0";
}

/// The statements of a template functor's epilogue for one element, after its
/// accumulator variables: lets become locals, assignments assign, `store` prints each
/// store; `ex` prints expressions (cudaElement with the functor's leaves).
inline void cudaEpilogueStmts(std::ostream& os, const std::vector<ir::StmtRef>& stmts,
                              const ir::Kernel& k,
                              const std::function<std::string(const ir::Expr&)>& ex,
                              const std::function<void(const ir::Stmt&)>& store) {
  for (const ir::StmtRef& s : stmts) {
    if (s->kind == ir::StmtKind::Let)
      os << "    " << cudaComputeType(s->value->type->elem, k) << " v" << s->var << " = "
         << ex(*s->value) << ";\n";
    else if (s->kind == ir::StmtKind::Assign)
      os << "    v" << s->var << " = " << ex(*s->value) << ";\n";
    else
      store(*s);
  }
}

/// A pointwise expression of one element, as the template kernels' functors (matmul
/// epilogues, attention scores and epilogues) print it: constants, scalars, variables
/// (`v<id>`), unary and binary ops, where, casts, and views (the same element). `leaf`
/// prints first what only the caller knows (a load at the element, a tile index, the
/// score's dot, a binary op it spells its own way) given the printer for operands, or
/// returns nullopt to take the common rule.
using ElementLeaf = std::function<std::optional<std::string>(
    const ir::Expr&, const std::function<std::string(const ir::Expr&)>&)>;
inline std::string cudaElement(const ir::Expr& e, const ir::Kernel& k, const ElementLeaf& leaf) {
  const std::function<std::string(const ir::Expr&)> rec = [&](const ir::Expr& x) {
    return cudaElement(x, k, leaf);
  };
  if (std::optional<std::string> s = leaf(e, rec))
    return *s;
  auto op = [&](int i) { return rec(*e.operands[i]); };
  const auto ct = [&] { return cudaComputeType(e.type->elem, k); };
  switch (e.kind) {
  case ir::ExprKind::Const: return cudaLiteral(e.value, e.isInt);
  case ir::ExprKind::Param: return genName(k.params.at(e.param));
  case ir::ExprKind::Var: return "v" + std::to_string(e.var);
  case ir::ExprKind::Unary: return cudaUnary(e.unary, op(0), ct());
  case ir::ExprKind::Binary: return cudaBinary(e.binary, op(0), op(1), ct());
  case ir::ExprKind::Where:
    return "(" + op(0) + " ? " + ct() + "(" + op(1) + ") : " + ct() + "(" + op(2) + "))";
  case ir::ExprKind::Cast: return cudaCast(e, op(0), k);
  default: return op(0); // View, Transpose: the element is the same
  }
}

/// The host type a launcher passes a scalar kernel argument as.
inline std::string hostScalarType(ir::ScalarType st) {
  switch (st) {
  case ir::ScalarType::F64: return "double";
  case ir::ScalarType::F32:
  case ir::ScalarType::F16:
  case ir::ScalarType::BF16:
  case ir::ScalarType::F8E4M3:
  case ir::ScalarType::F8E5M2: return "float";
  case ir::ScalarType::B8: return "bool";
  default: return "int64_t";
  }
}

/// The C++ type of a scalar kernel parameter in generated host code (C entries).
inline std::string cppScalarType(ir::ScalarType t) {
  switch (t) {
  case ir::ScalarType::F64: return "double";
  case ir::ScalarType::F32: return "float";
  case ir::ScalarType::I32: return "int";
  case ir::ScalarType::B8: return "bool";
  default: return "int64_t";
  }
}

/// The first line of a generated launcher, `static void NAME(const helion::Tensor& x,
/// double eps, ...) {`: the kernel's parameters in order, scalars spelled by
/// `scalarType`.
template <class ScalarTypeName>
std::string launcherSignature(const ir::Kernel& k, const std::string& name,
                              ScalarTypeName scalarType) {
  std::string out = "static void " + name + "(";
  for (size_t p = 0; p < k.params.size(); ++p) {
    const ir::Param& param = k.params[p];
    out += p ? ", " : "";
    out += param.kind == ir::Param::Kind::Tensor ? "const helion::Tensor& "
                                                  : scalarType(param.scalarType) + " ";
    out += genName(param);
  }
  return out + ") {\n";
}

/// A template kernel's trailing arguments in a launcher (the matmul, attention and
/// chain launchers): one host local per argument, `PREFIX<i>` (a tensor's data
/// pointer, size or stride, a scalar in its host type), printed to `os`; returns the
/// `, &PREFIX0, &PREFIX1` that ends the launch's argument array.
inline std::string hostArgLocals(std::ostream& os, const ir::Kernel& k,
                                 const std::vector<KernelArg>& args, const std::string& prefix) {
  std::string list;
  int n = 0;
  for (const KernelArg& arg : args) {
    const std::string p = genName(k.params.at(arg.param));
    const std::string v = prefix + std::to_string(n++);
    switch (arg.kind) {
    case KernelArg::Kind::Pointer: os << "  void* " << v << " = " << p << ".data_ptr();\n"; break;
    case KernelArg::Kind::Size:
      os << "  int64_t " << v << " = " << p << ".size(" << arg.dim << ");\n";
      break;
    case KernelArg::Kind::Stride:
      os << "  int64_t " << v << " = " << p << ".stride(" << arg.dim << ");\n";
      break;
    case KernelArg::Kind::Scalar: {
      const std::string ct = hostScalarType(k.params[arg.param].scalarType);
      os << "  " << ct << " " << v << " = static_cast<" << ct << ">(" << p << ");\n";
      break;
    }
    default: break;
    }
    list += ", &" + v;
  }
  return list;
}

/// A raw string literal delimiter that does not occur in `s`: the launchers embed
/// their kernel's CUDA source as R"HELIONC(...)HELIONC".
inline std::string rawDelimiter(const std::string& s) {
  std::string d = "HELIONC";
  while (s.find(")" + d + "\"") != std::string::npos)
    d += "_";
  return d;
}

} // namespace helion::codegen
