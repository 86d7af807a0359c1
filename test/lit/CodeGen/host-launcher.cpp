// REQUIRES: frontend
// RUN: echo '{"num_warps": 8}' > %t.default.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.default.json --emit host | FileCheck %s
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 16, "pid_type": "persistent_interleaved", "num_sm_multiplier": 4}' > %t.pers.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.pers.json --emit host | FileCheck %s --check-prefix=PERS
// A launcher finds its kernel by a key of integers (the device, then each template
// argument) in a per-launcher KernelCache: no lock, no allocation and no template
// name on the steady-state path. The name is built from the key on a miss only.

// CHECK-LABEL: static void helionc_launch_rms_norm(
// CHECK:      const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
// CHECK-NEXT:     helion::rt::reductionExtent(p_x.size(1), 256),
// CHECK-NEXT:     static_cast<std::int64_t>(p_x.dtype()),
// CHECK-NEXT:     static_cast<std::int64_t>(p_weight.dtype()),
// CHECK-NEXT:     static_cast<std::int64_t>(p_out.dtype()),
// CHECK-NEXT:     helion::rt::vectorWidth({&p_x, &p_weight, &p_out}, 16),
// CHECK-NEXT:     std::int64_t(0
// CHECK-NEXT:     | (p_x.size(1) == helion::rt::reductionExtent(p_x.size(1), 256) ? 1 : 0)
// CHECK-NEXT:     | ((p_m - int64_t(0)) % {{[0-9]+}} == 0 ? 2 : 0))};
// CHECK-NEXT: static helion::rt::KernelCache kernelCache;
// CHECK-NEXT: const helion::rt::Kernel* found = kernelCache.find(kernelKey);
// CHECK-NEXT: if (!found) {
// CHECK-NEXT:   std::string name = "rms_norm_kernel<";
// CHECK-NEXT:   name += std::to_string(kernelKey[1]);
// CHECK-NEXT:   name += ", ";
// CHECK-NEXT:   name += helion::rt::deviceTypeName(static_cast<helion::DType>(kernelKey[2]));
// CHECK:        name += std::to_string(kernelKey[6]);
// CHECK-NEXT:   name += ">";
// CHECK-NEXT:   found = &kernelCache.insert(kernelKey, helion::rt::loadKernel({"rms_norm.cpp.cu", kSource, name, {}}));
// CHECK-NEXT: }
// CHECK-NEXT: const helion::rt::Kernel& kernel = *found;
// CHECK-NOT:  std::mutex
// CHECK-NOT:  std::string
// CHECK:      helion::rt::launch(kernel, grid, helion::rt::Dim3(256), 0, args, helion::rt::currentStream());

// A persistent grid reads the SM count from deviceInfo() (lock-free once known),
// and launches num_sm_multiplier programs per SM, at most as many as are resident
// at once (the kernel's occupancy, queried once).
// PERS-LABEL: static void helionc_launch_softmax(
// PERS:       const helion::rt::Kernel* found = kernelCache.find(kernelKey);
// PERS-NOT:   std::mutex
// PERS:       grid.x = static_cast<unsigned>(std::min<int64_t>(programs, int64_t(std::min(4, kernel.residentBlocksPerSm({{[0-9]+}}))) * helion::rt::deviceInfo().smCount));
