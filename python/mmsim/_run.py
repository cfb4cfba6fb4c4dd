"""mmsim.run: one parameter combination through a tape (`mmsim run`): the metrics as a dict, the trace
and the curve as DataFrames."""
import ctypes as C
import os

from ._np import np

from . import _keys as K
from . import _lib as L
from ._keys import _int, _real  # noqa: F401 (the checks of numbers, shared)
from ._ticks import Tape, ticks

TRACE_KINDS = ["order", "cancel", "active", "reject", "fill", "done"]  # enum mm_trace_kind 1..6
_TRACE_FIELDS = [("ts_ns", "<i8"), ("event", "<i8"), ("kind", "<i4"), ("side", "<i4"), ("px", "<i4"),
                 ("qty", "<i4"), ("ahead", "<i4"), ("taker", "<i4"), ("q", "<i8"), ("cash2", "<i8"),
                 ("mid2", "<i8"), ("fees", "<f8"), ("pnl", "<f8"), ("known_q", "<i8")]


def _trace_dtype():
    d = np.dtype(_TRACE_FIELDS)
    assert d.itemsize == C.sizeof(L.mm_trace_rec)
    return d


def metric_names(markout_ns):
    """The metric columns of a results table of one path, in order (mm_results_metric)."""
    mk = (C.c_int64 * 3)(*markout_ns)
    out = []
    for i in range(L.MM_RESULTS_METRICS):
        buf = C.create_string_buffer(64)
        L.mm_results_metric(i, mk, buf, 64)
        out.append(buf.value.decode())
    return out


def metrics_dict(m, markout_ns):
    """mm_metrics as {column name: value}, the names and types of the results table."""
    out = {}
    f, i = C.c_double(), C.c_int64()
    for k, name in enumerate(metric_names(markout_ns)):
        t = L.mm_results_metric_value(C.byref(m), k, C.byref(f), C.byref(i))
        out[name] = f.value if t == L.MM_COL_F64 else int(i.value)
    return out


class Settings:
    """The run settings (mm_sim_config) from the command line's names, checked as it checks them."""

    def __init__(self, where, sample_ns=None, year_seconds=None, markout_ns=None, seed=None, path=None,
                 latency_series=None, latency_samples=None):
        c = L.mm_sim_config()
        L.mm_sim_config_defaults(C.byref(c))
        self.lat = self.smp = None
        if sample_ns is not None:
            c.sample_ns = _int(where, "sample_ns", sample_ns, 1, 10 ** 18)
        if year_seconds is not None:
            c.year_s = _real(where, "year_seconds", year_seconds, 0, 1e12)
        if markout_ns is not None:
            mk = [_int(where, "markout_ns", v, 1, 10 ** 18) for v in
                  (markout_ns.split(",") if isinstance(markout_ns, str) else markout_ns)]
            if len(mk) != 3:
                raise L.UsageError(f"{where}: markout_ns: three horizons expected, got {len(mk)}", L.MM_EUSAGE)
            c.markout_ns[:] = mk
        if seed is not None:
            c.seed = _int(where, "seed", seed, 0, 2 ** 64 - 1)
        if path is not None:
            c.path = _int(where, "path", path, 0, 2 ** 31 - 1)
        err = L.mm_error()
        if latency_series is not None:
            self.lat = L.mm_latency_series()
            L.check(L.mm_latency_read_csv(L.b(latency_series), C.byref(self.lat), C.byref(err)), err)
            c.latency = C.pointer(self.lat)
        if latency_samples is not None:
            self.smp = L.mm_latency_samples()
            L.check(L.mm_latency_samples_read_csv(L.b(latency_samples), C.byref(self.smp), C.byref(err)), err)
            c.latency_samples = C.pointer(self.smp)
        self.c = c

    def __del__(self):
        if getattr(self, "lat", None) is not None:
            L.mm_latency_free(C.byref(self.lat))
            self.lat = None
        if getattr(self, "smp", None) is not None:
            L.mm_latency_samples_free(C.byref(self.smp))
            self.smp = None


