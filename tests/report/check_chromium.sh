#!/bin/sh
# mmsim report and mmsim run --curve in headless Chromium (docs/report.md): each page loads without a
# console message (an error, an uncaught exception, a blocked request), its script runs to the end
# (data-ready="1" on <body>), the heatmap has one cell per grid point (data-cells, counted by the browser
# in the DOM), and a click on a table header sorts the table; screenshots are saved in WORKDIR. Pages: the
# results fixture's report (defaults, and a fixed axis), a run's curve, a sweep's report with --curves, and
# a Monte Carlo sweep's report (distribution rows, histograms, scatter points, density grid counted in the DOM),
# and a sweep with time blocks (the selection section: rank points, logit counts, curves, set-aside note).
# The heatmap's colours are checked on pixels of a screenshot (check_pixels.py).
# Exit 77 (skipped) where Chromium is not installed (tools/deps.sh installs it for CI).
# Usage: check_chromium.sh MMSIM MKRESULTS WORKDIR
set -u
mmsim=$1 mkresults=$2 work=$3
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "report_chromium: chromium is not installed (apt-get install chromium): skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "report_chromium: FAIL: $*"; exit 1; }

# One headless load of $1; the DOM after the scripts ran goes to $2, the browser's log to $2.log.
browse() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 --virtual-time-budget=2000 --dump-dom "file://$1" >"$2" 2>"$2.log" ||
    fail "chromium could not load $1 (see $2.log)"
  # Console messages (console.*, uncaught exceptions, refused loads) are logged as CONSOLE lines.
  if grep -n "CONSOLE\|Uncaught" "$2.log"; then fail "console messages while loading $1"; fi
  grep -q '<body[^>]*data-ready="1"' "$2" || fail "the page's script did not run to its end: $1"
}
shot() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --hide-scrollbars --window-size=1300,"$3" --screenshot="$2" "file://$1" >/dev/null 2>&1
  [ -s "$2" ] || fail "no screenshot $2"
}

"$mkresults" "$work/results.h5" 10 || fail "mkresults"
"$mmsim" report "$work/results.h5" -o "$work/report.html" || fail "mmsim report"
browse "$work/report.html" "$work/report.dom"
# rep (10 values) x inv_limit (5 values): 50 grid points, 50 cells in the browser's DOM.
grep -q '<body[^>]*data-cells="50"' "$work/report.dom" ||
  fail "the heatmap does not have 50 cells: $(grep -o '<body[^>]*>' "$work/report.dom")"
shot "$work/report.html" "$work/report.png" 1700

# Sorting: a copy of the page with a test script after the page's own clicks the pnl header twice
# (ascending, then descending) and the rank header once, and records what it saw.
sed 's|</body>|<script>(function(){var t=document.getElementById("top"),h=t.tHead.rows[0].cells,i,p=-1,r;\
for(i=0;i<h.length;i++)if(h[i].textContent==="pnl")p=i;function col(c){return Array.prototype.map.call(\
t.tBodies[0].rows,function(r){return parseFloat(r.cells[c].textContent);});}h[p].click();var a=col(p);\
h[p].click();var d=col(p);h[0].click();r=col(0);var ok=1;for(i=1;i<a.length;i++){if(a[i-1]>a[i])ok=0;\
if(d[i-1]<d[i])ok=0;if(r[i-1]>r[i])ok=0;}document.body.setAttribute("data-sorted",ok?"ok":"bad");})();\
</script></body>|' "$work/report.html" >"$work/sorted.html"
browse "$work/sorted.html" "$work/sorted.dom"
grep -q '<body[^>]*data-sorted="ok"' "$work/sorted.dom" || fail "sorting the table by a header click"

# A fixed axis and the mean: queue (3) x spread (4) = 12 cells.
"$mmsim" report "$work/results.h5" -o "$work/fixed.html" --x queue --y spread --fix tape=day1.h5#AAA \
  --agg mean --metric sharpe || fail "mmsim report --fix"
browse "$work/fixed.html" "$work/fixed.dom"
grep -q '<body[^>]*data-cells="12"' "$work/fixed.dom" || fail "the fixed-axis heatmap does not have 12 cells"

# The curve of one run.
"$mmsim" gen --seed 1 --events 100000 --symbol SYN -o "$work/day.h5" >/dev/null || fail "mmsim gen"
"$mmsim" run "$work/day.h5" --spread 0 --inv-limit 5 --queue power --curve "$work/day.html" >/dev/null ||
  fail "mmsim run --curve"
browse "$work/day.html" "$work/day.dom"
shot "$work/day.html" "$work/day.png" 1000

# A report with the curves of its two best rows (mmsim report --curves).
"$mmsim" sweep "$work/day.h5" --grid spread=0:3:1 --grid inv_limit=1,5 --set queue=power --quiet \
  -o "$work/sweep.h5" || fail "mmsim sweep"
"$mmsim" report "$work/sweep.h5" -o "$work/curves.html" --curves 2 || fail "mmsim report --curves"
browse "$work/curves.html" "$work/curves.dom"
grep -q '<body[^>]*data-cells="8"' "$work/curves.dom" || fail "the sweep's heatmap does not have 8 cells"
# Monte Carlo results (sweep --paths 20 --keep-paths, 12 combinations): a copy of the page with a test script
# counts, in the browser's DOM, the distribution rows with their histograms, the scatter's points and the
# numbered top rows; then the density grid (--scatter 5), whose cells' counts must sum to the 12 rows.
"$mmsim" sweep "$work/day.h5" --grid spread=0,0.5,1,1.5 --grid inv_limit=2,5,10 --set latency_dist=exponential \
  --set latency_ns=200000 --set queue_join=uniform --paths 20 --keep-paths --quiet -o "$work/mc.h5" ||
  fail "mmsim sweep --paths"
