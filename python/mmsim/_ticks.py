"""Tick tapes: mmsim.ticks (a file's instrument, its columns as zero-copy numpy views), write_ticks,
gen and the importers (the nouns and keys of `mmsim info`, `mmsim gen` and `mmsim import`)."""
import ctypes as C
import os
import re

from ._np import np

from . import _lib as L


class _View:
    """A numpy array's memory owned by a Tape: the array's base, so the tape lives as long as any
    view of it."""

    def __init__(self, owner, addr, n, typestr):
        self.owner = owner
        self.__array_interface__ = {"data": (addr, True), "shape": (n,), "typestr": typestr,
                                    "version": 3}


def _view(owner, ptr, n, typestr):
    """A read-only numpy view of n values at ptr (a ctypes pointer), kept alive by owner."""
    if n == 0:
        return np.empty(0, dtype=typestr)
    return np.asarray(_View(owner, C.cast(ptr, C.c_void_p).value, n, typestr))


class Depth:
    """A tape's depth stream (mm_depth; docs/formats.md "Depth"): `levels` per side kept (0: none,
    an L1 tape; then bool(depth) is False), `ids` (1: `join` carries order-level facts, LOBSTER),
    `n` depth rows, and the six columns as read-only numpy views of the tape's memory (no copy; a
    view keeps the tape alive): row int64 (the tape row it happens at), join int64, px int32 ticks,
    sz int32 lots (the level's size after the change; 0: no longer shown), side int8 (+1 bid, -1
    ask), cause int8 (1 add, 2 cancel, 3 trade, 4 show, 5 hide)."""

    def __init__(self, tape, d):
        self.levels, self.ids, self.n = int(d.levels), int(d.ids), int(d.n)
        for name, _, typestr in L.DEPTH_COLUMNS:
            setattr(self, name, _view(tape, getattr(d, name), self.n if self.levels else 0, typestr))
        self._tape = tape

    def __len__(self):
        return self.n

    def __bool__(self):
        return self.levels > 0

    def __repr__(self):
        if not self.levels:
            return "<mmsim.Depth: none (level 1 only)>"
        return f"<mmsim.Depth: {self.levels} levels per side, {self.n} depth rows{', order ids' if self.ids else ''}>"

    @property
    def columns(self):
        """The six columns by name, in the fingerprint's order (views, no copy)."""
        return {name: getattr(self, name) for name, _, _ in L.DEPTH_COLUMNS}

    def to_pandas(self):
        """The depth rows as a DataFrame (a copy) with ts_ns (the time of each row's tape row),
        cause as a categorical of its names (add, cancel, trade, show, hide)."""
        import pandas as pd
        df = pd.DataFrame({k: np.array(v) for k, v in self.columns.items()})
        df.insert(0, "ts_ns", self._tape.ts_ns[self.row] if self.n else np.empty(0, np.int64))
        df["cause"] = pd.Categorical.from_codes(self.cause.astype(np.int64) - 1,
                                                [L.DEPTH_CAUSES[c] for c in range(1, L.MM_DEPTH_CAUSES)])
        return df


