// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/bmm.cpp --emit cuda | FileCheck %s --check-prefix=BMM
// RUN: %helionc compile %examples/bmm.cpp --emit ptx --dtype bf16 | FileCheck %s --check-prefix=BMM-PTX
// RUN: %helionc compile %examples/bmm.cpp --emit ptx --dtype f32 | FileCheck %s --check-prefix=BMM-TF32
// RUN: %helionc compile %examples/bmm.cpp -o %t
// RUN: FileCheck %s --check-prefix=BMM-HOST < %t/bmm.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/bmm.helion.cpp
// RUN: %helionc compile %examples/dot_generic.cpp -o %t
// RUN: %host_cxx -DHELIONC_C_API %t/dot_generic.helion.cpp
// RUN: env HELIONC_GENERAL_DOTS=1 %helionc compile %examples/matmul.cpp --emit cuda | FileCheck %s --check-prefix=FORCED
// RUN: env HELIONC_GENERAL_DOTS=1 %helionc spec %examples/grouped_gemm.cpp | FileCheck %s --check-prefix=FORCED-SPEC
// RUN: %helionc compile %examples/matmul_bias_relu.cpp --emit cuda | FileCheck %s --check-prefix=RELU
// RUN: %helionc compile %examples/dot_generic.cpp --emit cuda | FileCheck %s --check-prefix=GEN
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_chain_t --emit cuda | FileCheck %s --check-prefix=CHAIN
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_loop_a --emit cuda | FileCheck %s --check-prefix=HALF
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_half_a --emit cuda | FileCheck %s --check-prefix=PRO
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_rowscale_a --emit cuda | FileCheck %s --check-prefix=PRO-ROW
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_colscale_a --emit cuda | FileCheck %s --check-prefix=PRO-K
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_product_a --emit cuda | FileCheck %s --check-prefix=PRO-Y
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_product_a -o %t/dk
// RUN: FileCheck %s --check-prefix=PRO-Y-HOST < %t/dk/dot_kernels.helion.cpp
// RUN: %helionc spec %S/../../gpu/dot_kernels.cpp --kernel dot_product_a | FileCheck %s --check-prefix=PRO-Y-SPEC
// RUN: %host_cxx -DHELIONC_C_API %t/dk/dot_kernels.helion.cpp
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_half_a --stop-after template-plan | FileCheck %s --check-prefix=PRO-IR
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_recip_a --emit ptx --dtype bf16 | FileCheck %s --check-prefix=PRO-PTX
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_recip_a --emit ptx --dtype f16 --arch sm_80 | FileCheck %s --check-prefix=PRO-SM80
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_relu_b --emit cuda | FileCheck %s --check-prefix=RELUB
// RUN: echo '{"block_sizes": [16, 8, 8, 8], "num_warps": 2}' > %t.fallback.json
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.fallback.json --emit cuda | FileCheck %s --check-prefix=FB
// RUN: %helionc compile %examples/dot_generic.cpp --emit ptx --dtype bf16 | FileCheck %s --check-prefix=GEN-BF16
// RUN: %helionc compile %examples/dot_generic.cpp --emit ptx --dtype bf16 --arch sm_80 | FileCheck %s --check-prefix=GEN-BF16-SM80
// RUN: %helionc compile %examples/dot_generic.cpp --emit ptx --dtype f32 --arch sm_80 | FileCheck %s --check-prefix=GEN-TF32
// RUN: %helionc spec %examples/dot_generic.cpp | FileCheck %s --check-prefix=GEN-SPEC
// RUN: echo '{"maxnreg": 64}' > %t.cap.json
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.cap.json --emit cuda | FileCheck %s --check-prefix=CAP
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.cap.json --emit ptx --dtype bf16 | FileCheck %s --check-prefix=CAP-PTX
// Which lowering each form of hl::dot takes (docs/gemm.md): a bmm goes to the GEMM
// templates' batched form, a relu epilogue's zero tile is a constant, and chained
// dots take the general lowering (shared memory + mma.sync).

