"""Time blocks (sweep(..., blocks=B | block_ns=L), Results.blocks()) and Results.select() against
`mmsim sweep --blocks/--block-ns`, `mmsim select` and the selection section of `mmsim report`."""
import math
import re

import h5py
import numpy as np
import pytest

import mmsim
from conftest import cli

GRID = {"spread": "0:3:0.25", "inv_limit": [2, 5, 10, 20], "skew": [0, 0.1]}
FLAGS = ["--grid", "spread=0:3:0.25", "--grid", "inv_limit=2,5,10,20", "--grid", "skew=0,0.1", "--set",
         "latency_ns=50000"]
SET = {"latency_ns": 50000}


@pytest.fixture(scope="module")
def blocks(day, tmp_path_factory):
    """The same 16-block sweep from Python and from the command line (104 combinations, 48 never fill)."""
    d = tmp_path_factory.mktemp("blocks")
    py = mmsim.sweep(day, grid=GRID, set=SET, blocks=16, out=d / "py.h5", engine="serial", progress=False)
    cli("sweep", day, *FLAGS, "--blocks", 16, "--engine", "serial", "-o", d / "cli.h5", "--quiet")
    return py, str(d / "cli.h5")


def test_blocks_sweep_is_the_command_lines(blocks):
    py, c = blocks
    with h5py.File(c) as f:
        assert py.content_hash == int(f["results"].attrs["content_hash"])
        assert py.config_text == f["results"].attrs["config"]
        end = f["block_end_ns"][:]
        stored = f["blocks"][:]
    assert "\nblocks = 16\n" in py.config_text
    assert py.n_blocks == 16 and py.block_ns == 0
    assert np.array_equal(py.block_end_ns, end) and py.block_end_ns.shape == (1, 16)
    b = py.blocks()
    assert b.shape == (py.n, 16)
    for name in ("pnl", "q", "fills", "fees"):
        assert np.array_equal(b[name], stored[name]), name
    assert py.input_span_ns == [int(py.block_end_ns[0, -1] - mmsim.ticks(py.input_paths[0]).ts_ns[0])]


def test_the_last_block_is_the_row(blocks):
    py, _ = blocks
    b, df = py.blocks(), py.df
    last = b[:, -1]
    assert np.array_equal(last["pnl"], df["pnl"].to_numpy())  # bit for bit
    assert np.array_equal(last["q"], df["final_q"].to_numpy())
    assert np.array_equal(last["fills"], (df["fills_bid"] + df["fills_ask"]).to_numpy())
    assert np.array_equal(last["fees"], df["fees"].to_numpy())
    part = py.blocks(10, 5)
    assert np.array_equal(part, b[10:15])
    with pytest.raises(mmsim.UsageError, match="not in the table"):
        py.blocks(100, 10)


