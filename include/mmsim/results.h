/* Sweep results: one HDF5 file, one row per parameter combination (layout in docs/results.md).
 *
 *   /results            compound dataset [n_combos]: id (int64), one column per axis, then the
 * metrics; row r holds combination id r (mixed-radix index of docs/sweep.md) /axes/<key> the values
 * of each axis, in axis order (float64, int64, or strings for enums and for the "tape" axis)
 *   /index/<objective>  int64 [n_combos]: row numbers sorted by the objective, best first
 * (descending; ties by ascending id) attributes on /results: see mm_results_meta.
 *
 * Writing goes to "<path>.tmp.<pid>" and is renamed into place by mm_results_commit(), so a reader
 * never sees a half-written file.
 */
#ifndef MMSIM_RESULTS_H
#define MMSIM_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"
#include "mmsim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column type of an axis. */
enum mm_col_type { MM_COL_F64 = 1, MM_COL_I64 = 2, MM_COL_ENUM = 3 };

/* One axis of the grid, as the results file stores it. */
typedef struct mm_results_axis {
    const char *key;          /* column name: a parameter key, or "tape" */
    int type;                 /* enum mm_col_type; the "tape" axis is MM_COL_ENUM */
    int32_t n;                /* number of values */
    const double *f64;        /* MM_COL_F64: n values */
    const int64_t *i64;       /* MM_COL_I64: n values */
    const char *const *names; /* MM_COL_ENUM: n value names (the column stores the index, int32) */
} mm_results_axis;

/* Provenance written as attributes of /results. */
typedef struct mm_results_meta {
    const char *config_text; /* the full configuration (INI text, or flags rendered as INI) */
    uint64_t seed;           /* master seed */
    const char *engine;      /* "serial", "threads", "process", ... */
    int32_t workers;
    double wall_s, combos_per_s, updates_per_s;
    int32_t n_inputs; /* input tapes */
    const char *const *input_paths, *const *input_symbols;
    const uint64_t *input_fingerprints;
    int64_t markout_ns[MM_MARKOUTS];
    const char *objective; /* metric the index sorts by, descending ("pnl" if NULL) */
    /* The input files other than tapes (docs/results.md, "Side inputs"): n_side files, each with
     * its role (MM_SIDE_* names: "latency_series", "latency_samples", "synthetic", "config"), its
     * path as given and the XXH3-64 (seed 0) of its bytes when the run read it. A file written
     * before these attributes reads back with n_side = 0. */
    int32_t n_side;
    const char *const *side_roles, *const *side_paths;
    const uint64_t *side_xxh3;
    /* Workers the process engine killed for making no progress, their chunks rerun on fresh
     * workers (mm_sweep_report.stalls); 0 when the file does not record it. */
    int64_t stalls;
    /* Each input tape's span, last minus first timestamp, ns (attribute input_span_ns): what an
     * annualised Sharpe ratio was measured over (docs/results.md, "When sharpe means something").
     * NULL: not recorded (a file from before it, or a writer that does not give it). */
    const int64_t *input_span_ns;
} mm_results_meta;

typedef struct mm_results_writer mm_results_writer;

/* Create the temporary file for n_rows combinations with the given axes. Axis keys are column
 * names: [A-Za-z0-9_.-]+ (not starting with '.', at most 63 characters), distinct, none equal to
 * "id" or to a metric column; numeric axis values are finite and distinct; markout horizons are
 * positive and give distinct column names. Any violation is MM_EUSAGE naming the key or value. The
 * writer holds a copy of the axes (the caller's arrays may go away). */
MM_API int mm_results_create(const char *path, const mm_results_axis *axes, int32_t n_axes,
                             int64_t n_rows, const int64_t markout_ns[MM_MARKOUTS],
                             mm_results_writer **out, mm_error *err);