// bmm: Gemm<..., Cluster 1, Batched>, the batch count after groupM; the sm80 kernel's
// batch strides and run_batched (blockIdx.y).
// BMM: tensor-core batched matmul: A = x [B, M, K], B = y [B, K, N]
// BMM: void apply(int64 batch__, int64 row__, int64 col__, float acc__) const {
// BMM: p_out[batch__ * stride_p_out_0 + row__ * stride_p_out_1 + col__ * stride_p_out_2] =
// BMM: int K__, int groupM__, int batches__, T_p_out* __restrict__ p_out,
// BMM: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 4, 2, false, true, TMA_STORE ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs, 1, true>;
// BMM: G__::run(&map_a__, &map_b__, &map_c__, M__, N__, K__, groupM__, epi__, smem__, batches__);
// BMM: int64 lda__, int64 ldb__, int64 stride_a__, int64 stride_b__, int groupM__,
// BMM: G__::run_batched(a__, b__, M__, N__, K__, lda__, ldb__, stride_a__, stride_b__, groupM__, epi__, smem__);
//
// 3-D TMA loads and stores, wgmma; f32 as tf32 on the sm80 kernel, batch = blockIdx.y.
// BMM-PTX: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
// BMM-PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// BMM-PTX: cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
// BMM-TF32: %ctaid.y
// BMM-TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//
// The launcher: 3-D operands holding B batches, 3-D tensor maps, B times the tiles.
// BMM-HOST: const int64_t B = p_b;
// BMM-HOST: if (M <= 0 || N <= 0 || B <= 0) return;
// BMM-HOST: x.dim() == 3, "bmm: tensor 'x' must be a 3-D CUDA tensor");
// BMM-HOST: HELION_CHECK(p_y.size(0) >= B, "bmm: tensor 'y' holds {} batches, the kernel's batch loop runs {}", p_y.size(0), B);
// BMM-HOST: (t.stride(1) * es) % 16 == 0 && (t.stride(0) * es) % 16 == 0;
// BMM-HOST: const bool tmaStore = sm90 && p_out.dim() == 3 && p_out.stride(2) == 1 && p_out.stride(1) == N
// BMM-HOST: d.sizes = {B, rows, cols};
// BMM-HOST: d.strides = {t.stride(0), t.stride(1), 1};
// BMM-HOST: d.box = {1, boxRows, boxCols};
// BMM-HOST: const int64_t units = helion::rt::cdiv(M, 128) * helion::rt::cdiv(N, 256) * B;
// BMM-HOST: void* args[] = {&mapA, &mapB, &mapC, &iM, &iN, &iK, &groupM, &iB,
// BMM-HOST: HELION_CHECK(B <= 65535, "bmm: the sm80 batched matmul runs at most 65535 batches, got {}", B);
// BMM-HOST: int64_t lda = p_x.stride(1), ldb = p_y.stride(1);
// BMM-HOST: void* args[] = {&pa, &pb, &iM, &iN, &iK, &lda, &ldb, &sa, &sb, &groupM,
// BMM-HOST: helion::rt::Dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(B))

// relu(acc + bias): the zero tile is a constant of the accumulator's type.
// RELU: tensor-core matmul: A = x [M, K], B = y [K, N]; epilogue tma_store
// RELU: float v{{[0-9]+}} = float(0.0f);
// RELU: hd::maximum<
// RELU: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 4, 2, false, true, TMA_STORE ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs>;

