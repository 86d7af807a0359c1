#!/usr/bin/env bash
# Checks the runtime on a GPU machine: builds helion_runtime and the GPU smoke
# test (test/unit/runtime/gpu_smoke.cpp), runs the runtime's unit tests, then
# the smoke test, which allocates device tensors, compiles kernels built on the
# device library with NVRTC and launches them through the Driver API (16-byte
# vector copies, block reductions, cp.async, a TMA 2-D tile copy on an
# mbarrier, an illegal-address report), checking each result on the CPU.
#
# Usage: scripts/gpu_runtime_check.sh [BUILD_DIR]   (default: build-gpu-rt)
# Writes gpu_runtime_summary.txt (and the logs) to $OUT when it is set.
# Needs cmake, ninja, g++ (C++23), the CUDA toolkit (NVRTC) and a driver; no LLVM.
# When the whole project does not configure (missing fmt, nlohmann_json,
# lit/FileCheck...), or with HELIONC_RT_STANDALONE=1, it builds the runtime
# alone from a generated project.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu-rt}
out=${OUT:-$build/out}
mkdir -p "$build" "$out"
summary=$out/gpu_runtime_summary.txt
: >"$summary"
failures=0

say() { echo "$*" | tee -a "$summary"; }
step() {  # step NAME COMMAND...: runs, logs to $out/NAME.log, records PASS/FAIL
  local name=$1
  shift
  local start=$SECONDS
  if "$@" >"$out/$name.log" 2>&1; then
    say "PASS $name ($((SECONDS - start)) s)"
  else
    say "FAIL $name ($((SECONDS - start)) s): see $name.log; its tail:"
    tail -n 25 "$out/$name.log" | sed 's/^/    /' | tee -a "$summary"
    failures=$((failures + 1))
    return 1
  fi
}

say "gpu_runtime_check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
say "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if command -v nvidia-smi >/dev/null; then
  say "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -1)"
fi
export PATH=/usr/local/cuda/bin:$PATH
cuda_root=${CUDA_HOME:-/usr/local/cuda}

# The runtime alone, for machines where the whole project cannot configure.
standalone=$build/standalone-src
write_standalone_project() {
  mkdir -p "$standalone"
  cat >"$standalone/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(helionc_runtime_check LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY \${PROJECT_BINARY_DIR}/bin)
find_package(CUDAToolkit REQUIRED)
add_compile_options(-Wall -Wextra -Wno-unused-parameter)
add_subdirectory($root/include include)
add_subdirectory($root/runtime runtime)
find_path(CATCH2_INCLUDE_DIR catch2/catch.hpp)
function(helion_add_unit_test name)
  cmake_parse_arguments(ARG "CXX23" "" "SOURCES;LIBS" \${ARGN})
  if(NOT CATCH2_INCLUDE_DIR)
    message(STATUS "Catch2 not found: skipping \${name}")
    return()
  endif()
  add_executable(\${name} \${ARG_SOURCES} $root/test/catch_main.cpp)
  target_include_directories(\${name} PRIVATE \${CATCH2_INCLUDE_DIR})
  target_link_libraries(\${name} PRIVATE \${ARG_LIBS})
endfunction()
add_subdirectory($root/test/unit/runtime unit-runtime)
CMAKE
}

configure_full() {
  cmake -S "$root" -B "$build/full" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHELIONC_ENABLE_FRONTEND=OFF -DHELIONC_BUILD_GPU_SMOKE=ON \
    -DCUDAToolkit_ROOT="$cuda_root"
}
configure_standalone() {
  write_standalone_project
  cmake -S "$standalone" -B "$build/standalone" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHELIONC_BUILD_GPU_SMOKE=ON -DCUDAToolkit_ROOT="$cuda_root"
}

if [ "${HELIONC_RT_STANDALONE:-0}" != 1 ] && configure_full >"$out/configure.log" 2>&1; then
  say "PASS configure (the whole project, frontend off)"
  bin=$build/full
else
  say "building the runtime alone (the whole project was skipped or did not configure: configure.log)"
  step configure-standalone configure_standalone || { say "RESULT: FAIL"; exit 1; }
  bin=$build/standalone
fi
targets="gpu_smoke runtime_backend_autoinstall"
ninja -C "$bin" -t query runtime_tests >/dev/null 2>&1 && targets="$targets runtime_tests"
step build ninja -C "$bin" -j "$(nproc)" $targets || { say "RESULT: FAIL"; exit 1; }
exe=$bin/bin

export HELIONC_CACHE_DIR=$build/nvrtc-cache
rm -rf "$HELIONC_CACHE_DIR"
step compile-only "$exe/gpu_smoke" --compile-only
[ -x "$exe/runtime_tests" ] && step unit-tests "$exe/runtime_tests" --warn NoAssertions
step backend-autoinstall "$exe/runtime_backend_autoinstall"
step gpu-smoke "$exe/gpu_smoke" "$out/gpu_smoke.txt"
# Again, with the kernels now in the disk cache (its first line says "hit").
step gpu-smoke-cached "$exe/gpu_smoke" "$out/gpu_smoke_cached.txt"
for f in gpu_smoke.txt gpu_smoke_cached.txt; do
  [ -f "$out/$f" ] && { say "--- $f"; cat "$out/$f" >>"$summary"; cat "$out/$f"; }
done
grep -h "ms" "$out/compile-only.log" 2>/dev/null | tee -a "$summary"

if [ "$failures" -eq 0 ]; then
  say "RESULT: PASS"
else
  say "RESULT: FAIL ($failures step(s))"
  exit 1
fi
