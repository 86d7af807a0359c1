#!/usr/bin/env bash
# The installed package as a user meets it (ctest package.consumer). Installs BUILD_DIR
# into a temporary prefix and moves it (nothing installed may name the source, build or
# first install directory), then, with Ninja and with Unix Makefiles, builds
# test/package/consumer against it (find_package(helionc) + helionc_add_kernels), runs
# it (ref mode; a GPU run when there is one) and checks what rebuilds: touching the
# header one kernel includes regenerates that kernel's files only, touching the config
# file likewise, and touching nothing rebuilds nothing. Then builds the same consumer
# with a plain Makefile (README's compile and link lines) and checks the header again.
#
# Usage: test/package/run.sh BUILD_DIR [--archs sm_90a,sm_80] [--keep]
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [--archs A,B] [--keep]}" && pwd)
shift
archs="" keep=0
while (($#)); do
  case $1 in
    --archs) archs=${2//,/;}; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/helionc-package.XXXXXX")
if ((keep)); then echo "work dir: $work"; else trap 'rm -rf "$work"' EXIT; fi
jobs=$(nproc)

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "install into a temporary prefix, then move it"
cmake --install "$build" --prefix "$work/staged" >/dev/null
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
for f in bin/helionc include/helion/hl.h include/helion/hl/tensor.h \
         include/helion/runtime/Generated.h lib/libhelion_runtime.a lib/libhelion_runtime.so \
         share/helionc/device/helion/device.cuh \
         lib/cmake/helionc/helioncConfig.cmake lib/cmake/helionc/helioncConfigVersion.cmake \
         lib/cmake/helionc/helioncTargets.cmake lib/cmake/helionc/HelioncAddKernels.cmake; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
if named=$(grep -rIl -e "$src" -e "$build" -e "$work/staged" "$prefix"); then
  fail "installed text files name the source, build or install tree: $named"
fi

# Modification times (ns) of the files a rebuild may touch, one "path time" a line.
snapshot() {
  find "$1" \( -name '*.helion.cpp' -o -name '*.cu' -o -name '*.o' -o -name consumer \) \
       -type f -printf '%P %T@\n' | sort
}
# The paths whose time differs between two snapshots.
changed() { diff <(echo "$1") <(echo "$2") | sed -n 's/^> \([^ ]*\) .*/\1/p' | sort || true; }
# Checks that exactly the expected files were rebuilt: each changed path matches one of
# the regexes (one a line, "" for none), and each regex matches a changed path.
expect_changed() { # what, before, after, regexes
  local got path want
  got=$(changed "$2" "$3")
  echo "   rebuilt: ${got//$'\n'/ }"
  while read -r path; do
    [[ -z $path ]] && continue
    local known=0
    while read -r want; do
      if [[ -n $want && $path =~ $want ]]; then known=1; fi
    done <<<"$4"
    ((known)) || fail "$1: rebuilt $path, expected only '$(echo $4)'"
  done <<<"$got"
  while read -r want; do
    [[ -z $want ]] || grep -qE "$want" <<<"$got" || fail "$1: nothing matching '$want' rebuilt"
  done <<<"$4"
}

# The consumer lists the images embedded in it ("aot: PROGRAM ARCH BYTES NAME", NAME
# a kernel instantiation such as scale_kernel<float, float, 4, 0>): each kernel has
# images for each architecture of ARCHS and for no other; none without ARCHS.
check_images() { # what, run log
  local arch kernel n
  n=$(grep -c '^aot: ' "$2" || true)
  if [[ -z $archs ]]; then
    ((n == 0)) || fail "$1: $n images embedded without ARCHS"
    return
  fi
  IFS=';' read -ra list <<<"$archs"
  for arch in "${list[@]}"; do
    for kernel in scale add add_shifted; do
      grep -qE "^aot: [^ ]+ $arch [1-9][0-9]* ${kernel}_kernel<" "$2" ||
        fail "$1: no $arch image of $kernel embedded"
    done
  done
  local other
  other=$(grep '^aot: ' "$2" | awk '{print $3}' | sort -u | grep -vxF -f <(printf '%s\n' "${list[@]}") || true)
  [[ -z $other ]] || fail "$1: images for architectures not in ARCHS: $other"
  echo "   embedded: $n images for $archs"
}

for generator in Ninja "Unix Makefiles"; do
  name=${generator// /-}
  cons=$work/consumer-$name bin=$work/build-$name
  cp -r "$src/test/package/consumer" "$cons"

  step "$generator: configure and build the consumer"
  cmake -S "$cons" -B "$bin" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCONSUMER_ARCHS="$archs" >"$work/configure-$name.log" ||
    { cat "$work/configure-$name.log"; fail "$generator: configure"; }
  grep -q "^helionc_DIR:PATH=$prefix/lib/cmake/helionc$" "$bin/CMakeCache.txt" ||
    fail "$generator: the consumer did not find the package in $prefix"
  cmake --build "$bin" -j "$jobs" >"$work/build-$name.log" ||
    { cat "$work/build-$name.log"; fail "$generator: build"; }

  step "$generator: run it"
  "$bin/consumer" | tee "$work/run-$name.log" || fail "$generator: the consumer failed"
  grep -q "^ok scale, ref mode$" "$work/run-$name.log" || fail "$generator: no ref-mode result"
  check_images "$generator" "$work/run-$name.log"

  gen=$bin/helionc/consumer/kernels
  [[ -f $gen/add.helion.cpp && -f $gen/shifted/add.helion.cpp ]] ||
    fail "$generator: kernels/add.cpp and kernels/shifted/add.cpp should each have a generated file"
  grep -q add_shifted "$gen/add.helion.cpp" &&
    fail "$generator: kernels/add.cpp's output holds add_shifted"
  deps=$gen/scale.helion.cpp.d
  for want in "$cons/kernels/scale.cpp" "$cons/kernels/scale_factor.h" \
              "$prefix/include/helion/hl.h" "$prefix/include/helion/hl/tensor.h"; do
    grep -qF " $want" "$deps" || fail "$generator: $deps does not name $want"
  done
  grep -qF "$src/include" "$deps" && fail "$generator: $deps names the source tree's headers"

  sleep 1 # a coarse file system could give the touched file its outputs' time
  step "$generator: touch the header scale.cpp includes"
  before=$(snapshot "$bin")
  touch "$cons/kernels/scale_factor.h"
  cmake --build "$bin" -j "$jobs" >>"$work/build-$name.log"
  after=$(snapshot "$bin")
  # main.cpp includes the kernel files in ref mode, so it depends on the header too.
  expect_changed "$generator: after touching scale_factor.h" "$before" "$after" \
    "^helionc/consumer/kernels/scale\.helion\.cpp
^helionc/consumer/kernels/scale\.scale(\.[0-9]+)?\.cu
scale\.helion\.cpp\.o
main\.cpp\.o
^consumer"

  sleep 1
  step "$generator: touch add.json (the config of kernels/add.cpp)"
  before=$after
  touch "$cons/add.json"
  cmake --build "$bin" -j "$jobs" >>"$work/build-$name.log"
  after=$(snapshot "$bin")
  expect_changed "$generator: after touching add.json" "$before" "$after" \
    "^helionc/consumer/kernels/add\.helion\.cpp
^helionc/consumer/kernels/add\.add(\.[0-9]+)?\.cu
kernels/add\.helion\.cpp\.o
^consumer"

  step "$generator: build again, nothing touched"
  before=$after
  cmake --build "$bin" -j "$jobs" >>"$work/build-$name.log"
  after=$(snapshot "$bin")
  expect_changed "$generator: a second build" "$before" "$after" ""
  if [[ $generator == Ninja ]]; then
    ninja -C "$bin" -n | grep -q "no work to do" || fail "Ninja: work left after a no-op build"
  fi
done
step "plain make (test/package/makefile/Makefile, README's lines): build and run"
cons=$work/consumer-make bin=$work/build-make
cp -r "$src/test/package/consumer" "$cons"
mkdir -p "$bin"
pmake() {
  make -C "$bin" -f "$src/test/package/makefile/Makefile" HELIONC="$prefix" SRC="$cons" "$@"
}
pmake -j "$jobs" >"$work/build-make.log" || { cat "$work/build-make.log"; fail "make: build"; }
"$bin/consumer" | tee "$work/run-make.log" || fail "make: the consumer failed"
grep -q "^ok scale, ref mode$" "$work/run-make.log" || fail "make: no ref-mode result"
archs="" check_images make "$work/run-make.log" # the Makefile compiles no images
sleep 1
step "plain make: touch the header scale.cpp includes"
before=$(snapshot "$bin")
touch "$cons/kernels/scale_factor.h"
pmake -j "$jobs" >>"$work/build-make.log"
after=$(snapshot "$bin")
expect_changed "make: after touching scale_factor.h" "$before" "$after" \
  "^gen/scale\.helion\.cpp
^gen/scale\.scale(\.[0-9]+)?\.cu
^gen/scale\.helion\.o
^main\.o
^consumer"
pmake -q || fail "make: not up to date after a build"
echo "PASS"
