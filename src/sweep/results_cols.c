/* The columns of the results table: the metric columns, markout horizon names, and the packed row
 * layout (id, axes, metrics) with its HDF5 compound type. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "results_int.h"

static const struct {
    const char *name;
    int type;
} METRICS[MM_RESULTS_METRICS] = {
    {"pnl", MM_COL_F64},
    {"fees", MM_COL_F64},
    {"volume", MM_COL_I64},
    {"fills_bid", MM_COL_I64},
    {"fills_ask", MM_COL_I64},
    {"orders", MM_COL_I64},
    {"cancels", MM_COL_I64},
    {"rejects", MM_COL_I64},
    {"final_q", MM_COL_I64},
    {"max_abs_q", MM_COL_I64},
    {"mean_abs_q", MM_COL_F64},
    {"sharpe", MM_COL_F64},
    {"max_drawdown", MM_COL_F64},
    {"pnl_close", MM_COL_F64},
    {"held", MM_COL_I64},
    {"orders_per_s", MM_COL_F64},
    {"cancels_per_s", MM_COL_F64},
    {"rejects_per_s", MM_COL_F64},
    {NULL, MM_COL_F64},
    {NULL, MM_COL_F64},
    {NULL, MM_COL_F64},
    {"pnl_spread", MM_COL_F64},
    {"pnl_inventory", MM_COL_F64},
};
/* The first markout column (markout_<h0>). */
#define MARKOUT0 18

void mm_results_horizon_name(int64_t ns, char *buf, size_t cap)
{
    static const struct {
        int64_t div;
        const char *unit;
    } U[] = {{INT64_C(1000000000), "s"}, {1000000, "ms"}, {1000, "us"}};
    for (int i = 0; i < 3; i++) {
        if (ns != 0 && ns % U[i].div == 0) {
            snprintf(buf, cap, "%" PRId64 "%s", ns / U[i].div, U[i].unit);
            return;
        }
    }
    snprintf(buf, cap, "%" PRId64 "ns", ns);
}

int mm_results_metric(int i, const int64_t markout_ns[MM_MARKOUTS], char *name, size_t cap)
{
    if (i < 0 || i >= MM_RESULTS_METRICS) return -EINVAL;
    if (name && cap) {
        if (METRICS[i].name) {
            snprintf(name, cap, "%s", METRICS[i].name);
        } else {
            char h[32];
            mm_results_horizon_name(markout_ns[i - MARKOUT0], h, sizeof h);
            snprintf(name, cap, "markout_%s", h);
        }
    }
    return METRICS[i].type;
}

void *mm__metric_ptr(mm_metrics *m, int i)
{
    switch (i) {
    case 0:
        return &m->pnl;
    case 1:
        return &m->fees;
    case 2:
        return &m->volume;
    case 3:
        return &m->fills_bid;
    case 4:
        return &m->fills_ask;
    case 5:
        return &m->orders;
    case 6:
        return &m->cancels;
    case 7:
        return &m->rejects;
    case 8:
        return &m->final_q;
    case 9:
        return &m->max_abs_q;
    case 10:
        return &m->mean_abs_q;
    case 11:
        return &m->sharpe;
    case 12:
        return &m->max_drawdown;
    case 13:
        return &m->pnl_close;
    case 14:
        return &m->held;
    case 15:
        return &m->orders_per_s;
    case 16:
        return &m->cancels_per_s;
    case 17:
        return &m->rejects_per_s;
    case 18:
    case 19:
    case 20:
        return &m->markout[i - MARKOUT0];
    case 21:
        return &m->pnl_spread;
    case 22:
        return &m->pnl_inventory;
    default:
        return NULL;
    }
}

int mm_results_metric_value(const mm_metrics *m, int i, double *f64, int64_t *i64)
{
    const void *p = mm__metric_ptr((mm_metrics *)m, i);
    if (!p) return -EINVAL;
    if (METRICS[i].type == MM_COL_I64)
        *i64 = *(const int64_t *)p;
    else
        *f64 = *(const double *)p;
    return METRICS[i].type;
}

/* The Monte Carlo summary columns (docs/results.md, "Monte Carlo"): for each per-run metric b of
 * the first MM__RESULTS_METRICS_V1 in column order, b_mean and b_std; then pnl_p5 pnl_p50 pnl_p95
 * pnl_cvar5, the same four of pnl_close, and p_loss, p_loss_close; then b_mean and b_std of the
 * metrics added since (pnl_spread, pnl_inventory), so that a table written before them is a prefix
 * of today's. */
#define SUM_MOMENTS (2 * MM__RESULTS_METRICS_V1)
#define SUM_LATER (SUM_MOMENTS + 10)
static const char *const QUANT[4] = {"p5", "p50", "p95", "cvar5"};

/* The per-run metric whose mean (*std = 0) or standard deviation (1) is summary column i, or -1
 * for a quantile or p_loss column. */
static int summary_moment(int i, int *std)
{
    *std = i % 2;
    if (i < SUM_MOMENTS) return i / 2;
    if (i < SUM_LATER) return -1;
    return MM__RESULTS_METRICS_V1 + (i - SUM_LATER) / 2;
}