class Tape:
    """One instrument's tape in memory (the library's mm_ticks). Columns (docs/formats.md): ts_ns
    int64 ns since the epoch; bid_px, ask_px int32 ticks (an empty side: INT32_MIN / INT32_MAX);
    bid_sz, ask_sz int32 lots; trade_px int32 ticks, trade_sz int32 lots, trade_side int8 (+1 buyer-
    initiated, -1 seller-initiated, 0 none). Each column is a read-only numpy view of the library's
    memory (no copy). `depth`: the depth stream (a Depth; empty and false for an L1 tape). `path` is
    the file it was read from or written to (None: in memory only)."""

    def __init__(self, t, path=None, report=None):
        self._t = t
        self.path = None if path is None else os.fspath(path)
        self.report = report  # an importer's report (dict), else None
        inst = t.inst
        self.symbol = inst.symbol.decode()
        self.source = inst.source.decode()
        self.tick_size = inst.tick_size
        self.lot_size = inst.lot_size
        # A tape made in memory (gen, an importer) has its fingerprint computed here; a loaded or
        # written one carries it.
        self.fingerprint = int(inst.fingerprint) or int(L.mm_ticks_fingerprint(C.byref(t)))
        self.allow_crossed = bool(inst.allow_crossed)
        self.year_s = inst.year_s
        self.n = int(t.n)
        for name, _, typestr in L.TICK_COLUMNS:
            setattr(self, name, _view(self, getattr(t, name), self.n, typestr))
        self.depth = Depth(self, t.depth)
        # The signal column (docs/formats.md "Signal"): a read-only float64 view, or None.
        self.signal_name = t.signal_name.decode() if t.signal else None
        self.signal = _view(self, t.signal, self.n, "<f8") if t.signal else None

    def __del__(self):
        t = getattr(self, "_t", None)
        if t is not None:
            L.mm_ticks_free(C.byref(t))
            self._t = None

    def __len__(self):
        return self.n

    def __repr__(self):
        where = f" from {self.path}" if self.path else ""
        depth = f", depth {self.depth.levels} levels ({self.depth.n} rows)" if self.depth else ""
        depth += f", signal {self.signal_name}" if self.signal is not None else ""
        return (f"<mmsim.Tape {self.symbol}{where}: {self.n} rows{depth}, fingerprint {self.fingerprint:016x}, "
                f"tick {self.tick_size:g}, lot {self.lot_size:g}>")

    @property
    def columns(self):
        """The eight columns by name, in the fingerprint's order (views, no copy)."""
        return {name: getattr(self, name) for name, _, _ in L.TICK_COLUMNS}

    @property
    def span(self):
        """(first, last) timestamps as numpy datetime64[ns] (None for an empty tape)."""
        if self.n == 0:
            return None
        return (np.datetime64(int(self.ts_ns[0]), "ns"), np.datetime64(int(self.ts_ns[-1]), "ns"))

    def stats(self):
        """`mmsim info`'s numbers (mm_ticks_summarize) as a dict: rows, trades, spreads in ticks ...,
        depth_levels, depth_rows and depth_by_cause ({"add": rows, "cancel": ..., "hide": ...})."""
        s = L.mm_ticks_stats()
        L.mm_ticks_summarize(C.byref(self._t), C.byref(s))
        out = {n: getattr(s, n) for n, _ in L.mm_ticks_stats._fields_ if not n.startswith("_")}
        out["depth_by_cause"] = {L.DEPTH_CAUSES[c]: s.depth_by_cause[c] for c in range(1, L.MM_DEPTH_CAUSES)}
        return out

    def to_pandas(self):
        """The columns as a DataFrame (a copy), indexed by time (UTC)."""
        import pandas as pd
        df = pd.DataFrame({k: np.array(v) for k, v in self.columns.items()})
        df.index = pd.to_datetime(df["ts_ns"], unit="ns", utc=True).rename("time")
        return df

    @property
    def name(self):
        """The tape as a sweep's tape axis names it: PATH#SYMBOL."""
        return f"{self.path}#{self.symbol}"


def instruments(path):
    """The symbols of the instruments in a tick file, sorted (mm_ticks_list)."""
    err = L.mm_error()
    n = C.c_int(0)
    L.check(L.mm_ticks_list(L.b(path), None, 0, C.byref(n), C.byref(err)), err)
    buf = (C.c_char * (L.MM_SYMBOL_MAX * max(n.value, 1)))()
    L.check(L.mm_ticks_list(L.b(path), buf, n.value, C.byref(n), C.byref(err)), err)
    raw = bytes(buf)
    return [raw[i * L.MM_SYMBOL_MAX:(i + 1) * L.MM_SYMBOL_MAX].split(b"\0")[0].decode()
            for i in range(n.value)]


