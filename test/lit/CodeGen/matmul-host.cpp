// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/matmul.cpp -o %t
// RUN: FileCheck %s < %t/matmul.helion.cpp
// RUN: FileCheck %s --check-prefix=HOT < %t/matmul.helion.cpp
// RUN: %host_cxx %t/matmul.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/matmul.helion.cpp
// RUN: echo '{"block_sizes": [64, 128, 64], "num_warps": 8, "num_stages": 3, "indexing": "pointer"}' > %t/sm80.json
// RUN: %helionc compile %S/matmul-lowering.cpp --kernel mm_plus --config %t/sm80.json --emit host | FileCheck %s --check-prefix=SM80
// The matmul launcher: operand checks, the sm90/sm80 and tma_store/pairs choice at
// run time, shared memory as Gemm::kSmemBytes, tensor maps and the persistent grid.
// The same loop on the general lowering (its default config there), launched first
// for operands the template cannot read: rows not 16-byte aligned, two dtypes.
// CHECK: static void helionc_launch_matmul_general(const helion::Tensor& p_x, const helion::Tensor& p_y, int64_t p_m, int64_t p_n, int64_t p_k, const helion::Tensor& p_out) {
// CHECK: (operands the template cannot read: the general lowering, {"block_sizes": [128, 64, 32],
// CHECK: __global__ __launch_bounds__(128) void matmul_general_kernel(
// CHECK: static void helionc_launch_matmul(
// CHECK: const int64_t M = p_m, N = p_n, K = p_k;
// CHECK: const bool f8 = p_x.dtype() == helion::DType::f8e4m3 || p_x.dtype() == helion::DType::f8e5m2;
// 8-bit operands only with B as [N, K] (y[tk, tn] here).
// CHECK: HELION_CHECK(!f8, "matmul: hl::dot of 8-bit floats needs its second operand as w[tn, tk].transpose(0, 1) (a [N, K] tensor)");
// CHECK-NOT: operands of one dtype
// CHECK: if (!((p_x.dtype() == helion::DType::bf16 || p_x.dtype() == helion::DType::f16 || p_x.dtype() == helion::DType::f32 || f8) && p_y.dtype() == p_x.dtype()) || !tmaReady(p_x) || !tmaReady(p_y)) {
// CHECK-NEXT: helionc_launch_matmul_general(p_x, p_y, p_m, p_n, p_k, p_out);
// CHECK-NEXT: return;
// CHECK: HELION_CHECK(tmaReady(p_x), "matmul: tensor 'x' must have unit column stride, 16-byte aligned data and a row stride that is a multiple of 16 bytes
// CHECK: const bool tf32 = p_x.dtype() == helion::DType::f32;
// CHECK: const bool sm90 = dev.major == 9 && !tf32;
// CHECK: const bool tmaStore = sm90 && p_out.dim() == 2 && p_out.stride(1) == 1 && p_out.stride(0) == N && (N * int64_t(p_out.element_size())) % 16 == 0
// CHECK: const int64_t bm80 = tf32 ? 128 : 128, bn80 = tf32 ? 128 : 256, stages80 = tf32 ? 4 : 4;
// CHECK: int64_t smem = 128 + stages80 * (bm80 + bn80) * 128;
// tma_store's C buffer: the tile in 4 / 2 / 1 slices for 4- / 2- / 1-byte C (gemm_smem.cuh).
// CHECK: const int64_t ring = 197696;
// CHECK-NEXT: const int64_t parts = int64_t(p_out.element_size()) == 4 ? 4 : int64_t(p_out.element_size()) == 2 ? 2 : 1;
// CHECK-NEXT: smem = tmaStore && parts > 0 ? ring + int64_t(32768) * int64_t(p_out.element_size()) / parts : ring;
// K boxes: one 128-byte row (64 16-bit, 128 8-bit elements).
// CHECK: const int32_t boxK = static_cast<int32_t>(128 / p_x.element_size());
// CHECK: CUtensorMap mapA = map(p_x, M, K, 128, boxK);
// CHECK: CUtensorMap mapB = map(p_y, K, N, 64, 64);
// CHECK: CUtensorMap mapC = tmaStore ? map(p_out, M, N, 64, static_cast<int32_t>(128 / p_out.element_size())) : mapA;
// CHECK: const int64_t ctas = std::min<int64_t>(units, dev.smCount);
// CHECK: helion::rt::Dim3(384), static_cast<unsigned>(smem), args, helion::rt::currentStream());
// CHECK: const int64_t tiles = helion::rt::cdiv(M, bm80) * helion::rt::cdiv(N, bn80);
// CHECK: helion::rt::Dim3(256), static_cast<unsigned>(smem), args, helion::rt::currentStream());

