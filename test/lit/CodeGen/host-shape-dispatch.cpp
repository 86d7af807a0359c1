// REQUIRES: frontend, host-cxx
// A config file with several entries for one kernel: each entry gets its own launcher
// and .cu, the kernel's launcher calls the one helion::rt::pickShapeEntry picks for
// the tensors' sizes (a static table: no allocation or lock per call), and
// register_block_size values that differ per entry follow the pick.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax_two_pass --config %S/../../gpu/dispatch/softmax_dispatch.json -o %t
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// FILES: softmax.helion.cpp
// FILES-NEXT: softmax.softmax_two_pass.1.cu
// FILES-NEXT: softmax.softmax_two_pass.2.cu
// FILES-NEXT: softmax.softmax_two_pass.cu
// RUN: FileCheck %s < %t/softmax.helion.cpp
// --emit cuda shows every entry, each after a line naming it, its keys and config.
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax_two_pass --config %S/../../gpu/dispatch/softmax_dispatch.json --emit cuda | FileCheck %s --check-prefix=EMIT-CUDA
// EMIT-CUDA: // helionc: kernel 'softmax_two_pass', entry 0 of 3 of '{{.*}}softmax_dispatch.json' (x=512x4096): {"block_sizes": [1, 512],
// EMIT-CUDA: __global__
// EMIT-CUDA: // helionc: kernel 'softmax_two_pass', entry 1 of 3 of '{{.*}}softmax_dispatch.json' (x=64x8192): {"block_sizes": [2, 1024],
// EMIT-CUDA: __global__
// EMIT-CUDA: // helionc: kernel 'softmax_two_pass', entry 2 of 3 of '{{.*}}softmax_dispatch.json': {"block_sizes": [4, 256],
// EMIT-CUDA: __global__
// CHECK: static void helionc_launch_softmax_two_pass_e0(
// CHECK: helion::rt::Dim3(128)
// CHECK: static void helionc_launch_softmax_two_pass_e1(
// CHECK: helion::rt::Dim3(256)
// CHECK: static void helionc_launch_softmax_two_pass_e2(
// CHECK: helion::rt::Dim3(64)
// CHECK: static int helionc_entry_softmax_two_pass(const helion::Tensor& p_x) {
// CHECK-NEXT: static constexpr helion::rt::ShapeEntry kEntries[] = {{[{][{]}}0, 1}, {1, 1}, {2, 0}, };
// CHECK-NEXT: static constexpr helion::rt::ShapeKey kKeys[] = {{[{][{]}}0, 2, 0}, {0, 2, 2}, };
// CHECK-NEXT: static constexpr int64_t kSizes[] = {int64_t(512), int64_t(4096), int64_t(64), int64_t(8192), };
// CHECK: static void helionc_launch_softmax_two_pass(const helion::Tensor& p_x, int64_t p_m, int64_t p_n, const helion::Tensor& p_out) {
// CHECK-NEXT: switch (helionc_entry_softmax_two_pass(p_x)) {
// CHECK-NEXT: case 0: helionc_launch_softmax_two_pass_e0(p_x, p_m, p_n, p_out); return;
// CHECK-NEXT: case 1: helionc_launch_softmax_two_pass_e1(p_x, p_m, p_n, p_out); return;
// CHECK-NEXT: case 2: helionc_launch_softmax_two_pass_e2(p_x, p_m, p_n, p_out); return;
// CHECK: int64_t block_m = helionc_register_block_size_softmax_two_pass(helionc_entry_softmax_two_pass(x), 0);
// RUN: %host_cxx %t/softmax.helion.cpp
//
// Shape keys name the kernel's own tensor parameters, with their rank.
// RUN: echo '{"configs": [{"shapes": {"out": [4, 4]}, "config": {}}, {"shapes": {"x": [4]}, "config": {}}]}' > %t/bad.json
// RUN: not %helionc compile %examples/softmax.cpp --kernel softmax --config %t/bad.json -o %t/bad 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: {{.*}}bad.json: kernel 'softmax', entry 0: shapes names 'out', which is not a tensor parameter of the kernel (x)
// BAD: error: {{.*}}bad.json: kernel 'softmax', entry 1: shapes gives 'x' 1 sizes, but it has rank 2
//
// Entries keyed by dtypes too (one per dtype at the same shape, as `helionc tune`
// writes them): the table holds each entry's dtype keys as helion::DType values and
// the pick asks each key tensor's dtype; --aot-arch embeds in each entry only the
// instantiations of its dtypes.
// RUN: echo '{"configs": [{"shapes": {"x": [4096, 4096]}, "dtypes": {"x": "f32"}, "config": {"num_warps": 4}}, {"shapes": {"x": [4096, 4096]}, "dtypes": {"x": "bf16"}, "config": {"num_warps": 8}}]}' > %t/dtypes.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t/dtypes.json -o %t/dt
// RUN: FileCheck %s --check-prefix=DT < %t/dt/softmax.helion.cpp
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t/dtypes.json --emit cuda | FileCheck %s --check-prefix=DT-CUDA
// DT-CUDA: // helionc: kernel 'softmax', entry 0 of 2 of '{{.*}}dtypes.json' (x=4096x4096, x:f32): {{.*}}"num_warps": 4
// DT-CUDA: // helionc: kernel 'softmax', entry 1 of 2 of '{{.*}}dtypes.json' (x=4096x4096, x:bf16): {{.*}}"num_warps": 8
// DT: static constexpr helion::rt::ShapeEntry kEntries[] = {{[{][{]}}0, 1, 0, 1}, {1, 1, 1, 1}, };
// DT: static constexpr helion::rt::DtypeKey kDtypes[] = {{[{][{]}}0, static_cast<int>(helion::DType::f32)}, {0, static_cast<int>(helion::DType::bf16)}, };
// DT-NEXT: return helion::rt::pickShapeEntry(kEntries, 2, kKeys, kSizes, kDtypes, [&](int t, int rank) -> const int64_t* {
// DT: }, [&](int t) { return static_cast<int>(tensors[t]->dtype()); });
// RUN: %host_cxx %t/dt/softmax.helion.cpp
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t/dtypes.json --emit instantiations --aot-arch sm_90a --dtype f32 --dtype bf16 --size-hint 4096 | FileCheck %s --check-prefix=DT-AOT
// DT-AOT-NOT: helionc_aot_softmax_e0 {{.*}}bf16
// DT-AOT: helionc_aot_softmax_e0 sm_90a softmax_kernel<4096, float, float, 4, 1>
// DT-AOT-NOT: helionc_aot_softmax_e1 {{.*}}float
// DT-AOT: helionc_aot_softmax_e1 sm_90a softmax_kernel<4096, hd::bf16, hd::bf16, 8, 1>
// DT-AOT-NOT: helionc_aot_softmax_e1 {{.*}}float
//
// Dtype keys name the kernel's own tensor parameters, with known dtypes.
// RUN: echo '{"configs": [{"dtypes": {"out": "f32"}, "config": {}}, {"dtypes": {"x": "float"}, "config": {}}]}' > %t/bad-dt.json
// RUN: not %helionc compile %examples/softmax.cpp --kernel softmax --config %t/bad-dt.json -o %t/bad-dt 2>&1 | FileCheck %s --check-prefix=BAD-DT
// BAD-DT: bad-dt.json: configs[1].dtypes.x: expected a dtype (f16 bf16 f32 f64 i8 i32 i64 b8 u8 f8e4m3 f8e5m2), got "float"
// RUN: echo '{"configs": [{"dtypes": {"out": "f32"}, "config": {}}]}' > %t/bad-dt2.json
// RUN: not %helionc compile %examples/softmax.cpp --kernel softmax --config %t/bad-dt2.json -o %t/bad-dt2 2>&1 | FileCheck %s --check-prefix=BAD-DT2
// BAD-DT2: error: {{.*}}bad-dt2.json: kernel 'softmax', entry 0: dtypes names 'out', which is not a tensor parameter of the kernel (x)
//
// --emit cubin/ptx compiles, per --dtype, the first entry keyed by that signature's
// dtypes (else entry 0): 8 warps for bf16 here, 4 for f32 and for f16 (no entry).
// RUN: echo '{"configs": [{"dtypes": {"x": "f32"}, "config": {"num_warps": 4}}, {"dtypes": {"x": "bf16"}, "config": {"num_warps": 8}}]}' > %t/warps.json
// RUN: %helionc compile %examples/add.cpp --config %t/warps.json --emit ptx --dtype bf16 --dtype f32 --dtype f16 -o %t/warps
// RUN: FileCheck %s --check-prefix=EMIT-BF16 < %t/warps/add.add.bf16.ptx
// EMIT-BF16: .maxntid 256, 1, 1
// RUN: FileCheck %s --check-prefix=EMIT-4 < %t/warps/add.add.f32.ptx
// RUN: FileCheck %s --check-prefix=EMIT-4 < %t/warps/add.add.f16.ptx
// EMIT-4: .maxntid 128, 1, 1
