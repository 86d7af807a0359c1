// REQUIRES: frontend
// RUN: echo '{"block_sizes": [4], "num_warps": 8}' > %t.rows4.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.rows4.json --emit cuda | FileCheck %s --check-prefix=ROWS4
// RUN: echo '{"block_sizes": [1], "num_warps": 8}' > %t.rows1.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.rows1.json --emit cuda | FileCheck %s --check-prefix=ROWS1
// RUN: rm -rf %t && %helionc compile %examples/softmax.cpp --kernel softmax --config %t.rows4.json --emit cubin --dtype bf16 --size-hint 1024 --arch sm_90a -o %t
// Threads of a program over several rows: the reduction axis takes at most
// NT / (rows) threads, at least a warp, and the rows the rest, so that 4 rows of 1024
// on 256 threads reduce side by side on 64 threads each rather than one after another
// on all 256. A one-row program keeps every thread on its row.

// ROWS4:      // axis a0: reduction axis a0
// ROWS4:      constexpr int T_a0 = hmin(hmin(NT / ST_a0 > 0 ? NT / ST_a0 : 1, S_a0 / V_a0), hmax(32, NT / (ST_a0 * 4)));
// ROWS4:      // axis t0: tile tm
// ROWS4:      constexpr int T_t0 = hmin(NT / ST_t0 > 0 ? NT / ST_t0 : 1, S_t0 / V_t0);

// ROWS1:      constexpr int T_a0 = hmin(NT / ST_a0 > 0 ? NT / ST_a0 : 1, S_a0 / V_a0);
