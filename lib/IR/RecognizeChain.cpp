//===- RecognizeChain.cpp - Two chained dots, recognized --------------------===//
//
// A kernel the generic emitter prints may also have the chain template's loop
// (helion/IR/TemplateMatch.h, ChainMatch): per output tile [tm, tn], a loop over
// hidden blocks th whose body is a K loop accumulating s = a[tm, :] @ b1[:, th]
// (or one dot over a whole K, `a[tm, hl::all]`), then acc += cast(F(s)) @ b2[th, tn]
// with F pointwise (scalars, constants, and loads at [th]: a hidden-layer bias).
// That is a two-layer MLP (relu(x @ w1) @ w2) or attention without its softmax
// ((q k^T) v). Batched: every tile and subscript after a batch tile tb of block
// size 1 ([tb, tm, tn]). The output columns may be a whole dim (`acc` of
// [tm, hl::all]: the grid has no column tile). The sm_90a chain template
// (chain_sm90.cuh) runs it with the a row tile resident in shared memory and s
// never leaving registers.
//
// Unlike the matmul and attention recognizers, a kernel that does not fit is no
// error: it keeps the generic kernel, which runs it everywhere. So the checks
// here are silent and strict: anything they do not know leaves Kernel::chain unset.
// Lets are seen through (the frontend names every subexpression).
//===----------------------------------------------------------------------===//
#include "helion/IR/TemplateMatch.h"

#include "helion/IR/Visitor.h"

#include <algorithm>
#include <map>

namespace helion::ir {
namespace {

bool isTileIx(const Index& ix, int tile) { return ix.kind == Index::Kind::Tile && ix.tile == tile; }

bool isConst(const Expr& e, double v) { return e.kind == ExprKind::Const && e.value == v; }

/// Unary, binary, where, cast, or a view that keeps or adds axes: a pointwise op
/// whose operands are its only inputs.
bool pointwiseOp(const Expr& e) {
  if (e.kind == ExprKind::View)
    return std::all_of(e.indices.begin(), e.indices.end(), [](const Index& ix) {
      return ix.kind == Index::Kind::All || ix.kind == Index::Kind::NewAxis;
    });
  return e.kind == ExprKind::Unary || e.kind == ExprKind::Binary || e.kind == ExprKind::Where ||
         e.kind == ExprKind::Cast;
}

/// `full(shape, c)` of a constant c.
bool constantTile(const Expr& e) {
  return e.kind == ExprKind::Full && e.operands.size() == 1 &&
         e.operands[0]->kind == ExprKind::Const;
}

/// A subscript of an operand or output tile: a tile variable, or kWhole, a whole dim
/// (`hl::all`).
constexpr int kWhole = -2;

class Recognizer {
public:
  explicit Recognizer(const Kernel& k) : k_(k) {}

  std::optional<ChainMatch> run() {
    if (k_.body.size() != 1 || k_.body[0]->kind != StmtKind::For)
      return std::nullopt;
    const Stmt& grid = *k_.body[0];
    m_.grid = k_.body[0];
    const std::vector<StmtRef>& body = grid.body;
    // let %acc = full([tb,] tm, tn or a whole dim], 0, f32), its tiles the grid's.
    if (body.size() < 3 || body[0]->kind != StmtKind::Let || body[1]->kind != StmtKind::For ||
        !accumulator(grid, *body[0]->value))
      return std::nullopt;
    m_.accVar = body[0]->var;
    if (!hiddenLoop(*body[1]))
      return std::nullopt;
    for (size_t i = 2; i < body.size(); ++i) {
      if (!epilogueStmt(*body[i]))
        return std::nullopt;
      m_.epilogue.push_back(body[i]);
    }
    for (int t : {m_.tileB, m_.tileM, m_.tileN, m_.tileH, m_.tileK}) {
      if (t < 0)
        continue;
      const TileVar& tv = k_.tiles.at(t);
      if (!isConst(*tv.begin, 0) || tv.isGrid || tv.flatOfParam >= 0)
        return std::nullopt;
    }
    if (m_.tileB >= 0 && !unitTile(m_.tileB))
      return std::nullopt;
    // The extents: the tiles' ends, or the whole dims' axes' extents (as the generic
    // kernel reads them).
    m_.batch = m_.tileB >= 0 ? k_.tiles.at(m_.tileB).end : nullptr;
    m_.rows = k_.tiles.at(m_.tileM).end;
    m_.hidden = k_.tiles.at(m_.tileH).end;
    m_.cols = m_.tileN >= 0 ? k_.tiles.at(m_.tileN).end : axisExtent(colAxis_);
    m_.depth = m_.tileK >= 0 ? k_.tiles.at(m_.tileK).end : axisExtent(kAxis_);
    if (!m_.cols || !m_.depth)
      return std::nullopt;
    return m_;
  }

private:
  const Kernel& k_;
  ChainMatch m_;
  std::map<int, ExprRef> lets_;
  std::set<int> epilogueVars_;
  int colAxis_ = -1; ///< the axis of whole output columns (from the accumulator's type)
  int kAxis_ = -1;   ///< the axis of a whole K (from a's load type)