class Run:
    """What mmsim.run returns: .metrics (dict, the results table's column names), .params (every
    key's value), .trace (DataFrame: every order, cancel, activation, rejection and fill, the columns
    of `mmsim run --trace`), .curve (DataFrame: position, mid and PnL after each event, the series of
    `mmsim run --curve`), .tape (the Tape)."""

    def __init__(self, tape, params, metrics, rec, year_s, sample_ns):
        self.tape, self.params, self.metrics = tape, params, metrics
        self.year_s, self.sample_ns = year_s, sample_ns
        self._rec = rec
        self._trace = self._curve = None

    def __repr__(self):
        return (f"<mmsim.Run {self.tape.symbol}: pnl {self.metrics['pnl']:.10g}, "
                f"fills {self.metrics['fills_bid']} bid {self.metrics['fills_ask']} ask>")

    @property
    def trace(self):
        if self._rec is None:
            raise L.UsageError("run: no trace (run with trace=True)", L.MM_EUSAGE)
        if self._trace is None:
            import pandas as pd
            r, t = self._rec, self.tape
            money = t.tick_size * t.lot_size
            self._trace = pd.DataFrame({
                "ts_ns": r["ts_ns"], "event": r["event"],
                "kind": pd.Categorical.from_codes(r["kind"] - 1, TRACE_KINDS),
                "side": pd.Categorical.from_codes((r["side"] < 0).astype(np.int8), ["bid", "ask"]),
                "px_ticks": r["px"], "price": r["px"] * t.tick_size, "qty_lots": r["qty"],
                "queue_ahead": r["ahead"], "taker": r["taker"], "position": r["q"],
                "cash": r["cash2"] * 0.5 * money, "mid": r["mid2"] * 0.5 * t.tick_size, "fees": r["fees"],
                "pnl": r["pnl"], "known_position": r["known_q"]})
        return self._trace

    @property
    def curve(self):
        """One row per event i: the state after every trace record of events <= i, the mid of the
        last two-sided row, PnL = (cash2 + q x mid2) x 0.5 x tick x lot - fees (NaN before the first
        two-sided row): src/cli/report_curve.c's rule, without its buckets."""
        if self._rec is None:
            raise L.UsageError("run: no curve (run with trace=True)", L.MM_EUSAGE)
        if self._curve is None:
            import pandas as pd
            t, r = self.tape, self._rec
            n = t.n
            two = (t.bid_px != np.iinfo(np.int32).min) & (t.ask_px != np.iinfo(np.int32).max)
            mid2 = np.where(two, t.bid_px.astype(np.int64) + t.ask_px, 0)
            last = np.maximum.accumulate(np.where(two, np.arange(n), -1))
            mid2 = np.where(last >= 0, mid2[np.maximum(last, 0)], 0)
            k = np.searchsorted(r["event"], np.arange(n), side="right") - 1
            has = k >= 0
            kk = np.maximum(k, 0)
            q = np.where(has, r["q"][kk] if len(r) else 0, 0)
            cash2 = np.where(has, r["cash2"][kk] if len(r) else 0, 0)
            fees = np.where(has, r["fees"][kk] if len(r) else 0.0, 0.0)
            money = t.tick_size * t.lot_size
            pnl = np.where(mid2 != 0, (cash2 + q * mid2).astype(np.float64) * 0.5 * money - fees, np.nan)
            mid = np.where(mid2 != 0, mid2 * 0.5 * t.tick_size, np.nan)
            self._curve = pd.DataFrame({"ts_ns": np.array(t.ts_ns), "position": q, "mid": mid, "pnl": pnl},
                                       index=pd.to_datetime(np.array(t.ts_ns), unit="ns", utc=True).rename("time"))
        return self._curve


def _tape_arg(tape, symbol, verify):
    if isinstance(tape, Tape):
        if symbol is not None and symbol != tape.symbol:
            raise L.UsageError(f"run: symbol={symbol}: the tape given is {tape.symbol}", L.MM_EUSAGE)
        return tape
    return ticks(tape, symbol, verify)


def run(tape, symbol=None, engine="reference", trace=True, sample_ns=None, year_seconds=None,
        markout_ns=None, seed=None, path=None, id=0, latency_series=None, latency_samples=None,
        verify=True, **keys):
    """Replay one parameter combination through a tape (a path, or a Tape) and return a Run.

    keys are the model's (mmsim.keys(): spread=2, inv_limit=200, size=100, queue="power", ...; the
    same names, defaults and checks as `mmsim run --spread 2 ...`). engine: "reference" (with the
    trace) or "batched" (the same metrics; no trace). seed and path (with the combination's
    family: its keys but inv_limit and the fee rates) key the random streams of the random
    execution options (docs/model.md 3.3); id is the combination id a sweep gives the row,
    recorded, drawing nothing."""
    if engine not in ("reference", "batched"):
        raise L.UsageError(f"run: engine: '{engine}' is not reference or batched", L.MM_EUSAGE)
    if trace and engine == "batched":
        raise L.UsageError("run: trace needs the reference engine (trace=False with engine='batched')",
                           L.MM_EUSAGE)
    p = L.mm_params_buf()
    L.mm_params_defaults(C.byref(p))
    given = []
    for k, v in keys.items():
        given.append(K.set_param(C.byref(p), k, v, "run")[0])
    err = L.mm_error()
    L.check(L.mm_params_check(C.byref(p), C.byref(err)), err)
    s = Settings("run", sample_ns, year_seconds, markout_ns, seed, path, latency_series, latency_samples)
    s.c.id = _int("run", "id", id, 0, 2 ** 63 - 1)
    t = _tape_arg(tape, symbol, verify)
    m = L.mm_metrics()
    buf = L.mm_trace_buf()
    try:
        if engine == "batched":
            rc = L.mm_sim_run_batch(C.byref(t._t), C.byref(s.c), C.byref(p), 1, C.byref(m), C.byref(err))
        else:
            rc = L.mm_sim_run_c(C.byref(t._t), C.byref(s.c), C.byref(p), C.byref(m),
                                L.mm_trace_collect if trace else None, C.addressof(buf) if trace else None,
                                C.byref(err))
        L.check(rc, err)
        if buf.oom:
            raise MemoryError("run: out of memory for the trace")
        rec = None
        if trace:
            _TRACE_DTYPE = _trace_dtype()
            rec = (np.ctypeslib.as_array(C.cast(buf.rec, C.POINTER(C.c_uint8)),
                                         shape=(buf.n * _TRACE_DTYPE.itemsize,)).view(_TRACE_DTYPE).copy()
                   if buf.n else np.empty(0, _TRACE_DTYPE))
    finally:
        L.mm_trace_buf_free(C.byref(buf))
    year_s = L.mm_sim_year_s(C.byref(s.c), C.byref(t._t.inst))
    r = Run(t, K.params_dict(C.byref(p)), metrics_dict(m, list(s.c.markout_ns)), rec, year_s, s.c.sample_ns)
    r.warnings = [f"run: warning: {k} has no effect with strategy {r.params['strategy']} (only "
                  f"{K.STRATEGIES[K.strategy_of(k)]} reads it)" for k in given
                  if K.strategy_of(k) >= 0 and K.STRATEGIES[K.strategy_of(k)] != r.params["strategy"]]
    if r.warnings:
        import warnings
        for w in r.warnings:
            warnings.warn(w, stacklevel=2)
    return r
