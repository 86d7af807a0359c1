//===- VerifyDecisions.cpp - Invariants of the config passes' decisions ----===//
//
//   - a chosen block size is positive (and has no config entry when the source fixes
//     it); a reduction axis's chunk is not negative;
//   - a grid mapping orders exactly its loop's tiles, is xyz only for a kernel's single
//     loop of at most three tiles, and groups (l2Group > 1) two tiles only;
//   - a thread layout holds each tile (not an hl::grid one) and each decided reduction
//     axis at most once, and each axis goes after earlier positions only, in ascending
//     order;
//   - a launch of 1 to 32 warps;
//   - a template's parameters only on a kernel that template prints (ir::dotTemplate),
//     one family at most, with tiles, stages and warps the device library instantiates;
//   - a recognized template loop (Kernel::matmul, Kernel::attention) only on such a
//     kernel, naming the tiles its rules name (ir::templateTiles), tensor parameters
//     and variables in range, and pointing at the kernel's own grid loop and, for its
//     epilogue, at statements of the loop the template prints;
//   - a rand run (Expr::randRunTile) only on an hl::rand over that tile, which the
//     thread layout vectorizes;
//   - a chain (Kernel::chain) only on a generic kernel, with its operands in range and
//     its grid loop and epilogue the kernel's; chain parameters only with a chain, of
//     tiles the chain template instantiates.
//===----------------------------------------------------------------------===//
#include "VerifyDecisions.h"

#include "helion/IR/DotShape.h"
#include "helion/IR/TemplateMatch.h"
#include "helion/IR/Visitor.h"

#include <algorithm>
#include <set>

