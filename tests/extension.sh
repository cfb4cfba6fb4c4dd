#!/bin/sh
# The extension path (issue 30; docs/architecture.md, "Adding a rule"): tests/extension_strategy.patch
# adds a strategy value, join (quote at the best bid and ask), in the key table and the reference step
# only, as a new rule is added. In a copy of the source tree with the patch applied it must build
# (-Werror=switch: every switch over the strategy handles it), checkmodel must draw it and find every
# kernel equal to the reference (the fast kernels fall back: the key table gives join no capability),
# `mmsim run` must give the same metrics with the reference and the batched engine, sweeps with a
# strategy axis the same table with every engine, and `mmsim report` must draw it.
# Usage: extension.sh SOURCE_ROOT. Exit 77 (skip) without git (the copy takes the tracked files).
set -eu
SRC=$(cd "$1" && pwd)
command -v git >/dev/null 2>&1 && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || {
  echo "extension: no git checkout at $SRC: skipped"; exit 77; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/src"
# The tracked files and the untracked ones git does not ignore (a developer's new files).
(cd "$SRC" && git ls-files -z -c -o --exclude-standard | xargs -0 cp --parents -t "$W/src")
cd "$W/src"
git apply "$SRC/tests/extension_strategy.patch"
# -O0: the copy's compile is most of this test's time (46 s of CPU at -O1, 12 s at -O0); its checkmodel
# then runs 3 tapes (13 s at -O0), which still draw the new strategy.
meson setup "$W/b" "$W/src" --buildtype=plain -Doptimization=0 -Dwerror=true -Dcuda=disabled >"$W/setup.log" 2>&1 ||
  { tail -20 "$W/setup.log"; exit 1; }
ninja -C "$W/b" src/cli/mmsim tests/checkmodel >"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
M="$W/b/src/cli/mmsim"
fail() { echo "extension: FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }

out=$("$W/b/tests/checkmodel" --tapes 3 --combos 60) || { echo "$out"; fail "checkmodel"; }
echo "$out" | grep -q "strategy 4/4" || { echo "$out"; fail "checkmodel did not draw the new strategy"; }
echo "$out" | grep -q "== c, bit for bit" || { echo "$out"; fail "checkmodel compared no kernel"; }

cd "$W"
"$M" gen --seed 7 --events 30000 -o day.h5 >/dev/null
"$M" run day.h5 --strategy join --inv-limit 5 --json | sed 's/"engine":"[a-z]*",//' >ref.json
"$M" run day.h5 --strategy join --inv-limit 5 --engine batched --json | sed 's/"engine":"[a-z]*",//' >bat.json
cmp -s ref.json bat.json || fail "run --strategy join: the batched engine differs from the reference"
grep -q '"strategy":"join"' ref.json || fail "run does not name the strategy"
grep -Eq '"fills_bid":[1-9]' ref.json || fail "the join strategy never filled on the bid: a weak check"

h=""
for e in serial threads process; do
  "$M" sweep day.h5 --grid strategy=fixed,join --grid inv_limit=1,5,20 --engine "$e" -o "s-$e.h5" \
    --quiet >"s-$e.txt" || fail "sweep --engine $e"
  x=$(sed -n 's/.*content hash \([0-9a-f]*\).*/\1/p' "s-$e.txt")
  [ -n "$x" ] || fail "sweep --engine $e printed no content hash"
  [ -z "$h" ] || [ "$h" = "$x" ] || fail "sweep --engine $e: content hash $x, serial $h"
  h=$x
done
"$M" export s-serial.h5 -o s.csv
# The join rows are not the fixed rows: the new rule does something.
fixed=$(awk -F, 'NR > 1 && $3 ~ /fixed/ {print $5}' s.csv | sort | tr '\n' ' ')
join=$(awk -F, 'NR > 1 && $3 ~ /join/ {print $5}' s.csv | sort | tr '\n' ' ')
[ -n "$join" ] && [ "$fixed" != "$join" ] || fail "the join rows equal the fixed rows (pnl $join)"
"$M" report s-serial.h5 -o r.html >/dev/null || fail "report of a sweep over the new strategy"
grep -q join r.html || fail "the report does not name the new strategy"
echo "extension: strategy=join built from the key table and the reference step; checkmodel drew it;"
echo "extension: reference == batched, sweeps serial == threads == process ($h), report drawn"
echo "1 passed, 0 failed"
