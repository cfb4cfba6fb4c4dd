/* The distribution view of a Monte Carlo report (docs/report.md, "Monte Carlo views"): for the best
 * K combinations, ranked as the top table ranks them, one row each on a shared PnL axis: the
 * stored p5 .. p95 as a bar, the median, the mean and CVaR 5% marked, and with /paths the
 * histogram of that combination's paths in REP_DIST_BINS bins of equal width, one SVG path each.
 * Memory and page: O(K x bins), whatever the number of paths; /paths is read per combination in
 * blocks of BLOCK rows. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "report.h"

enum { BLOCK = 8192 };

/* The summary columns a row of the view shows, in rep_dist_row.v order. */
static const char *const COLS[REP_DIST_NV] = {"pnl_mean",  "pnl_p5", "pnl_p50", "pnl_p95",
                                              "pnl_cvar5", "p_loss", "pnl_std"};

void rep_dist_free(rep_dist *d)
{
    free(d->rows);
    free(d->idx);
    memset(d, 0, sizeof *d);
}

/* The bin of x among the REP_DIST_BINS bins of equal width over [lo, hi] (lo < hi), or -1 when x
 * is outside or NaN. The edges are numpy's linspace (edge k = k x ((hi - lo) / bins) + lo, the
 * last edge hi itself), and a value goes to the bin whose [left edge, right edge) holds it, the
 * last bin closed on the right: exactly numpy.histogram(x, bins, range=(lo, hi)), which computes
 * the bin by a multiplication and then corrects it against the edges, as here. */
int rep_hist_bin(double x, double lo, double hi, int32_t bins)
{
    if (!(x >= lo && x <= hi)) return -1;
    double step = (hi - lo) / bins, f = (x - lo) * (bins / (hi - lo));
    int32_t k = f >= 0 && f < bins ? (int32_t)f : f >= bins ? bins - 1 : 0; /* no cast of NaN */
    double left = k * step + lo, right = k + 1 == bins ? hi : (k + 1) * step + lo;
    if (x < left)
        k--;
    else if (x >= right && k != bins - 1)
        k++;
    assert(k >= 0 && k < bins);
    return k;
}

/* pass 0: the smallest and largest pnl over the rows' paths; pass 1: the histograms. */
static int paths_pass(mm_results_reader *r, rep_dist *d, int pass, mm_metrics *m, mm_error *err)
{
    const int64_t P = mm_results_describe(r)->paths;
    for (int64_t i = 0; i < d->n; i++) {
        rep_dist_row *row = &d->rows[i];
        for (int64_t first = 0; first < P; first += BLOCK) {
            int64_t n = P - first < BLOCK ? P - first : BLOCK;
            int rc = mm_results_read_paths(r, row->id * P + first, n, m, err);
            if (rc) return rc;
            for (int64_t k = 0; k < n; k++) {
                double x = m[k].pnl;
                if (pass == 0 && isfinite(x)) {
                    d->lo = fmin(d->lo, x);
                    d->hi = fmax(d->hi, x);
                    row->pmin = fmin(row->pmin, x);
                    row->pmax = fmax(row->pmax, x);
                } else if (pass == 1) {
                    int32_t b = rep_hist_bin(x, d->lo, d->hi, REP_DIST_BINS);
                    if (b >= 0)
                        row->hist[b]++;
                    else
                        row->n_out++;
                }
            }
        }
    }
    return 0;
}

