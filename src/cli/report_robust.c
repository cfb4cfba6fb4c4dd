/* The robustness view of a Monte Carlo report (docs/report.md, "Monte Carlo views"): every
 * combination's mean PnL over its paths (x) against its 5th percentile (y). Up to max_points rows
 * are drawn as one point each; more are counted into a REP_ROBUST_GRID x REP_ROBUST_GRID density
 * grid whose cells keep their best row, so the page is bounded by the grid, not the table. Two
 * passes over the table in id order, in blocks: the extent, then the points or the counts. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "report.h"

enum { BLOCK = 8192, G = REP_ROBUST_GRID };

void rep_robust_free(rep_robust *rb)
{
    free(rb->ids);
    free(rb->xyv);
    free(rb->idx);
    free(rb->count);
    free(rb->best_id);
    free(rb->best_key);
    free(rb->best_xyv);
    free(rb->best_idx);
    memset(rb, 0, sizeof *rb);
}

static double as_f64(mm_results_value v, int type)
{
    return type == MM_COL_I64 ? (double)v.i64 : v.f64;
}

/* pass 0: the extent and the counts; pass 1: the points or the grid. */
static void take_block(rep_robust *rb, const rep_grid_opts *go, const mm_results_info *in, int pass,
                       int64_t first, int64_t n, const int32_t *idx, const mm_results_value *m)
{
    const size_t na = (size_t)(in->n_axes > 0 ? in->n_axes : 1), nm = (size_t)in->n_metrics;
    for (int64_t k = 0; k < n; k++) {
        const int32_t *ri = &idx[(size_t)k * na];
        int ok = 1;
        for (int32_t f = 0; f < go->n_fix && ok; f++)
            ok = ri[go->fix[f].axis] == go->fix[f].value;
        if (!ok) continue;
        const mm_results_value *row = &m[(size_t)k * nm];
        double x = row[rb->xcol].f64, y = row[rb->ycol].f64;
        double v = as_f64(row[go->metric], in->metric_types[go->metric]);
        int finite = isfinite(x) && isfinite(y);
        if (pass == 0) {
            rb->matched++;
            if (!finite) {
                rb->n_skip++;
                continue;
            }
            rb->xlo = fmin(rb->xlo, x);
            rb->xhi = fmax(rb->xhi, x);
            rb->ylo = fmin(rb->ylo, y);
            rb->yhi = fmax(rb->yhi, y);
        } else if (finite && !rb->dense) {
            int64_t p = rb->np++;
            rb->ids[p] = first + k;
            rb->xyv[3 * p] = x;
            rb->xyv[3 * p + 1] = y;
            rb->xyv[3 * p + 2] = v;
            memcpy(&rb->idx[(size_t)p * na], ri, na * sizeof *ri);
        } else if (finite) {
            int32_t i = rep_hist_bin(x, rb->xlo, rb->xhi, G),
                    j = rep_hist_bin(y, rb->ylo, rb->yhi, G);
            assert(i >= 0 && j >= 0);
            size_t c = (size_t)j * G + (size_t)i;
            uint64_t key = mm_results_rank_key_value(row[go->metric], in->metric_types[go->metric],
                                                     go->ascending);
            /* Rows come in ascending id order: an equal key never replaces the best row. */
            if (rb->count[c]++ == 0 || key < rb->best_key[c]) {
                rb->best_id[c] = first + k;
                rb->best_key[c] = key;
                rb->best_xyv[3 * c] = x;
                rb->best_xyv[3 * c + 1] = y;
                rb->best_xyv[3 * c + 2] = v;
                memcpy(&rb->best_idx[c * na], ri, na * sizeof *ri);
            }
        }
    }
}

