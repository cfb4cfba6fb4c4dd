"""libmmsim through ctypes: finding the library, the public structs of include/mmsim/*.h, errors.

The structs mirror the C headers field for field; python/tests/test_abi.py compiles a C program that
prints every field's offset and every struct's size and compares them with these, so a header changed
without this file fails the tests instead of corrupting memory. Structs the library fills in (tapes,
parameters, metrics, reports) carry spare bytes at their end, so a field appended to the C struct
cannot make the library write past a Python buffer before the test catches it.
"""
import ctypes as C
import os
import pathlib

from . import __version__

_HERE = pathlib.Path(__file__).resolve().parent


def _find_library():
    """The libmmsim this package runs, never a system one (no search of the loader's paths):
    1. MMSIM_LIB, the path of a libmmsim.so (the tests set it to the build's);
    2. _libmmsim.so beside this file (what `pip install .` installs);
    3. in a source tree (PYTHONPATH=python), the build folder's: <root>/build/src/libmmsim.so."""
    env = os.environ.get("MMSIM_LIB")
    if env:
        p = pathlib.Path(env)
        if not p.is_file():
            raise ImportError(f"mmsim: MMSIM_LIB={env}: no such file (the path of a built libmmsim.so)")
        return p
    beside = _HERE / "_libmmsim.so"
    if beside.is_file():
        return beside
    tree = _HERE.parent.parent / "build" / "src" / "libmmsim.so"
    if (_HERE.parent.parent / "meson.build").is_file() and tree.is_file():
        return tree
    raise ImportError(
        "mmsim: libmmsim not found: install the package (pip install --no-build-isolation .), or in a "
        "source tree build it (meson setup build && ninja -C build) and set PYTHONPATH=python, or set "
        "MMSIM_LIB to the path of a libmmsim.so")


LIB_PATH = _find_library()
lib = C.CDLL(str(LIB_PATH))

i8, i32, i64, u64, f64, cint = C.c_int8, C.c_int32, C.c_int64, C.c_uint64, C.c_double, C.c_int
cp, vp, sz = C.c_char_p, C.c_void_p, C.c_size_t
P = C.POINTER

# ---- mmsim.h ----
MM_EFORMAT, MM_EINVALID, MM_ECHECKSUM, MM_ENOTFOUND = -1000, -1001, -1002, -1003
MM_EHDF5, MM_EUSAGE, MM_EINTERRUPTED, MM_ELOCKED = -1004, -1005, -1006, -1007
MM_MARKOUTS = 3
SPARE = 256  # bytes after a struct the library writes (see the module's comment)


class mm_error(C.Structure):
    _fields_ = [("code", cint), ("msg", C.c_char * 768)]


# ---- ticks.h ----
MM_SYMBOL_MAX, MM_SOURCE_MAX = 64, 128
MM_MEM_HEAP, MM_LOAD_NO_VERIFY = 1, 2


class mm_instrument(C.Structure):
    _fields_ = [("symbol", C.c_char * MM_SYMBOL_MAX), ("source", C.c_char * MM_SOURCE_MAX),
                ("tick_size", f64), ("lot_size", f64), ("fingerprint", u64), ("allow_crossed", cint),
                ("year_s", f64)]


TICK_COLUMNS = [("ts_ns", i64, "<i8"), ("bid_px", i32, "<i4"), ("ask_px", i32, "<i4"),
                ("bid_sz", i32, "<i4"), ("ask_sz", i32, "<i4"), ("trade_px", i32, "<i4"),
                ("trade_sz", i32, "<i4"), ("trade_side", i8, "|i1")]


MM_DEPTH_CAUSES, MM_DEPTH_MAX_LEVELS = 6, 1000
DEPTH_CAUSES = {1: "add", 2: "cancel", 3: "trade", 4: "show", 5: "hide"}  # enum mm_depth_cause
# The depth stream's columns (mm_depth; docs/formats.md "Depth"): (name, ctype, numpy typestr).
DEPTH_COLUMNS = [("row", i64, "<i8"), ("join", i64, "<i8"), ("px", i32, "<i4"), ("sz", i32, "<i4"),
                 ("side", i8, "|i1"), ("cause", i8, "|i1")]


