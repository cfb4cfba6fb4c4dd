/* Scenario tests: tiny hand-built tapes whose every expected number was worked out by hand from
 * docs/model.md (the arithmetic is in the comment beside each assertion), not taken from a run.
 * checkmodel compares engines that share mm_step.h, so only tests like these catch a wrong rule;
 * tools/mutants plants realistic bugs one at a time and checks that some test fails
 * (docs/testing.md).
 *
 * Every tape here has tick_size 0.25 and lot_size 2, so money = 0.5 per tick x lot and a half-tick
 * x lot (cash2, mk2 units) is worth 0.25: the final metrics are exact binary fractions. Times are
 * in ms from the first row. Every scenario runs through the reference (with a trace) and the
 * batched engine, which must agree on every metric bit for bit. A trade through one of our orders
 * is at least as large as the order, so these expectations hold whether or not such fills are
 * bounded by the traded size (issue 10, part 1). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

#define T0_NS INT64_C(1000000000000)
#define MS(x) (T0_NS + (int64_t)(x)*1000000)

typedef tu_row row;

static mm_ticks make_tape(const row *r, int n)
{
    return tu_rows_tape(r, n, "SCEN", 0.25, 2);
}

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

/* Fixed strategy, spread 1, 1 lot, limit 5, requote 1, risk-averse queue, no latency, no fees. */
static mm_params base(void)
{
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1;
    p.quote_size = 1;
    p.inv_limit = 5;
    p.queue_rule = MM_QUEUE_RISK_AVERSE;
    return p;
}

static mm_sim_config config(void)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    return c;
}

