"""mmsim.sweep: a grid of combinations over tick files into one results table (`mmsim sweep`), run by
libmmsim's mm_sweep_run: the same grid, settings and recorded configuration as the command line, so
the same content hash, and `mmsim rerun` / `mmsim run --from` work on the file."""
import ctypes as C
import os
import tempfile
import threading

from . import _keys as K
from . import _lib as L
from ._progress import Bar, default_display, from_c
from ._keys import _int, _real, smaller_is_better
from ._results import Results
from ._run import Settings, metric_names
from ._ticks import Tape, instruments

NS_MAX = 10 ** 18  # MM_SIM_HORIZON_MAX_NS, the command line's CLI_NS_MAX
def summary_names(markout_ns):
    mk = (C.c_int64 * 3)(*markout_ns)
    out = []
    for i in range(2 * L.MM_RESULTS_METRICS + 10):
        buf = C.create_string_buffer(64)
        L.mm_results_summary_metric(i, mk, buf, 64)
        out.append(buf.value.decode())
    return out


def parse_objective(text, markout_ns, paths, where="sweep"):
    """[min:|max:]METRIC -> (the column the library indexes, the text the configuration records),
    as src/cli/sweep_cli.c sweep_objective."""
    head, colon, tail = text.partition(":")
    name = (tail if colon else text).replace("-", "_")
    bad = colon and head not in ("min", "max")
    asc = (head == "min") if colon else smaller_is_better(name)
    runs, summ = metric_names(markout_ns), summary_names(markout_ns)
    if not bad and paths > 1 and name not in summ and name in runs:
        name += "_mean"  # with paths, a per-run metric's name means its mean over the paths
        if not colon:
            asc = smaller_is_better(name)
    if bad or name not in (summ if paths > 1 else runs):
        cols = ", ".join(summ if paths > 1 else runs)
        raise L.UsageError(f"{where}: objective: '{text}' is not a {'Monte Carlo summary ' if paths > 1 else ''}"
                           f"metric column, optionally after min: or max: ({cols})", L.MM_EUSAGE)
    shown = name if asc == smaller_is_better(name) else f"{'min' if asc else 'max'}:{name}"
    return name, shown


def _spec(v):
    """An axis as the command line's spec: a string as given ("0:20", "1,2,5"), else the values
    joined by commas."""
    if isinstance(v, str):
        return v
    if isinstance(v, range):
        v = list(v)
    return ",".join(K.text(x) for x in v)


def _tape_list(tapes, symbols):
    """(files, tape axis values "path#symbol", multi) as src/cli/sweep_cli.c sweep_set_tapes."""
    if isinstance(tapes, (str, os.PathLike, Tape)):
        tapes = [tapes]
    files = []
    for t in tapes:
        if isinstance(t, Tape):
            if t.path is None:
                raise L.UsageError(f"sweep: tape {t.symbol} is in memory only: write it first "
                                   f"(mmsim.write_ticks) or pass a file", L.MM_EUSAGE)
            files.append(t.path)
            if symbols is None:
                symbols = [t.symbol]
        else:
            files.append(os.fspath(t))
    if symbols is not None and isinstance(symbols, str):
        symbols = [symbols]
    names, multi = [], False
    for f in files:
        syms = symbols if symbols else instruments(f)
        multi |= not symbols and len(syms) > 1
        names += [f"{f}#{s}" for s in syms]
    return files, list(symbols or []), names, multi