// Chained dots: one BlockDot per dot and one staging area; each dot stages its
// operands (zeros past the tile ends), multiplies between barriers and reads back.
// The default tiles (64 rows on 4 warps, columns of 8) take the mma layout
// (EmitMmaDot.cpp): tn and th are column axes (lanes % 4, pairs), tm the row axis
// (threads / 4); the loads of dot 0 are copied into shared memory (their lets are
// not emitted), dot 1's A is the activation in registers.
// GEN: #include "helion/dot.cuh"
// GEN: // axis t1: tile tn
// GEN: constexpr int ST_t1 = 1;
// GEN-NEXT: constexpr int V_t1 = 2;
// GEN-NEXT: constexpr int T_t1 = 4;
// GEN: // axis t0: tile tm
// GEN: constexpr int ST_t0 = 4;
// GEN-NEXT: constexpr int V_t0 = 1;
// GEN-NEXT: constexpr int T_t0 = NT / 4;
// GEN: using D0 = hd::MmaDot<T_p_x, T_p_w1, S_t0, S_t2, S_t3, NT, true>;
// GEN-NEXT: constexpr int STAGES = hmax(1, hmin(3, 49152 / D0::kBytes));
// GEN-NEXT: constexpr bool PIPE = STAGES >= 2;
// GEN: using D1 = hd::MmaDot<T_p_x, T_p_w2, S_t0, S_t1, S_t2, NT, false>;
// Dot 1 copies its B early, into a buffer past the ring when that fits.
// GEN: constexpr int EOFF1 = (STAGES * D0::kBytes + 1023) / 1024 * 1024;
// GEN-NEXT: constexpr bool EARLY1 = EOFF1 + D1::kBytes <= 49152;
// GEN-NEXT: constexpr int DOFF1 = EARLY1 ? EOFF1 : 0;
// GEN-NEXT: constexpr int DOT_SMEM = hmax(hmax(STAGES * D0::kBytes, D1::kBytes), EOFF1 + (EARLY1 ? D1::kBytes : 0));
// GEN: for (int64 tb_t2 = int64(0); tb_t2 < end_t2; tb_t2 += 64) {
// GEN: if constexpr (EARLY1) {
// GEN-NEXT: __syncthreads();
// The copies find the tile's first element and its extents once, then add 32-bit
// coordinates times the strides.
// GEN: const auto* tile_src = p_w2 + tb_t2 * stride_p_w2_0 + tb_t1 * stride_p_w2_1;
// GEN-NEXT: const int lim_t2 = X_t2 ? S_t2 : int(hd::minimum<int64>(te_t2 - tb_t2, S_t2));
// GEN-NEXT: const int lim_t1 = X_t1 ? S_t1 : int(hd::minimum<int64>(te_t1 - tb_t1, S_t1));
// GEN: const bool in = c_t2 < lim_t2 && c_t1 < lim_t1;
// GEN-NEXT: D1::copy_b<VA, true, false>(dot_smem + EOFF1, c_t2, c_t1, in ? tile_src + int64(c_t2) * stride_p_w2_0 + int64(c_t1) * stride_p_w2_1 : p_w2, in);
// Dot 0 is pipelined over its K loop (num_stages 3): the copies of the first STAGES - 1
// tiles before the loop, then in each iteration, after the barrier, the copies of the
// tile STAGES - 1 ahead into the buffer the previous tile read (cp.async, a ring).
// GEN-NOT: T_p_x v{{[0-9]+}}__t0[E_
// GEN: int pipe_stage = 0;
// GEN: for (int s = 0; s < STAGES - 1; ++s) {
// GEN: const int64 tb_t3 = int64(0) + int64(s) * 32;
// GEN: { // A of D0: p_x, copied by all threads
// GEN: D0::copy_a<VA, true, false>(dot_smem + (s) * D0::kBytes, c_t0, c_t3, in ? tile_src + int64(c_t0) * stride_p_x_0 + int64(c_t3) * stride_p_x_1 : p_x, in);
// GEN: hd::cp_async_commit();
// GEN: for (int64 tb_t3 = int64(0); tb_t3 < end_t3; tb_t3 += 32) {
// GEN: hd::cp_async_wait<hmax(STAGES - 2, 0)>();
// GEN-NEXT: D0::publish();
// GEN-NEXT: __syncthreads();
// GEN: const int64 next_t3 = tb_t3 + int64(STAGES - 1) * 32;
// GEN: D0::copy_b<VA, true, false>(dot_smem + ((pipe_stage + STAGES - 1) % STAGES) * D0::kBytes, c_t3, c_t2,
// GEN: hd::cp_async_commit();
// On sm_90a the warpgroups run the dot as wgmma on the same registers (MmaDot::kWgmma),
// the accumulators moved into the wgmma order and back; else mma.sync per warp.
// GEN: if constexpr (D0::kWgmma) {
// GEN-NEXT: float wd[E_t0 / 2][S_t2 / 2];
// GEN: wd[f][4 * j + 2 * h] = v5__t2[2 * j][2 * f + h];
// GEN: D0::wgmma(wd, dot_smem + pipe_stage * D0::kBytes);
// GEN: v5__t2[2 * j][2 * f + h] = wd[f][4 * j + 2 * h];
// GEN: } else {
// GEN: D0::load_a(af[f], dot_smem + pipe_stage * D0::kBytes, 2 * f * T_t0 + row8, (2 * f + 1) * T_t0 + row8, ks, lane);
// GEN: D0::load_b2(bf, dot_smem + pipe_stage * D0::kBytes, ks, np * 16, lane);
// GEN: D0::mma(v5__t2[4 * np][2 * f], v5__t2[4 * np + 1][2 * f], v5__t2[4 * np][2 * f + 1], v5__t2[4 * np + 1][2 * f + 1], af[f], bf[0], bf[1]);
// GEN-NOT: __syncthreads
// GEN: if constexpr (PIPE) pipe_stage = pipe_stage + 1 == STAGES ? 0 : pipe_stage + 1;
// GEN: if constexpr (EARLY1) {
// GEN-NEXT: hd::cp_async_wait<0>();
// GEN-NEXT: D1::publish();
// GEN-NEXT: __syncthreads();
// GEN: hd::uint32 afr[D1::kKSteps][E_t0 / 2][4];
// GEN: ae[h][j] = (X_t2 || tb_t2 + c_t2 < te_t2) ? float(v2_act[i_t2][i_t0]) : 0.f;
// GEN: D1::pack_a(afr[ks][f], ae);
// GEN: D1::wgmma(wd, dot_smem + DOFF1, afr);
// GEN: ae[h][j] = (X_t2 || tb_t2 + c_t2 < te_t2) ? float(v2_act[i_t2][i_t0]) : 0.f;
// GEN: D1::pack_a(af[f], ae);
// A B read through .transpose of a [N, K] tensor is staged as [N][K] (B_NK): its
// rows copy as cp.async vectors; the second dot's A is the cast first result.
// CHAIN: using D0 = hd::MmaDot<T_p_q, T_p_kt, S_t0, S_t2, S_t3, NT, true, true>;
// CHAIN: using D1 = hd::MmaDot<T_p_q, T_p_v, S_t0, S_t1, S_t2, NT, false>;
// CHAIN: D0::copy_b<VA, true, true>(dot_smem + ((pipe_stage + STAGES - 1) % STAGES) * D0::kBytes, c_t3, c_t2, in ? tile_src + int64(c_t3) * stride_p_kt_1 + int64(c_t2) * stride_p_kt_0 : p_kt, in);
// CHAIN: D1::pack_a(af[f], ae);
// A computed from its load (F(x[tm, tk]), F pointwise): the GEMM templates' A
// prologue, F printed once without its final cast (the template rounds to A's type).
// PRO: A computed from its load: the functor's prologue_a
// PRO: struct dot_half_a_epilogue {
// PRO: static constexpr bool kPrologueA = true;
// PRO-NEXT: __device__ __forceinline__ float prologue_a(int64 row__, int64 k__, float a_elem__) const {
// PRO-NEXT: return float((hd::compute_t<T_p_x>(a_elem__) * hd::compute_t<T_p_x>(0.5f)));
// PRO: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256,
// PRO: using G__ = hd::GemmSm80<T_p_x,
// Vectors in F are functor fields: one along A's rows is read at the element's row
// (rows past M read row M - 1), one along K at its k (the template keeps k below K).
// PRO-ROW: const T_p_s* __restrict__ p_s;
// PRO-ROW: prologue_a(int64 row__, int64 k__, float a_elem__) const {
// PRO-ROW-NEXT: (hd::to_compute(p_s[(row__ < M__ ? row__ : M__ - 1) * stride_p_s_0]))));
// PRO-K: const T_p_s* __restrict__ p_s;
// PRO-K: prologue_a(int64 row__, int64 k__, float a_elem__) const {
// PRO-K-NEXT: (hd::to_compute(p_s[k__ * stride_p_s_0]))));
// PRO-K: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256,
// A second tensor at A's subscripts, read per element at the clamped row and k.
// PRO-Y: const T_p_y* __restrict__ p_y;
// PRO-Y: prologue_a(int64 row__, int64 k__, float a_elem__) const {
// PRO-Y-NEXT: (a_elem__) * {{.*}}(hd::to_compute(p_y[(row__ < M__ ? row__ : M__ - 1) * stride_p_y_0 + k__ * stride_p_y_1]))
// On sm90 y is staged beside A by TMA when of A's dtype: its element comes in as y_elem.
// PRO-Y: prologue_ay(int64 row__, int64 k__, float a_elem__, float y_elem__) const {
// PRO-Y-NEXT: (a_elem__) * {{.*}}(y_elem__)
// PRO-Y: const __grid_constant__ hd::TensorMap map_c__, const __grid_constant__ hd::TensorMap map_y__, int M__
// PRO-Y: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 3, 2, false, true, TMA_STORE ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs, 1, false, hd::is_same_v<T_p_x, T_p_y>>;
// PRO-Y: G__::run(&map_a__, &map_b__, &map_c__, M__, N__, K__, groupM__, epi__, smem__, 1, &map_y__);
// The spec says what num_stages does with the staged block.
// PRO-Y-SPEC: num_stages              2 or more, as many as fit in 227 KB
// PRO-Y-SPEC-NEXT: (with its A prologue's tensor staged beside A on sm90, a third block per stage: the sm90 ring is as deep as fits, at most num_stages; 128 x 256: 3)
// The launcher stages y when it has A's dtype and TMA can read it, else runs sm80.
// PRO-Y-HOST: bool sm90 = dev.major == 9 && !tf32;
// PRO-Y-HOST: const bool yStaged = sm90 && p_y.dtype() == p_x.dtype();
// PRO-Y-HOST: if (yStaged && !(p_y.dim() == 2 && tmaReady(p_y)))
// PRO-Y-HOST-NEXT: sm90 = false;
// The ring with y's third block per stage or without; tma_store's slices for each (the
// staged ring leaves room for a quarter of an f32 tile, half of a 16-bit one).
// PRO-Y-HOST: const int64_t ring = yStaged ? 197680 : 148528;
// PRO-Y-HOST-NEXT: const int64_t parts = yStaged ? (int64_t(p_out.element_size()) == 4 ? 4 : int64_t(p_out.element_size()) == 2 ? 2 : 1) : (int64_t(p_out.element_size()) == 4 ? 2 : int64_t(p_out.element_size()) == 2 ? 1 : 1);
// PRO-Y-HOST: CUtensorMap mapY = yStaged ? map(p_y, M, K, 128, boxK) : mapA;
// PRO-Y-HOST: void* args[] = {&mapA, &mapB, &mapC, &mapY, &iM, &iN, &iK, &groupM
// PRO-IR: matmul: a %x, b %w, acc %acc.0, tiles [tm, tn], k loop tk, a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], 0.5)), epilogue 2
// PRO-IR: template: gemm sm90 128x256
// sm_90a: each warp loads its A fragments from the stage (ldmatrix), applies the
// prologue in registers and issues register-A wgmmas (the next block's fragments
// loaded while they run); sm_80 transforms the mma.sync A fragments the same way.
// PRO-PTX: .entry _Z{{[0-9]+}}dot_recip_a_kernelI
// PRO-PTX: mbarrier.try_wait
// PRO-PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PRO-PTX: rcp.rn.f32
// PRO-PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd
// PRO-PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PRO-PTX: wgmma.wait_group.sync.aligned 0;
// PRO-SM80: .entry _Z{{[0-9]+}}dot_recip_a_kernel_sm80I
// PRO-SM80: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PRO-SM80: rcp.rn.f32
// PRO-SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PRO-SM80-NOT: wgmma
// A computed A the templates do not take (a product of two loads) stays in registers: its load moves pairs along the K (column) axis when VEC allows, element
// by element otherwise; the store of the result likewise.
// HALF: using D0 = hd::MmaDot<T_p_x, T_p_w, S_t0, S_t1, S_t2, NT, false>;
// HALF: if constexpr (VEC >= 2) {
// HALF: const hvec<T_p_x, V_t2> h =
// HALF: } else {
// HALF: D0::pack_a(af[f], ae);
// HALF: if constexpr (VEC >= 2) {
// HALF: *reinterpret_cast<hvec<T_p_out, V_t1>*>(p_out + o_t1) = h;
// A computed B is written into shared memory by the threads that hold it.
// RELUB: using D0 = hd::MmaDot<T_p_x, T_p_w, S_t0, S_t1, S_t2, NT, true>;
// RELUB: D0::put_b1(dot_smem, c_t2, c_t1,
// RELUB: D0::load_b2(bf, dot_smem, ks, np * 16, lane);
// Rows that are not 16 per warp: the shared-memory fallback (EmitDot.cpp).
// FB: using D0 = hd::BlockDot<T_p_x, T_p_w1, S_t0, S_t2, S_t3>;
// FB: using D1 = hd::BlockDot<T_p_x, T_p_w2, S_t0, S_t1, S_t2>;
// FB: constexpr int DOT_SMEM = hmax(D0::kBytes, D1::kBytes);
// FB: __shared__ __align__(1024) hd::uint8 dot_smem[DOT_SMEM];
// FB: __syncthreads(); // the staging area is free
// FB-NEXT: D0::zero_padding(dot_smem, threadIdx.x, NT);
// FB: D0::set_a(dot_smem, c_t0, c_t3, ((X_t0 || tb_t0 + c_t0 < te_t0) && (X_t3 || tb_t3 + c_t3 < te_t3) ?
// FB: D0::set_b(dot_smem, c_t3, c_t2,
// FB: __syncthreads();
// FB-NEXT: D0::mma(dot_smem, threadIdx.x, NT);
// FB-NEXT: __syncthreads();
// FB: = float(D0::get_c(dot_smem, c_t0, c_t2) + v1_hidden[i_t0][i_t2]);
// FB: D1::set_a(dot_smem, c_t0, c_t2,
// FB: D1::mma(dot_smem, threadIdx.x, NT);
// FB: = float(D1::get_c(dot_smem, c_t0, c_t1) + v0_acc[i_t1][i_t0]);
// sm_90a: both dots as wgmma (the first from shared memory: x K-major without swizzle,
// w1 N-major; the second with the activation in registers), each after a proxy fence
// and without mma.sync; sm_80: mma.sync.
// GEN-BF16-NOT: mma.sync
// GEN-BF16: fence.proxy.async.shared::cta
// GEN-BF16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// GEN-BF16: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// GEN-BF16-NOT: mma.sync
// GEN-BF16-SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// GEN-BF16-SM80-NOT: wgmma
// Under a register cap (maxnreg, or launch bounds asking for several blocks per SM) a
// dot runs as wgmma only where its accumulators and 32 more registers fit the cap
// (ptxas refuses a wgmma it cannot allocate): with 64, the 64-column first dot (32
// accumulators per thread) does, the 128-column second one runs mma.sync.
// CAP: __global__ __maxnreg__(64) void mlp_relu_kernel(
// CAP: constexpr int REG_CAP = 64;
// CAP-NEXT: general hl::dot #0
// CAP-NEXT: using D0 = hd::MmaDot<T_p_x, T_p_w1, S_t0, S_t2, S_t3, NT, true, false, REG_CAP>;
// CAP: using D1 = hd::MmaDot<T_p_x, T_p_w2, S_t0, S_t1, S_t2, NT, false, false, REG_CAP>;
// CAP-PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CAP-PTX-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// CAP-PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// GEN-TF32: cvt.rna.tf32.f32
// GEN-TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//
// The general lowering's kernels have the generic keys with the general dot's defaults
// (grid tiles 64 then 128, the first inner tile 64, the others 32, 4 warps, 3 stages),
// not the matmul template's rules.
// GEN-SPEC-NOT: tensor-core matmul (hl::dot) restrictions
// GEN-SPEC: {"block_sizes": [64, 128, 64, 32], "loop_orders": {{\[\[0, 1\]\]}}, "l2_groupings": [1], "range_unroll_factors": [0, 0], "num_warps": 4, "num_stages": 3, "pid_type": "flat", "num_sm_multiplier": 1, "indexing": "pointer", "load_eviction_policies": ["", "", ""], "vector_bytes": 0}