  bool batched() const { return m_.tileB >= 0; }
  int rank() const { return batched() ? 3 : 2; }

  /// A batch tile of block size 1: fixed by the source, or chosen by the config.
  bool unitTile(int tile) const {
    const BlockSizeDecl& d = k_.blockSizes.at(k_.tiles.at(tile).blockSize);
    return d.fixed ? *d.fixed == 1 : d.chosen && *d.chosen == 1;
  }

  /// The extent of axis `axis`: the first tensor dim on it, else the extent it was
  /// given (`hl::zeros({tm, d})`); null when unknown.
  ExprRef axisExtent(int axis) const {
    if (axis < 0 || axis >= static_cast<int>(k_.axes.size()))
      return nullptr;
    const Axis& a = k_.axes[axis];
    if (a.param < 0)
      return a.extent;
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::TensorSize;
    e->param = a.param;
    e->dim = a.dim;
    return e;
  }

  /// `e` with the lets it names seen through (a chain of `let %a = %b`).
  const Expr& resolve(const Expr& e) const {
    const Expr* x = &e;
    for (int depth = 0; x->kind == ExprKind::Var && lets_.count(x->var) && depth < 64; ++depth)
      x = lets_.at(x->var).get();
    return *x;
  }

  /// Whether `ix` is the subscript `want`: tile `want`, or a whole dim for kWhole.
  static bool subscript(const Index& ix, int want) {
    return want == kWhole ? ix.kind == Index::Kind::All : isTileIx(ix, want);
  }

  /// `p[tb, t0, t1]` (`p[t0, t1]` unbatched) of a tensor, unmasked: its param, or -1.
  int load(const Expr& e0, int t0, int t1) const {
    const Expr& e = resolve(e0);
    const int r = rank();
    if (e.kind != ExprKind::Load || e.gatherAll || !e.operands.empty() ||
        static_cast<int>(e.indices.size()) != r || (batched() && !isTileIx(e.indices[0], m_.tileB)) ||
        !subscript(e.indices[r - 2], t0) || !subscript(e.indices[r - 1], t1) ||
        k_.params.at(e.param).kind != Param::Kind::Tensor)
      return -1;
    return e.param;
  }

  /// `full([tb,] [t0, t1], 0, f32)`, t1 a tile or kWhole.
  bool zeros(const Expr& e, int t0, int t1) const {
    const int r = rank();
    auto tileDim = [&](const Dim& d, int t) { return d.kind == Dim::Kind::Tile && d.tile == t; };
    return e.kind == ExprKind::Full && static_cast<int>(e.shape.size()) == r &&
           (!batched() || tileDim(e.shape[0], m_.tileB)) && tileDim(e.shape[r - 2], t0) &&
           (t1 == kWhole ? e.shape[r - 1].kind != Dim::Kind::Tile && e.type &&
                               e.type->rank() == r && e.type->dims[r - 1].kind == Dim::Kind::Full
                         : tileDim(e.shape[r - 1], t1)) &&
           e.operands.size() == 1 && isConst(*e.operands[0], 0) &&
           (!e.castTo || *e.castTo == ScalarType::F32);
  }

