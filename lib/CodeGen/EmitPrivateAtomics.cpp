//===- EmitPrivateAtomics.cpp - Shared-memory copies of atomic targets -----===//
//
// Prints what privatize-atomics decided (Stmt::privateAtomic): for each tensor P whose
// atomic adds are private, the program's copy in shared memory (hd::private_acc_t: the
// tensor's type, float for f16/bf16, so the partial sums round once; a tensor counts is
// p_counts in generated CUDA, CudaNames.h), zeroed before the
// grid loops, the adds into it, and one add of each nonzero word into P after them:
//
//   constexpr int PRIV_p_counts = 16384 / int(sizeof(hd::private_acc_t<T_p_counts>));
//   __shared__ hd::private_acc_t<T_p_counts> priv_p_counts[PRIV_p_counts];
//   const int64 span_p_counts = ...;  // 1 + the largest element offset of p_counts
//   const bool use_priv_p_counts = span_p_counts <= PRIV_p_counts;
//   ... grid loops: if (use_priv_p_counts) atomic_add(&priv_p_counts[o], v) else ...
//   __syncthreads(); if (use_priv_p_counts) for each nonzero word: atomic_add(&p_counts[i], w)
//
// The copy's index is the element offset from P's base pointer, so any strides work;
// a tensor whose offsets exceed the copy takes the plain atomics at run time.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/IR/Visitor.h"

namespace helion::codegen {

using namespace ir;

std::vector<int> Emitter::privateAtomicTargets() const {
  std::set<int> found;
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Store && s.privateAtomic)
      found.insert(s.param);
  });
  return {found.begin(), found.end()};
}

/// 1 + the largest element offset of tensor `p` (0 when it has no elements).
std::string Emitter::privateSpan(int p) const {
  const std::string n = genName(k_.params[p]);
  const int rank = out_.paramRanks[p];
  if (rank < 0)
    return genNumel(n);
  std::string nonEmpty = "true", last = "1";
  for (int d = 0; d < rank; ++d) {
    const std::string sz = genSize(n, d);
    nonEmpty += " && " + sz + " > 0";
    last += " + (" + sz + " - 1) * " + genStride(n, d);
  }
  return "(" + nonEmpty + ") ? int64(" + last + ") : int64(0)";
}

void Emitter::emitPrivateCopies() {
  const std::vector<int> targets = privateAtomicTargets();
  if (targets.empty())
    return;
  line("// privatize-atomics: this program's copies of the tensors only atomics write");
  for (int p : targets) {
    const std::string n = genName(k_.params[p]);
    const std::string ct = "hd::private_acc_t<" + genType(n) + ">";
    line("constexpr int PRIV_" + n + " = 16384 / int(sizeof(" + ct + "));");
    line("__shared__ " + ct + " priv_" + n + "[PRIV_" + n + "];");
    line("const int64 span_" + n + " = " + privateSpan(p) + ";");
    line("const bool use_priv_" + n + " = span_" + n + " <= PRIV_" + n + ";");
    line("if (use_priv_" + n + ")");
    line("  for (int i = threadIdx.x; i < span_" + n + "; i += NT) priv_" + n + "[i] = " + ct +
         "(0);");
  }
  line("__syncthreads();");
}

void Emitter::flushPrivateCopies() {
  const std::vector<int> targets = privateAtomicTargets();
  if (targets.empty())
    return;
  line("// privatize-atomics: each nonzero word of the copies, added once");
  line("__syncthreads();");
  for (int p : targets) {
    const std::string n = genName(k_.params[p]);
    line("if (use_priv_" + n + ")");
    line("  for (int i = threadIdx.x; i < span_" + n + "; i += NT)");
    line("    if (priv_" + n + "[i] != hd::private_acc_t<" + genType(n) + ">(0)) hd::atomic_add(&" +
         n + "[i], hd::from_compute<" + genType(n) + ">(priv_" + n + "[i]));");
  }
}

} // namespace helion::codegen