int rep_robust_build(mm_results_reader *r, const rep_grid_opts *go, int64_t max_points,
                     rep_robust *rb, mm_error *err)
{
    const mm_results_info *in = mm_results_describe(r);
    memset(rb, 0, sizeof *rb);
    rb->xcol = mm_results_column_find(in, "pnl_mean");
    rb->ycol = mm_results_column_find(in, "pnl_p5");
    if (rb->xcol < 0 || rb->ycol < 0 || in->metric_types[rb->xcol] != MM_COL_F64 ||
        in->metric_types[rb->ycol] != MM_COL_F64)
        return mm__errf(err, MM_EFORMAT,
                        "report: the Monte Carlo table has no pnl_mean or pnl_p5 column");
    rb->n_axes = in->n_axes;
    rb->xlo = rb->ylo = INFINITY;
    rb->xhi = rb->yhi = -INFINITY;
    const size_t na = (size_t)(in->n_axes > 0 ? in->n_axes : 1), nm = (size_t)in->n_metrics;
    int32_t *idx = malloc((size_t)BLOCK * na * sizeof *idx);
    mm_results_value *m = malloc((size_t)BLOCK * nm * sizeof *m);
    int rc = 0;
    if (!idx || !m) goto nomem;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            int64_t np = rb->matched - rb->n_skip;
            if (np == 0) break;
            rb->dense = np > max_points;
            if (rb->dense) {
                if (rb->xlo == rb->xhi) { /* one value: numpy's range for it */
                    rb->xlo -= 0.5;
                    rb->xhi += 0.5;
                }
                if (rb->ylo == rb->yhi) {
                    rb->ylo -= 0.5;
                    rb->yhi += 0.5;
                }
                rb->count = calloc((size_t)G * G, sizeof *rb->count);
                rb->best_id = calloc((size_t)G * G, sizeof *rb->best_id);
                rb->best_key = calloc((size_t)G * G, sizeof *rb->best_key);
                rb->best_xyv = calloc((size_t)G * G * 3, sizeof *rb->best_xyv);
                rb->best_idx = calloc((size_t)G * G * na, sizeof *rb->best_idx);
                if (!rb->count || !rb->best_id || !rb->best_key || !rb->best_xyv || !rb->best_idx)
                    goto nomem;
            } else {
                rb->ids = calloc((size_t)np, sizeof *rb->ids);
                rb->xyv = calloc((size_t)np * 3, sizeof *rb->xyv);
                rb->idx = calloc((size_t)np * na, sizeof *rb->idx);
                if (!rb->ids || !rb->xyv || !rb->idx) goto nomem;
            }
        }
        for (int64_t first = 0; first < in->n_rows; first += BLOCK) {
            int64_t n = in->n_rows - first < BLOCK ? in->n_rows - first : BLOCK;
            rc = mm_results_read_values(r, first, n, idx, m, err);
            if (rc) goto out;
            take_block(rb, go, in, pass, first, n, idx, m);
            if (pass == 0) rb->rows += n;
        }
    }
    goto out;
nomem:
    rc = mm__errf(err, -ENOMEM, "report: out of memory");
out:
    free(idx);
    free(m);
    if (rc) rep_robust_free(rb);
    return rc;
}

/* ---- the page ---- */

enum { ML = 96, MT = 14, PW = 560, PH = 560, MB = 58, LEG = 200 };

typedef struct view {
    double xlo, xhi, ylo, yhi; /* the drawn range */
} view;

static double vx(const view *v, double x)
{
    return ML + (x - v->xlo) / (v->xhi - v->xlo) * PW;
}

static double vy(const view *v, double y)
{
    return MT + PH - (y - v->ylo) / (v->yhi - v->ylo) * PH;
}

static void pad_range(double *lo, double *hi)
{
    if (!(*lo < *hi)) {
        double c = *lo <= *hi ? *lo : 0, p = fabs(c) * 0.01 + 1;
        *lo = c - p;
        *hi = c + p;
    }
    double p = (*hi - *lo) * 0.04;
    *lo -= p;
    *hi += p;
}

static void frame(rep_out *o, const view *v)
{
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fbfbfb\" "
               "stroke=\"#ccc\"/>\n",
               ML, MT, PW, PH);
    /* Profitable on average and on the bad paths: x > 0 and y > 0. */
    if (v->xhi > 0 && v->yhi > 0) {
        double x0 = vx(v, fmax(0, v->xlo)), y0 = vy(v, v->yhi), y1 = vy(v, fmax(0, v->ylo));
        rep_printf(o,
                   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"#e6f4ea\"/>\n",
                   x0, y0, ML + PW - x0, y1 - y0);
    }
    for (int ax = 0; ax < 2; ax++) {
        double lo = ax ? v->ylo : v->xlo, hi = ax ? v->yhi : v->xhi, st = rep_nice_step(hi - lo, 7);
        for (double t = ceil(lo / st) * st; t <= hi; t += st) {
            char s[64];
            int zero = fabs(t) < st * 1e-9;
            rep_num(zero ? 0 : t, s, sizeof s);
            const char *col = zero ? "#888" : "#e4e4e4";
            if (ax)
                rep_printf(o,
                           "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                           "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                           "dominant-baseline=\"middle\">%s</text>\n",
                           ML, ML + PW, vy(v, t), vy(v, t), col, ML - 6, vy(v, t), s);
            else
                rep_printf(o,
                           "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
                           "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                           vx(v, t), vx(v, t), MT, MT + PH, col, vx(v, t), MT + PH + 16, s);
        }
    }
    /* p5 = mean: a distribution of no width; every point lies on or below it. */
    double t0 = fmax(v->xlo, v->ylo), t1 = fmin(v->xhi, v->yhi);
    if (t0 < t1)
        rep_printf(o,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
                   "stroke-dasharray=\"5 4\"/>\n",
                   vx(v, t0), vy(v, t0), vx(v, t1), vy(v, t1));
    rep_printf(o,
               "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">pnl_mean: mean "
               "pnl over the paths (money)</text>\n<text class=\"lbl\" x=\"16\" y=\"%d\" "
               "text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">pnl_p5: 5th percentile "
               "of pnl (money)</text>\n",
               ML + PW / 2, MT + PH + 40, MT + PH / 2, MT + PH / 2);
}

