// REQUIRES: frontend, host-cxx
// A "choose" entry (configs/README.md): every candidate gets its own launcher and .cu;
// the entry pickShapeEntry picks is the first candidate, and its case calls the choice
// function (helion/runtime/Choice.h), which times the candidates on scratch copies of
// the tensors the kernel writes (matmul: `out`, a host local the launcher is given)
// and then runs the winner on the real ones. A forced entry (helionc tune) runs that
// candidate, no choice.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"configs": [{"shapes": {"x": [4096, 4096], "y": [4096, 4096]}, "choose": [{"block_sizes": [128, 128, 64]}, {"block_sizes": [128, 256, 64]}, {"block_sizes": [64, 128, 64], "indexing": "pointer"}]}, {"config": {}}]}' > %t/mm.json
// RUN: %helionc compile %examples/matmul.cpp --config %t/mm.json -o %t
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// FILES: matmul.helion.cpp
// FILES-NEXT: matmul.matmul.1.cu
// FILES-NEXT: matmul.matmul.2.cu
// FILES-NEXT: matmul.matmul.3.cu
// FILES-NEXT: matmul.matmul.cu
// RUN: FileCheck %s < %t/matmul.helion.cpp
// CHECK: static void helionc_launch_matmul_e0(
// CHECK: static void helionc_launch_matmul_e3(
// CHECK: static int helionc_entry_matmul(const helion::Tensor& p_x, const helion::Tensor& p_y) {
// CHECK-NEXT: static constexpr helion::rt::ShapeEntry kEntries[] = {{[{][{]}}0, 2}, {2, 2}, {4, 2}, {6, 0}, };
// CHECK: // helionc: run-time choice among entries 0..2 of kernel 'matmul'
// CHECK-NEXT: static void helionc_choose_matmul_e0(const helion::Tensor& p_x, const helion::Tensor& p_y, int64_t p_m, int64_t p_n, int64_t p_k, const helion::Tensor& p_out) {
// CHECK-NEXT: static helion::rt::KernelChoice choice("matmul", 3);
// CHECK-NEXT: const helion::Tensor* keyTensors[] = {&p_x, &p_y};
// CHECK: const int keyLength = helion::rt::choiceKey(keyTensors, 2, key);
// CHECK-NEXT: int winner = choice.find(key, keyLength);
// CHECK-NEXT: if (winner < 0) {
// CHECK: const helion::Tensor* written[] = {&p_out};
// CHECK-NEXT: winner = choice.decide(key, keyLength, written, 1, [&](int c, {{.*}} scratch) {
// CHECK-NEXT: switch (c) {
// CHECK-NEXT: case 0: helionc_launch_matmul_e0(p_x, p_y, p_m, p_n, p_k, *scratch[0]); return;
// CHECK-NEXT: case 1: helionc_launch_matmul_e1(p_x, p_y, p_m, p_n, p_k, *scratch[0]); return;
// CHECK-NEXT: case 2: helionc_launch_matmul_e2(p_x, p_y, p_m, p_n, p_k, *scratch[0]); return;
// CHECK: switch (winner) {
// CHECK-NEXT: case 0: helionc_launch_matmul_e0(p_x, p_y, p_m, p_n, p_k, p_out); return;
// CHECK-NEXT: case 1: helionc_launch_matmul_e1(p_x, p_y, p_m, p_n, p_k, p_out); return;
// CHECK-NEXT: case 2: helionc_launch_matmul_e2(p_x, p_y, p_m, p_n, p_k, p_out); return;
// CHECK: static void helionc_launch_matmul(const helion::Tensor& p_x, const helion::Tensor& p_y, int64_t p_m, int64_t p_n, int64_t p_k, const helion::Tensor& p_out) {
// CHECK-NEXT: switch (helionc_entry_matmul(p_x, p_y)) {
// CHECK-NEXT: case 0:
// CHECK-NEXT: if (helion::rt::forcedShapeEntry().load(std::memory_order_relaxed) != 0) {
// CHECK-NEXT: helionc_choose_matmul_e0(p_x, p_y, p_m, p_n, p_k, p_out);
// CHECK-NEXT: return;
// CHECK-NEXT: }
// CHECK-NEXT: helionc_launch_matmul_e0(p_x, p_y, p_m, p_n, p_k, p_out); return;
// CHECK-NEXT: case 1: helionc_launch_matmul_e1(p_x, p_y, p_m, p_n, p_k, p_out); return;
// CHECK-NEXT: case 2: helionc_launch_matmul_e2(p_x, p_y, p_m, p_n, p_k, p_out); return;
// CHECK-NEXT: case 3: helionc_launch_matmul_e3(p_x, p_y, p_m, p_n, p_k, p_out); return;
// RUN: %host_cxx %t/matmul.helion.cpp
//
// Errors name the JSON path: both keys, a list of one, a bad candidate.
// RUN: echo '{"configs": [{"config": {}, "choose": [{}, {}]}]}' > %t/both.json
// RUN: not %helionc compile %examples/matmul.cpp --config %t/both.json -o %t/e 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: {{.*}}both.json: configs[0]: expected either 'config' or 'choose', got both
// RUN: echo '{"configs": [{"choose": [{}]}]}' > %t/one.json
// RUN: not %helionc compile %examples/matmul.cpp --config %t/one.json -o %t/e 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: error: {{.*}}one.json: configs[0].choose: expected a list of 2 to 8 configs to choose from, got [{}]
// RUN: echo '{"configs": [{"choose": [{}, {"num_warps": 3}]}]}' > %t/bad.json
// RUN: not %helionc compile %examples/matmul.cpp --config %t/bad.json -o %t/e 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: {{.*}}bad.json: configs[0].choose[1].num_warps: expected
//
// The host code reads hl::register_block_size before the launcher chooses: the
// candidates must agree on it.
// RUN: echo '{"configs": [{"choose": [{"block_sizes": [1, 512]}, {"block_sizes": [2, 512]}]}]}' > %t/rbs.json
// RUN: not %helionc compile %examples/softmax.cpp --kernel softmax_two_pass --config %t/rbs.json -o %t/e 2>&1 | FileCheck %s --check-prefix=RBS
// RBS: error: {{.*}}rbs.json: kernel 'softmax_two_pass': choose[1] gives hl::register_block_size 'block_m' the value 2, choose[0] 1: the candidates of a "choose" entry must agree on it
