/* The model's rules, one hand-built scenario each (docs/model.md). Every scenario also runs through
 * the batched kernel, which must agree with the reference bit for bit. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

typedef tu_row row;

static mm_ticks make_tape(const row *r, int n)
{
    return tu_rows_tape(r, n, "HAND", 0.01, 1);
}

#define MAXREC 512
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

typedef struct big_log {
    int n;
    mm_trace_rec r[20000];
} big_log;

static void on_trace_big(const mm_trace_rec *r, void *user)
{
    big_log *l = user;
    cr_assert_lt(l->n, 20000);
    l->r[l->n++] = *r;
}

/* Base parameters: fixed offset 1 tick around the mid, 5 lots, limit 5, no latency, risk-averse
 * queue. */
static mm_params base(void)
{
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1;
    p.quote_size = 5;
    p.inv_limit = 5;
    p.queue_rule = MM_QUEUE_RISK_AVERSE;
    return p;
}

/* Run the reference with a trace and the batched kernel; check they agree; return the reference. */
static mm_metrics run(const row *rows, int n, const mm_params *p, trace_log *log)
{
    mm_ticks t = make_tape(rows, n);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_metrics m, b;
    mm_error e = {0};
    if (log) log->n = 0;
    cr_assert_eq(mm_sim_run_c(&t, &c, p, &m, log ? on_trace : NULL, log, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(&t, &c, p, 1, &b, &e), 0, "%s", e.msg);
    cr_assert_eq(m.volume, b.volume);
    cr_assert_eq(m.fills_bid, b.fills_bid);
    cr_assert_eq(m.fills_ask, b.fills_ask);
    cr_assert_eq(m.orders, b.orders);
    cr_assert(m.pnl == b.pnl && m.fees == b.fees && m.markout[0] == b.markout[0]);
    cr_assert(m.pnl_close == b.pnl_close && m.held == b.held && m.rejects == b.rejects &&
              m.orders_per_s == b.orders_per_s);
    mm_ticks_free(&t);
    return m;
}

/* Fills of a side in the trace, in order: qty and px. */
static int fills_of(const trace_log *l, int side, int32_t *qty, int32_t *px, int64_t *ts)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->r[i].kind == MM_TR_FILL && l->r[i].side == side) {
            if (qty) qty[k] = l->r[i].qty;
            if (px) px[k] = l->r[i].px;
            if (ts) ts[k] = l->r[i].ts_ns;
            k++;
        }
    return k;
}

/* Section 4.1, fill_volume = bounded (the default): a trade through our price fills at most its
 * size: our better-priced order was hit first, but only by what traded. */
Test(fills, trade_through_fills_at_most_the_traded_size)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},  /* our bid 100 x 5 is live, 10 ahead */
               {2, 99, 4, 102, 10, 99, 1, -1},  /* a 1-lot sell prints at 99: through our price */
               {3, 99, 4, 102, 10, 98, 3, -1}}; /* 3 more lots print through: min(4 left, 3) */
    mm_params p = base();
    trace_log l;
    mm_metrics m = run(r, 4, &p, &l);
    int32_t q[8], px[8];
    cr_assert_eq(fills_of(&l, 1, q, px, NULL), 2);
    cr_assert_eq(q[0], 1, "min(5 remaining, 1 traded) = 1");
    cr_assert_eq(px[0], 100, "at our limit price");
    cr_assert_eq(q[1], 3, "min(4 remaining, 3 traded) = 3");
    cr_assert_eq(m.final_q, 4);
}

/* Section 4.1, fill_volume = unbounded (the rule before 2026-12): the whole remaining order. */
Test(fills, trade_through_fills_whole_order_when_unbounded)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},  /* our bid 100 x 5 is live, 10 ahead */
               {2, 99, 4, 102, 10, 99, 1, -1}}; /* a 1-lot sell prints at 99: through our price */
    mm_params p = base();
    p.fill_volume = MM_FILL_UNBOUNDED;
    trace_log l;
    mm_metrics m = run(r, 3, &p, &l);
    int32_t q[8], px[8];
    cr_assert_eq(fills_of(&l, 1, q, px, NULL), 1);
    cr_assert_eq(q[0], 5, "the whole order fills, not just the 1 lot printed");
    cr_assert_eq(px[0], 100, "at our limit price");
    cr_assert_eq(m.final_q, 5);
}

Test(fills, trade_at_our_price_waits_for_the_queue_then_fills_partially)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},     /* live, 10 ahead */
               {2, 100, 2, 102, 10, 100, 8, -1},   /* 8 traded: 2 still ahead, no fill */
               {3, 100, 1, 102, 10, 100, 3, -1},   /* 3 traded: 2 ahead go, 1 fills us (partial) */
               {4, 100, 1, 102, 10, 100, 10, -1}}; /* 10 traded: the remaining 4 fill */
    mm_params p = base();
    trace_log l;
    run(r, 5, &p, &l);
    int32_t q[8];
    int64_t ts[8];
    cr_assert_eq(fills_of(&l, 1, q, NULL, ts), 2);
    cr_assert_eq(q[0], 1);
    cr_assert_eq(ts[0], INT64_C(1000000000000) + 3000000);
    cr_assert_eq(q[1], 4);
}

/* Queue ahead after a cancel, measured by the size of the trade needed to reach us. */
static int32_t first_fill_after_cancel(int rule, double n)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},      /* live, 10 ahead */
               {2, 100, 40, 102, 10, 0, 0, 0},      /* 30 join behind us */
               {3, 100, 34, 102, 10, 0, 0, 0},      /* 6 cancelled: how many were ahead? */
               {4, 100, 23, 102, 10, 100, 11, -1}}; /* 11 trade at 100 */
    mm_params p = base();
    p.queue_rule = rule;
    p.queue_n = n;
    trace_log l;
    run(r, 5, &p, &l);
    int32_t q[8];
    return fills_of(&l, 1, q, NULL, NULL) ? q[0] : 0;
}

Test(queue, cancel_shrinks_queue_ahead_by_rule)
{
    /* risk-averse: none of the 6 was ahead, 10 ahead remain, 11 traded fill 1. */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_RISK_AVERSE, 1), 1);
    /* power n=2: share 10^2 / (10^2 + 30^2) = 0.1, floor(6 x 0.1 + 0.5) = 1 leaves 9 ahead: fill 2.
     */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_POWER, 2), 2);
    /* power n=1: share 10/40 = 0.25, floor(1.5 + 0.5) = 2 leaves 8 ahead: fill 3. */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_POWER, 1), 3);
    /* log: ln 11 / (ln 11 + ln 31) = 0.4112, floor(2.467 + 0.5) = 2 leaves 8: fill 3. */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_LOG, 1), 3);
}

