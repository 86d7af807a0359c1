#!/usr/bin/env bash
# Runs on the GPU machine: unpacks the helionc that scripts/pack_helionc.sh packed here
# (name .carry/helionc.tar.xz in the call's carry) and checks that it starts.
#   scripts/unpack_helionc.sh [TARBALL [DEST]]   (defaults: .carry/helionc.tar.xz, /tmp)
# Then: /tmp/helionc/bin/helionc compile kernel.cpp ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tarball=${1:-$root/.carry/helionc.tar.xz}
dest=${2:-/tmp}
rm -rf "$dest/helionc"
mkdir -p "$dest"
xz -dc "$tarball" | tar -C "$dest" -xf -
exe=$dest/helionc/bin/helionc
if ldd "$exe" | grep -q 'not found'; then
  ldd "$exe" >&2
  echo "error: $exe misses a shared library" >&2
  exit 1
fi
"$exe" --version
cat "$dest/helionc/BUILD.txt"