/* Both engines, the reference with a trace; every metric must agree bit for bit. */
static mm_metrics run(const row *rows, int n, const mm_params *p, const mm_sim_config *c,
                      trace_log *log)
{
    mm_ticks t = make_tape(rows, n);
    mm_metrics m, b;
    mm_error e = {0};
    log->n = 0;
    cr_assert_eq(mm_sim_run_c(&t, c, p, &m, on_trace, log, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(&t, c, p, 1, &b, &e), 0, "%s", e.msg);
    cr_assert(m.pnl == b.pnl && m.fees == b.fees && m.sharpe == b.sharpe &&
              m.max_drawdown == b.max_drawdown && m.mean_abs_q == b.mean_abs_q);
    cr_assert(m.volume == b.volume && m.fills_bid == b.fills_bid && m.fills_ask == b.fills_ask &&
              m.orders == b.orders && m.cancels == b.cancels && m.rejects == b.rejects &&
              m.final_q == b.final_q && m.max_abs_q == b.max_abs_q);
    for (int k = 0; k < MM_MARKOUTS; k++)
        cr_assert(m.markout[k] == b.markout[k]);
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

/* The prices of the orders sent on a side must be exactly want[0..n). */
static void expect_orders(const trace_log *l, int side, const int32_t *want, int n)
{
    const mm_trace_rec *o[32];
    int got = recs(l, MM_TR_ORDER, side, o, 32);
    cr_assert_eq(got, n, "side %d: %d orders, want %d", side, got, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(o[i]->px, want[i], "side %d order %d: px %d, want %d", side, i, o[i]->px,
                     want[i]);
}

#define EXPECT_ORDERS(l, side, ...)                                                                \
    do {                                                                                           \
        const int32_t want_[] = {__VA_ARGS__};                                                     \
        expect_orders(l, side, want_, (int)(sizeof want_ / sizeof *want_));                        \
    } while (0)

/* ---- Quotes (docs/model.md, sections 1.1 and 6) ---- */

Test(quotes, fixed_targets_round_away_from_fair_and_skew_by_inventory)
{
    /* spread 1.5, skew 0.75 ticks/lot; mid 102 throughout. */
    row r[] = {{0, 100, 10, 104, 10, 0, 0, 0},
               {1, 100, 10, 104, 10, 99, 1, -1},  /* through our bid 100: buy 1, q = 1 */
               {2, 100, 10, 104, 10, 98, 1, -1}}; /* through our new bid 99: buy 1, q = 2 */
    mm_params p = base();
    p.spread_ticks = 1.5;
    p.skew_ticks = 0.75;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &c, &l);
    /* q = 0: bid floor(102 - 1.5) = floor(100.5) = 100, ask ceil(102 + 1.5) = ceil(103.5) = 104.
     * q = 1: shift 0.75: bid floor(102 - 1.5 - 0.75) = floor(99.75) = 99, ask ceil(102.75) = 103.
     * q = 2: shift 1.5: bid floor(99.0) = 99 (an integer target stays), ask ceil(102.0) = 102. */
    EXPECT_ORDERS(&l, 1, 100, 99, 99);
    EXPECT_ORDERS(&l, -1, 104, 103, 102);
    cr_assert_eq(m.cancels, 2, "the ask moved 104 -> 103 -> 102: two replaces");
    cr_assert_eq(m.final_q, 2);
}

Test(quotes, microprice_weights_each_side_by_the_other_sides_size)
{
    /* bid 100 x 1, ask 104 x 3: micro = (100 x 3 + 104 x 1) / (1 + 3) = 404 / 4 = 101 (close to
     * the thin bid, which is about to go); mid = 102. */
    row r[] = {{0, 100, 1, 104, 3, 0, 0, 0}, {1, 100, 1, 104, 3, 0, 0, 0}};
    mm_params p = base();
    p.spread_ticks = 0.5;
    p.fair_micro = 1;
    mm_sim_config c = config();
    trace_log l;
    run(r, 2, &p, &c, &l);
    /* micro: bid floor(101 - 0.5) = 100, ask ceil(101 + 0.5) = 102. */
    EXPECT_ORDERS(&l, 1, 100);
    EXPECT_ORDERS(&l, -1, 102);
    p.fair_micro = 0;
    run(r, 2, &p, &c, &l);
    /* mid: bid floor(102 - 0.5) = 101, ask ceil(102.5) = 103. */
    EXPECT_ORDERS(&l, 1, 101);
    EXPECT_ORDERS(&l, -1, 103);
}

Test(quotes, avellaneda_stoikov_with_a_rolling_horizon)
{
    /* gamma 0.1, k 1.5, sigma 2, H 60 s (the defaults):
     * c = (1/0.1) ln(1 + 0.1/1.5) = 10 x ln(1.0666667) = 10 x 0.0645385 = 0.645385;
     * hs0 = c + gamma sigma^2 H / 2 = 0.645385 + 0.1 x 4 x 60 / 2 = 12.645385;
     * sk0 = gamma sigma^2 H = 24 ticks/lot. Mid 1001. */
    row r[] = {{0, 1000, 10, 1002, 10, 0, 0, 0},
               {1, 1000, 10, 1002, 10, 987, 1, -1}}; /* through our bid 988: q = 1 */
    mm_params p = base();
    p.strategy = MM_STRAT_AS;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 2, &p, &c, &l);
    /* q = 0: bid floor(1001 - 12.645385) = floor(988.354615) = 988,
     *        ask ceil(1001 + 12.645385) = ceil(1013.645385) = 1014.
     * q = 1: bid floor(1001 - 12.645385 - 24) = floor(964.354615) = 964,
     *        ask ceil(1001 + 12.645385 - 24) = ceil(989.645385) = 990, at or below the bid
     *        1000: cross_rule join (the default) places it at the best ask, 1002. */
    EXPECT_ORDERS(&l, 1, 988, 964);
    EXPECT_ORDERS(&l, -1, 1014, 1002);
    cr_assert_eq(m.final_q, 1);
    /* cross_rule reject: the target is sent as computed, 990 (post-only rejects it on landing). */
    p.cross_rule = MM_CROSS_REJECT;
    m = run(r, 2, &p, &c, &l);
    EXPECT_ORDERS(&l, -1, 1014, 990);
}

Test(quotes, avellaneda_stoikov_until_the_end_of_the_tape_shrinks_with_tau)
{
    /* Horizon 0: tau = seconds to the tape's last event (10 s after the first).
     * gamma 0.1, k 1.5, sigma 2: c = 0.645385, hs1 = gamma sigma^2 / 2 = 0.2, sk1 = gamma sigma^2 =
     * 0.4. Mid 1001 throughout. */
    row r[] = {{0, 1000, 10, 1002, 10, 0, 0, 0},
               {6000, 1000, 10, 1002, 10, 997, 1, -1}, /* through our bid 998: q = 1 */
               {10000, 1000, 10, 1002, 10, 0, 0, 0}};
    mm_params p = base();
    p.strategy = MM_STRAT_AS;
    p.as_horizon_s = 0;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &c, &l);
    /* t = 0, tau 10: hs = 0.645385 + 0.2 x 10 = 2.645385, q = 0:
     *   bid floor(998.354615) = 998, ask ceil(1003.645385) = 1004.
     * t = 6 s, tau 4: hs = 0.645385 + 0.8 = 1.445385, sk = 0.4 x 4 = 1.6, q = 1:
     *   bid floor(1001 - 1.445385 - 1.6) = floor(997.954615) = 997,
     *   ask ceil(1001 + 1.445385 - 1.6) = ceil(1000.845385) = 1001.
     * t = 10 s, tau 0: hs = c = 0.645385, sk = 0:
     *   bid floor(1000.354615) = 1000, ask ceil(1001.645385) = 1002. */
    EXPECT_ORDERS(&l, 1, 998, 997, 1000);
    EXPECT_ORDERS(&l, -1, 1004, 1001, 1002);
    cr_assert_eq(m.final_q, 1);
}

Test(quotes, glft_half_spread_skew_per_quote_size_and_inventory_bound)
{
    /* gamma 0.1, k 1.5, A 1, sigma 2, size 2 lots:
     * c1 = 0.645385 (as AS);
     * x = sigma^2 gamma / (2 k A) x exp((1 + k/gamma) ln(1 + gamma/k))
     *   = 0.4 / 3 x exp(16 x 0.0645385) = 0.133333 x 2.808404 = 0.374454;
     * sqrt(x) = 0.611926; hs0 = c1 + sqrt(x)/2 = 0.951348; sk0 = sqrt(x) / size = 0.305963.
     * Mid 1001 throughout. */
    row r[] = {{0, 1000, 10, 1002, 10, 0, 0, 0},
               {1, 1000, 10, 1002, 10, 999, 2, -1},  /* through our bid 1000: buy 2, q = 2 */
               {2, 1000, 10, 1002, 10, 998, 2, -1}}; /* through a bid at 999, if any */
    mm_params p = base();
    p.strategy = MM_STRAT_GLFT;
    p.quote_size = 2;
    p.inv_limit = 10;
    p.glft_Q = 2; /* limit min(10, 2 x 2) = 4 lots */
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &c, &l);
    /* q = 0: bid floor(1001 - 0.951348) = floor(1000.048652) = 1000,
     *        ask ceil(1001.951348) = 1002.
     * q = 2: shift 2 x 0.305963 = 0.611926: bid floor(1001 - 0.951348 - 0.611926) =
     *        floor(999.436726) = 999; ask ceil(1001.339422) = 1002 (unchanged: no order).
     * q = 4 (the bid at 999 fills 2): shift 1.223853: bid size min(2, 4 - 4) = 0, no order;
     *        ask ceil(1001 + 0.951348 - 1.223853) = ceil(1000.727495) = 1001. */
    EXPECT_ORDERS(&l, 1, 1000, 999);
    EXPECT_ORDERS(&l, -1, 1002, 1001);
    cr_assert_eq(m.final_q, 4);
    cr_assert_eq(m.max_abs_q, 4);
    /* glft_Q 1: the limit is min(10, 1 x 2) = 2: at q = 2 no bid is sent, the trade at 998 finds
     * none, and q stays 2 (the ask target stays ceil(1001.339422) = 1002: no replace). */
    p.glft_Q = 1;
    m = run(r, 3, &p, &c, &l);
    EXPECT_ORDERS(&l, 1, 1000);
    EXPECT_ORDERS(&l, -1, 1002);
    cr_assert_eq(m.final_q, 2);
}