/* Section 4.3, bounded: the ask falls to our price with 3 lots shown: 3 of our 5 fill. */
Test(fills, book_cross_fills_at_most_the_displayed_size)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 100, 3, 0, 0, 0}}; /* the ask falls to our price: 3 lots shown */
    mm_params p = base();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &l);
    int32_t q[8];
    cr_assert_eq(fills_of(&l, 1, q, NULL, NULL), 1);
    cr_assert_eq(q[0], 3, "min(5, 3 shown)");
    cr_assert_eq(m.final_q, 3);
}

Test(fills, book_cross_fills_whole_order_when_unbounded)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 100, 3, 0, 0, 0}}; /* the ask falls to our price: we were taken */
    mm_params p = base();
    p.fill_volume = MM_FILL_UNBOUNDED;
    trace_log l;
    mm_metrics m = run(r, 3, &p, &l);
    int32_t q[8];
    cr_assert_eq(fills_of(&l, 1, q, NULL, NULL), 1);
    cr_assert_eq(q[0], 5);
    cr_assert_eq(m.final_q, 5);
}

/* A trade through our price and a cross in one event: 4.1 fills min(5, 2 traded) = 2, then 4.3
 * min(3 left, 1 shown) = 1: two fills, 3 lots, never more than the 2 + 1 the market offered. */
Test(fills, trade_through_then_cross_in_one_event_each_bounded)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 98, 10, 99, 1, 98, 2, -1}};
    mm_params p = base();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &l);
    int32_t q[8];
    cr_assert_eq(fills_of(&l, 1, q, NULL, NULL), 2);
    cr_assert_eq(q[0], 2);
    cr_assert_eq(q[1], 1);
    cr_assert_eq(m.final_q, 3);
    cr_assert_eq(m.fills_bid, 2);
}

Test(fills, trade_through_only_ignores_queue_and_cross_fills)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 1, 102, 10, 100, 30, -1}, /* at our price, queue gone: would fill */
               {3, 99, 10, 100, 3, 0, 0, 0},      /* cross: would fill */
               {4, 98, 10, 100, 3, 97, 1, -1}};   /* through: fills */
    mm_params p = base();
    p.trade_through_only = 1;
    trace_log l;
    run(r, 5, &p, &l);
    int64_t ts[8];
    cr_assert_eq(fills_of(&l, 1, NULL, NULL, ts), 1);
    cr_assert_eq(ts[0], INT64_C(1000000000000) + 4000000);
}

Test(latency, delays_activation)
{
    row r[] = {
        {0, 100, 10, 102, 10, 0, 0, 0},
        {0.5, 99, 10, 102, 10, 99, 1, -1}, /* through 100, but our order is still in flight */
        {1.5, 100, 10, 102, 10, 0, 0, 0},
        {3, 99, 10, 102, 10, 99, 1, -1}}; /* through 100 again: now it is live */
    mm_params p = base();
    p.latency_ns = 1000000;
    trace_log l;
    run(r, 4, &p, &l);
    int64_t ts[8];
    cr_assert_eq(fills_of(&l, 1, NULL, NULL, ts), 1);
    cr_assert_eq(ts[0], INT64_C(1000000000000) + 3000000);
    for (int i = 0; i < l.n; i++)
        if (l.r[i].kind == MM_TR_ACTIVE && l.r[i].side == 1) {
            cr_assert_geq(l.r[i].ts_ns, INT64_C(1000000000000) + 1000000,
                          "activated before the latency elapsed");
            break;
        }
    /* Feed latency adds to the delay. */
    p.latency_ns = 500000;
    p.feed_latency_ns = 600000;
    run(r, 4, &p, &l);
    cr_assert_eq(fills_of(&l, 1, NULL, NULL, ts), 1);
    cr_assert_eq(ts[0], INT64_C(1000000000000) + 3000000);
}

Test(latency, old_order_fills_while_its_cancel_is_in_flight)
{
    row r[] = {
        {0, 100, 10, 102, 10, 0, 0, 0},
        {2, 100, 10, 102, 10, 0, 0, 0},  /* bid 100 live */
        {3, 102, 10, 104, 10, 0, 0, 0},  /* mid up 2: replace 100 -> 102 sent, lands at 5 ms */
        {4, 99, 10, 104, 10, 99, 1, -1}, /* through 100 while the cancel is in flight */
        {6, 102, 10, 104, 10, 0, 0, 0}};
    mm_params p = base();
    p.latency_ns = 2000000;
    trace_log l;
    run(r, 5, &p, &l);
    int32_t q[8], px[8];
    int64_t ts[8];
    cr_assert_eq(fills_of(&l, 1, q, px, ts), 1);
    cr_assert_eq(px[0], 100, "the old order filled");
    cr_assert_eq(ts[0], INT64_C(1000000000000) + 4000000);
    int cancels = 0;
    for (int i = 0; i < l.n; i++)
        cancels += l.r[i].kind == MM_TR_CANCEL && l.r[i].side == 1;
    cr_assert_geq(cancels, 1);
}

Test(inventory, limit_stops_the_bid)
{
    row r[40];
    int n = 0;
    r[n++] = (row){0, 100, 10, 102, 10, 0, 0, 0};
    for (int k = 1; k < 20; k++) /* a sell trade through the bid every ms */
        r[n++] = (row){k, 100, 10, 102, 10, 99, 1, -1};
    mm_params p = base();
    p.quote_size = 2;
    p.inv_limit = 5;
    trace_log l;
    mm_metrics m = run(r, n, &p, &l);
    cr_assert_eq(m.max_abs_q, 5, "fills of 2, 2, then an order of 1 lot reach the limit exactly");
    cr_assert_eq(m.final_q, 5);
    int bids_at_limit = 0;
    for (int i = 0; i < l.n; i++) {
        cr_assert_leq(l.r[i].q, 5);
        if (l.r[i].kind == MM_TR_ORDER && l.r[i].side == 1) {
            cr_assert_leq(l.r[i].q + l.r[i].qty, 5, "bid of %d sent at q=%ld", l.r[i].qty,
                          (long)l.r[i].q);
            bids_at_limit += l.r[i].q == 5;
        }
    }
    cr_assert_eq(bids_at_limit, 0, "no bid is sent at the limit");
}

