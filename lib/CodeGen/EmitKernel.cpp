//===- EmitKernel.cpp - Signature, layout and the kernel as a whole --------===//
//
// The grid loops (program ids to tiles, persistent loops, hoisted and staged
// loads around them) are in EmitGrid.cpp.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"
#include "Preamble.h"
#include "helion/Config/BlockSizes.h"
#include "helion/IR/Visitor.h"
#include "helion/Config/Sites.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;

// Block sizes as apply-config chose them (run() checks that it ran).
int64_t Emitter::tileBlockSize(int tile) const {
  const TileVar& t = k_.tiles.at(tile);
  return t.isGrid ? 1 : k_.blockSizes.at(t.blockSize).chosen.value_or(1);
}

// Layout: every tile and reduction axis gets a share of the CTA's threads. Axes
// that index a tensor's last dim (the contiguous one in the row-major case) come
// first, so neighbouring threads hold neighbouring elements and vectors are 16
// bytes. Two axes need distinct threads only when some value spans both; axes
// that never meet (the tiles of two sibling loops over the same dim) share the
// innermost threads instead of dividing them.
void Emitter::planLayout() {
  using Key = std::pair<bool, int>; // (isTile, id)
  std::vector<Key> order;           // in order of first appearance
  std::vector<Key> innerCandidates; // last subscripts of loads/stores, in order
  std::set<std::pair<Key, Key>> meet;
  auto keyOf = [&](const Dim& d) -> std::optional<Key> {
    if (d.kind == Dim::Kind::Tile && !k_.tiles.at(d.tile).isGrid)
      return Key{true, d.tile};
    if (d.kind == Dim::Kind::Full)
      return Key{false, d.axis};
    return std::nullopt;
  };
  auto note = [&](Key key) {
    if (std::find(order.begin(), order.end(), key) == order.end())
      order.push_back(key);
  };
  auto noteType = [&](const BlockType& type) {
    std::vector<Key> keys;
    for (const Dim& d : type.dims)
      if (auto key = keyOf(d)) {
        note(*key);
        keys.push_back(*key);
      }
    for (const Key& a : keys)
      for (const Key& b : keys)
        if (a != b)
          meet.insert({a, b});
  };
  auto seeExpr = [&](const Expr& root) {
    walkExpr(root, [&](const Expr& e) {
      if (e.type && !stagedOperands_.count(&e))
        noteType(*e.type);
    });
  };
  auto noteInner = [&](const std::vector<Index>& ix, const BlockType& type) {
    if (ix.empty())
      return;
    // The last tensor subscript: its dim is the last non-One dim of the value.
    const Index& last = ix.back();
    std::optional<Key> key;
    if (last.kind == Index::Kind::Tile || last.kind == Index::Kind::Flat) {
      if (!k_.tiles.at(last.tile).isGrid)
        key = Key{true, last.tile};
    } else if (last.kind == Index::Kind::All) {
      for (auto it = type.dims.rbegin(); it != type.dims.rend(); ++it)
        if (it->kind == Dim::Kind::Full) {
          key = Key{false, it->axis};
          break;
        }
    }
    if (key && std::find(innerCandidates.begin(), innerCandidates.end(), *key) ==
                   innerCandidates.end())
      innerCandidates.push_back(*key);
  };
  planMmaLayout();
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::For) {
      for (int t : s.tiles)
        if (!k_.tiles.at(t).isGrid)
          note({true, t});
      return;
    }
    if (dotOperandLets_.count(&s)) { // copied into shared memory by its dot: no layout
      for (const Dim& d : s.value->type->dims)
        if (auto key = keyOf(d))
          note(*key);
      return;
    }
    if (s.value)
      seeExpr(*s.value);
    const BlockType* type = s.value && s.value->type ? &*s.value->type : nullptr;
    if (s.kind == StmtKind::Store && !s.gatherAll && type) {
      BlockType target = *type;
      target.dims = s.targetDims.empty() ? type->dims : s.targetDims;
      noteType(target);
      noteInner(s.indices, target);
    } else if (s.kind == StmtKind::Let && s.value->kind == ExprKind::Load &&
               !s.value->gatherAll && type) {
      noteInner(s.value->indices, *type);
    }
  });

  // Inner axes first: the largest candidates win (a reduction axis over a tile of
  // one row); a candidate that meets a chosen one is not inner.
  auto extentGuess = [&](const Key& k) -> int64_t {
    if (k.first)
      return tileBlockSize(k.second);
    const auto& rl = cfg_.reductionLoops;
    if (k.second < static_cast<int>(rl.size()) && rl[k.second])
      return *rl[k.second];
    return int64_t(1) << 40; // a whole reduction dim
  };
  std::stable_sort(innerCandidates.begin(), innerCandidates.end(),
                   [&](const Key& a, const Key& b) { return extentGuess(a) > extentGuess(b); });
  std::vector<Key> inner;
  for (const Key& c : innerCandidates)
    if (std::none_of(inner.begin(), inner.end(), [&](const Key& i) { return meet.count({i, c}); }))
      inner.push_back(c);
  std::vector<Key> sorted = inner;
  for (const Key& k : order)
    if (std::find(sorted.begin(), sorted.end(), k) == sorted.end())
      sorted.push_back(k);
  if (mmaLayout_) { // the mma axes take the low thread bits: columns, then rows
    auto rank = [&](const Key& k) {
      auto it = mmaRole_.find(k);
      return it == mmaRole_.end() ? 2 : it->second == MmaRole::Col ? 0 : 1;
    };
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const Key& a, const Key& b) { return rank(a) < rank(b); });
    inner.clear(); // an mma column's vector is its pair (V = 2), rows have none
  }

  for (auto [isTile, id] : sorted) {
    LayoutAxis a;
    a.isTile = isTile;
    a.id = id;
    a.key = (isTile ? "t" : "a") + std::to_string(id);
    if (isTile) {
      a.size = std::to_string(tileBlockSize(id));
    } else {
      const auto& rl = cfg_.reductionLoops;
      if (id < static_cast<int>(rl.size()) && rl[id]) {
        a.looped = true;
        a.size = std::to_string(*rl[id]);
      } else {
        a.size = "RDIM" + std::to_string(id);
        out_.templateArgs.push_back({TemplateArg::Kind::ReductionDim, id});
      }
    }
    a.inner = std::find(inner.begin(), inner.end(), Key{isTile, id}) != inner.end();
    if (auto role = mmaRole_.find(Key{isTile, id}); role != mmaRole_.end())
      a.mma = role->second;
    // Vectors must start at multiples of VEC: only tiles that begin at 0.
    if (isTile && a.inner) {
      const Expr& begin = *k_.tiles.at(id).begin;
      a.inner = begin.kind == ExprKind::Const && begin.value == 0;
    }
    // Threads go past every earlier axis this one meets.
    for (size_t j = 0; j < axes_.size(); ++j)
      if (meet.count({Key{axes_[j].isTile, axes_[j].id}, Key{isTile, id}}))
        a.after.push_back(static_cast<int>(j));
    (isTile ? tileAxis_ : fullAxis_)[id] = static_cast<int>(axes_.size());
    if (!isTile)
      for (auto pd : k_.axes.at(id).tensorDims)
        allAxisOf_[pd] = static_cast<int>(axes_.size());
    axes_.push_back(a);
  }
  // Every axis gets a bit of EXACT: the launcher sets it when the axis's
  // extent fills its tiles / chunks / RDIM, and its bounds checks fold away.
  for (const LayoutAxis& a : axes_) {
    ExactAxis e;
    e.isTile = a.isTile;
    e.id = a.id;
    e.chunk = a.isTile ? tileBlockSize(a.id) : a.looped ? std::stoll(a.size) : 0;
    out_.exactAxes.push_back(e);
  }
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
    case TemplateArg::Kind::DType: tparams += "class T_" + k_.params[t.index].name; break;
    case TemplateArg::Kind::ReductionDim: tparams += "int RDIM" + std::to_string(t.index); break;
    case TemplateArg::Kind::VectorWidth: tparams += "int VEC"; break;
    case TemplateArg::Kind::Specialized: tparams += "hd::int64 " + k_.params[t.index].name; break;
    case TemplateArg::Kind::ExactAxes: tparams += "int EXACT"; break;
    case TemplateArg::Kind::EpilogueForm: break; // matmul kernels only
    }
  }
  line("template <" + tparams + ">");
  std::string bounds = "__launch_bounds__(" + std::to_string(out_.numThreads) + ")";
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
    bounds = "__launch_bounds__(" + nt + ", row_min_blocks(" + nt + ", (" + rowElems + ")" + rows +
             " / " + nt + "))";
  }
  if (cfg_.maxnreg) // the two qualifiers exclude each other
    bounds = "__maxnreg__(" + std::to_string(*cfg_.maxnreg) + ")";
  line("__global__ " + bounds + " void " + out_.kernelName + "(");
  ++indent_;
  for (size_t i = 0; i < out_.args.size(); ++i) {
    const KernelArg& a = out_.args[i];
    const Param& p = k_.params[a.param];
    std::string text;
    switch (a.kind) {
    case KernelArg::Kind::Pointer:
      text = (storedParams_.count(a.param) ? "T_" : "const T_") + p.name + "* __restrict__ " +
             p.name;
      break;
    case KernelArg::Kind::Numel: text = "int64 numel_" + p.name; break;
    case KernelArg::Kind::Size: text = "int64 size_" + p.name + "_" + std::to_string(a.dim); break;
    case KernelArg::Kind::Stride:
      text = "int64 stride_" + p.name + "_" + std::to_string(a.dim);
      break;
    case KernelArg::Kind::Scalar:
      text = computeType(ElemType::concrete(p.scalarType)) + " " + p.name;
      break;
    }
    line(text + (i + 1 < out_.args.size() ? "," : ") {"));
  }
  if (out_.args.empty())
    line(") {");
}

