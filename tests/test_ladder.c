/* Ladders (docs/model.md 6.2): levels quotes per side. Tiny hand-built tapes whose expected
 * numbers were worked out by hand from the spec (the arithmetic beside each assertion), as in
 * test_scenarios.c. Every scenario runs through the reference (with a trace) and the batched engine
 * (which steps a ladder with the reference step: levels > 1 has no capability), and the two must
 * agree on every metric bit for bit. Times in ms from the first row; no latency unless stated (an
 * action lands at the next row). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

typedef tu_row row;

#define MAXREC 256
typedef struct trace_log {
    int n;
    mm_trace_rec r[MAXREC];
} trace_log;

static void on_trace(const mm_trace_rec *r, void *user)
{
    trace_log *l = user;
    cr_assert_lt(l->n, MAXREC);
    l->r[l->n++] = *r;
}

/* Fixed strategy, spread 1, risk-averse queue, requote 1, no latency, no fees. */
static mm_params base(int levels, int32_t size, int32_t limit)
{
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1;
    p.quote_size = size;
    p.inv_limit = limit;
    p.queue_rule = MM_QUEUE_RISK_AVERSE;
    p.levels = levels;
    return p;
}

static mm_metrics run_tape(const mm_ticks *t, const mm_params *p, trace_log *log)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_metrics m, b;
    mm_error e = {0};
    log->n = 0;
    cr_assert_eq(mm_sim_run_c(t, &c, p, &m, on_trace, log, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(t, &c, p, 1, &b, &e), 0, "%s", e.msg);
    cr_assert(m.pnl == b.pnl && m.fees == b.fees && m.sharpe == b.sharpe &&
              m.max_drawdown == b.max_drawdown && m.mean_abs_q == b.mean_abs_q);
    cr_assert(m.volume == b.volume && m.fills_bid == b.fills_bid && m.fills_ask == b.fills_ask &&
              m.orders == b.orders && m.cancels == b.cancels && m.rejects == b.rejects &&
              m.final_q == b.final_q && m.max_abs_q == b.max_abs_q);
    for (int k = 0; k < MM_MARKOUTS; k++)
        cr_assert(m.markout[k] == b.markout[k]);
    return m;
}

static mm_metrics run(const row *rows, int n, const mm_params *p, trace_log *log)
{
    mm_ticks t = tu_rows_tape(rows, n, "LAD", 0.25, 2);
    mm_metrics m = run_tape(&t, p, log);
    mm_ticks_free(&t);
    return m;
}

/* Records of one kind and side (+1 bid, -1 ask), in order; returns how many. */
static int recs(const trace_log *l, int kind, int side, const mm_trace_rec **out, int max)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->r[i].kind == kind && l->r[i].side == side) {
            if (k < max) out[k] = &l->r[i];
            k++;
        }
    return k;
}