/* Write rows [first, first + n): axis_idx holds n x n_axes value indices (row-major), m the
 * metrics. Rows may be written in any order, each exactly once (a row written twice is -EINVAL and
 * nothing of that call is written). Apart from a bitmap of one bit per row, memory use does not
 * depend on n_rows. Calls on one writer must not run concurrently (HDF5 is not thread-safe):
 * parallel engines hand rows to one writing thread or process. */
MM_API int mm_results_write(mm_results_writer *w, int64_t first, int64_t n, const int32_t *axis_idx,
                            const mm_metrics *m, mm_error *err);

/* Finish: check every row was written (-EINVAL naming the first missing row), build
 * /index/<objective> (16 bytes per row of memory, twice during the sort), compute the content hash
 * (as mm_results_hash), write the attributes, fsync and rename to the final path. meta.objective
 * must name a metric column (MM_EUSAGE otherwise); meta.markout_ns all zero means the horizons
 * given to mm_results_create, otherwise they must equal them. NULL strings in meta are written as
 * "". Frees w whatever the outcome (on error the temporary file is removed). */
MM_API int mm_results_commit(mm_results_writer *w, const mm_results_meta *meta, mm_error *err);

/* Abandon: close and remove the temporary file, free w. */
MM_API void mm_results_abort(mm_results_writer *w);

/* XXH3-64 of the table's content as stored in the file at path (recomputed, streaming): see
 * docs/results.md for the exact byte sequence. Also stored as the attribute content_hash. */
MM_API int mm_results_hash(const char *path, uint64_t *hash, mm_error *err);

/* mm_results_hash, then every stored index (/index/<name>) checked against the rows: each must be
 * exactly the order the commit writes (docs/results.md, "/index/<objective>"). 0 with *hash set;
 * MM_EFORMAT naming the index and its first wrong entry; or mm_results_hash's errors. The stored
 * content_hash is not compared here (mm_results_describe gives it). */
MM_API int mm_results_verify(const char *path, uint64_t *hash, mm_error *err);

/* ---- columns ----
 * The metric columns follow the axis columns, MM_RESULTS_METRICS of them, in the order of
 * mm_metrics: pnl fees volume fills_bid fills_ask orders cancels rejects final_q max_abs_q
 * mean_abs_q sharpe max_drawdown pnl_close held orders_per_s cancels_per_s rejects_per_s
 * markout_<h0> markout_<h1> markout_<h2> pnl_spread pnl_inventory. A table written before
 * pnl_spread and pnl_inventory (the first 21) still reads: its info->n_metrics is 21, and
 * mm_results_read gives NaN for the two. */
#define MM_RESULTS_METRICS 23

/* Name of metric column i (0 <= i < MM_RESULTS_METRICS) into name (cap bytes; 32 is always enough),
 * the markout columns named from markout_ns (mm_results_horizon_name). Returns its type, MM_COL_F64
 * or MM_COL_I64, or -EINVAL for a bad i. */
MM_API int mm_results_metric(int i, const int64_t markout_ns[MM_MARKOUTS], char *name, size_t cap);

/* Value of metric column i of m: *f64 (MM_COL_F64) or *i64 (MM_COL_I64); returns the type or
 * -EINVAL. */
MM_API int mm_results_metric_value(const mm_metrics *m, int i, double *f64, int64_t *i64);

/* A horizon in ns as text with the largest unit that divides it exactly: "1s", "500ms", "250us",
 * "100ns". */
MM_API void mm_results_horizon_name(int64_t ns, char *buf, size_t cap);

/* ---- Monte Carlo tables (docs/results.md, "Monte Carlo") ----
 * A sweep with more than one path per combination stores one row of summaries per combination
 * (format mmsim-results/3): MM_RESULTS_SUMMARY_METRICS float64 columns in place of the per-run
 * metrics, and optionally /paths, the per-run metrics of every path (row = id x paths + path:
 * columns id, path, then the MM_RESULTS_METRICS metric columns). */
