#!/usr/bin/env bash
# The MPI engine under OpenMPI (docs/cluster.md): `mpirun -np 3 mmsim sweep` gives the serial engine's
# table (content hash) with the engine chosen by the launcher or named, with OpenMP threads inside the ranks
# and with one rank; ranks with different settings are refused; a rank killed mid-run ends the job with an
# error on rank 0 naming it and leaves a journal that `--resume` completes, without MPI or with it; a journal
# of an interrupted run without MPI is completed under MPI. Nothing but the output is written (no stray
# temporary file, no /dev/shm segment left).
#   tests/mpi/test_mpi.sh MMSIM WORKDIR
set -euo pipefail
mmsim=$(readlink -f "$1")
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"
# Three ranks on any machine (--oversubscribe), as root in CI containers (--allow-run-as-root); no
# single-copy shared memory (CMA needs ptrace rights that containers often lack); a hung run fails after
# two minutes instead of the test's timeout.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
mpi=(timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe)
fail() { echo "test_mpi: FAIL: $*" >&2; exit 1; }
hash_of() { sed -n 's/^results: .*, content hash \([0-9a-f]*\)$/\1/p' "$1"; }
shm_before=$(ls /dev/shm | grep -c '^mmsim\.mpi\.' || true)

# `mmsim` does not load MPI's libraries; an MPI launcher's sweep runs `mmsim-mpi` beside it (src/cli/main.c).
# (ldd's output is read whole: `ldd | grep -q` under pipefail fails when grep exits first and ldd
# then dies of SIGPIPE.)
if grep -q 'libmpi' <<<"$(ldd "$mmsim")"; then fail "$mmsim links libmpi (it should run mmsim-mpi instead)"; fi
[ -x "$(dirname "$mmsim")/mmsim-mpi" ] || fail "no mmsim-mpi beside $mmsim"
grep -q 'libmpi' <<<"$(ldd "$(dirname "$mmsim")/mmsim-mpi")" || fail "mmsim-mpi does not link libmpi"

"$mmsim" gen --seed 3 --events 30000 --symbol AAA -o t.h5 >/dev/null
"$mmsim" gen --seed 4 --events 20000 --symbol BBB -o t.h5 >/dev/null
grid=(t.h5 --grid spread=1:6:1 --grid inv_limit=2,5,10 --grid skew=0,0.5 --chunk 3)

"$mmsim" sweep "${grid[@]}" --engine serial -o serial.h5 >serial.out
want=$(hash_of serial.out)
[ -n "$want" ] || fail "no hash from the serial engine"
echo "serial engine: $want"

check() { # name output: the run's table has the serial hash
  local got
  got=$(hash_of "$2")
  [ "$got" = "$want" ] || { cat "$2" >&2; fail "$1: content hash '$got', serial engine $want"; }
  echo "$1: $got"
}

# Launched by mpirun, the engine is mpi without being named; rank 0 alone prints.
"${mpi[@]}" -np 3 "$mmsim" sweep "${grid[@]}" -o auto.h5 >auto.out
check "mpirun -np 3 (engine chosen by the launcher)" auto.out
grep -q 'with 2 mpi workers' auto.out || { cat auto.out >&2; fail "the summary does not say 2 mpi workers"; }
[ "$(grep -c '^results:' auto.out)" = 1 ] || fail "more than one rank printed a summary"
"${mpi[@]}" -np 3 "$mmsim" sweep "${grid[@]}" --engine mpi --workers 2 -o threads.h5 >threads.out
check "mpirun -np 3 --engine mpi --workers 2 (OpenMP threads in each rank)" threads.out
"${mpi[@]}" -np 1 "$mmsim" sweep "${grid[@]}" --engine mpi -o one.h5 >one.out
check "mpirun -np 1" one.out
"$mmsim" sweep "${grid[@]}" --engine mpi -o nompi.h5 >nompi.out
check "--engine mpi without mpirun (one process)" nompi.out
# The results record the ranks that computed (issue 28: every MPI table said 1): 2 of 3 ranks (rank 0
# leads), whatever the threads in each; 1 alone. The summary's rate is never a rounded "0".
workers_of() { "$mmsim" show "$1" --top 1 | sed -n 's/^engine    mpi, \([0-9]*\) workers\{0,1\},.*/\1/p'; }
for f in auto:2 threads:2 one:1 nompi:1; do
  got=$(workers_of "${f%%:*}.h5")
  [ "$got" = "${f##*:}" ] || fail "${f%%:*}.h5 records workers = '$got', want ${f##*:}"
  ! grep -q ' 0 combos/s' "${f%%:*}.out" || fail "${f%%:*}.out: a rate of 0 combos/s"
