#!/usr/bin/env bash
# Install every Debian package mmsim needs to build, test and benchmark. Idempotent: does nothing when
# all are present. Run as root (or with sudo available). Enough on a minbase Debian 12 root
# (debootstrap --variant=minbase: Essential and required packages only, no git, no /usr/bin/time):
# everything else tools/test.sh, tools/fuzz.sh, tools/tsan.sh, the Meson tests and benchmarks call
# is Essential there (coreutils timeout/nproc/stat/paste, util-linux unshare/mount/lscpu, bsdutils
# script, findutils, mawk, gzip, libc-bin ldd) or comes with a package below (binutils' addr2line with
# gcc, openssh-client, which mpirun needs even on one node, with openmpi-bin). Chromium, for the
# report_chromium test, is tools/bootstrap.sh's (the test skips without it).
# Usage: tools/deps.sh [--build]. --build: only what configuring and compiling the release build needs
# (Meson's checks: compilers, HDF5, xxHash, Criterion, zlib, MPI and mpirun, python3): tools/test.sh installs
# the rest while that build compiles (the rest, Python's packages, clang and Chromium, took about 160 of a
# fresh machine's 210 s of installing, mostly on one core).
set -euo pipefail
BUILD_PKGS=(gcc pkg-config meson ninja-build libhdf5-dev libxxhash-dev libcriterion-dev zlib1g-dev
      git   # tools/test.sh: the format check lists the tracked sources (git ls-files); tools/mutants
      time  # /usr/bin/time: the report benchmark (tests/report/bench_report.sh)
      libopenmpi-dev openmpi-bin python3)
PKGS=("${BUILD_PKGS[@]}" python3-h5py python3-numpy python3-pandas python3-xxhash
      python3-scipy  # tests/select_scipy.py: mmsim select against scipy (issue 32)
      clang clang-format libclang-rt-dev libomp-dev llvm  # clang: tools/fuzz.sh (libFuzzer), tools/tsan.sh (libomp + Archer)
      python3-numba  # tools/bench-peer: the Numba peer of ../shared/bench (issue 14)
      patch)  # tools/bench-peer --issue34: applies tools/peer_default.patch to a copy of the shared peer
PKGS+=(chromium)  # report_chromium: the report pages and the heatmap's pixels in headless Chromium (issue 29)
# The Python package (python/, docs/python.md; issue 33): pip install . (meson-python), its tests (pytest) and
# the quickstart notebook run by nbclient in an ipykernel, with matplotlib.
PKGS+=(python3-mesonpy python3-pip python3-venv python3-pytest python3-nbclient python3-nbformat python3-ipykernel
       python3-matplotlib)
if [ "${1:-}" = "--build" ]; then
  PKGS=("${BUILD_PKGS[@]}")
elif [ $# -gt 0 ]; then
  echo "usage: tools/deps.sh [--build]" >&2
  exit 2
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "tools/deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
