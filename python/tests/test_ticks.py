"""mmsim.ticks, write_ticks, gen and the importers against the command line and h5py."""
import ctypes as C
import re

import h5py
import numpy as np
import pandas as pd
import pytest

import mmsim
from conftest import FIXTURES, SHARED, cli


def info_fingerprint(path, symbol=None):
    out = cli("info", path, *(["--symbol", symbol] if symbol else []))[1]
    return int(next(l.split()[1] for l in out.splitlines() if l.strip().startswith("fingerprint")), 16)


def test_ticks_columns_are_read_only_views_of_the_library_memory(day):
    t = mmsim.ticks(day)
    assert t.symbol == "SYN" and t.n == 20000 and len(t) == 20000
    with h5py.File(day) as f:
        g = f["ticks/SYN"]
        for name in ("ts_ns", "bid_px", "ask_px", "bid_sz", "ask_sz", "trade_px", "trade_sz", "trade_side"):
            col = getattr(t, name)
            assert col.dtype == g[name].dtype
            assert np.array_equal(col, g[name][:]), name
            assert not col.flags.writeable and not col.flags.owndata
    with pytest.raises(ValueError):
        t.bid_px[0] = 1
    # zero-copy: two views of one column share the memory; a view keeps the tape alive
    view = t.ask_px
    assert np.shares_memory(view, t.ask_px)
    first = int(view[0])
    del t
    assert int(view[0]) == first
    assert mmsim.ticks(day).fingerprint == info_fingerprint(day)


def test_span_instruments_and_stats(two):
    assert mmsim.instruments(two) == ["AAA", "BBB"]
    t = mmsim.ticks(two, "BBB")
    first, last = t.span
    assert first == np.datetime64(int(t.ts_ns[0]), "ns") and last == np.datetime64(int(t.ts_ns[-1]), "ns")
    s = t.stats()
    assert s["rows"] == 5000 and s["trades"] == int(np.count_nonzero(t.trade_sz))
    assert t.fingerprint == info_fingerprint(two, "BBB")
    df = t.to_pandas()
    assert list(df.columns[:3]) == ["ts_ns", "bid_px", "ask_px"] and len(df) == 5000


def test_a_file_of_several_instruments_needs_a_symbol(two):
    with pytest.raises(mmsim.UsageError) as e:
        mmsim.ticks(two)
    assert "name one with symbol=" in str(e.value) and "--symbol" not in str(e.value)
    with pytest.raises(mmsim.NotFoundError) as e:
        mmsim.ticks(two, "CCC")
    assert "CCC" in str(e.value)


def test_missing_file_raises_the_library_message(tmp_path):
    with pytest.raises(mmsim.Error) as e:
        mmsim.ticks(tmp_path / "none.h5")
    assert str(tmp_path / "none.h5") in str(e.value)


def test_write_ticks_round_trip_from_a_dataframe(day, tmp_path):
    t = mmsim.ticks(day)
    df = t.to_pandas()
    out = tmp_path / "copy.h5"
    w = mmsim.write_ticks(out, df, tick_size=t.tick_size, lot_size=t.lot_size, symbol="CPY")
    assert w.fingerprint == t.fingerprint  # the fingerprint covers the columns only
    assert info_fingerprint(out) == t.fingerprint
    back = mmsim.ticks(out)
    assert back.symbol == "CPY" and np.array_equal(back.trade_side, t.trade_side)
    # appending a second instrument; the same symbol again needs replace=True
    mmsim.write_ticks(out, {k: v[:100] for k, v in t.columns.items()}, 0.01, 1, "TWO")
    assert mmsim.instruments(out) == ["CPY", "TWO"]
    with pytest.raises(mmsim.Error) as e:
        mmsim.write_ticks(out, {k: v[:100] for k, v in t.columns.items()}, 0.01, 1, "TWO")
    assert "replace=True" in str(e.value)
    mmsim.write_ticks(out, {k: v[:50] for k, v in t.columns.items()}, 0.01, 1, "TWO", replace=True)
    assert mmsim.ticks(out, "TWO").n == 50


def test_write_ticks_refuses_bad_rows_with_the_library_message(tmp_path):
    cols = {"ts_ns": [3, 2], "bid_px": [100, 100], "ask_px": [101, 101], "bid_sz": [5, 5], "ask_sz": [5, 5]}
    with pytest.raises(mmsim.DataError) as e:
        mmsim.write_ticks(tmp_path / "bad.h5", cols, 0.01, 1, "BAD")
    msg = str(e.value)
    assert "ts_ns" in msg and "BAD" in msg and "\n" not in msg
    assert not (tmp_path / "bad.h5").exists()
    with pytest.raises(mmsim.UsageError, match="does not fit int32"):
        mmsim.write_ticks(tmp_path / "bad.h5", dict(cols, bid_px=[2 ** 40, 1]), 0.01, 1, "BAD")
    with pytest.raises(mmsim.UsageError, match="column ask_sz missing"):
        mmsim.write_ticks(tmp_path / "bad.h5", {k: v for k, v in cols.items() if k != "ask_sz"}, 0.01, 1, "X")


