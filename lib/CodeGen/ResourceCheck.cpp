//===- ResourceCheck.cpp - Configs too large to compile --------------------===//
//
// The emitter keeps every value in per-thread register arrays and unrolls the
// loops over them, so a value over S tile elements costs S / threads operations
// per thread, each time an operation produces it. A config with huge tiles on few
// threads is legal but unrolls without bound, and NVRTC's time grows faster than
// the code. softmax_two_pass with num_warps 1 (32 threads): block_sizes [32, 128]
// (~130 operations in its costliest loop) takes 0.2 s, [64, 256] (512 elements per
// thread, ~2,050 operations) 13 s, [64, 1024] (~8,200) does not finish in 2 minutes,
// [1024, 4096] (~520,000) would take hours. sum of 200 tile loads, 8 elements per
// thread: ~3,200 operations, 3 s (the limit counts one operation as alike for all).
//
// The estimate, per tile loop (and per grid loop for the statements directly in
// it): the sum over the operations (IR expressions other than leaves) of the
// statements in its body of max(1, elements of the result / threads), where a tile
// dim counts its block size, a looped reduction dim its chunk (reduction_loops) and
// a persistent one 1 (its elements per thread are bounded: long rows switch to the
// looped variant, which is checked on its own).
//===----------------------------------------------------------------------===//
#include "ResourceCheck.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace helion::codegen {
namespace {

using namespace ir;

class Estimator {
public:
  Estimator(const Kernel& k, const config::Config& c, int numThreads)
      : k_(k), c_(c), threads_(std::max(numThreads, 1)) {}

  UnrolledSize worst;

  void loopBody(const std::vector<StmtRef>& body, const Stmt* loop) {
    int64_t ops = 0, elems = 0;
    for (const StmtRef& s : body) {
      if (s->kind == StmtKind::For) {
        loopBody(s->body, s.get());
        continue;
      }
      for (const Expr* e : {s->value.get(), s->mask.get()})
        if (e)
          expr(*e, ops, elems);
      for (const Index& i : s->indices)
        if (i.value)
          expr(*i.value, ops, elems);
    }
    if (loop && ops > worst.ops)
      worst = {loop, ops, elems};
  }

private:
  const Kernel& k_;
  const config::Config& c_;
  int64_t threads_;

  int64_t tileBlockSize(int tile) const {
    const TileVar& t = k_.tiles.at(tile);
    if (t.isGrid)
      return 1;
    const BlockSizeDecl& d = k_.blockSizes.at(t.blockSize);
    if (d.fixed)
      return *d.fixed;
    size_t tunable = 0;
    for (const BlockSizeDecl& b : k_.blockSizes) {
      if (b.id == d.id)
        break;
      tunable += !b.fixed;
    }
    return tunable < c_.blockSizes.size() ? c_.blockSizes[tunable] : 64;
  }

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

  void expr(const Expr& e, int64_t& ops, int64_t& elems) {
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
    for (const ExprRef& op : e.operands)
      if (op)
        expr(*op, ops, elems);
    for (const Index& i : e.indices)
      if (i.value)
        expr(*i.value, ops, elems);
  }
};

} // namespace

UnrolledSize estimateUnrolledSize(const Kernel& kernel, const config::Config& config,
                                  int numThreads) {
  Estimator e(kernel, config, numThreads);
  e.loopBody(kernel.body, nullptr);
  return e.worst;
}

bool checkUnrolledSize(const Kernel& kernel, const config::Config& config, int numThreads,
                       const std::string& variant, DiagnosticEngine& diags) {
  UnrolledSize size = estimateUnrolledSize(kernel, config, numThreads);
  if (size.ops <= kMaxUnrolledOps)
    return true;
  std::vector<std::string> reductionLoops;
  for (const auto& r : config.reductionLoops)
    reductionLoops.push_back(r ? std::to_string(*r) : "null");
  std::string chunks =
      reductionLoops.empty()
          ? ""
          : fmt::format(", reduction_loops [{}]", fmt::join(reductionLoops, ", "));
  diags.error(size.loop->loc,
              fmt::format("config too large to compile{}: this loop's body unrolls to about {} "
                          "operations per thread (up to {} elements each), more than {} "
                          "(block_sizes [{}]{}, num_warps {}: {} threads); lower block_sizes{} or "
                          "raise num_warps",
                          variant.empty() ? "" : " " + variant, size.ops, size.elems,
                          kMaxUnrolledOps, fmt::join(config.blockSizes, ", "),
                          chunks,
                          config.numWarps, numThreads,
                          reductionLoops.empty() ? "" : " or reduction_loops"));
  return false;
}

} // namespace helion::codegen