/* "id N: params&#10;pnl_mean = x, pnl_p5 = y[, metric = v]" */
static void point_title(rep_out *o, const mm_results_info *in, const rep_grid_opts *go, int64_t id,
                        const int32_t *idx, const double *xyv, const char *lead)
{
    char p[2048], a[64], b[64];
    rep_params_text(in, idx, 1, p, sizeof p, 0);
    rep_printf(o, "<title>%sid %" PRId64 ": ", lead, id);
    rep_esc(o, p);
    rep_num(xyv[0], a, sizeof a);
    rep_num(xyv[1], b, sizeof b);
    rep_printf(o, "&#10;pnl_mean = %s, pnl_p5 = %s", a, b);
    const char *mn = in->metric_names[go->metric];
    if (strcmp(mn, "pnl_mean") && strcmp(mn, "pnl_p5")) {
        rep_num(xyv[2], a, sizeof a);
        rep_printf(o, ", %s = %s", mn, a);
    }
    rep_printf(o, "</title>");
}

static void cells(rep_out *o, const mm_results_info *in, const rep_grid_opts *go,
                  const rep_robust *rb, const view *v)
{
    const size_t na = (size_t)(in->n_axes > 0 ? in->n_axes : 1);
    const double sx = (rb->xhi - rb->xlo) / G, sy = (rb->yhi - rb->ylo) / G;
    int64_t top = 0;
    for (size_t c = 0; c < (size_t)G * G; c++)
        top = rb->count[c] > top ? rb->count[c] : top;
    for (int32_t j = 0; j < G; j++)
        for (int32_t i = 0; i < G; i++) {
            size_t c = (size_t)j * G + (size_t)i;
            if (!rb->count[c]) continue;
            /* The cell's edges, as numpy's linspace has them. */
            double x0 = i * sx + rb->xlo, x1 = i + 1 == G ? rb->xhi : (i + 1) * sx + rb->xlo;
            double y0 = j * sy + rb->ylo, y1 = j + 1 == G ? rb->yhi : (j + 1) * sy + rb->ylo;
            char col[8], a[32], b[32], e[32], f[32], lead[512];
            rep_color(0.15 + 0.85 * log1p((double)rb->count[c]) / log1p((double)top), 1, col);
            rep_printf(o,
                       "<rect class=\"dens\" data-i=\"%d\" data-j=\"%d\" data-n=\"%" PRId64
                       "\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">",
                       i, j, rb->count[c], vx(v, x0), vy(v, y1), vx(v, x1) - vx(v, x0),
                       vy(v, y0) - vy(v, y1), col);
            rep_num(x0, a, sizeof a);
            rep_num(x1, b, sizeof b);
            rep_num(y0, e, sizeof e);
            rep_num(y1, f, sizeof f);
            snprintf(
                lead, sizeof lead,
                "pnl_mean %s..%s, pnl_p5 %s..%s: %" PRId64 " combination%s&#10;best by %s: ", a, b,
                e, f, rb->count[c], rb->count[c] == 1 ? "" : "s", in->metric_names[go->metric]);
            point_title(o, in, go, rb->best_id[c], &rb->best_idx[c * na], &rb->best_xyv[3 * c],
                        lead);
            rep_printf(o, "</rect>\n");
        }
    /* The colour scale: 1 to the largest count, logarithmic. */
    enum { STEPS = 24, BAR = 18, LH = 200 };
    const int32_t x0 = ML + PW + 30;
    for (int k = 0; k < STEPS; k++) {
        double n = exp(log1p((double)top) * (STEPS - k - 0.5) / STEPS) - 1;
        char col[8];
        rep_color(0.15 + 0.85 * log1p(n) / log1p((double)top), 1, col);
        rep_printf(o, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"/>", x0,
                   MT + (double)LH * k / STEPS, BAR, (double)LH / STEPS + 0.3, col);
    }
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#888\"/>\n<text x=\"%d\" y=\"%d\">%" PRId64 "</text><text x=\"%d\" "
               "y=\"%d\">1</text><text x=\"%d\" y=\"%d\">combinations per cell</text>\n",
               x0, MT, BAR, LH, x0 + BAR + 5, MT + 10, top, x0 + BAR + 5, MT + LH, x0,
               MT + LH + 20);
}

