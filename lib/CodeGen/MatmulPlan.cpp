//===- MatmulPlan.cpp - Recognizing tensor-core matrix products ------------===//
//
// Pattern (see MatmulPlan.h) first, then the config. The config keys map to the
// device library's template parameters as follows (docs/gemm.md):
//
//   block_sizes of tm, tn, tk  -> BM, BN, BK (tk must be 64: one 128-byte swizzle row of
//                                 16-bit elements; the kernels' BK is that row in the
//                                 operand type: 64 bf16/f16, 32 f32, 128 f8e4m3/f8e5m2)
//   num_warps 8 / 12           -> 1 / 2 consumer warpgroups (+ 1 producer) (sm90)
//   num_stages                 -> Stages of the TMA / cp.async ring
//   pid_type persistent_*      -> Persistent (flat, xyz: one CTA per tile)
//   l2_groupings[0]            -> groupM (1 = plain row-major tile order)
//   indexing all tensor_descriptor -> the sm90 kernel (TMA + wgmma), with the
//                                 sm80 kernel as the fallback; otherwise sm80 only
//
// Example: the default config of a large matmul, block_sizes [128, 256, 64],
// num_warps 12, num_stages 4, persistent_interleaved, l2_groupings [8] ->
// hd::Gemm<T, T_out, 128, 256, 64, 4, 2, false, true, tma_store>.
//===----------------------------------------------------------------------===//
#include "MatmulPlan.h"
#include "helion/Config/BlockSizes.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/Visitor.h"

#include <functional>
#include <string>

namespace helion::codegen {
namespace {

using namespace ir;

constexpr int kMaxSmem = 227 * 1024;


/// The block size of tile `t` as apply-config chose it, and its config path
/// ("block_sizes[2] (tk)"; fixed sizes are not in the config).
std::pair<int64_t, std::string> blockSizeOf(const Kernel& k, int t) {
  const BlockSizeDecl& d = k.blockSizes.at(k.tiles.at(t).blockSize);
  if (d.configIndex < 0)
    return {d.chosen.value_or(1), "the block size fixed by the source"};
  return {d.chosen.value_or(1),
          "block_sizes[" + std::to_string(d.configIndex) + "] (" + k.tiles[t].name + ")"};
}

bool isZero(const ExprRef& e) { return e && e->kind == ExprKind::Const && e->value == 0; }

class Planner {
public:
  Planner(const Kernel& k, const config::Config& c, DiagnosticEngine& d) : k_(k), c_(c), d_(d) {}

