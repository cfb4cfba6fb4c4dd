#!/usr/bin/python3
"""mmsim report and mmsim run --curve without a browser (docs/report.md): the page is well-formed (parsed
as XML), self-contained (no URL, no external file, one inline script), the heatmap has one cell per grid
point and each cell holds the aggregate of the right rows (recomputed here with h5py and numpy), the best
cell is marked, the top table is the file's best rows; long axes are grouped; bad flags are one line and
exit 2 with no output file; the curve page stays small. On Monte Carlo results (sweep --paths): the
distribution rows hold the stored percentiles of the top rows, their histograms numpy's of /paths; the
robustness view has one point per combination, or a density grid equal to numpy's histogram2d.
Usage: check_report.py MMSIM MKRESULTS WORKDIR"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

SVG = "{http://www.w3.org/2000/svg}"
XH = "{http://www.w3.org/1999/xhtml}"
MMSIM, MKRESULTS, WORK = sys.argv[1], sys.argv[2], sys.argv[3]


def run(*args):
    return subprocess.run([MMSIM, *args], capture_output=True, text=True)


def page(path):
    """Parse the page (as XML: it must be well-formed) and check it is self-contained."""
    text = open(path, encoding="utf-8").read()
    root = ET.fromstring(text)
    # No network and no other file: the only URIs are the two XML namespace names.
    urls = set(re.findall(r"[a-z]+://[^\s\"'<>)]*", text))
    assert urls <= {"http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg"}, urls
    for el in root.iter():
        for attr in ("src", "href", "{http://www.w3.org/1999/xlink}href", "action"):
            assert attr not in el.attrib, (el.tag, attr)
        assert el.tag not in (XH + "link", XH + "img", XH + "iframe", XH + "object", XH + "embed"), el.tag
    assert "url(" not in text and "@import" not in text
    scripts = root.findall(".//" + XH + "script")
    assert len(scripts) == 1 and "src" not in scripts[0].attrib
    return root, text


def cells(root):
    return [r for r in root.iter(SVG + "rect") if r.get("class") == "cell"]


def title(el):
    return el.find(SVG + "title").text


def fmt(v):
    """rep_num: "%.6g", nan."""
    if np.isnan(v):
        return "nan"
    return "%.6g" % (0.0 if v == 0 else v)


def check_cells(root, t, axes, xkey, ykey, metric, agg, where=None):
    """Every cell's title: its x and y values and the aggregate of the matching rows."""
    cs = cells(root)
    xs, ys = axes[xkey], axes[ykey]
    assert len(cs) == len(xs) * len(ys), (len(cs), len(xs), len(ys))
    svg = next(root.iter(SVG + "svg"))
    assert (int(svg.get("data-nx")), int(svg.get("data-ny"))) == (len(xs), len(ys))
    sel = np.ones(len(t), bool)
    for k, v in (where or {}).items():
        sel &= t[k] == v
    fn = {"max": np.nanmax, "min": np.nanmin, "mean": np.nanmean}[agg]
    values = {}
    for c in cs:
        head, line = title(c).split("\n")[:2]
        m = re.match(r"%s=(\S+), %s=(\S+)$" % (xkey, ykey), head)
        assert m, head
        xv, yv = m.group(1), m.group(2)
        xi = [fmtaxis(v) for v in xs].index(xv)
        yi = [fmtaxis(v) for v in ys].index(yv)
        rows = sel & (t[xkey] == xi if xs.dtype.kind == "O" else t[xkey] == xs[xi])
        rows &= t[ykey] == yi if ys.dtype.kind == "O" else t[ykey] == ys[yi]
        vals = t[metric][rows].astype(float)
        want = fn(vals) if np.isfinite(vals).any() or not np.isnan(vals).all() else np.nan
        assert line.startswith("%s %s = %s over %d row" % (metric, agg, fmt(want), rows.sum())), (line, want)
        values[(xi, yi)] = want
        assert (xi, yi) not in [k for k in values if k != (xi, yi)]
    return cs, values


def fmtaxis(v):
    if isinstance(v, (bytes, str)):
        return v.decode() if isinstance(v, bytes) else v
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    for p in (15, 16, 17):
        s = "%.*g" % (p, v)
        if float(s) == v:
            return s
    return repr(v)