#define MM_RESULTS_SUMMARY_METRICS (2 * MM_RESULTS_METRICS + 10)
#define MM_RESULTS_MAX_METRICS MM_RESULTS_SUMMARY_METRICS

/* Name of summary column i (0 <= i < MM_RESULTS_SUMMARY_METRICS): for per-run metric b (in its
 * column order) "b_mean" then "b_std"; then pnl_p5 pnl_p50 pnl_p95 pnl_cvar5, pnl_close_p5 ..
 * pnl_close_cvar5, p_loss, p_loss_close. Returns MM_COL_F64, or -EINVAL for a bad i. */
MM_API int mm_results_summary_metric(int i, const int64_t markout_ns[MM_MARKOUTS], char *name,
                                     size_t cap);

/* The summary of n >= 1 paths' metrics into out[0 .. MM_RESULTS_SUMMARY_METRICS), the formulas of
 * docs/results.md ("Monte Carlo"); scratch: room for n doubles. */
MM_API void mm_results_summarize(const mm_metrics *paths, int64_t n, double *out, double *scratch);

/* Create a Monte Carlo table: as mm_results_create, for n_rows combinations of `paths` >= 2 paths
 * each; keep_paths 1 also creates /paths (n_rows x paths rows). */
MM_API int mm_results_create_mc(const char *path, const mm_results_axis *axes, int32_t n_axes,
                                int64_t n_rows, const int64_t markout_ns[MM_MARKOUTS],
                                int64_t paths, int keep_paths, mm_results_writer **out,
                                mm_error *err);

/* Write the summary rows [first, first + n) of a Monte Carlo table: axis_idx as mm_results_write,
 * s holds n x MM_RESULTS_SUMMARY_METRICS values. When the table keeps its paths, m holds the n x
 * paths per-run metrics of those combinations (combination first + k, path p at m[k x paths + p]);
 * otherwise m is ignored (may be NULL). */
MM_API int mm_results_write_mc(mm_results_writer *w, int64_t first, int64_t n,
                               const int32_t *axis_idx, const double *s, const mm_metrics *m,
                               mm_error *err);

/* ---- time blocks (docs/results.md, "/blocks") ----
 * A sweep run with blocks (mm_sweep_opts.blocks or .block_ns) records, for every combination, its
 * state at the end of each of n_blocks time blocks of its tape: /blocks [n_rows][n_blocks] of
 * these records (row r = combination r, block b in time order) and /block_end_ns [n_tapes]
 * [n_blocks], the exchange time each block of each tape ends at (the block holds the events with
 * ts_ns <= that time and after the previous block's end). The last block ends at the tape's last
 * event, so its pnl, q, fills and fees equal the row's pnl, final_q, fills_bid + fills_ask and
 * fees bit for bit. */
typedef struct mm_results_block {
    double pnl;    /* marked to the last mid at the block's end, after fees; money (cumulative) */
    int64_t q;     /* position at the block's end, lots */
    int64_t fills; /* fill events (both sides) since the start of the tape */
    double fees;   /* fees paid since the start of the tape; money */
} mm_results_block;
#define MM_RESULTS_BLOCKS_MAX 4096

/* Give a table being written its blocks: n_blocks in [1, MM_RESULTS_BLOCKS_MAX], block_ns (0:
 * equal spans of each tape; > 0: the fixed length asked for, recorded as an attribute), and
 * end_ns [n_tapes][n_blocks] (non-decreasing per tape). Creates /blocks and /block_end_ns. Call
 * once, after mm_results_create (not on a Monte Carlo table), before any row is written. Then every
 * row's blocks must be written (mm_results_write_blocks) before the commit, which also covers them
 * in the content hash. Returns 0, -EINVAL or MM_EHDF5. */
MM_API int mm_results_add_blocks(mm_results_writer *w, int32_t n_blocks, int64_t block_ns,
                                 int32_t n_tapes, const int64_t *end_ns, mm_error *err);