class mm_depth(C.Structure):
    _fields_ = [("n", i64), ("levels", i32), ("ids", i32)] + [(n, P(t)) for n, t, _ in DEPTH_COLUMNS]


class mm_ticks(C.Structure):
    _fields_ = ([("inst", mm_instrument), ("n", i64)] + [(n, P(t)) for n, t, _ in TICK_COLUMNS] +
                [("depth", mm_depth), ("signal", P(f64)), ("signal_name", C.c_char * MM_SYMBOL_MAX),
                 ("mem_base", vp), ("mem_bytes", sz), ("mem_kind", cint),
                 ("_spare", C.c_char * SPARE)])


class mm_write_opts(C.Structure):
    _fields_ = [("compress_level", cint), ("chunk_rows", i64), ("replace", cint)]


class mm_gen_params(C.Structure):
    _fields_ = [("seed", u64), ("events", i64), ("start_ns", i64), ("rate_hz", f64), ("vol_ticks", f64),
                ("trade_frac", f64), ("start_px", i32), ("max_spread", i32), ("mean_queue", i32),
                ("tick_size", f64), ("lot_size", f64), ("informed", f64), ("improve_frac", f64),
                ("move_ticks", i32), ("trade_persist", f64), ("trade_size", i32),
                ("symbol", C.c_char * MM_SYMBOL_MAX), ("_spare", C.c_char * SPARE)]


class mm_ticks_stats(C.Structure):
    _fields_ = [(n, i64) for n in ("rows", "trades", "buy_trades", "sell_trades", "crossed_rows",
                                   "empty_side_rows", "trade_volume_lots", "t_first_ns", "t_last_ns")] + \
        [("spread_min", i32), ("spread_max", i32), ("spread_mean", f64), ("mid2_min", i64),
         ("mid2_max", i64), ("ts_resolution_ns", i64), ("same_ts_rows", i64), ("depth_levels", i32),
         ("depth_ids", i32), ("depth_rows", i64), ("depth_by_cause", i64 * MM_DEPTH_CAUSES),
         ("depth_removals", i64), ("depth_joins_known", i64), ("_spare", C.c_char * SPARE)]


# ---- import.h ----
class mm_import_opts(C.Structure):
    _fields_ = [("symbol", cp), ("tick", cp), ("lot", cp), ("year_s", f64), ("skip_bad", cint),
                ("depth_levels", cint), ("date", cp), ("subtick_reject", cint), ("skip_gaps", cint), ("market", cp),
                ("no_snapshot", cint), ("csv_map", cp), ("csv_time", cp), ("csv_delim", C.c_char),
                ("csv_no_header", cint), ("csv_allow_crossed", cint), ("_spare", C.c_char * SPARE)]


class mm_import_report(C.Structure):
    _fields_ = [(n, i64) for n in ("lines", "bytes", "rows", "trades", "trade_volume_lots", "skipped")] + \
        [("depth_levels", cint), ("depth_rows", i64), ("first_skipped", C.c_char * 256), ("levels", cint),
         ("msg_by_type", i64 * 8)] + \
        [(n, i64) for n in ("subtick_rounded", "crossed_rows", "halts", "depth_updates", "book_tickers",
                            "trade_msgs", "dropped_before_sync", "gaps", "ticker_checks")] + \
        [("files", cint), ("market", C.c_char * 8), ("clock_offset_ns", i64), ("_spare", C.c_char * SPARE)]


# ---- sim.h ----
class mm_latency_series(C.Structure):
    _fields_ = [("n", i64), ("ts_ns", P(i64)), ("entry_ns", P(i64)), ("response_ns", P(i64))]


class mm_latency_samples(C.Structure):
    _fields_ = [("n", i64), ("entry_ns", P(i64)), ("response_ns", P(i64))]


