//===- EmitKernel.cpp - Signature, layout and the kernel as a whole --------===//
//
// The grid loops (program ids to tiles, persistent loops, hoisted and staged
// loads around them) are in EmitGrid.cpp.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"
#include "Preamble.h"
#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;

// Block sizes as apply-config chose them (run() checks that it ran).
int64_t Emitter::tileBlockSize(int tile) const {
  const TileVar& t = k_.tiles.at(tile);
  return t.isGrid ? 1 : k_.blockSizes.at(t.blockSize).chosen.value_or(1);
}

// Kernel arguments: each tensor as pointer + sizes + strides (or numel when it is
// only addressed flat), each scalar by value; specialized scalars and dtypes are
// template parameters.
void Emitter::planParams() {
  std::vector<int> rank(k_.params.size(), -1);
  std::vector<bool> flat(k_.params.size(), false);
  // The subscripts' own values are walked as children of their load or store.
  auto seeIndices = [&](int param, const std::vector<Index>& ix, bool gatherAll) {
    int n = 0;
    bool flatHere = false; // this subscript is `x[tile]` over x.sizes(): no dims of its own
    for (const Index& i : ix) {
      if (i.kind == Index::Kind::Flat)
        flatHere = flat[param] = true;
      if (i.kind != Index::Kind::NewAxis)
        ++n;
    }
    if (!flatHere || gatherAll)
      rank[param] = std::max(rank[param], n);
  };
  auto seeExpr = [&](const Expr& root) {
    walkExpr(root, [&](const Expr& e) {
      if (e.kind == ExprKind::Load)
        seeIndices(e.param, e.indices, e.gatherAll);
      if (e.kind == ExprKind::TensorSize)
        rank[e.param] = std::max(rank[e.param], e.dim + 1);
    });
  };
  walkStmts(k_.body, [&](const Stmt& s) {
    forEachExprOf(s, seeExpr);
    if (s.kind == StmtKind::Store) {
      storedParams_.insert(s.param);
      seeIndices(s.param, s.indices, s.gatherAll);
    }
    if (s.kind == StmtKind::For)
      for (int t : s.tiles) {
        seeExpr(*k_.tiles[t].begin);
        seeExpr(*k_.tiles[t].end);
      }
  });
  for (const Axis& a : k_.axes)
    if (a.param >= 0)
      rank[a.param] = std::max(rank[a.param], a.dim + 1);
    else if (a.extent)
      seeExpr(*a.extent);
  for (const TileVar& t : k_.tiles)
    if (t.flatOfParam >= 0)
      flat[t.flatOfParam] = true;

  out_.paramRanks.assign(k_.params.size(), -1);
  for (size_t p = 0; p < k_.params.size(); ++p) {
    const Param& param = k_.params[p];
    int ip = static_cast<int>(p);
    if (param.kind == Param::Kind::Scalar) {
      if (param.specialized)
        out_.templateArgs.push_back({TemplateArg::Kind::Specialized, ip});
      else
        out_.args.push_back({KernelArg::Kind::Scalar, ip});
      continue;
    }
    out_.templateArgs.push_back({TemplateArg::Kind::DType, ip});
    out_.args.push_back({KernelArg::Kind::Pointer, ip});
    int r = param.rank >= 0 ? param.rank : rank[p];
    if (flat[p] || r < 0)
      out_.args.push_back({KernelArg::Kind::Numel, ip});
    for (int d = 0; d < r; ++d)
      out_.args.push_back({KernelArg::Kind::Size, ip, d});
    for (int d = 0; d < r; ++d)
      out_.args.push_back({KernelArg::Kind::Stride, ip, d});
    out_.paramRanks[p] = r;
  }
  out_.templateArgs.push_back({TemplateArg::Kind::VectorWidth, -1});
  if (!out_.exactAxes.empty())
    out_.templateArgs.push_back({TemplateArg::Kind::ExactAxes, -1});
}