/* Write the blocks of rows [first, first + n): b holds n x n_blocks records, row-major. Each row
 * once (-EINVAL otherwise, nothing written). */
MM_API int mm_results_write_blocks(mm_results_writer *w, int64_t first, int64_t n,
                                   const mm_results_block *b, mm_error *err);

/* One value of a metric column: f64 or i64 as the column's type says. */
typedef union mm_results_value {
    double f64;
    int64_t i64;
} mm_results_value;

/* ---- reading ----
 * An open results file. Calls on one reader (and HDF5 in general) must not run concurrently. */
typedef struct mm_results_reader mm_results_reader;

/* What a results file holds; every pointer is owned by the reader and valid until mm_results_close.
 */
typedef struct mm_results_info {
    int64_t n_rows;
    int32_t n_axes;
    const mm_results_axis *axes; /* axis columns, in table order */
    mm_results_meta meta;        /* provenance; meta.objective names the stored index */
    const char *mmsim_version;   /* version of mmsim that wrote the file */
    uint64_t content_hash;       /* as stored (mm_results_hash recomputes it) */
    /* The metric columns, after the axes: MM_RESULTS_METRICS per-run metrics (paths 1) or the
     * MM_RESULTS_SUMMARY_METRICS summaries of a Monte Carlo table (paths > 1). Metric numbers in
     * queries and mm_results_read_values index these. */
    int32_t n_metrics;
    const char *const *metric_names;
    const int *metric_types; /* MM_COL_F64 or MM_COL_I64 */
    int64_t paths;           /* paths per combination: 1, or the Monte Carlo table's */
    int has_paths;           /* 1 when the file holds /paths (--keep-paths) */
    /* Time blocks (mm_results_block): 0 when the file has none; block_ns as recorded (0: equal
     * spans); block_end_ns [block_tapes][n_blocks], block_tapes = the tape axis' size. */
    int32_t n_blocks, block_tapes;
    int64_t block_ns;
    const int64_t *block_end_ns;
    /* Rows without a fill (fills_bid + fills_ask = 0; on a Monte Carlo table their means), as the
     * commit counted them (attribute n_no_fill); -1 in a file written before it. */
    int64_t n_no_fill;
} mm_results_info;

/* Open and check a results file (format tag, table columns and types, axes, attributes). Errors
 * name the file: missing (-errno), not HDF5 or not a results file (MM_EFORMAT). */
MM_API int mm_results_open(const char *path, mm_results_reader **out, mm_error *err);
MM_API const mm_results_info *mm_results_describe(const mm_results_reader *r);

/* Read rows [first, first + n) in id order, the inverse of mm_results_write: axis_idx (n x n_axes,
 * row-major, may be NULL) receives each row's value index on each axis, m (may be NULL) its
 * metrics. A row whose id is not its row number or whose axis value is not on the axis is
 * MM_EFORMAT. */
MM_API int mm_results_read(mm_results_reader *r, int64_t first, int64_t n, int32_t *axis_idx,
                           mm_metrics *m, mm_error *err);

/* Rows [first, first + n) as mm_results_read, the metrics as n x info->n_metrics values (v may be
 * NULL): works on every table. (mm_results_read's mm_metrics is only for tables of one path: on a
 * Monte Carlo table it is MM_EUSAGE.) */
MM_API int mm_results_read_values(mm_results_reader *r, int64_t first, int64_t n, int32_t *axis_idx,
                                  mm_results_value *v, mm_error *err);

/* Rows [first, first + n) of /paths (row = id x paths + path) into m; MM_ENOTFOUND when the file
 * has no /paths. */
MM_API int mm_results_read_paths(mm_results_reader *r, int64_t first, int64_t n, mm_metrics *m,
                                 mm_error *err);

/* The blocks of rows [first, first + n) into b (n x info->n_blocks records, row-major);
 * MM_ENOTFOUND when the file has no blocks. */
