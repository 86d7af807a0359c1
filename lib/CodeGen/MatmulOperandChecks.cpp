//===- MatmulOperandChecks.cpp - A matmul launcher's checks of its operands ===//
//
// Step 1 of the launcher (MatmulLauncher.cpp): the extents M, N, K (and B or G) in
// [1, 2^31), the operands CUDA tensors of the template's rank and one dtype it takes
// (8-bit floats only with B as [N, K]), and what TMA and cp.async need of them: unit
// column stride, 16-byte aligned data and strides; the group offsets of a grouped GEMM
// contiguous int32 or int64 with G + 1 entries; every other tensor on the device.
//===----------------------------------------------------------------------===//
#include "MatmulLauncher.h"

#include <sstream>

namespace helion::codegen {
using namespace ir;

std::string matmulOperandChecks(const HostKernel& hk,
                                const std::function<std::string(const Expr&)>& hostExpr,
                                const std::string& general) {
  const MatmulHost h(hk);
  const Kernel& k = h.k;
  const EmittedKernel& ek = h.ek;
  const MatmulLaunch& mm = h.mm;
  auto pname = [&](int p) { return h.pname(p); };
  const bool batched = h.batched, grouped = h.grouped;
  const std::string rank = batched ? "3" : "2";
  const std::string &a = h.a, &b = h.b, &kn = k.name;
  std::ostringstream os;
  os << "  const int64_t M = " << (grouped ? a + ".size(0)" : hostExpr(*mm.m)) << ", N = " << hostExpr(*mm.n)
     << ", K = " << hostExpr(*mm.k) << ";\n";
  if (batched) {
    os << "  const int64_t B = " << hostExpr(*mm.batch) << ";\n";
    os << "  if (M <= 0 || N <= 0 || B <= 0) return;\n";
    os << "  HELION_CHECK(B < (int64_t(1) << 31), \"" << kn
       << ": the batch size must be below 2^31, got {}\", B);\n";
  } else if (grouped) {
    os << "  const int64_t G = " << hostExpr(*mm.groups) << ";\n";
    os << "  if (M <= 0 || N <= 0 || G <= 0) return;\n";
    os << "  HELION_CHECK(G < (int64_t(1) << 31), \"" << kn
       << ": the group count must be below 2^31, got {}\", G);\n";
  } else {
    os << "  if (M <= 0 || N <= 0) return;\n";
  }
  os << "  HELION_CHECK(K > 0 && M < (int64_t(1) << 31) && N < (int64_t(1) << 31) && K < "
        "(int64_t(1) << 31), \""
     << kn << ": matrix sizes must be in [1, 2^31), got M = {}, N = {}, K = {}\", M, N, K);\n";
  // 1. Operands.
  for (const std::string& t : {a, b}) {
    const std::string r = grouped && t == b ? "3" : rank;
    os << "  HELION_CHECK(" << t << ".device().type == helion::DeviceType::CUDA && " << t
       << ".dim() == " << r << ", \"" << kn << ": tensor '" << shownName(t) << "' must be a " << r
       << "-D CUDA tensor\");\n";
  }
  if (grouped) {
    const std::string o = pname(mm.offsets);
    os << "  HELION_CHECK(" << b << ".size(0) >= G, \"" << kn << ": tensor '" << shownName(b)
       << "' holds {} groups, the kernel's group loop runs {}\", " << b << ".size(0), G);\n";
    os << "  HELION_CHECK(" << o << ".device().type == helion::DeviceType::CUDA && " << o
       << ".dim() == 1 && " << o << ".size(0) >= G + 1 && " << o << ".stride(0) == 1 && ("
       << o << ".dtype() == helion::DType::i32 || " << o << ".dtype() == helion::DType::i64), \""
       << kn << ": the group offsets '" << shownName(o) << "' must be a contiguous 1-D int32 or int64 CUDA "
       << "tensor of at least G + 1 = {} entries\", G + 1);\n";
  }
  if (batched) // the tensor maps and batch strides assume B batches in both
    for (const std::string& t : {a, b})
      os << "  HELION_CHECK(" << t << ".size(0) >= B, \"" << kn << ": tensor '" << shownName(t)
         << "' holds {} batches, the kernel's batch loop runs {}\", " << t << ".size(0), B);\n";
  os << "  const bool f8 = " << a << ".dtype() == helion::DType::f8e4m3 || " << a
     << ".dtype() == helion::DType::f8e5m2;\n";
  if (!mm.bTransposed) // the kernel's static_assert says the same at compile time
    os << "  HELION_CHECK(!f8, \"" << kn << ": hl::dot of 8-bit floats needs its second operand "
       << "as w[tn, tk].transpose(0, 1) (a [N, K] tensor)\");\n";
  if (mm.aPrologue) // so does the templates' static_assert
    os << "  HELION_CHECK(!f8, \"" << kn << ": a first operand of hl::dot computed from 8-bit "
       << "floats is not lowered (bf16, f16 or f32 only)\");\n";
  const std::string dtypesOk = "(" + a + ".dtype() == helion::DType::bf16 || " + a +
                               ".dtype() == helion::DType::f16 || " + a +
                               ".dtype() == helion::DType::f32 || f8) && " + b + ".dtype() == " +
                               a + ".dtype()";
  if (general.empty())
    os << "  HELION_CHECK(" << dtypesOk << ", \"" << kn
       << ": hl::dot on the tensor cores needs bf16, f16, f32 (computed as tf32), f8e4m3 or "
          "f8e5m2 operands of one dtype\");\n";
  if (grouped) {
    // Any rank: unit last stride, 16-byte aligned base and other strides (TMA, cp.async).
    os << "  auto tmaReady = [](const helion::Tensor& t) {\n"
          "    const int64_t es = int64_t(t.element_size());\n"
          "    bool ok = t.stride(t.dim() - 1) == 1 && reinterpret_cast<uintptr_t>(t.data_ptr()) "
          "% 16 == 0;\n"
          "    for (int64_t d = 0; d + 1 < t.dim(); ++d) ok = ok && (t.stride(d) * es) % 16 == 0;\n"
          "    return ok;\n  };\n";
    for (const std::string& t : {a, b})
      os << "  HELION_CHECK(tmaReady(" << t << "), \"" << kn << ": tensor '" << shownName(t)
         << "' must have unit column stride, 16-byte aligned data and other strides that are "
            "multiples of 16 bytes for the tensor-core matmul ({}-byte elements)\", "
         << t << ".element_size());\n";
  } else if (batched) {
    // Batched: each batch's base 16-byte aligned too (its stride a multiple of 16 bytes).
    os << "  auto tmaReady = [](const helion::Tensor& t) {\n"
          "    const int64_t es = int64_t(t.element_size());\n"
          "    return t.stride(2) == 1 && reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0 &&\n"
          "           (t.stride(1) * es) % 16 == 0 && (t.stride(0) * es) % 16 == 0;\n  };\n";
    for (const std::string& t : {a, b})
      os << "  HELION_CHECK(tmaReady(" << t << "), \"" << kn << ": tensor '" << shownName(t)
         << "' must have unit column stride, 16-byte aligned data and row and batch strides "
            "that are multiples of 16 bytes for the tensor-core matmul (strides [{}, {}, {}], "
            "{}-byte elements)\", "
         << t << ".stride(0), " << t << ".stride(1), " << t << ".stride(2), " << t
         << ".element_size());\n";
  } else {
    os << "  auto tmaReady = [](const helion::Tensor& t) {\n"
          "    return t.stride(1) == 1 && reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0 &&\n"
          "           (t.stride(0) * int64_t(t.element_size())) % 16 == 0;\n  };\n";
    if (!general.empty()) {
      std::string forward;
      for (const Param& param : k.params)
        forward += (forward.empty() ? "" : ", ") + genName(param);
      os << "  // Operands the template cannot read (rows not 16-byte aligned, two dtypes, a\n"
            "  // dtype it does not take): the same loop on the general lowering.\n";
      os << "  if (!(" << dtypesOk << ") || !tmaReady(" << a << ") || !tmaReady(" << b
         << ")) {\n    " << general << "(" << forward << ");\n    return;\n  }\n";
    }
    for (const std::string& t : {a, b})
      os << "  HELION_CHECK(tmaReady(" << t << "), \"" << kn << ": tensor '" << shownName(t)
         << "' must have unit column stride, 16-byte aligned data and a row stride that is a "
            "multiple of 16 bytes for the tensor-core matmul (strides [{}, {}], {}-byte "
            "elements)\", "
         << t << ".stride(0), " << t << ".stride(1), " << t << ".element_size());\n";
  }
  for (const KernelArg& arg : ek.args)
    if (arg.kind == KernelArg::Kind::Pointer)
      os << "  HELION_CHECK(" << pname(arg.param) << ".device().type == helion::DeviceType::CUDA, \""
         << kn << ": tensor '" << shownName(pname(arg.param)) << "' must be on a CUDA device\");\n";
  return os.str();
}

} // namespace helion::codegen