  std::optional<MatmulPlan> run() {
    if (k_.body.size() != 1 || k_.body[0]->kind != StmtKind::For)
      return fail(k_.loc, "a kernel with hl::dot must have exactly one top-level tile loop");
    p_.grid = k_.body[0].get();
    // `grid`: the loop whose body is accumulator, K loop, epilogue: the grid loop,
    // or the column loop of a grouped GEMM.
    const Stmt* body = p_.grid;
    if (const Stmt* rows = ir::groupedMatmulRowLoop(k_)) {
      if (!planGroupedLoops(k_, *p_.grid, *rows, p_, d_))
        return std::nullopt;
      body = rows->body[0].get();
    } else {
      const Stmt& g = *p_.grid;
      if (g.tiles.size() != 2 && g.tiles.size() != 3)
        return fail(g.loc, "a tensor-core matmul needs a grid loop over [tm, tn] or, batched, "
                           "[tb, tm, tn]; found " + std::to_string(g.tiles.size()) + " tiles");
      const size_t first = g.tiles.size() - 2;
      if (first == 1)
        p_.tileB = g.tiles[0];
      p_.tileM = g.tiles[first];
      p_.tileN = g.tiles[first + 1];
    }
    const Stmt& grid = *body;
    if (const Expr* d = wrongRankDot())
      return fail(d->loc, std::string("a dot in a grid loop over ") +
                              (batched() ? "[tb, tm, tn] must be batched (3-D)"
                                         : "[tm, tn] must be 2-D"));
    size_t i = 0;
    // let %acc = full([tm, tn], 0, f32) (batched: [tb, tm, tn])
    if (i >= grid.body.size() || grid.body[i]->kind != StmtKind::Let ||
        grid.body[i]->value->kind != ExprKind::Full || !isZero(grid.body[i]->value->operands[0]))
      return fail(grid.body.empty() ? grid.loc : grid.body[0]->loc,
                  std::string("a tensor-core matmul starts with its accumulator, ") +
                      (batched() ? "hl::zeros({tb, tm, tn}, hl::f32)"
                                 : "hl::zeros({tm, tn}, hl::f32)"));
    p_.accVar = grid.body[i]->var;
    ++i;
    if (i >= grid.body.size() || grid.body[i]->kind != StmtKind::For)
      return fail(grid.body[i - 1]->loc, "expected the K loop (for tk in hl::tile(k)) after the "
                                         "accumulator of a tensor-core matmul");
    if (!kLoop(*grid.body[i]))
      return std::nullopt;
    for (++i; i < grid.body.size(); ++i)
      if (!epilogueStmt(*grid.body[i]))
        return std::nullopt;
    for (int t : {p_.tileB, grouped() ? -1 : p_.tileM, p_.tileN, p_.tileK})
      if (t >= 0 &&
          (!isZero(k_.tiles[t].begin) || k_.tiles[t].isGrid || k_.tiles[t].flatOfParam >= 0))
        return fail(k_.tiles[t].loc, "tile '" + k_.tiles[t].name +
                                         "' of a tensor-core matmul must be hl::tile(end) from 0");
    int stores = 0;
    for (const Stmt* s : p_.epilogue)
      stores += s->kind == StmtKind::Store;
    if (stores == 0)
      return fail(grid.loc, "a tensor-core matmul must store its result");
    if (stores == 1)
      for (const Stmt* s : p_.epilogue)
        if (s->kind == StmtKind::Store)
          p_.tmaStoreParam = s->param;
    if (!mapConfig())
      return std::nullopt;
    // tma_store writes the tile in 128-byte column boxes (64 16-bit elements): a
    // narrower tile (tn from 16 with B as [N, K]) stores from registers (pairs).
    if (p_.bn % 64 != 0)
      p_.tmaStoreParam = -1;
    return p_;
  }

private:
  const Kernel& k_;
  const config::Config& c_;
  DiagnosticEngine& d_;
  MatmulPlan p_;
  std::map<int, ExprRef> lets_; // K-loop lets, by var

  bool batched() const { return p_.tileB >= 0; }
  bool grouped() const { return p_.tileG >= 0; }

  /// The first dot whose result is not 2-D (batched: 3-D), or null.
  const Expr* wrongRankDot() const {
    const size_t rank = batched() ? 3 : 2;
    return findExpr(k_.body, [rank](const Expr& e) {
      return e.kind == ExprKind::Dot && e.type && e.type->dims.size() != rank;
    });
  }

  std::nullopt_t fail(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return std::nullopt;
  }

  ExprRef resolve(const ExprRef& e) const {
    if (e->kind == ExprKind::Var && lets_.count(e->var))
      return resolve(lets_.at(e->var));
    return e;
  }

  bool isTile(const Index& ix, int tile) const {
    return ix.kind == Index::Kind::Tile && ix.tile == tile;
  }

  /// Whether transpose dims (d1, d2) swap the last two of `rank` dims.
  static bool swapsLastTwo(int d1, int d2, int rank) {
    auto norm = [rank](int d) { return d < 0 ? d + rank : d; };
    return std::min(norm(d1), norm(d2)) == rank - 2 && std::max(norm(d1), norm(d2)) == rank - 1;
  }

