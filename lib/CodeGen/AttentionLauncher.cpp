//===- AttentionLauncher.cpp - Host launcher of flash attention ------------===//
//
// The generated launcher, at each call:
//   1. checks q, k, v (CUDA, 3-D, one dtype of bf16/f16, [b, seq, d] with the
//      sizes the loops read, unit inner stride, 16-byte aligned data and batch and
//      row strides that are multiples of 8 elements: one cp.async per 16 bytes, and
//      what TMA needs of a map's strides) and the head dim (64 or 128);
//   2. picks the kernel: with sm90 parameters (Kernel::flash, TemplateRules.h) the TMA + wgmma
//      one on a compute capability 9.x device, else the sm80 one; names the
//      instantiation (`attention_kernel<bf16, ..., 128>`) and compiles it once
//      (NVRTC, then found by an integer key in a lock-free KernelCache: no lock
//      and no name on later launches), with the dynamic shared memory of
//      AttentionSm80::kSmemBytes = 128 + (BM + 2 BN) x d x 2 bytes or of
//      AttentionSm90::kSmemBytes (attentionSm90SmemBytes);
//   3. sm90: builds the tensor maps of q, k, v as {b, seq, d} (boxes {1, rows, 64},
//      128-byte swizzle: TMA zero-fills rows past seq of each batch) and launches
//      cdiv(M, BM) x b CTAs of 128 x (consumers + 1) threads, or with pid_type
//      persistent_interleaved min(that, #SMs) CTAs that take tiles from the
//      stream's tile counter (helion::rt::tileCounter); sm80: launches
//      cdiv(M, BM) x b CTAs of 32 x num_warps threads (b-major order).
//===----------------------------------------------------------------------===//
#include "AttentionLauncher.h"

#include "helion/Config/AttentionSmem.h"
#include "AotTables.h"
#include "CudaLiteral.h"
#include "KernelCacheLookup.h"

#include <algorithm>
#include <sstream>

