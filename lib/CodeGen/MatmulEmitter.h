//===- MatmulEmitter.h - The tensor-core matmul's CUDA printer --*- C++ -*-===//
//
// The MatmulEmitter of EmitMatmul.cpp (the sm90 and sm80 kernels around hd::Gemm /
// hd::GemmSm80, the launch description) and EmitMatmulEpilogue.cpp (the epilogue
// functor printed from the statements after the K loop, and its arguments). Private
// to lib/CodeGen.
//===----------------------------------------------------------------------===//
#pragma once

#include "CudaLiteral.h"
#include "EmitMatmul.h"

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace helion::codegen::matmul {

using namespace ir;

class MatmulEmitter {
public:
  MatmulEmitter(const Kernel& k, const MatmulPlan& p, const EmitOptions& o)
      : k_(k), p_(p), o_(o) {}

  EmittedKernel run();

private:
  const Kernel& k_;
  const MatmulPlan& p_;
  const EmitOptions& o_;
  EmittedKernel out_;
  std::vector<std::string> fields_; // epilogue arguments: "type name"

  std::string name(int param) const { return genName(k_.params.at(param)); }
  const std::string& srcName(int param) const { return k_.params.at(param).name; }
  bool batched() const { return p_.tileB >= 0; }
  bool grouped() const { return p_.tileG >= 0; }
  /// An A prologue with a staged second tensor (MatmulMatch::aStaged).
  bool staged() const { return p_.aStaged >= 0; }
  /// The functor's leading coordinate parameters: "int64 row__, int64 col__", batched
  /// "int64 batch__, int64 row__, int64 col__" (and the same names as arguments); grouped
  /// as batched, the group in `batch__`. The functor's own names end in "__" (reserved in
  /// C++), so that its fields (the kernel's tensors and scalars, named as in the source)
  /// are never shadowed by them.
  std::string coordParams() const {
    return batched() || grouped() ? "int64 batch__, int64 row__, int64 col__"
                                  : "int64 row__, int64 col__";
  }
  std::string coordArgs(const std::string& col) const {
    return (batched() || grouped() ? "batch__, row__, " : "row__, ") + col;
  }
  /// The K block of both kernels: one 128-byte shared row of the operand type
  /// (the config's tk = 64 is that row in 16-bit elements; f32 runs 32, 8-bit 128).
  static std::string bkOf(const std::string& t) { return "128 / int(sizeof(" + t + "))"; }
  /// The variable that holds tile `t`'s index inside the functor.
  std::string coordOf(int t) const {
    return t == p_.tileM ? "row__" : t == p_.tileN ? "col__" : "batch__";
  }

  std::string ctype(const ElemType& t) const { return cudaComputeType(t, k_); }

  // EmitMatmulEpilogue.cpp
  /// Tensors and scalars the epilogue reads or writes, as kernel arguments.
  void collectArgs();
  std::string templateParams() const; ///< "class T_a, ..., int TMA_STORE"
  std::string templateNames() const;  ///< "T_a, ..." (no TMA_STORE)
  /// Offset of element (row, col) in a tensor subscripted by [tm, tn] / [tn] / [tm]
  /// (the A prologue's [tk]: element k); `row` and `col` name the coordinates.
  std::string offset(int param, const std::vector<Index>& ix, const std::string& row = "row__",
                     const std::string& col = "col__") const;
  /// An epilogue expression for one element. `clamped`: its loads read rows and columns
  /// past M and N at M - 1 and N - 1 (transform, which the template calls on the whole
  /// tile); else as subscripted (apply, called only below M and N).
  std::string ex(const Expr& e, bool clamped = false) const;
  /// A factor of a product scaled per K block (MatmulMatch::kScaleRow / kScaleCol) at
  /// (row or col, kb): loads at tm / tn and scalar subscripts, tile ids and begins.
  std::string kScaleEx(const Expr& e) const;
  /// The epilogue statements for one element; `store` renders each store.
  void body(std::ostringstream& os, const std::function<void(const Stmt&)>& store,
            bool clamped = false) const;
  /// The functor: apply (stores), operator() (pairs), transform (tma_store).
  void emitEpilogue(std::ostringstream& os);
  /// The statement that makes the functor `epi` from the kernel's arguments.
  std::string epilogueInit() const;
  /// The functor's fields as trailing kernel parameters.
  std::string argList() const;

  // EmitMatmul.cpp
  /// sm90: bf16 / f16, f8e4m3 / f8e5m2 (the launcher sends f32 to the sm80 kernel);
  /// sm80: also f32. 8-bit operands only with B as [N, K].
  std::string dtypeAsserts(bool sm90) const;
  GroupedKernelParts groupedParts() const;
  void emitSm90(std::ostringstream& os);
  void emitSm80(std::ostringstream& os);
};

} // namespace helion::codegen::matmul
