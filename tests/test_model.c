/* The model's rules, one hand-built scenario each (docs/model.md). Every scenario also runs through the
 * batched kernel, which must agree with the reference bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"

/* A tape row: time (ms), bid px x size, ask px x size, trade px x size x side. */
typedef struct row {
    double ms;
    int32_t b, bs, a, as, tpx, tsz, tside;
} row;

static mm_ticks make_tape(const row *r, int n)
{
    mm_ticks t = {0};
    cr_assert_eq(mm_ticks_alloc(&t, n, MM_MEM_HEAP), 0);
    strcpy(t.inst.symbol, "HAND");
    t.inst.tick_size = 0.01;
    t.inst.lot_size = 1;
    for (int i = 0; i < n; i++) {
        t.ts_ns[i] = INT64_C(1000000000000) + (int64_t)(r[i].ms * 1e6);
        t.bid_px[i] = r[i].bs ? r[i].b : MM_PX_NONE_BID;
        t.bid_sz[i] = r[i].bs;
        t.ask_px[i] = r[i].as ? r[i].a : MM_PX_NONE_ASK;
        t.ask_sz[i] = r[i].as;
        t.trade_px[i] = r[i].tpx;
        t.trade_sz[i] = r[i].tsz;
        t.trade_side[i] = (int8_t)r[i].tside;
    }
    t.inst.allow_crossed = 1;
    return t;
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

/* Base parameters: fixed offset 1 tick around the mid, 5 lots, limit 5, no latency, risk-averse queue. */
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

Test(fills, trade_through_fills_whole_order)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},   /* our bid 100 x 5 is live, 10 ahead */
               {2, 99, 4, 102, 10, 99, 1, -1}};  /* a 1-lot sell prints at 99: through our price */
    mm_params p = base();
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
               {1, 100, 10, 102, 10, 0, 0, 0},    /* live, 10 ahead */
               {2, 100, 2, 102, 10, 100, 8, -1},  /* 8 traded: 2 still ahead, no fill */
               {3, 100, 1, 102, 10, 100, 3, -1},  /* 3 traded: 2 ahead go, 1 fills us (partial) */
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
               {1, 100, 10, 102, 10, 0, 0, 0},    /* live, 10 ahead */
               {2, 100, 40, 102, 10, 0, 0, 0},    /* 30 join behind us */
               {3, 100, 34, 102, 10, 0, 0, 0},    /* 6 cancelled: how many were ahead? */
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
    /* power n=2: share 10^2 / (10^2 + 30^2) = 0.1, floor(6 x 0.1 + 0.5) = 1 leaves 9 ahead: fill 2. */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_POWER, 2), 2);
    /* power n=1: share 10/40 = 0.25, floor(1.5 + 0.5) = 2 leaves 8 ahead: fill 3. */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_POWER, 1), 3);
    /* log: ln 11 / (ln 11 + ln 31) = 0.4112, floor(2.467 + 0.5) = 2 leaves 8: fill 3. */
    cr_assert_eq(first_fill_after_cancel(MM_QUEUE_LOG, 1), 3);
}

Test(fills, book_cross_fills)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 100, 3, 0, 0, 0}}; /* the ask falls to our price: we were taken */
    mm_params p = base();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &l);
    int32_t q[8];
    cr_assert_eq(fills_of(&l, 1, q, NULL, NULL), 1);
    cr_assert_eq(q[0], 5);
    cr_assert_eq(m.final_q, 5);
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
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {0.5, 99, 10, 102, 10, 99, 1, -1}, /* through 100, but our order is still in flight */
               {1.5, 100, 10, 102, 10, 0, 0, 0},
               {3, 99, 10, 102, 10, 99, 1, -1}};  /* through 100 again: now it is live */
    mm_params p = base();
    p.latency_ns = 1000000;
    trace_log l;
    run(r, 4, &p, &l);
    int64_t ts[8];
    cr_assert_eq(fills_of(&l, 1, NULL, NULL, ts), 1);
    cr_assert_eq(ts[0], INT64_C(1000000000000) + 3000000);
    for (int i = 0; i < l.n; i++)
        if (l.r[i].kind == MM_TR_ACTIVE && l.r[i].side == 1) {
            cr_assert_geq(l.r[i].ts_ns, INT64_C(1000000000000) + 1000000, "activated before the latency elapsed");
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
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 0, 0, 0},    /* bid 100 live */
               {3, 102, 10, 104, 10, 0, 0, 0},    /* mid up 2: replace 100 -> 102 sent, lands at 5 ms */
               {4, 99, 10, 104, 10, 99, 1, -1},   /* through 100 while the cancel is in flight */
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
    for (int i = 0; i < l.n; i++) cancels += l.r[i].kind == MM_TR_CANCEL && l.r[i].side == 1;
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
            cr_assert_leq(l.r[i].q + l.r[i].qty, 5, "bid of %d sent at q=%ld", l.r[i].qty, (long)l.r[i].q);
            bids_at_limit += l.r[i].q == 5;
        }
    }
    cr_assert_eq(bids_at_limit, 0, "no bid is sent at the limit");
}

Test(fills, post_only_never_takes)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},   /* bid target 100 sent, lands at 1 ms */
               {0.5, 99, 10, 100, 5, 0, 0, 0},   /* the ask comes down to 100 before it lands */
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
    for (int i = 0; i < l.n; i++) taker += l.r[i].kind == MM_TR_FILL && l.r[i].taker;
    cr_assert_eq(taker, 1);
    cr_assert_float_eq(m.fees, 3e-4 * 100 * 5 * 0.01, 1e-15);
}

Test(fees, maker_fee_and_rebate_signs)
{
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 99, 10, 102, 10, 99, 1, -1}};
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
               {2, 99, 10, 101, 10, 99, 1, -1},   /* we buy 5 at 100 */
               {500, 94, 10, 96, 10, 0, 0, 0},    /* mid falls to 95 */
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
    mm_metrics m;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, on_trace_big, b, &e), 0);
    cr_assert_gt(b->n, 100);
    /* Rebuild cash, position and fees from the fills alone; the trace's PnL must be cash + q x mid - fees. */
    int64_t cash2 = 0, q = 0;
    double fees = 0;
    int nfill = 0;
    for (int i = 0; i < b->n; i++) {
        const mm_trace_rec *r = &b->r[i];
        if (r->kind == MM_TR_FILL) {
            q += r->side * (int64_t)r->qty;
            cash2 -= 2 * r->side * (int64_t)r->px * r->qty;
            fees += (r->taker ? p.taker_fee_bps : p.maker_fee_bps) * 1e-4 * 0.01 * ((double)r->px * r->qty);
            nfill++;
        }
        cr_assert_eq(r->q, q, "record %d", i);
        cr_assert_eq(r->cash2, cash2, "record %d", i);
        double pnl = (double)(cash2 + q * r->mid2) * 0.5 * 0.01 - fees;
        cr_assert(fabs(r->pnl - pnl) <= 1e-9 * (1 + fabs(pnl)), "record %d: %.12g vs %.12g", i, r->pnl, pnl);
    }
    cr_assert_gt(nfill, 10);
    cr_assert_eq(m.final_q, q);
    free(b);
    mm_ticks_free(&t);
}
