/* Section 3.1 of docs/model.md, the taker walk: with book = l2 / l3 an order that crosses the book
 * on landing with post_only = 0 takes the levels the depth stream shows, in price order, each at
 * its own price and bounded by its size; the rest rests when the book after the event no longer
 * crosses it, else it is cancelled. With book = l1 the rule of before stays: the touch at the
 * order's own price, the rest cancelled. Each tape is hand-built (tu_rows_depth_tape) and each
 * expected fill worked out below from the document; every case runs through the reference (with a
 * trace), the batched engine (mm_sim_run_batch) and the CUDA engine's per-thread code emulated on
 * the CPU, which must agree bit for bit. */
#include <criterion/criterion.h>
#include <string.h>

#include "mm_accel.h"
#include "testutil.h"
#include "tu_engines.h"

/* The market (tick 0.01, lot 1), 3 levels a side kept. Row 0 (0 ms): bid 100 x 5, ask 102 x 5;
 * shown bids 100 x 5, 99 x 7, 98 x 2 and asks 102 x 5, 103 x 4, 104 x 6. Our fixed quotes at
 * half spread 1 around the mid 101, bid 100 and ask 102, are sent at row 0 with latency 1 ms.
 * Row 1 (0.5 ms): the book falls: the bids at 100, 99, 98 are cancelled (shown with 0 lots), 96 x
 * 5, 95 x 1, 94 x 1 are added; asks 98 x 2, 99 x 3, 100 x 4 are added and 102, 103, 104 leave the
 * window (hidden). The bid and ask in flight stay (one action per side until its response, 3.2).
 * Row 2 (1 ms): both land against the book before it, row 1's. Our bid at 100 crosses the ask 98:
 * it walks 98 x 2 (the level-1 columns), then the shown 99 x 3 and 100 x 4. Our ask at 102 rests
 * behind the best ask 98 at a hidden level: deep.
 *   `gone` = 0: row 2 leaves the book as it was (ask 98 x 2 after the event).
 *   `gone` = 1: row 2 shows the asks at 98, 99, 100 traded away and 101 x 5 added (102 x 5 and
 *   103 x 4 shown again): the book after the event is bid 96 x 5, ask 101 x 5.
 * Prices are written through T(p) = off + p, or with `mirror` T(p) = off - p with the sides
 * swapped (a bid at p becomes an ask at off - p and the reverse): the mirror image of the market,
 * in which our ask walks the bids downwards. With off <= -99 or a mirror with off < 100 the walk
 * crosses price 0 (the level index orders a key's price as uint32: two runs). */
typedef struct xform {
    int32_t off;
    int mirror;
} xform;

static int32_t tp(xform x, int32_t p)
{
    return x.mirror ? x.off - p : x.off + p;
}

static mm_ticks market(int gone, xform x, int ids)
{
    /* ms, bid, bid size, ask, ask size (no trades). */
    const int32_t rb[3][5] = {{0, 100, 5, 102, 5}, {1, 96, 5, 98, 2}, {2, 96, 5, 98, 2}};
    const int32_t rg[5] = {2, 96, 5, 101, 5};
    tu_row r[3];
    for (int i = 0; i < 3; i++) {
        const int32_t *s = gone && i == 2 ? rg : rb[i];
        int32_t b = tp(x, s[1]), a = tp(x, s[3]);
        r[i] = x.mirror ? (tu_row){s[0] * 0.5, a, s[4], b, s[2], 0, 0, 0}
                        : (tu_row){s[0] * 0.5, b, s[2], a, s[4], 0, 0, 0};
    }
    /* row, side (+1 bid), price, size after, cause. */
    const int32_t dd[][5] = {
        {0, 1, 100, 5, MM_DEPTH_SHOW},   {0, 1, 99, 7, MM_DEPTH_SHOW},
        {0, 1, 98, 2, MM_DEPTH_SHOW},    {0, -1, 102, 5, MM_DEPTH_SHOW},
        {0, -1, 103, 4, MM_DEPTH_SHOW},  {0, -1, 104, 6, MM_DEPTH_SHOW},
        {1, 1, 100, 0, MM_DEPTH_CANCEL}, {1, 1, 99, 0, MM_DEPTH_CANCEL},
        {1, 1, 98, 0, MM_DEPTH_CANCEL},  {1, 1, 96, 5, MM_DEPTH_ADD},
        {1, 1, 95, 1, MM_DEPTH_ADD},     {1, 1, 94, 1, MM_DEPTH_ADD},
        {1, -1, 104, 0, MM_DEPTH_HIDE},  {1, -1, 103, 0, MM_DEPTH_HIDE},
        {1, -1, 102, 0, MM_DEPTH_HIDE},  {1, -1, 100, 4, MM_DEPTH_ADD},
        {1, -1, 99, 3, MM_DEPTH_ADD},    {1, -1, 98, 2, MM_DEPTH_ADD},
        {2, -1, 98, 0, MM_DEPTH_TRADE},  {2, -1, 99, 0, MM_DEPTH_TRADE},
        {2, -1, 100, 0, MM_DEPTH_TRADE}, {2, -1, 101, 5, MM_DEPTH_ADD},
        {2, -1, 102, 5, MM_DEPTH_SHOW},  {2, -1, 103, 4, MM_DEPTH_SHOW},
    };
    int nd = gone ? 24 : 18;
    tu_drow d[24];
    for (int j = 0; j < nd; j++)
        d[j] = (tu_drow){dd[j][0], x.mirror ? -dd[j][1] : dd[j][1], tp(x, dd[j][2]), dd[j][3],
                         dd[j][4],
                         /* ids: an order added at row 1 traded at row 2, the rest from before */
                         dd[j][4] == MM_DEPTH_ADD     ? dd[j][0]
                         : dd[j][4] == MM_DEPTH_TRADE ? 1
                                                      : -1};
    mm_ticks t = tu_rows_depth_tape(r, 3, d, nd, 3, ids, "WK", 0.01, 1);
    mm_error err = {0};
    cr_assert_eq(mm_ticks_validate(&t, "walk", &err), 0, "%s", err.msg);
    return t;
}