Test(ladder, rungs_rest_level_step_apart_with_sizes_growing_by_level_size_rounded_half_even)
{
    /* mid 101, spread 1: rung 0 at 100 / 102; level_step 2: rung 1 at 98 / 104, rung 2 at 96 /
     * 106. Sizes 2, 2 x 1.5 = 3, 2 x 1.5 x 1.5 = 4.5 -> 4 (half to even). Limit 100: no binding. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0}};
    mm_params p = base(3, 2, 100);
    p.level_step = 2;
    p.level_size = 1.5;
    trace_log l;
    mm_metrics m = run(r, 1, &p, &l);
    const mm_trace_rec *o[8];
    cr_assert_eq(recs(&l, MM_TR_ORDER, 1, o, 8), 3);
    const int32_t bpx[] = {100, 98, 96}, qty[] = {2, 3, 4};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(o[k]->px, bpx[k], "bid rung %d: px %d", k, o[k]->px);
        cr_assert_eq(o[k]->qty, qty[k], "bid rung %d: qty %d", k, o[k]->qty);
    }
    cr_assert_eq(recs(&l, MM_TR_ORDER, -1, o, 8), 3);
    const int32_t apx[] = {102, 104, 106};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(o[k]->px, apx[k], "ask rung %d: px %d", k, o[k]->px);
        cr_assert_eq(o[k]->qty, qty[k]);
    }
    cr_assert_eq(m.orders, 6);
}

Test(ladder, the_decision_gives_the_room_to_the_rungs_in_order)
{
    /* Size 2, limit 5, three rungs: room 5 -> rung 0 asks 2 (3 left), rung 1 asks 2 (1 left),
     * rung 2 asks min(2, 1) = 1. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0}};
    mm_params p = base(3, 2, 5);
    trace_log l;
    run(r, 1, &p, &l);
    const mm_trace_rec *o[8];
    for (int side = 1; side >= -1; side -= 2) {
        cr_assert_eq(recs(&l, MM_TR_ORDER, side, o, 8), 3);
        cr_assert_eq(o[0]->qty, 2);
        cr_assert_eq(o[1]->qty, 2);
        cr_assert_eq(o[2]->qty, 1, "the last lot of room (got %d)", o[2]->qty);
    }
}

static const row THROUGH[] = {
    {0, 100, 10, 102, 10, 0, 0, 0},
    {1, 100, 10, 102, 10, 0, 0, 0}, /* land: bid rung 0 at 100 (ahead 10), rung 1 at 99 (deep) */
    {2, 98, 5, 102, 10, 98, 3, -1}, /* a sell of 3 at 98: through both bids */
};

Test(ladder, a_trade_through_two_rungs_fills_them_in_price_order_within_its_volume)
{
    /* Size 2, two rungs. The 3 lots sold at 98 fill rung 0 (100) first: min(2, 3) = 2, then rung
     * 1 (99) with what is left: min(2, 3 - 2) = 1. Volume 3, two bid fills, q = 3. */
    mm_params p = base(2, 2, 10);
    trace_log l;
    mm_metrics m = run(THROUGH, 3, &p, &l);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 2);
    cr_assert_eq(f[0]->px, 100);
    cr_assert_eq(f[0]->qty, 2);
    cr_assert_eq(f[1]->px, 99);
    cr_assert_eq(f[1]->qty, 1, "3 traded - 2 taken by the better rung (got %d)", f[1]->qty);
    cr_assert_eq(f[0]->event, 2);
    cr_assert_eq(f[1]->event, 2);
    cr_assert_eq(m.volume, 3);
    cr_assert_eq(m.fills_bid, 2);
    cr_assert_eq(m.final_q, 3);
}

Test(ladder, unbounded_fills_fill_every_rung_the_trade_went_through)
{
    /* fill_volume = unbounded: each rung the trade went through fills whole: 2 + 2 = 4. */
    mm_params p = base(2, 2, 10);
    p.fill_volume = MM_FILL_UNBOUNDED;
    trace_log l;
    mm_metrics m = run(THROUGH, 3, &p, &l);
    cr_assert_eq(m.volume, 4);
    cr_assert_eq(m.fills_bid, 2);
}

