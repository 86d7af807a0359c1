//===- MatmulLauncher.cpp - Host launcher of a tensor-core matmul ----------===//
//
// The generated launcher, at each call:
//   1. checks the operands (CUDA, 2-D or batched 3-D, bf16/f16/f32/f8e4m3/f8e5m2 (8-bit
//      only with B as [N, K]), one dtype, unit column stride,
//      16-byte aligned data and row strides: what TMA and cp.async need); a 2-D
//      matmul whose operands fail the dtype or alignment checks runs its general-lowering
//      program instead (EmittedKernel::general, its own launcher);
//   2. picks the kernel: f32 operands always the sm80 kernel as tf32 (tf32Tile);
//      else sm90 on a compute capability 9.x device when the config
//      asks for it (indexing tensor_descriptor), else sm80; TMA_STORE = 1 when the
//      output is a dense row-major [M, N] whose rows are a multiple of 16 bytes
//      (TMA stores clip columns only in 16-byte steps), else the pairs epilogue;
//   3. computes the shared memory the instantiation needs (the same formula as
//      Gemm::kSmemBytes; the kernel traps if it got less);
//   4. finds the kernel in its KernelCache by a key of integers (device, sm90,
//      dtypes, specialized scalars, TMA_STORE: KernelCacheLookup.h), without a lock
//      or a template name; only a miss builds the name, loads and inserts;
//   5. builds the tensor maps (Swizzle::b128, boxes as gemm_sm90.cuh says), which
//      hold the tensors' pointers, sizes and strides and so are made at every call,
//      and the grid (Gemm::gridSize: min(#SMs, #tiles) when persistent) and launches;
//      a persistent grouped GEMM's sm90 kernel also gets its stream's stream-K
//      workspace (helion::rt::streamWorkspace; gemm_grouped.cuh).
// A grouped GEMM with the row-fitting kernel (GemmParams::groupedRows) runs it on sm90
// when A, B and the output are bf16 or f16 of one dtype, the output takes TMA stores
// and the groups average more than 256 rows (M > 256 G: measured faster than the BM x
// BN kernel there, slower on MoE-sized groups of 256 rows); its maps are A's and C's
// at every box height (hd::GroupedRowMaps), kept per thread until a tensor changes,
// and B's; it takes the same stream-K workspace (gemm_grouped_rows.cuh).
//===----------------------------------------------------------------------===//
#include "MatmulLauncher.h"
#include "MatmulPlan.h"

#include "AotTables.h"
#include "CudaLiteral.h"
#include "KernelCacheLookup.h"
#include "KernelLauncher.h"
#include "helion/gemm_smem.cuh"         // gemm_ring_bytes, tma_store_parts (host-compilable)
#include "helion/grouped_rows_plan.cuh" // GroupedRowsShape (host-compilable)
#include "helion/stream_k.cuh"        // kStreamKCounterBytes (host-compilable)

#include <sstream>

