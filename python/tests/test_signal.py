"""mmsim.write_signal and the key signal_skew (docs/formats.md "Signal", docs/model.md 6) against the
command line (`mmsim signal`, `mmsim sweep`) and h5py."""
import shutil

import h5py
import numpy as np
import pandas as pd
import pytest

import mmsim
from conftest import cli


@pytest.fixture()
def tape(day, tmp_path):
    path = tmp_path / "s.h5"
    shutil.copy(day, path)
    return str(path)


def test_write_signal_round_trips_an_array(tape):
    before = mmsim.ticks(tape)
    v = np.sin(np.arange(before.n) / 500.0)
    t = mmsim.write_signal(tape, "wave", v)
    assert t.signal_name == "wave" and np.array_equal(t.signal, v)
    assert t.fingerprint != before.fingerprint
    assert np.array_equal(t.bid_px, before.bid_px) and np.array_equal(t.ts_ns, before.ts_ns)
    with h5py.File(tape) as f:
        g = f["ticks/SYN"]
        assert g["signal"].dtype == np.float64 and g["signal"].attrs["name"] == "wave"
        assert np.array_equal(g["signal"][:], v)
    assert "signal         wave: min -1" in cli("info", tape)[1]
    # A list works too; a second signal needs replace=True.
    with pytest.raises(mmsim.Error, match="already has the signal wave"):
        mmsim.write_signal(t, "other", list(v))
    t2 = mmsim.write_signal(t, "other", list(-v), replace=True)
    assert t2.signal_name == "other" and np.array_equal(t2.signal, -v)


def test_a_series_by_ts_ns_is_the_command_lines_csv(day, tmp_path):
    """The as-of rule of a pandas Series equals `mmsim signal --csv`'s: the same column, the same
    fingerprint."""
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    shutil.copy(day, a)
    shutil.copy(day, b)
    t = mmsim.ticks(str(a))
    ts = t.ts_ns[::97] + 1  # between rows: each row takes the last point at or before it
    s = pd.Series(np.round(np.cos(np.arange(len(ts)) / 7.0), 6), index=ts)
    py = mmsim.write_signal(str(a), "p", s)
    csv = tmp_path / "p.csv"
    csv.write_text("ts_ns,value\n" + "".join(f"{x},{y!r}\n" for x, y in zip(ts, s.to_numpy())))
    cli("signal", b, "--csv", csv, "--name", "p")
    assert mmsim.ticks(str(b)).fingerprint == py.fingerprint
    assert py.signal[0] == 0.0  # row 0 is before the first point
    first = int(np.searchsorted(t.ts_ns, ts[0], side="right"))  # the first row at or after it
    assert py.signal[first] == s.iloc[0] and py.signal[first - 1] == 0.0


def test_bad_values_raise_the_librarys_message_and_leave_the_file(tape):
    fp = mmsim.ticks(tape).fingerprint
    n = mmsim.ticks(tape).n
    with pytest.raises(mmsim.UsageError, match=f"instrument SYN: signal x: {n - 1} values for {n} rows"):
        mmsim.write_signal(tape, "x", np.zeros(n - 1))
    v = np.zeros(n)
    v[3] = np.inf
    with pytest.raises(mmsim.UsageError, match="signal x: value 3 is inf"):
        mmsim.write_signal(tape, "x", v)
    with pytest.raises(mmsim.UsageError, match="signal name 'a b' must match"):
        mmsim.write_signal(tape, "a b", np.zeros(n))
    with pytest.raises(mmsim.UsageError, match=r"signal point 1: time 5 is before the previous point's 9"):
        mmsim.write_signal(tape, "x", pd.Series([1.0, 2.0], index=[9, 5]))
    t = mmsim.ticks(tape)
    assert t.signal is None and t.fingerprint == fp


def test_a_sweep_over_signal_skew_equals_the_command_lines(day, tape, tmp_path):
    t = mmsim.ticks(tape)
    # A toy predictor: the mid's move over the next 50 rows, in ticks (a perfect foresight).
    mid = (t.bid_px.astype(float) + t.ask_px) / 2
    ahead = np.concatenate([mid[50:], np.repeat(mid[-1], 50)]) - mid
    mmsim.write_signal(tape, "next50", ahead)
    grid = {"signal_skew": [0, 0.5, 1, -1], "spread": [1, 2]}
    py = mmsim.sweep(tape, grid=grid, out=tmp_path / "py.h5", progress=False)
    cli("sweep", tape, "--grid", "signal_skew=0,0.5,1,-1", "--grid", "spread=1,2", "-o", tmp_path / "cli.h5",
        "--quiet")
    with h5py.File(tmp_path / "cli.h5") as f:
        assert py.content_hash == int(f["results"].attrs["content_hash"])
    df = py.df
    assert not np.array_equal(df[df.signal_skew == 1].pnl.to_numpy(), df[df.signal_skew == 0].pnl.to_numpy())
    # signal_skew 0 is the tape without a signal, bit for bit.
    plain = mmsim.sweep(day, grid={"spread": [1, 2]}, out=tmp_path / "plain.h5", progress=False).df
    zero = df[df.signal_skew == 0].sort_values("spread")
    assert np.array_equal(zero.pnl.to_numpy(), plain.sort_values("spread").pnl.to_numpy())
    assert np.array_equal(zero.fills_bid.to_numpy(), plain.sort_values("spread").fills_bid.to_numpy())


def test_signal_skew_needs_a_signal(day):
    with pytest.raises(mmsim.UsageError, match="signal_skew: 1 needs a signal column, and tape SYN has none"):
        mmsim.run(day, signal_skew=1)
