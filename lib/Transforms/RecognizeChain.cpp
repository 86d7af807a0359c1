//===- RecognizeChain.cpp - Two chained dots, recognized --------------------===//
//
// A kernel the generic emitter prints may also have the chain template's loop
// (helion/IR/TemplateMatch.h, ChainMatch): per output tile [tm, tn], a loop over
// hidden blocks th whose body is a K loop accumulating s = a[tm, :] @ b1[:, th],
// then acc += cast(F(s)) @ b2[th, tn] with F pointwise (scalars, constants, and
// loads at [th]: a hidden-layer bias). That is a two-layer MLP
// (relu(x @ w1) @ w2) or attention without its softmax ((q k^T) v). The sm_90a
// chain template (chain_sm90.cuh) runs it with the a row tile resident in shared
// memory and s never leaving registers.
//
// Unlike the matmul and attention recognizers, a kernel that does not fit is no
// error: it keeps the generic kernel, which runs it everywhere. So the checks
// here are silent and strict: anything they do not know leaves Kernel::chain unset.
// Lets are seen through (the frontend names every subexpression).
//===----------------------------------------------------------------------===//
#include "ChainRecognizer.h"

#include "helion/IR/Visitor.h"

#include <algorithm>
#include <map>

namespace helion::ir {
namespace {

bool isTileIx(const Index& ix, int tile) { return ix.kind == Index::Kind::Tile && ix.tile == tile; }

bool isConst(const Expr& e, double v) { return e.kind == ExprKind::Const && e.value == v; }

/// `full([t0, t1], 0, f32)`.
bool zeroTile(const Expr& e, int t0, int t1) {
  return e.kind == ExprKind::Full && e.shape.size() == 2 && e.shape[0].kind == Dim::Kind::Tile &&
         e.shape[0].tile == t0 && e.shape[1].kind == Dim::Kind::Tile && e.shape[1].tile == t1 &&
         e.operands.size() == 1 && isConst(*e.operands[0], 0) &&
         (!e.castTo || *e.castTo == ScalarType::F32);
}

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

class Recognizer {
public:
  explicit Recognizer(const Kernel& k) : k_(k) {}

  std::optional<ChainMatch> run() {
    if (k_.body.size() != 1 || k_.body[0]->kind != StmtKind::For)
      return std::nullopt;
    const Stmt& grid = *k_.body[0];
    m_.grid = k_.body[0];
    if (grid.tiles.size() != 2)
      return std::nullopt;
    size_t i = 0;
    const std::vector<StmtRef>& body = grid.body;
    // let %acc = full([tm, tn], 0, f32), with tm, tn the grid's tiles in either order.
    if (body.size() < 3 || body[0]->kind != StmtKind::Let || body[1]->kind != StmtKind::For)
      return std::nullopt;
    const Expr& init = *body[0]->value;
    for (int order = 0; order < 2 && m_.tileM < 0; ++order)
      if (zeroTile(init, grid.tiles[order], grid.tiles[1 - order])) {
        m_.tileM = grid.tiles[order];
        m_.tileN = grid.tiles[1 - order];
      }
    if (m_.tileM < 0)
      return std::nullopt;
    m_.accVar = body[0]->var;
    i = 1;
    if (!hiddenLoop(*body[i]))
      return std::nullopt;
    for (++i; i < body.size(); ++i) {
      if (!epilogueStmt(*body[i]))
        return std::nullopt;
      m_.epilogue.push_back(body[i]);
    }
    for (int t : {m_.tileM, m_.tileN, m_.tileH, m_.tileK}) {
      const TileVar& tv = k_.tiles.at(t);
      if (!isConst(*tv.begin, 0) || tv.isGrid || tv.flatOfParam >= 0)
        return std::nullopt;
    }
    return m_;
  }

private:
  const Kernel& k_;
  ChainMatch m_;
  std::map<int, ExprRef> lets_;
  std::set<int> epilogueVars_;

  /// `e` with the lets it names seen through (a chain of `let %a = %b`).
  const Expr& resolve(const Expr& e) const {
    const Expr* x = &e;
    for (int depth = 0; x->kind == ExprKind::Var && lets_.count(x->var) && depth < 64; ++depth)
      x = lets_.at(x->var).get();
    return *x;
  }

