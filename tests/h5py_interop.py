#!/usr/bin/python3
"""Interop with h5py, following docs/formats.md only: read a tick file mmsim wrote and recompute its
fingerprint; write a tick file with h5py (and python3-xxhash) that `mmsim info` accepts and verifies;
the same for the depth stream (a LOBSTER import's depth group read and hashed, one written by hand).
Then docs/results.md: its pandas line, run exactly as written there, gives the tape and enum axes as
names (HDF5 enums) and the same values as `mmsim export --comments` read with pandas; on a file from
before the enums (fixtures/results-int32.h5) it gives the int32 indexes.
Usage: h5py_interop.py MMSIM_BIN WORKDIR RESULTS_MD FIXTURES"""
import io
import os
import re
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd
import xxhash

COLS = [("ts_ns", np.int64), ("bid_px", np.int32), ("ask_px", np.int32), ("bid_sz", np.int32),
        ("ask_sz", np.int32), ("trade_px", np.int32), ("trade_sz", np.int32), ("trade_side", np.int8)]


DEPTH = [("row", np.int64), ("join", np.int64), ("px", np.int32), ("sz", np.int32), ("side", np.int8),
         ("cause", np.int8)]


def fingerprint(cols, depth=None):
    """docs/formats.md, "Fingerprint": the depth part only for a tape with a depth group."""
    h = xxhash.xxh3_64()
    h.update(np.int64(len(cols["ts_ns"])).astype("<i8").tobytes())
    for name, dt in COLS:
        h.update(np.ascontiguousarray(cols[name], dtype=np.dtype(dt).newbyteorder("<")).tobytes())
    if depth is not None:
        h.update(np.int64(len(depth["row"])).astype("<i8").tobytes())
        h.update(np.array([depth["levels"], depth["ids"]], "<i4").tobytes())
        for name, dt in DEPTH:
            h.update(np.ascontiguousarray(depth[name], dtype=np.dtype(dt).newbyteorder("<")).tobytes())
    return h.intdigest()


