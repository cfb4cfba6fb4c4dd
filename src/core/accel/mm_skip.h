/* The batched kernels' skip test (docs/model.md, section 8), written once for the host compiler and
 * nvcc (MM_HD): the guards a state gives, the kinds of combinations, the bounds an event sets and
 * the test itself. Machinery, not model: the reference step (mm_step.h) never reads it; the batched
 * CPU kernels and the CUDA engine's per-thread work (mm_thread.h) do. */
#ifndef MM_SKIP_H
#define MM_SKIP_H

#include <stdint.h>

#include "mm_event.h"
#include "mm_step.h"

/* ---- The skip test (docs/model.md, section 8) ----
 *
 * A combination may skip event ev (its state stays exactly as mm_step_c would leave it, except for
 * the PnL samples of 2, which a skipping combination still takes: mm__sample) when all of these
 * hold: its kind does not have to see the event (mm__gate.must), nothing it sent is due to land
 * (land > ts), and each of its live orders is quiet (mm__can_skip): a buy at p below both best
 * bids and every price that could fill it (p < tb), or strictly inside the spread (tbi < p < tbx:
 * above both best bids, below the ask and any seller-initiated trade); a sell mirrored (p > ta, or
 * tax < p < tai). The guards (lo, hi, land) are a pure function of the state, the kind of the
 * constants. */

/* What a combination's state says about skipping (its guards): lo = price of the live buy, or
 * INT64_MIN when there is none; hi = price of the live sell, or INT64_MAX when there is none; land
 * = earliest of the actions in flight's land_ns and wake_ns (a held-back or backed-off order that
 * may go then) (MM_NEVER: none). Written through pointers so that a
 * kernel can keep them in arrays or registers (a returned struct cost the CPU kernel 5% more
 * instructions). */
MM_HD void mm__guard_of(const mm_state *st, int64_t *lo, int64_t *hi, int64_t *land)
{
    *lo = st->s[0].qty > 0 ? st->s[0].px : INT64_MIN;
    *hi = st->s[1].qty > 0 ? st->s[1].px : INT64_MAX;
    int64_t a = st->s[0].land_ns < st->s[1].land_ns ? st->s[0].land_ns : st->s[1].land_ns;
    *land = a < st->wake_ns ? a : st->wake_ns;
}

/* Kind of a combination: 0 needs every event (time-varying strategy, fair = microprice), 1 fair =
 * mid, 2 fair = microprice with cross_rule = join (its targets also follow the best prices), 3 fair
 * = microprice otherwise (MM_KIND_BAND: it skips while the microprice stays in its band,
 * mm__band_of), 4 time-varying with fair = mid (MM_KIND_TIME: as kind 1, and until its targets may
 * move with the time left, mm__tv_until). */
#define MM_KINDS 5
#define MM_KIND_BAND 3
#define MM_KIND_TIME 4
MM_HD uint8_t mm__guard_kind(const mm_derived *d)
{
    if (!(d->caps & MM_CAP_SKIP)) return 0; /* the key table: steps every event (mm_step_c) */
    if (d->time_varying) return (uint8_t)(d->fair_micro ? 0 : MM_KIND_TIME);
    return (uint8_t)(!d->fair_micro ? 1 : d->cross_join ? 2 : MM_KIND_BAND);
}

/* Kind 4 (section 8): whether the targets stay t for every time left tau in [tl, tn] (seconds), the
 * mid (fair) and the known position (kqd lots) as they are. Every rounded operation of the decision
 * is monotone in each of its arguments, so over [tl, tn] hs = hs0 + hs1 tau and sk = sk0 + sk1 tau
 * lie between their values at the ends, the shift sk x kq between those of the extreme sk, and each
 * side's unrounded target between the values of the extreme hs and shift: equal targets at the
 * bounds mean equal targets throughout. */
MM_HD int mm__tv_same(const mm_derived *d, double fair, double kqd, double tl, double tn,
                      const int32_t t[2])
{
    double h1 = d->hs0 + d->hs1 * tl, h2 = d->hs0 + d->hs1 * tn;
    double s1 = d->sk0 + d->sk1 * tl, s2 = d->sk0 + d->sk1 * tn;
    double hmin = h1 < h2 ? h1 : h2, hmax = h1 < h2 ? h2 : h1;
    double smin = s1 < s2 ? s1 : s2, smax = s1 < s2 ? s2 : s1;
    double z1 = smin * kqd, z2 = smax * kqd;
    double zmin = z1 < z2 ? z1 : z2, zmax = z1 < z2 ? z2 : z1;
    return mm__target_bid(fair - hmax - zmax) == t[0] &&
           mm__target_bid(fair - hmin - zmin) == t[0] &&
           mm__target_ask(fair + hmin - zmax) == t[1] && mm__target_ask(fair + hmax - zmin) == t[1];
}

/* Kind 4 (docs/model.md, section 8): after a step at event ev, the first time at which the
 * decision's targets may differ from those it found at ev with the mid and the known position as
 * they are (the time left tau = (t_end - ts) x 1e-9 s shrinking): ev->ts + 1 when that cannot be
 * shown (or no decision was taken: a side of the book empty), t_end + 1 when they hold to the end
 * of the tape. The interval is placed in real arithmetic (where the first target would cross a
 * tick, less 1e-6 of the way), then proved by mm__tv_same, halved once if that fails. */