Test(ladder, a_deeper_rung_under_l1_is_deep_until_its_level_is_the_best)
{
    /* Size 1, two rungs, requote 5 (no requote). Rung 1 lands at 99 behind the best 100: deep.
     * Row 2: 100 empties and 99 is the best with 6 lots: rung 0 at 100 is at the front (its level
     * left), rung 1 goes behind all 6 (ahead 6). Row 3: a sell of 8 at 99: rung 0 (100) fills 1
     * through, the 7 left take the 6 ahead of rung 1 and fill 1 of it. A sell of 7 would leave
     * rung 1 nothing. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 6, 102, 10, 0, 0, 0},
               {3, 99, 1, 102, 10, 99, 8, -1}};
    mm_params p = base(2, 1, 10);
    p.requote_ticks = 5;
    trace_log l;
    mm_metrics m = run(r, 4, &p, &l);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 2);
    cr_assert_eq(f[0]->px, 100);
    cr_assert_eq(f[1]->px, 99);
    cr_assert_eq(f[1]->qty, 1);
    cr_assert_eq(m.volume, 2);
    r[3].tsz = 7;
    m = run(r, 4, &p, &l);
    cr_assert_eq(m.volume, 1, "7 - 1 = 6 lots: all ahead of rung 1 (got %" PRId64 ")", m.volume);
}

Test(ladder, a_landing_counts_the_sides_other_live_orders_against_the_limit)
{
    /* Size 2, limit 4, two rungs, entry latency 1.5 ms (rows every ms). Row 0 sends bid 100 (2)
     * and 99 (2); they land at row 2. Row 3: the mid moves up a tick: both bids requote (cancel +
     * new at 101 and 100, 2 lots each), landing at row 5. Row 4: a sell of 10 at 99 goes through
     * the old rung 0 at 100 (its cancel still in flight): fill 2, q = 2 (rung 1 at 99 is deep: no
     * fill). Row 5: rung 0's replace lands: the room is 4 - q 2 - rung 1's old live 2 lots = 0:
     * rejected. Then rung 1's lands (its old order cancelled): room 4 - 2 - 0 = 2: its 2 lots at
     * 100 rest. Without counting the other rung, rung 0 would have had room 2. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},    {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 0, 0, 0},    {3, 101, 10, 103, 10, 0, 0, 0},
               {4, 101, 10, 103, 10, 99, 10, -1}, {5, 101, 10, 103, 10, 0, 0, 0}};
    mm_params p = base(2, 2, 4);
    p.latency_ns = 1500000;
    trace_log l;
    mm_metrics m = run(r, 6, &p, &l);
    const mm_trace_rec *x[8];
    cr_assert_eq(recs(&l, MM_TR_REJECT, 1, x, 8), 1);
    cr_assert_eq(x[0]->px, 101);
    cr_assert_eq(x[0]->event, 5);
    cr_assert_eq(m.rejects, 1);
    int n = recs(&l, MM_TR_ACTIVE, 1, x, 8);
    cr_assert_eq(n, 3, "bid 100 and 99 at row 2, 100 at row 5 (got %d)", n);
    cr_assert_eq(x[2]->px, 100);
    cr_assert_eq(x[2]->qty, 2);
    cr_assert_eq(x[2]->event, 5);
    cr_assert_eq(m.volume, 2);
    cr_assert_eq(m.final_q, 2);
    /* Orders: 4 at row 0, 4 requotes at row 3 (4 cancels), and at row 5 the rejected rung 0 asks
     * again for min(2, 4 - 2) = 2 at 101. */
    cr_assert_eq(m.orders, 9);
    cr_assert_eq(m.cancels, 4);
}

/* book = l2: the depth stream (2 levels) shows 99 with 7 lots; rung 1 lands behind them (ahead 7,
 * not deep). Row 2 adds 5 lots at 99 (behind it: ahead stays 7). Row 3: 100 empties, 99 is the
 * best with 12. Row 4: a sell of 9 at 99: rung 0 (100) fills 1 through; the 8 left take the 7
 * ahead of rung 1 and fill 1. Under l1 rung 1 was deep and went behind all 12 at row 3: the 8 do
 * not reach it. */
