#!/usr/bin/python3
"""Read a results file with Debian's h5py and pandas, following docs/results.md only: the one-line
DataFrame, the columns and their dtypes, the ids, the axes, the attributes, the objective index, and the
content hash recomputed with python3-xxhash. Then compare with `mmsim export --csv` read by pandas.
Usage: h5py_results.py MKRESULTS MMSIM WORKDIR"""
import io
import os
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd
import xxhash

METRICS = [("pnl", "f8"), ("fees", "f8"), ("volume", "i8"), ("fills_bid", "i8"), ("fills_ask", "i8"),
           ("orders", "i8"), ("cancels", "i8"), ("rejects", "i8"), ("final_q", "i8"), ("max_abs_q", "i8"),
           ("mean_abs_q", "f8"), ("sharpe", "f8"), ("max_drawdown", "f8"), ("pnl_close", "f8"), ("held", "i8"),
           ("orders_per_s", "f8"), ("cancels_per_s", "f8"), ("rejects_per_s", "f8")]
AXES = [("tape", "i4"), ("spread", "f8"), ("inv_limit", "i8"), ("queue", "i4"), ("rep", "i8")]


def horizon(ns):
    for div, unit in ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")):
        if ns % div == 0:
            return "%d%s" % (ns // div, unit)
    return "%dns" % ns


M64 = (1 << 64) - 1


def mix(x):
    """rf_mix of tests/sweep/results_fixture.c (splitmix64's finaliser)."""
    x = (x + 0x9e3779b97f4a7c15) & M64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)


def expected_row(i, reps):
    """The fixture's row i computed here, independently of the C column map: every metric by name, and the
    axis columns (tape and queue as indices, the numeric axes as values)."""
    h = mix(i)
    g = mix(h)
    k = mix(g)
    row = {
        "id": i,
        "pnl": -0.0 if i == 5 else float((h % 61) - 30) * 0.5,
        "fees": float(g % 1000) / 7.0,
        "volume": h % 5000,
        "fills_bid": g % 97,
        "fills_ask": k % 89,
        "orders": h % 100000,
        "cancels": g % 50000,
        "rejects": k % 7,
        "final_q": (k % 41) - 20,
        "max_abs_q": h % 21,
        "mean_abs_q": float(k >> 11) * 2.0 ** -53 * 20,
        "sharpe": float("nan") if i == 7 else float((g % 2001) - 1000) / 300.0,
        "max_drawdown": float(h >> 11) * 2.0 ** -53 * 1e4,
        "markout_1s": (float(g >> 11) * 2.0 ** -53 - 0.5) * 1e3,
        "markout_500ms": (float(k >> 11) * 2.0 ** -53 - 0.5) * 1e-3,
        "markout_250us": -float(h >> 11) * 2.0 ** -40,
        "pnl_close": float((k % 61) - 30) * 0.25,
        "held": k % 13,
        "orders_per_s": float(h % 1000) / 8.0,
        "cancels_per_s": float(g % 1000) / 16.0,
        "rejects_per_s": float(k % 1000) / 32.0,
        "pnl_spread": float((h % 43) - 21) * 0.125,
        "pnl_inventory": float((g % 47) - 23) * 0.0625,
    }
    rest = i
    idx = {}
    for name, n in reversed([("tape", 2), ("spread", 4), ("inv_limit", 5), ("queue", 3), ("rep", reps)]):
        idx[name] = rest % n
        rest //= n
    row["tape"] = idx["tape"]
    row["spread"] = [0.25, 0.5, 1.0, 2.5][idx["spread"]]
    row["inv_limit"] = [1, 2, 5, 10, 20][idx["inv_limit"]]
    row["queue"] = idx["queue"]
    row["rep"] = 100 + 3 * idx["rep"]
    return row