/* ---- Requote threshold (section 6) ---- */

Test(requote, a_target_that_moved_less_than_requote_is_left_and_one_that_moved_requote_is_replaced)
{
    /* requote 2, spread 1: the ask side of the book moves away, the mid up by 1 then 2. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},  /* mid 101: bid 100, ask 102 */
               {1, 100, 10, 104, 10, 0, 0, 0},  /* mid 102: targets 101, 103: 1 tick < 2, kept */
               {2, 100, 10, 106, 10, 0, 0, 0},  /* mid 103: targets 102, 104: 2 ticks, replaced */
               {3, 100, 10, 106, 10, 0, 0, 0}}; /* nothing moves */
    mm_params p = base();
    p.requote_ticks = 2;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 4, &p, &c, &l);
    EXPECT_ORDERS(&l, 1, 100, 102);
    EXPECT_ORDERS(&l, -1, 102, 104);
    cr_assert_eq(m.orders, 4);
    cr_assert_eq(m.cancels, 2);
    const mm_trace_rec *x[4];
    cr_assert_eq(recs(&l, MM_TR_CANCEL, 1, x, 4), 1);
    cr_assert_eq(x[0]->event, 2, "the replace comes when the distance reaches 2, not before");
    cr_assert_eq(x[0]->px, 100);
    cr_assert_eq(m.fills_bid + m.fills_ask, 0);
}

/* ---- Queue position (sections 3.1 and 4.4) ---- */

Test(queue, queue_ahead_is_capped_at_the_visible_size_of_the_level)
{
    /* 5-lot bid at 100 joins behind 10 lots. The level shrinks to 3: risk-averse, so no cancel is
     * credited as ahead of us, but at most the 3 lots shown can be ahead: ahead = min(10, 3) = 3.
     * A 4-lot sell at 100 then takes the 3 ahead and fills 4 - 3 = 1 lot of ours. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0}, /* lands: ahead 10 */
               {2, 100, 3, 102, 10, 0, 0, 0},  /* 7 lots gone: ahead min(10, 3) = 3 */
               {3, 100, 1, 102, 10, 100, 4, -1}};
    mm_params p = base();
    p.quote_size = 5;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 4, &p, &c, &l);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 1);
    cr_assert_eq(f[0]->qty, 1, "4 traded - 3 ahead = 1 lot (got %d)", f[0]->qty);
    cr_assert_eq(f[0]->px, 100);
    cr_assert_eq(f[0]->event, 3);
    cr_assert_eq(m.volume, 1);
    cr_assert_eq(m.fills_bid, 1);
}

Test(queue, a_deep_order_whose_level_becomes_best_goes_behind_the_whole_level)
{
    /* spread 2 around mid 101: bid 99 lands below the best bid 100 (deep, queue unknown). The 100
     * level goes and 99 becomes best with 6 lots: we are behind all 6 (ahead = 6), not at the
     * front. A 7-lot sell at 99 takes the 6 and fills 7 - 6 = 1 lot of our 5. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0}, /* lands deep */
               {2, 99, 6, 103, 10, 0, 0, 0},   /* mid still 101: 99 is best, ahead = 6 */
               {3, 99, 2, 103, 10, 99, 7, -1}};
    mm_params p = base();
    p.spread_ticks = 2;
    p.quote_size = 5;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 4, &p, &c, &l);
    EXPECT_ORDERS(&l, 1, 99);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 1);
    cr_assert_eq(f[0]->qty, 1, "7 traded - 6 ahead = 1 lot (got %d)", f[0]->qty);
    cr_assert_eq(f[0]->event, 3);
    cr_assert_eq(m.volume, 1);
}

/* ---- Metrics (section 7) ---- */

