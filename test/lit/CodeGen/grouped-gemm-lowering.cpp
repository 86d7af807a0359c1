// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/grouped_gemm.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %examples/grouped_gemm.cpp --emit ptx --dtype bf16,offsets=i32 | FileCheck %s --check-prefix=PTX
// RUN: %helionc compile %examples/grouped_gemm.cpp --emit ptx --dtype f32,offsets=i64 --arch sm_80 | FileCheck %s --check-prefix=TF32
// RUN: %helionc compile %examples/grouped_gemm.cpp -o %t
// RUN: FileCheck %s --check-prefix=HOST < %t/grouped_gemm.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/grouped_gemm.helion.cpp
// RUN: %helionc spec %examples/grouped_gemm.cpp | FileCheck %s --check-prefix=SPEC
// examples/grouped_gemm.cpp (a grid over groups, a row loop between loaded offsets, a
// column loop, a K loop with one dot) is the matmul template's grouped form
// (docs/gemm.md): hd::GemmGroupedSm90 / GemmGroupedSm80 with the matmul's epilogue
// functor, called with the group first; a persistent launch over all groups' tiles.

// CUDA: tensor-core grouped matmul: A = a [M, K] (G groups of rows, offsets offsets), B = b [G, K, N]; epilogue tma_store (TMA_STORE = 1) or pairs
// CUDA: #include "helion/gemm_grouped.cuh"
// CUDA: void apply(int64 batch__, int64 row__, int64 col__, float acc__) const {
// CUDA: p_out[row__ * stride_p_out_0 + col__ * stride_p_out_1] = hd::from_compute<T_p_out>(v{{[0-9]+}});
// CUDA: float transform(int64 batch__, int64 row__, int64 col__, float acc__) const {
// CUDA: int K__, int groupM__,
// CUDA-NEXT: const T_p_offsets* __restrict__ group_offsets__, int groups__, hd::uint8* sk_workspace__, T_p_out* __restrict__ p_out,
// CUDA: static_assert(hd::is_same_v<T_p_offsets, hd::int32> || hd::is_same_v<T_p_offsets, hd::int64>, "helionc: the offsets of a grouped matmul must be int32 or int64");
// CUDA: using G__ = hd::GemmGroupedSm90<T_p_a, T_p_out, 128, 256, 4, 2, false, TMA_STORE ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs>;
// CUDA: G__::run(&map_a__, &map_b__, &map_c__, M__, N__, K__, groupM__, group_offsets__, groups__,
// CUDA-NEXT: sk_workspace__, epi__, smem__);
// CUDA: int64 lda__, int64 ldb__, int64 stride_b__,
// CUDA-NEXT: int groupM__, const T_p_offsets* __restrict__ group_offsets__, int groups__,
// CUDA: using G__ = hd::GemmGroupedSm80<T_p_a, 128, kTf32__ ? 128 : 256, kTf32__ ? 32 : 64, 4, false>;
// CUDA: G__::run(a__, b__, M__, N__, K__, lda__, ldb__, stride_b__, groupM__, group_offsets__, groups__, epi__, smem__);
//
// sm_90a: A by 2-D TMA boxes, B by 3-D ones (one group deep), wgmma, C by 2-D TMA
// stores (whole boxes inside a group) and st.global (the rows at a group's end).
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PTX-DAG: st.global.u16
// Stream-K: the warp's tile count, the arrival count and its broadcast, the partials.
// PTX-DAG: redux.sync.add.u32
// PTX-DAG: atom.global.add.u32
// PTX-DAG: bar.red.or.pred
// PTX-DAG: ld.global.cg.v4.f32
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//
// The launcher: M from A's rows, G from the group loop, the offsets checked; B as a
// 3-D map, A and C 2-D; a persistent grid of at most #SMs over a bound of the tiles.
// HOST: const int64_t M = p_a.size(0), N = p_n, K = p_k;
// HOST: const int64_t G = p_groups;
// HOST: if (M <= 0 || N <= 0 || G <= 0) return;
// HOST: b.dim() == 3, "grouped_gemm: tensor 'b' must be a 3-D CUDA tensor");
// HOST: HELION_CHECK(p_b.size(0) >= G, "grouped_gemm: tensor 'b' holds {} groups, the kernel's group loop runs {}", p_b.size(0), G);
// HOST: p_offsets.dim() == 1 && p_offsets.size(0) >= G + 1 && p_offsets.stride(0) == 1 && (p_offsets.dtype() == helion::DType::i32 || p_offsets.dtype() == helion::DType::i64)
// HOST: const bool tmaStore = sm90 && p_out.dim() == 2 && p_out.stride(1) == 1 && p_out.stride(0) == N
// HOST: static_cast<std::int64_t>(p_offsets.dtype()),
// HOST: if (t.dim() == 3) {
// HOST-NEXT: d.sizes = {G, rows, cols};
// HOST: const int32_t boxK = static_cast<int32_t>(128 / p_a.element_size());
// HOST-NEXT: CUtensorMap mapA = map(p_a, M, K, 128, boxK);
// HOST-NEXT: CUtensorMap mapB = map(p_b, K, N, 64, 64);
// HOST: const int64_t units = (M / 128 + G) * helion::rt::cdiv(N, 256);
// HOST-NEXT: const int64_t ctas = std::min<int64_t>(units, dev.smCount);
// HOST-NEXT: void* ws = !helion::rt::streamKEnabled() ? nullptr
// HOST-NEXT: : reinterpret_cast<void*>(helion::rt::streamWorkspace(
// HOST-NEXT: helion::rt::currentStream(), 65536 + size_t(ctas) * 131072));
// HOST-NEXT: void* args[] = {&mapA, &mapB, &mapC, &iM, &iN, &iK, &groupM, &po, &iG, &ws,
// HOST: int64_t lda = p_a.stride(0), ldb = p_b.stride(1), sb = p_b.stride(0);
// HOST-NEXT: void* args[] = {&pa, &pb, &iM, &iN, &iK, &lda, &ldb, &sb, &groupM, &po, &iG,
// HOST: const int64_t tiles = std::min<int64_t>((M / bm80 + G) * helion::rt::cdiv(N, bn80), dev.smCount);
//
// The spec: tm and tn are the template's output tiles (the matmul's ranges), no
// l2_groupings, pid_type persistent_interleaved only.
// SPEC: [0] tm powers of two in [64, 256] default 128
// SPEC-NEXT: [1] tn powers of two in [64, 256] default 256
// SPEC-NEXT: [2] tk powers of two in [64, 64] default 64
// SPEC: pid_type how program ids map to tiles: persistent_interleaved; default persistent_interleaved
// SPEC: pid_type persistent_interleaved only: a grouped GEMM is persistent (grid = #SMs; the tiles per group are known on the device only), tiles of each group in groupM 8 order
// SPEC: default config:
// SPEC-NEXT: {"block_sizes": [128, 256, 64], "num_warps": 12, "num_stages": 4, "pid_type": "persistent_interleaved", "indexing": "tensor_descriptor"}