def ticks(path, symbol=None, verify=True):
    """Load one instrument of a tick file (symbol None: the file must hold exactly one), checking its
    format, its validation rules and (verify=True) its fingerprint, as `mmsim info` does."""
    t = L.mm_ticks()
    err = L.mm_error()
    flags = 0 if verify else L.MM_LOAD_NO_VERIFY
    L.check(L.mm_ticks_load(L.b(path), L.b(symbol), flags, C.byref(t), C.byref(err)), err)
    return Tape(t, path)


def _column(data, name, n, typestr):
    if name not in data:
        if name.startswith("trade_") and n is not None:
            return np.zeros(n, dtype=typestr)
        raise L.UsageError(f"write_ticks: column {name} missing (needed: ts_ns, bid_px, ask_px, bid_sz, "
                           f"ask_sz; trade_px, trade_sz, trade_side default to 0)", L.MM_EUSAGE)
    v = np.asarray(data[name])
    if v.ndim != 1:
        raise L.UsageError(f"write_ticks: column {name}: one dimension expected, got {v.ndim}", L.MM_EUSAGE)
    if v.dtype.kind not in "iub":
        if v.dtype.kind == "f" and np.all(np.isfinite(v)) and np.all(v == np.round(v)):
            pass
        else:
            raise L.UsageError(f"write_ticks: column {name}: integers expected (ticks, lots, ns), got "
                               f"{v.dtype}", L.MM_EUSAGE)
    out = v.astype(typestr)
    if not np.array_equal(out, v):
        bad = int(np.flatnonzero(out != v)[0])
        raise L.UsageError(f"write_ticks: column {name}, row {bad}: {v[bad]} does not fit {np.dtype(typestr)}",
                           L.MM_EUSAGE)
    return out


def _tape_from(data, symbol, tick_size, lot_size, source, allow_crossed, year_s):
    """An mm_ticks on the heap holding data's columns and these attributes."""
    cols = {}
    n = None
    for name, _, typestr in L.TICK_COLUMNS:
        cols[name] = _column(data, name, n, typestr)
        n = len(cols[name]) if n is None else n
        if len(cols[name]) != n:
            raise L.UsageError(f"write_ticks: column {name} has {len(cols[name])} rows, ts_ns {n}",
                               L.MM_EUSAGE)
    t = L.mm_ticks()
    rc = L.mm_ticks_alloc(C.byref(t), n, L.MM_MEM_HEAP)
    if rc:
        raise L.error(rc)
    for name, ctype, _ in L.TICK_COLUMNS:
        if n:
            C.memmove(getattr(t, name), cols[name].ctypes.data, n * C.sizeof(ctype))
    t.inst.symbol = L.b(symbol)[:L.MM_SYMBOL_MAX - 1]
    t.inst.source = L.b(source)[:L.MM_SOURCE_MAX - 1]
    t.inst.tick_size = float(tick_size)
    t.inst.lot_size = float(lot_size)
    t.inst.allow_crossed = 1 if allow_crossed else 0
    t.inst.year_s = float(year_s)
    return t


def _write(t, path, replace, compress):
    opts = L.mm_write_opts(compress_level=int(compress), chunk_rows=0, replace=1 if replace else 0)
    err = L.mm_error()
    L.check(L.mm_ticks_write(L.b(path), C.byref(t), C.byref(opts), C.byref(err)), err)


def write_ticks(path, data, tick_size, lot_size, symbol, source="python", allow_crossed=False,
                year_s=0.0, replace=False, compress=0):
    """Write one instrument to a tick file (mm_ticks_write: validated, fingerprinted, all or
    nothing; appended to an existing tick file, replace=True to replace the same symbol). data: a
    DataFrame or a dict of arrays with columns ts_ns, bid_px, ask_px, bid_sz, ask_sz and optionally
    trade_px, trade_sz, trade_side (integer ticks, lots, ns). Returns the written Tape."""
    t = _tape_from(data, symbol, tick_size, lot_size, source, allow_crossed, year_s)
    tape = Tape(t, path)  # owns t from here (freed with it)
    _write(t, path, replace, compress)
    tape.fingerprint = int(t.inst.fingerprint)
    return tape


