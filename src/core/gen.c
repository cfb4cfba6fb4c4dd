/* Synthetic market generator (docs/synthetic.md describes the process exactly).
 *
 * Each event i draws 8 words from Philox4x32-10 with key = seed and counters (i, 0, 0, 0) and (i,
 * 1, 0, 0) (and, right after a trade when trade_persist > 0, (i, 3, 0, 0); for a trade when
 * informed > 0, (i, 2, 0, 0)); the tape is then built with integer arithmetic and the
 * deterministic log, so the same parameters give the same bytes everywhere. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_detmath.h"
#include "mm_internal.h"
#include "mm_rng.h"

void mm_gen_defaults(mm_gen_params *p)
{
    *p = (mm_gen_params){0};
    p->seed = 1;
    p->events = 1000000;
    p->start_ns = INT64_C(1767364200000000000); /* 2026-01-02 14:30:00 UTC */
    p->rate_hz = 1000.0;
    p->vol_ticks = 2.0;
    p->trade_frac = 0.10;
    p->start_px = 100000;
    p->max_spread = 3;
    p->mean_queue = 50;
    p->tick_size = 0.01;
    p->lot_size = 1.0;
    p->move_ticks = 1;
    p->improve_frac = 0.05;
    strcpy(p->symbol, "SYN");
}

/* Uniform integer in [1, 2m - 1] (mean m) from a 32-bit word. */
static int32_t draw_size(uint32_t w, int32_t m)
{
    return 1 + (int32_t)(w % (uint32_t)(2 * m - 1));
}