int rep_dist_build(mm_results_reader *r, const rep_grid_opts *go, int64_t k, rep_dist *d,
                   mm_error *err)
{
    const mm_results_info *in = mm_results_describe(r);
    memset(d, 0, sizeof *d);
    int col[REP_DIST_NV];
    for (int j = 0; j < REP_DIST_NV; j++) {
        col[j] = mm_results_column_find(in, COLS[j]);
        if (col[j] < 0 || in->metric_types[col[j]] != MM_COL_F64)
            return mm__errf(err, MM_EFORMAT, "report: the Monte Carlo table has no column %s",
                            COLS[j]);
    }
    mm_results_query q = {go->metric, go->ascending, go->fix, go->n_fix, k, NULL, 0, 0};
    if (q.k > in->n_rows) q.k = in->n_rows;
    const size_t room = (size_t)(q.k > 0 ? q.k : 1), na = (size_t)(in->n_axes > 0 ? in->n_axes : 1),
                 nm = (size_t)in->n_metrics;
    int64_t *ids = calloc(room, sizeof *ids);
    mm_results_value *v = calloc(room * nm, sizeof *v);
    mm_metrics *m = in->has_paths ? malloc((size_t)BLOCK * sizeof *m) : NULL;
    d->rows = calloc(room, sizeof *d->rows);
    d->idx = calloc(room * na, sizeof *d->idx);
    mm_results_top_info ti = {0};
    int rc = 0;
    if (!ids || !v || !d->rows || !d->idx || (in->has_paths && !m)) {
        rc = mm__errf(err, -ENOMEM, "report: out of memory");
        goto out;
    }
    rc = mm_results_top_values(r, &q, ids, d->idx, v, &ti, err);
    if (rc) goto out;
    d->n = ti.n;
    d->matched = ti.matched;
    d->paths = in->paths;
    d->hist = in->has_paths;
    d->lo = INFINITY;
    d->hi = -INFINITY;
    for (int64_t i = 0; i < d->n; i++) {
        rep_dist_row *row = &d->rows[i];
        row->id = ids[i];
        row->rank = v[(size_t)i * nm + (size_t)go->metric];
        for (int j = 0; j < REP_DIST_NV; j++)
            row->v[j] = v[(size_t)i * nm + (size_t)col[j]].f64;
        row->pmin = INFINITY;
        row->pmax = -INFINITY;
        if (!d->hist) /* the axis: every value a row marks */
            for (int j = REP_DIST_MEAN; j <= REP_DIST_CVAR5; j++)
                if (isfinite(row->v[j])) {
                    d->lo = fmin(d->lo, row->v[j]);
                    d->hi = fmax(d->hi, row->v[j]);
                }
    }
    if (d->hist && d->n > 0) {
        rc = paths_pass(r, d, 0, m, err);
        if (rc) goto out;
        if (d->lo == d->hi) { /* one value: numpy's range for it */
            d->lo -= 0.5;
            d->hi += 0.5;
        }
        if (d->lo < d->hi && isfinite(d->hi - d->lo))
            rc = paths_pass(r, d, 1, m, err);
        else
            d->hist = 0; /* no finite path pnl: nothing to bin */
        if (rc) goto out;
    }
out:
    free(ids);
    free(v);
    free(m);
    if (rc) rep_dist_free(d);
    return rc;
}

/* ---- the page ---- */

enum { W = 1100, ML = 270, MR = 110, MT = 8, RH = 52, AXIS = 44 };

