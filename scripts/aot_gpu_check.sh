#!/usr/bin/env bash
# On the GPU machine: kernels compiled ahead of time, user streams, CUDA graphs and the
# Python example, and the first-call latency with embedded images against NVRTC at the
# first call (no disk cache), measured in one run.
#
#   scripts/aot_gpu_check.sh
#
# Needs: helionc from this checkout ($HELIONC, default /tmp/helionc/bin/helionc, which
# scripts/unpack_helionc.sh gives from the .carry/helionc.tar.xz that
# scripts/pack_helionc.sh packs here), g++, cmake (to embed the device library), CUDA 13
# ($CUDA_HOME, default /usr/local/cuda: headers and the static CUDA runtime for the test's
# streams and graphs), python3 with torch for the Python example ($PYTHON). The GPU's
# architecture: $AOT_ARCH (default sm_90a). Work files: $BUILD_DIR (default
# /tmp/aot-gpu-check-build). Results: $OUT/aot_gpu_check.json (default OUT=/tmp/aot-gpu-check)
# and a table on stdout. Exit 1 when a check fails.
#
# 1. The runtime from the sources (scripts/build_runtime.sh), the device library
#    embedded with cmake -P as the build does.
# 2. examples/add.cpp, softmax.cpp (softmax), matmul.cpp and test/gpu/kernels/add_into.cpp
#    compiled twice: with images for $AOT_ARCH (--dtype f32 --dtype bf16 --size-hint
#    4096, a fresh NVRTC disk cache: every image really compiled) and without.
# 3. test/gpu/aot_check.cpp built over each (libnvrtc not linked: checked with readelf;
#    the CUDA runtime linked statically, so no CUDA library directory is needed on the
#    loader path) and run:
#      aot:   HELIONC_REQUIRE_AOT=1, HELIONC_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 (the
#             runtime cannot load NVRTC at all) and every CUDA directory dropped from
#             LD_LIBRARY_PATH; the program also checks /proc/self/maps for libnvrtc;
#      nvrtc: HELIONC_NO_CACHE=1, so each kernel's first call runs NVRTC.
#    Each checks results against float64 references, a kernel ordered behind a sleeping
#    host callback on a non-blocking user stream, and a CUDA graph of add_into, softmax
#    and matmul captured on that stream and replayed on new inputs.
# 4. The Python example (examples/python/softmax_torch.py) over a shared library built
#    by examples/python/build.sh with embedded images, with HELIONC_REQUIRE_AOT=1 and
#    NVRTC pointed nowhere: helionc's softmax against torch.softmax in f32 and bf16 on
#    torch's current stream and on a side stream.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helionc=${HELIONC:-/tmp/helionc/bin/helionc}
cuda=${CUDA_HOME:-/usr/local/cuda}
arch=${AOT_ARCH:-sm_90a}
python=${PYTHON:-python3}
work=${BUILD_DIR:-/tmp/aot-gpu-check-build}
out=${OUT:-/tmp/aot-gpu-check}
no_nvrtc=/nonexistent/libnvrtc.so.13
rm -rf "$work"
mkdir -p "$work" "$out"
[[ -x $helionc ]] || { echo "error: no helionc at $helionc (set HELIONC)" >&2; exit 1; }
"$helionc" compile --help | grep -q -- --aot-arch ||
  { echo "error: $helionc has no --aot-arch: pack it from this checkout" >&2; exit 1; }

echo "== 1. runtime"
bash "$root/scripts/build_runtime.sh" "$work/rt"
rtlib=$work/rt/libhelion_runtime.a

