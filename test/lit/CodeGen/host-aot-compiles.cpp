// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/sum.cpp -o %t --aot-arch sm_80 --dtype f32 --size-hint 1000
// RUN: %host_cxx -DHELIONC_C_API %t/sum.helion.cpp
// A generated host file with embedded images (here a reduction: the row length
// picks RDIM) is valid C++ for the host compiler, C entries included.
