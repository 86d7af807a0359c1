//===- FunctorFields.h - Template kernels' functor arguments ----*- C++ -*-===//
//
// The flash-attention and chain kernels (EmitAttention.cpp, EmitChain.cpp) are
// templates over the kernel's tensor dtypes and specialized scalars, and take the IR's
// pointwise code as functors whose fields are kernel arguments: a tensor the functor
// reads or writes (its pointer and strides), a scalar it reads. Both print them alike:
//
//   template <class T_x, class T_out, hd::int64 d>        TemplateSignature::params
//   struct k_epilogue { T_out* __restrict__ out; int64 stride_out_0; float eps; ... };
//                                                         FunctorFields::declarations
//   ... k_epilogue<T_x, T_out, d> epi{out, stride_out_0, eps};
//                                   TemplateSignature::names, FunctorFields::init
//
// Private to lib/CodeGen.
//===----------------------------------------------------------------------===//
#pragma once

#include "CudaLiteral.h"
#include "helion/CodeGen/CudaEmitter.h"

#include <string>
#include <vector>

namespace helion::codegen {

/// The kernel template's parameters: a dtype per tensor, each specialized scalar.
struct TemplateSignature {
  std::vector<TemplateArg> args;

  explicit TemplateSignature(const ir::Kernel& k) {
    for (size_t i = 0; i < k.params.size(); ++i) {
      const ir::Param& p = k.params[i];
      if (p.kind == ir::Param::Kind::Tensor)
        args.push_back({TemplateArg::Kind::DType, static_cast<int>(i)});
      else if (p.specialized)
        args.push_back({TemplateArg::Kind::Specialized, static_cast<int>(i)});
    }
  }
  /// `class T_x, hd::int64 d`
  std::string params(const ir::Kernel& k) const {
    std::string t;
    for (const TemplateArg& a : args)
      t += (t.empty() ? "" : ", ") + (a.kind == TemplateArg::Kind::DType
                                          ? "class " + genType(k.params[a.index])
                                          : "hd::int64 " + genName(k.params[a.index]));
    return t;
  }
  /// `T_x, d`
  std::string names(const ir::Kernel& k) const {
    std::string t;
    for (const TemplateArg& a : args)
      t += std::string(t.empty() ? "" : ", ") + (a.kind == TemplateArg::Kind::DType
                                                     ? genType(k.params[a.index])
                                                     : genName(k.params[a.index]));
    return t;
  }
};

/// One functor's fields ("type name") and the kernel arguments that fill them, in order.
struct FunctorFields {
  std::vector<std::string> decls;
  std::vector<KernelArg> args;

  /// Tensor `param`: its pointer (`const` unless written) and `rank` strides.
  void addTensor(const ir::Kernel& k, int param, int rank, bool constPointer) {
    const std::string n = genName(k.params.at(param));
    args.push_back({KernelArg::Kind::Pointer, param});
    decls.push_back(std::string(constPointer ? "const " : "") + genType(n) + "* __restrict__ " +
                    n);
    for (int d = 0; d < rank; ++d) {
      args.push_back({KernelArg::Kind::Stride, param, d});
      decls.push_back("int64 " + genStride(n, d));
    }
  }
  /// Scalar `param` (not a specialized one: those are template parameters).
  void addScalar(const ir::Kernel& k, int param) {
    const ir::Param& p = k.params.at(param);
    args.push_back({KernelArg::Kind::Scalar, param});
    decls.push_back(cudaComputeType(ir::ElemType::concrete(p.scalarType), k) + " " + genName(p));
  }
  /// The struct's member declarations, one per line.
  std::string declarations() const {
    std::string s;
    for (const std::string& x : decls)
      s += "  " + x + ";\n";
    return s;
  }
  /// The aggregate initializer's values inside the kernel: `out, stride_out_0, eps`.
  std::string init(const ir::Kernel& k) const {
    std::string s;
    for (const KernelArg& a : args) {
      const std::string p = genName(k.params.at(a.param));
      s += s.empty() ? "" : ", ";
      s += a.kind == KernelArg::Kind::Stride ? genStride(p, a.dim) : p;
    }
    return s;
  }
  /// The kernel's parameters for two functors: a's fields, then b's that a does not
  /// have (a scalar or tensor both read is one parameter; each functor names it).
  static FunctorFields unionOf(const FunctorFields& a, const FunctorFields& b) {
    FunctorFields u = a;
    for (size_t i = 0; i < b.args.size(); ++i) {
      const KernelArg& x = b.args[i];
      bool dup = false;
      for (const KernelArg& y : u.args)
        dup = dup || (x.kind == y.kind && x.param == y.param && x.dim == y.dim);
      if (!dup) {
        u.decls.push_back(b.decls[i]);
        u.args.push_back(x);
      }
    }
    return u;
  }
  /// The fields as trailing kernel parameters: `, const T_x* __restrict__ x, int64 ...`.
  std::string parameters() const {
    std::string s;
    for (const std::string& x : decls)
      s += ", " + x;
    return s;
  }
};

} // namespace helion::codegen
