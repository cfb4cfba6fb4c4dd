/* Section 4.5 of docs/model.md, book = l2: the queue of an order behind the best price from the
 * tape's depth stream. Each tape is hand-built (tu_rows_depth_tape) and each expected queue and
 * fill is worked out below from the document, for each queue rule; every case runs through the
 * reference (with a trace), the batched engine (mm_sim_run_batch) and the CUDA engine's per-thread
 * code emulated on the CPU, which must agree bit for bit. */
#include <criterion/criterion.h>
#include <string.h>

#include "mm_accel.h"
#include "testutil.h"
#include "tu_engines.h"

/* The market (tick 0.01, lot 1): bid 100 x 5, ask 102 x 5; the depth stream keeps 2 levels a side
 * and shows bid 99 x 7 and ask 103 x 4 behind them. Our fixed quotes at half spread 2 around the
 * mid 101 are bid 99 and ask 103, sent at row 0 (latency 0) and landing at row 1: with l2 the bid
 * joins behind the 7 lots shown at 99 (ahead 7), the ask behind 4; with l1 both are deep (queue
 * unknown). Row 2 adds 5 lots at 99 (behind us: level 12), row 3 cancels 2 of them (level 10).
 * Row 4 empties the bid at 100: 99 becomes the best bid (10 lots), the mid 100.5, the bid target
 * 98, within requote 5 of our 99, so our orders stay. Row 5: a seller-initiated trade of `trade`
 * lots at 99 (4.2: the queue ahead first, then us).
 *   l1: the bid was deep at row 4, so it joins behind all 10 (4.4): ahead 10.
 *   l2, risk-averse: no cancel was ahead (ahead 7 <= 10): ahead 7.
 *   l2, power n = 1: share = 7 / (7 + 5) of the 2 cancelled, floor(2 x 7/12 + 0.5) = 1: ahead 6.
 *   l2, log: share = ln 8 / (ln 8 + ln 6) = 0.537, floor(1.07 + 0.5) = 1: ahead 6.
 * A trade of 7 fills our 1 lot where ahead < 7 (power, log), not where ahead >= 7. */
static mm_ticks market(int trade, int hide)
{
    const tu_row r[] = {
        {0, 100, 5, 102, 5, 0, 0, 0},         {1, 100, 5, 102, 5, 0, 0, 0},
        {2, 100, 5, 102, 5, 0, 0, 0},         {3, 100, 5, 102, 5, 0, 0, 0},
        {4, 99, 10, 102, 5, 0, 0, 0},         {5, 99, 10 - trade, 102, 5, 99, trade, -1},
        {6, 99, 10 - trade, 102, 5, 0, 0, 0},
    };
    /* hide: row 3's cancel is replaced by the level leaving the window (a HIDE) and coming back
     * with 10 lots at row 4, when it becomes the best. */
    tu_drow d[] = {
        {0, 1, 100, 5, MM_DEPTH_SHOW, -1},   {0, 1, 99, 7, MM_DEPTH_SHOW, -1},
        {0, -1, 102, 5, MM_DEPTH_SHOW, -1},  {0, -1, 103, 4, MM_DEPTH_SHOW, -1},
        {2, 1, 99, 12, MM_DEPTH_ADD, -1},    {3, 1, 99, 10, MM_DEPTH_CANCEL, -1},
        {4, 1, 100, 0, MM_DEPTH_CANCEL, -1}, {5, 1, 99, 10 - trade, MM_DEPTH_TRADE, -1},
    };
    if (hide) {
        d[5] = (tu_drow){3, 1, 99, 0, MM_DEPTH_HIDE, -1};
        d[6] = (tu_drow){4, 1, 99, 10, MM_DEPTH_SHOW, -1};
        d[7] = (tu_drow){4, 1, 100, 0, MM_DEPTH_CANCEL, -1};
    }
    mm_ticks t = tu_rows_depth_tape(r, 7, d, 8, 2, 0, "DQ", 0.01, 1);
    /* The trade row's depth row: after row 4's (hide: two rows there). */
    if (hide) {
        mm_ticks_free(&t);
        tu_drow e[9];
        memcpy(e, d, sizeof d);
        e[8] = (tu_drow){5, 1, 99, 10 - trade, MM_DEPTH_TRADE, -1};
        t = tu_rows_depth_tape(r, 7, e, 9, 2, 0, "DQ", 0.01, 1);
    }
    mm_error err = {0};
    cr_assert_eq(mm_ticks_validate(&t, "depthq", &err), 0, "%s", err.msg);
    return t;
}

