/* The per-event step of the market-making model, written once for the host compiler and nvcc
 * (MM_HD). docs/model.md is the specification; section numbers there match the comments here.
 *
 * Units: prices in ticks (int32), sizes in lots (int32), positions and cash in int64 (cash counted
 * twice, in half-ticks x lots, so marking at a half-tick mid stays an exact integer), times in ns
 * (int64), money in double (ticks x lots x tick_size x lot_size). */
#ifndef MM_STEP_H
#define MM_STEP_H

#include <stdint.h>

#include "mm_detmath.h"
#include "mm_draw.h"
#include "mm_fill.h"
#include "mm_hd.h"
#include "mm_rng.h"
#include "mm_state.h"
#include "mm_step_depth.h"
#include "mmsim/sim.h"

/* Section 3: actions in flight that land at or before this event's time, against the book before
 * it. */
MM_HD void mm__land(mm_state *st, const mm_event *ev, const mm_derived *d, mm_trace_sink *tr)
{
    for (int k = 0; k < 2; k++) {
        mm_side *o = &st->s[k];
        if (o->land_ns > ev->ts) continue;
        o->land_ns = MM_NEVER;
        o->qty = 0; /* the cancel of the old order (if any) lands */
        /* Section 3.2: the response to this action reaches the strategy at a. */
        int64_t a = mm__resp_at(st, ev, d);
        o->resp_ns = a;
        o->acc = 0;
        o->done_ns = MM_NEVER;
        if (o->new_qty <= 0) continue;
        int32_t px = o->new_px, qty = o->new_qty;
        /* Room left to the inventory limit now (the old order may have filled while this was in
         * flight). */
        int64_t room = k == 0 ? d->limit - st->q : d->limit + st->q;
        if (room <= 0) {
            st->rejects += 1;
            st->wait_ns[k] = a + d->backoff_ns;
            mm__trace(tr, st, ev, d, MM_TR_REJECT, k, px, qty, 0);
            continue;
        }
        if (qty > room) qty = (int32_t)room;
        /* Would it cross the book as it stands? */
        int crosses = k == 0 ? (ev->pas > 0 && px >= ev->pa) : (ev->pbs > 0 && px <= ev->pb);
        if (crosses) {
            if (d->post_only) {
                st->rejects += 1;
                st->wait_ns[k] = a + d->backoff_ns;
                mm__trace(tr, st, ev, d, MM_TR_REJECT, k, px, qty, 0);
                continue;
            }
            if (d->book == MM_BOOK_L1 || !ev->dv) {
                /* l1: the tape shows the touch only; take it at our own price. */
                int32_t avail = k == 0 ? ev->pas : ev->pbs;
                mm__fill(st, ev, d, k, px, qty < avail ? qty : avail, 1,
                         tr); /* the rest is cancelled */
                continue;
            }
            /* l2 / l3: walk the shown levels; the rest rests only where the book after the event
             * shows nothing at or through px (else it would take the same lots again, 4.3). */
            qty = mm__land_walk(st, ev, d, k, px, qty, tr);
            int still = k == 0 ? (ev->as > 0 && ev->a <= px) : (ev->bs > 0 && ev->b >= px);
            if (qty == 0 || still) continue; /* filled, or the rest is cancelled */
        }
        o->px = px;
        o->qty = qty;
        o->acc = 1;
        int32_t best = k == 0 ? ev->pb : ev->pa, best_sz = k == 0 ? ev->pbs : ev->pas;
        int better = k == 0 ? px > best : px < best;
        int32_t lz = -1; /* book = l2 behind the best: the level's size as shown (4.5) */
        if (best_sz == 0 || better) {
            o->ahead = 0;
            o->deep = 0;
            if (d->book != MM_BOOK_L1) o->lsz = 0;
        } else if (px == best || (d->book != MM_BOOK_L1 && ev->dv &&
                                  (lz = mm__level_size(ev->dv, k, px, ev->i)) >= 0)) {
            if (px == best) lz = best_sz;
            /* Behind everything displayed at its level (lz lots: the best's, or with book = l2 a
             * shown level's); queue_join = uniform (3.3): at a uniform place among the lz + 1
             * positions, ahead = floor(u (lz + 1)). */
            o->ahead = lz;
            if (d->join_uniform && d->book != MM_BOOK_L3) { /* l3: the back, exactly */
                mm_u32x4 r = mm_stream4(st->key, MM_RNG_JOIN, (uint64_t)ev->i, (uint32_t)k);
                o->ahead = (int32_t)(mm_u01(r.v[0], r.v[1]) * ((double)lz + 1.0));
            }
            o->deep = 0;
            if (d->book != MM_BOOK_L1) o->lsz = lz;
        } else {
            o->ahead = 0;
            o->deep = 1;
            if (d->book != MM_BOOK_L1) o->lsz = -1;
        }
        if (d->book == MM_BOOK_L3) o->jrow = ev->i; /* 4.5: orders of later rows are behind it */
        mm__trace(tr, st, ev, d, MM_TR_ACTIVE, k, px, qty, 0);
    }
}

