// REQUIRES: frontend
// RUN: echo '{"vector_bytes": 4}' > %t.v4.json
// RUN: %helionc compile %examples/add.cpp --config %t.v4.json --emit host --aot-arch sm_90a --aot-arch sm_80 --dtype f32 > %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: %helionc compile %examples/add.cpp --config %t.v4.json --emit host | FileCheck %s --check-prefix=NO-AOT
// With --aot-arch, the launcher hands loadKernel a table of cubins compiled now for
// each architecture and instantiation (f32, vectors of 1 element, EXACT 0 or 1): a
// function declared near the top and defined at the end of the file, after the
// user's code, with each image in an aligned string literal; a static registration
// lists the table in helion_rt_aot_images().

// CHECK: // helionc: kernel images compiled ahead of time, defined at the end of this file
// CHECK-NEXT: static const helion::rt::AotTable& helionc_aot_add();
// CHECK: static void helionc_launch_add(
// CHECK: helion::rt::loadKernel({"add.cpp.cu", kSource, name, {}, 0, -1, &helionc_aot_add()})
// CHECK: HELION_KERNEL Tensor add(const Tensor& x, const Tensor& y) {
// CHECK: // helionc: kernel images compiled ahead of time (generated, do not edit)
// CHECK-NEXT: static const helion::rt::AotTable& helionc_aot_add() {
// CHECK-NEXT:   alignas(64) static const char kImage0[] =
// CHECK-NEXT:         "\177ELF\002
// CHECK:        alignas(64) static const char kImage3[] =
// CHECK:        static const helion::rt::AotImage kImages[] = {
// CHECK-NEXT:       {"sm_90a", "add_kernel<float, float, float, 1, 0>", "_Z10add_kernelIfffLi1ELi0E{{[A-Za-z0-9_]+}}", kImage0, sizeof(kImage0) - 1},
// CHECK-NEXT:       {"sm_90a", "add_kernel<float, float, float, 1, 1>", "_Z10add_kernelIfffLi1ELi1E{{[A-Za-z0-9_]+}}", kImage1, sizeof(kImage1) - 1},
// CHECK-NEXT:       {"sm_80", "add_kernel<float, float, float, 1, 0>", "_Z10add_kernelIfffLi1ELi0E{{[A-Za-z0-9_]+}}", kImage2, sizeof(kImage2) - 1},
// CHECK-NEXT:       {"sm_80", "add_kernel<float, float, float, 1, 1>", "_Z10add_kernelIfffLi1ELi1E{{[A-Za-z0-9_]+}}", kImage3, sizeof(kImage3) - 1},
// CHECK-NEXT:   };
// CHECK-NEXT:   static const helion::rt::AotTable kTable = {"add.cpp.cu", kImages, 4};
// CHECK-NEXT:   return kTable;
// CHECK-NEXT: }
// CHECK-NEXT: static const helion::rt::AotRegistration helionc_aot_add_registered(helionc_aot_add());

// Without --aot-arch: no table, NVRTC at the first call as before.
// NO-AOT-NOT: helionc_aot
// NO-AOT: helion::rt::loadKernel({"add.cpp.cu", kSource, name, {}})
// NO-AOT-NOT: helionc_aot