  /// `x[tm, tk]` (A), `y[tk, tn]` (B) or `y[tn, tk].transpose(0, 1)` (B as [N, K]);
  /// batched: `x[tb, tm, tk]`, `y[tb, tk, tn]`, `y[tb, tn, tk].transpose(1, 2)`.
  bool operand(const ExprRef& raw, bool isA) {
    ExprRef e = resolve(raw);
    const int rank = batched() ? 3 : 2;
    bool transposed = false;
    if (!isA && e->kind == ExprKind::Transpose && swapsLastTwo(e->dim, e->dim2, rank)) {
      e = resolve(e->operands[0]);
      transposed = true;
    }
    const int row = isA ? p_.tileM : transposed ? p_.tileN : p_.tileK;
    const int col = isA ? p_.tileK : transposed ? p_.tileK : p_.tileN;
    // Grouped: B is group g's matrix, b[g, tk, tn].
    const bool byGroup = grouped() && !isA;
    const size_t o = batched() || byGroup ? 1 : 0;
    if (e->kind != ExprKind::Load || e->gatherAll || e->indices.size() != o + 2 ||
        (batched() && !isTile(e->indices[0], p_.tileB)) ||
        (byGroup && !isGroupIndex(e->indices[0], p_)) || !isTile(e->indices[o], row) ||
        !isTile(e->indices[o + 1], col)) {
      const char* want = batched() ? (isA ? "x[tb, tm, tk]"
                                          : "y[tb, tk, tn] (or y[tb, tn, tk].transpose(1, 2))")
                         : byGroup ? "b[g, tk, tn] (or b[g, tn, tk].transpose(0, 1))"
                                   : (isA ? "x[tm, tk]" : "y[tk, tn] (or y[tn, tk].transpose(0, 1))");
      fail(raw->loc, std::string("the ") + (isA ? "first" : "second") +
                         " operand of a tensor-core hl::dot must be a load " + want + " of a " +
                         (batched() || byGroup ? "3-D" : "2-D") + " tensor");
      return false;
    }
    (isA ? p_.a : p_.b) = e->param;
    if (!isA)
      p_.bTransposed = transposed;
    return true;
  }

  bool kLoop(const Stmt& loop) {
    if (loop.tiles.size() != 1)
      return fail(loop.loc, "the K loop of a tensor-core matmul must tile one dim"), false;
    p_.tileK = loop.tiles[0];
    const Stmt* accumulate = nullptr;
    for (const StmtRef& s : loop.body) {
      if (s->kind == StmtKind::Let && !accumulate) {
        lets_[s->var] = s->value;
        continue;
      }
      if (s->kind == StmtKind::Assign && s->var == p_.accVar && !accumulate) {
        accumulate = s.get();
        continue;
      }
      return fail(s->loc, "the K loop of a tensor-core matmul may only accumulate hl::dot into "
                          "its accumulator (acc = hl::addmm(acc, x[tm, tk], y[tk, tn]))"),
             false;
    }
    if (!accumulate)
      return fail(loop.loc, "the K loop of a tensor-core matmul must update the accumulator"),
             false;
    ExprRef v = resolve(accumulate->value);
    ExprRef dot;
    if (v->kind == ExprKind::Dot && v->operands.size() == 3) {
      ExprRef acc = resolve(v->operands[2]);
      if (acc->kind == ExprKind::Var && acc->var == p_.accVar)
        dot = v;
    } else if (v->kind == ExprKind::Binary && v->binary == BinaryOp::Add) {
      for (int j = 0; j < 2; ++j) {
        ExprRef acc = resolve(v->operands[j]), d = resolve(v->operands[1 - j]);
        if (acc->kind == ExprKind::Var && acc->var == p_.accVar && d->kind == ExprKind::Dot &&
            d->operands.size() == 2)
          dot = d;
      }
    }
    if (!dot)
      return fail(accumulate->value->loc,
                  "unsupported matrix product: expected acc = hl::addmm(acc, a, b), "
                  "acc = hl::dot(a, b, acc) or acc += hl::dot(a, b)"),
             false;
    return operand(dot->operands[0], true) && operand(dot->operands[1], false);
  }