Test(metrics, pnl_samples_sharpe_drawdown_mean_abs_q_and_every_markout_horizon)
{
    /* 1-lot quotes, limit 1, requote 100 (orders stay where they are). We buy 1 at 100 at 2 ms and
     * hold it: the bid has no room left, the ask at 102 never trades. Money 0.5 per tick x lot. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},     /* mid2 202 */
               {1, 100, 10, 102, 10, 0, 0, 0},     /* both land */
               {2, 100, 10, 102, 10, 99, 1, -1},   /* buy 1 at 100: q 1, cash2 -200 */
               {1000, 99, 10, 101, 10, 0, 0, 0},   /* mid2 200; sample 1 before it */
               {2000, 98, 10, 100, 10, 0, 0, 0},   /* mid2 198; sample 2 */
               {3000, 98, 10, 100, 10, 0, 0, 0},   /* sample 3 */
               {3500, 101, 10, 103, 10, 0, 0, 0}}; /* mid2 204; no boundary */
    mm_params p = base();
    p.inv_limit = 1;
    p.requote_ticks = 100;
    mm_sim_config c = config();
    c.year_s = 1e4;               /* sqrt(1e4 / 1 s) = 100 */
    c.markout_ns[0] = 500000000;  /* 0.5 s */
    c.markout_ns[1] = 1998000000; /* 1.998 s: 2 ms + 1.998 s falls exactly on the 2000 ms row */
    c.markout_ns[2] = INT64_C(60000000000);
    trace_log l;
    mm_metrics m = run(r, 7, &p, &c, &l);
    cr_assert_eq(m.fills_bid, 1);
    cr_assert_eq(m.fills_ask, 0);
    cr_assert_eq(m.volume, 1);
    cr_assert_eq(m.final_q, 1);
    cr_assert_eq(m.max_abs_q, 1);
    cr_assert_eq(m.orders, 2);
    cr_assert_eq(m.cancels, 0);
    /* Final PnL: (cash2 + q x mid2_end) x 0.5 x money = (-200 + 204) x 0.25 = 1.0. */
    cr_assert_eq(m.pnl, 1.0);
    cr_assert_eq(m.fees, 0.0);
    /* Samples, each with the state and the mid BEFORE the event that crosses the boundary:
     *   1 s (row 1000 ms): (-200 + 202) x 0.25 =  0.5   (mid of the 2 ms row, not the new 200)
     *   2 s (row 2000 ms): (-200 + 200) x 0.25 =  0
     *   3 s (row 3000 ms): (-200 + 198) x 0.25 = -0.5
     * Returns from pnl_0 = 0: 0.5, -0.5, -0.5. Mean -1/6; M2 = (2/3)^2 + (1/3)^2 + (1/3)^2 = 2/3;
     * population sd = sqrt(2/3 / 3) = sqrt(2)/3.
     * Sharpe = (-1/6) / (sqrt(2)/3) x sqrt(1e4 / 1) = -1 / (2 sqrt 2) x 100 = -35.35533905932738.
     */
    cr_assert_float_eq(m.sharpe, -25.0 * sqrt(2.0), 1e-9, "sharpe %.17g", m.sharpe);
    /* Drawdown: the peak 0.5 falls to -0.5 (1.0); the final 1.0 is a new peak, not a fall. */
    cr_assert_eq(m.max_drawdown, 1.0, "max_drawdown %.17g", m.max_drawdown);
    /* |q| = 1 from 2 ms to 3500 ms over a 3500 ms span: 3498 / 3500. */
    cr_assert_float_eq(m.mean_abs_q, 3498.0 / 3500.0, 1e-15, "mean_abs_q %.17g", m.mean_abs_q);
    /* Markouts of the buy of 1 at 100 at 2 ms, side x (mid2(t + h) - 2 px) x qty x 0.25:
     *   0.5 s   -> last row at or before 502 ms is the 2 ms row, mid2 202: (202 - 200) x 0.25 = 0.5
     *   1.998 s -> 2000 ms exactly: the 2000 ms row, mid2 198:             (198 - 200) x 0.25 =
     * -0.5 60 s    -> beyond the tape: its last mid2 204:                     (204 - 200) x 0.25
     * = 1.0 */
    cr_assert_eq(m.markout[0], 0.5, "markout[0] %.17g", m.markout[0]);
    cr_assert_eq(m.markout[1], -0.5, "markout[1] %.17g", m.markout[1]);
    cr_assert_eq(m.markout[2], 1.0, "markout[2] %.17g", m.markout[2]);
}

Test(metrics, a_short_position_marks_sells_and_default_annualisation)
{
    /* The ask at 102 is lifted by a buy through it at 2 ms, then the market rises: short 1. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 103, 1, 1},   /* sell 1 at 102: q -1, cash2 +204 */
               {1000, 102, 10, 104, 10, 0, 0, 0},  /* mid2 206; sample 1 */
               {2500, 104, 10, 106, 10, 0, 0, 0}}; /* mid2 210; sample 2 */
    mm_params p = base();
    p.inv_limit = 1;
    p.requote_ticks = 100;
    mm_sim_config c = config(); /* year_s = 252 x 6.5 x 3600 = 5,896,800 s */
    c.markout_ns[0] = 500000000;
    c.markout_ns[1] = 1000000000;
    c.markout_ns[2] = 3000000000;
    trace_log l;
    mm_metrics m = run(r, 5, &p, &c, &l);
    cr_assert_eq(m.fills_ask, 1);
    cr_assert_eq(m.fills_bid, 0);
    cr_assert_eq(m.final_q, -1);
    /* PnL: (204 - 210) x 0.25 = -1.5. */
    cr_assert_eq(m.pnl, -1.5);
    /* Markouts of the sell at 102 (side -1): -(mid2(t + h) - 204) x 0.25:
     *   0.5 s -> 502 ms: 2 ms row, mid2 202:      -(202 - 204) x 0.25 =  0.5
     *   1 s   -> 1002 ms: 1000 ms row, mid2 206:  -(206 - 204) x 0.25 = -0.5
     *   3 s   -> beyond the tape: mid2 210:       -(210 - 204) x 0.25 = -1.5 */
    cr_assert_eq(m.markout[0], 0.5, "markout[0] %.17g", m.markout[0]);
    cr_assert_eq(m.markout[1], -0.5, "markout[1] %.17g", m.markout[1]);
    cr_assert_eq(m.markout[2], -1.5, "markout[2] %.17g", m.markout[2]);
    /* |q| = 1 from 2 ms to 2500 ms: 2498 / 2500. */
    cr_assert_float_eq(m.mean_abs_q, 2498.0 / 2500.0, 1e-15, "mean_abs_q %.17g", m.mean_abs_q);
    /* Samples: 1 s: (204 - 202) x 0.25 = 0.5; 2 s: (204 - 206) x 0.25 = -0.5. Returns 0.5, -1.0:
     * mean -0.25, population sd 0.75; Sharpe = -1/3 x sqrt(5896800 / 1) = -809.44425... */
    cr_assert_float_eq(m.sharpe, -sqrt(5896800.0) / 3.0, 1e-9, "sharpe %.17g", m.sharpe);
    /* Drawdown: peak 0.5, samples down to -0.5, final -1.5: 2.0. */
    cr_assert_eq(m.max_drawdown, 2.0, "max_drawdown %.17g", m.max_drawdown);
}

