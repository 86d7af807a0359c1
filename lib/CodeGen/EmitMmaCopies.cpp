//===- EmitMmaCopies.cpp - The general dot's operands into shared memory ----===//
//
// How the operands of a dot on the mma layout (EmitMmaDot.cpp) reach its staging
// area: a loaded operand is copied by all threads in vectors along the tensor's
// contiguous dim (cp.async where the types allow), from the tile's first element
// and 32-bit coordinates; a computed operand is written by the threads that hold
// it. The layout inside the staging area is hd::MmaDot's (dot.cuh): its copy_a /
// copy_b / put_a1 / put_b1 place each element.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

namespace helion::codegen {

using namespace ir;

/// All threads copy a loaded operand into the staging area at `buf`, in vectors
/// along the tensor's contiguous dim, zeros past the tile (and up to the k step);
/// `async`: by cp.async where the types allow (the dot pipeline).
void Emitter::stageMmaLoad(const Expr& op, const Expr& load, const std::string& site, bool isA,
                           const std::string& buf, bool async) {
  const BlockType& t = *op.type; // the operand's dims (the load's, or transposed)
  DotDim r = matDim(t, 0), c = matDim(t, 1);
  const std::string name = genName(k_.params[load.param]);
  const std::string rows = isA ? r.size : site + "::Kp", cols = isA ? site + "::Kp" : c.size;
  const int last = lastSubscriptAxis(load.param, load.indices);
  // Vectors along the operand's column (or, for a transposed view, its row) axis.
  const bool alongRows = last == r.axis && axes_[r.axis].isTile;
  const bool vec = alongRows || (last == c.axis && axes_[c.axis].isTile);
  const DotDim& v = alongRows ? r : c; // the vector axis
  const DotDim& o = alongRows ? c : r; // the other one
  const std::string vn = alongRows ? rows : cols, on = alongRows ? cols : rows;
  line("{ // " + std::string(isA ? "A" : "B") + " of " + site + ": " + name +
       ", copied by all threads");
  ++indent_;
  line("constexpr int VA = " + (vec ? "hmin(VEC, " + v.size + ")" : std::string("1")) + ";");
  line("constexpr int COUNT = " + on + " * (" + vn + " / VA);");
  // The tile's first element and its in-bounds extents once, then 32-bit coordinates
  // per copy (the 64-bit form cost ptxas some 35 instructions per copy).
  const std::string rs = r.axis >= 0 ? strideOfAxis(load.param, load.indices, r.axis) : "";
  const std::string cs = c.axis >= 0 ? strideOfAxis(load.param, load.indices, c.axis) : "";
  const bool tiled = !rs.empty() && !cs.empty() && rs != cs;
  auto start = [&](int axis) {
    const LayoutAxis& la = axes_[axis];
    return la.isTile ? "tb_t" + std::to_string(la.id) : "off_" + la.key;
  };
  auto limit = [&](const DotDim& d) {
    const LayoutAxis& la = axes_[d.axis];
    const std::string end = la.isTile ? "te_t" + std::to_string(la.id) : "ext_" + la.key;
    line("const int lim_" + la.key + " = X_" + la.key + " ? " + d.size +
         " : int(hd::minimum<int64>(" + end + " - " + start(d.axis) + ", " + d.size + "));");
  };
  if (tiled) {
    coordOverride_ = {{r.axis, start(r.axis)}, {c.axis, start(c.axis)}};
    line("const auto* tile_src = " + name + " + " + tensorOffset(load.param, load.indices, false) +
         ";");
    coordOverride_.clear();
    limit(r);
    limit(c);
  }
  line("#pragma unroll");
  line("for (int it = 0; it < (COUNT + NT - 1) / NT; ++it) {");
  ++indent_;
  line("const int e = it * NT + threadIdx.x;");
  line("if (COUNT % NT != 0 && e >= COUNT) break;");
  line("const int " + o.coord + " = e / (" + vn + " / VA);");
  line("const int " + v.coord + " = e % (" + vn + " / VA) * VA;");
  std::string src;
  if (tiled) {
    line("const bool in = " + r.coord + " < lim_" + axes_[r.axis].key + " && " + c.coord +
         " < lim_" + axes_[c.axis].key + ";");
    src = "tile_src + int64(" + r.coord + ") * " + rs + " + int64(" + c.coord + ") * " + cs;
  } else {
    line("const bool in = " + r.coord + " < " + r.size + " && " + c.coord + " < " + c.size +
         " && " + r.bound + " && " + c.bound + ";");
    src = name + " + " + tensorOffset(load.param, load.indices, false);
  }
  line(site + "::copy_" + (isA ? "a" : "b") + "<VA, " + (async ? "true" : "false") + ", " +
       (alongRows ? "true" : "false") + ">(" + buf + ", " + r.coord + ", " + c.coord +
       ", in ? " + src + " : " + name + ", in);");
  --indent_;
  line("}");
  --indent_;
  line("}");
}

std::string Emitter::strideOfAxis(int param, const std::vector<Index>& ix, int axis) const {
  const std::string name = genName(k_.params[param]);
  std::string found;
  int dim = 0, hits = 0;
  for (const Index& i : ix) {
    int a = -1;
    switch (i.kind) {
    case Index::Kind::Flat: return "";
    case Index::Kind::NewAxis: continue;
    case Index::Kind::Tile:
      if (!k_.tiles.at(i.tile).isGrid)
        a = layout_.tile(i.tile);
      break;
    case Index::Kind::All:
      a = layout_.tensorDim(param, dim);
      break;
    case Index::Kind::Scalar:
    case Index::Kind::Gather: break;
    }
    if (a == axis) {
      found = genStride(name, dim);
      ++hits;
    }
    ++dim;
  }
  return hits == 1 ? found : "";
}

/// The owners of a computed operand write its elements (zeros past the tiles).
void Emitter::stageMmaRegisters(const Expr& op, const std::string& site, bool isA) {
  const BlockType& t = *op.type;
  DotDim r = matDim(t, 0), c = matDim(t, 1);
  std::vector<int> axes = axesOf(t);
  openElementLoops(axes);
  std::string bound = r.bound + " && " + c.bound;
  line(site + "::put_" + (isA ? "a1" : "b1") + "(dot_smem, " + r.coord + ", " + c.coord + ", " +
       bound + " ? " + computeType(t.elem) + "(" + expr(op) + ") : " + computeType(t.elem) +
       "(0));");
  closeElementLoops(axes);
}

} // namespace helion::codegen
