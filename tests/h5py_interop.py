#!/usr/bin/python3
"""Interop with h5py, following docs/formats.md only: read a tick file mmsim wrote and recompute its
fingerprint; write a tick file with h5py (and python3-xxhash) that `mmsim info` accepts and verifies.
Usage: h5py_interop.py MMSIM_BIN WORKDIR"""
import os
import subprocess
import sys

import h5py
import numpy as np
import xxhash

COLS = [("ts_ns", np.int64), ("bid_px", np.int32), ("ask_px", np.int32), ("bid_sz", np.int32),
        ("ask_sz", np.int32), ("trade_px", np.int32), ("trade_sz", np.int32), ("trade_side", np.int8)]


def fingerprint(cols):
    h = xxhash.xxh3_64()
    h.update(np.int64(len(cols["ts_ns"])).astype("<i8").tobytes())
    for name, dt in COLS:
        h.update(np.ascontiguousarray(cols[name], dtype=np.dtype(dt).newbyteorder("<")).tobytes())
    return h.intdigest()


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
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