Test(metrics, a_gap_over_several_sampling_boundaries_gives_equal_samples)
{
    /* Long 1 (bought at 100 at 2 ms), then no event until 3500 ms: the boundaries at 1, 2 and 3 s
     * are all sampled at the start of the 3500 ms row, each with the state and mid before it. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},   {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 99, 1, -1},  /* buy 1 at 100: cash2 -200; mid2 202 */
               {3500, 99, 10, 101, 10, 0, 0, 0},  /* samples 1, 2, 3 s; mid2 200 */
               {4000, 99, 10, 102, 10, 0, 0, 0},  /* sample 4 s; mid2 201 */
               {5000, 99, 10, 102, 10, 0, 0, 0}}; /* sample 5 s */
    mm_params p = base();
    p.inv_limit = 1;
    p.requote_ticks = 100;
    mm_sim_config c = config();
    c.year_s = 1e4; /* sqrt(1e4 / 1 s) = 100 */
    trace_log l;
    mm_metrics m = run(r, 6, &p, &c, &l);
    cr_assert_eq(m.final_q, 1);
    /* Samples: 1, 2, 3 s: (-200 + 202) x 0.25 = 0.5 each; 4 s (mid of the 3500 ms row): 0;
     * 5 s (mid of the 4000 ms row): (-200 + 201) x 0.25 = 0.25. Returns 0.5, 0, 0, -0.5, 0.25:
     * mean 0.05; squared deviations 0.2025 + 0.0025 + 0.0025 + 0.3025 + 0.04 = 0.55, population
     * variance 0.11; Sharpe = 0.05 / sqrt(0.11) x 100 = 15.075567... */
    cr_assert_float_eq(m.sharpe, 5.0 / sqrt(0.11), 1e-9, "sharpe %.17g", m.sharpe);
    /* Drawdown: peak 0.5, down to 0 at 4 s: 0.5. Final PnL (-200 + 201) x 0.25 = 0.25. */
    cr_assert_eq(m.max_drawdown, 0.5, "max_drawdown %.17g", m.max_drawdown);
    cr_assert_eq(m.pnl, 0.25);
}

/* ---- Fees (sections 1.1, 3.1 and 5) ---- */

Test(fees, maker_and_taker_rates_on_notional_and_pnl_after_fees)
{
    /* 2-lot quotes, limit 3, latency 1 ms, no post-only; maker 2 bps, taker 10 bps.
     * maker_rate = 2 x 1e-4 x 0.5 = 1e-4 per tick x lot of notional; taker_rate = 5e-4. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},   /* bid 100 x 2, ask 102 x 2 sent */
               {1, 100, 10, 102, 10, 0, 0, 0},   /* both land */
               {2, 100, 10, 102, 10, 99, 2, -1}, /* maker buy 2 at 100; bid 100 x 1 sent */
               {2.5, 99, 10, 100, 10, 0, 0, 0},  /* the ask comes down to 100 */
               {3, 99, 10, 100, 10, 0, 0, 0},    /* our bid lands on it: taker buy 1 at 100 */
               {3.5, 99, 10, 100, 10, 0, 0, 0}}; /* mid2 199 */
    mm_params p = base();
    p.quote_size = 2;
    p.inv_limit = 3;
    p.latency_ns = 1000000;
    p.post_only = 0;
    p.maker_fee_bps = 2;
    p.taker_fee_bps = 10;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 6, &p, &c, &l);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 2);
    cr_assert(f[0]->qty == 2 && f[0]->px == 100 && f[0]->taker == 0 && f[0]->event == 2);
    cr_assert(f[1]->qty == 1 && f[1]->px == 100 && f[1]->taker == 1 && f[1]->event == 4);
    /* fees = 1e-4 x (100 x 2) + 5e-4 x (100 x 1) = 0.02 + 0.05 = 0.07 */
    cr_assert_float_eq(m.fees, 0.07, 1e-15, "fees %.17g", m.fees);
    /* q 3, cash2 = -2 x 100 x 2 - 2 x 100 x 1 = -600; pnl = (-600 + 3 x 199) x 0.25 - 0.07 =
     * -0.75 - 0.07 = -0.82. */
    cr_assert_eq(m.final_q, 3);
    cr_assert_float_eq(m.pnl, -0.82, 1e-12, "pnl %.17g", m.pnl);
    /* Every horizon (1, 10, 60 s) is past the tape: mid2 199. (199 - 200) x 2 + (199 - 200) x 1 =
     * -3 half-ticks x lots: -0.75. */
    for (int k = 0; k < MM_MARKOUTS; k++)
        cr_assert_eq(m.markout[k], -0.75, "markout[%d] %.17g", k, m.markout[k]);
}

