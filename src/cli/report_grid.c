/* The heatmap's model: one metric of a results table aggregated into cells over two axes, the other
 * axes fixed by filters or folded in by the aggregation rule. One pass over the table in id order,
 * in blocks; memory is the cells plus one block of rows, whatever the table's size. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "report.h"

const char *const rep_agg_names[3] = {"max", "mean", "min"};

enum { BLOCK = 8192 };

void rep_grid_free(rep_grid *g)
{
    free(g->cells);
    free(g->best_idx);
    memset(g, 0, sizeof *g);
}

static int32_t ceil_div(int32_t a, int32_t b)
{
    return (a + b - 1) / b;
}

/* 1 when a is better than b for the cell's aggregated value (NaN is never better). */
static int better(double a, double b, int ascending)
{
    if (isnan(a)) return 0;
    if (isnan(b)) return 1;
    return ascending ? a < b : a > b;
}

static void take_row(const rep_grid_opts *o, rep_grid *g, int64_t id, const int32_t *idx,
                     mm_results_value mv, int type)
{
    int32_t i = idx[o->x] / g->bx, j = o->y >= 0 ? idx[o->y] / g->by : 0;
    size_t ci = (size_t)j * (size_t)g->nx + (size_t)i;
    rep_cell *c = &g->cells[ci];
    double v = type == MM_COL_I64 ? (double)mv.i64 : mv.f64;
    c->n++;
    if (isnan(v)) {
        c->n_nan++;
    } else {
        c->sum += v;
        if (isnan(c->v) || (o->agg == REP_AGG_MAX && v > c->v) ||
            (o->agg == REP_AGG_MIN && v < c->v))
            c->v = v;
    }
    uint64_t key = mm_results_rank_key_value(mv, type, o->ascending);
    /* Rows come in ascending id order: an equal key never replaces the best row. */
    if (c->best_id < 0 || key < c->best_key) {
        c->best_id = id;
        c->best_key = key;
        memcpy(&g->best_idx[ci * (size_t)g->n_axes], idx, (size_t)g->n_axes * sizeof *idx);
    }
}

int rep_grid_build(mm_results_reader *r, const rep_grid_opts *o, rep_grid *g, mm_error *err)
{
    const mm_results_info *in = mm_results_describe(r);
    memset(g, 0, sizeof *g);
    g->best = -1;
    if (o->x < 0 || o->x >= in->n_axes || o->y < -1 || o->y >= in->n_axes || o->x == o->y ||
        o->max_bins < 1 || o->metric < 0 || o->metric >= in->n_metrics || o->agg < 0 || o->agg > 2)
        return mm__errf(err, -EINVAL, "report: bad heatmap options");
    const mm_results_axis *ax = &in->axes[o->x], *ay = o->y >= 0 ? &in->axes[o->y] : NULL;
    g->n_axes = in->n_axes;
    g->bx = ceil_div(ax->n, o->max_bins);
    g->nx = ceil_div(ax->n, g->bx);
    g->by = ay ? ceil_div(ay->n, o->max_bins) : 1;
    g->ny = ay ? ceil_div(ay->n, g->by) : 1;
    size_t nc = (size_t)g->nx * (size_t)g->ny, na = (size_t)(in->n_axes > 0 ? in->n_axes : 1);
    g->cells = calloc(nc, sizeof *g->cells);
    g->best_idx = calloc(nc * na, sizeof *g->best_idx);
    int32_t *idx = malloc((size_t)BLOCK * na * sizeof *idx);
    const size_t nm = (size_t)in->n_metrics;
    mm_results_value *m = malloc((size_t)BLOCK * nm * sizeof *m);
    int rc = 0;
    if (!g->cells || !g->best_idx || !idx || !m) {
        rc = mm__errf(err, -ENOMEM, "report: out of memory");
        goto out;
    }
    for (size_t c = 0; c < nc; c++) {
        g->cells[c].v = NAN;
        g->cells[c].best_id = -1;
    }
    for (int64_t first = 0; first < in->n_rows; first += BLOCK) {
        int64_t n = in->n_rows - first < BLOCK ? in->n_rows - first : BLOCK;
        rc = mm_results_read_values(r, first, n, idx, m, err);
        if (rc) goto out;
        for (int64_t k = 0; k < n; k++) {
            const int32_t *ri = &idx[(size_t)k * na];
            int ok = 1;
            for (int32_t f = 0; f < o->n_fix && ok; f++)
                ok = ri[o->fix[f].axis] == o->fix[f].value;
            if (!ok) continue;
            g->matched++;
            take_row(o, g, first + k, ri, m[(size_t)k * nm + (size_t)o->metric],
                     in->metric_types[o->metric]);
        }
        g->rows += n;
    }
    g->vmin = INFINITY;
    g->vmax = -INFINITY;
    for (size_t c = 0; c < nc; c++) {
        rep_cell *cl = &g->cells[c];
        if (o->agg == REP_AGG_MEAN && cl->n > cl->n_nan)
            cl->v = cl->sum / (double)(cl->n - cl->n_nan);
        if (isnan(cl->v)) continue;
        if (cl->v < g->vmin) g->vmin = cl->v;
        if (cl->v > g->vmax) g->vmax = cl->v;
        if (g->best < 0 || better(cl->v, g->cells[g->best].v, o->ascending)) g->best = (int64_t)c;
    }
out:
    free(idx);
    free(m);
    if (rc) rep_grid_free(g);
    return rc;
}