void Emitter::emitSignature() {
  std::string tparams;
  for (const TemplateArg& t : out_.templateArgs) {
    if (!tparams.empty())
      tparams += ", ";
    switch (t.kind) {
    case TemplateArg::Kind::DType: tparams += "class " + genType(k_.params[t.index]); break;
    case TemplateArg::Kind::ReductionDim: tparams += "int RDIM" + std::to_string(t.index); break;
    case TemplateArg::Kind::VectorWidth: tparams += "int VEC"; break;
    case TemplateArg::Kind::Specialized:
      tparams += "hd::int64 " + genName(k_.params[t.index]);
      break;
    case TemplateArg::Kind::ExactAxes: tparams += "int EXACT"; break;
    case TemplateArg::Kind::EpilogueForm: break; // matmul kernels only
    }
  }
  line("template <" + tparams + ">");
  std::string bounds = "__launch_bounds__(" + std::to_string(out_.numThreads) + ")";
  regCap_.clear();
  // A program of one tile whose rows sit in registers (persistent reductions):
  // ask ptxas to fit row_min_blocks blocks per SM, from the row elements per
  // thread (RDIM x rows / NT, template arguments). Persistent programs keep their
  // hoisted loads in registers besides and are left to ptxas.
  const bool persistent = persistentGrid();
  std::string rowElems;
  for (const TemplateArg& t : out_.templateArgs)
    if (t.kind == TemplateArg::Kind::ReductionDim)
      rowElems += (rowElems.empty() ? "" : " + ") + std::string("RDIM") + std::to_string(t.index);
  if (!rowElems.empty() && !persistent) {
    std::string rows;
    for (const LayoutAxis& a : axes_)
      if (a.isTile)
        rows += " * " + a.size;
    const std::string nt = std::to_string(out_.numThreads);
    const std::string blocks = "row_min_blocks(" + nt + ", (" + rowElems + ")" + rows + " / " + nt + ")";
    bounds = "__launch_bounds__(" + nt + ", " + blocks + ")";
    // What ptxas may then give a thread: 64K registers over the blocks, in steps of 8.
    regCap_ = "hmin(255, 65536 / (" + nt + " * " + blocks + ") / 8 * 8)";
  }
  // The config's register cap, as apply-config resolved it: it replaces the launch
  // bounds (the two qualifiers exclude each other).
  if (const std::optional<int>& cap = k_.launch->maxnreg) {
    bounds = "__maxnreg__(" + std::to_string(*cap) + ")";
    regCap_ = std::to_string(*cap);
  }
  line("__global__ " + bounds + " void " + out_.kernelName + "(");
  ++indent_;
  for (size_t i = 0; i < out_.args.size(); ++i) {
    const KernelArg& a = out_.args[i];
    const Param& p = k_.params[a.param];
    std::string text;
    switch (a.kind) {
    case KernelArg::Kind::Pointer:
      text = (storedParams_.count(a.param) ? "" : "const ") + genType(p) + "* __restrict__ " +
             genName(p);
      break;
    case KernelArg::Kind::Numel: text = "int64 " + genNumel(p); break;
    case KernelArg::Kind::Size: text = "int64 " + genSize(p, a.dim); break;
    case KernelArg::Kind::Stride: text = "int64 " + genStride(p, a.dim); break;
    case KernelArg::Kind::Scalar:
      text = computeType(ElemType::concrete(p.scalarType)) + " " + genName(p);
      break;
    }
    line(text + (i + 1 < out_.args.size() ? "," : ") {"));
  }
  if (out_.args.empty())
    line(") {");
}

std::optional<EmittedKernel> Emitter::run() {
  for (const BlockSizeDecl& b : k_.blockSizes)
    if (!b.chosen) {
      error(b.loc, "internal compiler error: block size '" + b.name + "' not chosen (the "
                   "emitter runs after apply-config)");
      return std::nullopt;
    }
  for (const Axis& a : k_.axes)
    if (a.loopChunk < 0) {
      error(a.loc, "internal compiler error: reduction axis a" + std::to_string(a.id) +
                       " neither persistent nor looped (the emitter runs after apply-config)");
      return std::nullopt;
    }
  if (!k_.threadLayout) {
    error(k_.loc, "internal compiler error: a kernel without a thread layout (the emitter runs "
                  "after thread-layout)");
    return std::nullopt;
  }
  if (!k_.launch) {
    error(k_.loc, "internal compiler error: a kernel without a launch (the emitter runs after "
                  "apply-config)");
    return std::nullopt;
  }
  for (const StmtRef& s : k_.body)
    if (s->kind == StmtKind::For && !s->grid) {
      error(s->loc, "internal compiler error: a grid loop without a grid mapping (the emitter "
                    "runs after grid-mapping)");
      return std::nullopt;
    }
  out_.kernelName = k_.name + opts_.kernelSuffix;
  out_.numThreads = k_.launch->threads;
  switch (gridPid()) { // the host launches the grid the mapping decided
  case GridMapping::Pid::Flat: out_.pidType = config::PidType::Flat; break;
  case GridMapping::Pid::Xyz: out_.pidType = config::PidType::Xyz; break;
  case GridMapping::Pid::PersistentBlocked: out_.pidType = config::PidType::PersistentBlocked; break;
  case GridMapping::Pid::PersistentInterleaved:
    out_.pidType = config::PidType::PersistentInterleaved;
    break;
  }
  out_.numSmMultiplier = k_.launch->smMultiplier;
  out_.maxVectorBytes = k_.launch->vectorBytes;
  planMmaLayout();
  planLayout();
  planParams();
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Assign)
      assignedVars_.insert(s.var);
  });

  os_ << "// Generated by helionc " << opts_.version << " from " << opts_.sourceFile
      << ", kernel '" << k_.name << "'. Do not edit.\n";
  if (!opts_.configJson.empty())
    os_ << "// config: " << opts_.configJson << "\n";
  os_ << kPreamble << "\n";
  if (ir::findExpr(k_.body, [](const ir::Expr& e) { return e.kind == ir::ExprKind::Scan; }))
    os_ << kScanPreamble << "\n";
  if (findExpr(k_.body, [](const Expr& e) { return e.kind == ExprKind::Dot; }))
    os_ << "#include \"helion/dot.cuh\" // the general hl::dot (EmitDot.cpp)\n";
  emitSignature();
  ++indent_;
  emitLayoutConstants();
  emitPrivateCopies();
  emitDotStaging();
  std::string pidSum; // total_0 + ... + total_{i-1}
  int loopIndex = 0;
  for (const StmtRef& s : k_.body) {
    if (s->kind != StmtKind::For) {
      error(s->loc, "internal compiler error: top-level statement is not a tile loop");
      continue;
    }
    // Several top-level loops share one launch: loop i takes the program ids after
    // those of loops 0..i-1 (names are unique per tile, so no scopes are needed).
    // Parenthesized: the grid loop subtracts it from blockIdx.x.
    emitGridLoop(*s, loopIndex, pidSum.empty() ? "0" : "(" + pidSum + ")");
    pidSum += (pidSum.empty() ? "total_" : " + total_") + std::to_string(loopIndex);
    ++loopIndex;
  }
  flushPrivateCopies();
  --indent_;
  line("}");
  if (!ok_)
    return std::nullopt;
  out_.source = os_.str();
  return out_;
}

} // namespace helion::codegen