class mm_sim_config(C.Structure):
    _fields_ = [("sample_ns", i64), ("year_s", f64), ("markout_ns", i64 * MM_MARKOUTS),
                ("latency", P(mm_latency_series)), ("latency_samples", P(mm_latency_samples)),
                ("seed", u64), ("id", i64), ("path", i32), ("synthetic", cint)]


class mm_params_buf(C.Structure):
    """mm_params, opaque here: read and written only by key (mm_params_set / mm_params_get), so a
    key added to the model needs nothing in this package. 2 KiB is several times its size."""
    _fields_ = [("_bytes", C.c_char * 2048)]


_METRIC_FIELDS = [("pnl", f64), ("fees", f64)] + [(n, i64) for n in (
    "volume", "fills_bid", "fills_ask", "orders", "cancels", "rejects", "final_q", "max_abs_q")] + \
    [("mean_abs_q", f64), ("sharpe", f64), ("max_drawdown", f64), ("markout", f64 * MM_MARKOUTS),
     ("pnl_close", f64), ("held", i64), ("orders_per_s", f64), ("cancels_per_s", f64),
     ("rejects_per_s", f64), ("pnl_spread", f64), ("pnl_inventory", f64)]


class mm_metrics(C.Structure):
    _fields_ = _METRIC_FIELDS


class mm_trace_rec(C.Structure):
    _fields_ = [("ts_ns", i64), ("event", i64), ("kind", i32), ("side", i32), ("px", i32), ("qty", i32),
                ("ahead", i32), ("taker", i32), ("q", i64), ("cash2", i64), ("mid2", i64), ("fees", f64),
                ("pnl", f64), ("known_q", i64)]


class mm_trace_buf(C.Structure):
    _fields_ = [("rec", P(mm_trace_rec)), ("n", i64), ("cap", i64), ("oom", cint)]


MM_TRACE_FN = C.CFUNCTYPE(None, P(mm_trace_rec), vp)

# ---- sweep.h ----
class mm_sweep_progress(C.Structure):
    _fields_ = [(n, i64) for n in ("chunks_done", "chunks_total", "combos_done", "combos_total",
                                   "updates_done")] + \
        [("elapsed_s", f64), ("final", cint), ("updates_total", i64), ("combos_finished", i64),
         ("updates_finished", i64)]


MM_PROGRESS_FN = C.CFUNCTYPE(None, P(mm_sweep_progress), vp)


class mm_sweep_opts(C.Structure):
    _fields_ = [("engine", cint), ("workers", cint), ("chunk", i64), ("seed", u64), ("objective", cp),
                ("config_text", cp), ("resume", cint), ("load_flags", cint), ("sim", mm_sim_config),
                ("progress", MM_PROGRESS_FN), ("progress_user", vp), ("progress_interval_s", f64),
                ("cancel", P(cint)), ("paths", i64), ("keep_paths", cint),
                ("synthetic", P(P(mm_gen_params))), ("device", cint), ("n_side", i32),
                ("side_roles", P(cp)), ("side_paths", P(cp)), ("side_xxh3", P(u64)), ("stall_s", f64),
                ("blocks", i32), ("block_ns", i64), ("_spare", C.c_char * SPARE)]


class mm_sweep_report(C.Structure):
    _fields_ = [(n, i64) for n in ("combos", "chunks", "chunks_resumed", "chunks_rerun", "chunks_total",
                                   "chunks_saved")] + \
        [("wall_s", f64), ("combos_per_s", f64), ("updates_per_s", f64), ("content_hash", u64),
         ("workers", cint), ("stalls", i64), ("_spare", C.c_char * SPARE)]


# ---- results.h ----
MM_COL_F64, MM_COL_I64, MM_COL_ENUM = 1, 2, 3
MM_RESULTS_METRICS = 21


class mm_results_axis(C.Structure):
    _fields_ = [("key", cp), ("type", cint), ("n", i32), ("f64", P(f64)), ("i64", P(i64)),
                ("names", P(cp))]