// bmm with B read as [B, N, K] (x @ y^T per batch): BTransposed, 3-D map of y as
// {B, N, K}; and a bias by column in the batched epilogue.
// RUN: %helionc compile %s --kernel bmm_bt --emit cuda | FileCheck %s --check-prefix=BT
// RUN: %helionc compile %s --kernel bmm_bt --emit host | FileCheck %s --check-prefix=BT-HOST
// RUN: %helionc compile %s --kernel bmm_bt --emit cubin --dtype bf16 -o %t/bt
// RUN: %helionc compile %s --kernel bmm_bt --emit cubin --dtype bf16 --arch sm_80 -o %t/bt80
// BT: tensor-core batched matmul: A = x [B, M, K], B = y [B, N, K]
// BT: hd::to_compute(p_bias[batch__ * stride_p_bias_0 + (col__ < N__ ? col__ : N__ - 1) * stride_p_bias_1])
// BT: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 4, 2, true, true,
// BT-HOST: CUtensorMap mapB = map(p_y, N, K, 256, boxK);
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor bmm_bt(const Tensor& x, const Tensor& y, const Tensor& bias) {
  auto [b, m, k] = x.shape<3>();
  auto n = y.size(1);
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tb, tm, tk], y[tb, tn, tk].transpose(1, 2), acc);
    out[tb, tm, tn] = acc + bias[tb, tn][hl::all, hl::newaxis, hl::all];
  }
  return out;
}

// A load of a tensor the kernel also writes is not copied at the dot (the copy would
// read it where the dot is, after the let): its let stays, the operand is staged by
// the threads that hold it.
// RUN: %helionc compile %s --kernel dot_writes_x --emit cuda | FileCheck %s --check-prefix=WRITES
// WRITES: general hl::dot #0 (EmitMmaDot.cpp): mma.sync (wgmma on sm_90a) on register fragments; A staged, B staged
// WRITES: D0::put_a1(dot_smem, c_t0, c_t2,
HELION_KERNEL void dot_writes_x(Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto n = w.size(1);
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto b = hl::maximum(w[tk, tn], hl::zeros({tk, tn}, hl::f32)).to(w.dtype());
      acc = hl::dot(x[tm, tk], b, acc);
    }
    x[tm, tn] = acc;
  }
}

// HELIONC_GENERAL_DOTS=1 puts every dot on the general lowering, templates or not (to
// measure it against them): the matmul's dot is an MmaDot, and the grouped GEMM has the
// generic kernels' keys.
// FORCED-NOT:  hd::Gemm<
// FORCED:      using D0 = hd::MmaDot<T_p_x, T_p_y,
// FORCED-NOT:  hd::Gemm<
// FORCED-SPEC: range_unroll_factors