Test(fills, post_only_never_takes)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0}, /* bid target 100 sent, lands at 1 ms */
               {0.5, 99, 10, 100, 5, 0, 0, 0}, /* the ask comes down to 100 before it lands */
               {2, 99, 10, 100, 5, 0, 0, 0}};
    mm_params p = base();
    p.latency_ns = 1000000;
    p.inv_limit = 5;
    p.taker_fee_bps = 3;
    trace_log l;
    mm_metrics m = run(r, 3, &p, &l);
    cr_assert_eq(fills_of(&l, 1, NULL, NULL, NULL), 0);
    cr_assert_geq(m.rejects, 1);
    cr_assert_eq(m.fees, 0.0);
    /* Without post-only the order takes the 5 lots offered at 100, at the taker fee. */
    p.post_only = 0;
    m = run(r, 3, &p, &l);
    int32_t q[8];
    cr_assert_eq(fills_of(&l, 1, q, NULL, NULL), 1);
    cr_assert_eq(q[0], 5);
    int taker = 0;
    for (int i = 0; i < l.n; i++)
        taker += l.r[i].kind == MM_TR_FILL && l.r[i].taker;
    cr_assert_eq(taker, 1);
    cr_assert_float_eq(m.fees, 3e-4 * 100 * 5 * 0.01, 1e-15);
}

Test(fees, maker_fee_and_rebate_signs)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 102, 10, 99, 5, -1}}; /* 5 lots through our bid: all 5 fill */
    mm_params p = base();
    p.maker_fee_bps = -2; /* rebate */
    mm_metrics m = run(r, 3, &p, NULL);
    cr_assert_lt(m.fees, 0.0, "a rebate is a negative fee");
    cr_assert_float_eq(m.fees, -2e-4 * (100 * 0.01) * 5, 1e-15);
    p.maker_fee_bps = 1.5;
    mm_metrics m2 = run(r, 3, &p, NULL);
    cr_assert_gt(m2.fees, 0.0);
    cr_assert_float_eq(m.pnl - m2.pnl, 3.5e-4 * 5, 1e-12, "PnL is after fees");
}

Test(metrics, markout_is_negative_after_an_adverse_move)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 101, 10, 99, 5, -1}, /* we buy 5 at 100 */
               {500, 94, 10, 96, 10, 0, 0, 0},  /* mid falls to 95 */
               {3000, 94, 10, 96, 10, 0, 0, 0}};
    mm_params p = base();
    mm_metrics m = run(r, 5, &p, NULL);
    /* One fill, buy 5 at 100; at 1 s the mid is 95: 5 x (95 - 100) ticks x 0.01 = -0.25. */
    cr_assert_eq(m.fills_bid, 1);
    cr_assert_float_eq(m.markout[0], -0.25, 1e-12);
    cr_assert_lt(m.markout[1], 0.0);
}

Test(metrics, pnl_identity_at_every_trace_step)
{
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = 77;
    gp.events = 3000;
    gp.trade_frac = 0.3;
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(&gp, &t, &e), 0);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p = base();
    p.queue_rule = MM_QUEUE_POWER;
    p.maker_fee_bps = -1;
    p.latency_ns = 50000;
    big_log *b = calloc(1, sizeof *b);
    cr_assert_not_null(b);
    mm_metrics m;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, on_trace_big, b, &e), 0);
    cr_assert_gt(b->n, 100);
    /* Rebuild cash, position and fees from the fills alone; the trace's PnL must be cash + q x mid
     * - fees. */
    int64_t cash2 = 0, q = 0;
    double fees = 0;
    int nfill = 0;
    for (int i = 0; i < b->n; i++) {
        const mm_trace_rec *r = &b->r[i];
        if (r->kind == MM_TR_FILL) {
            q += r->side * (int64_t)r->qty;
            cash2 -= 2 * r->side * (int64_t)r->px * r->qty;
            fees += (r->taker ? p.taker_fee_bps : p.maker_fee_bps) * 1e-4 * 0.01 *
                    ((double)r->px * r->qty);
            nfill++;
        }
        cr_assert_eq(r->q, q, "record %d", i);
        cr_assert_eq(r->cash2, cash2, "record %d", i);
        double pnl = (double)(cash2 + q * r->mid2) * 0.5 * 0.01 - fees;
        cr_assert(fabs(r->pnl - pnl) <= 1e-9 * (1 + fabs(pnl)), "record %d: %.12g vs %.12g", i,
                  r->pnl, pnl);
    }
    cr_assert_gt(nfill, 10);
    cr_assert_eq(m.final_q, q);
    free(b);
    mm_ticks_free(&t);
}

/* ---- Domains and limits (docs/model.md, section 1.2): every value outside is refused, naming the
 * key; the extremes inside run without overflow. ---- */

/* Trace records of one kind and side, in order. */
static int records(const trace_log *l, int kind, int side, int32_t *px, int max)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->r[i].kind == kind && l->r[i].side == side) {
            if (k < max) px[k] = l->r[i].px;
            k++;
        }
    return k;
}

Test(limits, sample_clock_with_too_many_samples_is_refused_naming_sample_ns_and_the_count)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {100, 100, 10, 102, 10, 0, 0, 0},
               {200, 100, 10, 102, 10, 0, 0, 0}};
    mm_ticks t = make_tape(r, 3);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p = base();
    mm_metrics m;
    mm_error e = {0};
    c.sample_ns = 1; /* 200 ms / 1 ns = 2e8 samples: more than MM_SIM_SAMPLES_MAX */
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), MM_EUSAGE);
    cr_assert_str_eq(
        e.msg, "sample_ns: 1 ns gives 200000000 samples over the 0.2 s of instrument HAND (at most "
               "100000000; take a longer clock)");
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &m, &e), MM_EUSAGE);
    cr_assert_eq(mm_sim_config_check(&c, &t, &e), MM_EUSAGE);
    c.sample_ns = 2; /* exactly MM_SIM_SAMPLES_MAX: accepted */
    cr_assert_eq(mm_sim_config_check(&c, &t, &e), 0, "%s", e.msg);
    c.sample_ns = 200; /* 1e6 samples: runs */
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &m, &e), 0, "%s", e.msg);
    c.sample_ns = 0;
    cr_assert_eq(mm_sim_config_check(&c, NULL, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "sample_ns: 0 must be > 0 ns");
    mm_ticks_free(&t);
}