MM_HD int64_t mm__tv_until(const mm_state *st, const mm_derived *d, const mm_event *ev,
                           int64_t t_end)
{
    int64_t now = ev->ts + 1;
    if (ev->bs == 0 || ev->as == 0 || ev->ts >= t_end) return now;
    double fair = (double)ev->mid2 * 0.5, tn = ev->tau_end_s, kqd = (double)st->kq;
    double hs = d->hs0 + d->hs1 * tn, sk = d->sk0 + d->sk1 * tn, shift = sk * kqd;
    int32_t t[2];
    mm__targets(fair, hs, shift, t);
    double xb = fair - hs - shift, xa = fair + hs - shift;
    /* d x / d(tn - tau) for each side's unrounded target. */
    double cb = d->hs1 + d->sk1 * kqd, ca = d->sk1 * kqd - d->hs1, del = tn;
    double r;
    if (cb > 0 && (r = ((double)t[0] + 1.0 - xb) / cb) < del) del = r;
    if (cb < 0 && (r = (xb - (double)t[0]) / -cb) < del) del = r;
    if (ca > 0 && (r = ((double)t[1] - xa) / ca) < del) del = r;
    if (ca < 0 && (r = (xa - ((double)t[1] - 1.0)) / -ca) < del) del = r;
    if (!(del > 0)) return now; /* also NaN */
    if (del < tn) del *= 1.0 - 1e-6;
    for (int tries = 0; tries < 2; tries++, del *= 0.5) {
        double tl = tn - del;
        if (tl < 0) tl = 0;
        if (!mm__tv_same(d, fair, kqd, tl, tn, t)) continue;
        /* The latest ts whose time left is still >= tl: the least k = t_end - ts >= 0 with
         * (double)k x 1e-9 >= tl (non-decreasing in k), found from its estimate. */
        int64_t k = (int64_t)(tl * 1e9);
        while (k > 0 && (double)(k - 1) * 1e-9 >= tl)
            k--;
        while ((double)k * 1e-9 < tl)
            k++;
        return t_end - k + 1 > now ? t_end - k + 1 : now;
    }
    return now;
}

/* An empty band (no microprice is in it). */
#define MM_BAND_EMPTY_LO 1e300
#define MM_BAND_EMPTY_HI (-1e300)

/* Kind 3's band (docs/model.md, section 8): after a step at event ev, the microprices f in [*flo,
 * *fhi] for which the decision of section 6 finds the targets it found at ev (mm__targets of the
 * same half spread and skew shift: the strategy is not time-varying and the known position kq
 * changes only at a step). The ends are first placed in real arithmetic just inside where each
 * target would move, then checked through mm__targets itself: the targets being non-decreasing in
 * f, equal targets at both ends mean equal targets everywhere between; an end that fails the check
 * falls back to ev's microprice (so the band is exact, never wider than it may be). Empty when the
 * step took no decision (a side of the book empty). */
MM_HD void mm__band_of(const mm_state *st, const mm_derived *d, const mm_event *ev, double *flo,
                       double *fhi)
{
    *flo = MM_BAND_EMPTY_LO;
    *fhi = MM_BAND_EMPTY_HI;
    if (ev->bs == 0 || ev->as == 0) return;
    double f = mm__micro(ev), tau = 0.0; /* as mm__decide computes them */
    double hs = d->hs0 + d->hs1 * tau, sk = d->sk0 + d->sk1 * tau;
    double shift = sk * (double)st->kq;
    int32_t t[2], u[2];
    mm__targets(f, hs, shift, t);
    double lo_b = (double)t[0] + hs + shift, hi_b = (double)t[0] + 1.0 + hs + shift;
    double lo_a = (double)t[1] - 1.0 - hs + shift, hi_a = (double)t[1] - hs + shift;
    double lo = lo_b > lo_a ? lo_b : lo_a, hi = hi_b < hi_a ? hi_b : hi_a;
    double mag = (lo < 0 ? -lo : lo) + (hs < 0 ? -hs : hs) + (shift < 0 ? -shift : shift) + 1.0;
    lo += 1e-9 * mag;
    hi -= 1e-9 * mag;
    if (!(lo <= f)) lo = f;
    if (!(hi >= f)) hi = f;
    mm__targets(lo, hs, shift, u);
    if (u[0] != t[0] || u[1] != t[1]) lo = f;
    mm__targets(hi, hs, shift, u);
    if (u[0] != t[0] || u[1] != t[1]) hi = f;
    *flo = lo;
    *fhi = hi;
}

/* What an event says about skipping: must[kind] = 1 when every combination of that kind runs the
 * step; a live buy at p is quiet when p < tb (behind both best bids: deep, and nothing reaches it)
 * or tbi < p < tbx (strictly better than both best bids, so its queue is empty and stays so, and
 * below the ask and any seller-initiated trade, so nothing fills it); a live sell at p when p > ta
 * or tax < p < tai. A side absent before or after the event makes every live order on it non-quiet
 * (INT32_MIN / INT32_MAX are below / above every price, and above / below the "no order" guard
 * values; an empty band has tbi = INT32_MAX or tai = INT32_MIN). */