static void params(mm_params *p, const char *book, const char *queue, const char *n)
{
    mm_params_defaults(p);
    mm_error e = {0};
    cr_assert_eq(mm_params_set(p, "spread", "2", &e), 0);
    cr_assert_eq(mm_params_set(p, "requote", "5", &e), 0);
    cr_assert_eq(mm_params_set(p, "book", book, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_params_set(p, "queue", queue, &e), 0);
    cr_assert_eq(mm_params_set(p, "queue_n", n, &e), 0);
}

typedef struct joins {
    int n;
    int32_t ahead[4], px[4];
} joins;

static void on_trace(const mm_trace_rec *r, void *user)
{
    joins *j = user;
    if (r->kind == MM_TR_ACTIVE && j->n < 4) {
        j->ahead[j->n] = r->ahead;
        j->px[j->n++] = r->px;
    }
}

/* The run through every engine: the reference's metrics (and its landings in *j), equal bit for
 * bit to the batched engine's and the emulated CUDA kernel's. */
static mm_metrics run(const mm_ticks *t, const mm_params *p, joins *j)
{
    memset(j, 0, sizeof *j);
    return tu_run_engines(t, p, on_trace, j);
}

Test(depthq, joins_behind_the_shown_level_and_tracks_its_cancels)
{
    mm_ticks t = market(7, 0);
    mm_params p;
    joins j;
    params(&p, "l1", "risk-averse", "1");
    mm_metrics m = run(&t, &p, &j);
    cr_assert_eq(j.n, 2);
    cr_assert(j.px[0] == 99 && j.ahead[0] == -1, "l1: deep (ahead %d)", j.ahead[0]);
    cr_assert_eq(m.fills_bid, 0, "l1: 10 ahead at row 5, the trade of 7 stops short");
    params(&p, "l2", "risk-averse", "1");
    m = run(&t, &p, &j);
    cr_assert(j.px[0] == 99 && j.ahead[0] == 7, "l2: behind the 7 shown (ahead %d)", j.ahead[0]);
    cr_assert(j.px[1] == 103 && j.ahead[1] == 4, "l2: the ask behind 4 (ahead %d)", j.ahead[1]);
    cr_assert_eq(m.fills_bid, 0, "l2 risk-averse: 7 ahead, the trade of 7 takes them only");
    params(&p, "l2", "power", "1");
    m = run(&t, &p, &j);
    cr_assert_eq(m.fills_bid, 1, "l2 power n=1: 1 of the 2 cancels was ahead: 6 ahead, filled");
    params(&p, "l2", "log", "1");
    m = run(&t, &p, &j);
    cr_assert_eq(m.fills_bid, 1, "l2 log: 6 ahead, filled");
    mm_ticks_free(&t);
    /* A trade of 8 reaches us with 7 ahead (risk-averse), not with 10 (l1). */
    t = market(8, 0);
    params(&p, "l2", "risk-averse", "1");
    cr_assert_eq(run(&t, &p, &j).fills_bid, 1);
    params(&p, "l1", "risk-averse", "1");
    cr_assert_eq(run(&t, &p, &j).fills_bid, 0);
    mm_ticks_free(&t);
}

Test(depthq, a_hidden_level_makes_the_order_deep_again)
{
    /* The level leaves the window at row 3 (the order is deep: queue unknown) and comes back at
     * row 4 as the best with 10 lots: behind all of them, as l1 (4.4). A trade of 8: no fill. */
    mm_ticks t = market(8, 1);
    mm_params p;
    joins j;
    params(&p, "l2", "risk-averse", "1");
    mm_metrics m2 = run(&t, &p, &j);
    cr_assert_eq(j.ahead[0], 7);
    cr_assert_eq(m2.fills_bid, 0, "hidden, then behind all 10");
    params(&p, "l1", "risk-averse", "1");
    mm_metrics m1 = run(&t, &p, &j);
    cr_assert_eq(m1.fills_bid, 0);
    mm_ticks_free(&t);
}

Test(depthq, auto_is_l2_with_a_depth_stream_and_l1_without)
{
    mm_ticks t = market(7, 0);
    mm_params p;
    joins j;
    params(&p, "auto", "power", "1");
    mm_metrics a = run(&t, &p, &j);
    params(&p, "l2", "power", "1");
    mm_metrics l2 = run(&t, &p, &j);
    cr_assert(!memcmp(&a, &l2, sizeof a), "auto on a tape with depth is l2");
    /* The same rows without the depth stream: auto is l1, and l2 is refused. */
    const tu_row r[] = {{0, 100, 5, 102, 5, 0, 0, 0}, {1, 100, 5, 102, 5, 0, 0, 0},
                        {2, 100, 5, 102, 5, 0, 0, 0}, {3, 100, 5, 102, 5, 0, 0, 0},
                        {4, 99, 10, 102, 5, 0, 0, 0}, {5, 99, 3, 102, 5, 99, 7, -1},
                        {6, 99, 3, 102, 5, 0, 0, 0}};
    mm_ticks l1t = tu_rows_tape(r, 7, "DQ", 0.01, 1);
    params(&p, "auto", "power", "1");
    mm_metrics a1 = run(&l1t, &p, &j);
    params(&p, "l1", "power", "1");
    mm_metrics l1 = run(&l1t, &p, &j);
    cr_assert(!memcmp(&a1, &l1, sizeof a1), "auto on a tape without depth is l1");
    cr_assert_eq(l1.fills_bid, 0);
    params(&p, "l2", "power", "1");
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_metrics m;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&l1t, &c, &p, &m, NULL, NULL, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "book: l2 and l3 need a depth stream, and tape DQ has none"), "%s",
              e.msg);
    cr_assert_eq(mm_sim_run_batch(&l1t, &c, &p, 1, &m, &e), MM_EUSAGE);
    mm_ticks_free(&l1t);
    mm_ticks_free(&t);
}