def test_gen_makes_the_command_lines_day(day, tmp_path):
    t = mmsim.gen(tmp_path / "g.h5", seed=42, events=20000, symbol="SYN")
    assert t.fingerprint == mmsim.ticks(day).fingerprint
    with pytest.raises(mmsim.UsageError, match="unknown key"):
        mmsim.gen(seed=1, bogus=3)
    with pytest.raises(mmsim.Error) as e:
        mmsim.gen(events=100, rate=-1)
    assert "rate" in str(e.value)


def test_import_lobster_takes_symbol_date_and_book_from_the_name(tmp_path):
    msg = FIXTURES / "lobster" / "AMZN_2012-06-21_34200000_36000000_message_1.csv.gz"
    t = mmsim.import_lobster(msg, out=tmp_path / "amzn.h5")
    cli("import", "lobster", "--message", msg, "-o", tmp_path / "cli.h5")
    assert t.symbol == "AMZN" and t.report["levels"] == 1 and t.report["rows"] == t.n
    assert t.fingerprint == info_fingerprint(tmp_path / "cli.h5") == info_fingerprint(tmp_path / "amzn.h5")
    with pytest.raises(mmsim.UsageError, match="symbol, orderbook and date are required"):
        mmsim.import_lobster(tmp_path / "nothing.csv")


def test_import_binance_matches_the_command_line(tmp_path):
    cap = FIXTURES / "binance" / "spot_btcusdt_20240808_first4000.gz"
    t = mmsim.import_binance(cap, symbol="BTCUSDT", tick="0.01", lot="0.000001")
    cli("import", "binance", "-i", cap, "--symbol", "BTCUSDT", "--tick", "0.01", "--lot", "0.000001",
        "-o", tmp_path / "btc.h5")
    assert t.path is None and t.fingerprint == info_fingerprint(tmp_path / "btc.h5")
    assert t.report["market"] == "spot"