  bool epilogueExpr(const Expr& e) {
    switch (e.kind) {
    case ExprKind::Const:
    case ExprKind::Param:
      return true;
    case ExprKind::Var:
      if (p_.groupLets.count(e.var))
        return fail(e.loc, "a grouped matmul's epilogue may not use the values of its group "
                           "loop (they are the row loop's bounds)"),
               false;
      return true;
    case ExprKind::TileIndex:
      if (e.tile == p_.tileM || e.tile == p_.tileN || (batched() && e.tile == p_.tileB))
        return true;
      break;
    case ExprKind::Load:
      if (!e.gatherAll) {
        for (const Index& ix : e.indices)
          if (!(isTile(ix, p_.tileM) || isTile(ix, p_.tileN) ||
                (batched() && isTile(ix, p_.tileB)) || isGroupIndex(ix, p_) ||
                ix.kind == Index::Kind::NewAxis))
            return fail(e.loc, batched() ? "a batched matmul epilogue may load only at tiles "
                                           "tb, tm and tn ([tb, tm, tn], [tn], ...)"
                               : grouped() ? "a grouped matmul epilogue may load only at tm, tn "
                                             "and the group g ([tm, tn], [g, tn], ...)"
                                         : "a matmul epilogue may load only at [tm, tn], [tm] "
                                           "or [tn]"),
                   false;
        return true;
      }
      break;
    case ExprKind::Full: {
      // A constant tile (hl::zeros / hl::full) is pointwise: the same value at
      // every element. Its dims must be tiles of the epilogue (or size one).
      for (const Dim& d : e.type ? e.type->dims : std::vector<Dim>{})
        if (!(d.kind == Dim::Kind::One ||
              (d.kind == Dim::Kind::Tile &&
               (d.tile == p_.tileM || d.tile == p_.tileN || (batched() && d.tile == p_.tileB)))))
          return fail(e.loc, std::string("a constant tile in a matmul epilogue must have the "
                                         "shape of the epilogue tile (") +
                                 (batched() ? "{tb, tm, tn}" : "{tm, tn}") + " or a part of it)"),
                 false;
      return epilogueExpr(*e.operands[0]);
    }
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Where:
    case ExprKind::Cast:
    case ExprKind::View: {
      for (const Index& ix : e.indices)
        if (ix.kind != Index::Kind::All && ix.kind != Index::Kind::NewAxis)
          return fail(e.loc, "unsupported subscript in a matmul epilogue"), false;
      for (const ExprRef& op : e.operands)
        if (!epilogueExpr(*op))
          return false;
      return true;
    }
    default: break;
    }
    return fail(e.loc, "only pointwise operations, scalars and loads at [tm, tn] may follow the K "
                       "loop of a tensor-core matmul"),
           false;
  }

  /// out[tm, tn], or batched out[tb, tm, tn].
  bool storeTarget(const Stmt& s) const {
    const size_t o = batched() ? 1 : 0;
    return !s.gatherAll && !s.mask && s.indices.size() == o + 2 &&
           (!batched() || isTile(s.indices[0], p_.tileB)) && isTile(s.indices[o], p_.tileM) &&
           isTile(s.indices[o + 1], p_.tileN);
  }

  bool epilogueStmt(const Stmt& s) {
    switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Assign:
      if (!epilogueExpr(*s.value))
        return false;
      break;
    case StmtKind::Store:
      if (s.atomicAdd)
        return fail(s.loc, "a tensor-core matmul cannot end in hl::atomic_add (split-K is not "
                           "lowered yet): store its result to out[tm, tn]"), false;
      if (!storeTarget(s))
        return fail(s.loc, batched() ? "a batched tensor-core matmul may store only to "
                                       "out[tb, tm, tn]"
                                     : "a tensor-core matmul may store only to out[tm, tn]"),
             false;
      if (!epilogueExpr(*s.value))
        return false;
      break;
    case StmtKind::For:
      return fail(s.loc, "a tensor-core matmul may not have a loop after its K loop"), false;
    }
    p_.epilogue.push_back(&s);
    return true;
  }

  bool configError(const std::string& msg) {
    d_.error(p_.grid->loc, "config: " + msg);
    return false;
  }

