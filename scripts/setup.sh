#!/usr/bin/env bash
# Installs the Debian packages mpinotify needs to build and test, if any is
# missing. Idempotent and non-interactive; needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran
  libhwloc-dev libucx-dev libfabric-dev libfabric-bin
  libgtest-dev libgmock-dev
  clang-format
  man-db groff-base python3
  iproute2 util-linux
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup: done"
