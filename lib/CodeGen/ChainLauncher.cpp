//===- ChainLauncher.cpp - Host launcher of the chain template -------------===//
//
// A generic kernel with a chain kernel beside it (EmittedKernel::chain) gets this
// function first; its launcher calls it and returns when it launched:
//
//   static bool helionc_launch_mlp_relu_chain(x, w1, w2, ...) {
//     1. on a compute capability 9.x device only; a, b1 and b2 bf16 or f16 of one
//        dtype (and the activation cast to it), 2-D CUDA tensors covering the loops'
//        extents with unit inner stride, 16-byte aligned data and row strides of a
//        multiple of 8 elements (TMA); K (the first dot's) 64, 128 or 256 with a
//        ring that fits (ChainParams::stages); N a multiple of 8; else false;
//     2. the instantiation `mlp_relu_chain_kernel<dtypes..., K>`, found by an
//        integer key (KernelCacheLookup.h), with ChainSm90::kSmemBytes
//        (config::chainSm90SmemBytes);
//     3. the tensor maps of a, b1, b2 (128-byte swizzle; boxes of 64 columns:
//        a BM rows, b1 K rows or BN rows when it is [H, K], b2 BN rows) and
//        cdiv(M, BM) x cdiv(N, DV) CTAs of 128 x (consumers + 1) threads; true.
//   }
//
// Everything else (another device, dtype, K or alignment) falls to the generic
// kernel, which computes the same thing.
//===----------------------------------------------------------------------===//
#include "ChainLauncher.h"

#include "CudaLiteral.h"
#include "KernelCacheLookup.h"
#include "helion/Config/ChainRules.h"

#include <sstream>