/* Section 4: the event against one live order. k = 0 bid (buy), 1 ask (sell). *vol: the lots of
 * the event's trade left to fill it (4.1, 4.2), *shown: the lots shown at the opposite best left to
 * fill it (4.3); each less what it filled (a ladder's rungs share them in price order, 6.2). */
MM_HD void mm__match_vol(mm_state *st, const mm_event *ev, const mm_derived *d, int k, int32_t *vol,
                         int32_t *shown, mm_trace_sink *tr)
{
    mm_side *o = &st->s[k];
    if (o->qty <= 0) return;
    int32_t px = o->px;
    /* "Through" = strictly better for the other side: below a buy, above a sell. */
    int hit_side = k == 0 ? -1 : 1; /* trades that can fill us: seller-initiated for a buy */
    int32_t traded_here = 0;
    if (ev->tsz > 0 && ev->tside == hit_side) {
        int through = k == 0 ? ev->tpx < px : ev->tpx > px;
        if (through) {
            /* 4.1 trade-through: our better-priced order was hit first, by at most the traded
             * size (the whole order when unbounded). */
            int32_t f = d->fill_unbounded || o->qty < *vol ? o->qty : *vol;
            if (f > 0) mm__fill(st, ev, d, k, px, f, 0, tr);
            *vol = *vol > f ? *vol - f : 0;
        } else if (ev->tpx == px) {
            traded_here = ev->tsz;
            /* 4.2 trade at our price: the queue ahead goes first; with trade_reach < 1 it reaches
             * our queue only when word 0 of the draw (3.3) is below the threshold. */
            int reach =
                d->reach32 > UINT32_MAX ||
                mm_stream4(st->key, MM_RNG_HIDDEN, (uint64_t)ev->i, (uint32_t)k).v[0] < d->reach32;
            if (!o->deep && !d->tto && reach && d->book != MM_BOOK_L3) { /* l3: 4.5 */
                int32_t v = *vol;
                int32_t take = o->ahead < v ? o->ahead : v;
                o->ahead -= take;
                v -= take;
                int32_t f = o->qty < v ? o->qty : v;
                if (f > 0) mm__fill(st, ev, d, k, px, f, 0, tr);
                if (f > 0) *vol -= f;
            }
        }
    }
    if (o->qty <= 0) return;
    /* 4.3 book cross: the opposite best reaches our price. */
    int crossed = k == 0 ? (ev->as > 0 && ev->a <= px) : (ev->bs > 0 && ev->b >= px);
    if (crossed && !d->tto) {
        /* At most the size displayed at the opposite best, which is at or through our price (the
         * whole order when unbounded). */
        int32_t f = d->fill_unbounded || o->qty < *shown ? o->qty : *shown;
        if (f > 0) mm__fill(st, ev, d, k, px, f, 0, tr);
        *shown = *shown > f ? *shown - f : 0;
        if (o->qty <= 0) return;
    }
    /* 4.4 queue position from the book change on our side. */
    int32_t nb = k == 0 ? ev->b : ev->a, nbs = k == 0 ? ev->bs : ev->as;
    int32_t pb = k == 0 ? ev->pb : ev->pa, pbs = k == 0 ? ev->pbs : ev->pas;
    int level_gone = nbs == 0 || (k == 0 ? nb < px : nb > px);
    if (level_gone) {
        o->ahead = 0;
        o->deep = 0;
        if (d->book != MM_BOOK_L1) o->lsz = 0;
    } else if (d->book == MM_BOOK_L3) {
        mm__queue_l3(st, ev, d, k, tr); /* 4.5: at the best or behind it, by the order ids */
    } else if (nb == px) {
        if (o->deep) {
            o->ahead = nbs; /* the level became best: behind everything shown */
            o->deep = 0;
        } else if (pbs > 0 && pb == px) {
            /* In int64: with sizes near INT32_MAX these differences leave the int32 range. */
            /* What left the level that did not trade since the level last changed: this event's
             * trade at our price and the earlier ones at it (a tape that prints the trade and the
             * size drop in separate rows, Binance). */
            int64_t traded = (int64_t)traded_here + ev->traded[k];
            int64_t dec = (int64_t)pbs - nbs - traded;
            if (dec > 0 && o->ahead > 0 && d->queue_rule != MM_QUEUE_RISK_AVERSE) {
                int64_t behind = (int64_t)pbs - traded - o->ahead;
                if (behind < 0) behind = 0;
                o->ahead -= (int32_t)mm__cancel_cut(st, ev, d, k, dec, o->ahead, behind);
            }
        }
        if (o->ahead > nbs) o->ahead = nbs;
        if (d->book == MM_BOOK_L2) o->lsz = nbs;
    } else if (d->book == MM_BOOK_L2) {
        mm__queue_l2(st, ev, d, k); /* 4.5: behind the best, the depth stream's level */
    } else {
        o->deep = 1; /* the best moved past our price: we are behind the visible best */
    }
}