"$mmsim" report "$work/mc.h5" -o "$work/mc.html" >/dev/null || fail "mmsim report (Monte Carlo)"
"$mmsim" report "$work/mc.h5" -o "$work/mc-dense.html" --scatter 5 >/dev/null || fail "mmsim report --scatter 5"
count='<script>(function(){function n(s){return document.querySelectorAll(s).length;}var d=0;\
document.querySelectorAll("svg rect.dens").forEach(function(e){d+=parseInt(e.getAttribute("data-n"),10);});\
document.body.setAttribute("data-mc",n("svg g.dist")+" "+n("svg g.dist path.hist")+" "+n("svg circle.pt")+" "+\
n("svg g.top")+" "+d);})();</script></body>'
for p in mc mc-dense; do
  sed "s|</body>|$count|" "$work/$p.html" >"$work/$p-count.html"
  browse "$work/$p.html" "$work/$p.dom"
  browse "$work/$p-count.html" "$work/$p-count.dom"
done
grep -q '<body[^>]*data-mc="5 5 12 5 0"' "$work/mc-count.dom" ||
  fail "Monte Carlo report: want 5 rows, 5 histograms, 12 points, 5 numbered: $(grep -o 'data-mc="[^"]*"' "$work/mc-count.dom")"
grep -q '<body[^>]*data-mc="5 5 0 5 12"' "$work/mc-dense-count.dom" ||
  fail "density grid: want 12 rows counted: $(grep -o 'data-mc="[^"]*"' "$work/mc-dense-count.dom")"
shot "$work/mc.html" "$work/mc.png" 2400

# The selection section (issue 32): a sweep with time blocks. A test script counts, in the browser's DOM,
# the rank scatter's points (one per trial with a fill: spread 0 and 1 fill on this day, 2 and 3 do
# not: 4 of 8 trials), the logit bins' counts (their sum: C(8, 4) = 70 splits of 8 blocks) and the three
# out-of-sample curves, and reads the set-aside note.
"$mmsim" sweep "$work/day.h5" --grid spread=0:3:1 --grid inv_limit=1,5 --blocks 8 --quiet -o "$work/blocks.h5" ||
  fail "mmsim sweep --blocks"
"$mmsim" report "$work/blocks.h5" -o "$work/select.html" >/dev/null || fail "mmsim report (blocks)"
sel='<script>(function(){function n(s){return document.querySelectorAll(s).length;}var d=0;\
document.querySelectorAll("svg.logits rect.lg").forEach(function(e){d+=parseInt(e.getAttribute("data-n"),10);});\
var a=document.getElementById("set-aside");document.body.setAttribute("data-sel",n("svg.ranks circle.rk")+" "+d+" "+\
n("svg.wf path.oos")+n("svg.wf path.isbest")+n("svg.wf path.median")+" "+(a?a.getAttribute("data-n"):"-"));})();</script></body>'
sed "s|</body>|$sel|" "$work/select.html" >"$work/select-count.html"
browse "$work/select.html" "$work/select.dom"
browse "$work/select-count.html" "$work/select-count.dom"
grep -q '<body[^>]*data-sel="4 70 111 4"' "$work/select-count.dom" ||
  fail "selection section: want 4 points, 70 splits, 3 curves, 4 set aside: $(grep -o 'data-sel="[^"]*"' "$work/select-count.dom")"
shot "$work/select.html" "$work/select.png" 2600
# Colours (issue 29): the mean of the fixture's pnl (-15..15 per row) has cells of both signs. A probe
# script in a copy of the page writes, for the most profitable and the most losing cell (by data-v), the
# page coordinates of a point a quarter in from the cell's corner (away from its value label and the best
# cell's outline); the screenshot of that copy, taken at the same window size and scale, must be blue
# there and red there (check_pixels.py reads the PNG).
"$mmsim" report "$work/results.h5" -o "$work/colours.html" --agg mean >/dev/null || fail "mmsim report --agg mean"
probe='<script>(function(){var c=[].slice.call(document.querySelectorAll("svg rect.cell"));\
c=c.filter(function(e){return !isNaN(parseFloat(e.getAttribute("data-v")));});\
c.sort(function(a,b){return parseFloat(a.getAttribute("data-v"))-parseFloat(b.getAttribute("data-v"));});\
function p(e){var r=e.getBoundingClientRect();var x=Math.round(r.left+window.scrollX+r.width/4);\
var y=Math.round(r.top+window.scrollY+r.height/4);return x+","+y+","+e.getAttribute("data-v");}\
document.body.setAttribute("data-probe",p(c[c.length-1])+" "+p(c[0]));})();</script></body>'
sed "s|</body>|$probe|" "$work/colours.html" >"$work/colours-probe.html"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --hide-scrollbars --force-device-scale-factor=1 --window-size=1300,900 --virtual-time-budget=2000 \
  --dump-dom "file://$work/colours-probe.html" >"$work/colours.dom" 2>/dev/null || fail "chromium (probe)"
points=$(sed -n 's/.*<body[^>]*data-probe="\([^"]*\)".*/\1/p' "$work/colours.dom")
[ -n "$points" ] || fail "the colour probe did not run"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --hide-scrollbars --force-device-scale-factor=1 --window-size=1300,900 \
  --screenshot="$work/colours.png" "file://$work/colours-probe.html" >/dev/null 2>&1
[ -s "$work/colours.png" ] || fail "no screenshot $work/colours.png"
/usr/bin/python3 "$(dirname "$0")/check_pixels.py" "$work/colours.png" "$points" || fail "heatmap colours"
echo "report_chromium: ok (screenshots $work/report.png, $work/day.png, $work/mc.png, $work/colours.png)"
