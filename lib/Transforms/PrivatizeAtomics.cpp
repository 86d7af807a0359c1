//===- PrivatizeAtomics.cpp - Atomic adds into a per-program copy -----------===//
//
// A histogram's few bins take every element's hl::atomic_add: the adds of all programs
// meet on the same words and wait for each other. When a persistent program runs many
// tiles, it can instead add into its own copy of the tensor in shared memory and add
// that copy to the tensor once, at its end: one global add per bin and program rather
// than one per element. This pass decides it for each atomic_add statement (marks it
// `private`); the emitter prints the copy, its zeroing and the final flush.
//
// A statement is made private when
//   - its tensor is atomic-only (AtomicTargets.h: nothing else in the kernel reads or
//     writes it), so no program needs another's partial sums before the kernel ends;
//   - every grid loop is persistent (pid_type persistent_*): a program runs many tiles,
//     so the copy's zeroing and flush are paid once for many. Flat grids keep plain
//     atomics, and so the tuner can compare both.
// Whether a tensor fits in the copy (16 KB of shared memory) is known only at run time:
// the generated kernel checks it and takes the plain atomics when it does not.
//
//   atomic_add counts[%bin] += 1            // pid_type persistent_interleaved
//   atomic_add private counts[%bin] += 1
//===----------------------------------------------------------------------===//
#include "helion/IR/AtomicTargets.h"
#include "helion/IR/Mutator.h"
#include "helion/Transforms/Passes.h"

#include <algorithm>

namespace helion::ir {
namespace {

bool persistent(const GridMapping& g) {
  return g.pid == GridMapping::Pid::PersistentBlocked ||
         g.pid == GridMapping::Pid::PersistentInterleaved;
}

/// Marks the atomic_add statements into `targets` private.
class Privatize : public IRMutator {
public:
  explicit Privatize(std::vector<int> targets) : targets_(std::move(targets)) {}

  void mutate(const StmtRef& s, std::vector<StmtRef>& out) override {
    if (s->kind == StmtKind::Store && s->atomicAdd && !s->privateAtomic &&
        std::binary_search(targets_.begin(), targets_.end(), s->param)) {
      auto p = std::make_shared<Stmt>(*s);
      p->privateAtomic = true;
      out.push_back(std::move(p));
      return;
    }
    IRMutator::mutate(s, out);
  }

private:
  std::vector<int> targets_;
};

} // namespace

Kernel privatizeAtomics(const Kernel& kernel, PassContext&) {
  for (const StmtRef& s : kernel.body)
    if (s->kind != StmtKind::For || !s->grid || !persistent(*s->grid))
      return kernel;
  const std::vector<int> targets = atomicOnlyTargets(kernel);
  if (targets.empty())
    return kernel;
  return Privatize(targets).mutateKernel(kernel);
}

} // namespace helion::ir
