/* The PnL decomposition (docs/model.md 7.1, issue 32 item 3): pnl_spread, pnl_inventory and fees
 * add up to pnl, in every engine; pnl_spread is each fill's edge to the mid before its event. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"

TestSuite(decomp, .fini = tu_cleanup);

/* Three instruments in one file: adverse selection (informed trades, jumps of several ticks) so
 * that inventory PnL is not small beside the spread capture. tick_size x lot_size = money. */
static const char *make_tapes(const char *name, double tick, double lot)
{
    const char *p = tu_path(name);
    struct stat st;
    if (stat(p, &st) == 0) return p;
    for (int k = 0; k < 3; k++) {
        mm_gen_params gp;
        mm_gen_defaults(&gp);
        gp.seed = 300 + (uint64_t)k;
        gp.events = 20000;
        gp.trade_frac = 0.2;
        gp.informed = 0.1 * k;
        gp.move_ticks = 1 + k;
        gp.vol_ticks = 2 + 2 * k;
        gp.tick_size = tick;
        gp.lot_size = lot;
        snprintf(gp.symbol, sizeof gp.symbol, "S%d", k);
        tu_gen_write(p, &gp);
    }
    return p;
}

/* Families of inventory limits (the shared states), skews, both queue rules the lanes kernel
 * vectorises or not, and a taker (post_only 0) so that fills on landing count too. */
static mm_grid *grid_of(const char *ticks)
{
    mm_grid *g = NULL;
    mm_error e = {0};
    char a[3][512];
    const char *tapes[3];
    for (int k = 0; k < 3; k++) {
        snprintf(a[k], sizeof a[k], "%s#S%d", ticks, k);
        tapes[k] = a[k];
    }
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 3, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "0:3:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "skew", "0,0.2", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "1,3,10,40", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "queue", "risk-averse,power", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "post_only", "0,1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "maker_fee_bps", "-0.3", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "taker_fee_bps", "1.7", &e), 0, "%s", e.msg);
    return g;
}

typedef struct rows {
    int64_t n;
    mm_metrics *m;
    uint64_t hash;
} rows;

static rows sweep_rows(const mm_grid *g, int engine, const char *name)
{
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = engine;
    o.workers = 2;
    o.chunk = 37;
    o.config_text = "test";
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path(name), &rep, &e), 0, "%s", e.msg);
    mm_results_reader *r;
    cr_assert_eq(mm_results_open(tu_path(name), &r, &e), 0, "%s", e.msg);
    rows t = {mm_results_describe(r)->n_rows, NULL, rep.content_hash};
    cr_assert_eq(mm_results_describe(r)->n_metrics, MM_RESULTS_METRICS);
    t.m = calloc((size_t)t.n, sizeof *t.m);
    int32_t *idx = calloc((size_t)t.n * 8, sizeof *idx);
    cr_assert_eq(mm_results_read(r, 0, t.n, idx, t.m, &e), 0, "%s", e.msg);
    free(idx);
    mm_results_close(r);
    return t;
}

/* One unit in the last place of x. */
static double ulp(double x)
{
    x = fabs(x);
    return nextafter(x, INFINITY) - x;
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Every row of each engine: (pnl_spread + pnl_inventory) - fees is pnl, bit for bit where money is
 * a power of two; otherwise bit for bit or, where no double can make it so (docs/model.md 7.1),
 * within an ulp of the largest term, the terms then cancelling. Each table equals the reference's
 * row for row (mm_sim_run_c). Returns the rows that sum bit for bit. */
static int64_t check_tables(const char *ticks, int exact)
{
    mm_grid *g = grid_of(ticks);
    const int engines[] = {MM_ENGINE_SERIAL, MM_ENGINE_THREADS, MM_ENGINE_PROCESS};
    rows t[3];
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "r%d.h5", k);
        t[k] = sweep_rows(g, engines[k], name);
    }
    cr_assert(t[0].hash == t[1].hash && t[0].hash == t[2].hash, "engines differ");
    mm_sim_config cfg;
    mm_sim_config_defaults(&cfg);
    mm_ticks tk[3];
    memset(tk, 0, sizeof tk);
    mm_error e = {0};
    for (int k = 0; k < 3; k++) {
        char sym[16];
        snprintf(sym, sizeof sym, "S%d", k);
        cr_assert_eq(mm_ticks_load(ticks, sym, 0, &tk[k], &e), 0, "%s", e.msg);
    }
    int64_t exact_rows = 0, fills = 0, spread_rows = 0, inv_rows = 0;
    for (int64_t id = 0; id < t[0].n; id++) {
        mm_params p;
        int32_t idx[8];
        mm_grid_combo(g, id, &p, idx);
        mm_metrics ref;
        cr_assert_eq(mm_sim_run_c(&tk[idx[0]], &cfg, &p, &ref, NULL, NULL, &e), 0, "%s", e.msg);
        for (int k = 0; k < 3; k++) {
            const mm_metrics *m = &t[k].m[id];
            cr_assert(same(m->pnl_spread, ref.pnl_spread) &&
                          same(m->pnl_inventory, ref.pnl_inventory) && same(m->pnl, ref.pnl),
                      "engine %d id %ld: not the reference's", engines[k], (long)id);
            double sum = (m->pnl_spread + m->pnl_inventory) - m->fees;
            if (same(sum, m->pnl)) {
                exact_rows += k == 0;
                continue;
            }
            cr_assert(!exact, "engine %d id %ld: (%.17g + %.17g) - %.17g = %.17g, pnl %.17g",
                      engines[k], (long)id, m->pnl_spread, m->pnl_inventory, m->fees, sum, m->pnl);
            double big = fmax(fmax(fabs(m->pnl_spread), fabs(m->pnl_inventory)), fabs(m->fees));
            cr_assert(fabs(sum - m->pnl) <= ulp(big), "id %ld: off by %g", (long)id, sum - m->pnl);
            /* Only where the two parts cancel: opposite signs, each beyond pnl + fees. */
            double gross = m->pnl + m->fees;
            cr_assert(m->pnl_spread * m->pnl_inventory < 0 &&
                          fmin(fabs(m->pnl_spread), fabs(m->pnl_inventory)) > fabs(gross),
                      "id %ld: no cancellation, yet not exact", (long)id);
        }
        fills += ref.fills_bid + ref.fills_ask;
        spread_rows += ref.pnl_spread != 0;
        inv_rows += fabs(ref.pnl_inventory) > 0.1 * fabs(ref.pnl_spread) && ref.pnl_spread != 0;
    }
    /* Real behaviour, not zeros: fills, spread capture, and inventory PnL that matters. */
    cr_assert_gt(fills, 1000);
    cr_assert_gt(spread_rows, t[0].n / 2);
    cr_assert_gt(inv_rows, t[0].n / 4);
    for (int k = 0; k < 3; k++) {
        free(t[k].m);
        mm_ticks_free(&tk[k]);
    }
    mm_grid_free(g);
    return exact_rows;
}