class mm_results_meta(C.Structure):
    _fields_ = [("config_text", cp), ("seed", u64), ("engine", cp), ("workers", i32), ("wall_s", f64),
                ("combos_per_s", f64), ("updates_per_s", f64), ("n_inputs", i32), ("input_paths", P(cp)),
                ("input_symbols", P(cp)), ("input_fingerprints", P(u64)),
                ("markout_ns", i64 * MM_MARKOUTS), ("objective", cp), ("n_side", i32),
                ("side_roles", P(cp)), ("side_paths", P(cp)), ("side_xxh3", P(u64)), ("stalls", i64),
                ("input_span_ns", P(i64))]


class mm_results_info(C.Structure):
    _fields_ = [("n_rows", i64), ("n_axes", i32), ("axes", P(mm_results_axis)), ("meta", mm_results_meta),
                ("mmsim_version", cp), ("content_hash", u64), ("n_metrics", i32), ("metric_names", P(cp)),
                ("metric_types", P(cint)), ("paths", i64), ("has_paths", cint),
                ("n_blocks", i32), ("block_tapes", i32), ("block_ns", i64), ("block_end_ns", P(i64)),
                ("n_no_fill", i64)]


class mm_results_where(C.Structure):
    _fields_ = [("axis", i32), ("value", i32)]


class mm_results_cond(C.Structure):
    _fields_ = [("metric", cint), ("op", cint), ("value", f64)]


class mm_results_query(C.Structure):
    _fields_ = [("metric", cint), ("ascending", cint), ("where", P(mm_results_where)), ("n_where", i32),
                ("k", i64), ("cond", P(mm_results_cond)), ("n_cond", i32), ("keep_idle", cint)]


class mm_results_top_info(C.Structure):
    _fields_ = [("n", i64), ("matched", i64), ("from_index", cint), ("set_aside", i64)]


MM_RESULTS_BLOCKS_MAX = 4096


class mm_results_block(C.Structure):
    _fields_ = [("pnl", f64), ("q", i64), ("fills", i64), ("fees", f64)]


# ---- select.h ----
MM_SELECT_PNL, MM_SELECT_SHARPE, MM_SELECT_SPLITS_MAX = 0, 1, 16


class mm_select_opts(C.Structure):
    _fields_ = [("stat", cint), ("by_tape", cint), ("window", i64), ("min_train", i64), ("splits", i32)]


class mm_select_dsr_out(C.Structure):
    _fields_ = [(n, f64) for n in ("sr", "skew", "kurt", "sr0", "z", "dsr")] + [("T", i64), ("n_trials", i64)]


class mm_select_result(C.Structure):
    """Library-owned (mm_select_run allocates it, mm_select_free releases it): read only."""
    _fields_ = [(n, i64) for n in ("n_rows", "n_all", "n_idle", "N", "T")] + \
        [("n_tapes", i32), ("n_blocks", i32), ("by_tape", cint), ("stat", cint), ("trial", P(i64)),
         ("perf", P(f64)), ("period_end_ns", P(i64)), ("window", i64), ("min_train", i64),
         ("chosen", P(i64)), ("oos", P(f64)), ("is_best", i64), ("median", i64), ("oos_total", f64),
         ("is_total", f64), ("median_total", f64), ("oos_distinct", i64), ("S", i32), ("n_logits", i64),
         ("logits", P(f64)), ("pbo", f64), ("rank_is", P(f64)), ("rank_oos", P(f64)), ("sr_var", f64),
         ("dsr", mm_select_dsr_out), ("value", P(f64)), ("smooth", P(f64)), ("raw_best", i64),
         ("smooth_best", i64)]


