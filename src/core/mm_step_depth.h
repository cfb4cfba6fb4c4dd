/* Section 4.5 of docs/model.md: the queue of a resting order from the tape's depth stream (book =
 * l2, l3), over the accounts of mm_fill.h (mm__fill, mm__cancel_cut); the step (mm_step.h) calls
 * it from its matching (4.4). And section 3.1's taker walk: an order that crosses on landing with
 * post_only = 0 takes the levels the depth stream shows (mm__land_walk, called from mm__land). */
#ifndef MM_STEP_DEPTH_H
#define MM_STEP_DEPTH_H

#include <stdint.h>

#include "mm_depthq.h"
#include "mm_fill.h"
#include "mm_hd.h"
#include "mm_state.h"

/* Section 4.5, book = l2: side k's live order at a level behind the best after event ev (a deep
 * order: its queue unknown). The level's depth rows of this event: a deep order's level shown
 * again puts it behind all of it (as a level becoming best does, 4.4); a hidden level makes the
 * order deep; cancels are split ahead / behind by the queue rule as at the best level (4.4), the
 * lots traded at the level (TRADE rows) counted out of the queue behind, the queue ahead at most
 * the level's size. */
MM_HD void mm__queue_l2(mm_state *st, const mm_event *ev, const mm_derived *d, int k)
{
    mm_side *o = &st->s[k];
    mm__level_move mv;
    mm__level_rows(ev, k, o->px, o->deep ? -1 : o->lsz, &mv);
    if (o->deep) {
        if (mv.seen && mv.sz >= 0) {
            o->ahead = mv.sz;
            o->deep = 0;
            o->lsz = mv.sz;
        }
        return;
    }
    if (mv.sz < 0) { /* the level left the shown window */
        o->ahead = 0;
        o->deep = 1;
        o->lsz = -1;
        return;
    }
    if (mv.cancelled > 0 && o->ahead > 0 && d->queue_rule != MM_QUEUE_RISK_AVERSE) {
        int64_t behind = (int64_t)o->lsz - mv.traded - o->ahead;
        if (behind < 0) behind = 0;
        o->ahead -= (int32_t)mm__cancel_cut(st, ev, d, k, mv.cancelled, o->ahead, behind);
    }
    o->lsz = mv.sz;
    if (o->ahead > o->lsz) o->ahead = o->lsz;
}

/* Section 4.5, book = l3 (order ids): side k's live order after event ev, at the best or behind
 * it, from the event's depth rows at its level in order: a removal (cancel or trade) of an order
 * that joined before ours (join < jrow; -1: before the file or beyond the window) takes its lots
 * from the queue ahead; a trade of an order that joined after ours executed past us, so the queue
 * ahead goes first and then our order fills (4.2 by the order ids; not with trade_through_only);
 * a cancel behind us and an add change nothing ahead; a hidden level makes the order deep, shown
 * again it is behind all of it. The queue ahead is at most the level's size. */
MM_HD void mm__queue_l3(mm_state *st, const mm_event *ev, const mm_derived *d, int k,
                        mm_trace_sink *tr)
{
    mm_side *o = &st->s[k];
    const mm__depth_view *dv = ev->dv;
    int8_t sd = k == 0 ? 1 : -1;
    int32_t cur = o->deep ? -1 : o->lsz;
    for (int64_t j = ev->d0; j < ev->d1; j++) {
        if (dv->side[j] != sd || dv->px[j] != o->px) continue;
        int32_t sz = dv->sz[j];
        if (dv->cause[j] == MM_DEPTH_HIDE) {
            cur = -1;
            o->ahead = 0;
            o->deep = 1;
            continue;
        }
        if (o->deep) { /* shown again: behind all of it */
            o->ahead = sz;
            o->deep = 0;
            cur = sz;
            continue;
        }
        int32_t v = cur > sz ? cur - sz : 0;
        cur = sz;
        if (v == 0 || (dv->cause[j] != MM_DEPTH_CANCEL && dv->cause[j] != MM_DEPTH_TRADE)) continue;
        if (dv->join[j] < o->jrow) { /* it was ahead of us */
            o->ahead -= o->ahead < v ? o->ahead : v;
            continue;
        }
        if (dv->cause[j] == MM_DEPTH_TRADE && !d->tto && o->qty > 0) {
            int32_t take = o->ahead < v ? o->ahead : v;
            o->ahead -= take;
            int32_t f = o->qty < v - take ? o->qty : v - take;
            if (f > 0) mm__fill(st, ev, d, k, o->px, f, 0, tr);
        }
    }
    o->lsz = cur;
    if (!o->deep && o->ahead > cur) o->ahead = cur;
}

