/* Section 6.2 of docs/model.md: ladders, levels > 1 quotes per side. Included by mm_step.h only
 * (after the one-order step's parts, before mm_step_c), for the host compiler and nvcc (MM_HD).
 *
 * Rung 0 of side k is the state's s[k]; rungs 1..levels-1 live in the engine's storage beside the
 * state (mm_derived.rungs, mm__rungs_attach). Each rung is one order with its own queue, fills,
 * action in flight and latency: the one-order step's parts (mm__land, mm__match_vol, mm__send) run
 * on a rung by swapping it into s[k] for the call and back after it, so every rule of sections 3
 * to 6 reads it exactly as it reads today's order. The state's other fields (position, cash,
 * counters, the response channel, pacing) are the combination's, shared by its rungs.
 *
 * Units: prices in ticks (int32), sizes in lots (int32), times in ns (int64). */
#ifndef MM_LADDER_H
#define MM_LADDER_H

#include <stdint.h>

#include "mm_hd.h"
#include "mm_state.h"

/* Rung r >= 1 of side k in the engine's storage. */
MM_HD mm_side *mm__rung(const mm_derived *d, int k, int r)
{
    MM_HD_ASSERT(r >= 1 && r < d->levels && d->rungs);
    return &d->rungs[k * (d->levels - 1) + r - 1];
}

/* Side k's rung r, wherever it is now (no rung swapped in). */
MM_HD mm_side *mm__rung_at(mm_state *st, const mm_derived *d, int k, int r)
{
    return r == 0 ? &st->s[k] : mm__rung(d, k, r);
}

/* Rung r of side k in and out of s[k] (the same call both ways; rung 0 is there already). */
MM_HD void mm__rung_swap(mm_state *st, const mm_derived *d, int k, int r)
{
    if (r == 0) return;
    mm_side *x = mm__rung(d, k, r), t = st->s[k];
    st->s[k] = *x;
    *x = t;
}

/* 6.2: rung r's price, target t0 (rung 0's) - r x lstep ticks for the bid, + for the ask, in
 * [MM_PX_TARGET_MIN, MM_PX_TARGET_MAX] (int64: r x lstep <= 7e6). */
MM_HD int32_t mm__rung_px(const mm_derived *d, int k, int32_t t0, int r)
{
    int64_t p = (int64_t)t0 + (k == 0 ? -1 : 1) * (int64_t)r * d->lstep;
    if (p < (int64_t)MM_PX_TARGET_MIN) p = (int64_t)MM_PX_TARGET_MIN;
    if (p > (int64_t)MM_PX_TARGET_MAX) p = (int64_t)MM_PX_TARGET_MAX;
    return (int32_t)p;
}

/* 6.2: rung r's size: x = size, multiplied r times by lsize (double, in that order), rounded half
 * to even to whole lots, at least 1 and at most the inventory limit (x at or above it: the limit).
 * Rung 0's is size. */
MM_HD int32_t mm__rung_size(const mm_derived *d, int r)
{
    double x = (double)d->size;
    for (int j = 0; j < r; j++)
        x *= d->lsize;
    if (x >= (double)d->limit) return d->limit;
    int64_t n = (int64_t)x; /* floor: x > 0 */
    double h = x - (double)n;
    if (h > 0.5 || (h == 0.5 && (n & 1))) n += 1;
    return n < 1 ? 1 : (int32_t)n;
}

/* The lots side k's rung o commits: its new order when an action is in flight, else its live
 * order's remaining lots. */
MM_HD int64_t mm__rung_commit(const mm_side *o)
{
    return o->land_ns != MM_NEVER ? o->new_qty : o->qty;
}

/* 6.2, landing: side k's rung r, when its action lands at this event, lands by section 3.1 with the
 * room to the inventory limit less the lots of the side's other live orders (the limit of the
 * landing is inv_limit - others, at least -inv_limit: no room whatever the position). */
MM_HD void mm__ladder_land(mm_state *st, const mm_event *ev, const mm_derived *d, int k, int r,
                           mm_trace_sink *tr)
{
    if (mm__rung_at(st, d, k, r)->land_ns > ev->ts) return;
    int64_t others = 0;
    for (int j = 0; j < d->levels; j++)
        if (j != r) others += mm__rung_at(st, d, k, j)->qty;
    int64_t lim = (int64_t)d->limit - others;
    mm_derived dr = *d;
    dr.limit = (int32_t)(lim < -(int64_t)d->limit ? -(int64_t)d->limit : lim);
    mm__rung_swap(st, d, k, r);
    int64_t other_land = st->s[1 - k].land_ns; /* mm__land lands side k alone */
    st->s[1 - k].land_ns = MM_NEVER;
    mm__land(st, ev, &dr, tr);
    st->s[1 - k].land_ns = other_land;
    mm__rung_swap(st, d, k, r);
}