Test(ladder, each_rung_keeps_its_own_queue_under_l2)
{
    const row r[] = {{0, 100, 5, 102, 5, 0, 0, 0},
                     {1, 100, 5, 102, 5, 0, 0, 0},
                     {2, 100, 5, 102, 5, 0, 0, 0},
                     {3, 99, 12, 102, 5, 0, 0, 0},
                     {4, 99, 3, 102, 5, 99, 9, -1}};
    const tu_drow d[] = {
        {0, 1, 100, 5, MM_DEPTH_SHOW, -1},  {0, 1, 99, 7, MM_DEPTH_SHOW, -1},
        {0, -1, 102, 5, MM_DEPTH_SHOW, -1}, {0, -1, 103, 4, MM_DEPTH_SHOW, -1},
        {2, 1, 99, 12, MM_DEPTH_ADD, -1},   {3, 1, 100, 0, MM_DEPTH_CANCEL, -1},
        {4, 1, 99, 3, MM_DEPTH_TRADE, -1},
    };
    mm_ticks t = tu_rows_depth_tape(r, 5, d, 7, 2, 0, "LAD2", 0.25, 2);
    mm_params p = base(2, 1, 10);
    p.requote_ticks = 5;
    p.book = MM_BOOK_L2;
    trace_log l;
    mm_metrics m = run_tape(&t, &p, &l);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 2);
    cr_assert_eq(f[0]->px, 100);
    cr_assert_eq(f[1]->px, 99);
    cr_assert_eq(m.volume, 2);
    p.book = MM_BOOK_L1;
    m = run_tape(&t, &p, &l);
    cr_assert_eq(m.volume, 1, "l1: only rung 0 (got %" PRId64 ")", m.volume);
    mm_ticks_free(&t);
}

Test(ladder, one_level_is_todays_model)
{
    /* levels = 1 ignores level_step and level_size: the same metrics as the defaults. */
    mm_params p = base(1, 2, 10), q = p;
    q.level_step = 7;
    q.level_size = 3;
    trace_log l;
    mm_metrics a = run(THROUGH, 3, &p, &l), b = run(THROUGH, 3, &q, &l);
    cr_assert(a.pnl == b.pnl && a.volume == b.volume && a.orders == b.orders);
    cr_assert_eq(a.volume, 2);
}

/* The content hash a sweep prints ("content hash H"), or 0. */
static unsigned long long sweep_hash(const char *engine, const char *out)
{
    const char *a[] = {"mmsim",
                       "sweep",
                       tu_path("t.h5"),
                       "--grid",
                       "spread=1:3",
                       "--grid",
                       "levels=1,2,4",
                       "--grid",
                       "level_size=1,1.5",
                       "--set",
                       "level_step=2",
                       "--set",
                       "latency_ns=100000",
                       "--engine",
                       engine,
                       "-o",
                       tu_path(out),
                       NULL};
    char *so = NULL, *se = NULL;
    cr_assert_eq(tu_run(a, &so, &se), 0, "%s", se);
    const char *h = strstr(so, "content hash ");
    if (!h && se) h = strstr(se, "content hash ");
    unsigned long long v = h ? strtoull(h + 13, NULL, 16) : 0;
    free(so);
    free(se);
    return v;
}

Test(ladder, sweeps_over_levels_give_one_content_hash_on_every_cpu_engine, .timeout = 120)
{
    const char *g[] = {"mmsim", "gen", "--seed",        "3", "--events", "3000", "--symbol",
                       "LAD",   "-o",  tu_path("t.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    unsigned long long s = sweep_hash("serial", "s.h5");
    cr_assert_neq(s, 0);
    cr_assert_eq(sweep_hash("threads", "t2.h5"), s);
    cr_assert_eq(sweep_hash("process", "p.h5"), s);
    tu_cleanup();
}

Test(ladder, the_cuda_engine_refuses_a_ladder_before_anything_runs, .timeout = 60)
{
    setenv("MMSIM_CUDA_EMULATE", "1", 1); /* the engine's host loop without a device */
    const char *g[] = {"mmsim", "gen", "--seed",        "3", "--events", "500", "--symbol",
                       "LAD",   "-o",  tu_path("t.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *a[] = {"mmsim", "sweep", tu_path("t.h5"), "--grid", "levels=1,4", "--engine",
                       "cuda",  "-o",    tu_path("o.h5"), NULL};
    char *se = NULL;
    cr_assert_eq(tu_run(a, NULL, &se), 2);
    cr_assert(strstr(se, "levels: ladders (levels > 1, here 4) run on the CPU engines only"), "%s",
              se);
    cr_assert_neq(access(tu_path("o.h5"), F_OK), 0);
    free(se);
    unsetenv("MMSIM_CUDA_EMULATE");
    tu_cleanup();
}