# The structs test_abi.py checks against the headers: Python name -> C type name.
ABI_STRUCTS = {
    "mm_error": mm_error, "mm_instrument": mm_instrument, "mm_ticks": mm_ticks,
    "mm_write_opts": mm_write_opts, "mm_gen_params": mm_gen_params, "mm_ticks_stats": mm_ticks_stats,
    "mm_import_opts": mm_import_opts, "mm_import_report": mm_import_report,
    "mm_latency_series": mm_latency_series, "mm_latency_samples": mm_latency_samples,
    "mm_sim_config": mm_sim_config, "mm_metrics": mm_metrics, "mm_trace_rec": mm_trace_rec,
    "mm_trace_buf": mm_trace_buf, "mm_sweep_progress": mm_sweep_progress,
    "mm_sweep_opts": mm_sweep_opts, "mm_sweep_report": mm_sweep_report,
    "mm_results_axis": mm_results_axis, "mm_results_meta": mm_results_meta,
    "mm_results_info": mm_results_info, "mm_results_where": mm_results_where,
    "mm_results_cond": mm_results_cond, "mm_results_query": mm_results_query,
    "mm_results_top_info": mm_results_top_info, "mm_depth": mm_depth, "mm_results_block": mm_results_block,
    "mm_select_opts": mm_select_opts, "mm_select_dsr_out": mm_select_dsr_out,
    "mm_select_result": mm_select_result,
}
ABI_OPAQUE = {"mm_params": mm_params_buf}  # only its size must be below ours


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


E = P(mm_error)
mm_strerror = _fn("mm_strerror", cp, cint)
mm_version = _fn("mm_version", cp)
mm_ticks_alloc = _fn("mm_ticks_alloc", cint, P(mm_ticks), i64, cint)
mm_ticks_free = _fn("mm_ticks_free", None, P(mm_ticks))
mm_ticks_fingerprint = _fn("mm_ticks_fingerprint", u64, P(mm_ticks))
mm_ticks_write = _fn("mm_ticks_write", cint, cp, P(mm_ticks), P(mm_write_opts), E)
mm_ticks_list = _fn("mm_ticks_list", cint, cp, vp, cint, P(cint), E)
mm_ticks_load = _fn("mm_ticks_load", cint, cp, cp, cint, P(mm_ticks), E)
mm_ticks_write_signal = _fn("mm_ticks_write_signal", cint, cp, cp, cp, P(f64), i64, cint, E)
mm_signal_asof = _fn("mm_signal_asof", cint, P(i64), i64, P(i64), P(f64), i64, P(f64), E)
mm_ticks_summarize = _fn("mm_ticks_summarize", None, P(mm_ticks), P(mm_ticks_stats))
mm_gen_defaults = _fn("mm_gen_defaults", None, P(mm_gen_params))
mm_gen_ticks = _fn("mm_gen_ticks", cint, P(mm_gen_params), P(mm_ticks), E)
mm_import_opts_init = _fn("mm_import_opts_init", None, P(mm_import_opts))
mm_import_lobster = _fn("mm_import_lobster", cint, cp, cp, P(mm_import_opts), P(mm_ticks),
                        P(mm_import_report), E)
mm_import_binance_files = _fn("mm_import_binance_files", cint, P(cp), cint, P(mm_import_opts),
                              P(mm_ticks), P(mm_import_report), E)
mm_import_csv = _fn("mm_import_csv", cint, cp, P(mm_import_opts), P(mm_ticks), P(mm_import_report), E)
mm_latency_read_csv = _fn("mm_latency_read_csv", cint, cp, P(mm_latency_series), E)
mm_latency_free = _fn("mm_latency_free", None, P(mm_latency_series))
mm_latency_samples_read_csv = _fn("mm_latency_samples_read_csv", cint, cp, P(mm_latency_samples), E)
mm_latency_samples_free = _fn("mm_latency_samples_free", None, P(mm_latency_samples))
mm_params_defaults = _fn("mm_params_defaults", None, P(mm_params_buf))
mm_params_set = _fn("mm_params_set", cint, P(mm_params_buf), cp, cp, E)
mm_params_get = _fn("mm_params_get", cint, P(mm_params_buf), cp, cp, sz)
mm_params_key_count = _fn("mm_params_key_count", cint)
mm_params_key_kind = _fn("mm_params_key_kind", cint, cp, P(P(cp)))
mm_params_key_name = _fn("mm_params_key_name", cp, cint, P(cp))
mm_params_check = _fn("mm_params_check", cint, P(mm_params_buf), E)
mm_sim_config_defaults = _fn("mm_sim_config_defaults", None, P(mm_sim_config))
mm_sim_year_s = _fn("mm_sim_year_s", f64, P(mm_sim_config), P(mm_instrument))
mm_sim_run_c = _fn("mm_sim_run_c", cint, P(mm_ticks), P(mm_sim_config), P(mm_params_buf), P(mm_metrics),
                   vp, vp, E)