Test(limits, timestamps_beyond_2_pow_62_are_refused_before_any_arithmetic, .timeout = 20)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 0, 0, 0}};
    mm_ticks t = make_tape(r, 3);
    t.ts_ns[0] = INT64_MIN;
    t.ts_ns[2] =
        INT64_MAX; /* a span that overflows int64 (took 21 s a combination, then wrapped) */
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p = base();
    mm_metrics m;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), MM_EINVALID);
    cr_assert_str_eq(
        e.msg,
        "instrument HAND: column ts_ns: row 0: timestamp -9223372036854775808 is outside the "
        "simulator's range [-2^62, 2^62 - 1] ns");
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &m, &e), MM_EINVALID);
    /* The extremes of the range are accepted; the clock then counts 2^63 - 1 ns of span. */
    t.ts_ns[0] = MM_SIM_TS_MIN;
    t.ts_ns[2] = MM_SIM_TS_MAX;
    c.sample_ns = INT64_C(1) << 60; /* 7 samples */
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &m, &e), 0, "%s", e.msg);
    /* Out of order (a tape built in memory or loaded without verification). */
    t.ts_ns[1] = MM_SIM_TS_MAX;
    t.ts_ns[2] = 0;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "row 2: timestamp 0 is before the previous row's"), "%s", e.msg);
    mm_ticks_free(&t);
}

Test(limits, markout_horizon_is_bounded_and_a_horizon_past_the_tape_takes_the_last_mid)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 101, 10, 99, 5, -1}, /* we buy 5 at 100 */
               {3, 90, 10, 92, 10, 0, 0, 0}};   /* last mid 91 */
    mm_ticks t = make_tape(r, 4);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p = base();
    mm_metrics m, b;
    mm_error e = {0};
    c.markout_ns[0] = INT64_MAX; /* ts + horizon overflowed */
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), MM_EUSAGE);
    cr_assert_str_eq(
        e.msg, "markout_ns: horizon 1: 9223372036854775807 must be in [1, 1000000000000000000] ns");
    c.markout_ns[0] = 0;
    cr_assert_eq(mm_sim_config_check(&c, NULL, &e), MM_EUSAGE);
    c.markout_ns[0] = MM_SIM_HORIZON_MAX_NS;
    c.markout_ns[2] = 1;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &b, &e), 0, "%s", e.msg);
    cr_assert_eq(m.fills_bid, 1);
    cr_assert_float_eq(m.markout[0], 5 * (91 - 100) * 0.01, 1e-12); /* the last mid of the tape */
    cr_assert_float_eq(m.markout[2], 5 * (100 - 100) * 0.01,
                       1e-12); /* 1 ns later: the mid of the fill event */
    cr_assert(m.markout[0] == b.markout[0] && m.markout[2] == b.markout[2]);
    c.year_s = -1;
    cr_assert_eq(mm_sim_config_check(&c, NULL, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "year_s: -1 must be 0 (the tape's) or in (0, 1e12] s");
    mm_ticks_free(&t);
}

/* One value for a key: accepted or refused with the exact message. */
static void expect_param(const char *strategy, const char *key, const char *value, const char *msg)
{
    mm_params p;
    mm_params_defaults(&p);
    mm_error e = {0};
    cr_assert_eq(mm_params_set(&p, "strategy", strategy, &e), 0);
    cr_assert_eq(mm_params_set(&p, key, value, &e), 0, "%s", e.msg);
    int rc = mm_params_check(&p, &e);
    if (!msg) {
        cr_assert_eq(rc, 0, "%s=%s: %s", key, value, e.msg);
    } else {
        cr_assert_eq(rc, MM_EUSAGE, "%s=%s accepted", key, value);
        cr_assert_str_eq(e.msg, msg);
    }
}

Test(params, every_domain_is_enforced_naming_the_key)
{
    expect_param("fixed", "spread", "-0.5", "spread: -0.5 must be in [0, 1e6) ticks");
    expect_param("fixed", "skew", "-1", "skew: -1 must be in [0, 1e6) ticks/lot");
    expect_param("fixed", "skew", "999999.99", NULL);
    expect_param("fixed", "size", "0", "size: 0 must be in [1, 1e8] lots");
    expect_param("fixed", "inv_limit", "0", "inv_limit: 0 must be in [size=1, 1e9] lots");
    expect_param("fixed", "requote", "0", "requote: 0 must be in [1, 2147483647] ticks");
    expect_param("fixed", "requote", "2147483647", NULL);
    expect_param("fixed", "queue_n", "0", "queue_n: 0 must be in (0, 100]");
    expect_param("fixed", "queue_n", "100.000001", "queue_n: 100.000001 must be in (0, 100]");
    expect_param("fixed", "queue_n", "100", NULL);
    /* The value as given, not rounded by %g onto the bound (issue 27: "1 must be in [0, 1]"). */
    expect_param("fixed", "trade_reach", "1.0000001", "trade_reach: 1.0000001 must be in [0, 1]");
    expect_param("fixed", "trade_reach", "-1e-300", "trade_reach: -1e-300 must be in [0, 1]");
    expect_param("fixed", "queue_n", "1e-300", NULL);
    expect_param("fixed", "latency_ns", "-1", "latency_ns: -1 must be in [0, 1 h] ns");
    expect_param("fixed", "feed_latency_ns", "3600000000001",
                 "feed_latency_ns: 3600000000001 must be in [0, 1 h] ns");
    expect_param("fixed", "maker_fee_bps", "10000",
                 "maker_fee_bps: 10000 must be within +-1e4 bps");
    expect_param("fixed", "taker_fee_bps", "-9999.99", NULL);
    expect_param("as", "as_gamma", "1e-7", "as_gamma: 1e-07 must be in [1e-6, 1e6)");
    expect_param("as", "as_gamma", "1e-6", NULL);
    expect_param("as", "as_k", "1e-300", "as_k: 1e-300 must be in [1e-6, 1e6)");
    expect_param("as", "as_sigma", "1e6", "as_sigma: 1e+06 must be in [0, 1e6)");
    expect_param("as", "as_horizon", "-1", "as_horizon: -1 must be in [0, 1e9) s");
    expect_param("glft", "glft_gamma", "0", "glft_gamma: 0 must be in [1e-6, 1e6)");
    expect_param("glft", "glft_k", "1e-300", "glft_k: 1e-300 must be in [1e-6, 1e6)");
    expect_param("glft", "glft_k", "1e-6", NULL);
    expect_param("glft", "glft_A", "1e-7", "glft_A: 1e-07 must be in [1e-6, 1e9)");
    expect_param("glft", "glft_sigma", "-1", "glft_sigma: -1 must be in [0, 1e6)");
    expect_param("glft", "glft_Q", "0", "glft_Q: 0 must be in [1, 2147483647]");
    expect_param("glft", "glft_Q", "2147483647", NULL);
}