int mm_gen_ticks(const mm_gen_params *p, mm_ticks *out, mm_error *err)
{
    if (p->events < 0) return mm__errf(err, -EINVAL, "events: must be >= 0");
    if (!(p->rate_hz > 0) || p->rate_hz > 1e9)
        return mm__errf(err, -EINVAL, "rate: must be in (0, 1e9] events/s");
    if (!(p->vol_ticks >= 0)) return mm__errf(err, -EINVAL, "vol: must be >= 0 ticks/sqrt(s)");
    if (!(p->trade_frac >= 0 && p->trade_frac < 1))
        return mm__errf(err, -EINVAL, "trade-frac: must be in [0, 1)");
    if (p->start_px < 1000 || p->start_px > INT32_MAX / 2)
        return mm__errf(err, -EINVAL, "start-px: must be in [1000, %d] ticks", INT32_MAX / 2);
    if (p->max_spread < 1 || p->max_spread > 100)
        return mm__errf(err, -EINVAL, "max-spread: must be in 1..100 ticks");
    if (p->mean_queue < 1 || p->mean_queue > 1000000)
        return mm__errf(err, -EINVAL, "mean-queue: must be in 1..1000000 lots");
    if (!(p->tick_size > 0) || !isfinite(p->tick_size))
        return mm__errf(err, -EINVAL, "tick-size: must be finite and > 0");
    if (!(p->lot_size > 0) || !isfinite(p->lot_size))
        return mm__errf(err, -EINVAL, "lot-size: must be finite and > 0");
    if (!(p->informed >= 0 && p->informed <= 1))
        return mm__errf(err, -EINVAL, "informed: must be in [0, 1]");
    if (p->start_ns < 0) return mm__errf(err, -EINVAL, "start-ns: must be >= 0");
    if (!mm__valid_symbol(p->symbol))
        return mm__errf(err, -EINVAL, "symbol: '%s' must match [A-Za-z0-9._-]+", p->symbol);
    if (!(p->improve_frac >= 0 && p->improve_frac <= 0.5))
        return mm__errf(err, -EINVAL, "improve-frac: must be in [0, 0.5]");
    if (!(p->trade_persist >= 0 && p->trade_persist <= 0.999))
        return mm__errf(err, -EINVAL, "trade-persist: must be in [0, 0.999]");
    if (p->trade_size < 0 || p->trade_size > 1000000)
        return mm__errf(err, -EINVAL, "trade-size: must be in 0..1000000 lots");
    if (p->move_ticks < 0 || p->move_ticks > 1000)
        return mm__errf(err, -EINVAL, "move-ticks: must be in 1..1000 ticks");
    const int32_t J = p->move_ticks ? p->move_ticks : 1;
    /* Probability that an event moves the mid by J ticks: vol^2 / (rate J^2) (variance per second
     * = vol^2). With J = 1 the divisor is rate itself, the same bits as before J existed. */
    double p_move = p->vol_ticks * p->vol_ticks / (p->rate_hz * (double)(J * J));
    /* The move, trade and improve probabilities share one 32-bit word: their sum stays <= 0.95
     * (written so that the default improve_frac 0.05 gives exactly the old bound, 0.9). */
    if (p_move + p->trade_frac > 0.9 - (p->improve_frac - 0.05))
        return mm__errf(err, -EINVAL,
                        "vol: vol^2/(rate move-ticks^2) + trade-frac = %.3f must be <= %.3g (0.95 "
                        "- improve-frac)",
                        p_move + p->trade_frac, 0.9 - (p->improve_frac - 0.05));

    mm_ticks t = {0};
    int rc = mm__ticks_alloc_heap(&t, p->events);
    if (rc) return mm__errf(err, rc, "cannot allocate %" PRId64 " rows", p->events);
    memset(&t.inst, 0, sizeof t.inst);
    strcpy(t.inst.symbol, p->symbol);
    snprintf(t.inst.source, sizeof t.inst.source, "mmsim gen seed=%" PRIu64, p->seed);
    t.inst.tick_size = p->tick_size;
    t.inst.year_s = 252.0 * 6.5 * 3600; /* a synthetic equity-like market: 252 days of 6.5 h */
    t.inst.lot_size = p->lot_size;

    const uint64_t th_move = mm_prob32(p_move);
    const uint64_t th_trade = th_move + mm_prob32(p->trade_frac);
    const uint64_t th_improve = th_trade + mm_prob32(p->improve_frac);
    const uint64_t th_informed = mm_prob32(p->informed);     /* 0: no trade is informed */
    const uint64_t th_persist = mm_prob32(p->trade_persist); /* 0: no trade runs on */
    const double mean_dt_ns = 1e9 / p->rate_hz;
    const int32_t mean_trade = p->trade_size > 0       ? p->trade_size
                               : p->mean_queue / 5 > 0 ? p->mean_queue / 5
                                                       : 1;
    const int32_t mean_change = p->mean_queue / 2 > 0 ? p->mean_queue / 2 : 1;

    int64_t ts = p->start_ns;
    /* fair2: twice the fair price in ticks; only move events change it. The touches stay within
     * max_spread of it, so the mid follows the fair price's random walk plus a bounded deviation.
     */
    int32_t bid = p->start_px, ask = p->start_px + 1;
    int64_t fair2 = (int64_t)bid + ask;
    int32_t bq = p->mean_queue, aq = p->mean_queue;
    int last_tside = 0; /* the previous event's trade side; 0 when it was not a trade */
    for (int64_t i = 0; i < p->events; i++) {
        mm_u32x4 a = mm_rng4(p->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0, 0);
        mm_u32x4 b = mm_rng4(p->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 1, 0);
        /* Inter-event time: exponential with mean 1/rate, at least 1 ns. */
        double dt = -mm_det_log(mm_u01(a.v[0], a.v[1])) * mean_dt_ns;
        int64_t step =
            dt < 1.0 ? 1 : (int64_t)dt; /* dt < 45 * 1e15 ns: -log(u01) < 45, rate >= 1e-6 */
        if (ts > INT64_MAX - step) {
            free(t.mem_base); /* heap (core does not link the io layer's mm_ticks_free) */
            return mm__errf(err, -EINVAL,
                            "events: %" PRId64 " events at %g/s from start-ns %" PRId64
                            " pass the largest time (INT64_MAX ns, year 2262)",
                            p->events, p->rate_hz, p->start_ns);
        }
        ts += step;
        uint32_t kind = a.v[2];
        int dir = (a.v[3] & 1) ? 1 : -1; /* +1: up / buy / ask side; -1: down / sell / bid side */
        int32_t tpx = 0, tsz = 0;
        int8_t tside = 0;
        int32_t spread = ask - bid;
        /* Self-exciting flow (docs/synthetic.md, step 2b): right after a trade, with probability
         * trade_persist this event is another trade of the same side (the order, or the flow it
         * set off, runs on). The fourth block is drawn only then, so trade_persist = 0 leaves
         * every draw, and the tape's bytes, as they were. */
        int run_on = 0;
        if (th_persist && last_tside) {
            mm_u32x4 d = mm_rng4(p->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 3, 0);
            if (d.v[0] < th_persist) {
                run_on = 1;
                dir = last_tside;
            }
        }
        if (!run_on && kind < th_move) {
            /* The fair price moves one tick; both touches follow, as new levels with fresh queues.
             */
            fair2 += 2 * dir * J;
            bid += dir * J;
            ask += dir * J;
            bq = draw_size(b.v[0], p->mean_queue);
            aq = draw_size(b.v[1], p->mean_queue);
        } else if (run_on || kind < th_trade) {
            /* Market order of side dir against the opposite touch; it takes at most the displayed
             * size. */
            int32_t want = draw_size(b.v[0], mean_trade);
            int32_t *q = dir > 0 ? &aq : &bq;
            tsz = want < *q ? want : *q;
            tpx = dir > 0 ? ask : bid;
            tside = (int8_t)dir;
            *q -= tsz;
            if (*q == 0) {
                /* The level is gone: the next level, one tick further, becomes the touch; at the
                 * maximum spread the level is replenished in place instead. */
                *q = draw_size(b.v[1], p->mean_queue);
                if (spread < p->max_spread) {
                    if (dir > 0)
                        ask += 1;
                    else
                        bid -= 1;
                }
            }
            /* Informed flow (docs/synthetic.md, step 4b): with probability `informed` the trader
             * knew the next fair-price move, which happens at once in the trade's direction; the
             * book follows as in a move. The third block is drawn only then, so informed = 0
             * leaves every other draw, and the tape's bytes, as they were. */
            if (th_informed) {
                mm_u32x4 c = mm_rng4(p->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 2, 0);
                if (c.v[0] < th_informed) {
                    fair2 += 2 * dir * J;
                    bid += dir * J;
                    ask += dir * J;
                    bq = draw_size(c.v[1], p->mean_queue);
                    aq = draw_size(c.v[2], p->mean_queue);
                }
            }
        } else if (kind < th_improve && spread > 1) {
            /* A new order improves a touch by one tick, on the side that brings the mid back toward
             * the fair price (either side, at random, when the mid is on it). */
            int64_t dev = (int64_t)bid + ask - fair2;
            int side = dev > 0 ? 1 : dev < 0 ? -1 : dir;
            if (side > 0) {
                ask -= 1;
                aq = draw_size(b.v[0], mean_change);
            } else {
                bid += 1;
                bq = draw_size(b.v[0], mean_change);
            }
        } else {
            /* Size change at a touch: an add or a cancel (a cancel leaves at least one lot). */
            int32_t *q = dir > 0 ? &aq : &bq;
            int32_t d = draw_size(b.v[0], mean_change);
            if (b.v[1] & 1)
                *q += d;
            else
                *q = *q - d >= 1 ? *q - d : 1;
            if (*q > 50 * p->mean_queue) *q = 50 * p->mean_queue;
        }
        last_tside = tside;
        t.ts_ns[i] = ts;
        t.bid_px[i] = bid;
        t.ask_px[i] = ask;
        t.bid_sz[i] = bq;
        t.ask_sz[i] = aq;
        t.trade_px[i] = tpx;
        t.trade_sz[i] = tsz;
        t.trade_side[i] = tside;
    }
    *out = t;
    return 0;
}