def test_block_ns_and_the_command_line(day, tmp_path):
    span = mmsim.ticks(day).ts_ns
    L = int((span[-1] - span[0]) // 5) + 1  # five blocks; the last ends at the tape's last event
    py = mmsim.sweep(day, grid={"spread": "0:1:0.5"}, block_ns=L, out=tmp_path / "p.h5", progress=False)
    cli("sweep", day, "--grid", "spread=0:1:0.5", "--block-ns", L, "-o", tmp_path / "c.h5", "--quiet")
    assert py.content_hash == int(h5py.File(tmp_path / "c.h5")["results"].attrs["content_hash"])
    assert py.block_ns == L and py.n_blocks == 5 and f"\nblock_ns = {L}\n" in py.config_text
    again = py.rerun(out=tmp_path / "again.h5", progress=False)
    assert again.content_hash == py.content_hash and again.block_ns == L


@pytest.mark.parametrize("kw, flags, msg", [
    (dict(blocks=-1), ["--blocks", "-1"], "sweep: blocks: -1 is out of range [0, 4096]"),
    (dict(blocks=4097), ["--blocks", "4097"], "sweep: blocks: 4097 is out of range [0, 4096]"),
    (dict(blocks="x"), ["--blocks", "x"], "sweep: blocks: 'x' is not a decimal integer"),
    (dict(block_ns=-5), ["--block-ns", "-5"], "sweep: block_ns: -5 is out of range [0, 1000000000000000000]"),
    (dict(blocks=4, block_ns=10 ** 9), ["--blocks", "4", "--block-ns", "1000000000"],
     "sweep: blocks: give {blocks}B or {block_ns}NS, not both"),
    (dict(blocks=4, paths=2), ["--blocks", "4", "--paths", "2"],
     "sweep: blocks: time blocks are recorded for replays of one path (not with {paths})"),
])
def test_bad_blocks_are_the_command_lines_messages(day, tmp_path, kw, flags, msg):
    py = msg.format(blocks="blocks=", block_ns="block_ns=", paths="paths=")
    with pytest.raises(mmsim.UsageError) as e:
        mmsim.sweep(day, grid={"spread": "1:2"}, out=tmp_path / "r.h5", progress=False, **kw)
    assert str(e.value) == py
    rc, _, err = cli("sweep", day, "--grid", "spread=1:2", *flags, "-o", tmp_path / "c.h5", check=False)
    assert rc == 2 and msg.format(blocks="--blocks ", block_ns="--block-ns ", paths="--paths") in err, err


# ---- select ----

def _numbers(text):
    """Every number of a line of `mmsim select`'s output, as printed."""
    return re.findall(r"-?(?:inf|nan|\d+(?:\.\d+)?(?:e[+-]\d+)?)", text)


OPTIONS = [({}, []), (dict(objective="sharpe", window=4, min_train=2, splits=8),
                       ["--objective", "sharpe", "--window", 4, "--min-train", 2, "--splits", 8])]


@pytest.mark.parametrize("kw, flags", OPTIONS)
def test_select_prints_what_mmsim_select_prints(blocks, kw, flags):
    py, _ = blocks
    s = py.select(**kw)
    out = cli("select", py.path, *flags, "--periods")[1]
    assert s.text(periods=True) == out
    assert str(s) == cli("select", py.path, *flags)[1]


@pytest.mark.parametrize("kw, flags", OPTIONS)
def test_select_numbers_equal_the_printed_ones(blocks, kw, flags):
    py, _ = blocks
    s = py.select(**kw)
    out = cli("select", py.path, *flags, "--periods")[1].splitlines()
    line = {l.split(":")[0].strip(): l for l in out}
    g6 = lambda v: "nan" if math.isnan(v) else "%.6g" % v  # noqa: E731
    n = _numbers(out[0].split(": ", 1)[1])
    assert [int(x) for x in n[:2]] == [s.n_rows, s.n_tapes] and int(n[-2]) == s.n_periods and \
        int(n[-1]) == s.n_trials == 56
    assert [int(x) for x in _numbers(out[1])[:2]] == [s.n_idle, s.n_all] == [48, 104]
    n = _numbers(line["out of sample, periods %d..15" % s.min_train])
    assert n[2:] == [g6(s.oos_total), g6(s.is_total), g6(s.median_total)]
    assert s.oos_total == pytest.approx(float(n[2]), rel=5e-6) and s.oos_total == s.walk_forward["oos_pnl"].sum()
    assert f"in-sample best: trial {s.is_best} (" in line["in-sample best"]
    assert f"; median trial {s.median} (" in line["in-sample best"]
    assert f"chose {s.oos_distinct} distinct" in "\n".join(out)
    rows = [l.split() for l in out if re.match(r"^\s+\d+\s+\d{19}\s", l)]
    assert len(rows) == len(s.walk_forward) == 16 - s.min_train
    for r, w in zip(rows, s.walk_forward.itertuples()):
        assert int(r[0]) == w.Index and int(r[1]) == w.end_ns and int(r[2]) == w.chosen  # exact
        for x, v in zip(r[3:], (w.oos_pnl, w.is_best_pnl, w.median_pnl)):
            assert float(x) == float(g6(v))  # to the printed precision (%.6g)
            assert v == pytest.approx(float(x), rel=5e-6, abs=1e-12)
    assert list(s.walk_forward.index) == list(range(s.min_train, 16))
    pbo = line["PBO = %.4f (the share of splits where the in-sample best ranks at or below the median out of " \
               "sample)" % s.pbo]
    assert float(_numbers(pbo)[0]) == round(s.pbo, 4)
    assert s.pbo == np.mean(s.logits <= 0) and len(s.logits) == s.n_splits == math.comb(s.splits, s.splits // 2)
    lg = np.sort(s.logits)
    q = [lg[0], lg[s.n_splits // 4], lg[s.n_splits // 2], lg[3 * s.n_splits // 4], lg[-1]]
    assert re.findall(r"(?:min|p25|median|p75|max) (\S+?),?(?= |$)", line["logits"]) == [g6(v) for v in q]
    n = _numbers(line["sharpe " + g6(s.dsr.sr) + " per period over T = 16 periods, skewness " + g6(s.dsr.skew)
                      + ", kurtosis " + g6(s.dsr.kurt) + "; N = 56 trials, var of their sharpe " + g6(s.sr_var)])
    assert [float(x) for x in n] == [float(g6(v)) for v in (s.dsr.sr, 16, s.dsr.skew, s.dsr.kurt, 56, s.sr_var)]
    assert s.dsr.T == 16 and s.dsr.n_trials == 56
    n = re.search(r"sr0 = (\S+); z = (\S+); DSR = (\S+):", line["expected best sharpe of N trials with no skill sr0 = "
                                                            + g6(s.dsr.sr0) + "; z = " + g6(s.dsr.z) + "; DSR = "
                                                            + g6(s.dsr.dsr)]).groups()
    assert [float(x) for x in n] == [float(g6(v)) for v in (s.dsr.sr0, s.dsr.z, s.dsr.dsr)]
    nb = s.neighbourhood
    for label, k in (("raw best", s.raw_best), ("smoothed best trial", s.smooth_best)):
        l = next(x for x in out if x.strip().startswith(label))
        assert f"trial {k} (" in l and l.endswith(f"): {g6(nb['value'][k])}, smoothed {g6(nb['smooth'][k])}")
    assert nb["value"][s.raw_best] == nb["value"][~nb["idle"]].max()
    assert nb["smooth"][s.smooth_best] == nb["smooth"][~nb["idle"]].max()


def test_select_equals_the_reports_machine_numbers_exactly(blocks, tmp_path):
    """`mmsim report` writes the selection's numbers with %.17g (data- attributes): equal bit for bit."""
    py, _ = blocks
    s = py.select()
    cli("report", py.path, "-o", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    stats = re.search(r'id="select-stats" ([^>]*)>', html).group(1)
    a = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', stats))
    assert float(a["pbo"]) == s.pbo and float(a["dsr"]) == s.dsr.dsr
    assert int(a["splits"]) == s.n_splits and int(a["trials"]) == s.n_trials
    assert int(a["periods"]) == s.n_periods and int(a["idle"]) == s.n_idle
    assert float(re.search(r'data-oos-total="([^"]*)"', html).group(1)) == s.oos_total
    pts = re.findall(r'data-is="([^"]*)" data-oos="([^"]*)"><title>trial (\d+):', html)
    assert len(pts) == s.n_trials
    for ri, ro, t in pts:
        assert (float(ri), float(ro)) == tuple(s.ranks.loc[int(t)]), t
    # the logit histogram's counts from the logits (the report's 20 bins)
    lo, hi = s.logits.min(), s.logits.max()
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    bins = np.minimum(((s.logits - lo) / (hi - lo) * 20).astype(int), 19)
    drawn = [int(x) for x in re.findall(r'class="lg" [^>]*data-n="(\d+)"', html)]
    assert drawn == list(np.bincount(bins, minlength=20))


def test_select_over_tapes(two, tmp_path):
    r = mmsim.sweep(two, grid={"spread": "0:2:0.5", "inv_limit": [5, 20]}, out=tmp_path / "t.h5",
                    progress=False)
    s = r.select()  # no blocks: the tapes are the periods
    assert s.by == "tape" and s.n_periods == 2 and s.n_tapes == 2
    assert s.text() == cli("select", r.path)[1]
    assert np.array_equal(s.perf.to_numpy(), r.df["pnl"].to_numpy().reshape(2, -1)[:, s.trials])
    with pytest.raises(mmsim.UsageError) as e:
        r.select(by="block")
    rc, _, err = cli("select", r.path, "--by", "block", check=False)
    assert str(e.value) == f"{r.path}: no time blocks (/blocks): sweep again with blocks=16, or select over its tapes"
    assert rc == 2 and "sweep again with --blocks 16" in err


@pytest.mark.parametrize("kw, msg", [
    (dict(objective="pnl_p5"), "select: objective: 'pnl_p5' is not pnl or sharpe (the statistics a set of time "
                               "blocks adds up to)"),
    (dict(by="day"), "select: by: 'day' is not block or tape"),
    (dict(splits=5), "select: splits: 5 must be even"),
    (dict(splits=18), "select: splits: 18 is out of range [2, 16]"),
    (dict(window=-1), "select: window: -1 is out of range [0, 1099511627776]"),
    (dict(min_train=0), "select: min_train: 0 is out of range [1, 1099511627776]"),
    (dict(min_train=16), "min_train: 16 periods leave none of the 16 to test on"),
])
def test_select_refuses_what_mmsim_select_refuses(blocks, kw, msg):
    py, _ = blocks
    with pytest.raises(mmsim.UsageError) as e:
        py.select(**kw)
    assert str(e.value) == msg
    flag = {"objective": "--objective", "by": "--by", "splits": "--splits", "window": "--window",
            "min_train": "--min-train"}
    (k, v), = kw.items()
    rc, _, err = cli("select", py.path, flag[k], v, check=False)
    cli_msg = msg.replace(f"{k}:", f"{flag[k]}:")
    assert rc == 2 and cli_msg in err, err


def test_select_neighbourhood_and_trials(blocks):
    py, _ = blocks
    s = py.select()
    nb = s.neighbourhood
    assert len(nb) == s.n_all and list(nb.columns[:3]) == ["spread", "inv_limit", "skew"]
    # trial n is row n (one tape): its axis values and the rows without a fill
    df = py.df
    assert np.array_equal(nb["spread"].to_numpy(), df["spread"].to_numpy())
    assert np.array_equal(nb["idle"].to_numpy(), ((df["fills_bid"] + df["fills_ask"]) == 0).to_numpy())
    assert list(s.trials) == list(nb.index[~nb["idle"]])
    assert nb["idle"].sum() == s.n_idle == py.n_no_fill
    # perf: the change of each kept trial's block pnl
    b = py.blocks()["pnl"][s.trials]
    assert np.array_equal(s.perf.to_numpy(), np.diff(np.concatenate([np.zeros((s.n_trials, 1)), b], 1), axis=1).T)
    assert s.params(s.is_best) == {"spread": df["spread"][s.is_best], "inv_limit": df["inv_limit"][s.is_best],
                                   "skew": df["skew"][s.is_best]}
    assert s.trial_text(s.is_best) == "spread=%g inv_limit=%d skew=%g" % tuple(s.params(s.is_best).values())
