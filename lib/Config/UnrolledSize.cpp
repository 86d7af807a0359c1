//===- UnrolledSize.cpp - Configs too large to compile ---------------------===//
//
// A value over S tile elements costs S / threads operations per thread, each time
// an operation produces it. softmax_two_pass with num_warps 1 (32 threads):
// block_sizes [32, 128] (~130 operations in its costliest loop) takes NVRTC 0.2 s,
// [64, 256] (512 elements per thread, ~2,050 operations) 13 s, [64, 1024] (~8,200)
// does not finish in 2 minutes, [1024, 4096] (~520,000) would take hours. sum of
// 200 tile loads, 8 elements per thread: ~3,200 operations, 3 s (the limit counts
// one operation as alike for all).
//===----------------------------------------------------------------------===//
#include "helion/Config/UnrolledSize.h"
#include "helion/Config/BlockSizes.h"
#include "helion/Config/DotStaging.h"
#include "helion/IR/MmaPlan.h"
#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::config {
namespace {

using namespace ir;

class Estimator {
public:
  Estimator(const Kernel& k, const Config& c, int numThreads)
      : k_(k), c_(c), threads_(std::max(numThreads, 1)) {}

  UnrolledSize worst;

  void loopBody(const std::vector<StmtRef>& body, const Stmt* loop) {
    int64_t ops = 0, elems = 0;
    for (const StmtRef& s : body) {
      if (s->kind == StmtKind::For) {
        loopBody(s->body, s.get());
        continue;
      }
      forEachExprOf(*s, [&](const Expr& e) { expr(e, ops, elems); });
    }
    if (loop && ops > worst.ops)
      worst = {loop, ops, elems};
  }

private:
  const Kernel& k_;
  const Config& c_;
  int64_t threads_;

  int64_t tileBlockSize(int tile) const { return config::tileBlockSize(k_, c_, tile); }

  /// Elements of a value of `type` per thread, saturating (block sizes reach 2^20).
  int64_t perThread(const std::optional<BlockType>& type) const {
    if (!type)
      return 1;
    int64_t n = 1;
    for (const Dim& d : type->dims) {
      int64_t size = 1;
      if (d.kind == Dim::Kind::Tile)
        size = tileBlockSize(d.tile);
      else if (d.kind == Dim::Kind::Full && d.axis >= 0 &&
               d.axis < static_cast<int>(c_.reductionLoops.size()) && c_.reductionLoops[d.axis])
        size = *c_.reductionLoops[d.axis];
      n = std::min<int64_t>(n * std::max<int64_t>(size, 1), int64_t{1} << 40);
    }
    return std::max<int64_t>(1, n / threads_);
  }

  void expr(const Expr& root, int64_t& ops, int64_t& elems) {
    walkExpr(root, [&](const Expr& e) {
      switch (e.kind) {
      case ExprKind::Const:
      case ExprKind::Param:
      case ExprKind::Var:
      case ExprKind::TensorSize:
      case ExprKind::TileAttr: return; // leaves: names and scalars
      default: break;
      }
      int64_t n = perThread(e.type);
      ops = std::min<int64_t>(ops + n, int64_t{1} << 50);
      elems = std::max(elems, n);
    });
  }

};

} // namespace

UnrolledSize estimateUnrolledSize(const Kernel& kernel, const Config& config, int numThreads) {
  Estimator e(kernel, config, numThreads);
  e.loopBody(kernel.body, nullptr);
  return e.worst;
}

Config longRowsConfig(const Kernel& kernel, const Config& config, int numThreads,
                      const std::vector<int>& persistentAxes) {
  auto withChunks = [&](int64_t chunk) {
    Config looped = config;
    for (int axis : persistentAxes) {
      if (static_cast<int>(looped.reductionLoops.size()) <= axis)
        looped.reductionLoops.resize(axis + 1);
      looped.reductionLoops[axis] = chunk;
    }
    return looped;
  };
  int64_t chunk = longRowsChunk(numThreads);
  while (chunk > numThreads &&
         estimateUnrolledSize(kernel, withChunks(chunk), numThreads).ops > kMaxUnrolledOps)
    chunk /= 2;
  return withChunks(chunk);
}

namespace {

/// Whether every dot's staging area fits for f32 operands (the largest), and
/// none is over a looped reduction axis (the general lowering takes none): dims of
/// a tile count its block size; a whole (persistent) reduction dim is sized at run
/// time and not counted here.
bool dotsFitStaging(const Kernel& kernel, const Config& config) {
  bool fits = true;
  auto size = [&](const Dim& d) -> int64_t {
    if (d.kind == Dim::Kind::Tile)
      return tileBlockSize(kernel, config, d.tile);
    if (d.kind == Dim::Kind::Full && d.axis >= 0 &&
        d.axis < static_cast<int>(config.reductionLoops.size()) && config.reductionLoops[d.axis])
      fits = false;
    return 1;
  };
  // The mma layout's plan (ir::planMma, as the mma-layout pass decides it): results
  // stay in registers, only the operands are staged (A not when it is in registers).
  // Otherwise every dot goes through shared memory whole. (A kernel whose dots do
  // not fit fails at compile time: a skipped candidate.)
  const std::optional<ir::MmaPlan> mma = planMmaFor(kernel, config);
  // A batched dot (rank 3, its batch tile of block size 1: one matrix per program)
  // stages its last two dims, as the emitter's check counts them (EmitDot.cpp).
  walkExprs(kernel.body, [&](const Expr& e) {
    if (e.kind != ExprKind::Dot || e.operands.size() < 2 || !e.operands[0]->type ||
        !e.operands[1]->type || e.operands[0]->type->rank() < 2 ||
        e.operands[1]->type->rank() != e.operands[0]->type->rank())
      return;
    const BlockType &a = *e.operands[0]->type, &b = *e.operands[1]->type;
    const size_t r = a.rank();
    const int64_t m = size(a.dims[r - 2]), n = size(b.dims[r - 1]), k = size(a.dims[r - 1]);
    const ir::MmaPlan::Dot* planned = nullptr;
    if (mma)
      if (auto it = mma->dots.find(&e); it != mma->dots.end())
        planned = &it->second;
    const int64_t bytes = planned ? mmaDotBytes(m, n, k, 4, !planned->registerA)
                                  : dotStagingBytes(m, n, k, 4);
    fits = fits && bytes <= kDotStagingLimit;
  });
  return fits;
}

} // namespace

bool fitsCandidateLimits(const Kernel& kernel, const Config& config) {
  const int threads = 32 * std::clamp(config.numWarps, 1, 32); // as the emitter launches
  if (!dotsFitStaging(kernel, config))
    return false;
  const UnrolledSize size = estimateUnrolledSize(kernel, config, threads);
  if (size.ops > kMaxUnrolledOps || size.elems > kMaxCandidateElems)
    return false;
  // The emitter's persistent axes: every reduction axis that is not looped.
  std::vector<int> persistent;
  for (const Axis& a : kernel.axes)
    if (a.id >= static_cast<int>(config.reductionLoops.size()) || !config.reductionLoops[a.id])
      persistent.push_back(a.id);
  if (persistent.empty())
    return true;
  Config looped = longRowsConfig(kernel, config, threads, persistent);
  const UnrolledSize longRows = estimateUnrolledSize(kernel, looped, threads);
  return longRows.ops <= kMaxUnrolledOps && longRows.elems <= kMaxCandidateElems;
}

} // namespace helion::config
