"""A results file (docs/results.md) through libmmsim's reader: the table as a DataFrame, the best
rows, one row run again, the sweep run again, the content hash checked."""
import ctypes as C
import os
import tempfile

from ._np import np

from . import _keys as K
from . import _lib as L
from ._keys import smaller_is_better
from ._run import metrics_dict, run
from ._ticks import ticks

_BLOCK = 65536


def parse_config(text):
    """The recorded configuration (INI, src/cli/sweep_cli.c sweep_config_text's shape) as
    {section: [(key, value), ...]}."""
    out, sec = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            sec = line[1:-1]
            out.setdefault(sec, [])
            continue
        k, _, v = line.partition("=")
        out.setdefault(sec, []).append((k.strip(), v.strip()))
    return out


def _s(p):
    return p.decode() if p else ""


class Row:
    """One row of a results table: .id, .values (its axis values and metrics), .params (every key:
    the recorded fixed values with the row's axis values), .tape (PATH#SYMBOL as recorded)."""

    def __init__(self, res, id, values):
        self.results, self.id, self.values = res, id, values
        cfg = res.config
        params = dict(cfg.get("params", []))
        for a in res.axis_names:
            if a != "tape":
                params[a] = values[a]
        self.params = params
        self.tape = values["tape"] if "tape" in values else None

    def __repr__(self):
        return f"<mmsim.Row {self.id} of {self.results.path}: {self.values}>"

    def run(self, trace=True, path=None, data=None):
        """The row run again (`mmsim run --from RESULTS --id N`): its parameters, its tape (which must
        still have the recorded fingerprint), the recorded settings and random streams (seed, the
        row's id, the path: 0 unless given). Raises DataError when the metrics differ from the
        stored row's. data: a folder to look for the recorded inputs in (by file name)."""
        res = self.results
        run_cfg = dict(res.config.get("run", []))
        i = res.tape_names.index(self.tape)
        fp = res.input_fingerprints[i]
        file, sym = res.input_paths[i], res.input_symbols[i]
        file = res.find_input(file, data)
        t = ticks(file, sym)
        if t.fingerprint != fp:
            raise L.DataError(f"run: tape {file}#{sym}: fingerprint {t.fingerprint:016x}, the sweep ran on "
                              f"{fp:016x} (the file changed)", L.MM_EINVALID)
        side = {r: res.find_input(p, data) for r, p in zip(res.side_roles, res.side_paths)}
        keys = {k: v for k, v in self.params.items()}
        import warnings
        with warnings.catch_warnings():  # the recorded [params] lists every key, read or not
            warnings.simplefilter("ignore")
            r = run(t, trace=trace, sample_ns=run_cfg.get("sample_ns"), year_seconds=run_cfg.get("year_seconds"),
                    markout_ns=res.markout_ns, seed=res.seed, path=path or 0, id=self.id,
                    latency_series=side.get("latency_series"), latency_samples=side.get("latency_samples"),
                    **keys)
        if res.paths == 1:
            stored = {k: self.values[k] for k in r.metrics}
            bad = [k for k in r.metrics if not _same(r.metrics[k], stored[k])]
            if bad:
                raise L.DataError(f"run: row {self.id} of {res.path}: {bad[0]} is {r.metrics[bad[0]]!r} now, "
                                  f"{stored[bad[0]]!r} stored", L.MM_EINVALID)
        return r


def _same(a, b):
    return (a != a and b != b) or a == b