done
echo "workers recorded: 2 ranks of 3, 1 alone"

# Ranks that do not run the same sweep (here: another seed) are refused by rank 0.
if "${mpi[@]}" -np 1 "$mmsim" sweep "${grid[@]}" -o mixed.h5 : -np 2 "$mmsim" sweep "${grid[@]}" --seed 2 \
    -o mixed.h5 >mixed.out 2>mixed.err; then
  fail "ranks with different seeds were not refused"
fi
grep -q 'not the same run as rank 0' mixed.err || { cat mixed.err >&2; fail "no message for mixed runs"; }
[ ! -e mixed.h5 ] || fail "a refused run wrote its output"
echo "different settings on two ranks: refused"

# Rank 1 dies (SIGKILL) holding its third chunk: rank 0 names it, the journal keeps the chunks done.
killed_run() {
  rm -f k.h5 k.h5.journal
  if MMSIM_TEST_KILL_WORKER=1:2 "${mpi[@]}" -np 3 "$mmsim" sweep "${grid[@]}" -o k.h5 >k.out 2>k.err; then
    fail "a run with a killed rank succeeded"
  fi
  grep -q '^mmsim: sweep: rank 1 (.*) died.* chunks saved in the journal; rerun with --resume$' k.err ||
    grep -q '^mmsim: sweep: interrupted: .* chunks saved; rerun with --resume' k.err ||
    { cat k.err >&2; fail "rank 0 did not report the dead rank"; }
  [ -s k.h5.journal ] || fail "no journal after a rank died"
  [ ! -e k.h5 ] || fail "an output after a rank died"
  grep '^mmsim: sweep:' k.err
}
killed_run
"$mmsim" sweep "${grid[@]}" --engine serial --resume -o k.h5 >k1.out
check "killed rank, resumed by the serial engine" k1.out
killed_run
"${mpi[@]}" -np 3 "$mmsim" sweep "${grid[@]}" --resume -o k.h5 >k2.out
check "killed rank, resumed under mpirun -np 3" k2.out

# A serial run stopped by SIGINT, completed under MPI.
"$mmsim" sweep "${grid[@]}" --engine serial --chunk 1 -o s.h5 >s.out 2>s.err &
pid=$!
for _ in $(seq 1 200); do
  [ "$(stat -c %s s.h5.journal 2>/dev/null || echo 0)" -gt 4096 ] && break
  sleep 0.01
done
kill -INT $pid 2>/dev/null || true
wait $pid || true
if [ -e s.h5.journal ]; then
  "${mpi[@]}" -np 3 "$mmsim" sweep "${grid[@]}" --chunk 1 --resume -o s.h5 >s2.out
  grep -q '^resumed:' s2.out || fail "the MPI run did not resume the serial journal"
  check "serial run interrupted, resumed under mpirun -np 3" s2.out
else
  echo "serial run finished before SIGINT: resume across engines not exercised here" >&2
fi

# Only rank 0 wrote, and only the outputs.
stray=$(ls -A | grep -v -E '^(t|serial|auto|threads|one|nompi|k|s)\.h5$|\.(out|err)$' || true)
[ -z "$stray" ] || fail "unexpected files: $stray"
shm_after=$(ls /dev/shm | grep -c '^mmsim\.mpi\.' || true)
[ "$shm_after" -le "$shm_before" ] || fail "shared-memory segments left in /dev/shm"
echo "test_mpi: OK"