def same(a, b):
    """Bit-for-bit for floats (NaN equals NaN, -0.0 differs from +0.0), exact for integers."""
    if isinstance(b, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    return int(a) == b


def content_hash(table):
    """docs/results.md: for each row in id order, each column in table order, its little-endian bytes
    (8 for int64/float64, 4 for int32), no padding; XXH3-64 with seed 0."""
    packed = np.dtype([(name, table.dtype[name].newbyteorder("<")) for name in table.dtype.names])
    assert packed.itemsize == sum(table.dtype[n].itemsize for n in table.dtype.names)
    h = xxhash.xxh3_64(seed=0)
    block = 4096
    for i in range(0, len(table), block):
        h.update(table[i:i + block].astype(packed).tobytes())
    return h.intdigest()


def main():
    mkresults, mmsim, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    p = os.path.join(work, "results.h5")
    if os.path.exists(p):
        os.remove(p)
    subprocess.run([mkresults, p, "10"], check=True)

    df = pd.DataFrame(h5py.File(p)["results"][:])

    with h5py.File(p, "r") as f:
        assert f.attrs["mmsim_format"] == "mmsim-results/2", f.attrs["mmsim_format"]
        d = f["results"]
        a = d.attrs
        n = int(a["n_combos"])
        assert n == 1200 and len(df) == n, (n, len(df))
        mk = [int(x) for x in a["markout_ns"]]
        assert mk == [1_000_000_000, 500_000_000, 250_000], mk
        cols = ([("id", "i8")] + AXES + METRICS + [("markout_" + horizon(h), "f8") for h in mk] +
                [("pnl_spread", "f8"), ("pnl_inventory", "f8")])
        assert list(df.columns) == [c for c, _ in cols], list(df.columns)
        for c, t in cols:
            assert df[c].dtype == np.dtype(t), (c, df[c].dtype)
            assert d.dtype[c].byteorder in ("<", "=", "|"), c
        assert d.dtype.itemsize == sum(np.dtype(t).itemsize for _, t in cols), "padding in the file type"
        assert (df["id"].to_numpy() == np.arange(n)).all(), "row r must hold id r"
        assert d.chunks is not None

        # Every value of every row against the values computed here from the fixture's formulas (a column
        # map shared by the writer and the reader cannot hide a swap from this).
        for i in range(n):
            want = expected_row(i, 10)
            for c, _ in cols:
                assert same(df[c].iat[i], want[c]), (i, c, df[c].iat[i], want[c])

        # Axes: values, and the columns take their values from them.
        tape = list(f["axes/tape"].asstr()[:])
        queue = list(f["axes/queue"].asstr()[:])
        assert tape == ["day1.h5#AAA", 'day "2",b.h5#BBB'] and queue == ["risk_averse", "power", "log"], (tape, queue)
        spread = f["axes/spread"][:]
        assert spread.dtype == np.float64 and list(spread) == [0.25, 0.5, 1.0, 2.5]
        assert f["axes/inv_limit"].dtype == np.int64 and list(f["axes/inv_limit"][:]) == [1, 2, 5, 10, 20]
        assert df["spread"].isin(spread).all() and df["tape"].between(0, 1).all() and df["queue"].between(0, 2).all()

        # Attributes.
        assert a["objective"] == "pnl" and a["engine"] == "serial" and int(a["workers"]) == 3
        assert a["seed"].dtype == np.uint64 and int(a["seed"]) == 18446744073709551557
        assert isinstance(a["config"], str) and a["config"].startswith("[grid]")
        assert isinstance(a["mmsim_version"], str) and a["mmsim_version"].count(".") == 2
        assert [str(s) for s in a["inputs"]] == ["day1.h5#AAA", 'day "2",b.h5#BBB'], a["inputs"]
        assert [int(x) for x in a["input_fingerprints"]] == [0x0123456789abcdef, 0xfedcba9876543210]
        for k in ("wall_s", "combos_per_s", "updates_per_s"):
            assert a[k].dtype == np.float64, k

        # Content hash recomputed from the docs.
        table = d[:]
        stored = int(a["content_hash"])
        assert a["content_hash"].dtype == np.uint64
        assert content_hash(table) == stored, "content hash recomputed from docs/results.md differs"

        # Index: pnl descending, ties by ascending id (NaN last).
        idx = f["index/pnl"][:]
        assert idx.dtype == np.int64
        pnl = df["pnl"].to_numpy()
        key = np.where(np.isnan(pnl), np.inf, -pnl)
        want = np.lexsort((df["id"].to_numpy(), key))
        assert (idx == want).all(), "index order"

    # The CSV export read by pandas holds the same values (axis values as values).
    csv = subprocess.run([mmsim, "export", p, "--csv"], check=True, capture_output=True, text=True).stdout
    x = pd.read_csv(io.StringIO(csv), keep_default_na=False, na_values=["nan"], float_precision="round_trip")
    assert list(x.columns) == list(df.columns), list(x.columns)
    assert (x["tape"] == [tape[i] for i in df["tape"]]).all()
    assert (x["queue"] == [queue[i] for i in df["queue"]]).all()
    for c in df.columns:
        if c in ("tape", "queue"):
            continue
        if df[c].dtype == np.float64:
            assert np.array_equal(x[c].to_numpy(np.float64), df[c].to_numpy(), equal_nan=True), c
        else:
            assert (x[c].to_numpy() == df[c].to_numpy()).all(), c
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