// The launch path, as for memory-bound kernels (host-launcher.cpp): the kernel is
// found in a KernelCache by a key of integers (device, sm90, dtypes, TMA_STORE),
// with no template name, map or mutex; the name is built from the key on a miss
// only. The tensor maps hold pointers and strides, so they are made at every call.
// HOT-LABEL: static void helionc_launch_matmul(
// HOT-NOT:   std::string
// HOT-NOT:   std::mutex
// HOT-NOT:   std::map
// HOT:       const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
// HOT-NEXT:      std::int64_t(sm90),
// HOT-NEXT:      static_cast<std::int64_t>(p_x.dtype()),
// HOT-NEXT:      static_cast<std::int64_t>(p_y.dtype()),
// HOT-NEXT:      static_cast<std::int64_t>(p_out.dtype()),
// HOT-NEXT:      std::int64_t(tmaStore)};
// HOT-NEXT:  static helion::rt::KernelCache kernelCache;
// HOT-NEXT:  const helion::rt::Kernel* found = kernelCache.find(kernelKey);
// HOT-NEXT:  if (!found) {
// HOT-NEXT:    std::string name = sm90 ? "matmul_kernel<" : "matmul_kernel_sm80<";
// HOT-NEXT:    name += helion::rt::deviceTypeName(static_cast<helion::DType>(kernelKey[2]));
// HOT-NEXT:    name += ", ";
// HOT-NEXT:    name += helion::rt::deviceTypeName(static_cast<helion::DType>(kernelKey[3]));
// HOT-NEXT:    name += ", ";
// HOT-NEXT:    name += helion::rt::deviceTypeName(static_cast<helion::DType>(kernelKey[4]));
// HOT-NEXT:    name += ", ";
// HOT-NEXT:    name += std::to_string(kernelKey[5]);
// HOT-NEXT:    name += ">";
// HOT-NEXT:    found = &kernelCache.insert(kernelKey, helion::rt::loadKernel({"matmul.cpp.cu", kSource, name, {}, static_cast<int>(smem)}));
// HOT-NEXT:  }
// HOT-NOT:   std::string
// HOT-NOT:   std::mutex
// HOT:       if (sm90) {
// HOT-NOT:   std::string
// HOT:       CUtensorMap mapA = map(p_x, M, K, 128, boxK);
// HOT-NOT:   std::string
// HOT:       helion::rt::launch(*found, {{.*}}, helion::rt::Dim3(384), static_cast<unsigned>(smem), args, helion::rt::currentStream());
// HOT-NOT:   std::string
// HOT:       helion::rt::launch(*found, {{.*}}, helion::rt::Dim3(256), static_cast<unsigned>(smem), args, helion::rt::currentStream());

// A config without tensor_descriptor has the sm80 kernel only: sm90 is always 0 in
// the key and the name has one head; a scalar of the epilogue is no template argument.
// SM80-LABEL: static void helionc_launch_mm_plus(
// SM80:       const bool sm90 = false;
// SM80-NOT:   std::string
// SM80:       const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
// SM80-NEXT:      std::int64_t(sm90),
// SM80-NEXT:      static_cast<std::int64_t>(p_x.dtype()),
// SM80-NEXT:      static_cast<std::int64_t>(p_y.dtype()),
// SM80-NEXT:      static_cast<std::int64_t>(p_out.dtype()),
// SM80-NEXT:      std::int64_t(tmaStore)};
// SM80:       const helion::rt::Kernel* found = kernelCache.find(kernelKey);
// SM80-NEXT:  if (!found) {
// SM80-NEXT:    std::string name = "mm_plus_kernel_sm80<";
// SM80:         found = &kernelCache.insert(kernelKey, helion::rt::loadKernel({"matmul-lowering.cpp.cu", kSource, name, {}, static_cast<int>(smem)}));
// SM80:       float e{{[0-9]+}} = static_cast<float>(p_alpha);
