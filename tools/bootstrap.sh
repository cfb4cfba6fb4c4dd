#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a result: install the packages, build mmsim, and run the
# main job on data the project generates (a synthetic trading day, summarised).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
[ -d build ] || meson setup build --buildtype=release
ninja -C build
mkdir -p out
rm -f out/day.h5
./build/src/cli/mmsim gen --seed 42 --events 2000000 --symbol SYN -o out/day.h5
./build/src/cli/mmsim info out/day.h5
