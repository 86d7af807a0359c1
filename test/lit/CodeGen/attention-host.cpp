// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"block_sizes": [128, 64], "num_warps": 4, "num_stages": 2, "indexing": "pointer"}' > %t/sm80.json
// RUN: %helionc compile %examples/attention.cpp --config %t/sm80.json -o %t
// RUN: FileCheck %s < %t/attention.helion.cpp
// RUN: %host_cxx %t/attention.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/attention.helion.cpp
// The flash-attention launcher (AttentionLauncher.cpp) of an sm80 config (the sm90
// default's is in attention-sm90.cpp): extents from the IR, operand checks before
// NVRTC, the instantiation's name, shared memory as AttentionSm80::kSmemBytes and
// the b-major grid.
// CHECK: static void helionc_launch_attention(
// CHECK: const int64_t B = p_bh, M = p_m, N = p_n, D = p_d;
// CHECK: HELION_CHECK(D == 64 || D == 128, "attention: flash attention supports head dims 64 and 128, got {}", D);
// CHECK: p_k.dtype() == p_q.dtype() && p_v.dtype() == p_q.dtype(), "attention: flash attention needs bf16 or f16 q, k and v of one dtype");
// CHECK: p_k.size(1) >= N && p_k.size(2) == D
// CHECK: HELION_CHECK(cpAsyncReady(p_v), "attention: tensor 'v' must have unit inner stride, 16-byte aligned data and batch and row strides that are multiples of 8 elements
// CHECK: const int64_t smem = 128 + int64_t(256) * D * 2;
// The instantiation is found by an integer key (device, dtypes, d) in a lock-free
// KernelCache; the name is built on a miss only.
// CHECK-NEXT: const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
// CHECK-NOT: std::mutex
// CHECK: static_cast<std::int64_t>(p_d),
// CHECK-NEXT: static_cast<std::int64_t>(p_out.dtype())};
// CHECK-NEXT: static helion::rt::KernelCache kernelCache;
// CHECK-NEXT: const helion::rt::Kernel* found = kernelCache.find(kernelKey);
// CHECK-NEXT: if (!found) {
// CHECK-NEXT:   std::string name = "attention_kernel<";
// CHECK: name += std::to_string(kernelKey[4]);
// CHECK: found = &kernelCache.insert(kernelKey, helion::rt::loadKernel({"attention.cpp.cu", kSource, name, {}, static_cast<int>(smem)}));
// CHECK: void* args[] = {&pq, &pk, &pv, &iM, &iN, &sqb, &sqm, &skb, &skn, &svb, &svn, &e0, &e1, &e2, &e3, &e4};
// CHECK: const int64_t ctas = B * helion::rt::cdiv(M, int64_t(128));
// CHECK: helion::rt::launch(*found, helion::rt::Dim3(static_cast<unsigned>(ctas)), helion::rt::Dim3(128), static_cast<unsigned>(smem), args, helion::rt::currentStream());