  bool mapConfig() {
    auto [bm, bmKey] = blockSizeOf(k_, p_.tileM);
    auto [bn, bnKey] = blockSizeOf(k_, p_.tileN);
    auto [bk, bkKey] = blockSizeOf(k_, p_.tileK);
    bool ok = true;
    if (batched()) {
      auto [bb, bbKey] = blockSizeOf(k_, p_.tileB);
      if (bb != 1)
        ok = configError(bbKey + " (the batch tile) must be 1 for a batched tensor-core matmul, "
                                 "got " + std::to_string(bb) +
                         "; fix it in the source: hl::block_size({1, hl::tunable, hl::tunable})");
    }
    if (bk != 64)
      ok = configError(bkKey + " must be 64 for a tensor-core matmul (one 128-byte swizzle row "
                               "of 16-bit elements; the kernels take one such row per k-block "
                               "whatever the dtype: 32 f32 or 128 8-bit elements), got " +
                       std::to_string(bk));
    p_.sm90 = !c_.indexing.empty();
    for (config::Indexing ix : c_.indexing)
      p_.sm90 = p_.sm90 && ix == config::Indexing::TensorDescriptor;
    p_.bm = static_cast<int>(bm);
    p_.bn = static_cast<int>(bn);
    p_.stages = c_.numStages;
    // The sm80 kernel runs one CTA per tile: pid_type (and num_warps) are the sm90
    // kernel's only, and a config without it must not differ in them.
    p_.persistent = p_.sm90 && (c_.pidType == config::PidType::PersistentBlocked ||
                                c_.pidType == config::PidType::PersistentInterleaved);
    p_.groupM = c_.l2Groupings.empty() ? 1 : std::max(1, c_.l2Groupings[0]);
    if (grouped()) { // no l2_groupings key (the grid loop has one tile): GROUP_M 8 per group
      p_.persistent = true;
      p_.groupM = 8;
    }
    if (c_.numStages < 2)
      ok = configError("num_stages must be at least 2 for a tensor-core matmul, got " +
                       std::to_string(c_.numStages));
    const int64_t maxBn = p_.bTransposed ? 256 : 256, minBn = p_.bTransposed ? 16 : 64;
    if (bn < minBn || bn > maxBn)
      ok = configError(bnKey + " must be in [" + std::to_string(minBn) + ", " +
                       std::to_string(maxBn) + "] for a tensor-core matmul, got " +
                       std::to_string(bn));
    if (p_.sm90) {
      if (c_.numWarps != 8 && c_.numWarps != 12)
        ok = configError("num_warps must be 8 or 12 for the sm90 matmul (4 x (1 producer + 1 or 2 "
                         "consumer warpgroups)), got " + std::to_string(c_.numWarps));
      p_.consumers = c_.numWarps == 8 ? 1 : 2;
      if (bm % (64 * p_.consumers) != 0)
        ok = configError(bmKey + " must be a multiple of 64 x " + std::to_string(p_.consumers) +
                         " consumer warpgroups (num_warps " + std::to_string(c_.numWarps) +
                         "), got " + std::to_string(bm));
      else if (bm / p_.consumers / 64 * bn / 2 > 128)
        ok = configError("block sizes " + std::to_string(bm) + " x " + std::to_string(bn) +
                         " need " + std::to_string(bm / p_.consumers / 64 * bn / 2) +
                         " accumulator registers per thread with num_warps " +
                         std::to_string(c_.numWarps) + "; at most 128 fit");
      // The ring plus the smallest tma_store slice (f32 output in 4 slices).
      int64_t ring = 1024 + p_.stages * (bm + bn) * 128 + 16 * p_.stages;
      if (ring + bm * bn * 4 / 4 > kMaxSmem)
        ok = configError("num_stages " + std::to_string(p_.stages) + " with " +
                         std::to_string(bm) + " x " + std::to_string(bn) + " tiles needs " +
                         std::to_string(ring + bm * bn) +
                         " bytes of shared memory, over the 227 KB of a CTA");
    }
    // The sm80 kernel: 8 warps in a 2 x 4 grid, warp tiles multiples of 16 x 16.
    p_.sm80Bm = static_cast<int>(std::min<int64_t>(bm, 256));
    p_.sm80Bn = static_cast<int>(std::max<int64_t>(64, bn));
    p_.sm80Stages = p_.stages;
    while (p_.sm80Stages > 2 && 128 + p_.sm80Stages * (p_.sm80Bm + p_.sm80Bn) * 128 > kMaxSmem)
      --p_.sm80Stages;
    if (!p_.sm90) {
      if (bm < 32 || bm > 256 || bn % 64 != 0)
        ok = configError("the sm80 matmul (indexing pointer/block_ptr) needs " + bmKey +
                         " in [32, 256] and " + bnKey + " a multiple of 64, got " +
                         std::to_string(bm) + " x " + std::to_string(bn));
      else if (p_.sm80Stages != p_.stages)
        ok = configError("num_stages " + std::to_string(p_.stages) + " of " + std::to_string(bm) +
                         " x " + std::to_string(bn) + " tiles is over the 227 KB of shared "
                         "memory of the sm80 matmul; at most " + std::to_string(p_.sm80Stages));
    }
    return ok;
  }
};

} // namespace

std::optional<MatmulPlan> planMatmul(const Kernel& kernel, const config::Config& config,
                                     DiagnosticEngine& diags) {
  return Planner(kernel, config, diags).run();
}

} // namespace helion::codegen