def test_import_csv_reports_the_line(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text("ts,bid,bsz,ask,asz\n1,10.00,5,10.01,5\n2,10.01,5,10.02,5\nx,1,1,1,1\n")
    with pytest.raises(mmsim.DataError) as e:
        mmsim.import_csv(p, map="ts=ts,bid=bid,bid_sz=bsz,ask=ask,ask_sz=asz", symbol="Q", tick="0.01",
                         lot="1")
    assert f"{p}:4" in str(e.value)
    p.write_text("ts,bid,bsz,ask,asz\n1,10.00,5,10.01,5\n2,10.01,5,10.02,5\n")
    m = "ts=ts,bid=bid,bid_sz=bsz,ask=ask,ask_sz=asz"
    t = mmsim.import_csv(p, map=m, symbol="Q", tick="0.01", lot="1", out=tmp_path / "q.h5")
    cli("import", "csv", "--input", p, "--map", m, "--symbol", "Q", "--tick", "0.01", "--lot", "1",
        "-o", tmp_path / "qc.h5")
    assert t.n == 2 and list(t.bid_px) == [1000, 1001]
    assert t.fingerprint == info_fingerprint(tmp_path / "qc.h5") == info_fingerprint(tmp_path / "q.h5")


@pytest.mark.skipif(not (SHARED / "lobster").is_dir(), reason="../shared/data absent")
def test_the_shared_amzn_day(tmp_path):
    msg = SHARED / "lobster" / "AMZN_2012-06-21_34200000_57600000_message_1.csv.gz"
    t = mmsim.import_lobster(msg)
    assert t.n == 57515 and t.symbol == "AMZN"
    assert np.datetime64("2012-06-21T13:30:00", "ns") <= t.span[0] < np.datetime64("2012-06-21T13:31", "ns")


def info_depth(path):
    """`mmsim info`'s depth line: (levels, rows, {cause: rows}, joins known, removals) or None."""
    line = next(l for l in cli("info", path)[1].splitlines() if l.strip().startswith("depth "))
    m = re.search(r"(\d+) levels? per side, (\d+) depth rows \(add (\d+), cancel (\d+), trade (\d+), show (\d+), "
                  r"hide (\d+)\)(?:; order ids: (\d+) of (\d+) removals)?", line)
    if m is None:
        assert "none (level 1 only)" in line, line
        return None
    g = [int(x) if x is not None else None for x in m.groups()]
    return g[0], g[1], dict(zip(["add", "cancel", "trade", "show", "hide"], g[2:7])), g[7], g[8]


LOBSTER = FIXTURES / "lobster" / "AMZN_2012-06-21_34200000_36000000_message_1.csv.gz"
BINANCE = FIXTURES / "binance" / "spot_btcusdt_20240808_first4000.gz"


def test_depth_columns_are_read_only_views_and_equal_the_file(tmp_path):
    t = mmsim.import_lobster(LOBSTER, out=tmp_path / "amzn.h5")
    assert t.depth and t.depth.levels == 1 == t.report["depth_levels"] and t.depth.ids == 1
    assert t.depth.n == t.report["depth_rows"] == len(t.depth) > 0
    back = mmsim.ticks(tmp_path / "amzn.h5")
    d = back.depth
    with h5py.File(tmp_path / "amzn.h5") as f:
        g = f["ticks/AMZN/depth"]
        for name in ("row", "join", "px", "sz", "side", "cause"):
            col = getattr(d, name)
            assert col.dtype == g[name].dtype, name
            assert np.array_equal(col, g[name][:]), name
            assert np.array_equal(col, getattr(t.depth, name)), name
            assert not col.flags.writeable and not col.flags.owndata
    with pytest.raises(ValueError):
        d.sz[0] = 1
    # zero-copy: the depth columns lie in the tape's memory block, and keep the tape alive
    base = C.cast(back._t.mem_base, C.c_void_p).value
    for col in d.columns.values():
        assert base <= col.__array_interface__["data"][0] < base + back._t.mem_bytes
    px = d.px
    first = int(px[0])
    del back, d
    assert int(px[0]) == first
    s = t.stats()
    levels, rows, causes, joins, removals = info_depth(tmp_path / "amzn.h5")
    assert (s["depth_levels"], s["depth_rows"], s["depth_by_cause"]) == (levels, rows, causes)
    assert (s["depth_joins_known"], s["depth_removals"]) == (joins, removals)
    assert causes == {k: int(np.count_nonzero(t.depth.cause == c)) for c, k in enumerate(causes, 1)}
    df = t.depth.to_pandas()
    assert list(df.columns) == ["ts_ns", "row", "join", "px", "sz", "side", "cause"] and len(df) == t.depth.n
    assert np.array_equal(df["ts_ns"], t.ts_ns[t.depth.row]) and set(df["cause"].cat.categories) == set(causes)


def test_depth_levels_as_the_command_line(tmp_path):
    # LOBSTER: every level of the file by default; 0: the L1 tape alone (its fingerprint as before depth)
    none = mmsim.import_lobster(LOBSTER, depth_levels=0)
    assert not none.depth and none.depth.n == 0 and len(none.depth.px) == 0 and none.report["depth_levels"] == 0
    assert none.stats()["depth_rows"] == 0
    cli("import", "lobster", "--message", LOBSTER, "--depth-levels", 0, "-o", tmp_path / "l0.h5")
    assert none.fingerprint == info_fingerprint(tmp_path / "l0.h5") != mmsim.import_lobster(LOBSTER).fingerprint
    assert info_depth(tmp_path / "l0.h5") is None
    # Binance: 20 by default, as the command line
    cap = dict(symbol="BTCUSDT", tick="0.01", lot="0.000001")
    t = mmsim.import_binance(BINANCE, **cap)
    assert t.depth.levels == t.report["depth_levels"] == 20
    five = mmsim.import_binance(BINANCE, depth_levels=5, out=tmp_path / "b5.h5", **cap)
    cli("import", "binance", "-i", BINANCE, "--symbol", "BTCUSDT", "--tick", "0.01", "--lot", "0.000001",
        "--depth-levels", 5, "-o", tmp_path / "c5.h5")
    assert five.fingerprint == info_fingerprint(tmp_path / "c5.h5")
    assert info_depth(tmp_path / "c5.h5")[:2] == (5, five.depth.n) == (5, five.report["depth_rows"])
    assert "5 levels" in repr(five.depth) and "depth 5 levels" in repr(five)
    for bad, msg in ((1001, "1001 is out of range [0, 1000]"), (-1, "-1 is out of range [0, 1000]"),
                     ("x", "'x' is not a decimal integer")):
        with pytest.raises(mmsim.UsageError) as e:
            mmsim.import_binance(BINANCE, depth_levels=bad, **cap)
        assert str(e.value) == f"import binance: depth_levels: {msg}"
        rc, _, err = cli("import", "binance", "-i", BINANCE, "--symbol", "B", "--tick", "0.01", "--lot", "1",
                         "--depth-levels", bad, "-o", tmp_path / "x.h5", check=False)
        assert rc == 2 and f"--depth-levels: {msg}" in err, err
