//===- Printer.cpp - Stable text form of the IR ----------------------------===//
//
// The text form is what lit tests check, so it is deterministic and compact:
//
//   kernel softmax(%x: tensor, %out: tensor captured, %m: i64 captured)
//     block_sizes: bs0(tm, hint %m)
//     axes: a0(x.size(1))
//     thread_layout: a0 inner | t0(tm) after [a0]     (after the thread-layout pass)
//     launch: threads 128, vector_bytes 16, num_sm_multiplier 1   (after apply-config)
//     matmul: a %x, b %y, ...           (a template's kernel, after recognize-templates)
//     template: gemm sm90 128x256 ...   (a template's kernel, after template-plan)
//   for %tm in tile(0, %m) block bs0 {
//     let %values : dtype(x)[tm, a0] = load %x[%tm, :]
//   }
// The config passes' other decisions are printed where they apply (loops, loads, lets).
//===----------------------------------------------------------------------===//
#include "helion/IR/Printer.h"

#include "PrintDecisions.h"

#include <sstream>

namespace helion::ir {
namespace {

class Printer {
public:
  explicit Printer(const Kernel& k) : k_(k), names_(k.paramNames()) {}

  std::string type(const BlockType& t) const {
    std::string s = t.elem.str(names_) + "[";
    for (size_t i = 0; i < t.dims.size(); ++i) {
      if (i)
        s += ", ";
      const Dim& d = t.dims[i];
      switch (d.kind) {
      case Dim::Kind::Tile: s += tileName(d.tile); break;
      case Dim::Kind::Full: s += "a" + std::to_string(d.axis); break;
      case Dim::Kind::One: s += "1"; break;
      }
    }
    return s + "]";
  }

  std::string tileName(int t) const {
    if (t >= 0 && t < static_cast<int>(k_.tiles.size()))
      return k_.tiles[t].name;
    return "tile?" + std::to_string(t);
  }

  std::string paramName(int p) const {
    if (p >= 0 && p < static_cast<int>(names_.size()))
      return "%" + names_[p];
    return "%param?" + std::to_string(p);
  }

  std::string varName(int v) const {
    if (v >= 0 && v < static_cast<int>(k_.vars.size()))
      return "%" + k_.vars[v].name + "." + std::to_string(v);
    return "%var?" + std::to_string(v);
  }

  std::string index(const Index& i) const {
    switch (i.kind) {
    case Index::Kind::Tile: return "%" + tileName(i.tile);
    case Index::Kind::All: return ":";
    case Index::Kind::NewAxis: return "newaxis";
    case Index::Kind::Scalar: return expr(*i.value);
    case Index::Kind::Gather: return "gather(" + expr(*i.value) + ")";
    case Index::Kind::Flat: return "flat(%" + tileName(i.tile) + ")";
    }
    return "?";
  }

  std::string indices(const std::vector<Index>& ix) const {
    std::string s;
    for (size_t i = 0; i < ix.size(); ++i)
      s += (i ? ", " : "") + index(ix[i]);
    return s;
  }

  std::string shape(const Expr& e) const {
    std::string s = "[";
    size_t sized = 0;
    for (size_t i = 0; i < e.shape.size(); ++i) {
      if (i)
        s += ", ";
      const Dim& d = e.shape[i];
      if (d.kind == Dim::Kind::Tile)
        s += tileName(d.tile);
      else if (sized < e.shapeSizes.size())
        s += expr(*e.shapeSizes[sized++]);
      else
        s += "1";
    }
    return s + "]";
  }

  std::string number(double v, bool isInt) const {
    std::ostringstream os;
    if (isInt)
      os << static_cast<long long>(v);
    else {
      os.precision(17);
      os << v;
      std::string s = os.str();
      if (s.find_first_of(".eEin") == std::string::npos)
        s += ".0";
      return s;
    }
    return os.str();
  }