/* book = l3 (order ids), the same market: the 7 lots at 99 are orders from before the file (join
 * -1). Row 2 adds an order of 5 (joined at row 2, after ours at row 1); row 3 cancels 2 lots of it
 * (behind us: ahead stays 7), then 2 lots of an order from before the file (ahead 5). Row 4 empties
 * 100: 99 is the best with 8 lots. Row 5: a seller-initiated trade of 6 at 99, executing the 5 lots
 * ahead of us (join -1: ahead 0), then 1 lot of the order that joined after us: FIFO would have
 * executed ours first, so our 1 lot fills. With `last` = 0 the trade is the first 5 lots only:
 * ahead 0, no fill. l1: deep until row 4, then behind all 8: no fill. */
static mm_ticks market_l3(int last)
{
    int trade = last ? 6 : 5;
    const tu_row r[] = {
        {0, 100, 5, 102, 5, 0, 0, 0},        {1, 100, 5, 102, 5, 0, 0, 0},
        {2, 100, 5, 102, 5, 0, 0, 0},        {3, 100, 5, 102, 5, 0, 0, 0},
        {4, 99, 8, 102, 5, 0, 0, 0},         {5, 99, 8 - trade, 102, 5, 99, trade, -1},
        {6, 99, 8 - trade, 102, 5, 0, 0, 0},
    };
    const tu_drow d[] = {
        {0, 1, 100, 5, MM_DEPTH_SHOW, -1},  {0, 1, 99, 7, MM_DEPTH_SHOW, -1},
        {0, -1, 102, 5, MM_DEPTH_SHOW, -1}, {0, -1, 103, 4, MM_DEPTH_SHOW, -1},
        {2, 1, 99, 12, MM_DEPTH_ADD, 2},    {3, 1, 99, 10, MM_DEPTH_CANCEL, 2},
        {3, 1, 99, 8, MM_DEPTH_CANCEL, -1}, {4, 1, 100, 0, MM_DEPTH_CANCEL, -1},
        {5, 1, 99, 3, MM_DEPTH_TRADE, -1},  {5, 1, 99, 2, MM_DEPTH_TRADE, 2},
    };
    mm_ticks t = tu_rows_depth_tape(r, 7, d, last ? 10 : 9, 2, 1, "DQ", 0.01, 1);
    mm_error err = {0};
    cr_assert_eq(mm_ticks_validate(&t, "depthq-l3", &err), 0, "%s", err.msg);
    return t;
}

Test(depthq, l3_takes_only_the_orders_that_joined_before_ours)
{
    mm_ticks t = market_l3(1);
    mm_params p;
    joins j;
    params(&p, "l3", "power", "1");
    mm_metrics m = run(&t, &p, &j);
    cr_assert(j.px[0] == 99 && j.ahead[0] == 7, "behind the 7 from before the file (%d)",
              j.ahead[0]);
    cr_assert_eq(m.fills_bid, 1, "the execution of a later order reaches ours first");
    params(&p, "auto", "power", "1");
    mm_metrics a = run(&t, &p, &j);
    cr_assert(!memcmp(&a, &m, sizeof a), "auto on a tape with order ids is l3");
    /* l2 on the same tape: the cancels split by the rule (power n = 1: 7 / 12 of row 3's first 2,
     * floor(1.67) = 1, then all of the next 2 with 6 ahead and 5 - 2 behind... as 4.4), the trade
     * taken from the queue ahead first; l1: behind all 8. */
    params(&p, "l1", "power", "1");
    cr_assert_eq(run(&t, &p, &j).fills_bid, 0, "l1: 8 ahead of the trade of 6");
    mm_ticks_free(&t);
    t = market_l3(0);
    params(&p, "l3", "power", "1");
    cr_assert_eq(run(&t, &p, &j).fills_bid, 0, "the 5 lots ahead only: no fill");
    mm_ticks_free(&t);
}

Test(depthq, l3_needs_order_ids)
{
    mm_ticks t = market(7, 0); /* a depth stream without order ids */
    mm_params p;
    params(&p, "l3", "power", "1");
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_metrics m;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), MM_EUSAGE);
    cr_assert(
        strstr(e.msg, "book: l3 needs order ids (LOBSTER), and tape DQ's depth stream has none"),
        "%s", e.msg);
    mm_ticks_free(&t);
}