def config_text(files, symbols, grid, base, o, obj_text, latency_series, latency_samples):
    """The effective configuration as INI text, byte for byte what src/cli/sweep_cli.c
    sweep_config_text records (tests/test_sweep.py checks it against the command line's)."""
    out = ["[input]\nfiles = " + ", ".join(files) + "\n"]
    if symbols:
        out.append("symbols = " + ", ".join(symbols) + "\n")
    out.append("\n[grid]\n")
    out += [f"{k} = {v}\n" for k, v in grid]
    out.append("\n[params]\n")
    on_axis = {k for k, _ in grid}
    out += [f"{k} = {K.get_param(base, k)}\n" for k in K.keys() if k not in on_axis]
    out.append(f"\n[run]\nengine = {L.mm_sweep_engine_name(o.engine).decode()}\nworkers = {o.workers}\n"
               f"chunk = {o.chunk}\nseed = {o.seed}\nobjective = {obj_text}\n")
    out.append(f"sample_ns = {o.sim.sample_ns}\nyear_seconds = {K.fmt_shortest(o.sim.year_s)}\n"
               f"markout_ns = {o.sim.markout_ns[0]},{o.sim.markout_ns[1]},{o.sim.markout_ns[2]}\n")
    if latency_series is not None:
        out.append(f"latency_series = {os.fspath(latency_series)}\n")
    if latency_samples is not None:
        out.append(f"latency_samples = {os.fspath(latency_samples)}\n")
    if o.paths > 1:
        out.append(f"paths = {o.paths}\nkeep_paths = {o.keep_paths}\n")
    if o.blocks > 0:
        out.append(f"blocks = {o.blocks}\n")
    if o.block_ns > 0:
        out.append(f"block_ns = {o.block_ns}\n")
    return "".join(out)


def _xxh3_file(path):
    import xxhash
    h = xxhash.xxh3_64()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.intdigest()


def _engine(name):
    e = L.mm_sweep_engine_parse(L.b(name))
    if e < 0:
        names, n = [], 0
        while L.mm_sweep_engine_name(n):
            names.append(L.mm_sweep_engine_name(n).decode())
            n += 1
        listed = ", ".join(names[:-1]) + " or " + names[-1]
        raise L.UsageError(f"sweep: engine: '{name}' is not {listed}", L.MM_EUSAGE)
    return e