  std::string expr(const Expr& e) const {
    auto op = [&](size_t i) { return expr(*e.operands.at(i)); };
    switch (e.kind) {
    case ExprKind::Const: return number(e.value, e.isInt);
    case ExprKind::Param: return paramName(e.param);
    case ExprKind::Var: return varName(e.var);
    case ExprKind::TileAttr: {
      static const char* names[] = {"begin", "end", "block_size", "id"};
      return "%" + tileName(e.tile) + "." + names[static_cast<int>(e.attr)];
    }
    case ExprKind::TileIndex: return "%" + tileName(e.tile) + ".index";
    case ExprKind::TensorSize: return paramName(e.param) + ".size(" + std::to_string(e.dim) + ")";
    case ExprKind::Load:
      return std::string(e.gatherAll ? "load_gather " : "load ") + paramName(e.param) + "[" +
             indices(e.indices) + "]" + (loadMask(e) ? " mask " + expr(*loadMask(e)) : "") +
             (e.eviction != Eviction::None
                  ? std::string(" ") + evictionName(e.eviction) + " (load_eviction_policies[" +
                        std::to_string(e.evictionEntry) + "])"
                  : "");
    case ExprKind::Unary: return std::string(unaryOpName(e.unary)) + "(" + op(0) + ")";
    case ExprKind::Binary:
      return std::string(binaryOpName(e.binary)) + "(" + op(0) + ", " + op(1) + ")";
    case ExprKind::Where: return "where(" + op(0) + ", " + op(1) + ", " + op(2) + ")";
    case ExprKind::Cast:
      return "cast<" +
             (e.castTo ? std::string(scalarTypeName(*e.castTo)) : "dtype(" + paramName(e.param) + ")") +
             ">(" + op(0) + ")";
    case ExprKind::Reduce:
      return std::string(reduceOpName(e.reduce)) + "(" + op(0) + ", dim=" + std::to_string(e.dim) +
             (e.keepdim ? ", keepdim" : "") + (e.zeroPadded ? ", zero-padded" : "") + ")";
    case ExprKind::Full:
      return "full(" + shape(e) + ", " + op(0) +
             (e.castTo ? std::string(", ") + scalarTypeName(*e.castTo) : "") + ")";
    case ExprKind::Arange: return "arange(" + shape(e) + ")";
    case ExprKind::View: return op(0) + "[" + indices(e.indices) + "]";
    case ExprKind::Transpose:
      return op(0) + ".transpose(" + std::to_string(e.dim) + ", " + std::to_string(e.dim2) + ")";
    case ExprKind::Reshape: return op(0) + ".reshape(" + shape(e) + ")";
    case ExprKind::Dot:
      return "dot(" + op(0) + ", " + op(1) + (e.operands.size() > 2 ? ", " + op(2) : "") + ")" +
             (e.mma ? " " + printMmaDot(*e.mma) : "");
    case ExprKind::Scan:
      return std::string(e.binary == BinaryOp::Mul ? "cumprod" : "cumsum") + "(" + op(0) +
             ", dim=" + std::to_string(e.dim) + ")";
    case ExprKind::Rand:
      return "rand(" + op(0) + ", " + op(1) + ")" +
             (e.randRunTile >= 0 ? " run %" + tileName(e.randRunTile) : "");
    }
    return "?";
  }

  /// `grid(flat, order [%tn, %tm] = loop_orders[0], l2_group 8 = l2_groupings[0])`
  std::string gridMapping(const GridMapping& g) const {
    std::string s = std::string("grid(") + pidName(g.pid) + ", order [";
    for (size_t i = 0; i < g.order.size(); ++i)
      s += (i ? ", %" : "%") + tileName(g.order[i]);
    s += "]";
    if (g.loopOrderEntry >= 0)
      s += " = loop_orders[" + std::to_string(g.loopOrderEntry) + "]";
    s += ", l2_group " + std::to_string(g.l2Group);
    if (g.l2Entry >= 0)
      s += " = l2_groupings[" + std::to_string(g.l2Entry) + "]";
    return s + ")";
  }

  /// ` mma rows` / ` mma cols` on a tile of the mma layout, else nothing.
  std::string mmaMark(int t) const {
    MmaRole r = t >= 0 && t < static_cast<int>(k_.tiles.size()) ? k_.tiles[t].mma : MmaRole::None;
    return r == MmaRole::None ? "" : std::string(" mma ") + mmaRoleName(r);
  }

  /// ` t1(tn) mma cols | t0(tm) mma rows after [t1] | a0 after [t1, t0]`, or ` none`
  std::string threadLayout(const std::vector<ThreadAxis>& axes) const {
    auto key = [&](size_t p) { // "after" names the axis at that position
      return p < axes.size() ? (axes[p].isTile ? "t" : "a") + std::to_string(axes[p].id) : "?";
    };
    std::string s = axes.empty() ? " none" : "";
    for (size_t i = 0; i < axes.size(); ++i) {
      const ThreadAxis& a = axes[i];
      s += (i ? " | " : " ") + key(i) +
           (a.isTile ? "(" + tileName(a.id) + ")" + mmaMark(a.id) : "") + (a.inner ? " inner" : "");
      for (size_t j = 0; j < a.after.size(); ++j)
        s += (j ? ", " : " after [") + key(a.after[j]) + (j + 1 == a.after.size() ? "]" : "");
    }
    return s;
  }