/* Section 3.1, book = l2 / l3: side k's crossing order, rem lots left, takes the opposite side's
 * levels the depth stream shows before event ev at prices in [lo, hi] (lo <= hi, both negative or
 * both >= 0, so that their keys are one run of the level index: a key orders a price as uint32),
 * in price order (a buy ascending, a sell descending), each min(rem, size) at the level's price as
 * a taker fill (section 5). Returns the lots left. */
MM_HD int32_t mm__walk_run(mm_state *st, const mm_event *ev, const mm_derived *d, int k, int32_t lo,
                           int32_t hi, int32_t rem, mm_trace_sink *tr)
{
    const mm__depth_view *dv = ev->dv;
    int ko = 1 - k;
    int64_t a = mm__level_lower(dv, mm__level_key(ko, lo));
    int64_t b = mm__level_lower(dv, mm__level_key(ko, hi) + 1);
    for (int64_t n = 0; n < b - a && rem > 0; n++) {
        int64_t j = k == 0 ? a + n : b - 1 - n;
        int32_t sz = mm__level_size_at(dv, j, ev->i);
        if (sz <= 0) continue; /* not shown (beyond the window) or empty */
        int32_t f = rem < sz ? rem : sz;
        mm__fill(st, ev, d, k, (int32_t)(uint32_t)dv->lv_key[j], f, 1, tr);
        rem -= f;
    }
    return rem;
}

/* Section 3.1, book = l2 / l3, post_only = 0: side k's order of qty lots at limit px crosses the
 * book before event ev. It walks the opposite side from its best: first the best level of the
 * level-1 columns (pa x pas for a buy), then the levels the depth stream shows strictly beyond
 * it up to px inclusive, in price order, taking at each min(lots left, its size) at that level's
 * price, a taker fill each (section 5: one fill count, one report and one trace record a level).
 * Returns the lots left (0 or more): the caller rests them when the book after the event no longer
 * crosses px, else cancels them (docs/model.md 3.1 says why). */
MM_HD int32_t mm__land_walk(mm_state *st, const mm_event *ev, const mm_derived *d, int k,
                            int32_t px, int32_t qty, mm_trace_sink *tr)
{
    int32_t best = k == 0 ? ev->pa : ev->pb, bsz = k == 0 ? ev->pas : ev->pbs;
    MM_HD_ASSERT(bsz > 0 && qty > 0 && (k == 0 ? px >= best : px <= best));
    int32_t f = qty < bsz ? qty : bsz;
    mm__fill(st, ev, d, k, best, f, 1, tr);
    int32_t rem = qty - f;
    if (rem == 0 || best == px) return rem;
    /* Beyond the best: a buy (best, px], a sell [px, best), split at 0 into runs of the index. */
    int32_t lo = k == 0 ? best + 1 : px, hi = k == 0 ? px : best - 1;
    int32_t nlo = lo, nhi = hi < 0 ? hi : -1, plo = lo > 0 ? lo : 0, phi = hi;
    if (k == 0) {
        if (lo < 0) rem = mm__walk_run(st, ev, d, k, nlo, nhi, rem, tr);
        if (hi >= 0 && rem > 0) rem = mm__walk_run(st, ev, d, k, plo, phi, rem, tr);
    } else {
        if (hi >= 0) rem = mm__walk_run(st, ev, d, k, plo, phi, rem, tr);
        if (lo < 0 && rem > 0) rem = mm__walk_run(st, ev, d, k, nlo, nhi, rem, tr);
    }
    return rem;
}

#endif