def sweep(tapes, grid, set=None, out=None, symbols=None, engine=None, workers=None, chunk=None, seed=None,
          objective=None, paths=None, keep_paths=None, sample_ns=None, year_seconds=None, markout_ns=None,
          latency_series=None, latency_samples=None, stall_s=None, blocks=None, block_ns=None, resume=False,
          replace=False, verify=True, progress=None):
    """Run every combination of grid over the tapes and write one results table; returns Results.

    tapes: a tick file, a Tape read from one, or a list (each file x each of `symbols`, or every
    instrument of each file, as `mmsim sweep`). grid: {key: spec} in axis order, spec "a:b:step",
    "a:b", "v1,v2" or a list of values; set: {key: value} fixed values (keys as mmsim.keys(), either
    spelling). The run settings are the command line's (engine "process", workers 0 = every core,
    chunk 0 = automatic, seed 1, objective "pnl", paths 1, ...; None = its default). out: the results
    file (None: a new file in a temporary folder); an existing one is replaced only with
    replace=True; resume=True continues an interrupted run from its journal. blocks=B (B equal time
    spans of each tape, 1 to 4096) or block_ns=L (blocks of L ns from each tape's first event) also
    record each row's PnL, position, fills and fees at the end of each block (Results.blocks(), for
    Results.select()), as `mmsim sweep --blocks/--block-ns`. progress: None (a bar
    on a terminal or in a notebook), True, False, or a function called with a Progress. Ctrl-C stops
    the workers, keeps the journal and raises mmsim.Interrupted (a KeyboardInterrupt)."""
    o = L.mm_sweep_opts()
    L.mm_sweep_opts_defaults(C.byref(o))
    if engine is not None:
        o.engine = _engine(engine)
    if workers is not None:
        o.workers = _int("sweep", "workers", workers, 0, 4096)
    if chunk is not None:
        o.chunk = _int("sweep", "chunk", chunk, 0, 1000000)
    if seed is not None:
        o.seed = _int("sweep", "seed", seed, 0, 2 ** 64 - 1)
    if paths is not None:
        o.paths = _int("sweep", "paths", paths, 1, 1000000)
    if keep_paths is not None:
        o.keep_paths = 1 if keep_paths else 0
    if stall_s is not None:
        o.stall_s = _real("sweep", "stall_s", stall_s, 0, 604800)
        if 0 < o.stall_s < 0.1:
            raise L.UsageError(f"sweep: stall_s: {K.text(stall_s)} must be 0 (no limit) or at least 0.1 s",
                               L.MM_EUSAGE)
    if o.keep_paths and o.paths < 2:
        raise L.UsageError("sweep: keep_paths: stores each path's row, which needs paths=N with N >= 2",
                           L.MM_EUSAGE)
    # src/cli/sweep_cli.c sweep_run_opts: the same ranges and refusals as --blocks / --block-ns.
    if blocks is not None:
        o.blocks = _int("sweep", "blocks", blocks, 0, L.MM_RESULTS_BLOCKS_MAX)
    if block_ns is not None:
        o.block_ns = _int("sweep", "block_ns", block_ns, 0, NS_MAX)
    if o.blocks > 0 and o.block_ns > 0:
        raise L.UsageError("sweep: blocks: give blocks=B or block_ns=NS, not both", L.MM_EUSAGE)
    if (o.blocks > 0 or o.block_ns > 0) and o.paths > 1:
        raise L.UsageError("sweep: blocks: time blocks are recorded for replays of one path (not with paths=)",
                           L.MM_EUSAGE)
    s = Settings("sweep", sample_ns, year_seconds, markout_ns, None, None, latency_series, latency_samples)
    o.sim = s.c
    obj_name, obj_text = parse_objective(objective or "pnl", list(o.sim.markout_ns), o.paths)
    o.objective = obj_name.encode()
    o.resume = 1 if resume else 0
    o.load_flags = 0 if verify else L.MM_LOAD_NO_VERIFY
    if not grid:
        raise L.UsageError("sweep: empty grid: give at least one axis (grid={'spread': '0:20'})", L.MM_EUSAGE)
    axes = [(K.canon(k), _spec(v)) for k, v in grid.items()]
    sets = [(K.canon(k), v) for k, v in (set or {}).items()]
    seen = {}
    for k, _ in axes + sets:
        if k in seen:
            both = "both an axis and a fixed value" if (k in dict(axes) and k in dict(sets)) else "given twice"
            raise L.UsageError(f"sweep: {k}: {both}", L.MM_EUSAGE)
        seen[k] = 1
    files, syms, tape_names, multi = _tape_list(tapes, symbols)
    if out is None:
        out = os.path.join(tempfile.mkdtemp(prefix="mmsim-"), "results.h5")
    out = os.fspath(out)
    _check_out(out, files, [latency_series, latency_samples], replace, resume)
    g = C.c_void_p()
    err = L.mm_error()
    L.check(L.mm_grid_new(C.byref(g), C.byref(err)), err)
    try:
        arr = (C.c_char_p * len(tape_names))(*[n.encode() for n in tape_names])
        L.check(L.mm_grid_set_tapes(g, arr, len(tape_names), C.byref(err)), err)
        for k, spec in axes:
            rc = L.mm_grid_add_axis(g, k.encode(), spec.encode(), C.byref(err))
            if rc:
                h = K.hint(k) if k != "tape" and K.kind(k)[0] < 0 else ""
                raise L.error(err.code or rc, f"sweep: grid {L.pymsg(err.msg.decode())}{h}")
        for k, v in sets:
            kd, _ = K.kind(k)
            t = K.text(v)
            if kd >= 0 and kd != 3 and not K.is_decimal(t, kd == 1):
                raise L.UsageError(f"sweep: set {k}: '{t}' is not a decimal {'integer' if kd == 1 else 'number'}",
                                   L.MM_EUSAGE)
            rc = L.mm_grid_set(g, k.encode(), t.encode(), C.byref(err))
            if rc:
                raise L.error(err.code or rc, f"sweep: set {L.pymsg(err.msg.decode())}{K.hint(k) if kd < 0 else ''}")
        base = L.mm_grid_base(g)
        _check_strategy_keys(axes, sets, base)
        text = config_text(files, syms, axes, base, o, obj_text, latency_series, latency_samples)
        text_b = text.encode()
        o.config_text = text_b
        side = [(r, os.fspath(p)) for r, p in (("latency_series", latency_series),
                                                ("latency_samples", latency_samples)) if p is not None]
        if side:
            roles = (C.c_char_p * len(side))(*[r.encode() for r, _ in side])
            spaths = (C.c_char_p * len(side))(*[p.encode() for _, p in side])
            hashes = (C.c_uint64 * len(side))(*[_xxh3_file(p) for _, p in side])
            o.n_side, o.side_roles, o.side_paths, o.side_xxh3 = len(side), roles, spaths, hashes
        rep = _run(g, o, out, progress)
    finally:
        L.mm_grid_free(g)
    res = Results(out)
    res.report = rep
    res.multi_instrument = multi
    return res