def _signal_values(t, values):
    """values as one finite float64 a row of tape t: an array or list of len(t) values, or a pandas
    Series indexed by ts_ns (integers, or datetimes) put onto the rows by the as-of rule
    (mm_signal_asof: the last point at or before each row's time, 0 before the first)."""
    index = getattr(values, "index", None)
    if index is not None and hasattr(values, "to_numpy"):
        if getattr(index, "dtype", None) is not None and index.dtype.kind == "M":
            ts = np.asarray(index.asi8 if hasattr(index, "asi8") else index.view("i8"), dtype="<i8")
        else:
            ts = np.asarray(index)
            if ts.dtype.kind not in "iu":
                raise L.UsageError(f"write_signal: a Series needs an index of ts_ns (integer ns or datetimes), "
                                   f"got {ts.dtype}", L.MM_EUSAGE)
            ts = ts.astype("<i8")
        v = np.ascontiguousarray(values.to_numpy(dtype="<f8"))
        ts = np.ascontiguousarray(ts)
        out = np.zeros(t.n, dtype="<f8")
        err = L.mm_error()
        rows = np.ascontiguousarray(t.ts_ns, dtype="<i8")
        L.check(L.mm_signal_asof(rows.ctypes.data_as(C.POINTER(C.c_int64)), t.n,
                                 ts.ctypes.data_as(C.POINTER(C.c_int64)), v.ctypes.data_as(C.POINTER(C.c_double)),
                                 len(v), out.ctypes.data_as(C.POINTER(C.c_double)), C.byref(err)), err)
        return out
    v = np.asarray(values)
    if v.ndim != 1 or v.dtype.kind not in "iufb":
        raise L.UsageError(f"write_signal: values: one number a row expected (a 1-d array or list, or a "
                           f"Series indexed by ts_ns), got {v.dtype} of shape {v.shape}", L.MM_EUSAGE)
    return np.ascontiguousarray(v, dtype="<f8")


def write_signal(tape, name, values, symbol=None, replace=False):
    """Attach the signal `name` to a tape of a tick file (mm_ticks_write_signal; docs/formats.md
    "Signal"): `tape` a path or a Tape read from or written to a file; `values` one number a row (a
    numpy array or a list of len(tape) values), or a pandas Series indexed by ts_ns (integer ns or
    datetimes), applied with the as-of rule (each row takes the last value at or before its time, 0
    before the first). The file is rewritten all or nothing; a tape that has a signal keeps it unless
    replace=True. The key signal_skew then moves the fair price by signal x signal_skew ticks
    (docs/model.md 6). Returns the tape as written (a Tape with .signal)."""
    if isinstance(tape, Tape):
        if tape.path is None:
            raise L.UsageError("write_signal: the tape is in memory only: write it first (write_ticks) or give "
                               "a file", L.MM_EUSAGE)
        path, symbol = tape.path, tape.symbol if symbol is None else symbol
    else:
        path = os.fspath(tape)
    t = ticks(path, symbol)
    v = _signal_values(t, values)
    err = L.mm_error()
    L.check(L.mm_ticks_write_signal(L.b(path), L.b(t.symbol), L.b(str(name)),
                                    v.ctypes.data_as(C.POINTER(C.c_double)), len(v), 1 if replace else 0,
                                    C.byref(err)), err)
    return ticks(path, t.symbol)