typedef struct mm__gate {
    int64_t tb, ta, ts;
    int64_t tbi, tbx, tai, tax;
    double fair; /* the microprice after the event (0 when a side is empty: must[3] is set then) */
    uint8_t must[MM_KINDS];
} mm__gate;

MM_HD void mm__gate_of(const mm_event *ev, mm__gate *gt)
{
    int px_changed = ev->b != ev->pb || ev->a != ev->pa || (ev->bs == 0) != (ev->pbs == 0) ||
                     (ev->as == 0) != (ev->pas == 0);
    int book_changed = px_changed || ev->bs != ev->pbs || ev->as != ev->pas;
    gt->must[0] = 1;
    gt->must[1] = (uint8_t)px_changed;
    gt->must[2] = (uint8_t)book_changed;
    int two = ev->bs > 0 && ev->as > 0;
    gt->must[3] = (uint8_t)!two;
    gt->must[4] = (uint8_t)px_changed;
    gt->fair = two ? mm__micro(ev) : 0.0;
    int two_b = ev->pbs > 0 && ev->bs > 0, two_a = ev->pas > 0 && ev->as > 0;
    int sell_trade = ev->tsz > 0 && ev->tside < 0;
    int buy_trade = ev->tsz > 0 && ev->tside > 0;
    int64_t b = two_b ? (ev->pb < ev->b ? ev->pb : ev->b) : INT32_MIN;
    if (sell_trade && ev->tpx < b) b = ev->tpx;
    if (ev->as > 0 && ev->a < b) b = ev->a;
    int64_t a = two_a ? (ev->pa > ev->a ? ev->pa : ev->a) : INT32_MAX;
    if (buy_trade && ev->tpx > a) a = ev->tpx;
    if (ev->bs > 0 && ev->b > a) a = ev->b;
    gt->tb = b;
    gt->ta = a;
    /* Inside the spread. A buy above both best bids was left with an empty queue (ahead 0, not
     * deep) by the step that last saw it (4.4: its level is "gone"), and this event leaves it so;
     * it fills only when the ask or a seller-initiated trade reaches its price (4.1-4.3). */
    gt->tbi = two_b ? (ev->pb > ev->b ? ev->pb : ev->b) : INT32_MAX;
    int64_t x = ev->as > 0 ? ev->a : INT32_MAX;
    if (sell_trade && ev->tpx < x) x = ev->tpx;
    gt->tbx = x;
    gt->tai = two_a ? (ev->pa < ev->a ? ev->pa : ev->a) : INT32_MIN;
    x = ev->bs > 0 ? ev->b : INT32_MIN;
    if (buy_trade && ev->tpx > x) x = ev->tpx;
    gt->tax = x;
    gt->ts = ev->ts;
}

/* 1 when a live buy at lo (INT32_MIN or below: none) is quiet for the gate's bounds; the same for a
 * live sell at hi (INT32_MAX or above: none). Scalars, so that the kernels keep the event's values
 * in registers. */
MM_HD int mm__buy_quiet(int64_t lo, int64_t tb, int64_t tbi, int64_t tbx)
{
    return (lo < tb) | ((lo > tbi) & (lo < tbx));
}

MM_HD int mm__sell_quiet(int64_t hi, int64_t ta, int64_t tai, int64_t tax)
{
    return (hi > ta) | ((hi < tai) & (hi > tax));
}

/* Non-zero when a combination of kind `kind` whose guards are (lo, hi, land; for kind 4 land also
 * holds mm__tv_until) and, for kind 3, the band [flo, fhi] may skip the event of gt (taking its
 * samples only: mm__sample). */
MM_HD int mm__can_skip(uint8_t kind, int64_t lo, int64_t hi, int64_t land, double flo, double fhi,
                       const mm__gate *gt)
{
    return !gt->must[kind] && land > gt->ts && mm__buy_quiet(lo, gt->tb, gt->tbi, gt->tbx) &&
           mm__sell_quiet(hi, gt->ta, gt->tai, gt->tax) &&
           (kind != MM_KIND_BAND || (gt->fair >= flo && gt->fair <= fhi));
}

/* Section 8 with book = l2, l3 (docs/model.md 4.5): whether event ev has a depth row at the price
 * of one of st's live orders on its side (the order's queue may move, a fill by the order ids may
 * come): then the combination steps, whatever the skip test says. On any other event the depth
 * queues leave the state as it is (no row at the order's level: mm__queue_l2 and mm__queue_l3
 * change nothing), so the skip test's reasoning holds as for l1. */
MM_HD int mm__depth_touch(const mm_state *st, const mm_event *ev)
{
    const mm__depth_view *dv = ev->dv;
    for (int64_t j = ev->d0; j < ev->d1; j++) {
        int k = dv->side[j] > 0 ? 0 : 1;
        if (st->s[k].qty > 0 && dv->px[j] == st->s[k].px) return 1;
    }
    return 0;
}

#endif