int mm_results_summary_metric(int i, const int64_t markout_ns[MM_MARKOUTS], char *name, size_t cap)
{
    if (i < 0 || i >= MM_RESULTS_SUMMARY_METRICS) return -EINVAL;
    if (name && cap) {
        char b[48];
        int std, mb = summary_moment(i, &std);
        if (mb >= 0) {
            mm_results_metric(mb, markout_ns, b, sizeof b);
            snprintf(name, cap, "%s_%s", b, std ? "std" : "mean");
        } else if (i < SUM_MOMENTS + 8) {
            int k = i - SUM_MOMENTS;
            snprintf(name, cap, "%s_%s", k < 4 ? "pnl" : "pnl_close", QUANT[k % 4]);
        } else {
            snprintf(name, cap, i == SUM_MOMENTS + 8 ? "p_loss" : "p_loss_close");
        }
    }
    return MM_COL_F64;
}

void mm_results_summarize(const mm_metrics *paths, int64_t n, double *out, double *scratch)
{
    for (int b = 0; b < MM_RESULTS_METRICS; b++) {
        double sum = 0, ss = 0;
        for (int64_t p = 0; p < n; p++) {
            double f;
            int64_t i;
            if (mm_results_metric_value(&paths[p], b, &f, &i) == MM_COL_I64) f = (double)i;
            scratch[p] = f;
            sum += f;
        }
        double mean = sum / (double)n;
        for (int64_t p = 0; p < n; p++)
            ss += (scratch[p] - mean) * (scratch[p] - mean);
        int at = b < MM__RESULTS_METRICS_V1 ? 2 * b : SUM_LATER + 2 * (b - MM__RESULTS_METRICS_V1);
        out[at] = mean;
        out[at + 1] = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    }
    int64_t k = (n + 19) / 20; /* ceil(n / 20): the worst 5% of the paths, at least one */
    for (int w = 0; w < 2; w++) {
        int64_t loss = 0;
        for (int64_t p = 0; p < n; p++) {
            scratch[p] = w ? paths[p].pnl_close : paths[p].pnl;
            loss += scratch[p] < 0;
        }
        qsort(scratch, (size_t)n, sizeof *scratch, mm__cmp_f64);
        double *o = out + SUM_MOMENTS + 4 * w, tail = 0;
        o[0] = mm__quantile(scratch, n, 0.05);
        o[1] = mm__quantile(scratch, n, 0.5);
        o[2] = mm__quantile(scratch, n, 0.95);
        for (int64_t p = 0; p < k; p++)
            tail += scratch[p];
        o[3] = tail / (double)k;
        out[SUM_MOMENTS + 8 + w] = (double)loss / (double)n;
    }
}

int mm__rlayout_init(mm__rlayout *l, int32_t n_axes, const char *const *keys, const int *types,
                     const int64_t markout_ns[MM_MARKOUTS], int summary, int v1)
{
    l->summary = summary;
    l->n_metrics = summary ? (v1 ? SUM_LATER : MM_RESULTS_SUMMARY_METRICS)
                           : (v1 ? MM__RESULTS_METRICS_V1 : MM_RESULTS_METRICS);
    l->n_cols = 1 + n_axes + l->n_metrics;
    l->cols = calloc((size_t)l->n_cols, sizeof *l->cols);
    if (!l->cols) return -ENOMEM;
    size_t off = 0;
    for (int c = 0; c < l->n_cols; c++) {
        mm__rcol *col = &l->cols[c];
        col->axis = col->metric = -1;
        if (c == 0) {
            snprintf(col->name, sizeof col->name, "id");
            col->type = MM_COL_I64;
        } else if (c <= n_axes) {
            col->axis = c - 1;
            snprintf(col->name, sizeof col->name, "%s", keys[c - 1]);
            col->type = types[c - 1];
        } else {
            col->metric = c - 1 - n_axes;
            col->type =
                summary ? mm_results_summary_metric(col->metric, markout_ns, col->name,
                                                    sizeof col->name)
                        : mm_results_metric(col->metric, markout_ns, col->name, sizeof col->name);
        }
        col->size = col->type == MM_COL_ENUM ? 4 : 8;
        col->off = off;
        off += (size_t)col->size;
    }
    l->row_bytes = off;
    return 0;
}

void mm__rlayout_free(mm__rlayout *l)
{
    free(l->cols);
    l->cols = NULL;
    l->n_cols = 0;
}

int mm__rlayout_find(const mm__rlayout *l, const char *name)
{
    for (int c = 0; c < l->n_cols; c++)
        if (!strcmp(l->cols[c].name, name)) return c;
    return -1;
}

hid_t mm__rlayout_h5type(const mm__rlayout *l)
{
    return mm__rlayout_h5type_enums(l, NULL);
}

hid_t mm__rlayout_h5type_enums(const mm__rlayout *l, const hid_t *enums)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, l->row_bytes);
    if (t < 0) return -1;
    for (int c = 0; c < l->n_cols; c++) {
        const mm__rcol *col = &l->cols[c];
        hid_t m = col->type == MM_COL_F64   ? H5T_IEEE_F64LE
                  : col->type == MM_COL_I64 ? H5T_STD_I64LE
                                            : H5T_STD_I32LE;
        if (col->type == MM_COL_ENUM && enums && enums[col->axis] >= 0) m = enums[col->axis];
        if (H5Tinsert(t, col->name, col->off, m) < 0) {
            H5Tclose(t);
            return -1;
        }
    }
    return t;
}
