//===- MmaLayout.cpp - General dots on mma.sync fragments, decided ----------===//
//
// For a kernel the generic emitter prints (no matmul, grouped or attention
// template), writes ir::planMma's decision into the IR: each tile's role (the rows
// or the columns of dot results), each dot's operands (copied from a load by all
// threads, written by their owners, or A in registers) and the pipelined dot's
// stages; the lets of copied loads are marked, and the emitter does not print them.
// A kernel the mma layout does not take is left as it is (the shared-memory
// fallback, EmitDot.cpp).
//
//   for %tm in tile(0, m) block bs0 mma rows, %tn in tile(0, n) block bs1 mma cols ...
//     let copied-by-dot %w = load w[%tk, %tn]
//     let %acc2 = dot(%act, %w, %acc) mma(a registers, b copied, early)
//===----------------------------------------------------------------------===//
#include "helion/Config/Config.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/MmaPlan.h"
#include "helion/IR/Mutator.h"
#include "helion/Transforms/Passes.h"

namespace helion::ir {
namespace {

class Annotate : public IRMutator {
public:
  Annotate(const MmaPlan& plan, int stages) : plan_(plan), stages_(stages) {}

  ExprRef mutate(const ExprRef& e) override {
    ExprRef n = mutateChildren(e);
    auto it = plan_.dots.find(e.get());
    if (it == plan_.dots.end())
      return n;
    const MmaPlan::Dot& p = it->second;
    auto d = std::make_shared<Expr>(*n);
    MmaDotInfo info;
    info.a = p.loadA ? MmaDotInfo::Operand::Copied
             : p.registerA ? MmaDotInfo::Operand::Registers
                           : MmaDotInfo::Operand::Owners;
    info.b = p.loadB ? MmaDotInfo::Operand::Copied : MmaDotInfo::Operand::Owners;
    info.stages = e.get() == plan_.pipelined ? stages_ : 0;
    info.early = p.earlyLoop != nullptr;
    d->mma = info;
    return d;
  }

  void mutate(const StmtRef& s, std::vector<StmtRef>& out) override {
    bool copied = false;
    for (const auto& [d, p] : plan_.dots)
      copied |= s.get() == p.letA || s.get() == p.letB;
    if (!copied)
      return IRMutator::mutate(s, out);
    auto n = std::make_shared<Stmt>(*s);
    n->dotCopied = true;
    out.push_back(std::move(n));
  }

private:
  const MmaPlan& plan_;
  int stages_;
};

} // namespace

Kernel mmaLayout(const Kernel& kernel, PassContext& ctx) {
  if (!kernel.generalDots && (dotHasMatmulShape(kernel) || groupedMatmulRowLoop(kernel)))
    return kernel;
  auto blockSize = [&](int tile) -> int64_t {
    const TileVar& t = kernel.tiles.at(tile);
    return t.isGrid ? 1 : kernel.blockSizes.at(t.blockSize).chosen.value_or(1);
  };
  // num_stages: the pipelined dot's ring of buffers; below 2 no dot is pipelined.
  const int stages = ctx.config->numStages;
  std::optional<MmaPlan> plan = planMma(kernel, blockSize, ctx.config->numWarps, stages);
  if (!plan)
    return kernel;
  Kernel out = Annotate(*plan, stages).mutateKernel(kernel);
  for (const auto& [tile, role] : plan->roles)
    out.tiles.at(tile).mma = role;
  return out;
}

} // namespace helion::ir