Test(decomp, components_add_up_to_pnl_bit_for_bit_on_every_row_of_every_engine, .timeout = 600)
{
    /* tick 0.25, lot 2: money 0.5, a power of two. */
    int64_t n = check_tables(make_tapes("dyadic.h5", 0.25, 2.0), 1);
    cr_assert_eq(n, 3 * 4 * 2 * 4 * 2 * 2);
}

Test(decomp, components_add_up_to_pnl_where_a_double_can_on_a_decimal_tick, .timeout = 600)
{
    /* tick 0.05, lot 1: money 0.05; rows whose parts cancel may be an ulp off (model.md 7.1). */
    int64_t n = check_tables(make_tapes("decimal.h5", 0.05, 1.0), 0);
    cr_assert_gt(n, 3 * 4 * 2 * 4 * 2 * 2 / 2, "only %ld rows exact", (long)n);
}

/* pnl_spread is the sum over fills of side x qty x (mid before the fill's event - 2 px) half-ticks,
 * x 0.5 x money: recomputed here from the trace and the tape. */
typedef struct fills_acc {
    const mm_ticks *t;
    int64_t s2, n;
} fills_acc;

static void on_rec(const mm_trace_rec *r, void *user)
{
    fills_acc *a = user;
    if (r->kind != MM_TR_FILL) return;
    int64_t mid2 = 0; /* the last two-sided row before the event */
    for (int64_t j = r->event - 1; j >= 0 && !mid2; j--)
        if (a->t->bid_sz[j] > 0 && a->t->ask_sz[j] > 0)
            mid2 = (int64_t)a->t->bid_px[j] + a->t->ask_px[j];
    if (mid2) a->s2 += (int64_t)r->side * r->qty * (mid2 - 2 * (int64_t)r->px);
    a->n++;
}

Test(decomp, spread_capture_is_each_fill_s_edge_to_the_mid_before_its_event)
{
    const char *ticks = make_tapes("decimal.h5", 0.05, 1.0);
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load(ticks, "S2", 0, &t, &e), 0, "%s", e.msg);
    mm_sim_config cfg;
    mm_sim_config_defaults(&cfg);
    for (int po = 0; po < 2; po++) {
        mm_params p;
        mm_params_defaults(&p);
        p.spread_ticks = 1;
        p.post_only = po;
        p.inv_limit = 5;
        fills_acc a = {&t, 0, 0};
        mm_metrics m;
        cr_assert_eq(mm_sim_run_c(&t, &cfg, &p, &m, on_rec, &a, &e), 0, "%s", e.msg);
        cr_assert_gt(a.n, 50);
        cr_assert_neq(a.s2, 0);
        double want = (double)a.s2 * 0.5 * (t.inst.tick_size * t.inst.lot_size);
        cr_assert(same(m.pnl_spread, want), "%.17g, want %.17g", m.pnl_spread, want);
    }
    mm_ticks_free(&t);
}

/* A table written before the two columns (fixtures/results-int32.h5) reads with its 21 metrics,
 * and mm_results_read gives NaN for the two it lacks. */
Test(decomp, a_table_written_before_the_columns_reads_with_nan_for_them)
{
    const char *p = tu_fixture("results-int32.h5");
    mm_results_reader *r;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(p, &r, &e), 0, "%s", e.msg);
    const mm_results_info *in = mm_results_describe(r);
    cr_assert_eq(in->n_metrics, 21);
    cr_assert_eq(mm_results_column_find(in, "pnl_spread"), MM_ENOTFOUND);
    mm_metrics m[8];
    int32_t idx[8 * 3];
    cr_assert_eq(mm_results_read(r, 0, 8, idx, m, &e), 0, "%s", e.msg);
    for (int i = 0; i < 8; i++)
        cr_assert(isnan(m[i].pnl_spread) && isnan(m[i].pnl_inventory) && !isnan(m[i].pnl));
    mm_results_close(r);
}