/* ---- Responses and fill reports (section 3.2) ---- */

/* The order records of a side, in order: their times. */
static int order_times(const trace_log *l, int side, int64_t *ts, int max)
{
    const mm_trace_rec *o[32];
    int n = recs(l, MM_TR_ORDER, side, o, 32);
    for (int i = 0; i < n && i < max; i++)
        ts[i] = o[i]->ts_ns;
    return n;
}

Test(response, the_strategy_learns_its_fill_only_when_the_report_arrives)
{
    /* spread 1, skew 1 tick/lot, mid 102 throughout: q = 0 quotes 101 / 103, q = 1 quotes
     * floor(102 - 1 - 1) = 100 / ceil(102 + 1 - 1) = 102. */
    row r[] = {{0, 100, 10, 104, 10, 0, 0, 0},    /* 101 / 103 sent (land at 1 ns) */
               {1, 100, 10, 104, 10, 0, 0, 0},    /* both land; responses known at 11 ms */
               {2, 100, 10, 104, 10, 100, 1, -1}, /* through our bid 101: q = 1, reported 12 ms */
               {11.5, 100, 10, 104, 10, 0, 0, 0}, /* not busy; the strategy still knows q = 0 */
               {12, 100, 10, 104, 10, 0, 0, 0}};  /* the report: q = 1, re-quote */
    mm_params p = base();
    p.skew_ticks = 1;
    p.response_ns = 10000000;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 5, &p, &c, &l);
    EXPECT_ORDERS(&l, 1, 101, 100);
    EXPECT_ORDERS(&l, -1, 103, 102);
    int64_t ts[4];
    order_times(&l, 1, ts, 4);
    cr_assert_eq(ts[1], MS(12), "the new bid waits for the fill report (2 ms + 10 ms)");
    order_times(&l, -1, ts, 4);
    cr_assert_eq(ts[1], MS(12), "so does the skewed ask");
    const mm_trace_rec *f[2];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 2), 1);
    cr_assert(f[0]->q == 1 && f[0]->known_q == 0, "at the fill: q 1, known %lld",
              (long long)f[0]->known_q);
    cr_assert_eq(m.final_q, 1);
    /* response_ns 0: the fill is known at once and the re-quote comes at 2 ms. */
    p.response_ns = 0;
    run(r, 5, &p, &c, &l);
    EXPECT_ORDERS(&l, 1, 101, 100);
    order_times(&l, 1, ts, 4);
    cr_assert_eq(ts[1], MS(2));
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 2), 1);
    cr_assert_eq(f[0]->known_q, 1);
}

Test(response, one_action_per_side_until_its_response_is_known)
{
    row r[] = {{0, 100, 10, 104, 10, 0, 0, 0},   /* mid 102: 101 / 103 sent */
               {1, 101, 10, 105, 10, 0, 0, 0},   /* they land; mid 103: targets 102 / 104 */
               {11, 101, 10, 105, 10, 0, 0, 0}}; /* the responses (1 + 10 ms): replace now */
    mm_params p = base();
    p.response_ns = 10000000;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &c, &l);
    EXPECT_ORDERS(&l, 1, 101, 102);
    EXPECT_ORDERS(&l, -1, 103, 104);
    int64_t ts[4];
    order_times(&l, 1, ts, 4);
    cr_assert_eq(ts[1], MS(11), "no replace before the response to the first order");
    cr_assert_eq(m.cancels, 2);
    p.response_ns = 0; /* the response is known when the order lands: replace at 1 ms */
    run(r, 3, &p, &c, &l);
    order_times(&l, 1, ts, 4);
    cr_assert_eq(ts[1], MS(1));
}

Test(response, a_recorded_entry_latency_is_interpolated_at_the_decision_and_adds_latency_ns)
{
    /* Entry latency 0 at t0, 4 ms at t0 + 10 ms; response 0. The replace decided at 5 ms gets
     * 0 + floor(4 ms x 5 / 10) = 2 ms: it lands at 7 ms (not at the row of 6.9 ms). */
    int64_t lt[] = {MS(0), MS(10)}, le[] = {0, 4000000}, lr[] = {0, 0};
    mm_latency_series ls = {2, lt, le, lr};
    row r[] = {{0, 100, 10, 104, 10, 0, 0, 0},   /* 101 / 103, entry latency 0: 1 ns */
               {5, 101, 10, 105, 10, 0, 0, 0},   /* land; mid 103: replace 102 / 104 */
               {6.9, 101, 10, 105, 10, 0, 0, 0}, /* in flight */
               {7, 101, 10, 105, 10, 0, 0, 0},   /* lands */
               {8, 101, 10, 105, 10, 0, 0, 0}};
    mm_params p = base();
    mm_sim_config c = config();
    c.latency = &ls;
    trace_log l;
    run(r, 5, &p, &c, &l);
    const mm_trace_rec *a[4];
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, a, 4), 2);
    cr_assert_eq(a[0]->ts_ns, MS(5));
    cr_assert_eq(a[1]->ts_ns, MS(7), "landed at %lld", (long long)(a[1]->ts_ns - T0_NS));
    /* latency_ns 0.5 ms adds to the series: 2.5 ms, landing at the row of 8 ms. */
    p.latency_ns = 500000;
    run(r, 5, &p, &c, &l);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, a, 4), 2);
    cr_assert_eq(a[1]->ts_ns, MS(8));
}