  /// The accumulator's shape gives the roles: [tm, tn] or [tb, tm, tn] over the grid's
  /// tiles (in any order), the output columns a tile or a whole dim (then the grid has
  /// no column tile).
  bool accumulator(const Stmt& grid, const Expr& init) {
    if (init.kind != ExprKind::Full || (init.shape.size() != 2 && init.shape.size() != 3))
      return false;
    const size_t r = init.shape.size();
    std::vector<int> roles; // the grid tiles the shape names
    for (size_t d = 0; d < r; ++d) {
      const Dim& dim = init.shape[d];
      if (dim.kind == Dim::Kind::Tile)
        roles.push_back(dim.tile);
      else if (d != r - 1) // a whole dim (sized, typed Full) only as the output columns
        return false;
    }
    std::vector<int> sorted = roles, tiles = grid.tiles;
    std::sort(sorted.begin(), sorted.end());
    std::sort(tiles.begin(), tiles.end());
    if (sorted != tiles || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return false;
    if (r == 3)
      m_.tileB = init.shape[0].tile;
    m_.tileM = init.shape[r - 2].tile;
    m_.tileN = init.shape[r - 1].kind == Dim::Kind::Tile ? init.shape[r - 1].tile : -1;
    if (m_.tileN < 0 && init.type && init.type->rank() == static_cast<int>(r) &&
        init.type->dims[r - 1].kind == Dim::Kind::Full)
      colAxis_ = init.type->dims[r - 1].axis;
    return zeros(init, m_.tileM, m_.tileN >= 0 ? m_.tileN : kWhole);
  }

  /// for %th { let %s = full([tm, th], 0, f32); for %tk { ...; %s = dot(a, b1, %s) };
  ///           ...; %acc = dot(cast(F(%s)), b2[th, tn], %acc) }
  /// or, with the first dot's K whole (no K loop):
  ///         for %th { ...; let %s = dot(a[tm, :], b1[:, th]); ...; %acc = dot(...) }
  bool hiddenLoop(const Stmt& loop) {
    if (loop.kind != StmtKind::For || loop.tiles.size() != 1 || loop.body.size() < 2)
      return false;
    m_.tileH = loop.tiles[0];
    size_t i = 0;
    const Stmt& sInit = *loop.body[0];
    if (sInit.kind == StmtKind::Let && zeros(*sInit.value, m_.tileM, m_.tileH)) {
      m_.hiddenVar = sInit.var;
      if (loop.body.size() < 3 || !kLoop(*loop.body[1]))
        return false;
      i = 2;
    }
    bool assigned = false;
    for (; i < loop.body.size(); ++i) {
      const Stmt& s = *loop.body[i];
      if (assigned)
        return false; // %acc's update ends the body
      if (s.kind == StmtKind::Let && m_.hiddenVar < 0 && wholeKDot(*s.value)) {
        m_.hiddenVar = s.var; // the first dot, K whole
        continue;
      }
      if (s.kind == StmtKind::Let && pureValue(*s.value)) {
        lets_[s.var] = s.value;
        continue;
      }
      if (m_.hiddenVar < 0 || s.kind != StmtKind::Assign || s.var != m_.accVar ||
          !secondDot(resolve(*s.value)))
        return false;
      assigned = true;
    }
    return assigned;
  }

  /// Loads, constants and pointwise ops: a let the chain may see through or skip.
  bool pureValue(const Expr& e) const {
    switch (e.kind) {
    case ExprKind::Reduce:
    case ExprKind::Scan:
    case ExprKind::Rand:
    case ExprKind::Arange:
    case ExprKind::Reshape: return false;
    default: break;
    }
    for (const ExprRef& op : e.operands)
      if (!pureValue(*op))
        return false;
    return true;
  }

  /// The first dot's operands: a[tm, k] and b1[k, th] or b1t[th, k]^T, k the tile `k`
  /// or a whole dim (kWhole).
  bool firstDotOperands(const Expr& d, int k) {
    const int r = rank();
    m_.a = load(*d.operands[0], m_.tileM, k);
    const Expr& b = resolve(*d.operands[1]);
    if (b.kind == ExprKind::Transpose && b.operands.size() == 1 &&
        ((b.dim == r - 2 && b.dim2 == r - 1) || (b.dim == r - 1 && b.dim2 == r - 2))) {
      m_.b1 = load(*b.operands[0], m_.tileH, k);
      m_.b1KMajor = true;
    } else {
      m_.b1 = load(b, k, m_.tileH);
      m_.b1KMajor = false;
    }
    return m_.a >= 0 && m_.b1 >= 0;
  }

  /// `dot(a[tm, :], b1[:, th])` (or b1t[th, :]^T): the first dot over a whole K.
  bool wholeKDot(const Expr& value) {
    const Expr& d = resolve(value);
    if (d.kind != ExprKind::Dot || d.operands.size() != 2 || !firstDotOperands(d, kWhole))
      return false;
    const Expr& a = resolve(*d.operands[0]);
    if (!a.type || a.type->rank() != rank() || a.type->dims.back().kind != Dim::Kind::Full)
      return false;
    kAxis_ = a.type->dims.back().axis;
    return true;
  }

  /// for %tk { lets of loads; %s = dot(a[tm, tk], b1[tk, th] or b1t[th, tk]^T, %s) }
  bool kLoop(const Stmt& loop) {
    if (loop.kind != StmtKind::For || loop.tiles.size() != 1)
      return false;
    m_.tileK = loop.tiles[0];
    bool assigned = false;
    for (const StmtRef& sp : loop.body) {
      const Stmt& s = *sp;
      if (assigned)
        return false;
      if (s.kind == StmtKind::Let && pureValue(*s.value)) {
        lets_[s.var] = s.value;
        continue;
      }
      if (s.kind != StmtKind::Assign || s.var != m_.hiddenVar)
        return false;
      const Expr& d = resolve(*s.value);
      if (d.kind != ExprKind::Dot || d.operands.size() != 3 ||
          resolve(*d.operands[2]).kind != ExprKind::Var ||
          resolve(*d.operands[2]).var != m_.hiddenVar || !firstDotOperands(d, m_.tileK))
        return false;
      assigned = true;
    }
    return assigned;
  }

  /// dot(cast(F(%s)), b2[th, tn], %acc)
  bool secondDot(const Expr& d) {
    if (d.kind != ExprKind::Dot || d.operands.size() != 3)
      return false;
    const Expr& acc = resolve(*d.operands[2]);
    if (acc.kind != ExprKind::Var || acc.var != m_.accVar)
      return false;
    m_.b2 = load(*d.operands[1], m_.tileH, m_.tileN >= 0 ? m_.tileN : kWhole);
    if (m_.b2 < 0)
      return false;
    const Expr& cast = resolve(*d.operands[0]);
    // The template rounds P to its 16-bit operand dtype: the cast must be to that
    // (a tensor's dtype, which the launcher compares, or bf16 / f16), not to f32.
    if (cast.kind != ExprKind::Cast || cast.operands.size() != 1 ||
        (cast.castTo && *cast.castTo != ScalarType::BF16 && *cast.castTo != ScalarType::F16))
      return false;
    ExprRef f = activation(*cast.operands[0]);
    if (!f)
      return false;
    auto act = std::make_shared<Expr>(cast);
    act->operands[0] = f;
    m_.act = act;
    return true;
  }

  /// F with lets substituted, or null when it is not pointwise in %s. Substituting
  /// lets that name one another many times grows the tree exponentially: past
  /// kMaxActNodes nodes F is not taken (the functor would be that large too).
  static constexpr int kMaxActNodes = 256;
  mutable int actNodes_ = 0;
  ExprRef activation(const Expr& e0) const {
    if (++actNodes_ > kMaxActNodes)
      return nullptr;
    const Expr& e = resolve(e0);
    if (pointwiseOp(e)) {
      auto out = std::make_shared<Expr>(e);
      for (ExprRef& op : out->operands)
        if (!(op = activation(*op)))
          return nullptr;
      return out;
    }
    bool ok = false;
    switch (e.kind) {
    case ExprKind::Var: ok = e.var == m_.hiddenVar; break;
    case ExprKind::Const: ok = true; break;
    case ExprKind::Param: ok = k_.params.at(e.param).kind == Param::Kind::Scalar; break;
    case ExprKind::Full: ok = constantTile(e); break;
    case ExprKind::Load: // a per-hidden-column vector (a bias b1[th]) the kernel does not write
      ok = !e.gatherAll && e.operands.empty() && e.indices.size() == 1 &&
           isTileIx(e.indices[0], m_.tileH) && !written(e.param);
      break;
    default: break;
    }
    return ok ? std::make_shared<Expr>(e) : nullptr;
  }

  /// Whether any statement of the kernel stores to tensor `param`.
  bool written(int param) const {
    bool w = false;
    walkStmts(k_.body, [&](const Stmt& s) { w = w || (s.kind == StmtKind::Store && s.param == param); });
    return w;
  }

  /// An epilogue value: pointwise in %acc, its own lets, scalars, tile indices and
  /// loads whose subscripts are output coordinates ([tb,] tm, tn or the whole output
  /// columns), at most one each.
  bool epilogueValue(const Expr& e) const {
    if (pointwiseOp(e))
      return std::all_of(e.operands.begin(), e.operands.end(),
                         [&](const ExprRef& op) { return epilogueValue(*op); });
    switch (e.kind) {
    case ExprKind::Const: return true;
    case ExprKind::Param: return k_.params.at(e.param).kind == Param::Kind::Scalar;
    case ExprKind::Var: return e.var == m_.accVar || epilogueVars_.count(e.var) > 0;
    case ExprKind::TileIndex:
      return e.tile == m_.tileM || (m_.tileN >= 0 && e.tile == m_.tileN) ||
             (batched() && e.tile == m_.tileB);
    case ExprKind::Full: return constantTile(e);
    case ExprKind::Load:
      return !e.gatherAll && e.operands.empty() && !e.indices.empty() &&
             static_cast<int>(e.indices.size()) <= rank() &&
             std::all_of(e.indices.begin(), e.indices.end(),
                         [&](const Index& ix) { return outputSubscript(ix); }) &&
             wholeDimsAreColumns(e);
    default: return false;
    }
  }

  /// A subscript the epilogue functor can compute from (b, row, col).
  bool outputSubscript(const Index& ix) const {
    if (ix.kind == Index::Kind::All)
      return m_.tileN < 0;
    return isTileIx(ix, m_.tileM) || (m_.tileN >= 0 && isTileIx(ix, m_.tileN)) ||
           (batched() && isTileIx(ix, m_.tileB));
  }

  /// With whole output columns, every whole dim an epilogue value has is that one
  /// (the functor's col); known from the types, so untyped IR never matches.
  bool wholeDimsAreColumns(const Expr& e) const {
    if (m_.tileN >= 0)
      return true;
    if (!e.type || colAxis_ < 0)
      return false;
    return std::all_of(e.type->dims.begin(), e.type->dims.end(), [&](const Dim& d) {
      return d.kind != Dim::Kind::Full || d.axis == colAxis_;
    });
  }

  bool epilogueStmt(const Stmt& s) {
    if (!s.value || !epilogueValue(*s.value) || !wholeDimsAreColumns(*s.value))
      return false;
    switch (s.kind) {
    case StmtKind::Let: epilogueVars_.insert(s.var); return true;
    case StmtKind::Assign: return s.var == m_.accVar || epilogueVars_.count(s.var) > 0;
    case StmtKind::Store: {
      const int r = rank();
      return !s.atomicAdd && !s.gatherAll && !s.mask && static_cast<int>(s.indices.size()) == r &&
             (!batched() || isTileIx(s.indices[0], m_.tileB)) &&
             isTileIx(s.indices[r - 2], m_.tileM) &&
             subscript(s.indices[r - 1], m_.tileN >= 0 ? m_.tileN : kWhole);
    }
    default: return false;
    }
  }
};

} // namespace

std::optional<ChainMatch> recognizeChain(const Kernel& kernel) { return Recognizer(kernel).run(); }

} // namespace helion::ir
