#!/usr/bin/env bash
# ThreadSanitizer on the threads engine: builds mmsim with clang -fsanitize=thread (OpenMP from LLVM's
# libomp, whose Archer tool tells TSan about OpenMP's own synchronisation, so its barriers and task queue
# give no false reports; GCC's libgomp is not instrumented and would), then
#   1. runs `mmsim sweep --engine threads --workers 2` on a generated tape over 3 grids (chunks of 1, 2 and
#      the automatic size; a fixed strategy, Avellaneda-Stoikov, GLFT, every queue rule) and checks each
#      table equals the serial engine's (content hash);
#   2. interrupts a 1,000-combination threads sweep with SIGINT (the cancel flag read by the worker threads), resumes it and
#      checks the table equals the serial engine's.
# Fails (exit 1) on any ThreadSanitizer report (halt_on_error) or a differing table.
#   tools/tsan.sh            (build dir: build-tsan, or TSAN_BUILD)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TSAN_BUILD:-build-tsan}
command -v clang >/dev/null || { echo "tools/tsan.sh: clang not found (tools/deps.sh installs it)" >&2; exit 1; }
if [ ! -d "$build" ]; then
  CC=clang meson setup "$build" --buildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false \
    -Dcuda=disabled -Dmpi=disabled -Dopenmp=enabled >/dev/null
fi
ninja -C "$build" src/cli/mmsim
archer=$(dirname "$(readlink -f "$(clang -print-file-name=libomp.so)")")/libarcher.so
[ -f "$archer" ] || archer=$(find /usr/lib/llvm-* -name libarcher.so 2>/dev/null | head -1)
[ -f "$archer" ] || { echo "tools/tsan.sh: libarcher.so not found (package libomp-dev)" >&2; exit 1; }
export OMP_TOOL_LIBRARIES="$archer"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:ignore_noninstrumented_modules=1"
mmsim="$PWD/$build/src/cli/mmsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$mmsim" gen --seed 3 --events 20000 -o "$tmp/t.h5" >/dev/null
grids=("--grid spread=1:4:1 --grid inv_limit=2,5,10 --chunk 1"
       "--grid strategy=fixed,as,glft --grid queue=risk-averse,power,log --chunk 2"
       "--grid latency_ns=0,100000,1000000 --grid requote=1,2 --grid fair=mid,micro")
i=0
for g in "${grids[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$mmsim" sweep "$tmp/t.h5" $g --engine threads --workers 2 --quiet -o "$tmp/threads$i.h5"
  # shellcheck disable=SC2086
  "$mmsim" sweep "$tmp/t.h5" $g --engine serial --quiet -o "$tmp/serial$i.h5"
  a=$("$mmsim" show "$tmp/threads$i.h5" --verify --top 1 | awk '$1 == "hash" {print $2}')
  b=$("$mmsim" show "$tmp/serial$i.h5" --verify --top 1 | awk '$1 == "hash" {print $2}')
  if [ -z "$a" ] || [ "$a" != "$b" ]; then
    echo "tools/tsan.sh: grid $i: the threads table ($a) differs from the serial one ($b)" >&2
    exit 1
  fi
  echo "tsan: sweep --engine threads --workers 2 $g: no report, table = serial ($a)"
done
# SIGINT in the middle of a threads sweep: the handler's flag (mm_sweep_opts.cancel) is read by the worker
# threads; the run stops with exit 130 and keeps its journal, and --resume completes the same table.
# The signal is sent once the journal holds a record (OUT.journal grows past its header), so the run is
# interrupted in the middle whatever the machine's speed.
big="--grid spread=1:10:1 --grid inv_limit=1:100:1 --chunk 1"
# shellcheck disable=SC2086
"$mmsim" sweep "$tmp/t.h5" $big --engine threads --workers 2 --quiet -o "$tmp/int.h5" 2>"$tmp/int.err" &
pid=$!
size0=""
for _ in $(seq 200); do
  if [ -f "$tmp/int.h5.journal" ]; then
    size=$(stat -c %s "$tmp/int.h5.journal")
    [ -z "$size0" ] && size0=$size
    [ "$size" -gt "$size0" ] && break
  fi
  sleep 0.05
done
kill -INT "$pid" 2>/dev/null || true
rc=0
wait "$pid" || rc=$?
if grep -q "ThreadSanitizer" "$tmp/int.err"; then cat "$tmp/int.err" >&2; exit 1; fi
if [ "$rc" -eq 130 ]; then
  # shellcheck disable=SC2086
  "$mmsim" sweep "$tmp/t.h5" $big --engine threads --workers 2 --quiet --resume -o "$tmp/int.h5"
  echo "tsan: SIGINT during sweep --engine threads: exit 130, $(head -c 200 "$tmp/int.err"); --resume: no report"
elif [ "$rc" -eq 0 ]; then
  echo "tsan: SIGINT during sweep --engine threads: the sweep had finished first (no interruption tested)"
else
  echo "tools/tsan.sh: SIGINT during sweep --engine threads: exit $rc" >&2
  cat "$tmp/int.err" >&2
  exit 1
fi
# shellcheck disable=SC2086
"$mmsim" sweep "$tmp/t.h5" $big --engine serial --quiet -o "$tmp/int_serial.h5"
a=$("$mmsim" show "$tmp/int.h5" --verify --top 1 | awk '$1 == "hash" {print $2}')
b=$("$mmsim" show "$tmp/int_serial.h5" --verify --top 1 | awk '$1 == "hash" {print $2}')
if [ -z "$a" ] || [ "$a" != "$b" ]; then
  echo "tools/tsan.sh: interrupted + resumed table $a != serial $b" >&2
  exit 1
fi
echo "tsan: interrupted + resumed threads table = serial ($a)"
# The Criterion tests (tests/test_sweep.c) cannot run under ThreadSanitizer: Criterion maps its
# inheritable arena at an address inside TSan's shadow ranges and aborts ("Could not initialize inheritable
# arena"). The sweeps above drive the same engine entry (mm_sweep_run, MM_ENGINE_THREADS) through the CLI.
