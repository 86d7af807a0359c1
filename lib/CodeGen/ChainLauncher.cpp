//===- ChainLauncher.cpp - Host launcher of the chain template -------------===//
//
// A generic kernel with a chain kernel beside it (EmittedKernel::chain) gets this
// function first; its launcher calls it and returns when it launched:
//
//   static bool helionc_launch_mlp_relu_chain(x, w1, w2, ...) {
//     1. on a compute capability 9.x device only; a, b1 and b2 bf16 or f16 of one
//        dtype (and the activation cast to it), 2-D CUDA tensors (3-D when batched,
//        the batch first) covering the loops' extents with unit inner stride,
//        16-byte aligned data and positive row (and batch) strides of a multiple of
//        8 elements (TMA); K (the first dot's) 64, 128 or 256 with a ring that fits
//        (ChainParams::stages); N a multiple of 8; else false;
//     2. DV, the output columns per tile: the smallest of 64, 128 and 256 that
//        covers N (at most ChainParams::dvMax); the instantiation
//        `mlp_relu_chain_kernel<dtypes..., K, DV>`, found by an integer key
//        (KernelCacheLookup.h), with ChainSm90::kSmemBytes (config::chainSm90SmemBytes);
//     3. the 3-D tensor maps of a, b1, b2 ([B, rows, cols], B = 1 unbatched;
//        128-byte swizzle; boxes of one batch and 64 columns: a BM rows, b1 K rows or
//        BN rows when it is [H, K], b2 BN rows) and B x cdiv(M, BM) x cdiv(N, DV)
//        CTAs of 128 x (consumers + 1) threads; true.
//   }
//
// Everything else (another device, dtype, K or alignment) falls to the generic
// kernel, which computes the same thing.
//===----------------------------------------------------------------------===//
#include "ChainLauncher.h"