MM_API int mm_results_read_blocks(mm_results_reader *r, int64_t first, int64_t n,
                                  mm_results_block *b, mm_error *err);

/* Entries [first, first + n) of /index/<objective> (row numbers, best first). MM_ENOTFOUND when the
 * file has no index for that objective. */
MM_API int mm_results_read_index(mm_results_reader *r, const char *objective, int64_t first,
                                 int64_t n, int64_t *rows, mm_error *err);

MM_API void mm_results_close(mm_results_reader *r);

/* ---- queries (src/sweep/results_query.c) ----
 * Lookups by name, the text of an axis value, and the best rows of a table by one metric column,
 * ranked exactly as /index/<objective> is (docs/results.md, "Queries"). A program (`mmsim show`, a
 * report) uses these instead of restating the rules. */

/* Number (0 <= i < MM_RESULTS_METRICS) of the metric column called name when the markout columns
 * are named from markout_ns (mm_results_metric), or MM_ENOTFOUND (also for a NULL name). */
MM_API int mm_results_metric_find(const char *name, const int64_t markout_ns[MM_MARKOUTS]);

/* Number of the metric column called name in info (0 <= i < info->n_metrics), or MM_ENOTFOUND.
 * On a Monte Carlo table a per-run metric's name b also finds b_mean. */
MM_API int mm_results_column_find(const mm_results_info *info, const char *name);

/* info's metric column names joined by ", " into buf (cap bytes; 2048 is always enough). */
MM_API void mm_results_column_list(const mm_results_info *info, char *buf, size_t cap);

/* Rank key of one value of a column of type `type` (mm_results_rank_key's order). */
MM_API uint64_t mm_results_rank_key_value(mm_results_value v, int type, int ascending);

/* Every metric column name, in column order, joined by ", " into buf (cap bytes; 640 is always
 * enough; a shorter buffer gets the names that fit whole, still NUL-terminated). For messages. */
MM_API void mm_results_metric_list(const int64_t markout_ns[MM_MARKOUTS], char *buf, size_t cap);

/* Number of the axis called key in info (0 <= a < info->n_axes), or MM_ENOTFOUND. */
MM_API int mm_results_axis_find(const mm_results_info *info, const char *key);

/* The value index on axis a named by text, into *idx; 0, or MM_ENOTFOUND when text names no value.
 *   MM_COL_ENUM: text equals a value name exactly.
 *   MM_COL_I64:  text is a decimal integer ([-]digits only: no blanks, '+', hex) equal to a value.
 *   MM_COL_F64:  text is a finite decimal number ([+-]digits[.digits][e[+-]digits]: no blanks, hex,
 * inf or nan) equal to a value or, when none is equal, within 1e-9 relative of exactly one value
 * (so "0.3" finds 0.30000000000000004 and "5e-1" finds 0.5). */
MM_API int mm_results_axis_value(const mm_results_axis *a, const char *text, int32_t *idx);

/* Value k (0 <= k < a->n) of axis a as text into buf (cap bytes): an enum's name, an integer in
 * decimal, a float as the shortest "%.15g".."%.17g" that reads back as the same double ("0.5",
 * "2.5", "1e-07"). */
MM_API void mm_results_axis_format(const mm_results_axis *a, int32_t k, char *buf, size_t cap);

/* Rank key of metric column `metric` of m: rows rank by (key, id) in ascending unsigned order,
 * which is the value order asked for (largest first, or smallest first when ascending), NaN last in
 * both directions, -0 equal to +0, ties by ascending id. With ascending = 0 this is the key
 * /index/<objective> is sorted by. An integer column ranks by its exact int64 value (no rounding
 * through double). Returns UINT64_MAX (rank last) for a bad metric number. */
MM_API uint64_t mm_results_rank_key(const mm_metrics *m, int metric, int ascending);

/* A filter: only rows whose value index on axis `axis` is `value` (mm_results_axis_value gives it).
 */
