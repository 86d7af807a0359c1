// REQUIRES: frontend
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "pid_type": "persistent_blocked", "num_stages": 3, "indexing": "block_ptr"}' > %t.st.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.st.json --stop-after persistent-loads | FileCheck %s
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.st.json --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "pid_type": "persistent_interleaved", "num_stages": 3, "indexing": "pointer"}' > %t.ptr.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.ptr.json --stop-after persistent-loads | FileCheck %s --check-prefix=POINTER
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "pid_type": "flat", "num_stages": 3, "indexing": "block_ptr"}' > %t.flat.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.flat.json --stop-after persistent-loads | FileCheck %s --check-prefix=FLAT
// RUN: echo '{"block_sizes": [1], "reduction_loops": [1024], "pid_type": "persistent_interleaved", "num_stages": 3, "indexing": "block_ptr"}' > %t.looped.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.looped.json --stop-after persistent-loads | FileCheck %s --check-prefix=LOOPED
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "pid_type": "persistent_interleaved", "num_stages": 2, "indexing": "block_ptr"}' > %t.ce.json
// RUN: %helionc compile %examples/cross_entropy.cpp --config %t.ce.json --stop-after persistent-loads | FileCheck %s --check-prefix=CE
// persistent-loads marks the loads of a persistent program: those that no tile
// subscripts are hoisted (issued once, before the program loop); with indexing
// block_ptr and num_stages >= 2, those of the next tiles that the program reads as
// vectors along its innermost axis are staged (copied into shared memory ahead), and
// the grid loop carries the stages.

// rms_norm: the row x[tm, :] is staged, the weight (whole dims only) hoisted.
// CHECK:      // -----// IR after persistent-loads //----- //
// CHECK:      for %tm in tile(0, %m) block bs0 grid(persistent_blocked, order [%tm], l2_group 1) stages 3 {
// CHECK-NEXT:   let staged %_t0.2 : dtype(x)[tm, a0] = load %x[%tm, :]
// CHECK:        let hoisted %_t2.4 : dtype(weight)[a0] = load %weight[:]
// The emitter issues the hoisted load before the program loop and stages what the IR
// marks, with the loop's stages.
// CUDA:      void rms_norm_kernel(
// CUDA:      const hvec<T_p_weight, V_a0> h = {{.*}}p_weight +
// CUDA:      // Staged loads (indexing block_ptr, num_stages 3)
// CUDA:      using stage_t0 = hvec<T_p_x, V_a0>;
// CUDA:      constexpr int STG = STAGED ? hmax(1, hmin(3, STAGE_ROOM / STAGE_BYTES)) : 1;
// CUDA-NOT:  stage_t1

// Pointer indexing: nothing staged, no stages; the weight is still hoisted.
// POINTER:     grid(persistent_interleaved, order [%tm], l2_group 1) {
// POINTER-NEXT:  let %_t0.2 : dtype(x)[tm, a0] = load %x[%tm, :]
// POINTER:       let hoisted %_t2.4

// A program of one tile (flat) gains nothing: nothing marked.
// FLAT:     grid(flat, order [%tm], l2_group 1) {
// FLAT-NOT: hoisted
// FLAT-NOT: staged

// A looped reduction axis: its values are recomputed per chunk, neither hoisted nor
// staged.
// LOOPED:     grid(persistent_interleaved, order [%tm], l2_group 1) {
// LOOPED-NOT: hoisted
// LOOPED-NOT: staged

// cross_entropy: the row logits[tn, :] is staged; labels[tn] is not (its tile is not
// the program's innermost axis, the whole row is), nor the gather.
// CE:      grid(persistent_interleaved, order [%tn], l2_group 1) stages 2 {
// CE-NEXT:   let %lbl.0 : dtype(labels)[tn] = load %labels[%tn]
// CE-NEXT:   let staged %_t0.5 : dtype(logits)[tn, a0] = load %logits[%tn, :]
// CE:        let %target.4 : dtype(logits)[tn] = load_gather