# `mmsim gen` keys (src/cli/cmd_gen.c KEYS; its INI's names) -> mm_gen_params fields.
GEN_KEYS = {"seed": "seed", "events": "events", "symbol": "symbol", "rate": "rate_hz", "vol": "vol_ticks",
            "trade_frac": "trade_frac", "start_px": "start_px", "max_spread": "max_spread",
            "mean_queue": "mean_queue", "tick_size": "tick_size", "lot_size": "lot_size",
            "start_ns": "start_ns", "informed": "informed", "move_ticks": "move_ticks",
            "improve_frac": "improve_frac", "trade_persist": "trade_persist", "trade_size": "trade_size"}


def _gen_value(key, field, v):
    """A gen key's value (a number, or its text as in gen's INI) as its field's type."""
    ctype = dict(L.mm_gen_params._fields_)[field]
    text = str(v).strip()
    integer = ctype in (C.c_int32, C.c_int64, C.c_uint64)
    ok = re.fullmatch(r"[+-]?[0-9]+" if integer else r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text)
    if isinstance(v, bool) or not ok:
        raise L.UsageError(f"gen: {key}: '{text}' is not a decimal {'integer' if integer else 'number'}",
                           L.MM_EUSAGE)
    return int(text) if integer else float(text)


def gen(out=None, replace=False, **keys):
    """A synthetic day (docs/synthetic.md; `mmsim gen`): keys as gen's (seed, events, symbol, rate,
    vol, trade_frac, ..., the defaults of mm_gen_defaults). Written to `out` when given; returns the
    Tape."""
    p = L.mm_gen_params()
    L.mm_gen_defaults(C.byref(p))
    for k, v in keys.items():
        field = GEN_KEYS.get(k.replace("-", "_"))
        if field is None:
            raise L.UsageError(f"gen: {k}: unknown key ({', '.join(GEN_KEYS)})", L.MM_EUSAGE)
        setattr(p, field, L.b(v) if field == "symbol" else _gen_value(k, field, v))
    t = L.mm_ticks()
    err = L.mm_error()
    L.check(L.mm_gen_ticks(C.byref(p), C.byref(t), C.byref(err)), err)
    tape = Tape(t, out)
    if out is not None:
        _write(t, out, replace, 0)
    return tape


def _report(rep):
    d = {}
    for n, _ in L.mm_import_report._fields_:
        if n.startswith("_"):
            continue
        v = getattr(rep, n)
        d[n] = v.decode() if isinstance(v, bytes) else list(v) if n == "msg_by_type" else v
    return d


def _imported(rc, t, rep, err, out, replace):
    L.check(rc, err)
    tape = Tape(t, out, _report(rep))
    if out is not None:
        _write(t, out, replace, 0)
        tape.fingerprint = int(t.inst.fingerprint)
    return tape


def _opts(symbol, tick, lot, year_s, skip_bad, depth_levels=None, where=None):
    """mm_import_opts; depth_levels None keeps the format's default (mm_import_opts_init: -1, LOBSTER
    every level of the file, Binance 20), else an integer in [0, MM_DEPTH_MAX_LEVELS] (0: no depth,
    the L1 tape alone), as `mmsim import --depth-levels`."""
    o = L.mm_import_opts()
    L.mm_import_opts_init(C.byref(o))
    if depth_levels is not None:
        from ._keys import _int
        o.depth_levels = _int(where, "depth_levels", depth_levels, 0, L.MM_DEPTH_MAX_LEVELS)
    o.symbol, o.tick, o.lot = L.b(symbol), L.b(tick), L.b(lot)
    o.year_s = float(year_s)
    o.skip_bad = 1 if skip_bad else 0
    return o


def _lobster_name(path):
    """(symbol, date, orderbook path) from a LOBSTER message file's name,
    SYMBOL_YYYY-MM-DD_START_END_message_LEVEL.csv[.gz], or None for another shape (the rule of
    src/cli/cmd_import.c lobster_name)."""
    base = os.path.basename(path)
    u1, msg = base.find("_"), base.find("_message_")
    if u1 <= 0 or msg < 0 or u1 >= 64 or len(base) - u1 - 1 < 11:
        return None
    d = base[u1 + 1:u1 + 11]
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) or base[u1 + 11] != "_":
        return None
    head = path[:len(path) - len(base)]
    return base[:u1], d, head + base[:msg] + "_orderbook_" + base[msg + len("_message_"):]