def depth_interop(mmsim, work):
    """A LOBSTER import with depth read as docs/formats.md "Depth" says, its fingerprint recomputed; then a
    depth group written with h5py alone, accepted and verified by mmsim info, and one that breaks a rule."""
    msg = ["34200.1,1,10,100,1000000,1", "34200.2,1,11,30,1000100,1", "34200.3,2,10,40,1000000,1",
           "34200.4,4,11,30,1000100,1"]
    ob = ["1000200,50,1000000,100,1000300,70,999900,40", "1000200,50,1000100,30,1000300,70,1000000,100",
          "1000200,50,1000100,30,1000300,70,1000000,60", "1000200,50,1000000,60,1000300,70,999900,40"]
    m, o, h5 = (os.path.join(work, x) for x in ("m.csv", "o.csv", "depth.h5"))
    open(m, "w").write("\n".join(msg) + "\n")
    open(o, "w").write("\n".join(ob) + "\n")
    if os.path.exists(h5):
        os.remove(h5)
    subprocess.run([mmsim, "import", "lobster", "--message", m, "--orderbook", o, "--date", "2012-06-21",
                    "--symbol", "FIX", "-o", h5], check=True, stdout=subprocess.DEVNULL)
    with h5py.File(h5, "r") as f:
        g = f["ticks/FIX"]
        d = g["depth"]
        depth = pd.DataFrame({k: d[k][:] for k in d})  # the documented lines
        depth["ts_ns"] = g["ts_ns"][:][depth["row"]]
        assert int(d.attrs["levels"]) == 2 and int(d.attrs["ids"]) == 1, dict(d.attrs)
        for name, dt in DEPTH:
            assert d[name].dtype == np.dtype(dt), (name, d[name].dtype)
        assert list(depth["cause"]) == [4, 4, 4, 4, 5, 1, 2, 3, 4], list(depth["cause"])
        assert list(depth["join"]) == [-1, -1, -1, -1, -1, 1, 0, 1, -1], list(depth["join"])
        assert (depth["ts_ns"][5] == g["ts_ns"][1]), depth
        cols = {name: g[name][:] for name, _ in COLS}
        dep = {name: d[name][:] for name, _ in DEPTH}
        dep.update(levels=int(d.attrs["levels"]), ids=int(d.attrs["ids"]))
        assert int(g.attrs["fingerprint"]) == fingerprint(cols, dep), "depth fingerprint from docs differs"
    # Written with h5py: the same tape, its depth kept at one level (rows by hand).
    own = os.path.join(work, "depth_h5py.h5")
    one = {"row": [0, 0, 1, 1, 3, 3], "join": [-1] * 6, "px": [10000, 10002, 10000, 10001, 10001, 10000],
           "sz": [100, 50, 0, 30, 0, 60], "side": [1, -1, 1, 1, 1, 1], "cause": [4, 4, 5, 1, 3, 4]}
    dep = {name: np.array(one[name], dt) for name, dt in DEPTH}
    dep.update(levels=1, ids=0)
    with h5py.File(own, "w") as f:
        f.attrs["mmsim_format"] = "mmsim-ticks/1"
        g = f.create_group("ticks/OWN")
        for name, dt in COLS:
            g.create_dataset(name, data=cols[name].astype(dt))
        g.attrs.update(symbol="OWN", tick_size=0.01, lot_size=1.0, allow_crossed=np.int8(0))
        d = g.create_group("depth")
        d.attrs["levels"] = np.int32(1)
        d.attrs["ids"] = np.int8(0)
        for name, dt in DEPTH:
            d.create_dataset(name, data=dep[name])
        g.attrs["fingerprint"] = np.uint64(fingerprint(cols, dep))
    r = subprocess.run([mmsim, "info", own], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "(verified)" in r.stdout and "1 level per side, 6 depth rows" in r.stdout, r.stdout
    with h5py.File(own, "a") as f:
        f["ticks/OWN/depth/cause"][3] = 2  # the new level 100.01 "cancelled" to 30
    r = subprocess.run([mmsim, "info", own, "--no-verify"], capture_output=True, text=True)
    assert r.returncode == 1, (r.returncode, r.stdout)
    assert r.stderr.strip() == ("mmsim: %s: instrument OWN: depth column sz: depth row 3: a cancel takes bid "
                                "10001 from 0 to 30 (the level is not shown)" % own), r.stderr


def documented_pandas_line(results_md):
    """The python block of docs/results.md that uses check_enum_dtype, as written."""
    blocks = re.findall(r"```python\n(.*?)```", open(results_md, encoding="utf-8").read(), re.S)
    found = [b for b in blocks if "check_enum_dtype" in b]
    assert len(found) == 1, "docs/results.md: expected one pandas block with check_enum_dtype"
    assert found[0].count('"results.h5"') == 1, found[0]
    return found[0]


def run_documented(code, path):
    """Run the documented lines on the file at path; return their df."""
    env = {}
    exec(code.replace('"results.h5"', repr(path)), env)
    return env["df"]


def results_as_names(mmsim, work, results_md, fixtures):
    tape = os.path.join(work, "two.h5")
    res = os.path.join(work, "results.h5")
    for p in (tape, res):
        if os.path.exists(p):
            os.remove(p)
    for seed, sym in ((3, "SYN"), (4, "GOOG")):
        subprocess.run([mmsim, "gen", "--seed", str(seed), "--events", "3000", "--symbol", sym, "-o", tape],
                       check=True, stdout=subprocess.DEVNULL)
    subprocess.run([mmsim, "sweep", tape, "--grid", "queue=risk-averse,power,log", "--grid", "spread=1,2",
                    "-o", res, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    code = documented_pandas_line(results_md)
    df = run_documented(code, res)
    with h5py.File(res, "r") as f:
        t = f["results"][:]
        for key in ("tape", "queue"):
            names = [x.decode() if isinstance(x, bytes) else x for x in f["axes"][key][:]]
            assert h5py.check_enum_dtype(t.dtype[key]) == {n: i for i, n in enumerate(names)}, key
            assert t.dtype[key].base == np.dtype("<i4"), t.dtype[key]
            assert isinstance(df[key].dtype, pd.CategoricalDtype), (key, df[key].dtype)
            assert list(df[key].cat.categories) == names, (key, list(df[key].cat.categories))
            assert (df[key].cat.codes.to_numpy() == t[key]).all(), key
        assert h5py.check_enum_dtype(t.dtype["spread"]) is None
        assert list(df.columns) == list(t.dtype.names)
        for c in t.dtype.names:
            if c not in ("tape", "queue"):
                assert df[c].dtype == t.dtype[c] and np.array_equal(df[c].to_numpy(), t[c], equal_nan=True), c
    # The same table through export --comments and pandas' read_csv(comment="#"): the tape names hold
    # a '#', quoted by export so that the comment character does not cut them.
    out = subprocess.run([mmsim, "export", res, "--csv", "--comments"], check=True, capture_output=True,
                         text=True).stdout
    assert out.startswith("# mmsim export of ") and "\n# sharpe: annualised: " in out, out[:400]
    csv = pd.read_csv(io.StringIO(out), comment="#", float_precision="round_trip")
    # export adds each row's sharpe_flag (docs/results.md, "When sharpe means something") after them.
    assert list(csv.columns) == list(df.columns) + ["sharpe_flag"], list(csv.columns)
    assert set(csv["sharpe_flag"]) <= {"-", "short", "few", "short,few"}, set(csv["sharpe_flag"])
    for c in df.columns:
        if c in ("tape", "queue"):
            assert list(csv[c]) == list(df[c].astype(str)), c
        else:
            assert np.array_equal(csv[c].to_numpy(), df[c].to_numpy(), equal_nan=True), c
    # A file written before the enums: the same line gives the int32 indexes, unchanged.
    old = run_documented(code, os.path.join(fixtures, "results-int32.h5"))
    assert old["tape"].dtype == np.int32 and list(old["tape"]) == [0, 0, 0, 0, 1, 1, 1, 1], old["tape"]


def main():
    mmsim, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "from_mmsim.h5")
    if os.path.exists(src):
        os.remove(src)
    subprocess.run([mmsim, "gen", "--seed", "9", "--events", "5000", "--symbol", "GEN", "-o", src], check=True,
                   stdout=subprocess.DEVNULL)
    with h5py.File(src, "r") as f:
        assert f.attrs["mmsim_format"] == "mmsim-ticks/1", f.attrs["mmsim_format"]
        g = f["ticks/GEN"]
        cols = {name: g[name][:] for name, _ in COLS}
        for name, dt in COLS:
            assert cols[name].dtype == np.dtype(dt), (name, cols[name].dtype)
        assert g.attrs["symbol"] == "GEN" and g.attrs["tick_size"] == 0.01
        assert int(g.attrs["fingerprint"]) == fingerprint(cols), "fingerprint recomputed from docs differs"

    # Write a tape with h5py alone: two levels of a tiny hand-made book.
    n = 6
    own = {
        "ts_ns": np.array([10, 20, 20, 35, 50, 70], np.int64) + 1_700_000_000_000_000_000,
        "bid_px": np.array([999, 999, 999, 998, -2**31, 999], np.int32),
        "ask_px": np.array([1001, 1001, 1000, 1000, 1000, 1001], np.int32),
        "bid_sz": np.array([5, 3, 3, 7, 0, 2], np.int32),
        "ask_sz": np.array([4, 4, 1, 1, 6, 9], np.int32),
        "trade_px": np.array([0, 999, 0, 0, 998, 0], np.int32),
        "trade_sz": np.array([0, 2, 0, 0, 7, 0], np.int32),
        "trade_side": np.array([0, -1, 0, 0, -1, 0], np.int8),
    }
    dst = os.path.join(work, "from_h5py.h5")
    with h5py.File(dst, "w") as f:
        f.attrs["mmsim_format"] = "mmsim-ticks/1"
        g = f.create_group("ticks/HAND")
        for name, dt in COLS:
            g.create_dataset(name, data=own[name].astype(dt), chunks=True, maxshape=(None,))
        g.attrs["symbol"] = "HAND"
        g.attrs["source"] = "h5py"
        g.attrs["tick_size"] = 0.5
        g.attrs["lot_size"] = 100.0
        g.attrs["allow_crossed"] = np.int8(0)
        g.attrs["fingerprint"] = np.uint64(fingerprint(own))
    r = subprocess.run([mmsim, "info", dst], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "fingerprint" in r.stdout and "(verified)" in r.stdout, r.stdout
    assert "rows           %d" % n in r.stdout, r.stdout
    assert "1 rows with an empty side" in r.stdout, r.stdout
    # Flip one value: the fingerprint check must now fail with exit 1.
    with h5py.File(dst, "a") as f:
        f["ticks/HAND/bid_sz"][0] = 6
    r = subprocess.run([mmsim, "info", dst], capture_output=True, text=True)
    assert r.returncode == 1 and "fingerprint mismatch" in r.stderr, (r.returncode, r.stderr)
    results_as_names(mmsim, work, sys.argv[3], sys.argv[4])
    depth_interop(mmsim, work)
    print("3 passed, 0 failed")


if __name__ == "__main__":
    main()