  void stmt(std::ostringstream& os, const Stmt& s, int depth) const {
    std::string pad(2 * depth, ' ');
    switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Assign: {
      os << pad << (s.kind == StmtKind::Let ? "let " : "") << (s.dotCopied ? "copied-by-dot " : "")
         << (s.hoisted ? "hoisted " : "") << (s.staged ? "staged " : "")
         << (s.onlineSum >= 0 ? "online(" + varName(s.onlineSum) + ") " : "")
         << (s.fused ? "fused " : "") << (s.recompute ? "recomputed " : "") << varName(s.var);
      if (s.value->type)
        os << " : " << type(*s.value->type);
      os << " = " << expr(*s.value) << "\n";
      return;
    }
    case StmtKind::Store:
      os << pad << (s.atomicAdd ? (s.privateAtomic ? "atomic_add private " : "atomic_add ") : "") << (s.gatherAll ? "store_scatter " : "store ")
         << paramName(s.param) << "[" << indices(s.indices) << "] "
         << (s.atomicAdd ? "+= " : "= ") << expr(*s.value);
      if (s.mask)
        os << " mask " << expr(*s.mask);
      os << "\n";
      return;
    case StmtKind::For: {
      os << pad << "for ";
      for (size_t i = 0; i < s.tiles.size(); ++i) {
        const TileVar& t = k_.tiles.at(s.tiles[i]);
        os << (i ? ", " : "") << "%" << t.name << " in " << (t.isGrid ? "grid(" : "tile(")
           << expr(*t.begin) << ", " << expr(*t.end) << ")";
        if (t.flatOfParam >= 0)
          os << " flat(" << paramName(t.flatOfParam) << ")";
        if (!t.isGrid)
          os << " block bs" << t.blockSize;
        os << mmaMark(s.tiles[i]);
      }
      if (s.grid)
        os << " " << gridMapping(*s.grid);
      if (s.stages)
        os << " stages " << s.stages;
      if (s.unrollEntry >= 0)
        os << " unroll " << s.unroll << " = range_unroll_factors[" << s.unrollEntry << "]";
      os << " {\n";
      for (const StmtRef& b : s.body)
        stmt(os, *b, depth + 1);
      os << pad << "}\n";
      return;
    }
    }
  }

  std::string kernel() const {
    std::ostringstream os;
    os << "kernel " << k_.name << "(";
    for (size_t i = 0; i < k_.params.size(); ++i) {
      const Param& p = k_.params[i];
      os << (i ? ", " : "") << "%" << p.name << ": ";
      if (p.kind == Param::Kind::Tensor) {
        os << "tensor";
        if (p.rank >= 0)
          os << "<rank " << p.rank << ">";
      } else {
        os << scalarTypeName(p.scalarType);
      }
      if (p.captured)
        os << " captured";
      if (p.specialized)
        os << " specialized";
    }
    os << ")\n";
    if (!k_.blockSizes.empty()) {
      os << "  block_sizes:";
      for (const BlockSizeDecl& b : k_.blockSizes) {
        os << " bs" << b.id << "(" << b.name;
        if (b.fixed)
          os << ", fixed " << *b.fixed;
        if (b.sizeHint)
          os << ", hint " << expr(*b.sizeHint);
        os << ")";
        if (b.chosen)
          os << " = " << *b.chosen
             << (b.configIndex >= 0 ? " (block_sizes[" + std::to_string(b.configIndex) + "])" : "");
      }
      os << "\n";
    }
    if (!k_.axes.empty()) {
      os << "  axes:";
      for (const Axis& a : k_.axes) {
        os << " a" << a.id << "(";
        if (a.param >= 0)
          os << paramName(a.param) << ".size(" << a.dim << ")";
        else if (a.extent)
          os << expr(*a.extent);
        os << ")";
        if (a.loopChunk >= 0)
          os << (a.looped() ? " looped " + std::to_string(a.loopChunk) : " persistent");
      }
      os << "\n";
    }
    if (k_.threadLayout)
      os << "  thread_layout:" << threadLayout(*k_.threadLayout) << "\n";
    if (k_.launch)
      os << "  launch: " << printLaunch(*k_.launch) << "\n";
    if (k_.matmul)
      os << "  matmul: " << printMatmulMatch(k_, *k_.matmul) << "\n";
    if (k_.attention)
      os << "  attention: " << printAttentionMatch(k_, *k_.attention) << "\n";
    if (k_.gemm)
      os << "  template: " << printGemmParams(*k_.gemm) << "\n";
    if (k_.flash)
      os << "  template: " << printAttentionParams(*k_.flash) << "\n";
    if (k_.chain)
      os << "  chain: " << printChainMatch(k_, *k_.chain) << "\n";
    if (k_.chainParams)
      os << "  template: " << printChainParams(*k_.chainParams) << "\n";
    for (const StmtRef& s : k_.body)
      stmt(os, *s, 1);
    return os.str();
  }

private:
  const Kernel& k_;
  std::vector<std::string> names_;
};

} // namespace

std::string printKernel(const Kernel& kernel) { return Printer(kernel).kernel(); }
std::string printExpr(const Kernel& kernel, const Expr& expr) { return Printer(kernel).expr(expr); }
std::string printType(const Kernel& kernel, const BlockType& type) {
  return Printer(kernel).type(type);
}

} // namespace helion::ir