/* Fixed quotes at half spread 1, size `size`, limit 20, latency 1 ms, post_only = 0, taker fee 10
 * bps (taker_rate = 10 x 1e-4 x 0.01 x 1 = 1e-5 per tick x lot), no maker fee. */
static void params(mm_params *p, const char *book, int size)
{
    mm_params_defaults(p);
    mm_error e = {0};
    cr_assert_eq(mm_params_set(p, "book", book, &e), 0, "%s", e.msg);
    p->spread_ticks = 1;
    p->quote_size = size;
    p->inv_limit = 20;
    p->latency_ns = 1000000;
    p->post_only = 0;
    p->taker_fee_bps = 10;
    p->maker_fee_bps = 0;
}

#define MAXREC 64
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

/* The records of one kind and side (+1 bid, -1 ask), in order. */
static int recs(const trace_log *l, int kind, int side, const mm_trace_rec **out, int max)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (l->r[i].kind == kind && l->r[i].side == side && n < max) out[n++] = &l->r[i];
    return n;
}

/* The run through every engine: the reference's metrics (its trace in *l), equal bit for bit to
 * the batched engine's and the emulated CUDA kernel's. */
static mm_metrics run(const mm_ticks *t, const mm_params *p, trace_log *l)
{
    memset(l, 0, sizeof *l);
    return tu_run_engines(t, p, on_trace, l);
}

/* Size 6: 2 at 98, 3 at 99, 1 at 100 (of the 4 shown), nothing left. */
Test(walk, a_buy_crossing_three_shown_levels_fills_at_each_price_bounded_by_its_size)
{
    const xform x = {0, 0};
    mm_ticks t = market(0, x, 0);
    mm_params p;
    trace_log l;
    params(&p, "l2", 6);
    mm_metrics m = run(&t, &p, &l);
    const mm_trace_rec *f[8];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 8), 3, "one taker fill record a level");
    const int32_t px[3] = {98, 99, 100}, qty[3] = {2, 3, 1}, pos[3] = {2, 5, 6};
    for (int i = 0; i < 3; i++)
        cr_assert(f[i]->px == px[i] && f[i]->qty == qty[i] && f[i]->taker == 1 &&
                      f[i]->event == 2 && f[i]->q == pos[i],
                  "fill %d: %d x %d at event %lld, position %lld", i, f[i]->qty, f[i]->px,
                  (long long)f[i]->event, (long long)f[i]->q);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, f, 8), 0, "nothing left to rest");
    cr_assert(m.fills_bid == 3 && m.volume == 6 && m.final_q == 6);
    /* fees 1e-5 x (98 x 2) + 1e-5 x (99 x 3) + 1e-5 x (100 x 1), in that order. */
    double fees = 1e-5 * (98.0 * 2.0);
    fees += 1e-5 * (99.0 * 3.0);
    fees += 1e-5 * (100.0 * 1.0);
    cr_assert_eq(m.fees, fees, "fees %.17g", m.fees);
    /* Spread capture against the mid before row 2 (mid2 194): 2 (194 - 196) + 3 (194 - 198) +
     * 1 (194 - 200) = -22 half-ticks x lots: -0.11. The mid after it is 97 (mid2 194) too, so
     * the inventory PnL is 0: cash2 -1186, q x mid2 1164, pnl (-22) x 0.005 - fees. */
    cr_assert_float_eq(m.pnl_spread, -0.11, 1e-12, "pnl_spread %.17g", m.pnl_spread);
    cr_assert_float_eq(m.pnl, -0.11 - fees, 1e-12, "pnl %.17g", m.pnl);
    cr_assert_eq(m.fills_ask, 0);
    mm_ticks_free(&t);
}

/* l1: the tape shows the touch only; the rule of before: min(6, 2) = 2 at our own price 100, the
 * rest cancelled. The same with the depth stream ignored (book = l1 on this tape). */
