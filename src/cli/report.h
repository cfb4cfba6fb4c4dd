/* mmsim report and mmsim run --curve: one self-contained HTML file each (inline SVG and CSS, one
 * small inline script, no network, no external file). docs/report.md describes what they show.
 *
 *   report_html.c     the output file (temporary, renamed when complete), escaping, the page frame
 *                     (CSS, the sort script), colour maps, numbers
 *   report_grid.c     the heatmap's model: one streaming pass over a results table that aggregates
 *                     a metric into cells over two axes (memory: the cells plus one block of rows)
 *   report_heatmap.c  the heatmap as SVG: cells, colour scale, axis labels, best cell
 *   report_curve.c    a run's PnL, inventory and mid downsampled into time buckets (min, max, last)
 *                     with its fills, and their page
 *   report_curves.c   the best rows of a results file rerun for their curves (report --curves)
 *   report_dist.c     Monte Carlo: the PnL distribution of the best K combinations (stored
 *                     percentiles, and histograms of /paths when kept)
 *   report_robust.c   Monte Carlo: every combination's mean PnL against its 5th percentile, as
 *                     points or, for many combinations, a density grid
 *   report_provenance.c  the provenance block: everything the results file records
 */
#ifndef MM_REPORT_H
#define MM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmsim/results.h"
#include "mmsim/sim.h"
#include "mmsim/ticks.h"

/* ---- the output file (report_html.c) ---- */

typedef struct rep_out {
    FILE *f;
    const char *path; /* final path */
    char *tmp;        /* "<path>.tmp.<pid>", renamed to path by rep_commit */
} rep_out;

/* Open "<path>.tmp.<pid>" for writing (stale temporaries of killed writers removed first).
 * Returns 0 or a positive errno. */
int rep_open(rep_out *o, const char *path);
/* Check every write (error indicator, flush, fsync, close), then rename to the final path. Returns
 * 0 or a positive errno; on failure the temporary file is removed and path is untouched. */
int rep_commit(rep_out *o);
/* Close and remove the temporary file. Safe on a zeroed rep_out. */
void rep_abort(rep_out *o);