#include "AotTables.h"
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
  auto pname = [&](int i) { return genName(k.params.at(i)); };
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
  os << "  const helion::rt::DeviceInfo& hc_dev = helion::rt::deviceInfo();\n";
  os << "  if (hc_dev.major != 9) return false; // TMA + wgmma: sm_90a\n";
  const bool batched = c.batch != nullptr;
  os << "  const int64_t hc_B = " << (batched ? hostExpr(*c.batch) : "1")
     << ", hc_M = " << hostExpr(*c.m) << ", hc_N = " << hostExpr(*c.n)
     << ", hc_H = " << hostExpr(*c.h) << ", hc_K = " << hostExpr(*c.k) << ";\n";
  os << "  if (hc_B <= 0 || hc_M <= 0 || hc_N <= 0 || hc_H <= 0 || hc_B >= (int64_t(1) << 31) || "
        "hc_M >= (int64_t(1) << 31) ||\n      hc_N >= (int64_t(1) << 31) || hc_H >= (int64_t(1) << 31) "
        "|| hc_N % 8 != 0)\n    return false;\n";
  os << "  if (hc_K != 64 && hc_K != 128 && hc_K != 256) return false; // a resident in shared memory\n";
  // DV: the output columns per tile, the smallest of 64, 128, 256 that covers N.
  os << "  const int hc_dk = hc_K == 64 ? 0 : hc_K == 128 ? 1 : 2;\n";
  os << "  const int hc_dv = std::min(hc_N <= 64 ? 0 : hc_N <= 128 ? 1 : 2, " << (p.dvMax == 64 ? 0 : p.dvMax == 128 ? 1 : 2)
     << ");\n";
  auto table = [&](const std::string& type, const std::string& nm, auto value) {
    os << "  static const " << type << " " << nm << "[3][3] = {";
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        os << (j ? ", " : i ? "}, {" : "{") << value(i, j);
    os << "}};\n";
  };
  table("int", "hc_stages", [&](int i, int j) { return p.stages[i][j]; });
  os << "  if (hc_stages[hc_dk][hc_dv] == 0) return false; // no ring fits in shared memory\n";
  table("int64_t", "hc_smem", [&](int i, int j) {
    return p.stages[i][j] ? config::chainSm90SmemBytes(64 << i, 64 << j, p.bn, p.consumers,
                                                       p.stages[i][j])
                          : 0;
  });
  os << "  const int64_t hc_DV = int64_t(64) << hc_dv, hc_smemBytes = hc_smem[hc_dk][hc_dv];\n";
  // Rows and columns are a tensor's last two dims; batched, its first is the batch.
  const std::string r = batched ? "1" : "0", cl = batched ? "2" : "1";
  os << "  auto hc_fits = [&](const helion::Tensor& t, int64_t rows, int64_t cols) {\n"
        "    return t.device().type == helion::DeviceType::CUDA && t.dim() == "
     << (batched ? 3 : 2) << " &&\n"
        "           (t.dtype() == helion::DType::bf16 || t.dtype() == helion::DType::f16) &&\n"
        "           t.dtype() == " << a << ".dtype() && t.size(" << r << ") >= rows && t.size("
     << cl << ") >= cols &&\n"
        "           t.stride(" << cl << ") == 1 && t.stride(" << r << ") % 8 == 0 && t.stride(" << r
     << ") > 0 &&\n"
     << (batched ? "           t.size(0) >= hc_B && t.stride(0) % 8 == 0 && t.stride(0) > 0 &&\n"
                 : "")
     << "           reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0;\n  };\n";
  os << "  if (!hc_fits(" << a << ", hc_M, hc_K) || !hc_fits(" << b1 << ", "
     << (c.b1KMajor ? "hc_H, hc_K" : "hc_K, hc_H") << ") || !hc_fits(" << b2 << ", hc_H, hc_N))\n    return false;\n";
  if (c.castParam >= 0 && c.castParam != c.a)
    os << "  if (" << pname(c.castParam) << ".dtype() != " << a << ".dtype()) return false;\n";
  else if (c.castParam < 0)
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
  lookup.intArg("hc_K");
  lookup.intArg("hc_DV");
  const std::string aot = aotTableRef(hk, ek);
  os << lookup.emit("\"" + ek.kernelName + "<\"", fileName + ".chain",
                    "{}, static_cast<int>(hc_smemBytes)" + (aot.empty() ? "" : ", -1, " + aot));
  const std::string args = hostArgLocals(os, k, ek.args, "hc_e");
  // 3-D maps ([B, rows, cols]); unbatched, one batch strided past the whole matrix.
  os << "  auto hc_map = [&](const helion::Tensor& t, int64_t rows, int64_t cols, int32_t boxRows) {\n"
        "    helion::rt::TensorMapDesc d;\n"
        "    d.base = const_cast<void*>(static_cast<const void*>(t.data_ptr()));\n"
        "    d.elementBytes = 2;\n"
     << (batched ? "    d.sizes = {hc_B, rows, cols};\n    d.strides = {t.stride(0), t.stride(1), 1};\n"
                 : "    d.sizes = {1, rows, cols};\n    d.strides = {rows * t.stride(0), t.stride(0), 1};\n")
     << "    d.box = {1, boxRows, 64};\n    d.swizzle = helion::rt::Swizzle::b128;\n"
        "    return helion::rt::makeTensorMap(d);\n  };\n";
  os << "  CUtensorMap hc_mapA = hc_map(" << a << ", hc_M, hc_K, " << p.bm << "), hc_mapB1 = hc_map(" << b1 << ", "
     << (c.b1KMajor ? "hc_H, hc_K, " + std::to_string(p.bn) : "hc_K, hc_H, int32_t(hc_K)") << "), hc_mapB2 = hc_map("
     << b2 << ", hc_H, hc_N, " << p.bn << ");\n";
  os << "  int hc_iB = int(hc_B), hc_iM = int(hc_M), hc_iH = int(hc_H), hc_iN = int(hc_N);\n";
  os << "  void* hc_args[] = {&hc_mapA, &hc_mapB1, &hc_mapB2, &hc_iB, &hc_iM, &hc_iH, &hc_iN" << args
     << "};\n";
  os << "  const int64_t hc_ctas = hc_B * helion::rt::cdiv(hc_M, int64_t(" << p.bm
     << ")) * helion::rt::cdiv(hc_N, hc_DV);\n";
  os << "  if (hc_ctas >= (int64_t(1) << 31)) return false;\n";
  os << "  helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(hc_ctas)), "
        "helion::rt::Dim3("
     << 128 * (p.consumers + 1) << "), static_cast<unsigned>(hc_smemBytes), hc_args, "
     << "helion::rt::currentStream());\n";
  os << "  return true;\n}\n\n";
  return os.str();
}

} // namespace helion::codegen