void Emitter::emitLayoutConstants() {
  line("constexpr int NT = " + std::to_string(out_.numThreads) + ";");
  for (const LayoutAxis& a : axes_) {
    const std::string& x = a.key;
    std::string stride = "1";
    for (int j : a.after) {
      const std::string& y = axes_[j].key;
      stride = stride == "1" ? "ST_" + y + " * T_" + y
                             : "hmax(" + stride + ", ST_" + y + " * T_" + y + ")";
    }
    line("// axis " + x + ": " +
         (a.isTile ? "tile " + k_.tiles[a.id].name : "reduction axis a" + std::to_string(a.id)) +
         (a.looped ? " (looped)" : ""));
    line("constexpr int S_" + x + " = " + a.size + ";");
    if (a.mma != MmaRole::None) {
      emitMmaAxis(a);
      continue;
    }
    line("constexpr int ST_" + x + " = " + stride + ";");
    line("constexpr int V_" + x + " = " +
         (a.inner ? "axis_vec(VEC, S_" + x + ", NT / ST_" + x + " > 0 ? NT / ST_" + x + " : 1)"
                  : "1") +
         ";");
    // A reduction axis that later axes (rows of the same program) go past leaves them
    // threads: at most NT / (their sizes) threads, at least a warp, so that a program of
    // several short rows reduces them side by side rather than one after another over
    // all its threads.
    std::string rows;
    const int self = static_cast<int>(&a - axes_.data());
    for (size_t k = self + 1; k < axes_.size(); ++k)
      if (axes_[k].size != "1" &&
          std::find(axes_[k].after.begin(), axes_[k].after.end(), self) != axes_[k].after.end())
        rows += (rows.empty() ? "" : " * ") + axes_[k].size; // S_ of a later axis
    std::string threads = "hmin(NT / ST_" + x + " > 0 ? NT / ST_" + x + " : 1, S_" + x + " / V_" +
                          x + ")";
    if (!a.isTile && !a.looped && !rows.empty())
      threads = "hmin(" + threads + ", hmax(32, NT / (ST_" + x + " * " + rows + ")))";
    line("constexpr int T_" + x + " = " + threads + ";");
    line("constexpr int E_" + x + " = S_" + x + " / T_" + x + ";");
    line("const int th_" + x + " = (threadIdx.x / ST_" + x + ") % T_" + x + ";");
    line("constexpr bool X_" + x + " = (EXACT >> " + std::to_string(&a - axes_.data()) +
         ") & 1; // no bounds checks needed");
    if (!a.isTile)
      line("const int64 ext_" + x + " = " + axisExtent(static_cast<int>(&a - axes_.data())) + ";");
    if (!a.isTile && !a.looped)
      line("const int64 off_" + x + " = 0;");
  }
  // Two buffers for axis_reduce, used alternately (one barrier per reduction).
  line("__shared__ double smem_raw[2][NT];");
  line("int red_phase = 0;");
}

