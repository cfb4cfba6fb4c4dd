/* Queries on a results file (docs/results.md, "Queries"): metric and axis lookups by name, the text
 * of an axis value, and the best k rows by one metric column, ranked by the keys of the objective
 * index (results_index.c), so that `mmsim show`, a report and the stored index can never disagree.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "results_int.h"

int mm_results_metric_find(const char *name, const int64_t markout_ns[MM_MARKOUTS])
{
    char n[32];
    if (!name) return MM_ENOTFOUND;
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        mm_results_metric(i, markout_ns, n, sizeof n);
        if (!strcmp(n, name)) return i;
    }
    return MM_ENOTFOUND;
}

void mm_results_metric_list(const int64_t markout_ns[MM_MARKOUTS], char *buf, size_t cap)
{
    size_t len = 0;
    if (!buf || !cap) return;
    buf[0] = 0;
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        char n[32];
        mm_results_metric(i, markout_ns, n, sizeof n);
        int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", n);
        if (w < 0 || (size_t)w >= cap - len) {
            buf[len] = 0; /* only whole names */
            return;
        }
        len += (size_t)w;
    }
}

int mm_results_column_find(const mm_results_info *info, const char *name)
{
    if (!info || !name) return MM_ENOTFOUND;
    for (int i = 0; i < info->n_metrics; i++)
        if (!strcmp(info->metric_names[i], name)) return i;
    if (info->paths > 1 && strlen(name) < MM_RESULTS_NAME_MAX - 5) {
        char mean[MM_RESULTS_NAME_MAX];
        snprintf(mean, sizeof mean, "%s_mean", name);
        for (int i = 0; i < info->n_metrics; i++)
            if (!strcmp(info->metric_names[i], mean)) return i;
    }
    return MM_ENOTFOUND;
}

void mm_results_column_list(const mm_results_info *info, char *buf, size_t cap)
{
    size_t len = 0;
    if (!buf || !cap) return;
    buf[0] = 0;
    for (int i = 0; info && i < info->n_metrics; i++) {
        int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", info->metric_names[i]);
        if (w < 0 || (size_t)w >= cap - len) {
            buf[len] = 0;
            return;
        }
        len += (size_t)w;
    }
}

int mm_results_axis_find(const mm_results_info *info, const char *key)
{
    if (!info || !key) return MM_ENOTFOUND;
    for (int a = 0; a < info->n_axes; a++)
        if (!strcmp(info->axes[a].key, key)) return a;
    return MM_ENOTFOUND;
}

int mm_results_axis_value(const mm_results_axis *a, const char *text, int32_t *idx)
{
    char *end;
    if (!a || !text || !idx) return MM_ENOTFOUND;
    if (a->type == MM_COL_ENUM) {
        for (int32_t k = 0; k < a->n; k++)
            if (!strcmp(a->names[k], text)) return *idx = k, 0;
        return MM_ENOTFOUND;
    }
    errno = 0;
    if (a->type == MM_COL_I64) {
        if (!mm__is_decimal(text, 1)) return MM_ENOTFOUND;
        long long v = strtoll(text, &end, 10);
        if (*end || errno) return MM_ENOTFOUND; /* out of range */
        for (int32_t k = 0; k < a->n; k++)
            if (a->i64[k] == v) return *idx = k, 0;
        return MM_ENOTFOUND;
    }
    if (a->type != MM_COL_F64 || !mm__is_decimal(text, 0)) return MM_ENOTFOUND;
    double v = strtod(text, &end);
    if (*end || errno || !isfinite(v)) return MM_ENOTFOUND; /* "1e999" overflows */
    int32_t near = -1, n_near = 0;
    for (int32_t k = 0; k < a->n; k++) {
        if (a->f64[k] == v) return *idx = k, 0;
        if (fabs(a->f64[k] - v) <= 1e-9 * fmax(fabs(v), fabs(a->f64[k]))) {
            near = k;
            n_near++;
        }
    }
    if (n_near != 1) return MM_ENOTFOUND; /* none, or ambiguous */
    *idx = near;
    return 0;
}

void mm_results_axis_format(const mm_results_axis *a, int32_t k, char *buf, size_t cap)
{
    if (!buf || !cap) return;
    if (!a || k < 0 || k >= a->n) {
        buf[0] = 0;
        return;
    }
    if (a->type == MM_COL_F64) {
        char t[32];
        snprintf(buf, cap, "%s", mm__fmt_shortest(a->f64[k], t, sizeof t));
    } else if (a->type == MM_COL_I64) {
        snprintf(buf, cap, "%" PRId64, a->i64[k]);
    } else {
        snprintf(buf, cap, "%s", a->names[k]);
    }
}

uint64_t mm_results_rank_key(const mm_metrics *m, int metric, int ascending)
{
    mm_results_value v = {0};
    int t = m ? mm_results_metric_value(m, metric, &v.f64, &v.i64) : -EINVAL;
    return mm_results_rank_key_value(v, t, ascending);
}

uint64_t mm_results_rank_key_value(mm_results_value v, int t, int ascending)
{
    if (t == MM_COL_I64) {
        uint64_t desc = mm__index_key_i64(v.i64);
        return ascending ? ~desc : desc;
    }
    if (t != MM_COL_F64) return UINT64_MAX;
    double f = v.f64;
    /* NaN is UINT64_MAX (last) in both directions. Every other value maps strictly inside (0,
     * UINT64_MAX) (results_index.c), so its complement is the reverse order and still ranks before
     * NaN. */
    uint64_t desc = mm__index_key_f64(f);
    return ascending && !isnan(f) ? ~desc : desc;
}

/* ---- top k ---- */

/* A candidate row: its rank key, its id, and the slot of the caller's arrays that holds its axis
 * indices and metrics (slots are handed out in arrival order and reused when a row leaves the
 * heap). */
typedef struct cand {
    uint64_t key;
    int64_t id;
    int64_t slot;
} cand;

/* 1 when a ranks before b. */
static int before(const cand *a, const cand *b)
{
    return a->key != b->key ? a->key < b->key : a->id < b->id;
}

/* A max-heap of the best `cap` candidates seen: the worst of them at the top, to be replaced. */
typedef struct heap {
    cand *c;
    int64_t n, cap;
} heap;

static void swap_cand(cand *a, cand *b)
{
    cand t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(heap *h, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < h->n && before(&h->c[worst], &h->c[l])) worst = l;
        if (r < h->n && before(&h->c[worst], &h->c[r])) worst = r;
        if (worst == i) return;
        swap_cand(&h->c[i], &h->c[worst]);
        i = worst;
    }
}

static void sift_up(heap *h, int64_t i)
{
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!before(&h->c[p], &h->c[i])) return;
        swap_cand(&h->c[p], &h->c[i]);
        i = p;
    }
}

/* Slot the caller should fill with the row's data, or -1 when the row does not make the best cap.
 */
static int64_t heap_offer(heap *h, uint64_t key, int64_t id)
{
    cand c = {key, id, h->n};
    if (h->n < h->cap) {
        h->c[h->n] = c;
        sift_up(h, h->n++);
        return c.slot;
    }
    if (h->cap == 0 || !before(&c, &h->c[0])) return -1;
    c.slot = h->c[0].slot;
    h->c[0] = c;
    sift_down(h, 0);
    return c.slot;
}

/* Sort the heap best first (heap sort: the worst goes to the end, in place). */
static void heap_sort(heap *h)
{
    int64_t n = h->n;
    while (h->n > 1) {
        swap_cand(&h->c[0], &h->c[h->n - 1]);
        h->n--;
        sift_down(h, 0);
    }
    h->n = n;
}

/* Put slot c[i].slot's data at position i, for every i, in place: follow each cycle of the
 * permutation once with one row of scratch (tmp). Marks done entries with slot = -1. */
static void permute(cand *c, int64_t n, int64_t *ids, int32_t *axis_idx, size_t na,
                    mm_results_value *m, size_t nm, int32_t *tmp_idx, mm_results_value *tm)
{
    for (int64_t i = 0; i < n; i++) {
        if (c[i].slot < 0) continue;
        if (c[i].slot == i) {
            c[i].slot = -1;
            continue;
        }
        if (axis_idx) memcpy(tmp_idx, axis_idx + (size_t)i * na, na * sizeof *tmp_idx);
        if (m) memcpy(tm, m + (size_t)i * nm, nm * sizeof *tm);
        int64_t j = i;
        for (;;) {
            int64_t s = c[j].slot;
            c[j].slot = -1;
            if (s == i) {
                if (axis_idx) memcpy(axis_idx + (size_t)j * na, tmp_idx, na * sizeof *tmp_idx);
                if (m) memcpy(m + (size_t)j * nm, tm, nm * sizeof *tm);
                break;
            }
            if (axis_idx)
                memcpy(axis_idx + (size_t)j * na, axis_idx + (size_t)s * na, na * sizeof *tmp_idx);
            if (m) memcpy(m + (size_t)j * nm, m + (size_t)s * nm, nm * sizeof *tm);
            j = s;
        }
    }
    for (int64_t i = 0; i < n; i++)
        ids[i] = c[i].id;
}

int mm_results_row_idle(const mm_results_info *in, const mm_results_value *v)
{
    int b = mm_results_column_find(in, "fills_bid"), a = mm_results_column_find(in, "fills_ask");
    if (b < 0 || a < 0) return 0;
    if (in->metric_types[b] == MM_COL_I64) return v[b].i64 == 0 && v[a].i64 == 0;
    return v[b].f64 == 0 && v[a].f64 == 0;
}

/* The first k rows of the stored index that have a fill (the others set aside), when the table
 * has rows without one: the index is walked in blocks, each entry's row read. */
static int top_index_active(mm_results_reader *r, const mm_results_info *in, int64_t k,
                            int64_t *ids, int32_t *axis_idx, mm_results_value *m, mm_error *err)
{
    size_t na = (size_t)in->n_axes, nm = (size_t)in->n_metrics;
    int64_t blk = 4096, got = 0;
    int64_t *ix = malloc((size_t)blk * sizeof *ix);
    int32_t *ai = malloc((na ? na : 1) * sizeof *ai);
    mm_results_value *v = malloc(nm * sizeof *v);
    int rc = ix && ai && v ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int64_t first = 0; rc == 0 && got < k && first < in->n_rows; first += blk) {
        int64_t n = in->n_rows - first < blk ? in->n_rows - first : blk;
        rc = mm_results_read_index(r, in->meta.objective, first, n, ix, err);
        for (int64_t i = 0; rc == 0 && i < n && got < k; i++) {
            if ((rc = mm_results_read_values(r, ix[i], 1, ai, v, err))) break;
            if (mm_results_row_idle(in, v)) continue;
            ids[got] = ix[i];
            if (axis_idx) memcpy(axis_idx + (size_t)got * na, ai, na * sizeof *ai);
            if (m) memcpy(m + (size_t)got * nm, v, nm * sizeof *v);
            got++;
        }
    }
    free(ix);
    free(ai);
    free(v);
    return rc;
}

static int top_index(mm_results_reader *r, const mm_results_info *in, int64_t k, int64_t *ids,
                     int32_t *axis_idx, mm_results_value *m, mm_error *err)
{
    int rc = k ? mm_results_read_index(r, in->meta.objective, 0, k, ids, err) : 0;
    size_t na = (size_t)in->n_axes, nm = (size_t)in->n_metrics;
    for (int64_t i = 0; rc == 0 && i < k && (axis_idx || m); i++)
        rc = mm_results_read_values(r, ids[i], 1, axis_idx ? axis_idx + (size_t)i * na : NULL,
                                    m ? m + (size_t)i * nm : NULL, err);
    return rc;
}

static int cond_holds(const mm_results_info *in, const mm_results_value *m,
                      const mm_results_cond *c)
{
    double v =
        in->metric_types[c->metric] == MM_COL_I64 ? (double)m[c->metric].i64 : m[c->metric].f64;
    switch (c->op) {
    case MM_CMP_LT:
        return v < c->value;
    case MM_CMP_LE:
        return v <= c->value;
    case MM_CMP_EQ:
        return v == c->value;
    case MM_CMP_NE:
        return !(v == c->value);
    case MM_CMP_GE:
        return v >= c->value;
    default:
        return v > c->value;
    }
}

static int top_scan(mm_results_reader *r, const mm_results_info *in, const mm_results_query *q,
                    int64_t k, int64_t *ids, int32_t *axis_idx, mm_results_value *m,
                    int64_t *matched, int64_t *aside, mm_error *err)
{
    const int64_t n = in->n_rows;
    const int64_t block = n < 4096 ? (n > 0 ? n : 1) : 4096;
    const size_t na = (size_t)in->n_axes, na1 = na ? na : 1, nm = (size_t)in->n_metrics;
    int32_t *bidx = malloc((size_t)block * na1 * sizeof *bidx),
            *tmp_idx = malloc(na1 * sizeof *tmp_idx);
    mm_results_value *bm = malloc((size_t)block * nm * sizeof *bm), *tm = malloc(nm * sizeof *tm);
    heap h = {calloc((size_t)(k ? k : 1), sizeof(cand)), 0, k};
    int rc = 0;
    *matched = 0;
    if (!bidx || !tmp_idx || !bm || !tm || !h.c) {
        rc = mm__errf(err, -ENOMEM, "out of memory");
        goto out;
    }
    for (int64_t first = 0; first < n; first += block) {
        int64_t cnt = n - first < block ? n - first : block;
        if ((rc = mm_results_read_values(r, first, cnt, bidx, bm, err))) goto out;
        for (int64_t i = 0; i < cnt; i++) {
            const int32_t *ri = bidx + (size_t)i * na;
            const mm_results_value *vi = bm + (size_t)i * nm;
            int ok = 1;
            for (int32_t j = 0; j < q->n_where && ok; j++)
                ok = ri[q->where[j].axis] == q->where[j].value;
            for (int32_t j = 0; j < q->n_cond && ok; j++)
                ok = cond_holds(in, vi, &q->cond[j]);
            if (!ok) continue;
            if (!q->keep_idle && mm_results_row_idle(in, vi)) {
                ++*aside;
                continue;
            }
            ++*matched;
            uint64_t key =
                mm_results_rank_key_value(vi[q->metric], in->metric_types[q->metric], q->ascending);
            int64_t slot = heap_offer(&h, key, first + i);
            if (slot < 0) continue;
            if (axis_idx) memcpy(axis_idx + (size_t)slot * na, ri, na * sizeof *ri);
            if (m) memcpy(m + (size_t)slot * nm, vi, nm * sizeof *vi);
        }
    }
    assert(h.n == (*matched < k ? *matched : k));
    heap_sort(&h);
    permute(h.c, h.n, ids, axis_idx, na, m, nm, tmp_idx, tm);
out:
    free(h.c);
    free(bm);
    free(tm);
    free(tmp_idx);
    free(bidx);
    return rc;
}

int mm_results_top_values(mm_results_reader *r, const mm_results_query *q, int64_t *ids,
                          int32_t *axis_idx, mm_results_value *m, mm_results_top_info *info,
                          mm_error *err)
{
    mm_results_top_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    if (!r || !q) return mm__errf(err, -EINVAL, "mm_results_top: NULL argument");
    const mm_results_info *in = mm_results_describe(r);
    if (q->metric < 0 || q->metric >= in->n_metrics)
        return mm__errf(err, -EINVAL, "mm_results_top: metric %d outside [0, %d)", q->metric,
                        in->n_metrics);
    if (q->k < 0)
        return mm__errf(err, -EINVAL, "mm_results_top: k = %" PRId64 " is negative", q->k);
    if (q->n_where < 0 || (q->n_where > 0 && !q->where))
        return mm__errf(err, -EINVAL, "mm_results_top: bad filter list");
    for (int32_t j = 0; j < q->n_where; j++) {
        const mm_results_where *w = &q->where[j];
        if (w->axis < 0 || w->axis >= in->n_axes)
            return mm__errf(err, -EINVAL,
                            "mm_results_top: filter %" PRId32 ": axis %" PRId32
                            " outside [0, %" PRId32 ")",
                            j, w->axis, in->n_axes);
        if (w->value < 0 || w->value >= in->axes[w->axis].n)
            return mm__errf(err, -EINVAL,
                            "mm_results_top: filter %" PRId32 ": value %" PRId32
                            " is not on axis %s",
                            j, w->value, in->axes[w->axis].key);
    }
    if (q->n_cond < 0 || (q->n_cond > 0 && !q->cond))
        return mm__errf(err, -EINVAL, "mm_results_top: bad condition list");
    for (int32_t j = 0; j < q->n_cond; j++)
        if (q->cond[j].metric < 0 || q->cond[j].metric >= in->n_metrics ||
            q->cond[j].op < MM_CMP_LT || q->cond[j].op > MM_CMP_GT)
            return mm__errf(err, -EINVAL, "mm_results_top: condition %" PRId32 ": bad metric or op",
                            j);
    int64_t k = q->k < in->n_rows ? q->k : in->n_rows;
    if (k > 0 && !ids) return mm__errf(err, -EINVAL, "mm_results_top: NULL ids");
    int rc;
    int64_t matched = in->n_rows, aside = 0;
    /* The stored index serves when nothing filters, and rows without a fill are kept or the file
     * counted them (n_no_fill): then they are skipped while the index is walked. */
    int from_index = q->n_where == 0 && q->n_cond == 0 && !q->ascending &&
                     q->metric == mm_results_column_find(in, in->meta.objective) &&
                     (q->keep_idle || in->n_no_fill >= 0);
    if (from_index && !q->keep_idle && in->n_no_fill > 0) {
        aside = in->n_no_fill;
        matched -= aside;
        if (k > matched) k = matched;
        rc = top_index_active(r, in, k, ids, axis_idx, m, err);
    } else if (from_index)
        rc = top_index(r, in, k, ids, axis_idx, m, err);
    else
        rc = top_scan(r, in, q, k, ids, axis_idx, m, &matched, &aside, err);
    if (rc) return rc;
    info->set_aside = aside;
    info->matched = matched;
    info->n = matched < k ? matched : k;
    info->from_index = from_index;
    return 0;
}

int mm_results_top(mm_results_reader *r, const mm_results_query *q, int64_t *ids, int32_t *axis_idx,
                   mm_metrics *m, mm_results_top_info *info, mm_error *err)
{
    const mm_results_info *in = r ? mm_results_describe(r) : NULL;
    if (!m || !in || !q) return mm_results_top_values(r, q, ids, axis_idx, NULL, info, err);
    if (in->paths > 1)
        return mm__errf(err, MM_EUSAGE,
                        "%s: a Monte Carlo table holds summaries, not one run's metrics: "
                        "mm_results_top_values",
                        "mm_results_top");
    int64_t k = q->k < 0 ? 0 : q->k < in->n_rows ? q->k : in->n_rows;
    const size_t nm = (size_t)in->n_metrics; /* fewer in a table written before pnl_spread */
    mm_results_value *v = malloc((size_t)(k ? k : 1) * nm * sizeof *v);
    if (!v) return mm__errf(err, -ENOMEM, "out of memory");
    mm_results_top_info local;
    if (!info) info = &local;
    int rc = mm_results_top_values(r, q, ids, axis_idx, v, info, err);
    for (int64_t i = 0; rc == 0 && i < info->n; i++) {
        m[i].pnl_spread = m[i].pnl_inventory = NAN;
        for (size_t c = 0; c < nm; c++)
            memcpy(mm__metric_ptr(&m[i], (int)c), &v[(size_t)i * nm + c], 8);
    }
    free(v);
    return rc;
}