/* A small two-sided tape with trades through both sides. */
static mm_metrics run_rows_extreme(const mm_params *p, trace_log *l)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},   {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 100, 102, 10, 99, 1, -1}, {3, 99, 100, 101, 10, 102, 1, 1},
               {4, 98, 100, 101, 10, 97, 1, -1}, {5, 98, 100, 103, 10, 104, 1, 1}};
    return run(r, 6, p, l);
}

Test(targets, huge_avellaneda_stoikov_quotes_are_clamped_not_wrapped)
{
    /* hs = gamma sigma^2 H / 2 = 5e22 ticks: before the clamp came first, the ask went through
     * int64 (undefined) and came out at -2147483647 on x86, selling at -21,474,836.47 a lot. */
    mm_params p = base();
    p.strategy = MM_STRAT_AS;
    p.as_gamma = 1e5;
    p.as_sigma = 1e5;
    p.as_horizon_s = 1e8;
    p.post_only = 0;
    trace_log l;
    mm_metrics m = run_rows_extreme(&p, &l);
    cr_assert_eq(m.fills_bid + m.fills_ask, 0, "quotes at the clamp bounds never fill here");
    int32_t px[64];
    int n = records(&l, MM_TR_ORDER, 1, px, 64);
    cr_assert_geq(n, 1);
    for (int i = 0; i < n && i < 64; i++)
        cr_assert_eq(px[i], -2147483647);
    n = records(&l, MM_TR_ORDER, -1, px, 64);
    cr_assert_geq(n, 1);
    for (int i = 0; i < n && i < 64; i++)
        cr_assert_eq(px[i], 2147483646);
}

Test(targets, glft_at_the_edges_of_its_domain_quotes_finite_clamped_prices)
{
    /* The smallest k, A and the largest gamma, sigma: x ~ 1e41, still finite (a k of 1e-300 gave x
     * = inf and a NaN target; it is now refused). Every accepted corner quotes inside the clamp
     * bounds. */
    double g[] = {1e-6, 999999}, k[] = {1e-6, 999999}, a[] = {1e-6, 999999999}, s[] = {0, 999999};
    for (int i = 0; i < 16; i++) {
        mm_params p = base();
        p.strategy = MM_STRAT_GLFT;
        p.glft_gamma = g[i & 1];
        p.glft_k = k[(i >> 1) & 1];
        p.glft_A = a[(i >> 2) & 1];
        p.glft_sigma = s[(i >> 3) & 1];
        p.glft_Q = 1;
        p.post_only = 0;
        mm_error e = {0};
        cr_assert_eq(mm_params_check(&p, &e), 0, "%s", e.msg);
        trace_log l;
        run_rows_extreme(&p, &l);
        for (int j = 0; j < l.n; j++)
            cr_assert(l.r[j].px >= -2147483647 && l.r[j].px <= 2147483646 &&
                      l.r[j].pnl == l.r[j].pnl);
    }
}

Test(requote, distance_from_a_clamped_order_is_exact_and_the_due_requote_is_sent)
{
    /* skew 1e5 ticks/lot x q 30000 lots = 3e9 ticks: both targets clamp to -2147483647. A bid then
     * rests there; when the ask (taking, post_only 0) brings q back to 0 the bid's target is ~99
     * again, 2^31 + 98 ticks away: an int32 distance wrapped negative and the due requote was
     * skipped. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},          /* bid 100 and ask 102 live */
               {2, 99, 100000, 102, 10, 99, 30000, -1}, /* through our bid: buy 30000 */
               {3, 99, 100000, 102, 10, 0, 0, 0}, /* the ask at -2147483647 takes 30000: q = 0 */
               {4, 99, 100000, 102, 10, 0, 0, 0},
               {5, 98, 100000, 102, 10, 97, 1, -1}}; /* through the requoted bid */
    mm_params p = base();
    p.skew_ticks = 1e5;
    p.quote_size = 30000;
    p.inv_limit = 60000;
    p.post_only = 0;
    p.cross_rule = MM_CROSS_REJECT; /* the clamped ask must take, not join the best ask */
    trace_log l;
    mm_metrics m = run(r, 6, &p, &l);
    int cancelled_clamped = 0, requoted = 0;
    for (int i = 0; i < l.n; i++) {
        const mm_trace_rec *x = &l.r[i];
        if (x->kind == MM_TR_CANCEL && x->side == 1 && x->px == -2147483647) cancelled_clamped = 1;
        if (cancelled_clamped && x->kind == MM_TR_ORDER && x->side == 1 && x->px > 90 &&
            x->px < 110)
            requoted = 1;
    }
    cr_assert(cancelled_clamped,
              "the bid resting at the clamp bound is cancelled when q returns to 0");
    cr_assert(requoted, "and a new bid is sent near the market");
    cr_assert_eq(m.fills_bid, 2, "the requoted bid fills on the trade through 98");
}

/* Queue ahead after cancels, at the extremes of the power rule: the first fill (lots) when a trade
 * of `trade` lots prints at our price after `dec` lots are cancelled from a level of `pbs` lots
 * where `ahead` are in front of us. */
static int32_t fill_after_big_cancel(int rule, double n, int32_t ahead, int32_t pbs, int32_t dec,
                                     int32_t trade)
{
    row r[] = {{0, 100, ahead, 102, 10, 0, 0, 0},
               {1, 100, ahead, 102, 10, 0, 0, 0},     /* live, `ahead` in front */
               {2, 100, pbs, 102, 10, 0, 0, 0},       /* pbs - ahead join behind us */
               {3, 100, pbs - dec, 102, 10, 0, 0, 0}, /* dec cancelled */
               {4, 100, pbs - dec, 102, 10, 100, trade, -1}};
    mm_params p = base();
    p.queue_rule = rule;
    p.queue_n = n;
    trace_log l;
    run(r, 5, &p, &l);
    int32_t q[8];
    return fills_of(&l, 1, q, NULL, NULL) ? q[0] : 0;
}