typedef struct mm_results_where {
    int32_t axis;  /* 0 <= axis < n_axes */
    int32_t value; /* 0 <= value < that axis's n */
} mm_results_where;

/* A filter on a metric column: only rows whose value v in column `metric` satisfies `v op value`
 * (an int64 column compares as a double). A NaN value satisfies none but MM_CMP_NE. */
enum mm_results_cmp { MM_CMP_LT, MM_CMP_LE, MM_CMP_EQ, MM_CMP_NE, MM_CMP_GE, MM_CMP_GT };
typedef struct mm_results_cond {
    int metric; /* mm_results_metric numbering */
    int op;     /* enum mm_results_cmp */
    double value;
} mm_results_cond;

typedef struct mm_results_query {
    int metric;    /* metric column to rank by (mm_results_metric numbering) */
    int ascending; /* 0: best = largest; 1: best = smallest (NaN last either way) */
    const mm_results_where
        *where; /* n_where filters, all must hold (AND); two filters on one axis with
                   different values match nothing; may be NULL when n_where is 0 */
    int32_t n_where;
    int64_t k;                   /* rows wanted, >= 0; larger than the table is fine */
    const mm_results_cond *cond; /* n_cond filters on metrics, ANDed with the axis filters; may be
                                    NULL when n_cond is 0 */
    int32_t n_cond;
    /* 0 (the default): rows without a fill (mm_results_row_idle) are set aside, never ranked, and
     * counted in mm_results_top_info.set_aside: a row that never traded is no strategy, and its
     * pnl of 0 would rank above every one that takes risk. 1: ranked like the others. */
    int keep_idle;
} mm_results_query;

typedef struct mm_results_top_info {
    int64_t n;         /* rows returned: min(k, matched) */
    int64_t matched;   /* rows passing the filters (n_rows without filters) */
    int from_index;    /* 1 when the rows came from /index/<objective> (see mm_results_top) */
    int64_t set_aside; /* rows passing the filters but set aside for having no fill (not in
                          matched) */
} mm_results_top_info;

/* The best min(k, matched) rows of r by q, best first (mm_results_rank_key order): ids[i] is the
 * row id
 * (= row number), axis_idx (may be NULL; n x n_axes, row-major) its value indices, m (may be NULL)
 * its metrics; *info (may be NULL) the counts. ids, axis_idx and m need room for min(k, n_rows)
 * rows. Without filters, descending by the file's objective, the rows are the first entries of the
 * stored index (from_index = 1; no scan; MM_ENOTFOUND if the file lacks it); otherwise the whole
 * table is streamed in id order, in blocks of 65536 rows, through a heap of the best min(k, n_rows)
 * rows: memory is O(min(k, n_rows)) plus one block, never the table. k = 0 returns no rows but
 * still counts matched. A bad metric, a negative k, a filter outside the axes or their values, or a
 * NULL ids with k > 0 is -EINVAL; read errors as mm_results_read. */
MM_API int mm_results_top(mm_results_reader *r, const mm_results_query *q, int64_t *ids,
                          int32_t *axis_idx, mm_metrics *m, mm_results_top_info *info,
                          mm_error *err);

/* 1 when the row of metric values v (info->n_metrics of them) has no fill: fills_bid and fills_ask
 * (their _mean on a Monte Carlo table) both 0. 0 when the table has no such columns. */
MM_API int mm_results_row_idle(const mm_results_info *info, const mm_results_value *v);

/* mm_results_top for any table: metric numbers index info->metric_names (q->metric, q->cond), and
 * v (may be NULL) receives min(k, n_rows) x n_metrics values. */
MM_API int mm_results_top_values(mm_results_reader *r, const mm_results_query *q, int64_t *ids,
                                 int32_t *axis_idx, mm_results_value *v, mm_results_top_info *info,
                                 mm_error *err);

#ifdef __cplusplus
}
#endif

#endif