mm_sim_run_batch = _fn("mm_sim_run_batch", cint, P(mm_ticks), P(mm_sim_config), P(mm_params_buf), i64,
                       P(mm_metrics), E)
mm_trace_collect = C.cast(lib.mm_trace_collect, vp)  # passed to mm_sim_run_c as the trace function
mm_trace_buf_free = _fn("mm_trace_buf_free", None, P(mm_trace_buf))
mm_grid_new = _fn("mm_grid_new", cint, P(vp), E)
mm_grid_free = _fn("mm_grid_free", None, vp)
mm_grid_set_tapes = _fn("mm_grid_set_tapes", cint, vp, P(cp), i32, E)
mm_grid_add_axis = _fn("mm_grid_add_axis", cint, vp, cp, cp, E)
mm_grid_set = _fn("mm_grid_set", cint, vp, cp, cp, E)
mm_grid_combo_count = _fn("mm_grid_combo_count", i64, vp)
mm_grid_base = _fn("mm_grid_base", P(mm_params_buf), vp)
mm_sweep_opts_defaults = _fn("mm_sweep_opts_defaults", None, P(mm_sweep_opts))
mm_sweep_engine_name = _fn("mm_sweep_engine_name", cp, cint)
mm_sweep_engine_parse = _fn("mm_sweep_engine_parse", cint, cp)
mm_sweep_run = _fn("mm_sweep_run", cint, vp, P(mm_sweep_opts), cp, P(mm_sweep_report), E)
mm_results_open = _fn("mm_results_open", cint, cp, P(vp), E)
mm_results_describe = _fn("mm_results_describe", P(mm_results_info), vp)
mm_results_close = _fn("mm_results_close", None, vp)
mm_results_read_values = _fn("mm_results_read_values", cint, vp, i64, i64, P(i32), vp, E)
mm_results_read_paths = _fn("mm_results_read_paths", cint, vp, i64, i64, P(mm_metrics), E)
mm_results_top_values = _fn("mm_results_top_values", cint, vp, P(mm_results_query), P(i64), P(i32), vp,
                            P(mm_results_top_info), E)
mm_results_verify = _fn("mm_results_verify", cint, cp, P(u64), E)
mm_results_column_find = _fn("mm_results_column_find", cint, P(mm_results_info), cp)
mm_results_axis_find = _fn("mm_results_axis_find", cint, P(mm_results_info), cp)
mm_results_axis_value = _fn("mm_results_axis_value", cint, P(mm_results_axis), cp, P(i32))
mm_results_axis_format = _fn("mm_results_axis_format", None, P(mm_results_axis), i32, cp, sz)
mm_results_metric = _fn("mm_results_metric", cint, cint, P(i64), cp, sz)
mm_results_metric_value = _fn("mm_results_metric_value", cint, P(mm_metrics), cint, P(f64), P(i64))
mm_results_summary_metric = _fn("mm_results_summary_metric", cint, cint, P(i64), cp, sz)
mm_results_read_blocks = _fn("mm_results_read_blocks", cint, vp, i64, i64, P(mm_results_block), E)
mm_select_opts_defaults = _fn("mm_select_opts_defaults", None, P(mm_select_opts))
mm_select_run = _fn("mm_select_run", cint, cp, P(mm_select_opts), P(P(mm_select_result)), E)
mm_select_free = _fn("mm_select_free", None, P(mm_select_result))