def _check_out(out, files, side, replace, resume):
    """The output is never an input, never a folder; an existing file is replaced only with replace
    (resume continues a run whose journal is beside it): src/cli/sweep_cli.c sweep_check_overwrite."""
    for f in files + [s for s in side if s is not None]:
        if os.path.exists(f) and os.path.exists(out) and os.path.samefile(f, out):
            raise L.UsageError(f"sweep: out={out}: is an input of the sweep; choose another file", L.MM_EUSAGE)
    if os.path.isdir(out):
        raise L.UsageError(f"sweep: out={out}: is a folder", L.MM_EUSAGE)
    if replace or not os.path.exists(out):
        return
    if resume and os.path.exists(out + ".journal"):
        return
    raise L.UsageError(f"sweep: out={out}: exists; pass replace=True to overwrite it"
                       + (" (resume=True continues only a run whose journal is beside it)" if resume else ""),
                       L.MM_EUSAGE)


def _check_strategy_keys(axes, sets, base):
    """An axis the strategy does not read is refused; a fixed value of one is warned about
    (src/cli/sweep_cli.c sweep_check_strategy_keys)."""
    if any(k == "strategy" for k, _ in axes):
        return
    s = K.get_param(base, "strategy")
    for k, _ in axes:
        want = K.strategy_of(k)
        if want >= 0 and K.STRATEGIES[want] != s:
            w = K.STRATEGIES[want]
            raise L.UsageError(f"sweep: grid {k}: has no effect with strategy {s} (only {w} reads it); set "
                               f"strategy={w} or drop the axis", L.MM_EUSAGE)
    import warnings
    for k, _ in sets:
        want = K.strategy_of(k)
        if want >= 0 and K.STRATEGIES[want] != s:
            warnings.warn(f"sweep: set {k}: has no effect with strategy {s} (only {K.STRATEGIES[want]} reads it)",
                          stacklevel=3)


def _run(g, o, out, progress):
    """mm_sweep_run on a thread of its own, so that the main thread takes Ctrl-C at once (Python runs
    signal handlers there only): KeyboardInterrupt sets the cancel flag the library's workers read,
    and the run returns MM_EINTERRUPTED with the journal kept."""
    show = default_display() if progress is None else progress
    fn = Bar() if show is True else show if callable(show) else None
    cancel = C.c_int(0)
    o.cancel = C.pointer(cancel)
    failure = []

    def on_progress(p, user):
        try:
            fn(from_c(p.contents))
        except BaseException as e:  # a callback that fails stops the sweep, and its error is raised
            failure.append(e)
            cancel.value = 1

    cb = L.MM_PROGRESS_FN(on_progress) if fn else L.MM_PROGRESS_FN()
    o.progress = cb
    rep, err = L.mm_sweep_report(), L.mm_error()
    box = {}
    done = threading.Event()

    def work():
        try:
            box["rc"] = L.mm_sweep_run(g, C.byref(o), out.encode(), C.byref(rep), C.byref(err))
        finally:
            done.set()

    # Waited on through an Event, not Thread.join: on CPython before 3.12 a join interrupted by
    # KeyboardInterrupt can mark a running thread stopped, and the library would go on using
    # memory this function frees.
    th = threading.Thread(target=work, name="mmsim-sweep")
    th.start()
    interrupted = False
    while not done.is_set():
        try:
            done.wait(0.05)
        except KeyboardInterrupt:
            interrupted = True
            cancel.value = 1  # a plain int store: the library reads it as a lock-free atomic_int
    th.join()
    rc = box.get("rc", -1)
    if failure:
        raise failure[0]
    if rc == L.MM_EINTERRUPTED:
        e = L.Interrupted(f"sweep: {err.msg.decode()}; sweep(..., out={out!r}, resume=True) finishes it",
                          rc)
        e.out, e.chunks_saved, e.chunks_total = out, rep.chunks_saved, rep.chunks_total
        raise e
    if rc and interrupted:
        raise KeyboardInterrupt
    L.check(rc, err)
    return {n: getattr(rep, n) for n, _ in L.mm_sweep_report._fields_ if not n.startswith("_")}


Results._sweep = staticmethod(sweep)  # Results.rerun runs a sweep without importing this module
