#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a result: install the packages, build mmsim, and run the
# main job on data the project generates: a synthetic trading day, a spread x inventory-limit sweep over it
# with every core, the best combinations, and their HTML report (out/report.html, docs/report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh  # also headless Chromium, for the report_chromium test (docs/report.md)
[ -d build ] || meson setup build --buildtype=release
ninja -C build
mkdir -p out
rm -f out/day.h5 out/results.h5 out/results.h5.journal out/report.html
# A 6.5 h synthetic trading day with the parameters fitted to the AMZN sample day (docs/examples/amzn-market.ini,
# written by mmsim calibrate: event rate, spreads, queues, informed flow).
./build/src/cli/mmsim gen --config docs/examples/amzn-market.ini -o out/day.h5
./build/src/cli/mmsim info out/day.h5
./build/src/cli/mmsim sweep out/day.h5 --grid spread=0:15:1 --grid inv_limit=1,2,5,10,20 \
  --grid queue=risk-averse,power,log --set latency_ns=100000 -o out/results.h5
./build/src/cli/mmsim show out/results.h5 --top 10
./build/src/cli/mmsim report out/results.h5 -o out/report.html