class Results:
    """An open results file. .df: the table (id, the axes: tape and enum axes as pandas categoricals,
    numbers as numbers; then the metric columns), .content_hash, .config (the recorded
    configuration), .top(n, objective), .row(id), .rerun(), .verify()."""
    _sweep = None  # mmsim.sweep (rerun); _sweep.py sets it: it imports this module, not the reverse

    def __init__(self, path):
        self.path = os.fspath(path)
        self.report = None
        r = C.c_void_p()
        err = L.mm_error()
        L.check(L.mm_results_open(self.path.encode(), C.byref(r), C.byref(err)), err)
        self._r = r
        info = L.mm_results_describe(r).contents
        self._info = info
        self.n = int(info.n_rows)
        self.content_hash = int(info.content_hash)
        m = info.meta
        self.config_text = _s(m.config_text)
        self.config = parse_config(self.config_text)
        self.seed = int(m.seed)
        self.engine = _s(m.engine)
        self.workers = int(m.workers)
        self.objective = _s(m.objective)
        self.markout_ns = list(m.markout_ns)
        self.input_paths = [_s(m.input_paths[i]) for i in range(m.n_inputs)]
        self.input_symbols = [_s(m.input_symbols[i]) for i in range(m.n_inputs)]
        self.input_fingerprints = [int(m.input_fingerprints[i]) for i in range(m.n_inputs)]
        self.side_roles = [_s(m.side_roles[i]) for i in range(m.n_side)]
        self.side_paths = [_s(m.side_paths[i]) for i in range(m.n_side)]
        self.paths = int(info.paths)
        # Each input tape's span (last minus first timestamp, ns; what an annualised sharpe was
        # measured over); None in a file from before it was recorded.
        self.input_span_ns = ([int(m.input_span_ns[i]) for i in range(m.n_inputs)] if m.input_span_ns
                              else None)
        # Rows without a fill, as the commit counted them (-1: a file written before it).
        self.n_no_fill = int(info.n_no_fill)
        # Time blocks (docs/results.md "/blocks"): 0 when the file has none; block_ns 0: equal spans.
        self.n_blocks = int(info.n_blocks)
        self.block_ns = int(info.block_ns)
        self._block_end = [[int(info.block_end_ns[t * self.n_blocks + b]) for b in range(self.n_blocks)]
                           for t in range(int(info.block_tapes))] if self.n_blocks else []
        self.mmsim_version = _s(info.mmsim_version)
        self.metric_names = [_s(info.metric_names[i]) for i in range(info.n_metrics)]
        self._metric_types = [info.metric_types[i] for i in range(info.n_metrics)]
        self.axis_names = [_s(info.axes[a].key) for a in range(info.n_axes)]
        self._raw_axes = {}  # numbers as lists: numpy is imported on first use of .axes or .df
        for a in range(info.n_axes):
            ax = info.axes[a]
            if ax.type == L.MM_COL_ENUM:
                vals = [_s(ax.names[i]) for i in range(ax.n)]
            elif ax.type == L.MM_COL_F64:
                vals = ("f8", [ax.f64[i] for i in range(ax.n)])
            else:
                vals = ("i8", [ax.i64[i] for i in range(ax.n)])
            self._raw_axes[self.axis_names[a]] = vals
        self._axes = None
        self.tape_names = list(self._raw_axes.get("tape", []))
        self._df = None

    @property
    def axes(self):
        """Each axis's values, in axis order: names (tape, enums) or a numpy array."""
        if self._axes is None:
            self._axes = {k: v if isinstance(v, list) else np.array(v[1], dtype=v[0])
                          for k, v in self._raw_axes.items()}
        return self._axes

    def close(self):
        if getattr(self, "_r", None):
            L.mm_results_close(self._r)
            self._r = None

    def __del__(self):
        self.close()

    def __len__(self):
        return self.n

    def __repr__(self):
        return (f"<mmsim.Results {self.path}: {self.n} rows, axes {', '.join(self.axis_names)}, content hash "
                f"{self.content_hash:016x}>")

    def _read(self, first, n):
        na, nm = len(self.axis_names), len(self.metric_names)
        idx = np.empty((n, na), dtype=np.int32)
        vals = np.empty((n, nm), dtype=np.float64)  # each cell the 8 bytes of mm_results_value
        err = L.mm_error()
        L.check(L.mm_results_read_values(self._r, first, n, idx.ctypes.data_as(C.POINTER(C.c_int32)),
                                         vals.ctypes.data, C.byref(err)), err)
        return idx, vals

    def _frame(self, ids, idx, vals):
        import pandas as pd
        cols = {"id": np.asarray(ids, dtype=np.int64)}
        for a, name in enumerate(self.axis_names):
            v = self.axes[name]
            if isinstance(v, list):
                cols[name] = pd.Categorical.from_codes(idx[:, a], v)
            else:
                cols[name] = v[idx[:, a]]
        for k, name in enumerate(self.metric_names):
            col = np.ascontiguousarray(vals[:, k])
            cols[name] = col.view(np.int64) if self._metric_types[k] == L.MM_COL_I64 else col
        return pd.DataFrame(cols)

    @property
    def df(self):
        """The whole table as a DataFrame, in id order (read in blocks of 65,536 rows)."""
        if self._df is None:
            import pandas as pd
            parts = []
            for first in range(0, self.n, _BLOCK):
                k = min(_BLOCK, self.n - first)
                idx, vals = self._read(first, k)
                parts.append(self._frame(np.arange(first, first + k), idx, vals))
            self._df = (pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]) if parts \
                else self._frame(np.empty(0), np.empty((0, len(self.axis_names)), np.int32),
                                 np.empty((0, len(self.metric_names))))
        return self._df

    @property
    def block_end_ns(self):
        """The exchange time each block of each tape ends at: int64 array [tapes][n_blocks] (the
        tape axis' order); None without blocks."""
        return np.array(self._block_end, dtype=np.int64) if self.n_blocks else None

    def blocks(self, first=0, n=None):
        """The time blocks of rows [first, first + n) (all by default): a structured numpy array of
        shape (rows, n_blocks) with fields pnl (money, marked to the mid at the block's end), q
        (lots), fills (both sides since the tape's start) and fees (since the start), cumulative;
        the last block equals the row's pnl, final_q, fills_bid + fills_ask and fees. NotFoundError
        when the file has no blocks (sweep(..., blocks=B))."""
        n = self.n - int(first) if n is None else int(n)
        if not 0 <= int(first) <= self.n or n < 0 or int(first) + n > self.n:
            raise L.UsageError(f"blocks: rows {first} .. {int(first) + n - 1} are not in the table (0 .. "
                               f"{self.n - 1})", L.MM_EUSAGE)
        dt = np.dtype([("pnl", "<f8"), ("q", "<i8"), ("fills", "<i8"), ("fees", "<f8")])
        assert dt.itemsize == C.sizeof(L.mm_results_block)
        out = np.empty((n, max(self.n_blocks, 1)), dtype=dt)
        err = L.mm_error()
        step = max(1, _BLOCK // max(self.n_blocks, 1))
        for a in range(0, n, step):
            k = min(step, n - a)
            ptr = C.cast(out[a:a + k].ctypes.data, C.POINTER(L.mm_results_block))
            L.check(L.mm_results_read_blocks(self._r, int(first) + a, k, ptr, C.byref(err)), err)
        return out

    def sharpe_flags(self):
        """Whether each input tape's annualised sharpe means something, as `mmsim show` and `export`
        judge it (docs/results.md, "When sharpe means something"): {"file#SYMBOL": flag}, flag "-"
        (it does), "short" (the tape spans less than one trading session, 6.5 h), "few" (fewer than
        100 samples of the recorded clock), "short,few", or "?" in a file from before the spans were
        recorded."""
        sample_ns = int(dict(self.config.get("run", [])).get("sample_ns", 1000000000))
        if sample_ns <= 0:
            sample_ns = 1000000000
        out = {}
        for i, (path, sym) in enumerate(zip(self.input_paths, self.input_symbols)):
            name = f"{path}#{sym}" if sym else path
            if self.input_span_ns is None:
                out[name] = "?"
                continue
            span = self.input_span_ns[i]
            f = (1 if span * 1e-9 < 23400.0 else 0) | (2 if span // sample_ns < 100 else 0)
            out[name] = ("-", "short", "few", "short,few")[f]
        return out

    def idle(self):
        """The rows without a fill (fills_bid + fills_ask = 0; on a Monte Carlo table their _mean
        columns), which every ranking sets aside (docs/results.md, "Rows without a fill"; the test
        of mm_results_row_idle): a DataFrame of them, in id order."""
        df = self.df
        suf = "_mean" if self.paths > 1 else ""
        b, a = "fills_bid" + suf, "fills_ask" + suf
        if b not in df.columns or a not in df.columns:
            return df.iloc[0:0]
        return df[(df[b] == 0) & (df[a] == 0)]

    def top(self, n=10, objective=None, where=None, keep_idle=False):
        """The best n rows, best first, ranked as `mmsim show` ranks them (mm_results_top_values: NaN
        last, ties by ascending id). objective: [min:|max:]METRIC (None: the recorded objective,
        with its direction); where: {axis: value} filters (value as text or a number). Rows without
        a fill are set aside, as `mmsim show` does (keep_idle=True ranks them): the frame's
        attrs["set_aside"] counts those passing the filters, attrs["matched"] the rows ranked."""
        text = objective or dict(self.config.get("run", [])).get("objective") or self.objective
        head, colon, tail = text.partition(":")
        name = (tail if colon else text).replace("-", "_")
        if colon and head not in ("min", "max"):
            raise L.UsageError(f"top: objective: '{text}': the prefix is min: or max:", L.MM_EUSAGE)
        asc = head == "min" if colon else smaller_is_better(name)
        metric = L.mm_results_column_find(C.byref(self._info), name.encode())
        if metric < 0:
            raise L.UsageError(f"top: objective: '{text}' is not a metric column ({', '.join(self.metric_names)})",
                               L.MM_EUSAGE)
        wh = []
        for key, value in (where or {}).items():
            a = L.mm_results_axis_find(C.byref(self._info), K.canon(key).encode())
            if a < 0:
                raise L.UsageError(f"top: where {key}: not an axis ({', '.join(self.axis_names)})", L.MM_EUSAGE)
            v = C.c_int32()
            if L.mm_results_axis_value(C.byref(self._info.axes[a]), K.text(value).encode(), C.byref(v)) != 0:
                raise L.UsageError(f"top: where {key}={K.text(value)}: not a value of the axis", L.MM_EUSAGE)
            wh.append(L.mm_results_where(a, v.value))
        k = max(0, min(int(n), self.n))
        q = L.mm_results_query(metric=metric, ascending=1 if asc else 0, k=int(n), keep_idle=1 if keep_idle else 0)
        if wh:
            q.where = (L.mm_results_where * len(wh))(*wh)
            q.n_where = len(wh)
        ids = np.empty(max(k, 1), dtype=np.int64)
        idx = np.empty((max(k, 1), len(self.axis_names)), dtype=np.int32)
        vals = np.empty((max(k, 1), len(self.metric_names)), dtype=np.float64)
        info, err = L.mm_results_top_info(), L.mm_error()
        L.check(L.mm_results_top_values(self._r, C.byref(q), ids.ctypes.data_as(C.POINTER(C.c_int64)),
                                        idx.ctypes.data_as(C.POINTER(C.c_int32)), vals.ctypes.data,
                                        C.byref(info), C.byref(err)), err)
        got = int(info.n)
        df = self._frame(ids[:got], idx[:got], vals[:got])
        df.index = np.arange(1, got + 1)
        df.index.name = "rank"
        df.attrs["set_aside"] = int(info.set_aside)
        df.attrs["matched"] = int(info.matched)
        return df

    def select(self, objective="pnl", by=None, window=0, min_train=1, splits=None):
        """`mmsim select` (docs/select.md): walk-forward selection, PBO by CSCV, the deflated Sharpe
        ratio of the in-sample best and the neighbourhood-robust best, over the time blocks of the
        rows (sweep(..., blocks=B)) or the tapes. objective "pnl" or "sharpe"; by "block" (the
        default when the file has blocks) or "tape"; window 0: expanding, N: the last N periods;
        min_train: the first choice after N periods; splits: CSCV groups, even, 2 to 16 (None: the
        largest even number up to the periods). Returns a Selection; print() it for the command's
        text."""
        from ._select import select
        return select(self, objective=objective, by=by, window=window, min_train=min_train, splits=splits)

    def row(self, id):
        """Row `id` (its combination id = row number)."""
        if not 0 <= int(id) < self.n:
            raise L.UsageError(f"row: id {id} is not in the table (0 .. {self.n - 1})", L.MM_EUSAGE)
        idx, vals = self._read(int(id), 1)
        rec = self._frame([int(id)], idx, vals).iloc[0]
        values = {k: (v.item() if hasattr(v, "item") else v) for k, v in rec.items() if k != "id"}
        return Row(self, int(id), values)

    def find_input(self, p, data=None):
        """Where a recorded input is now (src/cli/recorded.h cli_recorded_path): DIR/<name> with data,
        else the path as recorded, or when that is relative and absent, beside the results file."""
        if data is not None:
            return os.path.join(data, os.path.basename(p))
        if os.path.isabs(p) or os.path.exists(p):
            return p
        beside = os.path.join(os.path.dirname(self.path), p)
        return beside if os.path.exists(beside) else p

    def verify(self, inputs=False):
        """`mmsim verify`: the content hash recomputed and every stored index checked; with inputs,
        every recorded tape's fingerprint too. Returns the hash; raises DataError on a difference."""
        h, err = C.c_uint64(), L.mm_error()
        L.check(L.mm_results_verify(self.path.encode(), C.byref(h), C.byref(err)), err)
        if h.value != self.content_hash:
            raise L.DataError(f"verify: {self.path}: content hash {h.value:016x}, recorded "
                              f"{self.content_hash:016x}", L.MM_ECHECKSUM)
        if inputs:
            for p, s, fp in zip(self.input_paths, self.input_symbols, self.input_fingerprints):
                t = ticks(self.find_input(p), s)
                if t.fingerprint != fp:
                    raise L.DataError(f"verify: input {p}#{s}: fingerprint {t.fingerprint:016x}, recorded "
                                      f"{fp:016x}", L.MM_ECHECKSUM)
        return int(h.value)

    def sweep_args(self):
        """The recorded sweep as mmsim.sweep's arguments."""
        cfg = self.config
        inp, run_ = dict(cfg.get("input", [])), dict(cfg.get("run", []))
        files = [self.find_input(f.strip()) for f in inp.get("files", "").split(",") if f.strip()]
        if "synthetic" in inp:
            raise L.UsageError("rerun: a sweep over --synthetic markets: not available from Python yet",
                               L.MM_EUSAGE)
        args = dict(tapes=files, grid=dict(cfg.get("grid", [])), set=dict(cfg.get("params", [])),
                    symbols=[s.strip() for s in inp["symbols"].split(",")] if "symbols" in inp else None,
                    engine=run_.get("engine"), workers=run_.get("workers"), chunk=run_.get("chunk"),
                    seed=run_.get("seed"), objective=run_.get("objective"), sample_ns=run_.get("sample_ns"),
                    year_seconds=run_.get("year_seconds"), markout_ns=run_.get("markout_ns"),
                    paths=run_.get("paths"), keep_paths=run_.get("keep_paths") == "1" if "keep_paths" in run_
                    else None, blocks=run_.get("blocks"), block_ns=run_.get("block_ns"))
        for role in ("latency_series", "latency_samples"):
            if role in run_:
                args[role] = self.find_input(run_[role])
        return args

    def rerun(self, out=None, **overrides):
        """The recorded sweep run again (`mmsim rerun`) into out (None: a temporary folder); returns the
        new Results: its content_hash equals this one's when nothing changed. overrides replace
        recorded arguments that do not change the table (engine, workers, chunk, progress)."""
        args = self.sweep_args()
        args.update(overrides)
        if out is None:
            out = os.path.join(tempfile.mkdtemp(prefix="mmsim-rerun-"), os.path.basename(self.path))
        sweep = Results._sweep  # mmsim.sweep, set by _sweep.py (which imports this module)
        import warnings
        with warnings.catch_warnings():  # the recorded [params] lists every key, read or not
            warnings.simplefilter("ignore")
            return sweep(out=out, **args)