Test(response, reports_keep_their_order_when_the_recorded_response_latency_falls)
{
    /* Response latency 10 ms at t0 falling to 0 at t0 + 1 ms; entry 0. size 2. */
    int64_t lt[] = {MS(0), MS(1)}, le[] = {0, 0}, lr[] = {10000000, 0};
    mm_latency_series ls = {2, lt, le, lr};
    row r[] = {
        {0, 100, 10, 104, 10, 0, 0, 0},      /* bid 101 x 2 sent */
        {0.5, 100, 10, 104, 10, 0, 0, 0},    /* lands; response latency 10 - 5 = 5 ms: at 5.5 ms */
        {0.6, 100, 10, 104, 10, 100, 1, -1}, /* fill 1: 10 - 6 = 4 ms, 4.6 -> after 5.5: 5.5 ms */
        {2, 100, 10, 104, 10, 100, 1, -1},   /* fill 1: latency 0, but behind the others: 5.5 */
        {6, 100, 10, 104, 10, 0, 0, 0}};     /* both reports known: q = 2, a new bid */
    mm_params p = base();
    p.quote_size = 2;
    mm_sim_config c = config();
    c.latency = &ls;
    trace_log l;
    mm_metrics m = run(r, 5, &p, &c, &l);
    const mm_trace_rec *f[4];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 4), 2);
    cr_assert(f[1]->q == 2 && f[1]->known_q == 0,
              "the second report may not overtake the first: known %lld", (long long)f[1]->known_q);
    int64_t ts[4];
    cr_assert_eq(order_times(&l, 1, ts, 4), 2);
    cr_assert_eq(ts[1], MS(6), "the filled order is known done at 5.5 ms: the next row");
    cr_assert_eq(m.final_q, 2);
}

Test(response, orders_are_sized_on_the_known_position_and_the_venue_clamps_them)
{
    /* size 2, limit 2: a 1-lot fill at 2 ms is reported at 12 ms; the replace decided at 11 ms
     * still sees room 2 - 0 = 2 and sends 2 lots; on landing the venue's check (true q = 1) leaves
     * room 1: it rests with 1 lot. */
    row r[] = {{0, 100, 10, 104, 10, 0, 0, 0},    /* 101 x 2 / 103 x 2 sent */
               {1, 100, 10, 104, 10, 0, 0, 0},    /* they land; responses known at 11 ms */
               {2, 100, 10, 104, 10, 100, 1, -1}, /* bid fills 1 of 2: q = 1, known at 12 ms */
               {11, 101, 10, 105, 10, 0, 0, 0},   /* mid 103: replace the bid by 102 x 2 */
               {12, 101, 10, 105, 10, 0, 0, 0}};  /* it lands with room 2 - 1 = 1 */
    mm_params p = base();
    p.quote_size = 2;
    p.inv_limit = 2;
    p.response_ns = 10000000;
    mm_sim_config c = config();
    trace_log l;
    run(r, 5, &p, &c, &l);
    const mm_trace_rec *o[4], *a[4];
    cr_assert_eq(recs(&l, MM_TR_ORDER, 1, o, 4), 2);
    cr_assert(o[1]->px == 102 && o[1]->qty == 2, "sent %d x %d", o[1]->px, o[1]->qty);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, a, 4), 2);
    cr_assert(a[1]->px == 102 && a[1]->qty == 1, "rests %d x %d", a[1]->px, a[1]->qty);
}

Test(response, the_reject_back_off_starts_when_the_strategy_learns_of_the_reject)
{
    /* spread 0, latency 1.5 ms, response 10 ms, back-off 5 ms. The bid 102 sent at 0 lands at the
     * row of 2 ms against the book of 1 ms (ask 102): post-only rejects it; the strategy learns it
     * at 2 + 10 = 12 ms and backs off until 17 ms. */
    row r[] = {{0, 100, 10, 104, 10, 0, 0, 0},   /* mid 102: bid 102, ask 102 */
               {1, 101, 10, 102, 10, 0, 0, 0},   /* the ask comes down to 102 */
               {2, 101, 10, 102, 10, 0, 0, 0},   /* landing: the bid 102 crosses: rejected */
               {12, 101, 10, 102, 10, 0, 0, 0},  /* the reject is known: backed off until 17 */
               {17, 101, 10, 102, 10, 0, 0, 0}}; /* mid 101.5: bid floor(101.5) = 101 */
    mm_params p = base();
    p.spread_ticks = 0;
    p.latency_ns = 1500000;
    p.response_ns = 10000000;
    p.reject_backoff_ns = 5000000;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 5, &p, &c, &l);
    cr_assert_eq(m.rejects, 1);
    EXPECT_ORDERS(&l, 1, 102, 101);
    int64_t ts[4];
    order_times(&l, 1, ts, 4);
    cr_assert_eq(ts[1], MS(17), "sent at %lld ms, want 17", (long long)((ts[1] - T0_NS) / 1000000));
}

/* ---- Execution randomness (section 3.3) ---- */