Test(walk, l1_takes_the_touch_at_its_own_price_and_cancels_the_rest)
{
    const xform x = {0, 0};
    mm_ticks t = market(0, x, 0);
    mm_params p;
    trace_log l;
    params(&p, "l1", 6);
    mm_metrics m = run(&t, &p, &l);
    const mm_trace_rec *f[8];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 8), 1);
    cr_assert(f[0]->px == 100 && f[0]->qty == 2 && f[0]->taker == 1 && f[0]->event == 2);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, f, 8), 0);
    cr_assert(m.fills_bid == 1 && m.volume == 2 && m.final_q == 2);
    cr_assert_eq(m.fees, 1e-5 * (100.0 * 2.0));
    mm_ticks_free(&t);
}

/* Size 10: 2 + 3 + 4 = 9 lots shown at or below 100, 1 left. With the book after row 2 still
 * showing the ask 98 (at or through 100) it is cancelled: resting, it would fill again against
 * the same shown lots (4.3). With the asks up to 100 gone after row 2 (best ask 101) it rests at
 * 100, better than the best bid 96: queue ahead 0. */
Test(walk, the_rest_rests_only_when_the_book_after_the_event_no_longer_crosses_it)
{
    const xform x = {0, 0};
    mm_params p;
    trace_log l;
    const mm_trace_rec *f[8];
    params(&p, "l2", 10);
    mm_ticks t = market(0, x, 0);
    mm_metrics m = run(&t, &p, &l);
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 8), 3);
    cr_assert(f[2]->px == 100 && f[2]->qty == 4);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, f, 8), 0, "still crossed after the event: cancelled");
    cr_assert(m.fills_bid == 3 && m.volume == 9 && m.final_q == 9);
    mm_ticks_free(&t);
    t = market(1, x, 0);
    m = run(&t, &p, &l);
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 8), 3);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, f, 8), 1, "the rest rests");
    cr_assert(f[0]->px == 100 && f[0]->qty == 1 && f[0]->ahead == 0 && f[0]->event == 2);
    cr_assert(m.fills_bid == 3 && m.volume == 9 && m.final_q == 9);
    /* The decision at row 2 (mid 98.5, bid target 97) replaces it: the cancel of 1 lot at 100. */
    cr_assert_eq(recs(&l, MM_TR_CANCEL, 1, f, 8), 1);
    cr_assert(f[0]->px == 100 && f[0]->qty == 1);
    mm_ticks_free(&t);
    /* l3 (a tape with order ids) walks alike: the same fills, the same rest. */
    t = market(1, x, 1);
    params(&p, "l3", 10);
    m = run(&t, &p, &l);
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 8), 3);
    cr_assert(f[0]->px == 98 && f[1]->px == 99 && f[2]->px == 100 && f[2]->qty == 4);
    cr_assert_eq(recs(&l, MM_TR_ACTIVE, 1, f, 8), 1);
    cr_assert(f[0]->px == 100 && f[0]->qty == 1 && f[0]->ahead == 0);
    mm_ticks_free(&t);
}

/* The mirror image (our ask walks the bids 102, 101, 100 downwards) and shifted prices, some
 * across 0: the same fills, mirrored, and the same spread capture. */
Test(walk, a_sell_walks_the_bids_downwards_and_prices_across_zero_walk_alike)
{
    const xform xs[] = {{0, 0}, {-100, 0}, {-99, 0}, {-1000, 0}, {200, 1}, {99, 1}, {100, 1}};
    mm_params p;
    trace_log l;
    params(&p, "l2", 6);
    for (size_t v = 0; v < sizeof xs / sizeof *xs; v++) {
        xform x = xs[v];
        mm_ticks t = market(0, x, 0);
        mm_metrics m = run(&t, &p, &l);
        int side = x.mirror ? -1 : 1;
        const mm_trace_rec *f[8];
        cr_assert_eq(recs(&l, MM_TR_FILL, side, f, 8), 3, "variant %zu", v);
        const int32_t px[3] = {98, 99, 100}, qty[3] = {2, 3, 1};
        for (int i = 0; i < 3; i++)
            cr_assert(f[i]->px == tp(x, px[i]) && f[i]->qty == qty[i] && f[i]->taker == 1,
                      "variant %zu fill %d: %d x %d", v, i, f[i]->qty, f[i]->px);
        cr_assert_eq(m.final_q, 6 * side);
        cr_assert_float_eq(m.pnl_spread, -0.11, 1e-12, "variant %zu: %.17g", v, m.pnl_spread);
        mm_ticks_free(&t);
    }
}

/* post_only = 1 is unchanged by the depth stream: the crossing order is rejected. */
Test(walk, post_only_still_rejects_with_depth)
{
    const xform x = {0, 0};
    mm_ticks t = market(0, x, 0);
    mm_params p;
    trace_log l;
    params(&p, "l2", 6);
    p.post_only = 1;
    mm_metrics m = run(&t, &p, &l);
    const mm_trace_rec *f[8];
    cr_assert_eq(recs(&l, MM_TR_FILL, 1, f, 8), 0);
    cr_assert_eq(recs(&l, MM_TR_REJECT, 1, f, 8), 1);
    cr_assert(m.rejects == 1 && m.volume == 0);
    mm_ticks_free(&t);
}