std::optional<EmittedKernel> Emitter::run() {
  for (const BlockSizeDecl& b : k_.blockSizes)
    if (!b.chosen) {
      error(b.loc, "internal compiler error: block size '" + b.name + "' not chosen (the "
                   "emitter runs after apply-config)");
      return std::nullopt;
    }
  for (const StmtRef& s : k_.body)
    if (s->kind == StmtKind::For && !s->grid) {
      error(s->loc, "internal compiler error: a grid loop without a grid mapping (the emitter "
                    "runs after grid-mapping)");
      return std::nullopt;
    }
  for (const config::LoopInfo& l : config::tileLoops(k_))
    if (!l.isGrid)
      innerTiles_.insert(l.tiles.begin(), l.tiles.end());
  out_.kernelName = k_.name + opts_.kernelSuffix;
  out_.numThreads = 32 * std::clamp(cfg_.numWarps, 1, 32);
  switch (gridPid()) { // the host launches the grid the mapping decided
  case GridMapping::Pid::Flat: out_.pidType = config::PidType::Flat; break;
  case GridMapping::Pid::Xyz: out_.pidType = config::PidType::Xyz; break;
  case GridMapping::Pid::PersistentBlocked: out_.pidType = config::PidType::PersistentBlocked; break;
  case GridMapping::Pid::PersistentInterleaved:
    out_.pidType = config::PidType::PersistentInterleaved;
    break;
  }
  out_.numSmMultiplier = cfg_.numSmMultiplier;
  out_.maxVectorBytes = cfg_.vectorBytes > 0 ? cfg_.vectorBytes : 16;
  planLayout();
  planParams();
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Assign)
      assignedVars_.insert(s.var);
  });
  walkExprs(k_.body, [&](const Expr& e) {
    if (e.kind == ExprKind::Var)
      ++varUses_[e.var];
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