void rep_robust_section(rep_out *o, const mm_results_info *in, const rep_robust *rb,
                        const rep_dist *top, const rep_grid_opts *go)
{
    const size_t na = (size_t)(in->n_axes > 0 ? in->n_axes : 1);
    const int64_t drawn = rb->matched - rb->n_skip;
    rep_printf(o, "<h2>Robustness: mean PnL against its 5th percentile</h2>\n<p class=\"note\">");
    if (rb->dense)
        rep_printf(o,
                   "%" PRId64 " combinations, more than --scatter draws one by one: each cell of "
                   "a %d x %d grid over their extent is coloured by the number of combinations "
                   "in it (logarithmic); hover a cell for its count and its best row by %s.",
                   drawn, G, G, in->metric_names[go->metric]);
    else
        rep_printf(o,
                   "One point per combination (%" PRId64 "); hover a point for its parameters "
                   "and values.",
                   drawn);
    if (rb->matched < rb->rows)
        rep_printf(o, " Only the %" PRId64 " of %" PRId64 " rows that --fix keeps.", rb->matched,
                   rb->rows);
    if (rb->n_skip)
        rep_printf(o, " Not drawn: %" PRId64 " rows whose pnl_mean or pnl_p5 is not finite.",
                   rb->n_skip);
    rep_printf(o,
               " Right: profitable on average; up: profitable on the bad paths too (green: "
               "both above zero, 95%% of paths profitable). Dashed: p5 = mean, a distribution "
               "of no width; the further below it, the wider the spread of the paths.%s</p>\n",
               top && top->n ? " Numbered: the rows of the distribution view above." : "");
    if (drawn == 0) {
        rep_printf(o, "<p>No row to draw.</p>\n");
        return;
    }
    view v = {rb->xlo, rb->xhi, rb->ylo, rb->yhi};
    pad_range(&v.xlo, &v.xhi);
    pad_range(&v.ylo, &v.yhi);
    const int32_t W = ML + PW + LEG, H = MT + PH + MB;
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"robust\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-rows=\"%" PRId64
               "\" data-matched=\"%" PRId64 "\" data-skip=\"%" PRId64 "\" data-dense=\"%d\"",
               W, H, W, H, rb->rows, rb->matched, rb->n_skip, rb->dense);
    if (rb->dense)
        rep_printf(o,
                   " data-grid=\"%d\" data-xlo=\"%.17g\" data-xhi=\"%.17g\" data-ylo=\"%.17g\" "
                   "data-yhi=\"%.17g\"",
                   G, rb->xlo, rb->xhi, rb->ylo, rb->yhi);
    rep_printf(o, ">\n<style>circle.pt:hover,rect.dens:hover,g.top:hover circle{stroke:#000;"
                  "stroke-width:2}</style>\n");
    frame(o, &v);
    if (rb->dense) cells(o, in, go, rb, &v);
    for (int64_t p = 0; !rb->dense && p < rb->np; p++) {
        rep_printf(o,
                   "<circle class=\"pt\" data-id=\"%" PRId64 "\" cx=\"%.2f\" cy=\"%.2f\" "
                   "r=\"3.5\" fill=\"#2166ac\" fill-opacity=\"0.6\">",
                   rb->ids[p], vx(&v, rb->xyv[3 * p]), vy(&v, rb->xyv[3 * p + 1]));
        point_title(o, in, go, rb->ids[p], &rb->idx[(size_t)p * na], &rb->xyv[3 * p], "");
        rep_printf(o, "</circle>\n");
    }
    for (int64_t i = 0; top && i < top->n; i++) {
        const rep_dist_row *row = &top->rows[i];
        double xyv[3] = {row->v[REP_DIST_MEAN], row->v[REP_DIST_P5],
                         in->metric_types[go->metric] == MM_COL_I64 ? (double)row->rank.i64
                                                                    : row->rank.f64};
        if (!isfinite(xyv[0]) || !isfinite(xyv[1])) continue;
        double x = vx(&v, xyv[0]), y = vy(&v, xyv[1]);
        char lead[32];
        snprintf(lead, sizeof lead, "#%" PRId64 " ", i + 1);
        rep_printf(o,
                   "<g class=\"top\" data-rank=\"%" PRId64 "\" data-id=\"%" PRId64 "\">"
                   "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"7\" fill=\"#f39c12\" stroke=\"#111\"/>"
                   "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" "
                   "dominant-baseline=\"central\" style=\"font-size:9px;font-weight:700\">%" PRId64
                   "</text>",
                   i + 1, row->id, x, y, x, y, i + 1);
        point_title(o, in, go, row->id, &top->idx[(size_t)i * na], xyv, lead);
        rep_printf(o, "</g>\n");
    }
    rep_printf(o, "</svg>\n");
}