namespace helion::codegen {
using namespace ir;

namespace {
/// `(outBytes == 1 ? f(1) : outBytes == 2 ? f(2) : outBytes == 4 ? f(4) : f(8))`: a value
/// of the output's element size, printed for each.
std::string bySize(const std::function<int64_t(int64_t)>& f) {
  return "(outBytes == 1 ? " + std::to_string(f(1)) + " : outBytes == 2 ? " +
         std::to_string(f(2)) + " : outBytes == 4 ? " + std::to_string(f(4)) + " : " +
         std::to_string(f(8)) + ")";
}
} // namespace

std::string attentionLauncher(const HostKernel& hk, const std::string& fileName,
                              const std::function<std::string(const Expr&)>& hostExpr,
                           const std::string& launcherName) {
  const Kernel& k = *hk.kernel;
  const EmittedKernel& ek = *hk.emitted;
  const AttentionLaunch& at = *ek.attention;
  auto pname = [&](int p) { return genName(k.params.at(p)); };
  const std::string q = pname(at.q), kk = pname(at.k), v = pname(at.v), kn = k.name;
  std::ostringstream os;
  os << "// helionc: launcher of flash attention '" << kn << "' (generated, do not edit)\n";
  os << launcherSignature(k, launcherName, hostScalarType);
  const std::string delim = rawDelimiter(ek.source);
  os << "  static const char kSource[] = R\"" << delim << "(" << ek.source << ")" << delim
     << "\";\n";
  os << "  const int64_t B = " << hostExpr(*at.b) << ", M = " << hostExpr(*at.m)
     << ", N = " << hostExpr(*at.n) << ", D = " << hostExpr(*at.headDim) << ";\n";
  os << "  if (B <= 0 || M <= 0) return;\n";
  const int minBm = at.flash.sm90 ? std::min(at.flash.bm, at.flash.sm90Bm) : at.flash.bm;
  os << "  HELION_CHECK(N > 0 && M < (int64_t(1) << 31) && N < (int64_t(1) << 31) && "
        "B * ((M + " << minBm - 1 << ") / " << minBm << ") < (int64_t(1) << 31), \"" << kn
     << ": attention sizes out of range, got b = {}, m = {}, n = {}\", B, M, N);\n";
  os << "  HELION_CHECK(D == 64 || D == 128, \"" << kn
     << ": flash attention supports head dims 64 and 128, got {}\", D);\n";
  // 1. Operands.
  for (const std::string& t : {q, kk, v})
    os << "  HELION_CHECK(" << t << ".device().type == helion::DeviceType::CUDA && " << t
       << ".dim() == 3, \"" << kn << ": tensor '" << shownName(t) << "' must be a 3-D CUDA tensor\");\n";
  os << "  HELION_CHECK((" << q << ".dtype() == helion::DType::bf16 || " << q
     << ".dtype() == helion::DType::f16) && " << kk << ".dtype() == " << q << ".dtype() && " << v
     << ".dtype() == " << q << ".dtype(), \"" << kn
     << ": flash attention needs bf16 or f16 q, k and v of one dtype\");\n";
  os << "  HELION_CHECK(" << q << ".size(0) >= B && " << q << ".size(1) >= M && " << q
     << ".size(2) == D && " << kk << ".size(0) >= B && " << kk << ".size(1) >= N && " << kk
     << ".size(2) == D && " << v << ".size(0) >= B && " << v << ".size(1) >= N && " << v
     << ".size(2) == D, \"" << kn << ": q, k, v must be [b, seq, " << "d] with one head dim\");\n";
  os << "  auto cpAsyncReady = [](const helion::Tensor& t) {\n"
        "    return t.stride(2) == 1 && reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0 &&\n"
        "           t.stride(0) % 8 == 0 && t.stride(1) % 8 == 0;\n  };\n";
  for (const std::string& t : {q, kk, v})
    os << "  HELION_CHECK(cpAsyncReady(" << t << "), \"" << kn << ": tensor '" << shownName(t)
       << "' must have unit inner stride, 16-byte aligned data and batch and row strides that "
          "are multiples of 8 elements for flash attention (strides [{}, {}, {}])\", "
       << t << ".stride(0), " << t << ".stride(1), " << t << ".stride(2));\n";
  // Outputs: out[tb, tm, :] (rank 3) and per-row results lse[tb, tm] (rank 2).
  for (const KernelArg& arg : ek.args) {
    if (arg.kind != KernelArg::Kind::Pointer)
      continue;
    const std::string& t = pname(arg.param);
    const bool rows = ek.paramRanks.at(arg.param) == 2;
    os << "  HELION_CHECK(" << t << ".device().type == helion::DeviceType::CUDA && " << t
       << ".dim() == " << (rows ? 2 : 3) << " && " << t << ".size(0) >= B && " << t
       << ".size(1) >= M" << (rows ? "" : " && " + t + ".size(2) >= D") << ", \"" << kn
       << ": tensor '" << shownName(t) << "' must be a " << (rows ? "2-D" : "3-D")
       << " CUDA tensor of at least " << (rows ? "[b, m]" : "[b, m, d]") << "\");\n";
  }
  // 2. Which kernel, and the instantiation.
  std::string nameHead = "\"" + ek.kernelName + "<\"";
  if (at.flash.sm90) {
    os << "  const helion::rt::DeviceInfo& dev = helion::rt::deviceInfo();\n";
    os << "  const bool sm90 = dev.major == 9; // TMA + wgmma (sm_90a), else the sm80 kernel\n";
    nameHead = "sm90 ? " + nameHead + " : \"" + at.sm80KernelName + "<\"";
  }
  if (at.flash.sm90) {
    // attentionSm90SmemBytes(D, ...) for the two head dims, plus the output's staging for
    // TMA stores (attentionSm90OutStagingBytes) by its element size.
    const AttentionParams& f = at.flash;
    auto base = [&](int64_t d) {
      return config::attentionSm90SmemBytes(d, f.sm90Bn, f.consumers, f.stages);
    };
    if (at.out >= 0) {
      auto staging = [&](int64_t d) {
        return bySize([&](int64_t eb) {
          return config::attentionSm90OutStagingBytes(d, f.sm90Bn, f.consumers, f.stages, eb);
        });
      };
      os << "  const int64_t outBytes = static_cast<int64_t>(" << pname(at.out)
         << ".element_size());\n";
      os << "  const int64_t staging = D == 64 ? " << staging(64) << " : " << staging(128)
         << ";\n";
    }
    os << "  const int64_t smem = sm90 ? (D == 64 ? " << base(64) << " : " << base(128) << ")"
       << (at.out >= 0 ? " + staging" : "") << " : 128 + int64_t("
       << at.flash.bm + 2 * at.flash.bn << ") * D * 2;\n";
  } else {
    os << "  const int64_t smem = 128 + int64_t(" << at.flash.bm + 2 * at.flash.bn << ") * D * 2;\n";
  }
  // The instantiation, found by a key of integers without a lock; the name
  // (dtypes, the head dim) is built on a miss only (KernelCacheLookup.h).
  KernelCacheLookup lookup;
  if (at.flash.sm90)
    lookup.key("std::int64_t(sm90)");
  for (const TemplateArg& t : ek.templateArgs) {
    if (t.kind == TemplateArg::Kind::DType)
      lookup.dtypeArg(pname(t.index));
    else
      lookup.intArg("static_cast<std::int64_t>(" + pname(t.index) + ")");
  }
  const std::string aot = aotTableRef(hk, ek);
  os << lookup.emit(nameHead, fileName,
                    "{}, static_cast<int>(smem)" + (aot.empty() ? "" : ", -1, " + aot));
  // 3. Arguments and launch.
  const std::string args = hostArgLocals(os, k, ek.args, "e");
  os << "  int iM = int(M), iN = int(N);\n";
  if (at.flash.sm90) {
    os << "  if (sm90) {\n";
    os << "    auto map = [&](const helion::Tensor& t, int64_t rows, int32_t boxRows) {\n"
          "      helion::rt::TensorMapDesc m;\n"
          "      m.base = const_cast<void*>(static_cast<const void*>(t.data_ptr()));\n"
          "      m.elementBytes = 2;\n"
          "      m.sizes = {B, rows, D};\n      m.strides = {t.stride(0), t.stride(1), 1};\n"
          "      m.box = {1, boxRows, 64};\n      m.swizzle = helion::rt::Swizzle::b128;\n"
          "      return helion::rt::makeTensorMap(m);\n    };\n";
    os << "    CUtensorMap mapQ = map(" << q << ", M, " << at.flash.sm90Bm << "), mapK = map(" << kk
       << ", N, " << at.flash.sm90Bn << "), mapV = map(" << v << ", N, " << at.flash.sm90Bn << ");\n";
    os << "    int iB = int(B);\n";
    os << "    const int64_t tiles = B * helion::rt::cdiv(M, int64_t(" << at.flash.sm90Bm << "));\n";
    if (at.flash.persistent) { // one CTA per SM at most (kSmemBytes and setmaxnreg allow no second)
      os << "    const int64_t ctas = std::min<int64_t>(tiles, dev.smCount);\n";
      // The CTAs take their tiles from the stream's counter (AttentionSm90's schedule).
      os << "    CUdeviceptr counter = helion::rt::tileCounter(helion::rt::currentStream());\n";
    } else {
      os << "    const int64_t ctas = tiles;\n";
      os << "    CUdeviceptr counter = 0;  // one CTA per tile: nothing to hand out\n";
    }
    // The output by TMA (the kernel's staging is in smem): when it is dense, 16-byte
    // aligned with rows and batches of whole 16 bytes; else the kernel stores from
    // registers and the map is not read.
    os << "    CUtensorMap mapO{};\n    int tmaO = 0;\n";
    if (at.out >= 0) {
      const std::string o = pname(at.out), f = "static_cast<int64_t>(outBytes)";
      os << "    if (staging > 0 && " << o << ".stride(2) == 1 && (" << o << ".stride(1) * " << f
         << ") % 16 == 0 && (" << o << ".stride(0) * " << f
         << ") % 16 == 0 &&\n        reinterpret_cast<std::uintptr_t>(" << o
         << ".data_ptr()) % 16 == 0) {\n"
         << "      helion::rt::TensorMapDesc m;\n"
         << "      m.base = const_cast<void*>(static_cast<const void*>(" << o << ".data_ptr()));\n"
         << "      m.elementBytes = static_cast<int>(outBytes);\n"
         << "      m.sizes = {B, M, D};\n      m.strides = {" << o << ".stride(0), " << o
         << ".stride(1), 1};\n"
         << "      m.box = {1, 64, static_cast<int32_t>(128 / outBytes)};\n"
         << "      m.swizzle = helion::rt::Swizzle::b128;\n"
         << "      mapO = helion::rt::makeTensorMap(m);\n      tmaO = 1;\n    }\n";
    }
    os << "    void* args[] = {&mapQ, &mapK, &mapV, &iM, &iN, &iB, &counter, &mapO, &tmaO" << args
       << "};\n";
    os << "    helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), "
          "helion::rt::Dim3("
       << 128 * (at.flash.consumers + 1) << "), static_cast<unsigned>(smem), args, "
        "helion::rt::currentStream());\n";
    os << "    return;\n  }\n";
  }
  os << "  void* pq = const_cast<void*>(static_cast<const void*>(" << q << ".data_ptr()));\n";
  os << "  void* pk = const_cast<void*>(static_cast<const void*>(" << kk << ".data_ptr()));\n";
  os << "  void* pv = const_cast<void*>(static_cast<const void*>(" << v << ".data_ptr()));\n";
  os << "  int64_t sqb = " << q << ".stride(0), sqm = " << q << ".stride(1), skb = " << kk
     << ".stride(0), skn = " << kk << ".stride(1), svb = " << v << ".stride(0), svn = " << v
     << ".stride(1);\n";
  os << "  void* args[] = {&pq, &pk, &pv, &iM, &iN, &sqb, &sqm, &skb, &skn, &svb, &svn" << args
     << "};\n";
  os << "  const int64_t ctas = B * helion::rt::cdiv(M, int64_t(" << at.flash.bm << "));\n";
  os << "  helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), "
        "helion::rt::Dim3("
     << 32 * at.flash.warps << "), static_cast<unsigned>(smem), args, "
        "helion::rt::currentStream());\n";
  os << "}\n\n";
  return os.str();
}

} // namespace helion::codegen
