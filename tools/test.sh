#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks the formatting (.clang-format), builds with warnings
# as errors and runs every test, then
# does the same under AddressSanitizer + UndefinedBehaviorSanitizer (+ float-cast-overflow, debug asserts,
# the allocation-failure injection tests and the fuzz targets' seeded mutations, CI's fuzz smoke), then
# ThreadSanitizer on the threads engine (tools/tsan.sh). Benchmarks are not run here (meson test -C build
# --benchmark, see docs/perf.md); nor is libFuzzer (tools/fuzz.sh, docs/fuzzing.md "In CI").
set -euo pipefail
cd "$(dirname "$0")/.."
# What the release build needs first; the rest (Python's packages, clang, Chromium) installs while it
# compiles: on a fresh machine that is most of the 3.5 minutes of installing, mostly on one core.
tools/deps.sh --build
deps_log=$(mktemp)
tools/deps.sh >"$deps_log" 2>&1 &
deps_pid=$!
trap 'wait "$deps_pid" 2>/dev/null || true; rm -f "$deps_log"' EXIT
jobs=$(nproc)
[ -d build-ci ] || meson setup build-ci --buildtype=release -Dwerror=true
ninja -C build-ci
if ! wait "$deps_pid"; then
  cat "$deps_log" >&2
  echo "tools/test.sh: tools/deps.sh failed" >&2
  exit 1
fi
cat "$deps_log"
# One code style (.clang-format), applied to every C, header and CUDA file.
git ls-files '*.c' '*.h' '*.cu' | grep -v '^fixtures/' | xargs clang-format --dry-run --Werror
# Suite 'once' (the command line's and the engines' behaviour: messages, files, journals, signals,
# processes) runs in the sanitizer pass below only; every other test runs in both.
# (and suite 'cuda_deps', which configures and compiles a copy of the GPU machines' build: checked on
# build-core below instead)
meson test -C build-ci --print-errorlogs --num-processes "$jobs" --no-suite once --no-suite cuda_deps
# The GPU machines' build (docs/perf-gpu.md): the core, the CUDA engine where nvcc exists, and the
# checker, with no HDF5; its checker must pass here too.
# -O1: CI checks that it builds and that its checker passes; the speed is measured elsewhere.
[ -d build-core ] || meson setup build-core --buildtype=plain -Doptimization=1 -Dwerror=true -Dcore_only=true
ninja -C build-core
# Its CUDA object (where nvcc exists) follows the headers it includes (the test cuda_deps, on this build).
if [ -f build-core/cuda/libmm_cuda.a.p/engine_cuda.cu.o ]; then tests/check_cuda_deps.sh . build-core; fi
build-core/checkmodel --tapes 2 --combos 16
# ... and it reads a real tape without HDF5: a raw tape written by the full build (mmsim export).
build-ci/src/cli/mmsim gen --seed 5 --events 30000 -o build-core/day.h5 --replace >/dev/null
build-ci/src/cli/mmsim export build-core/day.h5 -o build-core/day.mmtape
build-core/checkmodel --bench --tape build-core/day.mmtape --combos 64 --kernel batch
# -O1 (asserts on): the sanitizers' usual level; the suite runs in about half the time it takes at -O0.
# UBSan in trap mode (-fsanitize-undefined-trap-on-error): a check that fails executes ud2, and ASan
# (handle_sigill=1, set in every test's environment) reports the SIGILL with the symbolized stack, whose
# frame #0 is the file and line of the check; what is lost is only UBSan's sentence ("signed integer
# overflow: ..."): rebuild without the flag to read it. Without the runtime's 7 MB of check descriptors
# the build takes half the CPU (162 s against 323 s) and each of the suite's processes starts faster
# (the sanitizer tests: 701 s of CPU against 789 s). The trap flag on the link line too: then gcc links no
# libubsan (nothing calls it), whose globals LeakSanitizer scanned at every process's exit (a process
# of the suite: 83 -> 51 ms). docs/testing.md, "CI's time".
asan_c='-fsanitize=float-cast-overflow -fsanitize-undefined-trap-on-error'
if [ ! -d build-asan ]; then
  meson setup build-asan -Doptimization=1 -Ddebug=true -Dwerror=true -Db_sanitize=address,undefined \
    -Dc_args="$asan_c" -Dc_link_args="$asan_c" -Db_lundef=false \
    -Dcuda=disabled -Dalloc_fail=true
else
  meson configure build-asan -Dalloc_fail=true -Doptimization=1 -Dc_args="$asan_c" \
    -Dc_link_args="$asan_c"
fi
ninja -C build-asan
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:handle_sigill=1 \
  meson test -C build-asan --print-errorlogs --num-processes "$jobs" --timeout-multiplier 3 \
  --no-suite peer --no-suite static --no-suite mutations --no-suite extension --no-suite planted \
  --no-suite chromium --no-suite scipy
# (Skipped here, run in the release build above: the peer gate checks numbers, not memory; 'extension'
# builds a patched copy of the tree; 'static' reads the sources; 'mutations' is import_fuzz_replay's 18,000
# seeded mutations (import_fuzz_replay_san runs 1,800 of them here, CI's fuzz smoke of that target);
# 'planted' runs checkmodel's planted bugs (test code: that the checker catches them), 'chromium' a
# browser over the report pages that report_html checks here, 'scipy' mmsim select's numbers against
# scipy (test_select runs here). CI's time: docs/testing.md, "CI's time".)
tools/tsan.sh
