// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/grouped_gemm.cpp --stop-after template-plan | FileCheck %s --check-prefix=PLAN
// RUN: %helionc compile %s --kernel grouped_scaled --stop-after template-plan | FileCheck %s --check-prefix=EPI
// RUN: %helionc compile %s --kernel grouped_bt --stop-after template-plan | FileCheck %s --check-prefix=BT
// RUN: %helionc compile %examples/grouped_gemm.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %s --kernel grouped_scaled --emit cuda | FileCheck %s --check-prefix=NOROWS
// RUN: %helionc compile %examples/grouped_gemm.cpp -o %t
// RUN: FileCheck %s --check-prefix=HOST < %t/grouped_gemm.helion.cpp
// RUN: %helionc compile %examples/grouped_gemm.cpp --emit instantiations --aot-arch sm_90a --dtype bf16,offsets=i32 --dtype f16,out=f32,offsets=i64 --dtype f32,offsets=i32 | FileCheck %s --check-prefix=INST
// RUN: %helionc compile %examples/grouped_gemm.cpp -o %t/aot --aot-arch sm_90a --dtype f16,offsets=i64
// RUN: FileCheck %s --check-prefix=AOT < %t/aot/grouped_gemm.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/aot/grouped_gemm.helion.cpp
// The rows kernel with its stream-K walk fits its registers (the producer's 48 and the
// consumers' 224), for 32- and 64-bit offsets, and ptxas keeps the wgmmas asynchronous
// (no C7510 or C7514: a call or a branch serializes them; 32 tile heights once left the
// kernel's body a called function):
// RUN: env HELIONC_NO_CACHE=1 HELIONC_NVRTC_OPTIONS=--ptxas-options=-v %helionc compile %examples/grouped_gemm.cpp -o %t/ptxas --aot-arch sm_90a --dtype bf16,offsets=i32 --nvrtc-log 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C751
// RUN: env HELIONC_NO_CACHE=1 HELIONC_NVRTC_OPTIONS=--ptxas-options=-v %helionc compile %examples/grouped_gemm.cpp -o %t/ptxas64 --aot-arch sm_90a --dtype f16,offsets=i64 --nvrtc-log 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C751
//
// A grouped GEMM whose epilogue is its one store of the accumulator, of B [G, K, N],
// gets the row-fitting kernel (hd::GemmGroupedRowsSm90, gemm_grouped_rows.cuh) beside
// the BM x BN ones: template-plan marks it (grouped_rows), the emitter prints it, and
// the launcher runs it on sm90 for 16-bit A, B and output of one dtype when groups
// average more than 256 and fewer than 4096 rows (HELIONC_ROW_FITTING=1: also above),
// with A's and C's maps at every box height.
#include <helion/hl.h>

using helion::Tensor;

// An epilogue beyond the store: the BM x BN kernels only.
HELION_KERNEL Tensor grouped_scaled(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total_m, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total_m, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end)) {
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        out[tm, tn] = acc * 2.0f;
      }
    }
  }
  return out;
}

// B as [G, N, K]: the BM x BN kernels only.
HELION_KERNEL Tensor grouped_bt(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total_m, k] = a.shape<2>();
  auto [groups, n, k2] = b.shape<3>();
  Tensor out = helion::empty({total_m, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end)) {
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tn, tk].transpose(0, 1), acc);
        out[tm, tn] = acc;
      }
    }
  }
  return out;
}