/* Section 4 for one order: the event's whole trade and opposite best. */
MM_HD void mm__match(mm_state *st, const mm_event *ev, const mm_derived *d, int k,
                     mm_trace_sink *tr)
{
    int32_t vol = ev->tsz, shown = k == 0 ? ev->as : ev->bs;
    mm__match_vol(st, ev, d, k, &vol, &shown, tr);
}

/* Section 6.1: may side k send a new order now? The reject back-off, then the token bucket of
 * max_orders_per_s (one order costs 1e9 units; the bucket drains `rate` units per ns down to 0 and
 * holds at most rate x 1e9: a burst of one second's orders). Returns 1 and takes the cost, or 0
 * and records when to try again (wake_ns) and, for the bucket, one held order per episode. */
MM_HD int mm__pace(mm_state *st, const mm_event *ev, const mm_derived *d, int k)
{
    if (ev->ts < st->wait_ns[k]) {
        if (st->wait_ns[k] < st->wake_ns) st->wake_ns = st->wait_ns[k];
        return 0;
    }
    if (d->rate > 0) {
        const int64_t one = 1000000000, cap = (int64_t)d->rate * one;
        int64_t dt = ev->ts - st->tok_t; /* >= 0: events are in time order */
        int64_t used = dt > one ? 0 : st->tok - dt * d->rate;
        if (used < 0) used = 0;
        if (used + one > cap) {
            if (!st->hold[k]) st->held += 1;
            st->hold[k] = 1;
            /* used - (t - ts) x rate <= cap - one from t = ts + ceil((used - cap + one) / rate). */
            int64_t ready = ev->ts + (used - cap + one + d->rate - 1) / d->rate;
            if (ready < st->wake_ns) st->wake_ns = ready;
            return 0;
        }
        st->tok = used + one;
        st->tok_t = ev->ts;
    }
    st->hold[k] = 0;
    return 1;
}

/* Section 6: the microprice of a two-sided book, (b x as + a x bs) / (bs + as), ticks. */
MM_HD double mm__micro(const mm_event *ev)
{
    double den = (double)ev->bs + (double)ev->as;
    return ((double)ev->b * (double)ev->as + (double)ev->a * (double)ev->bs) / den;
}

/* Section 6: the quote targets for fair price `fair`, half spread hs and skew shift `shift`
 * (ticks): bid fair - hs - shift rounded down, ask fair + hs - shift rounded up (away from fair),
 * in [MM_PX_TARGET_MIN, MM_PX_TARGET_MAX]. The clamp comes first, in double, so the conversions
 * below only see values in range (a double beyond int64 converted to an integer is undefined
 * behaviour); clamping before or after rounding gives the same target, the bounds being integers.
 * The parameter domains keep hs, shift and so the targets finite (never NaN). Each target is a
 * non-decreasing function of fair (IEEE subtraction and addition round monotonically; clamp and
 * floor / ceil are monotone), which the skip test of section 8 relies on. */
