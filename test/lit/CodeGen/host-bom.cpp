// REQUIRES: frontend, host-cxx
// A kernel file that starts with a UTF-8 byte order mark: the mark is dropped from
// the host file (after the generated header it would be mid-file, where no compiler
// accepts it), the lines keep their numbers, and the host file compiles.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '\357\273\277' > %t/bom_add.cpp && cat %examples/add.cpp >> %t/bom_add.cpp
// RUN: %helionc compile %t/bom_add.cpp -o %t
// RUN: python3 -c "import sys; t = open(sys.argv[1], 'rb').read(); sys.exit(b'\xef\xbb\xbf' in t)" %t/bom_add.helion.cpp
// RUN: %host_cxx %t/bom_add.helion.cpp
// RUN: FileCheck %s --check-prefix=HOST < %t/bom_add.helion.cpp
// HOST: {{^}}// Elementwise add