// PLAN: template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8 tma_store grouped_rows; sm80
// EPI: template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8 tma_store; sm80
// BT: template: gemm sm90 {{.*}} tma_store; sm80
//
// CUDA: #include "helion/gemm_grouped_rows.cuh"
// CUDA: __global__ void __launch_bounds__(hd::GroupedRowsShape::kThreads, 1) grouped_gemm_kernel_rows(
// CUDA-NEXT: const __grid_constant__ hd::GroupedRowMaps maps__, T_p_out* __restrict__ c__, int64 ldc__, int M__,
// CUDA-NEXT: int N__, int K__, const T_p_offsets* __restrict__ group_offsets__, int groups__,
// CUDA-NEXT: hd::uint8* workspace__) {
// CUDA: static_assert(hd::is_same_v<T_p_a, T_p_out> && (hd::is_same_v<T_p_a, hd::bf16> || hd::is_same_v<T_p_a, hd::f16>)
// CUDA: using G__ = hd::GemmGroupedRowsSm90<T_p_a>;
// CUDA: G__::run(maps__.a, &maps__.b, maps__.c, c__, ldc__, M__, N__, K__, group_offsets__, groups__,
// CUDA-NEXT: true, workspace__, smem__);
// PTXAS: Compiling entry function '_Z24grouped_gemm_kernel_rows
// PTXAS-NEXT: Function properties for _Z24grouped_gemm_kernel_rows
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NOROWS-NOT: grouped_rows
// NOROWS-NOT: _kernel_rows
//
// HOST: {{^}}  const bool fitRows = tmaStore && p_out.dtype() == p_a.dtype() && (p_a.dtype() == helion::DType::bf16 || p_a.dtype() == helion::DType::f16) && M > 256 * G && (M < 4096 * G || helion::rt::rowFittingForced()) && helion::rt::rowFittingEnabled();
// HOST: {{^}}  if (fitRows)
// HOST-NEXT: {{^}}    smem = 232444;
// HOST: {{^}}      std::int64_t(fitRows),
// HOST: {{^}}    std::string name = fitRows ? "grouped_gemm_kernel_rows<" : sm90 ? "grouped_gemm_kernel<" : "grouped_gemm_kernel_sm80<";
// HOST: {{^}}    if (fitRows) {
// A's and C's maps, kept per thread until a tensor changes.
// HOST: {{^}}      thread_local int64_t mapsFor[9] = {};
// HOST-NEXT: {{^}}      thread_local CUtensorMap rowMaps[25];
// HOST: {{^}}      if (!same) {
// HOST-NEXT: {{^}}        mapsFor[0] = -1; // no match until all are made
// HOST-NEXT: {{^}}        for (int i = 0; i < 16; ++i)
// HOST-NEXT: {{^}}          rowMaps[i] = map(p_a, M, K, 16 * (i + 1), boxK);
// HOST-NEXT: {{^}}        for (int i = 0; i < 8; ++i)
// HOST-NEXT: {{^}}          rowMaps[16 + i] = map(p_out, M, N, 16 * (i + 1), 64);
// HOST-NEXT: {{^}}        for (int i = 0; i < 9; ++i)
// HOST-NEXT: {{^}}          mapsFor[i] = mapsKey[i];
// HOST: {{^}}      rowMaps[24] = mapB;
// The stream-K workspace (gemm_grouped_rows.cuh): counters, then a slot per CTA.
// HOST: {{^}}      const int64_t ctas = std::min<int64_t>(units, dev.smCount);
// HOST-NEXT: {{^}}      void* ws = !helion::rt::streamKEnabled() ? nullptr
// HOST-NEXT: {{^}}          : reinterpret_cast<void*>(helion::rt::streamWorkspace(
// HOST-NEXT: {{^}}                helion::rt::currentStream(), 65536 + size_t(ctas) * 131072));
// HOST-NEXT: {{^}}      void* args[] = {rowMaps, &pc, &ldc, &iM, &iN, &iK, &po, &iG, &ws};
// HOST-NEXT: {{^}}      helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), helion::rt::Dim3(384), static_cast<unsigned>(smem), args, helion::rt::currentStream());
// HOST-NEXT: {{^}}      return;
//
// The rows kernel is an instantiation only for 16-bit A with an output of its dtype.
// INST: sm_90a grouped_gemm_kernel<hd::bf16, hd::bf16, hd::int32, hd::bf16, 1>
// INST: sm_90a grouped_gemm_kernel_rows<hd::bf16, hd::bf16, hd::int32, hd::bf16, 1>
// INST-NOT: _rows
// INST: sm_90a grouped_gemm_kernel<hd::f16, hd::f16, hd::int64, float, 1>
// INST-NOT: _rows
// INST: sm_90a grouped_gemm_kernel_sm80<float, float, hd::int32, float, 0>
// INST-NOT: _rows
//
// Compiled by NVRTC for sm_90a and embedded.
// AOT: "sm_90a", "grouped_gemm_kernel_rows<hd::f16, hd::f16, hd::int64, hd::f16, 1>"
