// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/softmax.cpp -o %t
// RUN: %host_cxx -Wall -Wextra -Wshadow -Werror -DHELIONC_C_API %t/softmax.helion.cpp
// RUN: %helionc compile %examples/grouped_gemm.cpp -o %t
// RUN: %host_cxx -Wall -Wextra -Wshadow -Werror -DHELIONC_C_API %t/grouped_gemm.helion.cpp
// RUN: %helionc compile %examples/attention_causal.cpp -o %t
// RUN: %host_cxx -Wall -Wextra -Wshadow -Werror -DHELIONC_C_API %t/attention_causal.helion.cpp
// RUN: FileCheck %s < %t/softmax.helion.cpp
// Generated host files compile without warnings under -Wall -Wextra -Wshadow: users
// build them with their own flags, -Werror included. A hl::register_block_size variable
// sized the device loops the launch replaced, so it is often unused on the host: its
// declaration is marked [[maybe_unused]]; the runtime headers shadow nothing.
// CHECK: {{^}}  {{\[\[maybe_unused\]\]}} int64_t block_m = helionc_register_block_size_softmax_two_pass(