namespace helion::codegen {
using namespace ir;

namespace {
/// Declares `ws`: the current stream's stream-K workspace (stream_k.cuh: the counters,
/// then `slotBytes` of partial sums per CTA of `ctas`), or null with HELIONC_NO_STREAM_K.
void streamKWorkspace(std::ostream& os, const std::string& indent, const std::string& ctas,
                      int64_t slotBytes) {
  os << indent << "void* ws = !helion::rt::streamKEnabled() ? nullptr\n"
     << indent << "    : reinterpret_cast<void*>(helion::rt::streamWorkspace(\n"
     << indent << "          helion::rt::currentStream(), " << helion::dev::kStreamKCounterBytes
     << " + size_t(" << ctas << ") * " << slotBytes << "));\n";
}
} // namespace

std::string matmulLauncher(const HostKernel& hk, const std::string& fileName,
                           const std::function<std::string(const Expr&)>& hostExpr,
                           const std::string& launcherName) {
  const MatmulHost h(hk);
  const Kernel& k = h.k;
  const EmittedKernel& ek = h.ek;
  const MatmulLaunch& mm = h.mm;
  auto pname = [&](int p) { return h.pname(p); };
  const bool batched = h.batched, grouped = h.grouped;
  const std::string &a = h.a, &b = h.b, &kn = k.name;
  std::ostringstream os;
  std::string generalFn;
  if (ek.general) { // its launcher first, for this one to fall back to
    HostKernel general = hk;
    general.emitted = ek.general.get();
    generalFn = launcherName + "_general";
    os << launcher(general, fileName, generalFn);
  }
  os << "// helionc: launcher of tensor-core matmul '" << kn << "' (generated, do not edit)\n";
  os << launcherSignature(k, launcherName, hostScalarType);
  const std::string delim = rawDelimiter(ek.source);
  os << "  static const char kSource[] = R\"" << delim << "(" << ek.source << ")" << delim
     << "\";\n";
  os << matmulOperandChecks(hk, hostExpr, generalFn); // 1. Extents and operands.
  // 2. Which kernel.
  os << "  const helion::rt::DeviceInfo& dev = helion::rt::deviceInfo();\n";
  os << "  HELION_CHECK(dev.major >= 8, \"" << kn
     << ": the tensor-core matmul needs compute capability 8.0 or newer, got {}.{}\", dev.major, "
        "dev.minor);\n";
  os << "  // f32: tf32 on the sm80 kernel (mma.sync m16n8k8); wgmma tf32 needs B K-major.\n";
  os << "  const bool tf32 = " << a << ".dtype() == helion::DType::f32;\n";
  os << (mm.aStaged >= 0 ? "  bool" : "  const bool") << " sm90 = "
     << (mm.gemm.sm90 ? "dev.major == 9 && !tf32" : "false") << ";\n";
  if (mm.aStaged >= 0) {
    // The A prologue's second tensor: staged by TMA beside A when of A's dtype (the sm90
    // kernel's StagedA); one TMA cannot read (matmulOperandChecks' tmaReady) runs the
    // sm80 kernel.
    const std::string y = pname(mm.aStaged);
    os << "  const bool yStaged = sm90 && " << y << ".dtype() == " << a << ".dtype();\n";
    os << "  if (yStaged && !(" << y << ".dim() == 2 && tmaReady(" << y
       << ")))\n    sm90 = false;\n";
  }
  if (mm.tmaStoreParam >= 0) {
    std::string c = pname(mm.tmaStoreParam);
    // tma_store writes 2- and 4-byte elements, 8-bit ones at BN 256 (else pairs).
    std::string sized = tmaStoreSizeTest(c + ".element_size()", mm.gemm.bn);
    sized += sized.empty() ? "" : " && ";
    if (batched)
      os << "  const bool tmaStore = sm90 && " << sized << c
         << ".dim() == 3 && " << c
         << ".stride(2) == 1 && " << c << ".stride(1) == N && (N * int64_t(" << c
         << ".element_size())) % 16 == 0 && (" << c << ".stride(0) * int64_t(" << c
         << ".element_size())) % 16 == 0 && reinterpret_cast<uintptr_t>(" << c
         << ".data_ptr()) % 16 == 0;\n";
    else
      os << "  const bool tmaStore = sm90 && " << sized << c
         << ".dim() == 2 && " << c
         << ".stride(1) == 1 && " << c << ".stride(0) == N && (N * int64_t(" << c
         << ".element_size())) % 16 == 0 && "
         << "reinterpret_cast<uintptr_t>(" << c << ".data_ptr()) % 16 == 0;\n";
  } else {
    os << "  const bool tmaStore = false;\n";
  }
  using Rows = helion::dev::GroupedRowsShape;
  const bool rowsKernel = !mm.rowsKernelName.empty();
  if (rowsKernel)
    os << "  const bool fitRows = tmaStore && " << pname(mm.tmaStoreParam) << ".dtype() == " << a
       << ".dtype() && (" << a << ".dtype() == helion::DType::bf16 || " << a
       << ".dtype() == helion::DType::f16) && M > " << Rows::MaxH << " * G && (M < "
       << Rows::kLargeAverageRows
       << " * G || helion::rt::rowFittingForced()) && helion::rt::rowFittingEnabled();\n";
  // 3. Shared memory (Gemm::kSmemBytes / GemmSm80::kSmemBytes).
  std::string outSize = mm.tmaStoreParam >= 0
                            ? "int64_t(" + pname(mm.tmaStoreParam) + ".element_size())"
                            : "int64_t(4)";
  const Tf32Tile t32 = tf32Tile(mm.gemm.sm80Bm, mm.gemm.sm80Bn);
  os << "  const int64_t bm80 = tf32 ? " << t32.bm << " : " << mm.gemm.sm80Bm << ", bn80 = tf32 ? "
     << t32.bn << " : " << mm.gemm.sm80Bn << ", stages80 = tf32 ? " << t32.stages << " : "
     << mm.gemm.sm80Stages << ";\n";
  os << "  int64_t smem = 128 + stages80 * (bm80 + bn80) * 128;\n";
  // sm90: the ring, and tma_store's C buffer of 1/parts of the tile: the parts that
  // Gemm::kTmaParts takes (tma_store_parts, computed here for each element size C can
  // have; 0: the kernel stores pairs and has no buffer).
  os << "  if (sm90) {\n";
  const int bm = mm.gemm.bm, bn = mm.gemm.bn, stages = mm.gemm.stages;
  const auto ringOf = [&](bool y) { return helion::dev::gemm_ring_bytes(bm, bn, stages, y); };
  const auto partsOf = [&](bool y) {
    std::string e;
    for (int size : {4, 2})
      e += outSize + " == " + std::to_string(size) + " ? " +
           std::to_string(helion::dev::tma_store_parts(ringOf(y), bm * bn * size, bn, size)) +
           " : ";
    return e + std::to_string(helion::dev::tma_store_parts(ringOf(y), bm * bn, bn, 1));
  };
  os << "    const int64_t ring = "
     << (mm.aStaged >= 0 ? "yStaged ? " + std::to_string(ringOf(true)) + " : " : "")
     << ringOf(false) << ";\n";
  os << "    const int64_t parts = "
     << (mm.aStaged >= 0 ? "yStaged ? (" + partsOf(true) + ") : (" + partsOf(false) + ")"
                         : partsOf(false))
     << ";\n";
  os << "    smem = tmaStore && parts > 0 ? ring + int64_t(" << bm * bn << ") * " << outSize
     << " / parts : ring;\n  }\n";
  if (rowsKernel)
    os << "  if (fitRows)\n    smem = " << Rows::smemBytes(Rows::kStages) << ";\n";
  // 4. The kernel. The key leaves out tf32 and the shared memory bytes handed to
  // loadKernel: the dtypes, sm90 and TMA_STORE in it decide both.
  KernelCacheLookup lookup;
  lookup.key("std::int64_t(sm90)");
  if (rowsKernel)
    lookup.key("std::int64_t(fitRows)");
  for (const TemplateArg& t : ek.templateArgs) {
    switch (t.kind) {
    case TemplateArg::Kind::DType: lookup.dtypeArg(pname(t.index)); break;
    case TemplateArg::Kind::Specialized:
      lookup.intArg("static_cast<std::int64_t>(" + pname(t.index) + ")");
      break;
    case TemplateArg::Kind::EpilogueForm: lookup.intArg("std::int64_t(tmaStore)"); break;
    default: break; // not made by emitMatmul
    }
  }
  std::string nameHead = "\"" + mm.sm80KernelName + "<\"";
  if (mm.gemm.sm90)
    nameHead = "sm90 ? \"" + ek.kernelName + "<\" : " + nameHead;
  if (rowsKernel)
    nameHead = "fitRows ? \"" + mm.rowsKernelName + "<\" : " + nameHead;
  os << "  // The kernel, found by device, sm90 and template arguments (tf32 and smem follow from\n"
        "  // them) without a lock; the name is built and the kernel loaded on a new key only.\n";
  const std::string aot = aotTableRef(hk, ek);
  os << lookup.emit(nameHead, fileName,
                    "{}, static_cast<int>(smem)" + (aot.empty() ? "" : ", -1, " + aot));
  // Epilogue arguments.
  const std::string epiArgs = hostArgLocals(os, k, ek.args, "e");
  os << "  int iM = int(M), iN = int(N), iK = int(K), groupM = " << mm.gemm.groupM << ";\n";
  if (batched)
    os << "  int iB = int(B);\n";
  if (grouped)
    os << "  int iG = int(G);\n  void* po = const_cast<void*>(static_cast<const void*>("
       << pname(mm.offsets) << ".data_ptr()));\n";
  os << "  if (sm90) {\n";
  os << "    using helion::rt::Swizzle;\n";
  os << "    auto map = [" << (batched ? "B" : grouped ? "G" : "")
     << "](const helion::Tensor& t, int64_t rows, "
        "int64_t cols, int32_t boxRows, int32_t boxCols) {\n"
        "      helion::rt::TensorMapDesc d;\n"
        "      d.base = const_cast<void*>(static_cast<const void*>(t.data_ptr()));\n"
        "      d.elementBytes = static_cast<int>(t.element_size());\n";
  if (batched) // one batch deep boxes: the same shared-memory bytes as the 2-D boxes
    os << "      d.sizes = {B, rows, cols};\n      d.strides = {t.stride(0), t.stride(1), 1};\n"
          "      d.box = {1, boxRows, boxCols};\n      d.swizzle = Swizzle::b128;\n";
  else if (grouped) // A and C 2-D, B 3-D {G, rows, cols} with boxes one group deep
    os << "      if (t.dim() == 3) {\n        d.sizes = {G, rows, cols};\n"
          "        d.strides = {t.stride(0), t.stride(1), 1};\n        d.box = {1, boxRows, "
          "boxCols};\n      } else {\n        d.sizes = {rows, cols};\n"
          "        d.strides = {t.stride(0), 1};\n        d.box = {boxRows, boxCols};\n      }\n"
          "      d.swizzle = Swizzle::b128;\n";
  else
    os << "      d.sizes = {rows, cols};\n      d.strides = {t.stride(0), 1};\n"
          "      d.box = {boxRows, boxCols};\n      d.swizzle = Swizzle::b128;\n";
  os << "      return helion::rt::makeTensorMap(d);\n    };\n";
  // K boxes of one 128-byte swizzle row: 64 16-bit or 128 8-bit elements.
  os << "    const int32_t boxK = static_cast<int32_t>(128 / " << a << ".element_size());\n";
  os << "    CUtensorMap mapA = map(" << a << ", M, K, " << mm.gemm.bm << ", boxK);\n";
  if (mm.bTransposed)
    os << "    CUtensorMap mapB = map(" << b << ", N, K, " << mm.gemm.bn << ", boxK);\n";
  else
    os << "    CUtensorMap mapB = map(" << b << ", K, N, 64, 64);\n";
  if (rowsKernel) { // hd::GroupedRowMaps: A's and C's maps at every box height, B's
    const std::string c = pname(mm.tmaStoreParam);
    const int mapsA = Rows::kMapsA, mapsC = Rows::kMapsC;
    // Encoding a map takes microseconds: A's and C's are kept per thread and made
    // again only when a tensor (pointer, extents, row stride, element size) changes.
    os << "    if (fitRows) {\n";
    os << "      void* pc = const_cast<void*>(static_cast<const void*>(" << c
       << ".data_ptr()));\n      int64_t ldc = " << c << ".stride(0);\n";
    os << "      const int64_t mapsKey[] = {int64_t(reinterpret_cast<uintptr_t>(" << a
       << ".data_ptr())), M, K, " << a << ".stride(0), int64_t(" << a
       << ".element_size()),\n          int64_t(reinterpret_cast<uintptr_t>(pc)), N, ldc, "
          "int64_t(" << c << ".element_size())};\n";
    os << "      thread_local int64_t mapsFor[9] = {};\n";
    os << "      thread_local CUtensorMap rowMaps[" << mapsA + mapsC + 1 << "];\n";
    os << "      bool same = true;\n      for (int i = 0; i < 9; ++i)\n"
          "        same = same && mapsKey[i] == mapsFor[i];\n";
    os << "      if (!same) {\n        mapsFor[0] = -1; // no match until all are made\n";
    os << "        for (int i = 0; i < " << mapsA << "; ++i)\n          rowMaps[i] = map(" << a
       << ", M, K, 16 * (i + 1), boxK);\n";
    os << "        for (int i = 0; i < " << mapsC << "; ++i)\n          rowMaps[" << mapsA
       << " + i] = map(" << c << ", M, N, 16 * (i + 1), 64);\n";
    os << "        for (int i = 0; i < 9; ++i)\n          mapsFor[i] = mapsKey[i];\n      }\n";
    os << "      rowMaps[" << mapsA + mapsC << "] = mapB;\n";
    // A group of m rows has at most ceil(m / MaxH) row tiles at cap 256 (GroupRows; the
    // kernel may choose a lower cap for more tiles on the same grid).
    os << "      const int64_t units = (M / " << Rows::MaxH << " + G) * helion::rt::cdiv(N, "
       << Rows::BN << ");\n";
    os << "      const int64_t ctas = std::min<int64_t>(units, dev.smCount);\n";
    streamKWorkspace(os, "      ", "ctas", Rows::kStreamKSlotBytes);
    os << "      void* args[] = {rowMaps, &pc, &ldc, &iM, &iN, &iK, &po, &iG, &ws};\n";
    os << "      helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), "
          "helion::rt::Dim3("
       << Rows::kThreads << "), static_cast<unsigned>(smem), args, helion::rt::currentStream());\n";
    os << "      return;\n    }\n";
  }
  if (mm.tmaStoreParam >= 0)
    os << "    CUtensorMap mapC = tmaStore ? map(" << pname(mm.tmaStoreParam) << ", M, N, "
       << mm.gemm.bm / mm.gemm.consumers << ", static_cast<int32_t>(128 / " << pname(mm.tmaStoreParam)
       << ".element_size())) : mapA;\n";
  else
    os << "    CUtensorMap mapC = mapA; // unused by the pairs epilogue\n";
  if (mm.aStaged >= 0)
    os << "    CUtensorMap mapY = yStaged ? map(" << pname(mm.aStaged) << ", M, K, " << mm.gemm.bm
       << ", boxK) : mapA; // read only when staged\n";
  if (grouped) // tiles per group are known on the device only: at most M / BM + G rows
    os << "    const int64_t units = (M / " << mm.gemm.bm << " + G) * helion::rt::cdiv(N, "
       << mm.gemm.bn << ");\n";
  else
    os << "    const int64_t units = helion::rt::cdiv(M, " << mm.gemm.bm
       << ") * helion::rt::cdiv(N, " << mm.gemm.bn << ")" << (batched ? " * B" : "") << ";\n";
  os << "    const int64_t ctas = "
     << (mm.gemm.persistent ? "std::min<int64_t>(units, dev.smCount)" : "units") << ";\n";
  if (grouped) // stream-K (gemm_grouped.cuh): the counters, then an f32 tile per CTA
    streamKWorkspace(os, "    ", "ctas", mm.gemm.bm * mm.gemm.bn * 4);
  os << "    void* args[] = {&mapA, &mapB, &mapC, " << (mm.aStaged >= 0 ? "&mapY, " : "")
     << "&iM, &iN, &iK, &groupM"
     << (batched ? ", &iB" : grouped ? ", &po, &iG, &ws" : "") << epiArgs << "};\n";
  os << "    helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), "
        "helion::rt::Dim3("
     << 128 * (mm.gemm.consumers + 1) << "), static_cast<unsigned>(smem), args, "
        "helion::rt::currentStream());\n";
  os << "  } else {\n";
  os << "    void* pa = const_cast<void*>(static_cast<const void*>(" << a << ".data_ptr()));\n";
  os << "    void* pb = const_cast<void*>(static_cast<const void*>(" << b << ".data_ptr()));\n";
  if (grouped) {
    os << "    int64_t lda = " << a << ".stride(0), ldb = " << b << ".stride(1), sb = " << b
       << ".stride(0);\n";
    os << "    void* args[] = {&pa, &pb, &iM, &iN, &iK, &lda, &ldb, &sb, &groupM, &po, &iG"
       << epiArgs << "};\n";
  } else if (batched) {
    // One grid row per batch (blockIdx.y): at most 65535 of them.
    os << "    HELION_CHECK(B <= 65535, \"" << kn
       << ": the sm80 batched matmul runs at most 65535 batches, got {}\", B);\n";
    os << "    int64_t lda = " << a << ".stride(1), ldb = " << b << ".stride(1);\n";
    os << "    int64_t sa = " << a << ".stride(0), sb = " << b << ".stride(0);\n";
    os << "    void* args[] = {&pa, &pb, &iM, &iN, &iK, &lda, &ldb, &sa, &sb, &groupM" << epiArgs
       << "};\n";
  } else {
    os << "    int64_t lda = " << a << ".stride(0), ldb = " << b << ".stride(0);\n";
    os << "    void* args[] = {&pa, &pb, &iM, &iN, &iK, &lda, &ldb, &groupM" << epiArgs << "};\n";
  }
  if (grouped) // persistent over the groups' tiles (at most M / BM + G rows of tiles)
    os << "    const int64_t tiles = std::min<int64_t>((M / bm80 + G) * helion::rt::cdiv(N, "
          "bn80), dev.smCount);\n";
  else
    os << "    const int64_t tiles = helion::rt::cdiv(M, bm80) * helion::rt::cdiv(N, bn80);\n";
  os << "    helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(tiles)"
     << (batched ? ", static_cast<unsigned>(B)" : "") << "), "
        "helion::rt::Dim3(256), static_cast<unsigned>(smem), args, "
        "helion::rt::currentStream());\n";
  os << "  }\n}\n\n";
  return os.str();
}

} // namespace helion::codegen