MM_HD int32_t mm__target_bid(double tb)
{
    if (tb < MM_PX_TARGET_MIN) tb = MM_PX_TARGET_MIN;
    if (tb > MM_PX_TARGET_MAX) tb = MM_PX_TARGET_MAX;
    double fb = (double)(int64_t)tb;
    if (fb > tb) fb -= 1.0;
    return (int32_t)fb;
}

MM_HD int32_t mm__target_ask(double ta)
{
    if (ta < MM_PX_TARGET_MIN) ta = MM_PX_TARGET_MIN;
    if (ta > MM_PX_TARGET_MAX) ta = MM_PX_TARGET_MAX;
    double fa = (double)(int64_t)ta;
    if (fa < ta) fa += 1.0;
    return (int32_t)fa;
}

MM_HD void mm__targets(double fair, double hs, double shift, int32_t target[2])
{
    double tb = fair - hs - shift, ta = fair + hs - shift;
    MM_HD_ASSERT(tb == tb && ta == ta);
    target[0] = mm__target_bid(tb);
    target[1] = mm__target_ask(ta);
}

/* Section 6: the known position (3.2) and the quote targets after the event; 0 when the book is
 * not two-sided (orders are left as they are). */
MM_HD int mm__decide_targets(mm_state *st, const mm_event *ev, const mm_derived *d,
                             int32_t target[2])
{
    /* 3.2: the fill reports known by now move the known position. */
    int32_t c = 0;
    while (c < st->nrep && st->rep_t[c] <= ev->ts)
        st->kq += st->rep_q[c++];
    for (int32_t r = 0; c && r < MM_REPORTS; r++) { /* the rest to the front, 0 behind it */
        st->rep_t[r] = r + c < st->nrep ? st->rep_t[r + c] : 0;
        st->rep_q[r] = r + c < st->nrep ? st->rep_q[r + c] : 0;
    }
    st->nrep -= c;
    if (ev->bs == 0 || ev->as == 0) return 0; /* no two-sided book: leave orders as they are */
    double fair = d->fair_micro ? mm__micro(ev) : (double)ev->mid2 * 0.5;
    /* The signal (section 6): fair + (signal x signal_skew), only when signal_skew is not 0. */
    if (d->signal_skew != 0.0) fair = fair + ev->sig * d->signal_skew;
    double tau = d->time_varying ? ev->tau_end_s : 0.0;
    double hs = d->hs0 + d->hs1 * tau, sk = d->sk0 + d->sk1 * tau;
    mm__targets(fair, hs, sk * (double)st->kq, target);
    /* 6: cross_rule = join: a target at or through the opposite best goes to the best of its own
     * side (never better). */
    if (d->cross_join) {
        if (target[0] >= ev->a) target[0] = ev->b;
        if (target[1] <= ev->b) target[1] = ev->a;
    }
    return 1;
}

/* Section 6: side k's live order (st->s[k]) sends a cancel (send_cancel) and / or a new order of
 * qty lots at px (qty > 0), paced (6.1: an order held back sends nothing), with its entry latency,
 * drawn (3.3) at position (event index, slot): slot = k + 2 r for rung r (6.2; r = 0 without one).
 */
MM_HD void mm__send(mm_state *st, const mm_event *ev, const mm_derived *d, int k, uint32_t slot,
                    int32_t px, int send_cancel, int32_t qty, mm_trace_sink *tr)
{
    mm_side *o = &st->s[k];
    int send_order = qty > 0;
    if (send_order && !mm__pace(st, ev, d, k)) return; /* 6.1: held back, nothing sent */
    int64_t delay = d->feed_ns + ev->lat_e +
                    mm__draw_latency(st->key, d->lat_dist, d->lat_sigma, d->entry_ns, MM_RNG_ENTRY,
                                     (uint64_t)ev->i, slot, ev->samp_e, ev->nsamp_lat);
    o->land_ns = ev->ts + (delay < 1 ? 1 : delay);
    o->new_px = px;
    o->new_qty = send_order ? qty : 0;
    if (send_cancel) {
        st->cancels += 1;
        mm__trace(tr, st, ev, d, MM_TR_CANCEL, k, o->px, o->qty, 0);
    }
    if (send_order) {
        st->orders += 1;
        mm__trace(tr, st, ev, d, MM_TR_ORDER, k, px, qty, 0);
    }
}

