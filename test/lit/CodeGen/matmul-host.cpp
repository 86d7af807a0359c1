// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/matmul.cpp -o %t
// RUN: FileCheck %s < %t/matmul.helion.cpp
// RUN: %host_cxx %t/matmul.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/matmul.helion.cpp
// The matmul launcher: operand checks, the sm90/sm80 and tma_store/pairs choice at
// run time, shared memory as Gemm::kSmemBytes, tensor maps and the persistent grid.
// CHECK: static void helionc_launch_matmul(
// CHECK: const int64_t M = (m), N = (n), K = (k);
// CHECK: HELION_CHECK((x.dtype() == helion::DType::bf16 || x.dtype() == helion::DType::f16 || x.dtype() == helion::DType::f32) && y.dtype() == x.dtype()
// CHECK: HELION_CHECK(tmaReady(x), "matmul: tensor 'x' must have unit column stride, 16-byte aligned data and a row stride that is a multiple of 16 bytes
// CHECK: const bool tf32 = x.dtype() == helion::DType::f32;
// CHECK: const bool sm90 = dev.major == 9 && !tf32;
// CHECK: const bool tmaStore = sm90 && out.dim() == 2 && out.stride(1) == 1 && out.stride(0) == N && (N * int64_t(out.element_size())) % 16 == 0
// CHECK: std::string name = sm90 ? "matmul_kernel<" : "matmul_kernel_sm80<";
// CHECK: name += tmaStore ? "1" : "0";
// CHECK: const int64_t bm80 = tf32 ? 128 : 128, bn80 = tf32 ? 128 : 256, stages80 = tf32 ? 4 : 4;
// CHECK: int64_t smem = 128 + stages80 * (bm80 + bn80) * 128;
// CHECK: const int64_t ring = 1024 + int64_t(4) * 49152 + 16 * 4, maxSmem = 227 * 1024;
// CHECK: CUtensorMap mapA = map(x, M, K, 128, 64);
// CHECK: CUtensorMap mapB = map(y, K, N, 64, 64);
// CHECK: CUtensorMap mapC = tmaStore ? map(out, M, N, 64, static_cast<int32_t>(128 / out.element_size())) : mapA;
// CHECK: const int64_t ctas = std::min<int64_t>(units, dev.smCount);
// CHECK: helion::rt::Dim3(384), static_cast<unsigned>(smem), args);
// CHECK: const int64_t tiles = helion::rt::cdiv(M, bm80) * helion::rt::cdiv(N, bn80);
// CHECK: helion::rt::Dim3(256), static_cast<unsigned>(smem), args);
