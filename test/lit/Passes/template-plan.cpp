// REQUIRES: frontend
// RUN: %helionc compile %examples/matmul.cpp --stop-after template-plan | FileCheck %s --check-prefix=MATMUL
// RUN: echo '{"indexing": "pointer", "num_stages": 3, "l2_groupings": [4]}' > %t.sm80.json
// RUN: %helionc compile %examples/matmul.cpp --config %t.sm80.json --stop-after template-plan | FileCheck %s --check-prefix=SM80
// RUN: %helionc compile %examples/matmul.cpp --config %t.sm80.json --emit cuda | FileCheck %s --check-prefix=SM80-CUDA
// RUN: echo '{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "pid_type": "flat"}' > %t.one.json
// RUN: %helionc compile %examples/matmul.cpp --config %t.one.json --stop-after template-plan | FileCheck %s --check-prefix=ONE
// RUN: %helionc compile %examples/bmm.cpp --stop-after template-plan | FileCheck %s --check-prefix=BMM
// RUN: %helionc compile %examples/grouped_gemm.cpp --stop-after template-plan | FileCheck %s --check-prefix=GROUPED
// RUN: %helionc compile %examples/attention.cpp --stop-after template-plan | FileCheck %s --check-prefix=ATTN
// RUN: echo '{"block_sizes": [64, 32], "num_warps": 4, "indexing": "pointer", "pid_type": "flat"}' > %t.fa2.json
// RUN: %helionc compile %examples/attention.cpp --config %t.fa2.json --stop-after template-plan | FileCheck %s --check-prefix=FA2
// RUN: %helionc compile %examples/attention.cpp --config %t.fa2.json --emit cuda | FileCheck %s --check-prefix=FA2-CUDA
// RUN: %helionc compile %examples/sum.cpp --stop-after template-plan | FileCheck %s --check-prefix=GENERIC
// RUN: %helionc compile %examples/matmul.cpp --stop-after recognize-templates | FileCheck %s --check-prefix=RECOGNIZED
// RUN: %helionc compile %examples/grouped_gemm.cpp --stop-after recognize-templates | FileCheck %s --check-prefix=RECOGNIZED-GROUPED
// RUN: %helionc compile %examples/attention.cpp --stop-after recognize-templates | FileCheck %s --check-prefix=RECOGNIZED-ATTN
// RUN: echo '{"block_sizes": [128, 32, 64], "indexing": "tensor_descriptor", "num_warps": 8}' > %t.narrow.json
// RUN: %helionc compile %S/../CodeGen/matmul-lowering.cpp --kernel mm_bt --config %t.narrow.json --stop-after template-plan | FileCheck %s --check-prefix=NARROW
// recognize-templates checks the template's loop and records what plays which part
// (helion/IR/TemplateMatch.h); the emitters print from it.
// RECOGNIZED: matmul: a %x, b %y, acc %acc.0, tiles [tm, tn], k loop tk, epilogue 1, single store %out
// RECOGNIZED-NOT: template:
// RECOGNIZED-GROUPED: matmul: a %a, b %b, acc %acc.2, tiles [tm, tn], k loop tk, groups g offsets %offsets, epilogue 1, single store %out
// RECOGNIZED-ATTN: attention: q %q, k %k, v %v, acc %acc.2, sum %li.1, max %mi.0, tiles [tb, tm], key loop tn, head dim %d, score mul(dot(load %q[%tb, %tm, :], load %k[%tb, %tn, :].transpose(1, 2)), %scale), epilogue 1
// template-plan maps the config of a kernel a tensor-core template prints to the
// template's parameters, by the family's rules (helion/Config/TemplateRules.h, the
// ones config validation reports), and stores them in the IR; the emitter prints them.
// MATMUL: template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8 tma_store; sm80 128x256 stages 4
// Without TMA only the sm80 kernel: cp.async + mma.sync, one CTA per tile.
// SM80: template: gemm sm80 128x256 stages 3 group_m 4
// SM80-CUDA-NOT: __global__ {{.*}}matmul_kernel(
// SM80-CUDA: matmul_kernel_sm80(
// SM80-CUDA: using G__ = hd::GemmSm80<T_p_x, 128, kTf32__ ? 128 : 256, 128 / int(sizeof(T_p_x)), kTf32__ ? 4 : 3, false>;
// One consumer warpgroup (8 warps), one CTA per tile (flat).
// ONE: template: gemm sm90 128x128 stages 5 consumers 1 group_m 8 tma_store; sm80 128x128 stages 5
// BMM: template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 1 tma_store; sm80 128x256 stages 4
// The grouped GEMM is always persistent with GROUP_M 8 per group; its epilogue is the
// accumulator's store alone, so its launcher may run the row-fitting kernel.
// GROUPED: template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8 tma_store grouped_rows; sm80 128x256 stages 4
// ATTN: template: attention sm90 128x128 consumers 2 stages 2 persistent; sm80 128x64 warps 4 mt 2
// FA2: template: attention sm80 64x32 warps 4 mt 1
// FA2-CUDA: hd::AttentionSm80<{{.*}}, 32, 4, 1>
// A column tile narrower than 64 (B as [N, K]): no tma_store (its 128-byte boxes).
// NARROW: matmul: a %x, b %w transposed,
// NARROW: template: gemm sm90 128x32 stages 4 consumers 1 persistent group_m 8; sm80 128x64 stages 4
// A kernel the generic emitter prints has none.
// GENERIC-NOT: template:
