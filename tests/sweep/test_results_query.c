/* Results queries (docs/results.md, "Queries"): mm_results_top against a brute-force ranking (ties
 * by ascending id, NaN last both ways, -0 == +0, filters, k = 0, k beyond the table, several
 * blocks), the stored index used only where it gives the same answer, and the lookups by name. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/results.h"
#include "results_fixture.h"
#include "testutil.h"

TestSuite(query, .fini = tu_cleanup);

/* ---- the reference: every row, compared by value, not through the keys ---- */

typedef struct ref_row {
    int64_t id;
    int is_nan;
    double v; /* integer columns as double: exact for the fixture's small integers */
} ref_row;

static int g_asc;
static int cmp_ref(const void *x, const void *y)
{
    const ref_row *a = x, *b = y;
    if (a->is_nan != b->is_nan) return a->is_nan ? 1 : -1;
    if (!a->is_nan && a->v != b->v) return (g_asc ? a->v < b->v : a->v > b->v) ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Reference top of a table whose row i has axis indices idx[i] and metrics m[i]; returns matched.
 */
static int64_t ref_top(const int32_t *idx, const mm_metrics *m, int64_t n, int n_axes,
                       const mm_results_query *q, int64_t *ids)
{
    ref_row *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        int ok = 1;
        for (int32_t j = 0; j < q->n_where; j++)
            ok &= idx[i * n_axes + q->where[j].axis] == q->where[j].value;
        /* A row without a fill is set aside unless the query keeps it (issue 32). */
        if (!ok || (!q->keep_idle && m[i].fills_bid == 0 && m[i].fills_ask == 0)) continue;
        double f = 0;
        int64_t iv = 0;
        int t = mm_results_metric_value(&m[i], q->metric, &f, &iv);
        r[k] = (ref_row){i, t == MM_COL_F64 && isnan(f), t == MM_COL_I64 ? (double)iv : f};
        k++;
    }
    g_asc = q->ascending;
    qsort(r, (size_t)k, sizeof *r, cmp_ref);
    for (int64_t i = 0; i < k && i < q->k; i++)
        ids[i] = r[i].id;
    free(r);
    return k;
}

/* The fixture's rows in memory. */
static void fixture_rows(const rf_table *t, int32_t **idx, mm_metrics **m)
{
    *idx = malloc((size_t)t->n_rows * RF_AXES * sizeof **idx);
    *m = malloc((size_t)t->n_rows * sizeof **m);
    for (int64_t i = 0; i < t->n_rows; i++)
        rf_row(t, i, *idx + i * RF_AXES, &(*m)[i]);
}

static mm_results_reader *open_or_die(const char *p)
{
    mm_results_reader *r;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(p, &r, &e), 0, "%s", e.msg);
    return r;
}

/* Run q on r and compare ids, axis indices and metrics with the reference. */
static void check_top(mm_results_reader *r, const int32_t *idx, const mm_metrics *m, int64_t n,
                      const mm_results_query *q, int want_index, const char *what)
{
    int64_t room = q->k < n ? q->k : n;
    int64_t *got = calloc((size_t)(room ? room : 1), sizeof *got),
            *want = calloc((size_t)(room ? room : 1), sizeof *want);
    int32_t *gidx = calloc((size_t)(room ? room : 1) * RF_AXES, sizeof *gidx);
    mm_metrics *gm = calloc((size_t)(room ? room : 1), sizeof *gm);
    mm_results_top_info info;
    mm_error e = {0};
    cr_assert_eq(mm_results_top(r, q, got, gidx, gm, &info, &e), 0, "%s: %s", what, e.msg);
    int64_t matched = ref_top(idx, m, n, RF_AXES, q, want);
    cr_assert_eq(info.matched, matched, "%s: matched %" PRId64 ", expected %" PRId64, what,
                 info.matched, matched);
    cr_assert_eq(info.n, matched < room ? matched : room, "%s: n %" PRId64, what, info.n);
    cr_assert_eq(info.from_index, want_index, "%s: from_index %d", what, info.from_index);
    for (int64_t i = 0; i < info.n; i++) {
        cr_assert_eq(got[i], want[i], "%s: rank %" PRId64 ": id %" PRId64 ", expected %" PRId64,
                     what, i + 1, got[i], want[i]);
        cr_assert(memcmp(gidx + i * RF_AXES, idx + got[i] * RF_AXES, RF_AXES * sizeof *gidx) == 0,
                  "%s: rank %" PRId64 ": axis indices of another row", what, i + 1);
        for (int j = 0; j < MM_RESULTS_METRICS; j++) {
            double fa = 0, fb = 0;
            int64_t ia = 0, ib = 0;
            mm_results_metric_value(&gm[i], j, &fa, &ia);
            mm_results_metric_value(&m[got[i]], j, &fb, &ib);
            cr_assert(ia == ib && memcmp(&fa, &fb, sizeof fa) == 0,
                      "%s: rank %" PRId64 ": metric %d of another row", what, i + 1, j);
        }
    }
    free(got);
    free(want);
    free(gidx);
    free(gm);
}

Test(query, top_matches_a_full_sort_for_every_metric_both_ways)
{
    rf_table t;
    rf_init(
        &t,
        4); /* 480 rows, ties in the integer columns and in pnl, a -0.0 (row 5), a NaN (row 7) */
    mm_error e = {0};
    const char *p = tu_path("q.h5");
    cr_assert_eq(rf_write(p, &t, 37, 3, NULL, &e), 0, "%s", e.msg);
    int32_t *idx;
    mm_metrics *m;
    fixture_rows(&t, &idx, &m);
    mm_results_reader *r = open_or_die(p);
    for (int metric = 0; metric < MM_RESULTS_METRICS; metric++)
        for (int asc = 0; asc < 2; asc++) {
            char what[64];
            snprintf(what, sizeof what, "metric %d %s", metric, asc ? "asc" : "desc");
            mm_results_query q = {.metric = metric, .ascending = asc, .k = 25};
            check_top(r, idx, m, t.n_rows, &q, metric == 0 && !asc, what);
            q.k = 480; /* the whole table: every tie and the NaN in order */
            check_top(r, idx, m, t.n_rows, &q, metric == 0 && !asc, what);
        }
    mm_results_close(r);
    free(idx);
    free(m);
    rf_free(&t);
}

/* A table of 10 rows with chosen pnl values, objective pnl. */
static const char *write_pnl(const char *name, const double *v, int n, int32_t *idx, mm_metrics *m)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    mm_results_writer *w;
    const char *p = tu_path(name);
    cr_assert_eq(mm_results_create(p, t.axes, RF_AXES, n, t.markout_ns, &w, &e), 0, "%s", e.msg);
    for (int i = 0; i < n; i++) {
        rf_row(&t, i, idx + i * RF_AXES, &m[i]);
        m[i].pnl = v[i];
    }
    cr_assert_eq(mm_results_write(w, 0, n, idx, m, &e), 0, "%s", e.msg);
    mm_results_meta meta;
    rf_meta(&t, NULL, &meta);
    cr_assert_eq(mm_results_commit(w, &meta, &e), 0, "%s", e.msg);
    rf_free(&t);
    return p;
}

static void top_ids(mm_results_reader *r, const mm_results_query *q, int64_t *ids,
                    mm_results_top_info *info)
{
    mm_error e = {0};
    cr_assert_eq(mm_results_top(r, q, ids, NULL, NULL, info, &e), 0, "%s", e.msg);
}

Test(query, ties_by_ascending_id_nan_last_both_ways_and_minus_zero_equals_zero)
{
    const double v[10] = {1.0, -INFINITY, NAN, -0.0, INFINITY, 0.0, -NAN, -1e-300, 1e300, -0.0};
    int32_t idx[10 * RF_AXES];
    mm_metrics m[10];
    mm_results_reader *r = open_or_die(write_pnl("z.h5", v, 10, idx, m));
    const int64_t desc[10] = {4, 8, 0, 3, 5, 9, 7, 1, 2, 6}; /* the stored index's order */
    const int64_t asc[10] = {1, 7, 3, 5, 9, 0, 8, 4, 2, 6};
    int64_t got[10], ix[10];
    mm_results_top_info info;
    mm_error e = {0};
    /* Descending by the objective: from the index. */
    top_ids(r, &(mm_results_query){.metric = 0, .k = 10}, got, &info);
    cr_assert(info.from_index && info.n == 10 && info.matched == 10);
    cr_assert_eq(mm_results_read_index(r, "pnl", 0, 10, ix, &e), 0, "%s", e.msg);
    for (int i = 0; i < 10; i++)
        cr_assert(got[i] == desc[i] && ix[i] == desc[i], "desc rank %d: %ld", i + 1, (long)got[i]);
    /* The same ranking by a scan (a filter that every row passes: tape 0), which is how the keys
     * are used. */
    mm_results_where all = {0, 0};
    top_ids(r, &(mm_results_query){.metric = 0, .k = 10, .where = &all, .n_where = 1}, got, &info);
    cr_assert(!info.from_index && info.matched == 10);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(got[i], desc[i], "scan desc rank %d: %ld", i + 1, (long)got[i]);
    /* Ascending: smallest first, -0 and +0 still tie (by id), NaNs still last. */
    top_ids(r, &(mm_results_query){.metric = 0, .ascending = 1, .k = 10}, got, &info);
    cr_assert(!info.from_index);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(got[i], asc[i], "asc rank %d: %ld", i + 1, (long)got[i]);
    /* Top 3 ascending through a heap of 3: the heap keeps the right ones. */
    top_ids(r, &(mm_results_query){.metric = 0, .ascending = 1, .k = 3}, got, &info);
    cr_assert(info.n == 3 && got[0] == 1 && got[1] == 7 && got[2] == 3);
    /* The keys themselves. */
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) {
            uint64_t a = mm_results_rank_key(&m[i], 0, 0), b = mm_results_rank_key(&m[j], 0, 0);
            int ties = (isnan(v[i]) && isnan(v[j])) || v[i] == v[j];
            cr_assert_eq(a == b, ties, "rows %d, %d", i, j);
            uint64_t aa = mm_results_rank_key(&m[i], 0, 1), ba = mm_results_rank_key(&m[j], 0, 1);
            cr_assert_eq(aa == ba, ties, "rows %d, %d ascending", i, j);
            if (isnan(v[i])) cr_assert(a == UINT64_MAX && aa == UINT64_MAX);
        }
    cr_assert_eq(mm_results_rank_key(&m[0], MM_RESULTS_METRICS, 0), UINT64_MAX);
    cr_assert_eq(mm_results_rank_key(&m[0], -1, 1), UINT64_MAX);
    mm_results_close(r);
}

Test(query, integer_columns_rank_by_exact_int64)
{
    /* Two values that are the same double but different int64: the key must not go through double.
     */
    int32_t idx[3 * RF_AXES];
    mm_metrics m[3];
    const double v[3] = {0, 0, 0};
    mm_results_reader *r = open_or_die(write_pnl("i.h5", v, 3, idx, m));
    mm_results_close(r);
    m[0].volume = INT64_MAX;
    m[1].volume = INT64_MAX - 1;
    m[2].volume = INT64_MIN;
    cr_assert_eq((double)m[0].volume, (double)m[1].volume);
    cr_assert(mm_results_rank_key(&m[0], 2, 0) < mm_results_rank_key(&m[1], 2, 0));
    cr_assert(mm_results_rank_key(&m[1], 2, 0) < mm_results_rank_key(&m[2], 2, 0));
    cr_assert(mm_results_rank_key(&m[2], 2, 1) < mm_results_rank_key(&m[1], 2, 1));
    cr_assert(mm_results_rank_key(&m[1], 2, 1) < mm_results_rank_key(&m[0], 2, 1));
}

Test(query, filters_combine_with_and_on_axis_value_indices)
{
    rf_table t;
    rf_init(&t, 4);
    mm_error e = {0};
    const char *p = tu_path("f.h5");
    cr_assert_eq(rf_write(p, &t, 480, 0, NULL, &e), 0, "%s", e.msg);
    int32_t *idx;
    mm_metrics *m;
    fixture_rows(&t, &idx, &m);
    mm_results_reader *r = open_or_die(p);
    /* One filter: inv_limit = 10 (index 3): 96 rows. */
    mm_results_where w[3] = {{2, 3}};
    mm_results_query q = {.metric = 0, .where = w, .n_where = 1, .k = 30};
    check_top(r, idx, m, t.n_rows, &q, 0, "inv_limit=10");
    /* Three filters: tape 1, spread 0.5 (index 1), queue log (index 2): 20 rows, all of them. */
    w[0] = (mm_results_where){0, 1};
    w[1] = (mm_results_where){1, 1};
    w[2] = (mm_results_where){3, 2};
    q = (mm_results_query){.metric = 15, .ascending = 1, .where = w, .n_where = 3, .k = 100};
    check_top(r, idx, m, t.n_rows, &q, 0, "three filters");
    int64_t ids[100];
    mm_results_top_info info;
    top_ids(r, &q, ids, &info);
    cr_assert_eq(info.matched, 20);
    for (int64_t i = 0; i < info.n; i++)
        cr_assert(idx[ids[i] * RF_AXES] == 1 && idx[ids[i] * RF_AXES + 1] == 1 &&
                  idx[ids[i] * RF_AXES + 3] == 2);
    /* The same filter twice is the filter once; two values of one axis match nothing. */
    w[0] = w[1] = (mm_results_where){2, 3};
    q = (mm_results_query){.metric = 0, .where = w, .n_where = 2, .k = 30};
    check_top(r, idx, m, t.n_rows, &q, 0, "inv_limit=10 twice");
    w[1] = (mm_results_where){2, 4};
    top_ids(r, &q, ids, &info);
    cr_assert(info.matched == 0 && info.n == 0 && !info.from_index);
    /* The two values of the tape axis split the table. */
    mm_results_where wtape[2] = {{0, 0}, {0, 1}};
    int64_t a[480];
    int64_t n = 0;
    for (int tp = 0; tp < 2; tp++) {
        top_ids(r, &(mm_results_query){.metric = 0, .where = &wtape[tp], .n_where = 1, .k = 480},
                a + n, &info);
        n += info.n;
    }
    cr_assert_eq(n, 480);
    mm_results_close(r);
    free(idx);
    free(m);
    rf_free(&t);
}

Test(query, k_zero_and_k_beyond_the_table)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    const char *p = tu_path("k.h5");
    cr_assert_eq(rf_write(p, &t, 120, 0, NULL, &e), 0, "%s", e.msg);
    int32_t *idx;
    mm_metrics *m;
    fixture_rows(&t, &idx, &m);
    mm_results_reader *r = open_or_die(p);
    mm_results_top_info info;
    /* k = 0: no rows, ids may be NULL, matched still counted (scan with a filter; n_rows without).
     */
    mm_results_where w = {2, 0};
    cr_assert_eq(mm_results_top(r, &(mm_results_query){.metric = 3, .where = &w, .n_where = 1},
                                NULL, NULL, NULL, &info, &e),
                 0, "%s", e.msg);
    cr_assert(info.n == 0 && info.matched == 24);
    cr_assert_eq(mm_results_top(r, &(mm_results_query){.metric = 0}, NULL, NULL, NULL, &info, &e),
                 0, "%s", e.msg);
    cr_assert(info.n == 0 && info.matched == 120 && info.from_index);
    /* k far beyond the table: every row, arrays of n_rows suffice. */
    for (int metric = 0; metric < 3; metric++) {
        mm_results_query q = {.metric = metric, .k = INT64_C(1) << 40};
        check_top(r, idx, m, t.n_rows, &q, metric == 0, "k = 2^40");
        q.where = &w;
        q.n_where = 1;
        check_top(r, idx, m, t.n_rows, &q, 0, "k = 2^40, filtered");
    }
    mm_results_close(r);
    free(idx);
    free(m);
    rf_free(&t);
}

Test(query, scan_spans_several_blocks)
{
    rf_table t;
    rf_init(&t, 600); /* 72,000 rows: two read blocks of 65,536 */
    mm_error e = {0};
    const char *p = tu_path("b.h5");
    cr_assert_eq(rf_write(p, &t, 4099, 0, "sharpe", &e), 0, "%s", e.msg);
    int32_t *idx;
    mm_metrics *m;
    fixture_rows(&t, &idx, &m);
    mm_results_reader *r = open_or_die(p);
    check_top(r, idx, m, t.n_rows, &(mm_results_query){.metric = 11, .k = 300}, 1,
              "sharpe from the index");
    check_top(r, idx, m, t.n_rows, &(mm_results_query){.metric = 11, .ascending = 1, .k = 300}, 0,
              "sharpe asc");
    check_top(r, idx, m, t.n_rows, &(mm_results_query){.metric = 0, .k = 1000}, 0,
              "pnl (not the objective)");
    mm_results_where w = {4, 599}; /* rep: the last value, rows in the second block */
    check_top(r, idx, m, t.n_rows,
              &(mm_results_query){.metric = 8, .where = &w, .n_where = 1, .k = 7}, 0, "rep 599");
    mm_results_close(r);
    free(idx);
    free(m);
    rf_free(&t);
}

Test(query, bad_queries_are_einval_before_any_read)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    const char *p = tu_path("e.h5");
    cr_assert_eq(rf_write(p, &t, 120, 0, NULL, &e), 0, "%s", e.msg);
    mm_results_reader *r = open_or_die(p);
    int64_t ids[4];
    mm_results_where bad_axis = {RF_AXES, 0}, bad_value = {1, 4};
    const struct {
        mm_results_query q;
        const char *msg;
    } c[] = {
        {{.metric = -1, .k = 1}, "metric -1"},
        {{.metric = MM_RESULTS_METRICS, .k = 1}, "metric 23"},
        {{.metric = 0, .k = -1}, "negative"},
        {{.metric = 0, .k = 1, .n_where = 1}, "filter list"},
        {{.metric = 0, .k = 1, .where = &bad_axis, .n_where = 1}, "axis 5"},
        {{.metric = 0, .k = 1, .where = &bad_value, .n_where = 1}, "not on axis spread"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        e = (mm_error){0};
        cr_assert_eq(mm_results_top(r, &c[i].q, ids, NULL, NULL, NULL, &e), -EINVAL, "case %zu", i);
        cr_assert(strstr(e.msg, c[i].msg), "case %zu: %s", i, e.msg);
    }
    cr_assert_eq(
        mm_results_top(r, &(mm_results_query){.metric = 0, .k = 1}, NULL, NULL, NULL, NULL, &e),
        -EINVAL);
    cr_assert_eq(
        mm_results_top(NULL, &(mm_results_query){.metric = 0, .k = 1}, ids, NULL, NULL, NULL, &e),
        -EINVAL);
    cr_assert_eq(mm_results_top(r, NULL, ids, NULL, NULL, NULL, &e), -EINVAL);
    mm_results_close(r);
    rf_free(&t);
}

Test(query, metric_and_axis_lookups_by_name)
{
    const int64_t mk[MM_MARKOUTS] = {1000000000, 500000000, 250000};
    cr_assert_eq(mm_results_metric_find("pnl", mk), 0);
    cr_assert_eq(mm_results_metric_find("max_drawdown", mk), 12);
    cr_assert_eq(mm_results_metric_find("pnl_close", mk), 13);
    cr_assert_eq(mm_results_metric_find("rejects_per_s", mk), 17);
    cr_assert_eq(mm_results_metric_find("markout_250us", mk), 20);
    cr_assert_eq(mm_results_metric_find("markout_1s", mk), 18);
    cr_assert_eq(mm_results_metric_find("markout_10s", mk), MM_ENOTFOUND);
    cr_assert_eq(mm_results_metric_find("pnl_spread", mk), 21);
    cr_assert_eq(mm_results_metric_find("pnl_inventory", mk), 22);
    cr_assert_eq(mm_results_metric_find("PNL", mk), MM_ENOTFOUND);
    cr_assert_eq(mm_results_metric_find(NULL, mk), MM_ENOTFOUND);
    char list[640];
    mm_results_metric_list(mk, list, sizeof list);
    cr_assert_str_eq(
        list,
        "pnl, fees, volume, fills_bid, fills_ask, orders, cancels, rejects, final_q, max_abs_q, "
        "mean_abs_q, sharpe, max_drawdown, pnl_close, held, orders_per_s, cancels_per_s, "
        "rejects_per_s, markout_1s, markout_500ms, markout_250us, pnl_spread, pnl_inventory");
    char small[20];
    mm_results_metric_list(mk, small, sizeof small);
    cr_assert_str_eq(small, "pnl, fees, volume"); /* whole names only */

    rf_table t;
    rf_init(&t, 4);
    mm_error e = {0};
    const char *p = tu_path("l.h5");
    cr_assert_eq(rf_write(p, &t, 480, 0, NULL, &e), 0, "%s", e.msg);
    mm_results_reader *r = open_or_die(p);
    const mm_results_info *in = mm_results_describe(r);
    cr_assert_eq(mm_results_axis_find(in, "tape"), 0);
    cr_assert_eq(mm_results_axis_find(in, "rep"), 4);
    cr_assert_eq(mm_results_axis_find(in, "Rep"), MM_ENOTFOUND);
    cr_assert_eq(mm_results_axis_find(in, "pnl"), MM_ENOTFOUND);
    const struct {
        int axis;
        const char *text;
        int32_t want; /* -1: MM_ENOTFOUND */
    } v[] = {
        {0, "day \"2\",b.h5#BBB", 1},
        {0, "day1.h5#AAA", 0},
        {0, "day1.h5", -1},
        {3, "log", 2},
        {3, "Log", -1},
        {2, "10", 3},
        {2, "-0", -1},
        {2, "010", 3},
        {2, "+10", -1},
        {2, " 10", -1},
        {2, "0xa", -1},
        {2, "10.0", -1},
        {2, "99999999999999999999", -1},
        {1, "0.5", 1},
        {1, "5e-1", 1},
        {1, ".5", 1},
        {1, "2.5", 3},
        {1, "2.5000000001", 3},
        {1, "2.50001", -1},
        {1, "0x1", -1},
        {1, "inf", -1},
        {1, "nan", -1},
        {1, "1e999", -1},
        {1, "", -1},
        {1, "1 ", -1},
        {4, "103", 1},
        {4, "109", 3},
        {4, "104", -1},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        int32_t k = -7;
        int rc = mm_results_axis_value(&in->axes[v[i].axis], v[i].text, &k);
        if (v[i].want < 0)
            cr_assert(rc == MM_ENOTFOUND && k == -7, "'%s' on %s: rc %d, k %d", v[i].text,
                      in->axes[v[i].axis].key, rc, k);
        else
            cr_assert(rc == 0 && k == v[i].want, "'%s' on %s: rc %d, k %d", v[i].text,
                      in->axes[v[i].axis].key, rc, k);
    }
    char b[64];
    mm_results_axis_format(&in->axes[1], 0, b, sizeof b);
    cr_assert_str_eq(b, "0.25");
    mm_results_axis_format(&in->axes[2], 4, b, sizeof b);
    cr_assert_str_eq(b, "20");
    mm_results_axis_format(&in->axes[0], 1, b, sizeof b);
    cr_assert_str_eq(b, "day \"2\",b.h5#BBB");
    mm_results_axis_format(&in->axes[2], 5, b, sizeof b);
    cr_assert_str_eq(b, "", "a value outside the axis gives the empty string");
    mm_results_close(r);
    rf_free(&t);

    /* Floats as the shortest text that reads back, and "0.3" finds 0.1 + 0.2 (within 1e-9 relative,
     * and ambiguity is not a match). */
    const double f[4] = {0.1 + 0.2, 1e-7, 1.0 / 3, 2.5};
    mm_results_axis a = {.key = "x", .type = MM_COL_F64, .n = 4, .f64 = f};
    mm_results_axis_format(&a, 0, b, sizeof b);
    cr_assert_str_eq(b, "0.30000000000000004");
    mm_results_axis_format(&a, 1, b, sizeof b);
    cr_assert_str_eq(b, "1e-07");
    mm_results_axis_format(&a, 2, b, sizeof b);
    cr_assert_eq(strtod(b, NULL), 1.0 / 3, "%s", b);
    int32_t k;
    cr_assert(mm_results_axis_value(&a, "0.3", &k) == 0 && k == 0);
    cr_assert(mm_results_axis_value(&a, b, &k) == 0 && k == 2);
    const double g[2] = {1.0, 1.0 + 1e-12};
    mm_results_axis amb = {.key = "y", .type = MM_COL_F64, .n = 2, .f64 = g};
    cr_assert(mm_results_axis_value(&amb, "1", &k) == 0 && k == 0, "an exact match wins");
    cr_assert_eq(mm_results_axis_value(&amb, "1.0000000000005", &k), MM_ENOTFOUND,
                 "two near values: ambiguous");
}
