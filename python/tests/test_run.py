"""mmsim.run against `mmsim run`: metrics, trace, curve, keys and messages."""
import io
import math

import numpy as np
import pandas as pd
import pytest

import mmsim
from conftest import cli, cli_json

KEYS = dict(spread=1, inv_limit=20, size=2, queue="log", latency_ns=100000)
FLAGS = ["--spread", "1", "--inv-limit", "20", "--size", "2", "--queue", "log", "--latency-ns", "100000"]


def test_metrics_are_the_command_lines(day):
    r = mmsim.run(day, **KEYS)
    j = cli_json("run", day, *FLAGS, "--json")
    assert r.metrics["fills_bid"] + r.metrics["fills_ask"] > 0
    for k, v in r.metrics.items():
        assert k in j["metrics"], k
        assert v == j["metrics"][k] or (isinstance(v, float) and math.isnan(v) and j["metrics"][k] is None), k
    assert r.params["queue"] == "log" and r.params["spread"] == 1.0 and r.params["size"] == 2
    b = mmsim.run(day, engine="batched", trace=False, **KEYS)
    assert b.metrics == r.metrics


def test_trace_is_the_command_lines_csv(day, tmp_path):
    r = mmsim.run(day, **KEYS)
    cli("run", day, *FLAGS, "--trace", tmp_path / "t.csv")
    c = pd.read_csv(tmp_path / "t.csv")
    t = r.trace
    assert list(t.columns) == list(c.columns) and len(t) == len(c) > 100
    for col in ("ts_ns", "event", "px_ticks", "qty_lots", "queue_ahead", "taker", "position", "known_position"):
        assert np.array_equal(t[col].to_numpy(), c[col].to_numpy()), col
    assert (t["kind"].astype(str).to_numpy() == c["kind"].to_numpy()).all()
    assert (t["side"].astype(str).to_numpy() == c["side"].to_numpy()).all()
    for col in ("price", "cash", "mid", "fees", "pnl"):  # the CSV prints 10 significant digits
        assert np.allclose(t[col].to_numpy(), c[col].to_numpy(), rtol=1e-9, atol=1e-9), col


def test_curve_ends_at_the_metrics_pnl(day):
    r = mmsim.run(day, **KEYS)
    cv = r.curve
    assert len(cv) == r.tape.n
    assert cv["pnl"].iloc[-1] == pytest.approx(r.metrics["pnl"], abs=1e-9)
    assert cv["position"].iloc[-1] == r.metrics["final_q"]
    assert cv["position"].abs().max() == r.metrics["max_abs_q"]


def test_keys_take_either_spelling_and_the_alias(day):
    a = mmsim.run(day, trace=False, half_spread=3, inv_limit=5)
    b = mmsim.run(day, trace=False, **{"spread": 3, "inv-limit": 5})
    assert a.metrics == b.metrics and a.params["spread"] == 3.0


def test_bad_keys_and_values_raise_the_library_message(day):
    with pytest.raises(mmsim.UsageError) as e:
        mmsim.run(day, sprad=2)
    assert "sprad: unknown key" in str(e.value) and "did you mean spread" in str(e.value)
    with pytest.raises(mmsim.UsageError) as e:
        mmsim.run(day, queue_n=200)
    lib = cli("run", day, "--queue-n", "200", check=False)[2].strip()
    assert str(e.value).split(": ", 1)[1] in lib  # "queue_n: 200 must be in (0, 100]"
    with pytest.raises(mmsim.UsageError, match="'2x' is not a decimal number"):
        mmsim.run(day, spread="2x")
    with pytest.raises(mmsim.UsageError, match="queue: 'fifo'"):
        mmsim.run(day, queue="fifo")
    with pytest.raises(mmsim.UsageError, match="needs the reference engine"):
        mmsim.run(day, engine="batched", spread=1)
    with pytest.raises(mmsim.UsageError, match="sample_ns: 0 is out of range"):
        mmsim.run(day, sample_ns=0)


def test_a_key_the_strategy_does_not_read_is_warned_about(day):
    with pytest.warns(UserWarning, match="as_gamma has no effect with strategy fixed"):
        mmsim.run(day, trace=False, as_gamma=0.5)


def test_keys_lists_the_library_table():
    k = mmsim.keys()
    assert "inv_limit" in k and "spread" in k and "half_spread" not in k
    out = cli("run", "--help")[1]
    for key in k:
        assert "--" + key.replace("_", "-") in out, key
