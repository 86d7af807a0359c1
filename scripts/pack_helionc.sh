#!/usr/bin/env bash
# Runs here (needs the LLVM 19 dev packages): builds a helionc that runs where no LLVM is
# installed (Clang/LLVM from their static archives, libstdc++ inside; libc stays shared,
# libnvrtc.so.13 is opened at run time for --emit cubin and --aot-arch) in build-static/,
# and packs it with the headers it reads at run time into .carry/helionc.tar.xz:
#   helionc/bin/helionc
#   helionc/include/helion/...        <helion/hl.h>, found relative to bin/
#   helionc/lib/clang/19/include/...  Clang's resource headers, likewise
# On the GPU machine (carry .carry/helionc.tar.xz): scripts/unpack_helionc.sh.
# The kernels' libstdc++ headers are the GPU machine's own GCC's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-static}
stage=$root/.carry/helionc
tarball=$root/.carry/helionc.tar.xz

flags=(-DHELIONC_STATIC_LLVM=ON -DHELIONC_ENABLE_TESTS=OFF -DCMAKE_BUILD_TYPE=Release)
# lld links the static Clang in seconds where ld.bfd takes minutes.
if command -v ld.lld >/dev/null; then flags+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld); fi
start=$SECONDS
cmake -S "$root" -B "$build" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$build" --target helionc -j "${JOBS:-$(nproc)}"
echo "built $build/bin/helionc in $((SECONDS - start)) s"

exe=$build/bin/helionc
# Everything but libc, the loader and NVRTC must be inside the executable.
extra=$(ldd "$exe" | awk '{print $1}' |
        grep -Ev '^(linux-vdso\.so|/lib64/ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libnvrtc\.so)' || true)
if [[ -n "$extra" ]]; then
  echo "error: $exe still needs shared libraries:" $extra >&2
  exit 1
fi
glibc=$(objdump -T "$exe" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)

llvm_config=$(sed -n 's/^HELIONC_LLVM_CONFIG:[A-Z]*=//p' "$build/CMakeCache.txt")
major=$("$llvm_config" --version | cut -d. -f1)
resource=$("$llvm_config" --libdir)/clang/$major

rm -rf "$stage" "$tarball"
mkdir -p "$stage/bin" "$stage/include" "$stage/lib/clang/$major"
cp "$exe" "$stage/bin/"
cp -r "$root/include/helion" "$stage/include/"
cp -r "$resource/include" "$stage/lib/clang/$major/"
printf 'helionc %s (git %s), Clang %s static, built %s on %s; needs glibc >= %s (and libnvrtc.so.13 to compile cubins)\n' \
  "$("$exe" --version | awk '{print $2}')" "$(git -C "$root" rev-parse --short HEAD)" \
  "$("$llvm_config" --version)" "$(date -u +%F)" "$(. /etc/os-release && echo "$PRETTY_NAME")" \
  "${glibc#GLIBC_}" > "$stage/BUILD.txt"

# The packed tree must work where the source tree is gone: a compile from the stage.
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"' EXIT
"$stage/bin/helionc" compile "$root/examples/add.cpp" -o "$smoke" >/dev/null

start=$SECONDS
tar -C "$root/.carry" -cf - helionc | xz -T0 -9 > "$tarball"
echo "packed in $((SECONDS - start)) s: $(cat "$stage/BUILD.txt")"
du -sh "$stage/bin/helionc" "$stage/include" "$stage/lib" | sed 's|'"$root"'/||'
echo "$(du -h "$tarball" | cut -f1) ${tarball#"$root"/} ($(stat -c %s "$tarball") bytes)"