Test(queue, power_rule_at_n_100_and_int32_queues_stays_in_the_exp_domain)
{
    /* n ln(2e9) = 2142: x^n overflows mm_det_exp's domain (it gave a weight of -3.9e-287). */
    /* Ahead 2e9, behind 147483647: share = 1 / (1 + (0.0737)^100) = 1: all 1e8 cancels were ahead.
     */
    cr_assert_eq(
        fill_after_big_cancel(MM_QUEUE_POWER, 100, 2000000000, 2147483647, 100000000, 1900000003),
        3);
    /* Ahead 1e8, behind 2047483647: share ~ (0.049)^100 = 0: nobody ahead cancelled; 1e8 + 2 traded
     * fill 2. */
    cr_assert_eq(
        fill_after_big_cancel(MM_QUEUE_POWER, 100, 100000000, 2147483647, 1000000000, 100000002),
        2);
    /* Ahead == behind: share 1/2 exactly on both paths: 500 of 1000 cancels were ahead. */
    cr_assert_eq(
        fill_after_big_cancel(MM_QUEUE_POWER, 100, 1000000000, 2000000000, 1000, 999999504), 4);
    /* The log rule at the same sizes: share ln(2e9+1) / (ln(2e9+1) + ln(147483648)) = 0.532407:
     * 53240701 of the cancels were ahead, 1946759299 remain; a trade of that + 3 fills 3. */
    cr_assert_eq(
        fill_after_big_cancel(MM_QUEUE_LOG, 1, 2000000000, 2147483647, 100000000, 1946759302), 3);
    /* The smallest n: every weight is 1, the share 1/2. */
    cr_assert_eq(fill_after_big_cancel(MM_QUEUE_POWER, 1e-300, 10, 40, 6, 8), 1);
}

Test(accounting, cash_past_2_pow_62_fails_the_run_instead_of_wrapping)
{
    /* Round trips that buy 1e8 lots near 100 and sell them, taking, at the clamp bound -2147483647:
     * each cycle moves cash by ~2^32 x 1e8 half-ticks; after 11 it passes 2^62, after 22 it would
     * wrap int64. */
    row r[3 + 3 * 30];
    int n = 0;
    r[n++] = (row){0, 100, 200000000, 102, 10, 0, 0, 0};
    r[n++] = (row){1, 100, 200000000, 102, 10, 0, 0, 0};
    for (int c = 0; c < 30; c++) {
        double t0 = 2 + 3 * c;
        r[n++] = (row){t0, 100, 200000000, 102, 10, 99, 100000000, -1}; /* through: buy 1e8 */
        r[n++] =
            (row){t0 + 1, 100, 200000000, 102, 10, 0, 0, 0}; /* our ask at the bound takes: q = 0 */
        r[n++] =
            (row){t0 + 2, 100, 200000000, 102, 10, 0, 0, 0}; /* quotes near the market land again */
    }
    mm_ticks t = make_tape(r, n);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p = base();
    p.skew_ticks = 1e5;
    p.quote_size = 100000000;
    p.inv_limit = 100000000;
    p.post_only = 0;
    p.cross_rule = MM_CROSS_REJECT; /* quotes at the clamp bounds take instead of joining */
    mm_metrics m;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), -ERANGE);
    cr_assert(strstr(e.msg, "cash or markout passed 2^62 half-ticks x lots at event "), "%s",
              e.msg);
    mm_params ps[2] = {base(), p};
    mm_metrics mb[2];
    cr_assert_eq(mm_sim_run_batch(&t, &c, ps, 2, mb, &e), -ERANGE);
    cr_assert(strstr(e.msg, "combination 1: cash or markout passed"), "%s", e.msg);
    /* Ten cycles stay below 2^62: the run succeeds, exact. */
    mm_ticks t10 = make_tape(r, 2 + 3 * 10);
    cr_assert_eq(mm_sim_run_c(&t10, &c, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(m.fills_bid, 10);
    mm_ticks_free(&t10);
    mm_ticks_free(&t);
}

Test(queue, cancel_count_with_int32_max_sizes_is_exact)
{
    /* pbs 1, then a trade of INT32_MAX at our price and a level of INT32_MAX: pbs - bs - traded is
     * 1 - 2 x 2147483647, which wrapped to +3 in int32 and cut the one lot ahead of us as
     * "cancelled". Under trade-through-only the order does not fill at its price, so the queue
     * update runs. */
    row r[] = {{0, 100, 1, 102, 10, 0, 0, 0},
               {1, 100, 1, 102, 10, 0, 0, 0}, /* live, 1 ahead */
               {2, 100, 2147483647, 102, 10, 100, 2147483647, -1},
               {3, 100, 2147483647, 104, 10, 0, 0, 0}}; /* fair 102: the bid is requoted */
    mm_params p = base();
    p.trade_through_only = 1;
    p.queue_rule = MM_QUEUE_POWER;
    trace_log l;
    run(r, 4, &p, &l);
    int found = 0;
    for (int i = 0; i < l.n; i++)
        if (l.r[i].kind == MM_TR_CANCEL && l.r[i].side == 1) {
            cr_assert_eq(l.r[i].ahead, 1, "no lot ahead of us was cancelled");
            found = 1;
        }
    cr_assert(found);
}

Test(params, values_are_complete_decimal_numbers)
{
    mm_params p;
    mm_params_defaults(&p);
    mm_error e = {0};
    const char *bad_int[] = {" 5", "5 ", "", "0x10", "5.0", "1e3", "--5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_int / sizeof *bad_int; i++)
        cr_assert_eq(mm_params_set(&p, "size", bad_int[i], &e), MM_EUSAGE, "size '%s' accepted",
                     bad_int[i]);
    cr_assert_str_eq(e.msg, "size: 99999999999999999999 is out of range");
    mm_params_set(&p, "size", " -1", &e);
    cr_assert_str_eq(e.msg, "size: ' -1' is not a decimal integer");
    const char *bad_real[] = {"inf", "-inf",  "nan",    "0x1p3", " 1", "1.",
                              "1e",  "1e999", "1e-999", ".",     "+"};
    for (size_t i = 0; i < sizeof bad_real / sizeof *bad_real; i++)
        if (strcmp(bad_real[i], "1.") != 0)
            cr_assert_eq(mm_params_set(&p, "spread", bad_real[i], &e), MM_EUSAGE,
                         "spread '%s' accepted", bad_real[i]);
    mm_params_set(&p, "spread", "inf", &e);
    cr_assert_str_eq(e.msg, "spread: 'inf' is not a decimal number");
    cr_assert_eq(mm_params_set(&p, "size", "010", &e), 0);
    cr_assert_eq(p.quote_size, 10, "decimal, not octal");
    cr_assert_eq(mm_params_set(&p, "size", "+7", &e), 0);
    cr_assert_eq(p.quote_size, 7);
    cr_assert_eq(mm_params_set(&p, "spread", "-.5e-1", &e), 0);
    cr_assert_eq(p.spread_ticks, -0.05);
    cr_assert_eq(mm_params_set(&p, "spread", "1.", &e), 0);
    cr_assert_eq(p.spread_ticks, 1.0);
}

Test(params, an_unknown_name_lists_the_allowed_ones)
{
    mm_params p;
    mm_params_defaults(&p);
    mm_error e = {0};
    cr_assert_eq(mm_params_set(&p, "queue", "fifo", &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "queue: 'fifo' is not one of risk-averse, power, log");
    cr_assert_eq(mm_params_set(&p, "no_such_key", "1", &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "no_such_key: unknown parameter");
}

/* ---- Issue 10: passive quoting (sections 6, 6.1) and pnl_close (7.1) ---- */

/* Fixed quotes, spread 1, skew 2 ticks/lot, 1 lot, book 100 x 10 / 102 x 10 (mid 101): at q = 0
 * bid floor(101 - 1) = 100, ask ceil(101 + 1) = 102. A 1-lot sell through 99 at 2 ms fills our
 * bid: q = 1, so bid floor(101 - 1 - 2) = 98 and ask ceil(101 + 1 - 2) = 100, at the bid 100: the
 * ask target crosses. Rows every 1 ms up to 7 ms. */
static mm_metrics crossing_ask(int rule, int64_t backoff_ns, int32_t rate, trace_log *l)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},   {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 99, 1, -1}, {3, 100, 10, 102, 10, 0, 0, 0},
               {4, 100, 10, 102, 10, 0, 0, 0},   {5, 100, 10, 102, 10, 0, 0, 0},
               {6, 100, 10, 102, 10, 0, 0, 0},   {7, 100, 10, 102, 10, 0, 0, 0}};
    mm_params p = base();
    p.quote_size = 1;
    p.skew_ticks = 2;
    p.cross_rule = rule;
    p.reject_backoff_ns = backoff_ns;
    p.max_orders_per_s = rate;
    return run(r, 8, &p, l);
}

static int orders_at(const trace_log *l, int side, int32_t px)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        k += l->r[i].kind == MM_TR_ORDER && l->r[i].side == side && l->r[i].px == px;
    return k;
}

