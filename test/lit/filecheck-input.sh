#!/usr/bin/env bash
# lit's FileCheck (lit.cfg.py): FileCheck ARGS on stdin without the lines that look like
# lit directives (`// CHECK: ...`, `// RUN: ...`, `# HOST-NEXT: ...`). A test that
# compiles itself (%s) gets its own comments back in FILE.helion.cpp or --emit host;
# without this, a CHECK line could match its own copy and never fail.
# Usage: filecheck-input.sh FILECHECK ARGS...
fc=$1
shift
grep -vE '^[[:space:]]*(//|#)[[:space:]]*[A-Z][A-Z0-9_-]*:' | "$fc" "$@"
