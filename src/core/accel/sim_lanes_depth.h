/* The lanes kernel (sim_lanes.h): the queues of section 4.5 of docs/model.md (book = l2, l3) over
 * lanes, the operations of mm__level_rows, mm__queue_l2 and mm__queue_l3 (mm_step_depth.h, the
 * reference) with each row's test a lane mask. Included by sim_lanes.h after lanes_cst. */

/* Section 8 with book = l2, l3 (mm__depth_touch over lanes): the lanes of m whose live order on
 * side k (price px, lots qty) has a depth row of event ev at its price. */
LANES_INLINE mm__vi lanes_depth_touch(const mm_event *ev, const mm__vi *m, const mm__vi px[2],
                                      const mm__vi qty[2])
{
    const mm__depth_view *dv = ev->dv;
    mm__vi t = mm__vi_b(0), on[2] = {*m & (qty[0] > 0), *m & (qty[1] > 0)};
    for (int64_t j = ev->d0; j < ev->d1; j++) {
        int k = dv->side[j] > 0 ? 0 : 1;
        t |= on[k] & (px[k] == (int64_t)dv->px[j]);
    }
    return t;
}

/* Section 4.4's last branch for side k, book = l2 and l3, over the lanes of m2 (l2: a live order
 * behind the best whose level is not gone) and m3 (l3: a live order whose level is not gone), from
 * the event's depth rows at the order's price p: *ahead, *deep and *lsz as mm__queue_l2 and
 * mm__queue_l3 leave them (qty: the order's lots, jrow its join row). A lane that would take a
 * path the lanes do not compute (the log or power rule's cut of l2, a fill by the order ids of l3)
 * is added to *rare (its results are not kept). Rows of the other side or another price change
 * nothing, as in the reference. */
static __attribute__((noinline)) MM_ISA_ATTR void
lanes_depth_rows(const lanes_cst *c, const mm_event *ev, int k, const mm__vi *m2p,
                 const mm__vi *m3p, const mm__vi *pp, const mm__vi *qtyp, const mm__vi *jrowp,
                 mm__vi *ahead, mm__vi *deep, mm__vi *lsz, mm__vi *rare)
{
    const mm__depth_view *dv = ev->dv;
    const mm__vi m2 = *m2p, m3 = *m3p, p = *pp, m23 = m2 | m3;
    const mm__vi zero = mm__vi_b(0), neg = mm__vi_b(-1);
    const int8_t sd = k == 0 ? 1 : -1;
    mm__vi a = *ahead, dp = *deep, cur = mm__vi_sel(*deep != 0, neg, *lsz);
    mm__vi seen = zero, canc = zero;
    for (int64_t j = ev->d0; j < ev->d1; j++) {
        if (dv->side[j] != sd) continue;
        mm__vi m = m23 & (p == (int64_t)dv->px[j]);
        if (!MM_LANES_ANY(m)) continue;
        const int64_t sz = dv->sz[j];
        const int cause = dv->cause[j];
        seen |= m;
        if (cause == MM_DEPTH_HIDE) { /* l2: unknown size; l3: the order becomes deep */
            cur = mm__vi_sel(m, neg, cur);
            mm__vi h = m & m3;
            a = mm__vi_sel(h, zero, a);
            dp = mm__vi_sel(h, mm__vi_b(1), dp);
            continue;
        }
        /* l2 (mm__level_rows): a decrease by a cancel; the size after the row. */
        mm__vi x2 = m & m2;
        if (cause == MM_DEPTH_CANCEL) canc |= x2 & (cur > sz);
        /* l3 (mm__queue_l3): a deep order shown again is behind all of it; else the decrease v. */
        mm__vi x3 = m & m3, md = x3 & (dp != 0), mn = x3 & ~md;
        a = mm__vi_sel(md, mm__vi_b(sz), a);
        dp = mm__vi_sel(md, zero, dp);
        mm__vi v = mm__vi_sel(cur > sz, cur - sz, zero);
        cur = mm__vi_sel(x2 | x3, mm__vi_b(sz), cur);
        if (cause != MM_DEPTH_CANCEL && cause != MM_DEPTH_TRADE) continue;
        mm__vi mv = mn & (v != 0);
        if (!MM_LANES_ANY(mv)) continue;
        mm__vi before = mv & (dv->join[j] < *jrowp); /* it was ahead of us */
        mm__vi take = mm__vi_sel(a < v, a, v);
        a = mm__vi_sel(before, a - take, a);
        if (cause == MM_DEPTH_TRADE) { /* joined after us: past the queue ahead, then us */
            mm__vi mt = mv & ~before & ~c->tto & (*qtyp > 0);
            *rare |= mt & (v - take > 0); /* a fill: mm_step_c */
            a = mm__vi_sel(mt, a - take, a);
        }
    }
    /* l2 (mm__queue_l2): a deep order seen at a shown size is behind all of it; an order whose
     * level left the window is deep; else the cut of a cancel (the log and power rules: rare) and
     * the queue ahead at most the level's size. */
    mm__vi d2 = m2 & (*deep != 0), n2 = m2 & (*deep == 0);
    mm__vi show = d2 & seen & (cur >= 0), hid = n2 & (cur < 0), kept = n2 & (cur >= 0);
    *rare |= kept & canc & (a > 0) & ~c->ra;
    a = mm__vi_sel(show, cur, a);
    dp = mm__vi_sel(show, zero, dp);
    a = mm__vi_sel(hid, zero, a);
    dp = mm__vi_sel(hid, mm__vi_b(1), dp);
    a = mm__vi_sel(kept & (a > cur), cur, a);
    mm__vi nl = mm__vi_sel(show | hid | kept, cur, *lsz);
    /* l3: the level's size as the rows left it, the queue ahead at most that. */
    nl = mm__vi_sel(m3, cur, nl);
    a = mm__vi_sel(m3 & (dp == 0) & (a > cur), cur, a);
    *ahead = mm__vi_sel(m23, a, *ahead);
    *deep = mm__vi_sel(m23, dp, *deep);
    *lsz = nl;
}