def best_cell(root):
    best = [r for r in root.iter(SVG + "rect") if r.get("class") == "best"]
    assert len(best) == 1
    b = best[0]
    hit = [c for c in cells(root) if (c.get("x"), c.get("y")) == (b.get("x"), b.get("y"))]
    assert len(hit) == 1
    return hit[0]


def num_attr(el, k):
    return float(el.get(k))


def rgb(fill):
    return tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))


def check_colours(root, text, metric, unit, xkey, ykey):
    """The diverging scale centred on zero (issue 29): each cell's data-v is its value, blue above
    zero (b - r >= 20: even a small profit is told from white), red below, near-white at zero, the
    most profitable cell dark blue and the most losing one dark red (each side scaled to its own
    extreme); the legend names the metric and its unit, marks 0 and the best cell's value; the best
    cell's row and column labels are bold (class bst)."""
    cs = cells(root)
    vs = [float(c.get("data-v")) for c in cs]
    assert min(vs) < 0 < max(vs), (min(vs), max(vs))
    for c, v in zip(cs, vs):
        r, g, b = rgb(c.get("fill"))
        if v > 0:
            assert b - r >= 20, (v, c.get("fill"))
        elif v < 0:
            assert r - b >= 20, (v, c.get("fill"))
        else:
            assert c.get("fill") == "#f7f7f7", (v, c.get("fill"))
    assert rgb(cs[vs.index(max(vs))].get("fill")) == (33, 102, 172)
    assert rgb(cs[vs.index(min(vs))].get("fill")) == (178, 24, 43)
    leg = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    assert len(leg) == 1
    words = [t.text for t in leg[0].iter(SVG + "text")]
    assert words[0] == metric and words[1] == unit and "0" in words, words
    assert words[-1] == "best cell: " + fmt(max(vs)), words
    bold = [t.text for t in root.iter(SVG + "text") if t.get("class") == "bst"]
    b = title(best_cell(root)).split("\n")[0]
    assert b == "%s=%s, %s=%s" % (xkey, bold[0], ykey, bold[1]), (b, bold)
    assert "Blue: above 0, red: below, white: 0" in text


