#!/usr/bin/python3
"""Monte Carlo summaries against numpy (docs/results.md, "Monte Carlo"): a sweep with --paths and
--keep-paths; every summary column of /results equals numpy's computation over that combination's
rows of /paths (mean, std with ddof 1, the 5/50/95 percentiles with numpy's default linear method,
CVaR 5% as the mean of the ceil(n/20) smallest, the share of losses), and /index/<objective> is the
table sorted by the objective. Usage: montecarlo_numpy.py MMSIM WORKDIR"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np


def main():
    mmsim, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    day, out = os.path.join(work, "day.h5"), os.path.join(work, "mc.h5")
    subprocess.run([mmsim, "gen", "-o", day, "--events", "20000", "--seed", "4"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([mmsim, "sweep", day, "--grid", "spread=0:2", "--grid", "inv_limit=3,10",
                    "--grid", "trade_reach=0.5,1", "--set", "latency_dist=exponential", "--set",
                    "latency_ns=250000", "--set", "queue_join=uniform", "--paths", "37",
                    "--keep-paths", "--objective", "pnl_p5", "--quiet", "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    f = h5py.File(out, "r")
    n = int(f.attrs["paths"])
    res, paths = f["results"][:], f["paths"][:]
    assert n == 37 and len(paths) == len(res) * n, (n, len(paths), len(res))
    assert (paths["id"] == np.repeat(np.arange(len(res)), n)).all()
    assert (paths["path"] == np.tile(np.arange(n), len(res))).all()
    metrics = [c for c in paths.dtype.names if c not in ("id", "path")]
    checked = 0
    varied = 0
    for i in range(len(res)):
        p = paths[i * n:(i + 1) * n]
        row = res[i]
        for m in metrics:
            x = p[m].astype(np.float64)
            np.testing.assert_allclose(row[m + "_mean"], x.mean(), rtol=1e-12, atol=1e-12,
                                       err_msg=f"row {i} {m}_mean")
            np.testing.assert_allclose(row[m + "_std"], x.std(ddof=1), rtol=1e-9, atol=1e-12,
                                       err_msg=f"row {i} {m}_std")
            checked += 2
        for m in ("pnl", "pnl_close"):
            x = np.sort(p[m])
            for q in (5, 50, 95):
                np.testing.assert_allclose(row[f"{m}_p{q}"], np.percentile(x, q), rtol=1e-12,
                                           atol=1e-12, err_msg=f"row {i} {m}_p{q}")
            k = -(-n // 20)
            np.testing.assert_allclose(row[f"{m}_cvar5"], x[:k].mean(), rtol=1e-12, atol=1e-12,
                                       err_msg=f"row {i} {m}_cvar5")
            checked += 4
        assert row["p_loss"] == (p["pnl"] < 0).mean(), i
        assert row["p_loss_close"] == (p["pnl_close"] < 0).mean(), i
        varied += p["pnl"].std() > 0
    assert varied > len(res) // 2, f"only {varied} of {len(res)} combinations vary over paths"
    idx = f["index/pnl_p5"][:]
    order = sorted(range(len(res)), key=lambda r: (-res["pnl_p5"][r], r))
    assert list(idx) == order, (list(idx), order)
    print(f"montecarlo_numpy: ok ({len(res)} combinations x {n} paths, {checked} summaries)")


if __name__ == "__main__":
    main()
