// REQUIRES: frontend
// helionc compile --depfile FILE: a Makefile rule whose target is the host file and
// whose prerequisites are the kernel file, every file the parse read (helion's headers,
// a local header, system headers) and the config file; paths as given (relative to the
// working directory, as `c++ -MD` writes them), spaces escaped. For Ninja's depfile,
// CMake's DEPFILE, make's -include. The .cu files are no targets: Ninja rejects a
// depfile that names an output its build file does not declare.
//
// RUN: rm -rf %t && mkdir -p "%t/with space"
// RUN: cp %s "%t/with space/kernels.cpp"
// RUN: echo '#define DEPFILE_SHIFT 1.0' > "%t/with space/depfile-local.h"
// RUN: echo '{"block_sizes": [128]}' > %t/config.json
// RUN: cd %t && %helionc compile "with space/kernels.cpp" -o out --config config.json --depfile out/kernels.d
// RUN: ls out | FileCheck %s --check-prefix=FILES
// FILES: kernels.d
// FILES-NEXT: kernels.helion.cpp
// FILES-NEXT: kernels.shifted.cu
// FILES-NEXT: kernels.twice.cu
// RUN: FileCheck %s --input-file %t/out/kernels.d
// CHECK: {{^}}out/kernels.helion.cpp: \
// CHECK-NEXT: {{^}} with\ space/kernels.cpp \
// CHECK-DAG: {{^}} /{{.*}}/include/helion/hl.h \
// CHECK-DAG: {{^}} /{{.*}}/include/helion/hl/tensor.h \
// CHECK-DAG: {{^}} /usr/{{.*}}/c++/{{[0-9]+}}/vector \
// CHECK: {{^}} with\ space/depfile-local.h \
// CHECK-NEXT: {{^}} config.json{{$}}
// CHECK-NOT: {{.}}
//
// Absolute paths in, absolute paths out; no --config: the rule ends with the last
// header. The old depfile is replaced.
// RUN: %helionc compile "%t/with space/kernels.cpp" -o %t/out --depfile %t/out/kernels.d
// RUN: FileCheck %s --check-prefix=ABS -DT=%t --input-file %t/out/kernels.d
// ABS: {{^}}[[T]]/out/kernels.helion.cpp: \
// ABS-NEXT: {{^}} [[T]]/with\ space/kernels.cpp \
// ABS: {{^}} [[T]]/with\ space/depfile-local.h{{$}}
// ABS-NOT: config.json
//
// Usage and write errors.
// RUN: %exitcode %helionc compile %s --emit cuda --depfile %t/x.d 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: helionc: error: --emit excludes --depfile
// EMIT: exit code: 2
// RUN: mkdir -p %t/adir
// RUN: %exitcode %helionc compile "%t/with space/kernels.cpp" -o %t/out --depfile %t/adir 2>&1 | FileCheck %s --check-prefix=DIR -DT=%t
// DIR: error: cannot write '[[T]]/adir'
// DIR: exit code: 1
#include <helion/hl.h>

#include "depfile-local.h"

using helion::Tensor;

HELION_KERNEL Tensor twice(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    out[tile] = x[tile] * 2.0;
  }
  return out;
}

HELION_KERNEL Tensor shifted(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    out[tile] = x[tile] + DEPFILE_SHIFT;
  }
  return out;
}
