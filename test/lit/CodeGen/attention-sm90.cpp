// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"block_sizes": [128, 128], "num_warps": 12, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "flat"}' > %t/c2.json
// RUN: %helionc compile %examples/attention.cpp --config %t/c2.json --emit cuda | FileCheck %s --check-prefix=C2
// RUN: echo '{"block_sizes": [64, 64], "num_warps": 8, "num_stages": 4, "indexing": "tensor_descriptor", "pid_type": "xyz"}' > %t/c1.json
// RUN: %helionc compile %examples/attention.cpp --config %t/c1.json --emit cuda | FileCheck %s --check-prefix=C1
// RUN: %helionc compile %examples/attention.cpp --config %t/c2.json -o %t/out
// RUN: FileCheck %s --check-prefix=HOST < %t/out/attention.helion.cpp
// RUN: %host_cxx %t/out/attention.helion.cpp
// RUN: %helionc compile %examples/attention.cpp --emit cuda | FileCheck %s --check-prefix=C2
// RUN: %helionc compile %examples/attention.cpp --emit cuda | FileCheck %s --check-prefix=DEFAULT
// RUN: %helionc compile %examples/attention.cpp -o %t/default
// RUN: FileCheck %s --check-prefix=PERSISTENT < %t/default/attention.helion.cpp
// RUN: echo '{"block_sizes": [192, 128], "num_warps": 16, "num_stages": 2, "indexing": "tensor_descriptor", "pid_type": "persistent_interleaved"}' > %t/c3.json
// RUN: %helionc compile %examples/attention.cpp --config %t/c3.json --emit cuda | FileCheck %s --check-prefix=C3
// RUN: %helionc compile %examples/attention.cpp --config %t/c2.json --emit ptx --dtype bf16 --specialize 128 | FileCheck %s --check-prefix=PTX90
// RUN: %helionc compile %examples/attention.cpp --config %t/c2.json --emit ptx --dtype f16 --arch sm_80 | FileCheck %s --check-prefix=PTX80
// The default config (DefaultConfig.cpp) is c2.json with pid_type persistent_interleaved. Every indexing entry
// tensor_descriptor selects hd::AttentionSm90 (TMA + wgmma,
// AttentionRules.cpp): BM = 64 x consumer warpgroups, num_warps = 4 x (1 + consumers).
// The source keeps an AttentionSm80 kernel (the default sm80 config) that the
// launcher takes off compute capability 9.x and that --arch sm_80 compiles.

// C2: AttentionSm80 BM 128, BN 64, 4 warps x 2 m16 tiles (fallback off sm_90)
// C2: // sm_90a: AttentionSm90 BM 128, BN 128, 2 consumer warpgroup(s) + 1 producer, 2 k/v stages
// C2: #include "helion/attention_sm90.cuh"
// C2: struct attention_score {
// C2: struct attention_epilogue {
// C2: __global__ void __launch_bounds__(384, 1) attention_kernel(
// C2-NEXT: const __grid_constant__ hd::TensorMap map_q__, const __grid_constant__ hd::TensorMap map_k__,
// C2-NEXT: const __grid_constant__ hd::TensorMap map_v__, int M__, int N__, int B__, int* tile_counter__,
// C2-NEXT: const __grid_constant__ hd::TensorMap map_o__, int tma_o__, double p_scale, T_p_out* __restrict__ p_out,
// C2: using A__ = hd::AttentionSm90<T_p_q, p_d, 128, 2, 2, T_p_out>;
// C2: hd::check_dynamic_smem(A__::kSmemBytes);
// C2: A__::run(&map_q__, &map_k__, &map_v__, M__, N__, B__, score__, epi__, smem__,
// C2-NEXT: tile_counter__, tma_o__ ? &map_o__ : nullptr);
// C2: __global__ void __launch_bounds__(128, 1) attention_kernel_sm80(
// C2: using A__ = hd::AttentionSm80<T_p_q, p_d, 64, 4, 2>;

// C1: // sm_90a: AttentionSm90 BM 64, BN 64, 1 consumer warpgroup(s) + 1 producer, 4 k/v stages
// C1: __global__ void __launch_bounds__(256, 1) attention_kernel(
// C1: using A__ = hd::AttentionSm90<T_p_q, p_d, 64, 1, 4, T_p_out>;
// DEFAULT: // sm_90a: AttentionSm90 BM 128, BN 128, 2 consumer warpgroup(s) + 1 producer, 2 k/v stages, persistent