/* join: the ask target 100 goes to the best ask 102, where our ask already rests: nothing is
 * sent, nothing rejected. */
Test(passive, join_places_a_crossing_target_at_the_best_of_its_side)
{
    trace_log l;
    mm_metrics m = crossing_ask(MM_CROSS_JOIN, 0, 0, &l);
    cr_assert_eq(m.final_q, 1);
    cr_assert_eq(m.rejects, 0);
    cr_assert_eq(orders_at(&l, -1, 100), 0);
    cr_assert_eq(orders_at(&l, -1, 102), 1, "only the first ask");
}

/* reject: the replace 102 -> 100 lands at 3 ms and is rejected (post-only, 100 <= bid 100); each
 * later event sends it again: rejected at 3, 4, 5, 6 and 7 ms (5), the 6th in flight at the end. */
Test(passive, reject_rule_without_back_off_is_a_reject_storm)
{
    trace_log l;
    mm_metrics m = crossing_ask(MM_CROSS_REJECT, 0, 0, &l);
    cr_assert_eq(m.rejects, 5);
    cr_assert_eq(orders_at(&l, -1, 100), 6);
}

/* reject with a 2.5 ms back-off: rejected at 3 ms, so nothing on the ask side before 5.5 ms; sent
 * at 6 ms, rejected at 7 ms: 2 rejects, 2 orders at 100. */
Test(passive, back_off_after_a_reject_spaces_the_retries)
{
    trace_log l;
    mm_metrics m = crossing_ask(MM_CROSS_REJECT, 2500000, 0, &l);
    cr_assert_eq(m.rejects, 2);
    cr_assert_eq(orders_at(&l, -1, 100), 2);
}

/* max_orders_per_s = 2 (bucket of 2 orders, refilled one per 0.5 s), cross_rule reject:
 *   0 ms: bid 100 and ask 102 sent: used 1e9 then 2e9 (= capacity).
 *   2 ms: q = 1. The bid (none live) wants 98: used(2 ms) = 2e9 - 2e6 x 2 = 1.996e9, + 1e9 >
 *         2e9: held (held 1), ready at 2 ms + ceil((1.996e9 - 2e9 + 1e9) / 2) = 500 ms. The ask
 *         wants the replace 102 -> 100: held too (held 2): nothing sent, no cancel.
 *   600 ms: used = 2e9 - 600e6 x 2 = 0.8e9: the bid 98 goes (used 1.8e9); the ask is still held
 *         (1.8e9 + 1e9 > 2e9), not counted again.
 *   601 ms: the ask still waits (used 1.798e9).
 * orders 3, held 2, cancels 0; orders_per_s = 3 / 0.601 s. */
Test(passive, order_rate_limit_holds_orders_back_and_counts_them_once)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 99, 1, -1},
               {600, 100, 10, 102, 10, 0, 0, 0},
               {601, 100, 10, 102, 10, 0, 0, 0}};
    mm_params p = base();
    p.quote_size = 1;
    p.skew_ticks = 2;
    p.cross_rule = MM_CROSS_REJECT;
    p.max_orders_per_s = 2;
    trace_log l;
    mm_metrics m = run(r, 5, &p, &l);
    cr_assert_eq(m.orders, 3);
    cr_assert_eq(m.held, 2);
    cr_assert_eq(m.cancels, 0);
    cr_assert_eq(orders_at(&l, 1, 98), 1);
    cr_assert_eq(m.orders_per_s, 3 / (601000000 * 1e-9)); /* orders / (span_ns x 1e-9) */
    cr_assert_eq(m.cancels_per_s, 0.0);
}

