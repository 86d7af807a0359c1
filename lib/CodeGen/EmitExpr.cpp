//===- EmitExpr.cpp - Elementwise expressions ------------------------------===//
//
// An expression is emitted for one element, inside the element loops of the
// value it defines: `i_<axis>` is the per-thread index and `c_<axis>` the
// coordinate inside the tile (or chunk). A variable over axes {a0, t1} reads
// `v3[i_a0][i_t1]`; broadcasting drops the axes a value does not have.
//===----------------------------------------------------------------------===//
#include "CudaLiteral.h"
#include "EmitterState.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace helion::codegen {

using namespace ir;

std::string Emitter::computeType(const ElemType& t) const { return cudaComputeType(t, k_); }

std::string Emitter::storageType(const ElemType& t) const {
  if (t.kind() == ElemType::Kind::Concrete)
    return deviceTypeName(t.scalar());
  if (t.kind() == ElemType::Kind::OfParam)
    return genType(k_.params.at(t.param()));
  return computeType(t);
}

std::vector<int> Emitter::axesOf(const BlockType& t) const { return layout_.positions(t); }

std::string Emitter::elementRef(const std::string& name, const std::vector<int>& axes) const {
  std::string s = name;
  for (int a : axes)
    s += "[i_" + axes_[a].key + "]";
  return s;
}

std::string Emitter::absCoord(int axis) const {
  if (auto it = coordOverride_.find(axis); it != coordOverride_.end())
    return it->second;
  const LayoutAxis& a = axes_[axis];
  return a.isTile ? "(tb_" + std::string("t") + std::to_string(a.id) + " + c_" + a.key + ")"
                  : "(off_" + a.key + " + c_" + a.key + ")";
}

std::string Emitter::inBounds(int axis) const {
  const LayoutAxis& a = axes_[axis];
  if (a.isTile)
    return "(X_" + a.key + " || tb_t" + std::to_string(a.id) + " + c_" + a.key + " < te_t" +
           std::to_string(a.id) + ")";
  return "(X_" + a.key + " || off_" + a.key + " + c_" + a.key + " < ext_" + a.key + ")";
}

std::string Emitter::axisExtent(int axis) const {
  const LayoutAxis& la = axes_[axis];
  const Axis& a = k_.axes.at(la.id);
  if (a.param >= 0)
    return genSize(k_.params[a.param], a.dim);
  if (a.extent)
    return const_cast<Emitter*>(this)->scalarExpr(*a.extent);
  return "0";
}

std::string Emitter::scalarExpr(const Expr& e) { return expr(e); }

std::string Emitter::expr(const Expr& e) {
  auto op = [&](size_t i) { return expr(*e.operands.at(i)); };
  switch (e.kind) {
  case ExprKind::Const: return cudaLiteral(e.value, e.isInt);
  case ExprKind::Param: return genName(k_.params.at(e.param));
  case ExprKind::Var: {
    if (auto in = inlined_.find(e.var); in != inlined_.end())
      return computeType(in->second->value->type->elem) + "(" + expr(*in->second->value) + ")";
    auto it = varAxes_.find(e.var);
    std::string ref =
        elementRef(varName(e.var), it == varAxes_.end() ? std::vector<int>{} : it->second);
    return storageVars_.count(e.var) ? "hd::to_compute(" + ref + ")" : ref;
  }
  case ExprKind::TileAttr: {
    std::string t = "t" + std::to_string(e.tile);
    switch (e.attr) {
    case TileAttr::Begin: return "tb_" + t;
    case TileAttr::End: return "te_" + t;
    case TileAttr::BlockSize: return "int64(" + std::to_string(tileBlockSize(e.tile)) + ")";
    case TileAttr::Id: return "(tb_" + t + " / " + std::to_string(tileBlockSize(e.tile)) + ")";
    }
    return "0";
  }
  case ExprKind::TileIndex: {
    if (k_.tiles.at(e.tile).isGrid || layout_.tile(e.tile) < 0)
      return "tb_t" + std::to_string(e.tile);
    return "int64" + absCoord(layout_.tile(e.tile));
  }
  case ExprKind::TensorSize: {
    const Param& p = k_.params.at(e.param);
    int rank = out_.paramRanks.empty() ? -1 : out_.paramRanks[e.param];
    if (e.dim < 0) { // only the end of `hl::tile(t.sizes())` has no dim: see tileEnd
      error(e.loc, "internal compiler error: the flat size of '" + p.name +
                       "' used outside its tile loop");
      return "0";
    }
    if (rank <= e.dim) {
      error(e.loc, "size(" + std::to_string(e.dim) + ") of '" + p.name +
                       "' is not available in device code");
      return "0";
    }
    return genSize(p, e.dim);
  }
  case ExprKind::Unary: {
    return cudaUnary(e.unary, op(0), computeType(e.type->elem));
  }
  case ExprKind::Binary: {
    std::string a = op(0), b = op(1);
    std::string ct = computeType(e.type->elem);
    // Arithmetic happens in the result's compute type (f16 * double-scalar is a float op).
    if (e.binary == BinaryOp::Div && e.operands[1]->type && e.type &&
        axesOf(*e.operands[1]->type).size() < axesOf(*e.type).size())
      return "hd::div_bcast(" + ct + "(" + a + "), " + ct + "(" + b + "))";
    return cudaBinary(e.binary, a, b, ct);
  }
  case ExprKind::Where: {
    std::string ct = computeType(e.type->elem);
    return "(" + op(0) + " ? " + ct + "(" + op(1) + ") : " + ct + "(" + op(2) + "))";
  }
  case ExprKind::Cast: return cudaCast(e, op(0), k_);
  case ExprKind::Rand:
    return (randStream_.empty() ? "hd::rand_uniform(" : randStream_ + ".uniform(") + "int64(" +
           op(0) + "), int64(" + op(1) + "))";
  case ExprKind::View:
  case ExprKind::Transpose:
    // Dims are relabelled, elements stay where they are: axes name them, not positions.
    return op(0);
  case ExprKind::Full:
  case ExprKind::Arange:
  case ExprKind::Load:
  case ExprKind::Reduce:
  case ExprKind::Scan:
  case ExprKind::Dot:
    error(e.loc, "internal compiler error: block op left inside an expression");
    return "0";
  case ExprKind::Reshape:
    error(e.loc, "reshape is not supported by the CUDA backend yet");
    return "0";
  }
  return "0";
}

} // namespace helion::codegen