  /// `p[t0, t1]` of a tensor, unmasked: its param, or -1.
  int load2(const Expr& e0, int t0, int t1) const {
    const Expr& e = resolve(e0);
    if (e.kind != ExprKind::Load || e.gatherAll || !e.operands.empty() || e.indices.size() != 2 ||
        !isTileIx(e.indices[0], t0) || !isTileIx(e.indices[1], t1) ||
        k_.params.at(e.param).kind != Param::Kind::Tensor)
      return -1;
    return e.param;
  }

  /// for %th { let %s = full([tm, th], 0, f32); for %tk { ...; %s = dot(a, b1, %s) };
  ///           ...; %acc = dot(cast(F(%s)), b2[th, tn], %acc) }
  bool hiddenLoop(const Stmt& loop) {
    if (loop.kind != StmtKind::For || loop.tiles.size() != 1 || loop.body.size() < 3)
      return false;
    m_.tileH = loop.tiles[0];
    const Stmt& sInit = *loop.body[0];
    if (sInit.kind != StmtKind::Let || !zeroTile(*sInit.value, m_.tileM, m_.tileH))
      return false;
    m_.hiddenVar = sInit.var;
    if (!kLoop(*loop.body[1]))
      return false;
    bool assigned = false;
    for (size_t i = 2; i < loop.body.size(); ++i) {
      const Stmt& s = *loop.body[i];
      if (assigned)
        return false; // %acc's update ends the body
      if (s.kind == StmtKind::Let && pureValue(*s.value)) {
        lets_[s.var] = s.value;
        continue;
      }
      if (s.kind != StmtKind::Assign || s.var != m_.accVar || !secondDot(resolve(*s.value)))
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
          resolve(*d.operands[2]).var != m_.hiddenVar)
        return false;
      m_.a = load2(*d.operands[0], m_.tileM, m_.tileK);
      const Expr& b = resolve(*d.operands[1]);
      if (b.kind == ExprKind::Transpose && b.operands.size() == 1 &&
          ((b.dim == 0 && b.dim2 == 1) || (b.dim == 1 && b.dim2 == 0))) {
        m_.b1 = load2(*b.operands[0], m_.tileH, m_.tileK);
        m_.b1KMajor = true;
      } else {
        m_.b1 = load2(b, m_.tileK, m_.tileH);
      }
      if (m_.a < 0 || m_.b1 < 0)
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
    m_.b2 = load2(*d.operands[1], m_.tileH, m_.tileN);
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
  /// loads at [tm, tn], [tm] or [tn].
  bool epilogueValue(const Expr& e) const {
    if (pointwiseOp(e))
      return std::all_of(e.operands.begin(), e.operands.end(),
                         [&](const ExprRef& op) { return epilogueValue(*op); });
    switch (e.kind) {
    case ExprKind::Const: return true;
    case ExprKind::Param: return k_.params.at(e.param).kind == Param::Kind::Scalar;
    case ExprKind::Var: return e.var == m_.accVar || epilogueVars_.count(e.var) > 0;
    case ExprKind::TileIndex: return e.tile == m_.tileM || e.tile == m_.tileN;
    case ExprKind::Full: return constantTile(e);
    case ExprKind::Load:
      return !e.gatherAll && e.operands.empty() && !e.indices.empty() && e.indices.size() <= 2 &&
             std::all_of(e.indices.begin(), e.indices.end(), [&](const Index& ix) {
               return isTileIx(ix, m_.tileM) || isTileIx(ix, m_.tileN);
             });
    default: return false;
    }
  }

  bool epilogueStmt(const Stmt& s) {
    if (!s.value || !epilogueValue(*s.value))
      return false;
    switch (s.kind) {
    case StmtKind::Let: epilogueVars_.insert(s.var); return true;
    case StmtKind::Assign: return s.var == m_.accVar || epilogueVars_.count(s.var) > 0;
    case StmtKind::Store:
      return !s.atomicAdd && !s.gatherAll && !s.mask && s.indices.size() == 2 &&
             isTileIx(s.indices[0], m_.tileM) && isTileIx(s.indices[1], m_.tileN);
    default: return false;
    }
  }
};

} // namespace

std::optional<ChainMatch> recognizeChain(const Kernel& kernel) { return Recognizer(kernel).run(); }

} // namespace helion::ir