/* pnl_close: 5 lots bought at 100 (a 5-lot sell through 99); the last row shows bid 100 x 3. Close
 * the long: 3 at 100 and 2 at 100 - 10 (close_penalty_ticks) = 90: 480 ticks x 0.01 = 4.80 against
 * the 5.00 paid; taker fee 10 bps x 4.80 = 0.0048: pnl_close = -0.20 - 0.0048 = -0.2048. Marked to
 * the mid 101: pnl = 5.05 - 5.00 = 0.05. */
Test(pnl_close, closes_at_the_touch_then_at_the_penalty_with_the_taker_fee)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 99, 5, -1},
               {3, 100, 3, 102, 10, 0, 0, 0}};
    mm_params p = base();
    p.taker_fee_bps = 10;
    trace_log l;
    mm_metrics m = run(r, 4, &p, &l);
    cr_assert_eq(m.final_q, 5);
    cr_assert_float_eq(m.pnl, 0.05, 1e-12);
    cr_assert_float_eq(m.pnl_close, -0.2048, 1e-12);
    p.close_penalty_ticks = 0; /* all 5 at 100: -0.05 x 0 ... 5.00 - 5.00 - 0.0050 */
    m = run(r, 4, &p, &l);
    cr_assert_float_eq(m.pnl_close, -0.005, 1e-12);
}

/* A short closes against the ask: 5 lots sold at 102 (a 5-lot buy through 103), last ask 102 x 10:
 * buy 5 back at 102: pnl_close = 0 (no fee); pnl marked to 101 = 5.10 - 5.05 = 0.05. */
Test(pnl_close, a_short_buys_back_at_the_ask)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 103, 5, 1},
               {3, 100, 10, 102, 10, 0, 0, 0}};
    mm_params p = base();
    trace_log l;
    mm_metrics m = run(r, 4, &p, &l);
    cr_assert_eq(m.final_q, -5);
    cr_assert_float_eq(m.pnl, 0.05, 1e-12);
    cr_assert_eq(m.pnl_close, 0.0);
}

/* Annualisation from the tape (issue 10, part 4; docs/model.md 7.2): with year_s = 0 in the run
 * settings, a tape recording 365 x 24 h gives sqrt(31536000 / 5896800) times the Sharpe of one that
 * records nothing (5896800 = 252 x 6.5 h); an explicit year_s overrides the tape's. */
Test(metrics, sharpe_annualises_with_the_tapes_year_unless_overridden)
{
    row r[40];
    int n = 0;
    for (int k = 0; k < 40; k++) /* prices that move every second: returns with a spread */
        r[n++] = (row){1000.0 * k,
                       100 + (k % 3),
                       10,
                       102 + (k % 3),
                       10,
                       k % 2 ? 99 + (k % 3) : 0,
                       k % 2 ? 1 : 0,
                       -1};
    mm_ticks t = make_tape(r, n);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    cr_assert_eq(c.year_s, 0.0, "the default is the tape's");
    mm_params p = base();
    mm_metrics m0, m1, m2;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m0, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_neq(m0.sharpe, 0.0);
    t.inst.year_s = 31536000;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m1, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_float_eq(m1.sharpe / m0.sharpe, sqrt(31536000.0 / 5896800.0), 1e-12);
    c.year_s = 5896800;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m2, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(m2.sharpe, m0.sharpe);
    cr_assert_eq(mm_sim_year_s(&c, &t.inst), 5896800.0);
    c.year_s = 0;
    cr_assert_eq(mm_sim_year_s(&c, &t.inst), 31536000.0);
    t.inst.year_s = -1;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m2, NULL, NULL, &e), MM_EFORMAT);
    cr_assert_str_eq(e.msg, "instrument HAND: year_s: -1 must be 0 or in (0, 1e12] s");
    mm_ticks_free(&t);
}

/* Same-timestamp rows (issue 10, part 2; docs/model.md 3): an action decided on an event never
 * lands inside the group of rows sharing that event's timestamp, whatever the latency (it lands at
 * ts + max(D, 1 ns)). At 1 ms the mid rises to 102: the bid is replaced 100 -> 101. The next row
 * has the same timestamp and prints a 5-lot sell at 100: through 101, but the replace cannot have
 * landed, so the order there is still the old bid at 100, with 10 lots ahead: no fill. Latency 0
 * and 1 ns give the same run. */
Test(latency, no_action_lands_inside_its_timestamp_group)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 101, 10, 103, 10, 0, 0, 0},
               {1, 101, 10, 103, 10, 100, 5, -1},
               {2, 101, 10, 103, 10, 0, 0, 0}};
    mm_params p = base();
    trace_log l;
    mm_metrics m0 = run(r, 4, &p, &l);
    cr_assert_eq(m0.fills_bid, 0);
    int32_t px[8];
    int64_t ts[8];
    int n = 0;
    for (int i = 0; i < l.n && n < 8; i++)
        if (l.r[i].kind == MM_TR_ACTIVE && l.r[i].side == 1)
            px[n] = l.r[i].px, ts[n++] = l.r[i].ts_ns;
    cr_assert_eq(n, 2);
    cr_assert_eq(px[1], 101);
    cr_assert_eq(ts[1], INT64_C(1000000000000) + 2000000, "the replace lands at the 2 ms row");
    p.latency_ns = 1;
    mm_metrics m1 = run(r, 4, &p, NULL);
    cr_assert(m0.pnl == m1.pnl && m0.fills_bid == m1.fills_bid && m0.orders == m1.orders);
}

/* mmsim info's clock line (issue 10, part 2): the resolution is the largest power of ten (up to 1
 * s) dividing every timestamp; rows sharing the previous row's timestamp are counted. The rows are
 * at 1e12 ns + 0, 1, 1, 2 ms: all multiples of 1 ms (1e12 is a multiple of 1 s, 1 ms is not), one
 * row repeats a timestamp. */
Test(latency, tape_clock_resolution_and_same_timestamp_rows)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 0, 0, 0}};
    mm_ticks t = make_tape(r, 4);
    mm_ticks_stats st;
    mm_ticks_summarize(&t, &st);
    cr_assert_eq(st.ts_resolution_ns, 1000000);
    cr_assert_eq(st.same_ts_rows, 1);
    t.ts_ns[3] += 7; /* 2 ms + 7 ns */
    mm_ticks_summarize(&t, &st);
    cr_assert_eq(st.ts_resolution_ns, 1);
    mm_ticks_free(&t);
}