def import_lobster(message, out=None, orderbook=None, symbol=None, date=None, tick=None, lot=None,
                   year_s=0.0, skip_bad=False, subtick_reject=False, replace=False, depth_levels=None):
    """LOBSTER message + orderbook files (docs/import-lobster.md; `mmsim import lobster`). As the
    command, symbol, date and orderbook default to what LOBSTER's file name says. depth_levels:
    levels per side kept in the depth stream (None: every level of the orderbook file; 0: none).
    Written to `out` when given; returns the Tape (its .report: the importer's counts)."""
    message = os.fspath(message)
    named = _lobster_name(message)
    if named:
        symbol = symbol or named[0]
        date = date or named[1]
        if orderbook is None and os.path.exists(named[2]):
            orderbook = named[2]
    missing = [n for n, v in (("symbol", symbol), ("orderbook", orderbook), ("date", date)) if not v]
    if missing:
        words = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
        raise L.UsageError(f"import lobster: {words} {'is' if len(missing) == 1 else 'are'} required",
                           L.MM_EUSAGE)
    o = _opts(symbol, tick, lot, year_s, skip_bad, depth_levels, "import lobster")
    o.date = L.b(date)
    o.subtick_reject = 1 if subtick_reject else 0
    t, rep, err = L.mm_ticks(), L.mm_import_report(), L.mm_error()
    rc = L.mm_import_lobster(L.b(message), L.b(orderbook), C.byref(o), C.byref(t), C.byref(rep),
                             C.byref(err))
    return _imported(rc, t, rep, err, out, replace)


def import_binance(captures, symbol, tick, lot, out=None, market=None, skip_gaps=False,
                   no_snapshot=False, year_s=0.0, skip_bad=False, replace=False, depth_levels=None):
    """Binance captures, one day or consecutive days in order (docs/import-binance.md; `mmsim import
    binance`). depth_levels: levels per side kept in the depth stream (None: 20; 0: none)."""
    files = [captures] if isinstance(captures, (str, os.PathLike)) else list(captures)
    o = _opts(symbol, tick, lot, year_s, skip_bad, depth_levels, "import binance")
    o.market = L.b(market)
    o.skip_gaps = 1 if skip_gaps else 0
    o.no_snapshot = 1 if no_snapshot else 0
    arr = (C.c_char_p * len(files))(*[L.b(f) for f in files])
    t, rep, err = L.mm_ticks(), L.mm_import_report(), L.mm_error()
    rc = L.mm_import_binance_files(arr, len(files), C.byref(o), C.byref(t), C.byref(rep), C.byref(err))
    return _imported(rc, t, rep, err, out, replace)


def import_csv(path, map, symbol, tick, lot, out=None, time="ns", delim=",", no_header=False,
               allow_crossed=False, year_s=0.0, skip_bad=False, replace=False):
    """A generic L1 quotes + trades CSV with a column mapping (docs/import-csv.md; `mmsim import
    csv`)."""
    o = _opts(symbol, tick, lot, year_s, skip_bad)
    o.csv_map, o.csv_time = L.b(map), L.b(time)
    o.csv_delim = L.b(delim)[:1]
    o.csv_no_header = 1 if no_header else 0
    o.csv_allow_crossed = 1 if allow_crossed else 0
    t, rep, err = L.mm_ticks(), L.mm_import_report(), L.mm_error()
    rc = L.mm_import_csv(L.b(path), C.byref(o), C.byref(t), C.byref(rep), C.byref(err))
    return _imported(rc, t, rep, err, out, replace)