echo "== 2. helionc compile, with images for $arch and without"
generate() {
  local dir=$1
  shift
  mkdir -p "$dir"
  "$helionc" compile "$root/examples/add.cpp" -o "$dir" "$@"
  "$helionc" compile "$root/examples/softmax.cpp" --kernel softmax -o "$dir" "$@"
  "$helionc" compile "$root/examples/matmul.cpp" -o "$dir" "$@"
  "$helionc" compile "$root/test/gpu/kernels/add_into.cpp" -o "$dir" "$@"
}
aot_flags=(--aot-arch "$arch" --dtype f32 --dtype bf16 --size-hint 4096)
t0=$(date +%s%N)
HELIONC_CACHE_DIR=$work/nvrtc-cache generate "$work/gen-aot" "${aot_flags[@]}"
t1=$(date +%s%N)
generate "$work/gen-jit"
t2=$(date +%s%N)
aot_compile_ms=$(((t1 - t0) / 1000000))
plain_compile_ms=$(((t2 - t1) / 1000000))
images=$(cat "$work"/gen-aot/*.helion.cpp | grep -c "^      {\"$arch\", ")
echo "helionc compile of 4 files: ${aot_compile_ms} ms with $images images, ${plain_compile_ms} ms without"
ls -l "$work"/gen-aot/*.helion.cpp "$work"/gen-jit/*.helion.cpp

echo "== 3. aot_check"
build() {
  g++ -std=c++23 -O2 -I "$root/include" -I "$cuda/include" -I "$1" "$root/test/gpu/aot_check.cpp" \
    "$rtlib" -L"$cuda/lib64" -lcudart_static -lrt -ldl -pthread \
    -Wl,--undefined=helion_rt_install_cuda_backend -o "$2"
}
build "$work/gen-aot" "$work/aot_check_aot" &
pid_aot=$!
build "$work/gen-jit" "$work/aot_check_nvrtc" &
pid_nvrtc=$!
wait $pid_aot
wait $pid_nvrtc
linked_nvrtc=false
if readelf -d "$work/aot_check_aot" | grep -q 'NEEDED.*nvrtc'; then linked_nvrtc=true; fi
readelf -d "$work/aot_check_aot" | grep NEEDED
# The loader path without any CUDA directory.
lib_path=$(tr ':' '\n' <<<"${LD_LIBRARY_PATH:-}" | grep -v -i cuda | paste -sd: || true)
status=0
env LD_LIBRARY_PATH="$lib_path" HELIONC_REQUIRE_AOT=1 HELIONC_NVRTC_LIBRARY=$no_nvrtc \
  "$work/aot_check_aot" aot "$out/aot.json" || status=1
env HELIONC_NO_CACHE=1 "$work/aot_check_nvrtc" nvrtc "$out/nvrtc.json" || status=1

echo "== 4. Python"
py_status=0
HELIONC=$helionc bash "$root/examples/python/build.sh" "$root/examples/softmax.cpp" "$work/py" \
  "$rtlib" --kernel softmax --aot-arch "$arch" --dtype f32 --dtype bf16 --size-hint 4096
env HELIONC_REQUIRE_AOT=1 HELIONC_NVRTC_LIBRARY=$no_nvrtc "$python" \
  "$root/examples/python/softmax_torch.py" "$work/py/libsoftmax.so" --json "$out/python.json" ||
  py_status=1

echo "== results"
"$python" - "$out" "$arch" "$aot_compile_ms" "$plain_compile_ms" "$images" "$linked_nvrtc" \
  "$status" "$py_status" <<'EOF'
import json, os, sys
out, arch, aot_ms, plain_ms, images, linked, status, py_status = sys.argv[1:]
aot_s, plain_s = float(aot_ms) / 1e3, float(plain_ms) / 1e3
def load(name):
    path = os.path.join(out, name)
    return json.load(open(path)) if os.path.exists(path) else None
aot, jit, py = load("aot.json"), load("nvrtc.json"), load("python.json")
if not aot or not jit:
    print("FAILED: aot_check wrote no results (its output is above)")
    sys.exit(1)
print(f"{aot['device']} ({aot['arch']}); images embedded for {arch}")
print(f"{'kernel':10} {'first call, AOT':>16} {'first call, NVRTC':>18} {'warm call':>10}")
for k in aot["first_call_ms"]:
    print(f"{k:10} {aot['first_call_ms'][k]:13.2f} ms {jit['first_call_ms'][k]:15.2f} ms "
          f"{aot['warm_call_ms'][k]:7.3f} ms")
print(f"{'total':10} {sum(aot['first_call_ms'].values()):13.2f} ms "
      f"{sum(jit['first_call_ms'].values()):15.2f} ms")
print(f"helionc compile, 4 files: {float(aot_s):.1f} s with {images} images, "
      f"{float(plain_s):.1f} s without")
print(f"AOT run: NVRTC loaded {aot['nvrtc_loaded']}, mapped {aot['nvrtc_mapped']}, "
      f"libnvrtc linked {linked}; NVRTC run: loaded {jit['nvrtc_loaded']}")
for label, run in (("aot", aot), ("nvrtc", jit)):
    for name, ok in run["checks"].items():
        print(f"  {label:6} {'ok  ' if ok else 'FAIL'} {name}")
if py:
    for r in py["results"]:
        print(f"  python softmax {r['dtype']} on the {r['stream']} stream: max abs err "
              f"{r['max_abs_err']:.3g}")
    print(f"  python: {py['embedded_images']} images, NVRTC loaded {py['nvrtc_loaded']}")
ok = (status == "0" and py_status == "0" and not aot["nvrtc_loaded"] and not aot["nvrtc_mapped"]
      and linked == "false" and py is not None and py["ok"] and not py["nvrtc_loaded"])
summary = {"arch": arch, "device": aot["device"], "aot": aot, "nvrtc": jit, "python": py,
           "helionc_compile_s": {"aot": float(aot_s), "plain": float(plain_s)},
           "embedded_images": int(images), "libnvrtc_linked": linked == "true", "ok": ok}
with open(os.path.join(out, "aot_gpu_check.json"), "w") as f:
    json.dump(summary, f, indent=1)
print("all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
EOF
