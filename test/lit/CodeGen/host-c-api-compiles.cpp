// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/rms_norm.cpp -o %t
// RUN: %host_cxx -DHELIONC_C_API %t/rms_norm.helion.cpp
// RUN: %helionc compile %examples/cross_entropy.cpp -o %t
// RUN: %host_cxx -DHELIONC_C_API %t/cross_entropy.helion.cpp
// RUN: %host_cxx %t/cross_entropy.helion.cpp
// The generated host files, C entries included, are valid C++ for the host compiler.