/* 6.2, matching: side k's rungs in price order (the bid's highest first, the ask's lowest; equal
 * prices by rung), each by section 4 with the trade's lots and the opposite best's shown lots that
 * the rungs before it left. */
MM_HD void mm__ladder_match(mm_state *st, const mm_event *ev, const mm_derived *d, int k,
                            mm_trace_sink *tr)
{
    int ord[8], n = d->levels;
    int32_t px[8];
    int live = 0; /* the rungs with a live order, sorted by price */
    for (int r = 0; r < n; r++) {
        const mm_side *o = mm__rung_at(st, d, k, r);
        if (o->qty <= 0) continue;
        int32_t p = o->px;
        int j = live++;
        for (; j > 0 && (k == 0 ? px[j - 1] < p : px[j - 1] > p); j--) {
            px[j] = px[j - 1];
            ord[j] = ord[j - 1];
        }
        px[j] = p;
        ord[j] = r;
    }
    int32_t vol = ev->tsz, shown = k == 0 ? ev->as : ev->bs;
    for (int j = 0; j < live; j++) {
        mm__rung_swap(st, d, k, ord[j]);
        mm__match_vol(st, ev, d, k, &vol, &shown, tr);
        mm__rung_swap(st, d, k, ord[j]);
    }
}

/* 6.2, decision: the targets of section 6 are rung 0's; side k's rungs in order 0, 1, ... share
 * the room to the inventory limit as known (inv_limit - kq for the bid, + kq for the ask): rung r
 * asks for min(its size, the room the rungs before it left), a rung with an action in flight or an
 * unknown response sends nothing, a known live order requotes when its price is requote ticks or
 * more from its target (a cancel alone when no room is left), a side without a known live order
 * sends one when it has room; then the rung's committed lots (mm__rung_commit) come off the room.
 */
MM_HD void mm__ladder_decide(mm_state *st, const mm_event *ev, const mm_derived *d,
                             mm_trace_sink *tr)
{
    int32_t target[2];
    if (!mm__decide_targets(st, ev, d, target)) return;
    st->wake_ns = MM_NEVER;
    for (int k = 0; k < 2; k++) {
        int64_t left = k == 0 ? (int64_t)d->limit - st->kq : (int64_t)d->limit + st->kq;
        for (int r = 0; r < d->levels; r++) {
            const mm_side *o = mm__rung_at(st, d, k, r);
            int send = 0, cancel = 0;
            int32_t px = mm__rung_px(d, k, target[k], r), size = mm__rung_size(d, r);
            int32_t want = left <= 0 ? 0 : left < size ? (int32_t)left : size;
            if (o->land_ns != MM_NEVER || o->resp_ns > ev->ts) {
                /* busy (3.2): nothing */
            } else if (o->acc && o->done_ns > ev->ts) {
                int64_t dist = (int64_t)px - o->px;
                if (dist < 0) dist = -dist;
                send = cancel = dist >= d->requote;
            } else {
                send = want > 0;
            }
            if (send) { /* mm__send acts on s[k]: the rung goes there for it */
                mm__rung_swap(st, d, k, r);
                mm__send(st, ev, d, k, (uint32_t)(k + 2 * r), px, cancel, want, tr);
                mm__rung_swap(st, d, k, r);
            }
            left -= mm__rung_commit(mm__rung_at(st, d, k, r));
        }
    }
    if (st->chan_ns > ev->ts) {
        if (st->nrep > 0 && st->rep_t[0] < st->wake_ns) st->wake_ns = st->rep_t[0];
        for (int k = 0; k < 2; k++)
            for (int r = 0; r < d->levels; r++)
                mm__wake_side(st, ev, mm__rung_at(st, d, k, r));
    }
}

/* 6.2: one event for a ladder: samples, landings (the bid's rungs 0..levels-1, then the ask's),
 * matching (the bid's rungs in price order, then the ask's), the decision. */
MM_HD void mm__step_ladder(mm_state *st, const mm_event *ev, const mm_derived *d, mm_trace_sink *tr)
{
    MM_HD_ASSERT(d->levels >= 2 && d->levels <= 8);
    if (ev->n_samples) mm__sample(st, ev, d);
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < d->levels; r++)
            mm__ladder_land(st, ev, d, k, r, tr);
    mm__ladder_match(st, ev, d, 0, tr);
    mm__ladder_match(st, ev, d, 1, tr);
    mm__ladder_decide(st, ev, d, tr);
    /* Invariants after every event (debug builds): the position within the limit, every rung's
     * order and queue non-negative. */
    MM_HD_ASSERT(st->q >= -(int64_t)d->limit && st->q <= d->limit);
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < d->levels; r++)
            MM_HD_ASSERT(mm__rung_at(st, d, k, r)->qty >= 0 &&
                         mm__rung_at(st, d, k, r)->ahead >= 0);
}

#endif