void rep_params_text(const mm_results_info *in, const int32_t *idx, int all, char *buf, size_t cap,
                     size_t cut)
{
    size_t len = 0;
    buf[0] = 0;
    for (int32_t a = 0; a < in->n_axes; a++) {
        if (!all && in->axes[a].n < 2) continue;
        char v[256];
        mm_results_axis_format(&in->axes[a], idx[a], v, sizeof v);
        int w = snprintf(buf + len, cap - len, "%s%s=%s", len ? ", " : "", in->axes[a].key, v);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
    if (!all && len > cut) {
        size_t k = cut - 3;
        while (k > 0 && ((unsigned char)buf[k] & 0xC0) == 0x80)
            k--; /* not inside a UTF-8 character */
        memcpy(buf + k, "...", 4);
    }
}

/* The shared axis: a vertical grid line and label at each round value, zero darker. */
static void pnl_axis(rep_out *o, double alo, double ahi, int32_t y0, int32_t y1)
{
    double st = rep_nice_step(ahi - alo, 8);
    for (double v = ceil(alo / st) * st; v <= ahi; v += st) {
        char t[64];
        double x = ML + (v - alo) / (ahi - alo) * (W - ML - MR);
        int zero = fabs(v) < st * 1e-9;
        rep_num(zero ? 0 : v, t, sizeof t);
        rep_printf(o,
                   "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                   x, x, y0, y1, zero ? "#888" : "#e4e4e4", x, y1 + 16, t);
    }
    rep_printf(o,
               "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">pnl of one path "
               "(money)</text>\n",
               ML + (W - ML - MR) / 2, y1 + 36);
}

static void row_title(rep_out *o, const mm_results_info *in, const rep_dist *d, int64_t i,
                      const char *metric, int mtype)
{
    const rep_dist_row *row = &d->rows[i];
    char p[2048], a[64], b[64], c[64];
    rep_params_text(in, &d->idx[(size_t)i * (size_t)(in->n_axes > 0 ? in->n_axes : 1)], 1, p,
                    sizeof p, 0);
    rep_printf(o, "<title>#%" PRId64 " id %" PRId64 ": ", i + 1, row->id);
    rep_esc(o, p);
    if (mtype == MM_COL_I64)
        snprintf(a, sizeof a, "%" PRId64, row->rank.i64);
    else
        rep_num(row->rank.f64, a, sizeof a);
    rep_printf(o, "&#10;%s = %s&#10;pnl over %" PRId64 " paths: mean ", metric, a, d->paths);
    rep_num(row->v[REP_DIST_MEAN], a, sizeof a);
    rep_num(row->v[REP_DIST_STD], b, sizeof b);
    rep_printf(o, "%s (std %s), p5 ", a, b);
    rep_num(row->v[REP_DIST_P5], a, sizeof a);
    rep_num(row->v[REP_DIST_P50], b, sizeof b);
    rep_num(row->v[REP_DIST_P95], c, sizeof c);
    rep_printf(o, "%s, p50 %s, p95 %s, CVaR 5%% ", a, b, c);
    rep_num(row->v[REP_DIST_CVAR5], a, sizeof a);
    rep_num(row->v[REP_DIST_PLOSS] * 100, b, sizeof b);
    rep_printf(o, "%s, P(loss) %s%%", a, b);
    if (d->hist) {
        rep_num(row->pmin, a, sizeof a);
        rep_num(row->pmax, b, sizeof b);
        rep_printf(o, "; paths from %s to %s", a, b);
        if (row->n_out) rep_printf(o, " (%" PRId64 " not finite)", row->n_out);
    }
    rep_printf(o, "</title>");
}

/* One path per histogram: the outline of the bars over [lo, hi], scaled to the row's tallest bin,
 * its counts in data-counts. */
static void hist_path(rep_out *o, const rep_dist *d, const rep_dist_row *row, double alo,
                      double ahi, int32_t base, int32_t h)
{
    int64_t top = 0;
    for (int k = 0; k < REP_DIST_BINS; k++)
        top = row->hist[k] > top ? row->hist[k] : top;
    const double pw = W - ML - MR, step = (d->hi - d->lo) / REP_DIST_BINS;
#define X(v) (ML + ((v)-alo) / (ahi - alo) * pw)
    rep_printf(o, "<path class=\"hist\" data-counts=\"");
    for (int k = 0; k < REP_DIST_BINS; k++)
        rep_printf(o, "%s%" PRId64, k ? " " : "", row->hist[k]);
    rep_printf(o, "\" fill=\"#9ecae1\" fill-opacity=\"0.8\" stroke=\"#4a90c2\" d=\"M%.1f %d",
               X(d->lo), base);
    for (int k = 0; k < REP_DIST_BINS; k++) {
        double right = k + 1 == REP_DIST_BINS ? d->hi : (k + 1) * step + d->lo;
        rep_printf(o, "V%.1fH%.1f", base - (top ? (double)row->hist[k] / (double)top * h : 0),
                   X(right));
    }
    rep_printf(o, "V%dZ\"/>\n", base);
#undef X
}

void rep_dist_section(rep_out *o, const mm_results_info *in, const rep_dist *d,
                      const rep_grid_opts *go)
{
    const char *metric = in->metric_names[go->metric];
    const int mtype = in->metric_types[go->metric], ascending = go->ascending;
    rep_printf(o, "<h2>PnL over paths: the best %" PRId64 " by %s</h2>\n", d->n, metric);
    rep_printf(o,
               "<p class=\"note\">One row per combination, in the order of the top table (%s "
               "first, %" PRId64 " rows matched), on one PnL axis. Bar: p5 to p95 of pnl over "
               "its %" PRId64 " paths; thick tick: the median (p50); diamond: the mean; red "
               "triangle: CVaR 5%% (the mean of the worst 5%% of paths). The file stores no "
               "quartiles, so the bar is the 90%% range, not a p25..p75 box.",
               ascending ? "smallest" : "largest", d->matched, d->paths);
    if (d->hist)
        rep_printf(o,
                   " Above it: the histogram of the combination's paths (/paths) in %d bins of "
                   "equal width from the smallest to the largest path pnl of these rows, each "
                   "scaled to its own tallest bin.",
                   REP_DIST_BINS);
    else if (in->has_paths)
        rep_printf(o, " No histograms: no path of these rows has a finite pnl.");
    else
        rep_printf(o, " No histograms: the sweep did not keep its paths (sweep --keep-paths).");
    rep_printf(o, " Right: P(loss), the share of paths with pnl &lt; 0. Hover a row for its "
                  "parameters and values.</p>\n");
    if (d->n == 0) {
        rep_printf(o, "<p>No row matched.</p>\n");
        return;
    }
    /* The drawn range: the histograms' or the marked values', padded. */
    double alo = d->lo, ahi = d->hi;
    if (!(alo < ahi)) {
        double c = alo <= ahi ? alo : 0, pad = fabs(c) * 0.01 + 1;
        alo = c - pad;
        ahi = c + pad;
    }
    double pad = (ahi - alo) * 0.03;
    alo -= pad;
    ahi += pad;
    const double pw = W - ML - MR;
    const int32_t H = MT + (int32_t)d->n * RH + AXIS, y1 = MT + (int32_t)d->n * RH;
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"dist\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-rows=\"%" PRId64
               "\" data-x0=\"%d\" data-pw=\"%d\" data-alo=\"%.17g\" data-ahi=\"%.17g\"",
               W, H, W, H, d->n, ML, W - ML - MR, alo, ahi);
    if (d->hist)
        rep_printf(o, " data-bins=\"%d\" data-lo=\"%.17g\" data-hi=\"%.17g\"", REP_DIST_BINS, d->lo,
                   d->hi);
    rep_printf(o, ">\n");
    pnl_axis(o, alo, ahi, MT, y1);
#define X(v) (ML + ((v)-alo) / (ahi - alo) * pw)
    for (int64_t i = 0; i < d->n; i++) {
        const rep_dist_row *row = &d->rows[i];
        const double *v = row->v;
        int32_t y0 = MT + (int32_t)i * RH, yb = y0 + (d->hist ? 38 : RH / 2);
        rep_printf(o,
                   "<g class=\"dist\" data-rank=\"%" PRId64 "\" data-id=\"%" PRId64
                   "\" data-mean=\"%.17g\" data-p5=\"%.17g\" data-p50=\"%.17g\" "
                   "data-p95=\"%.17g\" data-cvar5=\"%.17g\">",
                   i + 1, row->id, v[REP_DIST_MEAN], v[REP_DIST_P5], v[REP_DIST_P50],
                   v[REP_DIST_P95], v[REP_DIST_CVAR5]);
        row_title(o, in, d, i, metric, mtype);
        rep_printf(o,
                   "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                   "fill-opacity=\"0.6\"/>\n",
                   y0, W, RH, i % 2 ? "#ffffff" : "#f3f6fa");
        if (d->hist) hist_path(o, d, row, alo, ahi, y0 + 30, 26);
        if (isfinite(v[REP_DIST_P5]) && isfinite(v[REP_DIST_P95]))
            rep_printf(o,
                       "<rect class=\"box\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"10\" "
                       "fill=\"#cfd8e3\" stroke=\"#34495e\"/>",
                       X(v[REP_DIST_P5]), yb - 5, X(v[REP_DIST_P95]) - X(v[REP_DIST_P5]));
        if (isfinite(v[REP_DIST_P50]))
            rep_printf(o,
                       "<line class=\"p50\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%d\" y2=\"%d\" "
                       "stroke=\"#111\" stroke-width=\"3\"/>",
                       X(v[REP_DIST_P50]), X(v[REP_DIST_P50]), yb - 8, yb + 8);
        if (isfinite(v[REP_DIST_MEAN]))
            rep_printf(o,
                       "<path class=\"mean\" d=\"M%.2f %dl5 5l-5 5l-5 -5z\" fill=\"#f39c12\" "
                       "stroke=\"#111\"/>",
                       X(v[REP_DIST_MEAN]), yb - 5);
        if (isfinite(v[REP_DIST_CVAR5]))
            rep_printf(o, "<path class=\"cvar\" d=\"M%.2f %dl-4 7h8z\" fill=\"#c0392b\"/>",
                       X(v[REP_DIST_CVAR5]), yb + 6);
        char p[2048], pl[64];
        rep_params_text(in, &d->idx[(size_t)i * (size_t)(in->n_axes > 0 ? in->n_axes : 1)], 0, p,
                        sizeof p, 44);
        rep_printf(o,
                   "\n<text class=\"lbl\" x=\"6\" y=\"%d\">#%" PRId64 " id %" PRId64
                   "</text><text x=\"6\" y=\"%d\">",
                   y0 + 20, i + 1, row->id, y0 + 38);
        rep_esc(o, p);
        rep_num(v[REP_DIST_PLOSS] * 100, pl, sizeof pl);
        rep_printf(o, "</text><text x=\"%d\" y=\"%d\">P(loss) %s%%</text></g>\n", W - MR + 10,
                   yb + 4, pl);
    }
#undef X
    rep_printf(o, "</svg>\n");
}