def check_mc(work):
    """Monte Carlo results (sweep --paths): the distribution and robustness views against the file."""
    tape, mc, mc_np = (os.path.join(work, n) for n in ("mcday.h5", "mc.h5", "mc-nopaths.h5"))
    subprocess.run([MMSIM, "gen", "--seed", "3", "--events", "20000", "--symbol", "SYN", "-o", tape], check=True,
                   capture_output=True)
    grid = ["--grid", "spread=0,0.5,1,1.5", "--grid", "inv_limit=2,5,10", "--set", "latency_dist=exponential",
            "--set", "latency_ns=200000", "--set", "queue_join=uniform", "--quiet"]
    subprocess.run([MMSIM, "sweep", tape, *grid, "--paths", "50", "--keep-paths", "-o", mc], check=True,
                   capture_output=True)
    subprocess.run([MMSIM, "sweep", tape, *grid, "--paths", "20", "-o", mc_np], check=True, capture_output=True)
    with h5py.File(mc) as f:
        res, paths, n_paths = f["results"][:], f["paths"][:], int(f.attrs["paths"])
        index = f["index/pnl_mean"][:]
    ids = res["id"]

    def dist_rows(root):
        svgs = [s for s in root.iter(SVG + "svg") if s.get("class") == "dist"]
        rows = [g for g in root.iter(SVG + "g") if g.get("class") == "dist"]
        return (svgs[0] if svgs else None), rows

    def robust(root):
        svg = [s for s in root.iter(SVG + "svg") if s.get("class") == "robust"]
        assert len(svg) == 1
        return svg[0]

    def check_boxes(svg, rows, want_ids, table):
        """Each row: the stored summaries in its attributes, its bar drawn from p5 to p95."""
        assert [int(g.get("data-id")) for g in rows] == list(want_ids), ([g.get("data-id") for g in rows], want_ids)
        x0, pw, alo, ahi = (num_attr(svg, k) for k in ("data-x0", "data-pw", "data-alo", "data-ahi"))
        X = lambda v: x0 + (v - alo) / (ahi - alo) * pw  # noqa: E731
        for g in rows:
            r = table[int(g.get("data-id"))]
            for k in ("p5", "p50", "p95", "cvar5"):
                assert num_attr(g, "data-" + k) == r["pnl_" + k], (k, g.get("data-" + k), r["pnl_" + k])
            assert num_attr(g, "data-mean") == r["pnl_mean"]
            box = [e for e in g.iter(SVG + "rect") if e.get("class") == "box"][0]
            assert abs(float(box.get("x")) - X(r["pnl_p5"])) < 0.01
            assert abs(float(box.get("x")) + float(box.get("width")) - X(r["pnl_p95"])) < 0.02
            p50 = [e for e in g.iter(SVG + "line") if e.get("class") == "p50"][0]
            assert abs(float(p50.get("x1")) - X(r["pnl_p50"])) < 0.01
            t = g.find(SVG + "title").text
            assert ("p5 %s, p50 %s, p95 %s" % (fmt(r["pnl_p5"]), fmt(r["pnl_p50"]), fmt(r["pnl_p95"]))) in t, t

    # Defaults: the top 5 by the objective (pnl_mean, largest first), histograms of /paths, one point per row.
    out = os.path.join(work, "mc.html")
    r = run("report", mc, "-o", out)
    assert r.returncode == 0 and r.stderr == "", r
    root, text = page(out)
    svg, rows = dist_rows(root)
    check_boxes(svg, rows, index[:5], res)
    # Histograms: 40 bins over the smallest to the largest path pnl of these 5 rows, numpy's counts.
    lo, hi = num_attr(svg, "data-lo"), num_attr(svg, "data-hi")
    sel = np.isin(paths["id"], index[:5])
    assert (lo, hi) == (paths["pnl"][sel].min(), paths["pnl"][sel].max()), (lo, hi)
    assert int(svg.get("data-bins")) == 40
    varied = 0
    for g in rows:
        i = int(g.get("data-id"))
        h = [e for e in g.iter(SVG + "path") if e.get("class") == "hist"]
        assert len(h) == 1
        counts = [int(c) for c in h[0].get("data-counts").split()]
        want, _ = np.histogram(paths["pnl"][paths["id"] == i], bins=40, range=(lo, hi))
        assert counts == list(want) and sum(counts) == n_paths, (i, counts, list(want))
        varied += (want > 0).sum() > 1
    assert varied >= 3, "the histograms hardly vary: a sweep without execution randomness?"
    # The scatter: one point per combination, at its (pnl_mean, pnl_p5), the top 5 numbered on top.
    rb = robust(root)
    assert rb.get("data-dense") == "0" and rb.get("data-matched") == str(len(res))
    pts = [c for c in rb.iter(SVG + "circle") if c.get("class") == "pt"]
    assert sorted(int(c.get("data-id")) for c in pts) == list(ids), [c.get("data-id") for c in pts]
    for c in pts:
        rr = res[int(c.get("data-id"))]
        assert ("pnl_mean = %s, pnl_p5 = %s" % (fmt(rr["pnl_mean"]), fmt(rr["pnl_p5"]))) in title(c), title(c)
        assert ("spread=%s, inv_limit=%d" % (fmtaxis(rr["spread"]), rr["inv_limit"])) in title(c), title(c)
    tops = [g for g in rb.iter(SVG + "g") if g.get("class") == "top"]
    assert [int(g.get("data-id")) for g in tops] == list(index[:5])
    # The heatmap and the table are still there; one inline script.
    assert len(cells(root)) == 12 and "Top 12 of 12 by pnl_mean" in text

    # Another metric and direction, a filter: the rows are those of the top table.
    out2 = os.path.join(work, "mc-std.html")
    r = run("report", mc, "-o", out2, "--metric", "pnl_std", "--asc", "--fix", "inv_limit=5", "--dist", "3")
    assert r.returncode == 0, r
    root, _ = page(out2)
    svg, rows = dist_rows(root)
    cand = res[res["inv_limit"] == 5]
    order = np.lexsort((cand["id"], cand["pnl_std"]))
    check_boxes(svg, rows, cand["id"][order][:3], res)
    rb = robust(root)
    pts = [c for c in rb.iter(SVG + "circle") if c.get("class") == "pt"]
    assert sorted(int(c.get("data-id")) for c in pts) == sorted(cand["id"]) and len(pts) == 4

    # Many combinations: above --scatter the rows are counted into a 100 x 100 grid (numpy's histogram2d).
    out3 = os.path.join(work, "mc-dense.html")
    r = run("report", mc, "-o", out3, "--scatter", "5", "--dist", "0")
    assert r.returncode == 0, r
    root, text = page(out3)
    assert dist_rows(root) == (None, [])
    rb = robust(root)
    assert rb.get("data-dense") == "1" and not [c for c in rb.iter(SVG + "circle") if c.get("class") == "pt"]
    assert not [g for g in rb.iter(SVG + "g") if g.get("class") == "top"]
    dens = [e for e in rb.iter(SVG + "rect") if e.get("class") == "dens"]
    assert sum(int(e.get("data-n")) for e in dens) == len(res)
    rng = [[num_attr(rb, "data-xlo"), num_attr(rb, "data-xhi")], [num_attr(rb, "data-ylo"), num_attr(rb, "data-yhi")]]
    assert rng[0][0] == res["pnl_mean"].min() and rng[1][1] == res["pnl_p5"].max(), rng
    h2, _, _ = np.histogram2d(res["pnl_mean"], res["pnl_p5"], bins=100, range=rng)
    got = np.zeros((100, 100), int)
    for e in dens:
        got[int(e.get("data-i")), int(e.get("data-j"))] = int(e.get("data-n"))
    assert (got == h2).all()

    # Without --keep-paths: the stored percentiles only, no histogram.
    out4 = os.path.join(work, "mc-nopaths.html")
    r = run("report", mc_np, "-o", out4)
    assert r.returncode == 0, r
    root, text = page(out4)
    svg, rows = dist_rows(root)
    with h5py.File(mc_np) as f:
        res2, idx2 = f["results"][:], f["index/pnl_mean"][:5]
    check_boxes(svg, rows, idx2, res2)
    assert svg.get("data-bins") is None and not [e for e in root.iter(SVG + "path") if e.get("class") == "hist"]
    assert "No histograms: the sweep did not keep its paths" in text

    # The flags: out of range, or on a table of one path: one line, exit 2, no output.
    bad = os.path.join(work, "bad.html")
    for args, msg in [(["report", mc, "-o", bad, "--dist", "101"], "report: --dist: 101 is out of range [0, 100]"),
                      (["report", mc, "-o", bad, "--scatter", "-1"], "report: --scatter: -1 is out of range"),
                      (["report", os.path.join(work, "results.h5"), "-o", bad, "--dist", "3"],
                       "--dist and --scatter are for Monte Carlo results")]:
        r = run(*args)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and msg in r.stderr, (args, r)
        assert not os.path.exists(bad)
    return len(pts)

