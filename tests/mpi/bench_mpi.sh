#!/usr/bin/env bash
# Scaling of the MPI engine on this machine (docs/perf.md, "Sweep on MPI"):
#   1. one sweep (a 400,000-event tape, 384 combinations in 48 chunks of 8) with the serial engine, the
#      process engine on every core (the single-machine reference) and under
#      mpirun -np 1, 2, 3, 4 (--oversubscribe: beyond the machine's cores ranks share them); best of REPS
#      runs of the sweep's own time (the summary line: load to end, MPI start-up excluded) and of mpirun's
#      wall time;
#   2. rank 0's time per chunk of 1, 16, 64 and 256 combinations: the time it spends handling messages
#      (MMSIM_BENCH_MPI_STATS, engine_mpi.c), 2 workers on a 200-event tape so that they answer at once;
#   3. the results table rank 0 builds alone at the end, per combination.
#   tests/mpi/bench_mpi.sh MMSIM [REPS]
set -euo pipefail
mmsim=$(readlink -f "$1")
reps=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mpi=(mpirun --allow-run-as-root --oversubscribe)
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$mmsim" gen --seed 6 --events 400000 --symbol BIG -o big.h5 >/dev/null
"$mmsim" gen --seed 5 --events 200 --symbol TINY -o tiny.h5 >/dev/null
grid=(big.h5 --grid spread=1:16:1 --grid inv_limit=2,5,10,20 --grid skew=0,0.5,1,1.5,2,3 --chunk 8)
best() { sort -g | head -1; }
run_s() { sed -n 's/^sweep: .* in \([0-9.]*\) s with .*/\1/p'; }
printf '%-22s %10s %10s %s\n' "run" "sweep s" "wall s" "hash"
for np in serial process 1 2 3 4; do
  s=() w=()
  for _ in $(seq 1 "$reps"); do
    rm -f o.h5
    t0=$(date +%s.%N)
    if [ "$np" = serial ] || [ "$np" = process ]; then
      out=$("$mmsim" sweep "${grid[@]}" --engine "$np" --workers "$(nproc)" -o o.h5)
    else
      out=$("${mpi[@]}" -np "$np" "$mmsim" sweep "${grid[@]}" --engine mpi -o o.h5)
    fi
    t1=$(date +%s.%N)
    s+=("$(printf '%s\n' "$out" | run_s)")
    w+=("$(echo "$t1 - $t0" | bc -l)")
  done
  h=$(printf '%s\n' "$out" | sed -n 's/.*content hash //p')
  printf '%-22s %10.3f %10.3f %s\n' "$(case $np in serial) echo "serial engine" ;; process) echo "process, $(nproc) workers" ;; *) echo "mpirun -np $np" ;; esac)" \
    "$(printf '%s\n' "${s[@]}" | best)" "$(printf '%s\n' "${w[@]}" | best)" "$h"
done
# Rank 0's time per chunk: MMSIM_BENCH_MPI_STATS makes rank 0 add up the time it spends handling
# messages (receive, journal, answer; waits excluded). A 200-event tape, so that the 2 workers are quick.
printf '\n%-8s %8s %16s %18s\n' "chunk" "chunks" "rank 0 busy s" "per chunk, us"
for c in 1 16 64 256; do
  n=$((c * 1000 / 2))
  [ "$n" -le 20000 ] || n=$((c * 100 / 2))
  best_us=""
  for _ in $(seq 1 "$reps"); do
    rm -f o.h5 stats.txt
    MMSIM_BENCH_MPI_STATS=$PWD/stats.txt "${mpi[@]}" -x MMSIM_BENCH_MPI_STATS -np 3 "$mmsim" sweep tiny.h5 \
      --grid spread=1:"$n":1 --grid skew=0,1 --chunk "$c" --engine mpi -o o.h5 >/dev/null
    read -r _ chunks _ busy <stats.txt
    us=$(echo "$busy / $chunks * 1000000" | bc -l)
    best_us=$(printf '%s\n%s\n' "$us" "${best_us:-$us}" | best)
  done
  printf '%-8s %8d %16.6f %18.1f\n' "$c" "$chunks" "$(echo "$best_us * $chunks / 1000000" | bc -l)" "$best_us"
done
# The table at the end, built by rank 0 alone from the journal: the command's wall time minus the sweep's
# own (the summary line's time stops before the table); 200-event tape, serial engine.
rm -f o.h5
t0=$(date +%s.%N)
out=$("$mmsim" sweep tiny.h5 --grid spread=1:100000:1 --grid skew=0,1 --chunk 256 --engine serial -o o.h5)
t1=$(date +%s.%N)
table=$(echo "$t1 - $t0 - $(printf '%s\n' "$out" | run_s)" | bc -l)
printf '\ntable of 200000 combinations after the sweep (load included): %.3f s, %.2f us per combination\n' \
  "$table" "$(echo "$table / 200000 * 1000000" | bc -l)"
echo "bytes per chunk: 24 to the worker, 8 + chunk x sizeof(mm_metrics) back (168 bytes: 21 metrics); 2 messages"
