#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer, -Dfuzz=true) and runs
# each for a short smoke: FUZZ_SECONDS (default 15) per target, starting from its seeds in fixtures/fuzz/<t>/
# and its past findings in fixtures/fuzz/<t>/regress/. Fails (exit 1) when a target crashes, leaks, hits
# undefined behaviour, times out on one input (60 s: a wide margin for a slow, loaded machine; finding F6's
# input once took 13 s) or runs out of memory (2 GB); the input that did it is left in
# build-fuzz/fuzz-artifacts/<t>/. See docs/fuzzing.md for longer runs.
#   tools/fuzz.sh [TARGET...]        (default: every target)
#   FUZZ_SECONDS=300 tools/fuzz.sh ticks     (docs/fuzzing.md: results of longer runs)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build-fuzz}
secs=${FUZZ_SECONDS:-15}
# FUZZ_RUNS=N: a reproducible smoke instead (N inputs per target from a fixed seed, FUZZ_SEED, default 1),
# as CI runs it: the same inputs every time, so CI cannot fail at random on a new HDF5 bug (finding F7).
runs=${FUZZ_RUNS:-}
# The HDF5 targets (ticks, results) run FUZZ_RUNS_HDF5 inputs (default FUZZ_RUNS / 8, at least 100): each
# input forks mm__h5_guard's probe child (findings F7, F9), about 0.2 s under ASan with libFuzzer's memory,
# so 2000 inputs would take about 7 minutes per target.
runs_hdf5=${FUZZ_RUNS_HDF5:-}
if [ -n "$runs" ] && [ -z "$runs_hdf5" ]; then runs_hdf5=$((runs / 8 < 100 ? 100 : runs / 8)); fi
all=(grid import ticks results binance_spot sweep_config rawtape)
command -v clang >/dev/null || { echo "tools/fuzz.sh: clang not found (tools/deps.sh installs it)" >&2; exit 1; }
if [ ! -d "$build" ]; then
  CC=clang meson setup "$build" --buildtype=debugoptimized -Dfuzz=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link -Dcuda=disabled -Dmpi=disabled >/dev/null
fi
# Only the targets this tree defines (tests/fuzz/meson.build); the fuzz build builds nothing else.
targets=()
for t in "${@:-${all[@]}}"; do
  if grep -q "'$t'" tests/fuzz/meson.build; then targets+=("$t"); else echo "tools/fuzz.sh: no target $t" >&2; fi
done
[ ${#targets[@]} -gt 0 ] || exit 1
ninja -C "$build" "${targets[@]/#/tests/fuzz/fuzz_}"
# A single allocation over 128 MB fails (returns NULL) instead of being made: HDF5 1.10.8 allocates and clears
# whatever length a corrupt variable-length string claims (up to 4 GB, 16-60 s; docs/fuzzing.md finding F3),
# which would otherwise stop the run as an out-of-memory or, on a slow machine, a timeout (a CI run once
# spent 43 s on one input under the old 512 MB cap). No seed needs a tenth of that. mmsim's own code must handle the NULL too.
# HDF5's own memory errors on corrupt files (findings F4, F5) are suppressed: tests/fuzz/asan-hdf5.supp.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=128:suppressions=$PWD/tests/fuzz/asan-hdf5.supp
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan-hdf5.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# The HDF5 targets' scratch files (tests/fuzz/fuzz_mem_file.h) go here; a crashing target leaves its file.
# A name of fixed length, wherever the checkout is: the file's path is in the error messages the targets
# check byte by byte, so its length changes the coverage counts and with them the run.
export TMPDIR
TMPDIR=$(mktemp -d /tmp/mmsim-fuzz.XXXXXXXX)
trap 'rm -rf "$TMPDIR"' EXIT
failed=()
for t in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$t" art="$build/fuzz-artifacts/$t/"
  # A reproducible run starts from the seeds alone, not from what earlier runs added.
  if [ -n "$runs" ]; then rm -rf "$corpus"; fi
  mkdir -p "$corpus" "$art"
  log="$build/fuzz-$t.log"
  # The seeds (fixtures/fuzz/<t>/*) and past findings (regress/*) as one explicit list in C-locale name
  # order: libFuzzer sorts its seeds by size only, so reading them from directories would make the run
  # depend on the file system's directory order (ext4 hashes names with a per-file-system seed), and it
  # would also read hdf5-slow/ (finding F3's inputs: slow by design, not replayed).
  seeds=$(find "fixtures/fuzz/$t" "fixtures/fuzz/$t/regress" -maxdepth 1 -type f ! -name .gitkeep |
    LC_ALL=C sort -u | paste -sd, -)
  if [ -n "$runs" ]; then
    n=$runs
    case $t in ticks | results) n=$runs_hdf5 ;; esac
    limit=(-runs="$n" -seed="${FUZZ_SEED:-1}")
  else
    limit=(-max_total_time="$secs")
  fi
  # The first directory receives new inputs; the fixtures are only read. -reload=0: libFuzzer would
  # otherwise reread that directory every second, which makes a run depend on the clock.
  if nice -n 10 "$build/tests/fuzz/fuzz_$t" "${limit[@]}" -timeout=60 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -reload=0 -artifact_prefix="$art" -seed_inputs="$seeds" \
       "$corpus" >"$log" 2>&1; then
    stats=$(grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" | awk '{printf "%s ", $2}')
    cov=$(grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" "$log" | tail -1 | grep -oE "cov: [0-9]+ ft: [0-9]+ corp: [^ ]+" || true)
    if [ -n "$runs" ]; then how="$n runs, seed ${FUZZ_SEED:-1}"; else how="${secs}s"; fi
    echo "fuzz $t: ok, $how, executions/peak MB: $stats, $cov"
  elif grep -aqE "^    #0 0x[0-9a-f]+ +(in [^ ]+ )?\(/lib/x86_64-linux-gnu/libhdf5" "$log"; then
    # A crash whose innermost frame is in HDF5 itself: an HDF5 1.10.8 bug on a corrupt file (docs/fuzzing.md
    # lists them; mm__h5_guard catches those it can). Reported, the input kept, not a failure of this smoke:
    # CI checks mmsim's code. Any crash in mmsim's code still fails.
    echo "fuzz $t: stopped by an HDF5 crash, not mmsim's (input in $art; log $log):" >&2
    grep -aE "ERROR|SUMMARY" "$log" | head -2 >&2
  else
    echo "fuzz $t: FAILED (log $log, input in $art):" >&2
    grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$log" | head -5 >&2 || tail -20 "$log" >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "tools/fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
