//===- EmitGroupedMatmul.cpp - The kernels of a grouped GEMM ---------------===//
//
// A grouped GEMM (lib/Transforms/RecognizeGroupedMatmul.cpp) is one instantiation of
// hd::GemmGroupedSm90 (TMA + wgmma) and one of hd::GemmGroupedSm80 (cp.async +
// mma.sync; f32 operands as tf32 on every GPU), both from
// runtime/device/helion/gemm_grouped.cuh, with the matmul's epilogue functor
// (EmitMatmul.cpp) called with the group first. Both kernels are persistent: the
// launcher gives them a grid of one CTA per SM and they walk the tiles of all
// groups, whose sizes only the device reads (from the offsets tensor).
//
//   sm90: (map_a {M, K}, map_b {G, K, N}, map_c {M, N}, M, N, K, groupM,
//          offsets, groups, sk_workspace (stream-K: helion::rt::streamWorkspace, or
//          null), epilogue fields...)
//   sm80: (a, b, M, N, K, lda, ldb, stride_b, groupM, offsets, groups,
//          epilogue fields...)
//   rows (GemmParams::groupedRows; hd::GemmGroupedRowsSm90, gemm_grouped_rows.cuh):
//         (maps: hd::GroupedRowMaps, c, ldc, M, N, K, offsets, groups, workspace); no
//         functor.
//===----------------------------------------------------------------------===//
#include "EmitMatmul.h"

namespace helion::codegen {
namespace {

std::string offsetsAssert(const GroupedKernelParts& k) {
  return "  static_assert(hd::is_same_v<" + k.tOffsets + ", hd::int32> || hd::is_same_v<" +
         k.tOffsets + ", hd::int64>, \"helionc: the offsets of a grouped matmul must be int32 or "
         "int64\");\n";
}

} // namespace

void emitGroupedSm90(std::ostream& os, const GroupedKernelParts& k) {
  const MatmulPlan& p = k.plan;
  const std::string g = "hd::GemmGroupedSm90<" + k.tIn + ", " + k.tOut + ", " +
                        std::to_string(p.gemm.bm) + ", " + std::to_string(p.gemm.bn) + ", " +
                        std::to_string(p.gemm.stages) + ", " + std::to_string(p.gemm.consumers) + ", " +
                        (p.bTransposed ? "true" : "false") +
                        ", " + tmaStoreForm(k.tOut, p.gemm.bn) + ">";
  os << "/// sm_90a: TMA + wgmma over the tiles of all groups, " << p.gemm.consumers
     << " consumer warpgroup(s) + 1 producer, persistent.\n";
  os << "template <" << k.templateParams << ">\n__global__ void __launch_bounds__("
     << 128 * (p.gemm.consumers + 1) << ", 1) " << k.sm90Name
     << "(\n    const __grid_constant__ hd::TensorMap map_a__, const __grid_constant__ "
        "hd::TensorMap map_b__,\n    const __grid_constant__ hd::TensorMap map_c__, "
        "int M__, int N__, int K__, int groupM__,\n    const "
     << k.tOffsets << "* __restrict__ group_offsets__, int groups__, hd::uint8* sk_workspace__"
     << k.args << ") {\n";
  os << k.asserts90 << offsetsAssert(k);
  os << "  using G__ = " << g << ";\n";
  os << "  extern __shared__ __align__(1024) hd::uint8 smem__[];\n";
  os << "  hd::check_dynamic_smem(G__::kSmemBytes); // the launcher sized it on its own\n";
  os << k.epilogueInit;
  os << "  G__::run(&map_a__, &map_b__, &map_c__, M__, N__, K__, groupM__, group_offsets__, "
        "groups__,\n        sk_workspace__, epi__, smem__);\n"
        "}\n\n";
}

void emitGroupedRowsSm90(std::ostream& os, const GroupedKernelParts& k,
                         const std::string& name) {
  os << "/// sm_90a: row tiles fitted to each group (up to 256 rows, 128 columns), the\n"
        "/// accumulator stored as is; 16-bit A, B and output, persistent.\n";
  os << "template <" << k.templateParams << ">\n__global__ void __launch_bounds__("
     << "hd::GroupedRowsShape::kThreads, 1) " << name
     << "(\n    const __grid_constant__ hd::GroupedRowMaps maps__, " << k.tOut
     << "* __restrict__ c__, int64 ldc__, int M__,\n    int N__, int K__, const " << k.tOffsets
     << "* __restrict__ group_offsets__, int groups__,\n    hd::uint8* workspace__) {\n";
  os << k.asserts90 << offsetsAssert(k);
  os << "  static_assert(hd::is_same_v<" << k.tIn << ", " << k.tOut << "> && (hd::is_same_v<"
     << k.tIn << ", hd::bf16> || hd::is_same_v<" << k.tIn
     << ", hd::f16>), \"helionc: the row-fitting grouped kernel takes bf16 or f16 A, B and "
        "output of one dtype\");\n";
  os << "  using G__ = hd::GemmGroupedRowsSm90<" << k.tIn << ">;\n";
  os << "  extern __shared__ __align__(1024) hd::uint8 smem__[];\n";
  os << "  hd::check_dynamic_smem(G__::kSmemBytes); // the launcher sized it on its own\n";
  os << "  G__::run(maps__.a, &maps__.b, maps__.c, c__, ldc__, M__, N__, K__, group_offsets__, "
        "groups__,\n        true, workspace__, smem__);\n"
        "}\n\n";
}

void emitGroupedSm80(std::ostream& os, const GroupedKernelParts& k) {
  const MatmulPlan& p = k.plan;
  const Tf32Tile t = tf32Tile(p.gemm.sm80Bm, p.gemm.sm80Bn);
  auto pick = [](int tf32, int other) {
    return tf32 == other ? std::to_string(other)
                         : "kTf32__ ? " + std::to_string(tf32) + " : " + std::to_string(other);
  };
  const std::string g = "hd::GemmGroupedSm80<" + k.tIn + ", " + pick(t.bm, p.gemm.sm80Bm) + ", " +
                        pick(t.bn, p.gemm.sm80Bn) + ", kTf32__ ? 32 : 64, " +
                        pick(t.stages, p.gemm.sm80Stages) + ", " +
                        (p.bTransposed ? "true" : "false") + ">";
  os << "/// sm_80+: cp.async + ldmatrix + mma.sync over the tiles of all groups (the fallback;\n"
        "/// epilogue form pairs), and f32 operands on every GPU as tf32 (mma.sync m16n8k8).\n";
  os << "template <" << k.templateParams << ">\n__global__ void __launch_bounds__(256, 1) "
     << k.sm80Name << "(\n    const " << k.tIn << "* __restrict__ a__, const " << k.tIn
     << "* __restrict__ b__, int M__, int N__, int K__, int64 lda__, int64 ldb__, "
        "int64 stride_b__,\n    int groupM__, const "
     << k.tOffsets << "* __restrict__ group_offsets__, int groups__" << k.args << ") {\n";
  os << k.asserts80 << offsetsAssert(k);
  os << "  constexpr bool kTf32__ = hd::is_same_v<" << k.tIn << ", float>;\n";
  os << "  using G__ = " << g << ";\n";
  os << "  extern __shared__ __align__(128) hd::uint8 smem__[];\n";
  os << k.epilogueInit;
  os << "  G__::run(a__, b__, M__, N__, K__, lda__, ldb__, stride_b__, groupM__, "
        "group_offsets__, groups__, epi__, smem__);\n"
        "}\n\n";
}

} // namespace helion::codegen
