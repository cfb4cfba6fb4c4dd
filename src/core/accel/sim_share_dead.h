/* The dead fields of the shared states (sim_share.h includes it): which shared fields no step reads
 * again before writing them, the states' images with those replaced, and a member's own dead fields
 * taken back after its leader's (docs/model.md section 8, "Dead fields"). */
#ifndef MM_SIM_SHARE_DEAD_H
#define MM_SIM_SHARE_DEAD_H

#include <stdint.h>

#include "mm_state.h"

/* ---- Dead fields. A shared field is dead from time T on when no step at a time >= T reads it
 * before writing it (docs/model.md section 8, "Dead fields"): per side, a time resp_ns, done_ns
 * or wait_ns[k] below T, and the kernels' own rest time (mm__guards.rest) below T (each is read
 * only in a comparison with the event's time, the rest time by no rule, and every write stores a
 * time at or after the writing event's); the order's px, ahead, deep (and book = l2 / l3's lsz,
 * jrow) when it has no lots and is not
 * resting as known (qty == 0 and not acc with done_ns >= T: the decision reads px only then,
 * matching only live orders); the action's new_px, new_qty with nothing in flight (land_ns never).
 * Two states may share with different dead fields: a member keeps its own until its leader writes
 * them (share_restore). */

/* The order of side o is dead from time t on. */
static inline int share_order_dead(const mm_side *o, int64_t t)
{
    return o->qty == 0 && (!o->acc || o->done_ns < t);
}

/* Side k of s with its dead fields from time t on set to values no live field takes (a time
 * INT64_MIN, ahead -1, new_qty -1), and its wait_ns: states whose shared fields agree but for dead
 * ones have equal canonical sides. */
static inline void share_canon(const mm_state *s, int k, int64_t t, mm_side *o, int64_t *wait)
{
    *o = s->s[k];
    *wait = s->wait_ns[k] < t ? INT64_MIN : s->wait_ns[k];
    if (share_order_dead(o, t)) {
        o->px = 0;
        o->ahead = -1;
        o->deep = 0;
        o->lsz = 0;
        o->jrow = 0;
    }
    if (o->resp_ns < t) o->resp_ns = INT64_MIN;
    if (o->done_ns < t) o->done_ns = INT64_MIN;
    if (o->land_ns == MM_NEVER) o->new_px = o->new_qty = -1;
}

/* The rest time of side k, dead from time t on (INT64_MIN below t), as the images compare it. */
static inline int64_t share_canon_rest(int64_t rest, int64_t t)
{
    return rest < t ? INT64_MIN : rest;
}

/* Member f's dead fields: f holds its leader's shared fields now (frest its leader's rest times),
 * own its state when it was parked at time t (shared fields as they were then, equal to its
 * leader's but for dead ones; orest its rest times then). A dead field of own that its leader has
 * not written since is f's again. The leader wrote side k's time field when it is at or after t
 * now (every write stores a time at or after its event's); it wrote the order's px, ahead, deep
 * when an order came to rest since (rest time at or after t: a dead order is written only by a
 * rest, and matching touches only the live order a rest makes); it wrote the action when it sent
 * one since, which puts land_ns off never until it lands, and a landing moves resp_ns (each landing
 * stores a resp_ns after the one before, and at or after t). */
static inline void share_restore(mm_state *f, int64_t frest[2], const mm_state *own,
                                 const int64_t orest[2], int64_t t)
{
    for (int k = 0; k < 2; k++) {
        mm_side *o = &f->s[k];
        const mm_side *w = &own->s[k];
        int landed = w->resp_ns >= t ? o->resp_ns != w->resp_ns : o->resp_ns >= t;
        if (share_order_dead(w, t) && frest[k] < t) {
            o->px = w->px;
            o->ahead = w->ahead;
            o->deep = w->deep;
            o->lsz = w->lsz;
            o->jrow = w->jrow;
        }
        if (orest[k] < t && frest[k] < t) frest[k] = orest[k];
        if (w->land_ns == MM_NEVER && o->land_ns == MM_NEVER && !landed) {
            o->new_px = w->new_px;
            o->new_qty = w->new_qty;
        }
        if (w->resp_ns < t && o->resp_ns < t) o->resp_ns = w->resp_ns;
        if (w->done_ns < t && o->done_ns < t) o->done_ns = w->done_ns;
        if (own->wait_ns[k] < t && f->wait_ns[k] < t) f->wait_ns[k] = own->wait_ns[k];
    }
}

#endif