if mm_version().decode() != __version__:
    raise ImportError(f"mmsim: {LIB_PATH} is libmmsim {mm_version().decode()}, this package is "
                      f"{__version__} (a stale library; rebuild it or point MMSIM_LIB at the right one)")


# ---- errors ----
class Error(Exception):
    """A library failure: str(e) is the library's one-line message (naming file, instrument, column
    and row, or the key), e.code its code (negative errno or MM_E*)."""

    def __init__(self, msg, code=0):
        super().__init__(msg)
        self.code = code


class UsageError(Error, ValueError):
    """A bad argument: a key, a value, a setting (MM_EUSAGE)."""


class DataError(Error):
    """An input file that is not what it must be (MM_EFORMAT, MM_EINVALID, MM_ECHECKSUM, MM_EHDF5)."""


class NotFoundError(Error, LookupError):
    """An instrument, an object or a column that is not there (MM_ENOTFOUND)."""


class LockedError(Error):
    """The output is being written by another process (MM_ELOCKED)."""


class Interrupted(Error, KeyboardInterrupt):
    """A sweep stopped by Ctrl-C (or its cancel); the journal keeps every finished chunk and
    sweep(..., resume=True) finishes the same table."""


class SystemFailure(Error, OSError):
    """A system error (-errno): a missing file, a full disk ..."""


# The library names its own option spellings where the way out is an option (docs/architecture.md,
# "Embedding the library"); Python users read theirs, as src/cli/cli_util.c LIB_TO_FLAG does for flags.
_LIB_TO_PY = [
    ("name one with the symbol argument", "name one with symbol="),
    ("MM_LOAD_NO_VERIFY", "verify=False"),
    ("mm_write_opts.replace", "replace=True"),
    ("set mm_import_opts.skip_gaps", "pass skip_gaps=True"),
    ("set mm_import_opts.no_snapshot", "pass no_snapshot=True"),
    ("mm_import_opts.no_snapshot is set", "no_snapshot=True was given"),
    ("mm_import_opts.csv_allow_crossed", "allow_crossed=True"),
    ("mm_import_opts.symbol", "symbol="),
    ("but mm_import_opts.market is ", "but market="),
    ("mm_import_opts.subtick_reject", "subtick_reject=True"),
    ("set mm_sweep_opts.resume to continue", "pass resume=True to continue"),
    ("with mm_sweep_opts.resume set to", "with resume=True to"),
    ("the run to resume does not match", "resume=True: the run does not match"),
    ("mm_sweep_opts.workers", "workers="),
    ("mm_sweep_opts.chunk", "chunk="),
    ("mm_sweep_opts.paths", "paths="),
    ("mm_sweep_opts.stall_s", "stall_s="),
    ("mm_sweep_opts.blocks = ", "blocks="),
    ("mm_sweep_opts.blocks", "blocks="),
    ("mm_select_opts.min_train", "min_train"),
    ("mm_select_opts.splits", "splits"),
]


def pymsg(msg):
    for a, b in _LIB_TO_PY:
        msg = msg.replace(a, b)
    return msg


def error(code, msg=None):
    """The exception for a library code and message (mm_error), the message in Python's spelling."""
    text = pymsg(msg) if msg else mm_strerror(code).decode()
    if code == MM_EUSAGE:
        return UsageError(text, code)
    if code in (MM_EFORMAT, MM_EINVALID, MM_ECHECKSUM, MM_EHDF5):
        return DataError(text, code)
    if code == MM_ENOTFOUND:
        return NotFoundError(text, code)
    if code == MM_ELOCKED:
        return LockedError(text, code)
    if code == MM_EINTERRUPTED:
        return Interrupted(text, code)
    if code < 0 and code > -1000:
        e = SystemFailure(text, code)
        e.errno = -code
        return e
    return Error(text, code)


def check(rc, err):
    """Raise the library's error when rc is not 0."""
    if rc != 0:
        msg = err.msg.decode("utf-8", "replace") if err is not None else ""
        raise error(err.code if err is not None and err.code else rc, msg)


def b(s):
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode()
