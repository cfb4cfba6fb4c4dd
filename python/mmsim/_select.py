"""Results.select: `mmsim select` (docs/select.md) from Python. The numbers are the library's
(mm_select_run, src/sweep/select.c), copied out of its result into numpy arrays and DataFrames;
Selection.text() prints them as src/cli/cmd_select.c does, character for character."""
import collections
import ctypes as C
import math

from ._np import np

from . import _lib as L

DSR = collections.namedtuple("DSR", ["sr", "skew", "kurt", "sr0", "z", "dsr", "T", "n_trials"])
DSR.__doc__ = """The deflated Sharpe ratio of the in-sample best (mm_select_dsr_out): its per-period
Sharpe sr, skewness, kurtosis (not excess), sr0 (the best Sharpe of n_trials trials with no skill),
z and dsr = Phi(z) over T periods."""


def _arr(ptr, n, dtype):
    """A copy of n values at a ctypes pointer (the library frees its result)."""
    if n == 0 or not ptr:
        return np.empty(0, dtype=dtype)
    return np.ctypeslib.as_array(ptr, shape=(n,)).astype(dtype, copy=True)


def _num(v):
    """cmd_select.c num(): "nan", else %.6g (Python's %g and C's agree, both correctly rounded)."""
    return "nan" if math.isnan(v) else "%.6g" % v


def _choice(name, v, allowed, tail=""):
    if v not in allowed:
        raise L.UsageError(f"select: {name}: '{v}' is not {' or '.join(allowed)}{tail}", L.MM_EUSAGE)
    return v


def select(res, objective="pnl", by=None, window=0, min_train=1, splits=None):
    """Results.select (see there): the options checked as `mmsim select` checks its flags, then
    mm_select_run on the file."""
    from ._keys import _int
    o = L.mm_select_opts()
    L.mm_select_opts_defaults(C.byref(o))
    obj = _choice("objective", objective, ("pnl", "sharpe"),
                  " (the statistics a set of time blocks adds up to)")
    o.stat = L.MM_SELECT_PNL if obj == "pnl" else L.MM_SELECT_SHARPE
    if by is not None:
        o.by_tape = 1 if _choice("by", by, ("block", "tape")) == "tape" else 0
    o.window = _int("select", "window", window, 0, 1 << 40)
    o.min_train = _int("select", "min_train", min_train, 1, 1 << 40)
    if splits is not None:
        v = _int("select", "splits", splits, 2, L.MM_SELECT_SPLITS_MAX)
        if v % 2:
            raise L.UsageError(f"select: splits: {v} must be even", L.MM_EUSAGE)
        o.splits = v
    out, err = C.POINTER(L.mm_select_result)(), L.mm_error()
    rc = L.mm_select_run(res.path.encode(), C.byref(o), C.byref(out), C.byref(err))
    try:
        L.check(rc, err)
        return Selection(res, out.contents)
    finally:
        L.mm_select_free(out)


