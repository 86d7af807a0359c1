//===- AttentionEmitter.h - Flash attention's CUDA printer -----*- C++ -*-===//
//
// The AttentionEmitter of EmitAttention.cpp (the kernels, their arguments and
// the file) and EmitAttentionFunctors.cpp (the score and epilogue functors printed
// from the IR). Private to lib/CodeGen.
//===----------------------------------------------------------------------===//
#pragma once

#include "CudaLiteral.h"
#include "FunctorFields.h"
#include "EmitAttention.h"

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace helion::codegen::attention {

using namespace ir;

class AttentionEmitter {
public:
  AttentionEmitter(const Kernel& k, const AttentionPlan& p, const EmitOptions& o)
      : k_(k), p_(p), o_(o) {}

  EmittedKernel run();

private:
  const Kernel& k_;
  const AttentionPlan& p_;
  const EmitOptions& o_;
  EmittedKernel out_;
  TemplateSignature sig_{k_};
  FunctorFields score_, epi_; ///< the score functor's and the epilogue's fields
  FunctorFields kernel_;      ///< the kernel's parameters after the fixed ones: both, once
  int stores_ = 0;    // stores to out[tb, tm, :]
  int rowStores_ = 0; // stores to per-row results, lse[tb, tm]
  int outParam_ = -1; // the param of the (last) store to out[tb, tm, :]

  std::string name(int param) const { return genName(k_.params.at(param)); }
  const std::string& srcName(int param) const { return k_.params.at(param).name; }

  /// Scalars of S; tensors and scalars of the epilogue: the kernel's arguments after
  /// the fixed ones (q, k, v, M, N and their batch and row strides).
  void collectArgs();


  std::string ctype(const ElemType& t) const { return cudaComputeType(t, k_); }

  /// Whether an epilogue expression can differ between the head-dim columns of a
  /// row: it reads the accumulator or an index other than the row's.
  bool alongHeadDim(const Expr& e) const;

  /// A pointwise expression; `leaf` renders the dot (score) and variables.
  std::string ex(const Expr& e) const;


  void emitScore(std::ostringstream& os);

  std::string offset(const Stmt& s) const;
  static bool isRowStore(const Stmt& s);

  /// The epilogue statements for one element; `store` renders each store.
  void body(std::ostringstream& os, const std::function<void(const Stmt&)>& store) const;

  void storeLine(std::ostringstream& os, const Stmt& s) const;

  void emitEpilogue(std::ostringstream& os);


  std::string headDim() const;


  /// What both kernels check of the instantiation, and the functors.
  void prologue(std::ostringstream& os) const;
  void functors(std::ostringstream& os) const;

  /// sm_90a: the tensor maps of q, k, v ([b, seq, d], boxes {1, rows, 64}, 128-byte
  /// swizzle; the launcher builds them) replace the pointers and strides.
  void emitSm90(std::ostringstream& os);

  void emitSm80(std::ostringstream& os, const std::string& kernelName);
};

} // namespace helion::codegen::attention