namespace helion::codegen {
using namespace ir;

std::string chainLauncher(const HostKernel& hk, const std::string& fileName,
                          const std::function<std::string(const Expr&)>& hostExpr,
                          const std::string& launcherName) {
  const Kernel& k = *hk.kernel;
  const EmittedKernel& ek = *hk.emitted->chain;
  const ChainLaunch& c = *ek.chainLaunch;
  const ChainParams& p = c.params;
  auto pname = [&](int i) { return k.params.at(i).name; };
  const std::string a = pname(c.a), b1 = pname(c.b1), b2 = pname(c.b2);
  std::ostringstream os;
  os << "// helionc: the chain template's launcher of '" << k.name
     << "' (generated, do not edit): false when it does not apply\n";
  std::string sig = launcherSignature(k, launcherName, cppScalarType);
  sig.replace(0, std::string("static void").size(), "static bool");
  os << sig;
  const std::string delim = rawDelimiter(ek.source);
  os << "  static const char kSource[] = R\"" << delim << "(" << ek.source << ")" << delim
     << "\";\n";
  os << "  const helion::rt::DeviceInfo& dev = helion::rt::deviceInfo();\n";
  os << "  if (dev.major != 9) return false; // TMA + wgmma: sm_90a\n";
  os << "  const int64_t M = " << hostExpr(*c.m) << ", N = " << hostExpr(*c.n)
     << ", H = " << hostExpr(*c.h) << ", K = " << hostExpr(*c.k) << ";\n";
  os << "  if (M <= 0 || N <= 0 || H <= 0 || M >= (int64_t(1) << 31) || N >= (int64_t(1) << 31) "
        "|| H >= (int64_t(1) << 31) || N % 8 != 0)\n    return false;\n";
  os << "  if (K != 64 && K != 128 && K != 256) return false; // a resident in shared memory\n";
  os << "  const int stages = K == 64 ? " << p.stages[0] << " : K == 128 ? " << p.stages[1]
     << " : " << p.stages[2] << ";\n  if (stages == 0) return false;\n";
  os << "  auto fits = [&](const helion::Tensor& t, int64_t rows, int64_t cols) {\n"
        "    return t.device().type == helion::DeviceType::CUDA && t.dim() == 2 &&\n"
        "           (t.dtype() == helion::DType::bf16 || t.dtype() == helion::DType::f16) &&\n"
        "           t.dtype() == " << a << ".dtype() && t.size(0) >= rows && t.size(1) >= cols &&\n"
        "           t.stride(1) == 1 && t.stride(0) % 8 == 0 &&\n"
        "           reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0;\n  };\n";
  os << "  if (!fits(" << a << ", M, K) || !fits(" << b1 << ", "
     << (c.b1KMajor ? "H, K" : "K, H") << ") || !fits(" << b2 << ", H, N))\n    return false;\n";
  if (c.castParam >= 0)
    os << "  if (" << pname(c.castParam) << ".dtype() != " << a << ".dtype()) return false;\n";
  else
    os << "  if (" << a << ".dtype() != helion::DType::"
       << (c.castType == ScalarType::F16 ? "f16" : "bf16") << ") return false;\n";
  for (const KernelArg& arg : ek.args)
    if (arg.kind == KernelArg::Kind::Pointer)
      os << "  if (" << pname(arg.param) << ".device().type != helion::DeviceType::CUDA) return "
         << "false;\n";
  // The instantiation: dtypes, specialized scalars, K.
  KernelCacheLookup lookup;
  for (const TemplateArg& t : ek.templateArgs) {
    if (t.kind == TemplateArg::Kind::DType)
      lookup.dtypeArg(pname(t.index));
    else
      lookup.intArg("static_cast<std::int64_t>(" + pname(t.index) + ")");
  }
  lookup.intArg("K");
  os << "  const int64_t smem = K == 64 ? "
     << config::chainSm90SmemBytes(64, p.dv, p.bn, p.consumers, p.stages[0]) << " : K == 128 ? "
     << config::chainSm90SmemBytes(128, p.dv, p.bn, p.consumers, p.stages[1]) << " : "
     << config::chainSm90SmemBytes(256, p.dv, p.bn, p.consumers, p.stages[2]) << ";\n";
  os << lookup.emit("\"" + ek.kernelName + "<\"", fileName + ".chain",
                    "{}, static_cast<int>(smem)");
  std::string args;
  int n = 0;
  for (const KernelArg& arg : ek.args) {
    const std::string q = pname(arg.param);
    const std::string e = "e" + std::to_string(n++);
    switch (arg.kind) {
    case KernelArg::Kind::Pointer: os << "  void* " << e << " = " << q << ".data_ptr();\n"; break;
    case KernelArg::Kind::Stride:
      os << "  int64_t " << e << " = " << q << ".stride(" << arg.dim << ");\n";
      break;
    case KernelArg::Kind::Scalar: {
      const std::string ct = hostScalarType(k.params[arg.param].scalarType);
      os << "  " << ct << " " << e << " = static_cast<" << ct << ">(" << q << ");\n";
      break;
    }
    default: break;
    }
    args += ", &" + e;
  }
  os << "  auto map = [&](const helion::Tensor& t, int64_t rows, int64_t cols, int32_t boxRows) {\n"
        "    helion::rt::TensorMapDesc m;\n"
        "    m.base = const_cast<void*>(static_cast<const void*>(t.data_ptr()));\n"
        "    m.elementBytes = 2;\n"
        "    m.sizes = {rows, cols};\n    m.strides = {t.stride(0), 1};\n"
        "    m.box = {boxRows, 64};\n    m.swizzle = helion::rt::Swizzle::b128;\n"
        "    return helion::rt::makeTensorMap(m);\n  };\n";
  os << "  CUtensorMap mapA = map(" << a << ", M, K, " << p.bm << "), mapB1 = map(" << b1 << ", "
     << (c.b1KMajor ? "H, K, " + std::to_string(p.bn) : "K, H, int32_t(K)") << "), mapB2 = map("
     << b2 << ", H, N, " << p.bn << ");\n";
  os << "  int iM = int(M), iH = int(H), iN = int(N);\n";
  os << "  void* args[] = {&mapA, &mapB1, &mapB2, &iM, &iH, &iN" << args << "};\n";
  os << "  const int64_t ctas = helion::rt::cdiv(M, int64_t(" << p.bm
     << ")) * helion::rt::cdiv(N, int64_t(" << p.dv << "));\n";
  os << "  helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), "
        "helion::rt::Dim3("
     << 128 * (p.consumers + 1) << "), static_cast<unsigned>(smem), args, "
     << "helion::rt::currentStream());\n";
  os << "  return true;\n}\n\n";
  return os.str();
}

} // namespace helion::codegen