class Selection:
    """What `mmsim select` reports, as numbers (docs/select.md; include/mmsim/select.h
    mm_select_result). Trials are the combinations of the axes other than the tape, numbered as
    the rows of tape 0 (trial n = row id n on tape 0); those with no fill on any tape are set aside
    (n_idle of n_all). Periods are the time blocks, tape after tape (by "block") or the tapes.

    - perf: DataFrame [periods x kept trials], each trial's PnL change in each period (money);
      period_end_ns: each period's end (exchange ns; 0 when the file does not say).
    - walk_forward: DataFrame indexed by period (min_train .. T - 1): end_ns, chosen (the trial the
      rule picked), oos_pnl (its PnL change in the period), is_best_pnl, median_pnl; oos_total,
      is_total, median_total (their sums), oos_distinct, is_best and median (trial numbers).
    - pbo, logits (C(S, S/2) values, split order), splits (S groups), n_splits.
    - ranks: DataFrame indexed by trial: rank_is, rank_oos (first and second half, 1 = worst).
    - dsr (a DSR: sr, skew, kurt, sr0, z, dsr, T, n_trials), sr_var.
    - neighbourhood: DataFrame indexed by trial (every trial): the axis values, idle, value (the
      full-sample statistic, NaN for none), smooth (averaged with its grid neighbours); raw_best,
      smooth_best (trial numbers).
    str(selection) / text(periods=True) is the command's output."""

    def __init__(self, res, s):
        import pandas as pd
        self.path = res.path
        self.n_rows, self.n_all, self.n_idle = int(s.n_rows), int(s.n_all), int(s.n_idle)
        self.n_trials, self.n_periods = N, T = int(s.N), int(s.T)
        self.n_tapes, self.n_blocks = int(s.n_tapes), int(s.n_blocks)
        self.by = "tape" if s.by_tape else "block"
        self.objective = "pnl" if s.stat == L.MM_SELECT_PNL else "sharpe"
        self.block_ns = res.block_ns
        self.window, self.min_train = int(s.window), int(s.min_train)
        self.trials = _arr(s.trial, N, np.int64)
        self.perf = pd.DataFrame(_arr(s.perf, T * N, np.float64).reshape(T, N),
                                 columns=pd.Index(self.trials, name="trial"),
                                 index=pd.RangeIndex(T, name="period"))
        self.period_end_ns = _arr(s.period_end_ns, T, np.int64)
        chosen = _arr(s.chosen, T, np.int64)
        oos = _arr(s.oos, T, np.float64)
        self.is_best, self.median = int(self.trials[s.is_best]), int(self.trials[s.median])
        self.oos_total, self.is_total, self.median_total = s.oos_total, s.is_total, s.median_total
        self.oos_distinct = int(s.oos_distinct)
        wf = range(self.min_train, T)
        self.walk_forward = pd.DataFrame({
            "end_ns": self.period_end_ns[self.min_train:],
            "chosen": np.array([self.trials[chosen[t]] for t in wf], dtype=np.int64),
            "oos_pnl": oos[self.min_train:],
            "is_best_pnl": self.perf.iloc[self.min_train:, int(s.is_best)].to_numpy(),
            "median_pnl": self.perf.iloc[self.min_train:, int(s.median)].to_numpy()},
            index=pd.RangeIndex(self.min_train, T, name="period"))
        self.splits, self.n_splits = int(s.S), int(s.n_logits)
        self.logits = _arr(s.logits, self.n_splits, np.float64)
        self.pbo = s.pbo
        self.ranks = pd.DataFrame({"rank_is": _arr(s.rank_is, N, np.float64),
                                   "rank_oos": _arr(s.rank_oos, N, np.float64)},
                                  index=pd.Index(self.trials, name="trial"))
        d = s.dsr
        self.dsr = DSR(d.sr, d.skew, d.kurt, d.sr0, d.z, d.dsr, int(d.T), int(d.n_trials))
        self.sr_var = s.sr_var
        self.raw_best, self.smooth_best = int(s.raw_best), int(s.smooth_best)
        # The trials' axis values: the axes other than a leading tape axis, mixed radix, the last
        # fastest (cli_select_trial_text), as mm_results_axis_format writes them.
        info = res._info
        a0 = 1 if info.n_axes > 0 and res.axis_names[0] == "tape" else 0
        self._axes = [(res.axis_names[a], info.axes[a]) for a in range(a0, info.n_axes)]
        cols, stride = {}, self.n_all
        trial = np.arange(self.n_all, dtype=np.int64)
        for name, ax in self._axes:
            stride //= ax.n
            k = trial // stride % ax.n
            v = res.axes[name]
            cols[name] = pd.Categorical.from_codes(k, v) if isinstance(v, list) else v[k]
        idle = np.ones(self.n_all, dtype=bool)
        idle[self.trials] = False
        cols["idle"] = idle
        cols["value"] = _arr(s.value, self.n_all, np.float64)
        cols["smooth"] = _arr(s.smooth, self.n_all, np.float64)
        self.neighbourhood = pd.DataFrame(cols, index=pd.Index(trial, name="trial"))

    def trial_text(self, n):
        """Trial n's axis values as `mmsim select` prints them: "spread=15.5 inv_limit=2000"."""
        parts, stride = [], self.n_all
        for name, ax in self._axes:
            stride //= ax.n
            buf = C.create_string_buffer(256)
            L.mm_results_axis_format(C.byref(ax), int(n // stride % ax.n), buf, 256)
            parts.append(f"{name}={buf.value.decode()}")
        return " ".join(parts) or "(no axis)"

    def params(self, n):
        """Trial n's axis values as a dict."""
        row = self.neighbourhood.loc[int(n)]
        return {name: (row[name].item() if hasattr(row[name], "item") else row[name]) for name, _ in self._axes}

    def __repr__(self):
        return (f"<mmsim.Selection {self.path}: {self.n_periods} periods x {self.n_trials} trials, objective "
                f"{self.objective}: PBO {self.pbo:.4f}, DSR {_num(self.dsr.dsr)}, in-sample best {self.is_best}, "
                f"smoothed best {self.smooth_best}>")

    def __str__(self):
        return self.text()

    def text(self, periods=False):
        """The text `mmsim select PATH [--periods]` prints for the same options (src/cli/cmd_select.c
        print_result)."""
        o = []
        unit = self.objective
        o.append(f"select    {self.path}: {self.n_rows} rows, {self.n_tapes} tape{'' if self.n_tapes == 1 else 's'}, ")
        if self.by == "tape":
            o.append(f"periods = the tapes: {self.n_periods} periods x {self.n_trials} trials\n")
        else:
            o.append(f"{self.n_blocks} time blocks per tape ({'fixed length' if self.block_ns else 'equal spans'}): "
                     f"{self.n_periods} periods x {self.n_trials} trials\n")
        o.append(f"set aside {self.n_idle} of {self.n_all} trials: no fill on any tape (fills_bid + fills_ask = 0): "
                 f"no strategy, never ranked\n")
        o.append(f"objective {unit} ("
                 + ("the sum of the PnL changes of a set of periods, money" if unit == "pnl"
                    else "mean / sd of the PnL changes of a set of periods, per period, not annualised") + ")\n\n")
        m = self.min_train
        o.append(f"walk-forward ({'rolling' if self.window else 'expanding'} window, first choice after {m} "
                 f"period{'' if m == 1 else 's'}):\n")
        if self.window:
            o.append(f"  window: the last {self.window} periods\n")
        o.append(f"  out of sample, periods {m}..{self.n_periods - 1}: walk-forward {_num(self.oos_total)}, in-sample "
                 f"best {_num(self.is_total)}, median trial {_num(self.median_total)} (pnl)\n")
        o.append(f"  in-sample best: trial {self.is_best} ({self.trial_text(self.is_best)}); median trial "
                 f"{self.median} ({self.trial_text(self.median)})\n")
        k = self.oos_distinct
        o.append(f"  the walk-forward chose {k} distinct trial{'' if k == 1 else 's'}\n")
        if periods:
            o.append("  period  end_ns               chosen  oos_pnl      is_best_pnl  median_pnl\n")
            for r in self.walk_forward.itertuples():  # (not iterrows: it makes the ns floats)
                o.append(f"  {r.Index:6d}  {r.end_ns:<19d}  {r.chosen:6d}  {_num(r.oos_pnl):<11s}  "
                         f"{_num(r.is_best_pnl):<11s}  {_num(r.median_pnl)}\n")
        o.append(f"\noverfitting (CSCV, Bailey, Borwein, Lopez de Prado and Zhu): {self.splits} groups, "
                 f"{self.n_splits} splits\n")
        o.append(f"  PBO = {self.pbo:.4f} (the share of splits where the in-sample best ranks at or below the "
                 f"median out of sample)\n")
        lg, n = np.sort(self.logits), self.n_splits
        o.append(f"  logits: min {_num(lg[0])}, p25 {_num(lg[n // 4])}, median {_num(lg[n // 2])}, p75 "
                 f"{_num(lg[(3 * n) // 4])}, max {_num(lg[n - 1])}\n")
        d = self.dsr
        o.append(f"\ndeflated Sharpe ratio (Bailey and Lopez de Prado 2014) of the in-sample best, trial "
                 f"{self.is_best}:\n")
        o.append(f"  sharpe {_num(d.sr)} per period over T = {d.T} periods, skewness {_num(d.skew)}, kurtosis "
                 f"{_num(d.kurt)}; N = {d.n_trials} trials, var of their sharpe {_num(self.sr_var)}\n")
        verdict = ("undefined" if math.isnan(d.dsr) else "significant at 95%" if d.dsr >= 0.95
                   else "not significant at 95%")
        o.append(f"  expected best sharpe of N trials with no skill sr0 = {_num(d.sr0)}; z = {_num(d.z)}; DSR = "
                 f"{_num(d.dsr)}: {verdict}\n")
        nb = self.neighbourhood
        o.append(f"\nneighbourhood (each trial's {unit} averaged with its grid neighbours, one step along a numeric "
                 f"axis):\n")
        for label, k in (("raw best     ", self.raw_best), ("smoothed best", self.smooth_best)):
            o.append(f"  {label} trial {k} ({self.trial_text(k)}): {_num(nb['value'][k])}, smoothed "
                     f"{_num(nb['smooth'][k])}\n")
        return "".join(o)