/* Section 3.2: what the strategy will learn later about side k's order o is also a time to step
 * (wake_ns). */
MM_HD void mm__wake_side(mm_state *st, const mm_event *ev, const mm_side *o)
{
    if (o->resp_ns > ev->ts && o->resp_ns < st->wake_ns) st->wake_ns = o->resp_ns;
    if (o->done_ns > ev->ts && o->done_ns < st->wake_ns) st->wake_ns = o->done_ns;
}

/* Section 6: quoting decision after the event. */
MM_HD void mm__decide(mm_state *st, const mm_event *ev, const mm_derived *d, mm_trace_sink *tr)
{
    int32_t target[2];
    if (!mm__decide_targets(st, ev, d, target)) return;
    st->wake_ns = MM_NEVER;
    /* Room to the inventory limit as known: a new order never asks for more than that. */
    int64_t room[2] = {d->limit - st->kq, d->limit + st->kq};
    for (int k = 0; k < 2; k++) {
        mm_side *o = &st->s[k];
        /* One action per side until its response is known (3.2). */
        if (o->land_ns != MM_NEVER || o->resp_ns > ev->ts) continue;
        int send_cancel = 0, send_order = 0;
        int32_t size = room[k] < d->size ? (int32_t)room[k] : d->size;
        if (o->acc && o->done_ns > ev->ts) { /* a resting order the strategy knows is live */
            /* In int64: two int32 prices can be 2^32 - 3 apart (clamped targets). */
            int64_t dist = (int64_t)target[k] - o->px;
            if (dist < 0) dist = -dist;
            if (dist >= d->requote) {
                /* Never a cancel alone: a side known to have a live order has room (size >= 1).
                 * The order asked for at most the room its landing left (3.1), and once the
                 * strategy knows that landing it knows every earlier fill (the channel is first in,
                 * first out, 3.2), so its known position has room for the order's unfilled lots;
                 * the fill that would use the last of it is learnt with the order's end
                 * (done_ns). After a taker walk (3.1) the rest is at most the room its fills left;
                 * their reports follow the response, and until they are known the known room is
                 * larger still. */
                MM_HD_ASSERT(size > 0);
                send_cancel = 1;
                send_order = size > 0;
            }
        } else if (size > 0) {
            send_order = 1;
        }
        if (!send_cancel && !send_order) {
            st->hold[k] = 0;
            continue;
        }
        mm__send(st, ev, d, k, (uint32_t)k, target[k], send_cancel, send_order ? size : 0, tr);
    }
    /* 3.2: what the strategy will learn later is also a time to step (wake_ns). */
    if (st->chan_ns > ev->ts) {
        if (st->nrep > 0 && st->rep_t[0] < st->wake_ns) st->wake_ns = st->rep_t[0];
        for (int k = 0; k < 2; k++)
            mm__wake_side(st, ev, &st->s[k]);
    }
}

#include "mm_ladder.h"

/* One event for one combination: samples, landings, matching (bid then ask), decision. A ladder
 * (levels > 1, 6.2) steps its rungs instead (mm_ladder.h). */
MM_HD void mm_step_c(mm_state *st, const mm_event *ev, const mm_derived *d, mm_trace_sink *tr)
{
    if (d->levels > 1) {
        mm__step_ladder(st, ev, d, tr);
        st->msg_n = 0;
        return;
    }
    if (ev->n_samples) mm__sample(st, ev, d);
    if (st->s[0].land_ns <= ev->ts || st->s[1].land_ns <= ev->ts) mm__land(st, ev, d, tr);
    mm__match(st, ev, d, 0, tr);
    mm__match(st, ev, d, 1, tr);
    mm__decide(st, ev, d, tr);
    st->msg_n = 0; /* 3.3: the next event's response draws count from 0 */
    /* Invariants of the state after every event (debug builds). */
    MM_HD_ASSERT(st->q >= -(int64_t)d->limit && st->q <= d->limit);
    MM_HD_ASSERT(st->s[0].qty >= 0 && st->s[1].qty >= 0 && st->s[0].ahead >= 0 &&
                 st->s[1].ahead >= 0);
    MM_HD_ASSERT(st->s[0].qty <= d->limit && st->s[1].qty <= d->limit);
}

#endif