Test(random, a_trade_at_our_price_that_does_not_reach_our_queue_fills_nothing)
{
    /* mid 101, spread 1: the bid 100 joins the best 100 behind its 10 lots; 15 trade at 100: 10
     * take the queue ahead, 5 reach us, 1 fills (4.2). With trade_reach 0 hidden liquidity took
     * the print: no fill, and the queue ahead stays 10. */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 10, 102, 10, 100, 15, -1}};
    mm_params p = base();
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 3, &p, &c, &l);
    cr_assert_eq(m.fills_bid, 1);
    p.trade_reach = 0;
    m = run(r, 3, &p, &c, &l);
    cr_assert_eq(m.fills_bid, 0, "a print that did not reach us filled us");
}

Test(random, a_uniform_join_puts_the_order_at_any_place_of_the_queue)
{
    /* The bid 100 joins the best level of 10 lots: back: ahead = 10 always; uniform: ahead =
     * floor(u x 11), each of 0 .. 10 with probability 1/11 (mean 5, sd sqrt(120/12) = 3.16; over
     * 440 seeds the mean is within 4 x 3.16 / sqrt(440) = 0.6 of 5, and every place occurs: the
     * chance that one of 11 is missed is below 11 x (10/11)^440 = 1e-17). */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0}, {1, 100, 10, 102, 10, 0, 0, 0}};
    mm_params p = base();
    mm_sim_config c = config();
    trace_log l;
    int seen[11] = {0};
    double sum = 0;
    for (int s = 1; s <= 440; s++) {
        c.seed = (uint64_t)s;
        p.queue_join = MM_JOIN_BACK;
        run(r, 2, &p, &c, &l);
        const mm_trace_rec *a[2];
        cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, a, 2), 1);
        cr_assert_eq(a[0]->ahead, 10);
        p.queue_join = MM_JOIN_UNIFORM;
        run(r, 2, &p, &c, &l);
        cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, a, 2), 1);
        cr_assert(a[0]->ahead >= 0 && a[0]->ahead <= 10, "ahead %d", a[0]->ahead);
        seen[a[0]->ahead]++;
        sum += a[0]->ahead;
    }
    for (int v = 0; v <= 10; v++)
        cr_assert_gt(seen[v], 0, "place %d never drawn", v);
    cr_assert(fabs(sum / 440 - 5) < 0.6, "mean place %.3f", sum / 440);
}

Test(random, drawn_latencies_depend_on_the_seed_and_path_and_nothing_else)
{
    row r[40];
    int n = 0;
    for (int k = 0; k < 40; k++) /* the book moves every ms: a replace per row */
        r[n++] = (row){k, 100 + k % 3, 10, 104 + k % 3, 10, 0, 0, 0};
    mm_params p = base();
    p.latency_dist = MM_LAT_EXPONENTIAL;
    p.latency_ns = 800000;
    mm_sim_config c = config();
    trace_log l;
    const mm_trace_rec *a[64];
    run(r, n, &p, &c, &l);
    int na = recs(&l, MM_TR_ACTIVE, 1, a, 64);
    int64_t first[64];
    for (int i = 0; i < na && i < 64; i++)
        first[i] = a[i]->ts_ns;
    run(r, n, &p, &c, &l); /* the same key: the same landings */
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, a, 64), na);
    for (int i = 0; i < na && i < 64; i++)
        cr_assert_eq(a[i]->ts_ns, first[i]);
    int differ = 0;
    c.path = 1; /* another path: other landings */
    run(r, n, &p, &c, &l);
    int nb = recs(&l, MM_TR_ACTIVE, 1, a, 64);
    for (int i = 0; i < nb && i < na && i < 64; i++)
        differ |= a[i]->ts_ns != first[i];
    cr_assert(differ || nb != na, "path 1 landed exactly as path 0");
}

Test(random, binomial_cancels_take_each_lot_ahead_with_the_rules_share)
{
    /* Our bid 100 joins behind 10 lots; 15 more join behind us (25); then the level falls to 14:
     * dec = 11 cancels, ahead 10, behind 15, power rule n = 2: share = 100 / (100 + 225) =
     * 0.307692. round: cut = floor(11 x 0.307692 + 0.5) = 3, ahead 7, and the 8 lots that then
     * trade at 100 reach us: a fill. binomial: cut ~ Binomial(11, 0.307692); a fill needs cut >= 3,
     * P = 1 - (q^11 + 11 p q^10 + 55 p^2 q^9) = 1 - 0.294 = 0.706 (q = 0.692308). Over 400 seeds
     * the share of runs with a fill is within 4.3 sd (0.023) of 0.706 (a share of 1 - p would give
     * 0.999). */
    row r[] = {{0, 100, 10, 102, 10, 0, 0, 0},
               {1, 100, 10, 102, 10, 0, 0, 0},
               {2, 100, 25, 102, 10, 0, 0, 0},
               {3, 100, 14, 102, 10, 0, 0, 0},
               {4, 100, 14, 102, 10, 100, 8, -1}};
    mm_params p = base();
    p.queue_rule = MM_QUEUE_POWER;
    p.queue_n = 2;
    mm_sim_config c = config();
    trace_log l;
    mm_metrics m = run(r, 5, &p, &c, &l);
    cr_assert_eq(m.fills_bid, 1, "round: cut 3, ahead 7, filled");
    p.cancel_draw = MM_CANCEL_BINOMIAL;
    int fills = 0;
    for (int s = 1; s <= 400; s++) {
        c.seed = (uint64_t)s;
        fills += (int)run(r, 5, &p, &c, &l).fills_bid;
    }
    cr_assert(fills > 400 * (0.706 - 0.1) && fills < 400 * (0.706 + 0.1),
              "%d of 400 runs filled, want about 282", fills);
}