// Three consumers: 192 rows (the one block size off the powers of two), 16 warps.
// C3: // sm_90a: AttentionSm90 BM 192, BN 128, 3 consumer warpgroup(s) + 1 producer, 2 k/v stages, persistent
// C3: __global__ void __launch_bounds__(512, 1) attention_kernel(
// C3: using A__ = hd::AttentionSm90<T_p_q, p_d, 128, 3, 2, T_p_out>;

// The launcher: sm90 only on a 9.x device; 3-D tensor maps [b, seq, d] with boxes
// {1, rows, 64}; shared memory AttentionSm90::kSmemBytes per head dim (d 64:
// 1024 + 128 x 64 x 2 + 2 x 2 x 128 x 64 x 2 + 8 x 11 = 83032), plus the output's
// staging for TMA stores by its element size (2 consumers x 64 rows x d: at d 64, none
// for 1-byte elements, whose 64 columns do not fill a 128-byte box; at d 128 with
// 4-byte elements 164952 + 65536 = 230488 still fits 227 KB).
// HOST: const bool sm90 = dev.major == 9;
// HOST: const int64_t outBytes = static_cast<int64_t>(p_out.element_size());
// HOST-NEXT: const int64_t staging = D == 64 ? (outBytes == 1 ? 0 : outBytes == 2 ? 16384 : outBytes == 4 ? 32768 : 0) : (outBytes == 1 ? 16384 : outBytes == 2 ? 32768 : outBytes == 4 ? 65536 : 0);
// HOST-NEXT: const int64_t smem = sm90 ? (D == 64 ? 83032 : 164952) + staging : 128 + int64_t(256) * D * 2;
// HOST-NEXT: const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
// HOST-NEXT:     std::int64_t(sm90),
// HOST: std::string name = sm90 ? "attention_kernel<" : "attention_kernel_sm80<";
// HOST: m.sizes = {B, rows, D};
// HOST: m.box = {1, boxRows, 64};
// HOST: CUtensorMap mapQ = map(p_q, M, 128), mapK = map(p_k, N, 128), mapV = map(p_v, N, 128);
// HOST: int iB = int(B);
// HOST: const int64_t tiles = B * helion::rt::cdiv(M, int64_t(128));
// HOST-NEXT: const int64_t ctas = tiles;
// HOST-NEXT: CUdeviceptr counter = 0;
// The output by TMA when it is dense (else the kernel stores from registers).
// HOST-NEXT: CUtensorMap mapO{};
// HOST-NEXT: int tmaO = 0;
// HOST-NEXT: if (staging > 0 && p_out.stride(2) == 1 && (p_out.stride(1) * static_cast<int64_t>(outBytes)) % 16 == 0 && (p_out.stride(0) * static_cast<int64_t>(outBytes)) % 16 == 0 &&
// HOST: m.box = {1, 64, static_cast<int32_t>(128 / outBytes)};
// HOST: tmaO = 1;
// HOST: void* args[] = {&mapQ, &mapK, &mapV, &iM, &iN, &iB, &counter, &mapO, &tmaO, &e0, &e1, &e2, &e3, &e4};
// HOST: helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), helion::rt::Dim3(384), static_cast<unsigned>(smem), args, helion::rt::currentStream());
// HOST: void* args[] = {&pq, &pk, &pv, &iM, &iN, &sqb, &sqm, &skb, &skn, &svb, &svn, &e0, &e1, &e2, &e3, &e4};
// HOST: helion::rt::Dim3(128), static_cast<unsigned>(smem), args, helion::rt::currentStream());
// Persistent (the default): at most one CTA per SM, each taking tiles from the
// stream's tile counter.
// PERSISTENT: const int64_t tiles = B * helion::rt::cdiv(M, int64_t(128));
// PERSISTENT-NEXT: const int64_t ctas = std::min<int64_t>(tiles, dev.smCount);
// PERSISTENT-NEXT: CUdeviceptr counter = helion::rt::tileCounter(helion::rt::currentStream());
// PERSISTENT: void* args[] = {&mapQ, &mapK, &mapV, &iM, &iN, &iB, &counter, &mapO, &tmaO,

// NVRTC: sm_90a gets the wgmma kernel, sm_80 the mma.sync one.
// PTX90: attention_kernel<hd::bf16, hd::bf16, hd::bf16, 128, hd::bf16> (sm_90a)
// PTX90-DAG: cp.async.bulk.tensor.3d
// PTX90-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX90-DAG: cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
// PTX90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PTX80: attention_kernel_sm80<hd::f16, hd::f16, hd::f16, 64, hd::f16> (sm_80)
// PTX80-NOT: wgmma
// PTX80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