namespace helion::ir {
namespace {

void threadLayout(const Kernel& k, const std::vector<ThreadAxis>& layout, const VerifyFail& fail) {
  std::set<std::pair<bool, int>> seen;
  for (size_t i = 0; i < layout.size(); ++i) {
    const ThreadAxis& a = layout[i];
    const std::string name = (a.isTile ? "tile " : "axis ") + std::to_string(a.id);
    const int n = static_cast<int>(a.isTile ? k.tiles.size() : k.axes.size());
    if (a.id < 0 || a.id >= n)
      fail(k.loc, "a thread layout over " + name + ", out of range");
    else if (a.isTile ? k.tiles[a.id].isGrid : k.axes[a.id].loopChunk < 0)
      fail(k.loc, "a thread layout over " + name +
                      (a.isTile ? ", an hl::grid tile" : ", neither persistent nor looped"));
    if (!seen.insert({a.isTile, a.id}).second)
      fail(k.loc, "a thread layout with " + name + " twice");
    for (size_t j = 0; j < a.after.size(); ++j)
      if (a.after[j] < (j ? a.after[j - 1] + 1 : 0) || a.after[j] >= static_cast<int>(i))
        fail(k.loc, "a thread layout whose " + name + " goes after position " +
                        std::to_string(a.after[j]) + " (not an earlier axis, or out of order)");
  }
}

void templateParams(const Kernel& k, const VerifyFail& fail) {
  if (!k.gemm && !k.flash)
    return;
  const DotTemplate family = dotTemplate(k);
  if (k.gemm && k.flash)
    fail(k.loc, "both matmul and attention template parameters");
  if (const auto& g = k.gemm) {
    if (family != DotTemplate::Matmul)
      fail(k.loc, "matmul template parameters on a kernel the matmul template does not print");
    // 3 consumers: a product scaled per K block of 192 rows.
    const bool threeOk = g->consumers == 3 && g->kScaleBlock > 0 && g->bm == 192;
    if (g->bm < 1 || g->bn < 1 || g->stages < 2 || g->consumers < 1 ||
        (g->consumers > 2 && !threeOk) ||
        g->groupM < 1 || g->sm80Bm < 1 || g->sm80Bn < 1 || g->sm80Stages < 2 ||
        g->sm80Stages > g->stages || g->kScaleBlock < 0 ||
        (g->kScaleBlock > 0) != (k.matmul && k.matmul->kScaled))
      fail(k.loc, "matmul template parameters out of range (tiles " + std::to_string(g->bm) +
                      " x " + std::to_string(g->bn) + ", " + std::to_string(g->stages) +
                      " stages, " + std::to_string(g->consumers) + " consumers)");
  }
  if (const auto& f = k.flash) {
    if (family != DotTemplate::Attention)
      fail(k.loc, "attention template parameters on a kernel the attention template does not "
                  "print");
    if (f->bm != 16 * f->warps * f->mt || f->bn < 1 || (f->warps != 4 && f->warps != 8) ||
        (f->sm90 && (f->consumers < 1 || f->consumers > 3 || f->sm90Bm != 64 * f->consumers ||
                     f->stages < 2 || f->stages > 4 || f->sm90Bn < 1)))
      fail(k.loc, "attention template parameters out of range (sm80 " + std::to_string(f->bm) +
                      " rows of " + std::to_string(f->warps) + " warps x " +
                      std::to_string(f->mt) + ")");
  }
}

/// Whether each statement of `epilogue` is one of `body`'s (the same node).
bool within(const std::vector<StmtRef>& epilogue, const std::vector<StmtRef>& body) {
  for (const StmtRef& s : epilogue)
    if (std::find(body.begin(), body.end(), s) == body.end())
      return false;
  return true;
}

void templateMatch(const Kernel& k, const VerifyFail& fail) {
  if (!k.matmul && !k.attention)
    return;
  const TemplateTiles t = templateTiles(k);
  auto param = [&](int p) {
    return p >= 0 && p < static_cast<int>(k.params.size()) &&
           k.params[p].kind == Param::Kind::Tensor;
  };
  auto var = [&](int v) { return v >= 0 && v < static_cast<int>(k.vars.size()); };
  const StmtRef grid = k.body.empty() ? nullptr : k.body[0];
  if (const auto& m = k.matmul) {
    if (t.family != DotTemplate::Matmul || m->tileM != t.m || m->tileN != t.n ||
        m->tileK != t.k || m->tileB != t.b || m->bTransposed != t.bTransposed)
      fail(k.loc, "a recognized matmul whose tiles are not the ones its rules name");
    if (!param(m->a) || !param(m->b) || !var(m->accVar) || (m->tileG >= 0 && !param(m->offsets)))
      fail(k.loc, "a recognized matmul with an operand or accumulator out of range");
    if (m->aPrologue) {
      const Expr* load = prologueLoad(*m->aPrologue, [](int) -> const Expr* { return nullptr; });
      if (!load || load->param != m->a || m->tileG >= 0)
        fail(k.loc, "a recognized matmul whose A prologue is not pointwise code of its A load");
      if (m->aStaged != prologueStagedTensor(*m->aPrologue, m->a))
        fail(k.loc, "a recognized matmul whose staged A-shaped tensor is not the one its "
                    "A prologue reads");
    } else if (m->aStaged >= 0) {
      fail(k.loc, "a recognized matmul with a staged A-shaped tensor but no A prologue");
    }
    // The statements the template prints: the grid loop's, or the grouped GEMM's
    // column loop's.
    const Stmt* body = m->grid.get();
    if (m->tileG >= 0 && body && !body->body.empty() && !body->body.back()->body.empty())
      body = body->body.back()->body[0].get();
    if (m->grid != grid || !body || !within(m->epilogue, body->body))
      fail(k.loc, "a recognized matmul whose loop or epilogue is not the kernel's");
  }
  if (const auto& a = k.attention) {
    if (t.family != DotTemplate::Attention || a->tileB != t.b || a->tileM != t.m ||
        a->tileN != t.n)
      fail(k.loc, "recognized flash attention whose tiles are not the ones its rules name");
    if (!param(a->q) || !param(a->k) || !param(a->v) || !var(a->accVar) || !var(a->sumVar) ||
        !var(a->maxVar) || !a->score || !a->dot || !a->headDim)
      fail(k.loc, "recognized flash attention with an operand or accumulator out of range");
    if (a->grid != grid || !within(a->epilogue, a->grid->body))
      fail(k.loc, "recognized flash attention whose loop or epilogue is not the kernel's");
  }
}

void chain(const Kernel& k, const VerifyFail& fail) {
  if (k.chainParams) {
    const ChainParams& p = *k.chainParams;
    if (!k.chain)
      fail(k.loc, "chain template parameters without a recognized chain");
    bool stages = true;
    for (const auto& row : p.stages)
      for (int s : row)
        stages = stages && (s == 0 || (s >= 2 && s <= 4));
    if ((p.bm != 64 && p.bm != 128) || p.consumers != p.bm / 64 || (p.bn != 64 && p.bn != 128) ||
        (p.dvMax != 64 && p.dvMax != 128 && p.dvMax != 256) || !stages)
      fail(k.loc, "chain template parameters out of range (" + std::to_string(p.bm) + " x " +
                      std::to_string(p.bn) + ", dv <= " + std::to_string(p.dvMax) + ")");
  }
  const auto& c = k.chain;
  if (!c)
    return;
  if (dotTemplate(k) != DotTemplate::None)
    fail(k.loc, "a recognized chain on a kernel a template prints");
  auto param = [&](int p) {
    return p >= 0 && p < static_cast<int>(k.params.size()) &&
           k.params[p].kind == Param::Kind::Tensor;
  };
  auto tile = [&](int t) { return t >= 0 && t < static_cast<int>(k.tiles.size()); };
  auto var = [&](int v) { return v >= 0 && v < static_cast<int>(k.vars.size()); };
  if (!param(c->a) || !param(c->b1) || !param(c->b2) || !var(c->accVar) || !var(c->hiddenVar) ||
      !tile(c->tileM) || (c->tileN != -1 && !tile(c->tileN)) || !tile(c->tileH) ||
      (c->tileK != -1 && !tile(c->tileK)) || (c->tileB != -1 && !tile(c->tileB)) || !c->act ||
      c->act->kind != ExprKind::Cast || !c->rows || !c->cols || !c->hidden || !c->depth ||
      (c->tileB >= 0) != (c->batch != nullptr))
    fail(k.loc, "a recognized chain with an operand, tile or accumulator out of range");
  if (k.body.empty() || c->grid != k.body[0] || !within(c->epilogue, c->grid->body))
    fail(k.loc, "a recognized chain whose loop or epilogue is not the kernel's");
}

void randRuns(const Kernel& k, const VerifyFail& fail) {
  walkExprs(k.body, [&](const Expr& e) {
    if (e.randRunTile < 0)
      return;
    bool ok = e.kind == ExprKind::Rand && e.type && k.threadLayout;
    if (ok) {
      ok = std::any_of(e.type->dims.begin(), e.type->dims.end(), [&](const Dim& d) {
        return d.kind == Dim::Kind::Tile && d.tile == e.randRunTile;
      });
      ok = ok && std::any_of(k.threadLayout->begin(), k.threadLayout->end(),
                             [&](const ThreadAxis& a) {
                               return a.isTile && a.inner && a.id == e.randRunTile;
                             });
    }
    if (!ok)
      fail(e.loc, "a rand run along tile " + std::to_string(e.randRunTile) +
                      " that is not a vectorized tile of an hl::rand's value");
  });
}

} // namespace

void verifyKernelDecisions(const Kernel& k, const VerifyFail& fail) {
  for (const BlockSizeDecl& b : k.blockSizes)
    if (b.chosen && (*b.chosen < 1 || (b.fixed && b.configIndex >= 0)))
      fail(b.loc, "block size '" + b.name + "' chosen as " + std::to_string(*b.chosen) +
                      " from block_sizes[" + std::to_string(b.configIndex) + "]");
  for (const Axis& a : k.axes)
    if (a.loopChunk < -1)
      fail(a.loc, "reduction axis a" + std::to_string(a.id) + " looped in chunks of " +
                      std::to_string(a.loopChunk));
  if (k.threadLayout)
    threadLayout(k, *k.threadLayout, fail);
  if (const auto& l = k.launch;
      l && (l->threads < 32 || l->threads > 1024 || l->threads % 32 || l->vectorBytes < 1 ||
            l->smMultiplier < 1 || (l->maxnreg && *l->maxnreg < 1)))
    fail(k.loc, "a launch of " + std::to_string(l->threads) + " threads, vector_bytes " +
                    std::to_string(l->vectorBytes) + ", num_sm_multiplier " +
                    std::to_string(l->smMultiplier));
  templateParams(k, fail);
  templateMatch(k, fail);
  chain(k, fail);
  randRuns(k, fail);
}

void verifyGridMapping(const Kernel& k, const Stmt& loop, const GridMapping& g,
                       const VerifyFail& fail) {
  std::vector<int> a = g.order, b = loop.tiles;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b)
    fail(loop.loc, "a grid mapping whose order is not a permutation of its loop's tiles");
  if (g.pid == GridMapping::Pid::Xyz && (k.body.size() != 1 || loop.tiles.size() > 3))
    fail(loop.loc, "an xyz grid mapping of a kernel with several grid loops or over 3 tiles");
  if (g.l2Group < 1 || (g.l2Group > 1 && loop.tiles.size() != 2))
    fail(loop.loc, "an l2 group of " + std::to_string(g.l2Group) + " on a loop of " +
                       std::to_string(loop.tiles.size()) + " tiles");
}

} // namespace helion::ir
