#!/usr/bin/env bash
# Installs helionc's build and test dependencies from Debian's packages.
# Idempotent: when everything is already installed it prints one line and exits.
set -euo pipefail

packages=(
  cmake ninja-build make g++ python3
  llvm-19-dev libclang-cpp19-dev libclang-19-dev clang-19 llvm-19-tools
  libcli11-dev nlohmann-json3-dev catch2 libfmt-dev
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