def main():
    os.makedirs(WORK, exist_ok=True)
    res = os.path.join(WORK, "results.h5")
    for f in os.listdir(WORK):
        os.remove(os.path.join(WORK, f))
    subprocess.run([MKRESULTS, res, "10"], check=True)
    with h5py.File(res) as f:
        t = f["results"][:]
        axes = {k: (f["axes"][k].asstr()[:].astype(object) if f["axes"][k].dtype.kind == "O" else f["axes"][k][:])
                for k in f["axes"]}

    # Defaults: the objective (pnl, max) over the two axes with the most values: rep (10) x inv_limit (5).
    out = os.path.join(WORK, "default.html")
    r = run("report", res, "-o", out)
    assert r.returncode == 0 and r.stderr == "", r
    assert r.stdout == "report %s: pnl by rep x inv_limit, 10 x 5 cells\n" % out, r.stdout
    root, text = page(out)
    cs, values = check_cells(root, t, axes, "rep", "inv_limit", "pnl", "max")
    b = best_cell(root)
    assert fmt(max(values.values())) in title(b).split("\n")[1], title(b)
    # The top table: 20 rows, the file's best by pnl (its stored index), rank order.
    table = root.find(".//" + XH + "table")
    body = table.find(XH + "tbody").findall(XH + "tr")
    assert len(body) == 20
    with h5py.File(res) as f:
        index = f["index/pnl"][:20]
    assert [int(tr.findall(XH + "td")[1].text) for tr in body] == list(index)
    heads = [th.text for th in table.find(XH + "thead").iter(XH + "th")]
    assert heads[:7] == ["rank", "id", "tape", "spread", "inv_limit", "queue", "rep"], heads
    # Provenance: seed, content hash, inputs with fingerprints, engine, the configuration.
    with h5py.File(res) as f:
        a = f["results"].attrs
        for want in ("%d" % a["seed"], "%016x" % a["content_hash"], "0123456789abcdef", "fedcba9876543210",
                     a["engine"], "day1.h5#AAA"):
            assert want in text, want

    # Chosen axes, another metric, mean, a fixed axis; the x axis an enum.
    out2 = os.path.join(WORK, "queue.html")
    r = run("report", res, "-o", out2, "--x", "queue", "--y", "spread", "--metric", "sharpe", "--agg", "mean",
            "--fix", "tape=day1.h5#AAA", "--top", "5")
    assert r.returncode == 0, r
    root, _ = page(out2)
    check_cells(root, t, axes, "queue", "spread", "sharpe", "mean", {"tape": 0})
    assert len(root.find(".//" + XH + "tbody").findall(XH + "tr")) == 5
    # Smallest first: --asc aggregates by min by default and marks the smallest cell.
    out3 = os.path.join(WORK, "asc.html")
    r = run("report", res, "-o", out3, "--x", "spread", "--y", "inv_limit", "--metric", "max_drawdown", "--asc",
            "--fix", "rep=103")
    assert r.returncode == 0, r
    root, _ = page(out3)
    _, values = check_cells(root, t, axes, "spread", "inv_limit", "max_drawdown", "min", {"rep": 103})
    assert fmt(min(values.values())) in title(best_cell(root)).split("\n")[1]

    # A long axis is grouped: rep (10 values) with at most 3 cells per axis -> runs of 4: 3 cells.
    out4 = os.path.join(WORK, "bins.html")
    r = run("report", res, "-o", out4, "--bins", "3")
    assert r.returncode == 0 and "3 x 3 cells" in r.stdout, r
    root, _ = page(out4)
    assert len(cells(root)) == 9
    assert title(cells(root)[0]).startswith("rep=100..109, inv_limit=1..2\n"), title(cells(root)[0])
    assert int(re.search(r"over (\d+) rows", title(cells(root)[0])).group(1)) == 1200 // 10 // 5 * 4 * 2

    # Colours: the mean of pnl (-15 .. 15 per row) has cells of both signs.
    out6 = os.path.join(WORK, "colours.html")
    r = run("report", res, "-o", out6, "--agg", "mean")
    assert r.returncode == 0, r
    root, text6 = page(out6)
    check_colours(root, text6, "pnl", "money: price units of the tape", "rep", "inv_limit")
    assert "the 2 tapes aggregated here may not share one" in text6
    root, text = page(out3)  # max_drawdown, not signed and >= 0: the sequential scale, its unit
    assert 'data-v="' in text and "Blue: above" not in text and ">money: price units of the tape<" in text

    # Bad input: one line naming the flag or file, exit 2 (usage) or 1 (the file), and no output.
    tick = os.path.join(WORK, "tiny.h5")
    subprocess.run([MMSIM, "gen", "--seed", "1", "--events", "20000", "--symbol", "SYN", "-o", tick],
                   check=True, capture_output=True)
    bad = os.path.join(WORK, "bad.html")
    cases = [
        (["report", res], 2, "report: -o FILE is required"),
        (["report", res, "-o", res], 2, "the output is also an input"),
        (["report", res, "-o", tick], 2, "is an HDF5 file; refusing to overwrite it with an HTML report"),
        (["report", res, "-o", bad, "--x", "nope"], 2, "report: --x: unknown axis 'nope' (axes: tape, spread"),
        (["report", res, "-o", bad, "--x", "rep", "--y", "rep"], 2, "--x and --y are both 'rep'"),
        (["report", res, "-o", bad, "--x", "rep", "--fix", "rep=100"], 2, "--x rep: the axis is also fixed"),
        (["report", res, "-o", bad, "--fix", "rep=101"], 2, "'101' is not a value of axis rep"),
        (["report", res, "-o", bad, "--fix", "rep"], 2, "--fix: 'rep' is not key=value"),
        (["report", res, "-o", bad, "--fix", "rep=100", "--fix", "rep=103"], 2, "axis rep is fixed twice"),
        (["report", res, "-o", bad, "--metric", "pnl2"], 2, "--metric: unknown metric 'pnl2' (pnl, fees"),
        (["report", res, "-o", bad, "--agg", "median"], 2, "--agg: 'median' is not max, mean or min"),
        (["report", res, "-o", bad, "--bins", "0"], 2, "--bins: 0 is out of range [1, 500]"),
        (["report", res, "-o", bad, "--top", "x"], 2, "--top: 'x' is not a decimal integer"),
        (["report", res, "-o", os.path.join(WORK, "no", "r.html")], 2, "does not exist"),
        (["report", os.path.join(WORK, "missing.h5"), "-o", bad], 1, "missing.h5"),
        (["report", tick, "-o", bad], 1, "tiny.h5"),
        (["run", tick, "--curve", bad, "--engine", "batched"], 2, "run: --curve needs the reference engine"),
        (["run", tick, "--curve", tick], 2, "run: --curve %s: the output is also an input" % tick),
        (["run", tick, "--curve", bad, "--trace", bad], 2, "also the --trace file; choose another file"),
        (["run", tick, "--curve", bad, "--curve-buckets", "0"], 2, "--curve-buckets: 0 is out of range"),
    ]
    for args, code, msg in cases:
        r = run(*args)
        lines = r.stderr.splitlines()
        assert r.returncode == code and len(lines) == 1 and msg in lines[0] and lines[0].startswith("mmsim: "), \
            (args, r.returncode, r.stderr)
        assert not os.path.exists(bad), args
    assert not [f for f in os.listdir(WORK) if ".tmp." in f]

    # The curve: three panels from 200 buckets, a small file, fills marked.
    curve = os.path.join(WORK, "day.html")
    r = run("run", tick, "--spread", "0", "--inv-limit", "5", "--queue", "power", "--curve", curve,
            "--curve-buckets", "200")
    assert r.returncode == 0 and ("curve          %s\n" % curve) in r.stdout, r
    root, text = page(curve)
    svg = next(root.iter(SVG + "svg"))
    assert svg.get("data-buckets") == "200"
    lines = list(root.iter(SVG + "polyline"))
    assert len(lines) == 3 and all(0 < len(p.get("points").split()) <= 200 for p in lines)
    fills = [p for p in root.iter(SVG + "path") if p.get("class") == "fill"]
    n_fills = sum(int(re.match(r"\S+ (\d+) ", title(p)).group(1)) for p in fills)
    m = re.search(r"fills +(\d+) bid, (\d+) ask", r.stdout)
    assert n_fills == int(m.group(1)) + int(m.group(2)) > 0, (n_fills, m.group(0))
    # The last value of the PnL line is the run's final PnL (marked to the last mid, after fees).
    pnl = float(re.search(r"^pnl +(\S+)", r.stdout, re.M).group(1))
    assert ("<dt>pnl</dt><dd>%s " % fmt(pnl)) in text
    assert os.path.getsize(curve) < 200_000, os.path.getsize(curve)
    # --curves: the best rows of a real sweep rerun from the file's configuration, tape and axis values.
    sw = os.path.join(WORK, "sweep.h5")
    subprocess.run([MMSIM, "sweep", tick, "--grid", "spread=0:3:1", "--grid", "inv_limit=1,5", "--set", "queue=power",
                    "--quiet", "-o", sw], check=True, capture_output=True)
    out5 = os.path.join(WORK, "curves.html")
    r = run("report", sw, "-o", out5, "--curves", "2", "--curve-buckets", "100")
    assert r.returncode == 0, r
    root, text = page(out5)
    curves = [s for s in root.iter(SVG + "svg") if s.get("class") == "curve"]
    assert len(curves) == 2 and all(c.get("data-buckets") == "100" for c in curves)
    assert text.count("The rerun's metrics equal the stored row's.") == 2, "rerun differs"
    with h5py.File(sw) as f:
        best = f["results"][f["index/pnl"][0]]
    assert ("<dt>pnl</dt><dd>%s " % fmt(best["pnl"])) in text
    # A tape whose content changed since the sweep is refused before any output.
    subprocess.run([MMSIM, "gen", "--seed", "2", "--events", "20000", "--symbol", "SYN", "--replace", "-o", tick],
                   check=True, capture_output=True)
    r = run("report", sw, "-o", bad, "--curves", "1")
    assert r.returncode == 1 and "the sweep ran on" in r.stderr and not os.path.exists(bad), r

    # A table of one path has no Monte Carlo section.
    for p in (out, out2, out3, out4, out5):
        assert 'class="dist"' not in open(p).read() and 'class="robust"' not in open(p).read(), p
    n_pts = check_mc(WORK)

    print("report: ok (%d cells, curve %d bytes, Monte Carlo: %d points)" % (len(cs), os.path.getsize(curve), n_pts))


main()