void rep_printf(rep_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text with & < > " ' escaped: valid in HTML text, attribute values and SVG <title>. */
void rep_esc(rep_out *o, const char *s);

/* The page frame: doctype, head with title and CSS, body opened; the end adds the script (table
 * sorting, then data-cells = the number of heatmap cells and data-ready="1" on <body>, which the
 * browser test reads back) and closes the document. The document is also well-formed XML. */
void rep_page_begin(rep_out *o, const char *title);
void rep_page_end(rep_out *o);

/* Colour of t as "#rrggbb" (8 bytes): sequential (viridis-like) for t in [0, 1], or diverging
 * (red, white at 0, blue) for t in [-1, 1]. */
void rep_color(double t, int diverging, char out[8]);
/* 1 for a metric column (or Monte Carlo summary of one, not its _std) whose sign is profit or
 * loss: pnl, pnl_close, fees, sharpe, markout_*; the heatmap colours these on the diverging scale
 * centred on zero. */
int rep_metric_signed(const char *name);
/* The unit of a metric column for the legend: "money: price units of the tape", "lots",
 * "annualised", "per second", "share of paths" or "count". */
const char *rep_metric_unit(const char *name);
/* 1 when black text reads better than white on that colour. */
int rep_color_light(const char *rgb);
/* A number for display: "%.6g", "nan", "inf", "-inf". */
void rep_num(double v, char *buf, size_t cap);
/* A round step (1, 2 or 5 x 10^k) for about n axis ticks over span (1 when span is not > 0). */
double rep_nice_step(double span, int n);

/* The provenance block (report_provenance.c): path, combinations, axes, engine, version, wall
 * time, throughput, seed, hash, markouts, objective, inputs, configuration. */
void rep_provenance(rep_out *o, const mm_results_info *in, const char *path);

/* ---- the heatmap's model (report_grid.c) ---- */

enum rep_agg { REP_AGG_MAX = 0, REP_AGG_MEAN = 1, REP_AGG_MIN = 2 };
extern const char *const rep_agg_names[3]; /* "max", "mean", "min" */

typedef struct rep_grid_opts {
    int32_t x, y;                /* axis numbers; y = -1: one row */
    int metric;                  /* metric column (numbering of the table: info->metric_names) */
    int ascending;               /* 0: best = largest; 1: best = smallest (NaN last either way) */
    int agg;                     /* enum rep_agg: how the rows of one cell combine */
    const mm_results_where *fix; /* rows must match all (AND) */
    int32_t n_fix;
    int32_t max_bins; /* cells per axis at most; more values are grouped into equal runs (>= 1) */
} rep_grid_opts;

typedef struct rep_cell {
    double v;        /* aggregated value; NaN when the cell has no non-NaN value */
    double sum;      /* of the non-NaN values (mean) */
    int64_t n;       /* rows in the cell */
    int64_t n_nan;   /* of which the metric is NaN */
    int64_t best_id; /* the cell's best row by (rank key, id), -1 when the cell is empty */
    uint64_t best_key;
} rep_cell;

typedef struct rep_grid {
    int32_t nx, ny; /* cells along x and y (ny = 1 without a y axis) */
    int32_t bx, by; /* axis values per cell along x and y (1: one cell per value) */
    int32_t n_axes;
    rep_cell *cells;   /* ny x nx, row-major: cell (i, j) is cells[j * nx + i] */
    int32_t *best_idx; /* per cell, the axis value indices of its best row (n_axes each) */
    int64_t rows;      /* rows read */
    int64_t matched;   /* rows passing the filters */
    int64_t best;      /* cell with the best aggregated value (ties: lowest index), -1 if none */
    double vmin, vmax; /* over the cells with a value */
} rep_grid;

/* One pass over the table of r in id order, in blocks of 65536 rows. Returns 0, -EINVAL for bad
 * options, -ENOMEM, or a read error (err filled). */
int rep_grid_build(mm_results_reader *r, const rep_grid_opts *o, rep_grid *g, mm_error *err);
void rep_grid_free(rep_grid *g);

/* 1 when the heatmap of metric over g uses the diverging scale centred on zero (a signed metric,
 * rep_metric_signed, or cells of both signs); else the sequential one. */
int rep_heatmap_diverging(const rep_grid *g, const char *metric);
/* The heatmap SVG (report_heatmap.c): metric_name names the metric in labels and titles. */
void rep_heatmap(rep_out *o, const mm_results_info *in, const rep_grid_opts *go, const rep_grid *g,
                 const char *metric_name);

/* ---- a run's curve (report_curve.c) ---- */

typedef struct rep_bucket {
    double lo[3], hi[3], last[3]; /* pnl (money), q (lots), mid (price) */
    int has[3];
    int64_t fills[2]; /* fill events, 0: bid (we bought), 1: ask (we sold) */
    int64_t qty[2];   /* lots */
    double pxq[2];    /* sum of px x qty, ticks x lots (for the volume-weighted price) */
} rep_bucket;

typedef struct rep_curve {
    const mm_ticks *t; /* the tape while the run feeds the curve (NULL after rep_curve_finish) */
    double tick;       /* tick_size of the tape: price units per tick */
    int64_t n_events;
    char symbol[MM_SYMBOL_MAX];
    int64_t t0, t1; /* first and last timestamp, ns */
    int32_t nb;     /* buckets */
    rep_bucket *b;
    int64_t next;     /* next event to account */
    int64_t q, cash2; /* state after the last trace record: lots, twice the cash in ticks x lots */
    double fees;      /* money */
    int64_t mid2;     /* twice the last valid mid, ticks (0: none yet) */
    int64_t n_fills;
} rep_curve;

/* Buckets of equal time over the tape (nb >= 1). Returns 0 or -ENOMEM. */
int rep_curve_init(rep_curve *c, const mm_ticks *t, int32_t nb);
/* The trace callback (mm_trace_fn): feed every record of a reference run, in order. */
void rep_curve_on_trace(const mm_trace_rec *r, void *user);
/* Account the events after the last record (call once, after the run; the tape may then go). */
void rep_curve_finish(rep_curve *c);
/* The run's summary (span, buckets, fills, metrics, parameters) and the three panels as SVG. */
void rep_curve_summary(rep_out *o, const rep_curve *c, const mm_params *p, const mm_metrics *m);
void rep_curve_svg(rep_out *o, const rep_curve *c);
/* The page: title line, the summary, the panels. */
void rep_curve_page(rep_out *o, const rep_curve *c, const char *tape_path, const mm_params *p,
                    const mm_metrics *m);
void rep_curve_free(rep_curve *c);

/* ---- the curves of the best rows (report_curves.c, mmsim report --curves N) ---- */

typedef struct rep_topcurve {
    int64_t id;
    char tape[1100]; /* "path#symbol" */
    mm_params p;     /* the row's parameters */
    mm_metrics m;    /* of the rerun */
    int differs;     /* -1 when the rerun's metrics equal the stored row's, else the first column */
    rep_curve c;
} rep_topcurve;

/* Rerun rows ids[0..n) (axis value indices idx, n x n_axes; stored metrics) of the results file
 * at results_path into *out (n entries, rep_topcurves_free). Returns 0, or -1 after printing one
 * line (an unreadable configuration, a missing tape or one whose fingerprint changed, a failed
 * run). */
int rep_topcurves_run(const mm_results_info *in, const char *results_path, const int64_t *ids,
                      const int32_t *idx, const mm_metrics *stored, int64_t n, int32_t buckets,
                      rep_topcurve **out);
void rep_topcurves_section(rep_out *o, const mm_results_info *in, const rep_topcurve *tc, int64_t n,
                           const char *metric);
void rep_topcurves_free(rep_topcurve *tc, int64_t n);

/* ---- Monte Carlo views (report_dist.c, report_robust.c; docs/report.md "Monte Carlo views") ----
 */

/* "key=value, ..." of one row's axis values (idx: n_axes value indices) into buf (cap bytes): all
 * 1, every axis; all 0, only the axes of more than one value, cut to cut bytes ("..." at the end,
 * at a character boundary) when longer. */
void rep_params_text(const mm_results_info *in, const int32_t *idx, int all, char *buf, size_t cap,
                     size_t cut);

enum { REP_DIST_BINS = 40 }; /* histogram bins per combination */
/* Summary values of a distribution row, in this order: pnl_mean, pnl_p5, pnl_p50, pnl_p95,
 * pnl_cvar5, p_loss, pnl_std. */
enum {
    REP_DIST_MEAN,
    REP_DIST_P5,
    REP_DIST_P50,
    REP_DIST_P95,
    REP_DIST_CVAR5,
    REP_DIST_PLOSS,
    REP_DIST_STD,
    REP_DIST_NV
};

typedef struct rep_dist_row {
    int64_t id;
    mm_results_value rank;       /* the ranking metric's value */
    double v[REP_DIST_NV];       /* stored summaries (money; p_loss a fraction) */
    int64_t hist[REP_DIST_BINS]; /* paths per bin (with /paths) */
    int64_t n_out;               /* paths outside the histogram (pnl not finite) */
    double pmin, pmax;           /* smallest and largest path pnl (with /paths) */
} rep_dist_row;

typedef struct rep_dist {
    int64_t n;          /* rows: min(K, matched) */
    int64_t matched;    /* rows passing the filters */
    int64_t paths;      /* per combination */
    int hist;           /* 1: histograms from /paths (0 without, or when no path pnl is finite) */
    rep_dist_row *rows; /* best first */
    int32_t *idx;       /* n x n_axes axis value indices */
    double lo, hi; /* histograms: the range of their bins (numpy's); without: the marked values'
                      extent (lo > hi when there is none) */
} rep_dist;

/* The bin (0 <= bin < bins) of x in numpy.histogram(x, bins, range=(lo, hi)), lo < hi; -1 when x
 * is outside [lo, hi] or NaN. */
int rep_hist_bin(double x, double lo, double hi, int32_t bins);

/* The best k rows by go's metric, direction and filters (as the top table), their summaries, and
 * with /paths their histograms over the smallest to the largest path pnl of these rows (two
 * passes over their paths, in blocks). Returns 0, -ENOMEM, MM_EFORMAT (a summary column missing)
 * or a read error (err filled). */
int rep_dist_build(mm_results_reader *r, const rep_grid_opts *go, int64_t k, rep_dist *d,
                   mm_error *err);
void rep_dist_section(rep_out *o, const mm_results_info *in, const rep_dist *d,
                      const rep_grid_opts *go);
void rep_dist_free(rep_dist *d);

enum { REP_ROBUST_GRID = 100 }; /* density grid cells per axis */

typedef struct rep_robust {
    int64_t rows, matched;     /* rows read, rows passing the filters */
    int64_t n_skip;            /* of these, not drawn: pnl_mean or pnl_p5 not finite */
    int dense;                 /* 0: one point per row; 1: a REP_ROBUST_GRID^2 density grid */
    int xcol, ycol;            /* the columns pnl_mean and pnl_p5 */
    double xlo, xhi, ylo, yhi; /* extent of the drawn rows; dense: the grid's range (numpy's) */
    /* points (dense 0): np rows, their ids, (x, y, rank metric) triples, axis value indices */
    int64_t np;
    int64_t *ids;
    double *xyv;
    int32_t *idx;
    /* grid (dense 1): cell (i, j), i along x, at j * REP_ROBUST_GRID + i: the rows in it and its
     * best row by the ranking metric (id, x, y, rank value, axis value indices) */
    int64_t *count;
    int64_t *best_id;
    uint64_t *best_key;
    double *best_xyv;
    int32_t *best_idx;
    int32_t n_axes;
} rep_robust;

/* One pass over the table for the extent of (pnl_mean, pnl_p5) over the rows go's filters keep,
 * a second for the points (at most max_points finite rows) or the density grid. Memory: one block
 * plus max_points points or the grid. Returns 0, -ENOMEM, MM_EFORMAT or a read error. */
int rep_robust_build(mm_results_reader *r, const rep_grid_opts *go, int64_t max_points,
                     rep_robust *rb, mm_error *err);
/* The scatter or grid, with the rows of top (may be NULL) as numbered points on top. */
void rep_robust_section(rep_out *o, const mm_results_info *in, const rep_robust *rb,
                        const rep_dist *top, const rep_grid_opts *go);
void rep_robust_free(rep_robust *rb);

/* The command (cmd_report.c), dispatched from main.c. */
int cmd_report(int argc, char **argv);
/* The selection section (report_select.c): mm_select_run's numbers drawn (out-of-sample curve,
 * rank scatter, logit histogram); s NULL: a note saying why_not. */
#include "mmsim/select.h"
void rep_select_section(rep_out *o, const mm_results_info *in, const mm_select_result *s,
                        const char *why_not);
/* mm_select_run for the report (the report's metric sharpe: that objective, else pnl): 0 with *out,
 * or 0 with *out NULL and why set when the file cannot be judged (MM_EUSAGE); other errors in err.
 */
int rep_select_build(const char *path, const char *metric, mm_select_result **out, char *why,
                     size_t cap, mm_error *err);
/* The notes above the top table: the rows set aside for having no fill, and a warning per tape
 * whose annualised Sharpe is flagged (cli_sharpe_flags). */
void rep_top_notes(rep_out *o, const mm_results_info *in, int64_t set_aside);
/* mmsim select (cmd_select.c), and its text of a trial's axis values ("spread=3 inv_limit=10"),
 * which the report's selection page uses too. */
int cmd_select(int argc, char **argv);
struct mm_results_info;
void cli_select_trial_text(const struct mm_results_info *in, int64_t n, char *buf, size_t cap);

#endif
