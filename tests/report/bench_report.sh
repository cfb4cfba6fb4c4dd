#!/bin/sh
# Benchmark of mmsim report on 1,000,000-row tables (docs/perf.md, "Reports"): a real sweep of spread (1000
# values) x inv_limit (1000) over a 2,000-event synthetic tape, and the results fixture with 1,000,080 rows;
# then a Monte Carlo sweep of 10,000 combinations x 100 kept paths (docs/report.md, "Monte Carlo views").
# Each report is checked (its cell count) before it is timed; prints wall time, peak RSS and page size.
# Usage: bench_report.sh MMSIM MKRESULTS WORKDIR
set -eu
mmsim=$1 mkresults=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$mmsim" gen --seed 7 --events 2000 --symbol SYN -o "$work/tiny.h5" >/dev/null
"$mmsim" sweep "$work/tiny.h5" --grid spread=0.1:100:0.1 --grid inv_limit=1:1000:1 --quiet -o "$work/sq.h5"
"$mkresults" "$work/big.h5" 8334 65536

bench() { # NAME EXPECTED_CELLS RESULTS [FLAGS...]
  name=$1 cells=$2 res=$3
  shift 3
  out="$work/$name.html"
  "$mmsim" report "$res" -o "$out" "$@" >/dev/null
  n=$(grep -c '<rect class="cell"' "$out")
  [ "$n" = "$cells" ] || { echo "bench_report: $name: $n cells, expected $cells: not timed"; exit 1; }
  for i in 1 2 3; do
    /usr/bin/time -f "%e %M" "$mmsim" report "$res" -o "$out" "$@" 2>&1 >/dev/null | tail -1
  done | sort -n | {
    read -r best rss && read -r _ _ && read -r worst _
    printf "%-34s %6s cells  %5s - %5s s  %6d kB RSS  %9d bytes\n" "$name $*" "$cells" "$best" "$worst" \
      "$rss" "$(stat -c %s "$out")"
  }
}
bench sq-default 10000 "$work/sq.h5"
bench sq-bins30 900 "$work/sq.h5" --bins 30
bench sq-mean 10000 "$work/sq.h5" --agg mean
bench sq-fix 100 "$work/sq.h5" --fix inv_limit=500
bench big-default 500 "$work/big.h5"
"$mmsim" sweep "$work/tiny.h5" --grid spread=0.1:100:0.1 --grid inv_limit=1:10:1 --set latency_dist=exponential \
  --set latency_ns=200000 --set queue_join=uniform --paths 100 --keep-paths --quiet -o "$work/mc.h5"
bench mc-default 1000 "$work/mc.h5"
bench mc-p5 1000 "$work/mc.h5" --metric pnl_p5
bench mc-dist100 1000 "$work/mc.h5" --dist 100
bench mc-scatter20000 1000 "$work/mc.h5" --scatter 20000
