/* The lanes kernel's deferred samples (sim_lanes.h includes it, once per instruction set, with
 * MM_W, MM_ISA_ATTR, MM_LANES_ANY and the vector types defined): parked members take their PnL
 * samples in vectors, one member per lane, when their leader's log is replayed or the kernel
 * returns (docs/model.md section 8, "Deferred samples"). No include guard: text of each kernel. */

/* Deferred samples (docs/model.md section 8, "Deferred samples"). One set of MM_W members, one
 * per lane: what a sample reads and writes of each (a member's position, cash and fees are its own,
 * moved only by the replays of its leader's log). Unused lanes have a cursor after every event. */
typedef struct settle_set {
    mm__vi cur, lpos, q, cash2, n_ret, used; /* used: the lanes of members (-1) */
    mm__vd fees, hmoney, pnl_prev, ret_mean, ret_m2, pnl_peak, max_dd; /* hmoney: money / 2 */
} settle_set;

/* The set of members fl[0 .. nl), nl <= MM_W; *c0: the earliest cursor so far. */
LANES_INLINE void settle_get(settle_set *a, const mm__guards *g, const mm_derived *d,
                             const mm_state *st, const int32_t *fl, int nl, int64_t *c0)
{
    a->cur = mm__vi_b(INT64_MAX);
    a->lpos = mm__vi_b(INT64_MAX);
    a->q = a->cash2 = a->n_ret = a->used = mm__vi_b(0);
    a->fees = a->hmoney = a->pnl_prev = a->ret_mean = a->ret_m2 = mm__vd_b(0.0);
    a->pnl_peak = a->max_dd = mm__vd_b(0.0);
    for (int l = 0; l < nl; l++) {
        const mm_state *s = &st[fl[l]];
        a->cur[l] = g->scur[fl[l]];
        a->lpos[l] = g->logpos[fl[l]];
        *c0 = a->cur[l] < *c0 ? a->cur[l] : *c0;
        a->q[l] = s->q;
        a->cash2[l] = s->cash2;
        a->fees[l] = s->fees;
        a->hmoney[l] = 0.5 * d[fl[l]].money;
        a->used[l] = -1;
        a->n_ret[l] = s->n_ret;
        a->pnl_prev[l] = s->pnl_prev;
        a->ret_mean[l] = s->ret_mean;
        a->ret_m2[l] = s->ret_m2;
        a->pnl_peak[l] = s->pnl_peak;
        a->max_dd[l] = s->max_dd;
    }
}

/* The PnL of the set's lanes at mid2 (twice the mid), as mm__sample computes it: (w x 0.5) x money
 * is w x (money / 2), bit for bit (both halvings are exact: w is a whole number, money a positive
 * constant far from the subnormals), one product fewer a sample. */
LANES_INLINE mm__vd settle_pnl(const settle_set *a, int64_t mid2)
{
    mm__vi w = a->cash2 + a->q * mid2;
    return __builtin_convertvector(w, mm__vd) * a->hmoney - a->fees;
}

/* settle_sample_again and settle_sample where every member of the set takes the sample (the
 * lanes without a member compute what is never stored): the same operations without the selects
 * of the lanes that do not. */
LANES_INLINE void settle_sample_again_all(settle_set *a, mm__vd pnl)
{
    mm__vd r = pnl - a->pnl_prev;
    mm__vi n1 = a->n_ret + 1;
    mm__vd delta = r - a->ret_mean;
    mm__vd mean1 = a->ret_mean + delta / __builtin_convertvector(n1, mm__vd);
    a->ret_m2 = a->ret_m2 + delta * (r - mean1);
    a->ret_mean = mean1;
    a->n_ret = n1;
}

LANES_INLINE void settle_sample_all(settle_set *a, mm__vd pnl)
{
    settle_sample_again_all(a, pnl);
    mm__vd peak1 = mm__vd_sel(pnl > a->pnl_peak, pnl, a->pnl_peak);
    mm__vd dd = peak1 - pnl;
    a->max_dd = mm__vd_sel(dd > a->max_dd, dd, a->max_dd);
    a->pnl_prev = pnl;
    a->pnl_peak = peak1;
}

/* The running mean and sum of squares of the returns (section 2's Welford update) and the count,
 * for a sample of PnL pnl on the lanes of ok; reads pnl_prev, does not move it. Alone, it is a
 * second or later sample of one event after settle_sample with the same pnl and ok: the rest of a
 * sample cannot change there (for each lane of ok, pnl_prev is pnl already, pnl_peak is at least
 * pnl or unordered with it, and the drawdown is the one max_dd has seen). */
LANES_INLINE void settle_sample_again(settle_set *a, mm__vd pnl, mm__vi ok)
{
    mm__vd r = pnl - a->pnl_prev;
    mm__vi n1 = a->n_ret + 1;
    mm__vd delta = r - a->ret_mean;
    mm__vd mean1 = a->ret_mean + delta / __builtin_convertvector(n1, mm__vd);
    mm__vd m21 = a->ret_m2 + delta * (r - mean1);
    a->n_ret = mm__vi_sel(ok, n1, a->n_ret);
    a->ret_mean = mm__vd_sel(ok, mean1, a->ret_mean);
    a->ret_m2 = mm__vd_sel(ok, m21, a->ret_m2);
}

/* One sample of PnL pnl on the lanes of ok: mm__sample's operations (each lane's results do not
 * depend on the order of independent ones). */
LANES_INLINE void settle_sample(settle_set *a, mm__vd pnl, mm__vi ok)
{
    settle_sample_again(a, pnl, ok);
    mm__vd peak1 = mm__vd_sel(pnl > a->pnl_peak, pnl, a->pnl_peak);
    mm__vd dd = peak1 - pnl;
    a->max_dd = mm__vd_sel(ok & (dd > a->max_dd), dd, a->max_dd);
    a->pnl_prev = mm__vd_sel(ok, pnl, a->pnl_prev);
    a->pnl_peak = mm__vd_sel(ok, peak1, a->pnl_peak);
}

/* Log entry p replayed on the set's members that have not replayed it. */
LANES_INLINE void settle_replay(settle_set *a, const mm_derived *d, mm_state *st, const int32_t *fl,
                                int nl, const mm__share_log *lg, int32_t p)
{
    for (int l = 0; l < nl; l++) {
        if (p < a->lpos[l]) continue;
        mm_state *s = &st[fl[l]];
        if (lg[p].fill) share_fill_own(s, &lg[p].mv, &d[fl[l]], lg[p].ts, lg[p].i);
        s->kq += lg[p].dkq;
        a->q[l] = s->q;
        a->cash2[l] = s->cash2;
        a->fees[l] = s->fees;
    }
}

LANES_INLINE void settle_put(const settle_set *a, const mm__guards *g, mm_state *st,
                             const int32_t *fl, int nl, int64_t through)
{
    for (int l = 0; l < nl; l++) {
        mm_state *s = &st[fl[l]];
        s->n_ret = a->n_ret[l];
        s->pnl_prev = a->pnl_prev[l];
        s->ret_mean = a->ret_mean[l];
        s->ret_m2 = a->ret_m2[l];
        s->pnl_peak = a->pnl_peak[l];
        s->max_dd = a->max_dd[l];
        g->scur[fl[l]] = a->cur[l] > through + 1 ? a->cur[l] : through + 1;
        g->logpos[fl[l]] = 0;
    }
}

/* The members fl[0 .. nl) of one leader (of leaders with empty logs when nlog is 0), one per lane,
 * in one set (nl <= MM_W; two = 0) or two (MM_W < nl <= 2 MM_W; two = 1), take the samples of the
 * listed events (g->sw) from their cursors (g->scur) through event `through`, interleaved with the
 * leader's log lg[0 .. nlog) (an entry at event i after the samples of i: the step takes them
 * first). Two sets run two independent chains of samples (each sample's mean waits for a division
 * by the one before): where the divider is not busy, the second costs little (docs/perf.md,
 * "Start-up, session 21"). */
LANES_INLINE void lanes_settle_n(const mm__guards *g, const mm_derived *d, mm_state *st,
                                 const int32_t *fl, int nl, const mm__share_log *lg, int32_t nlog,
                                 int64_t through, const int two)
{
    const mm__samp_list *sw = g->sw;
    settle_set A = {0}, B = {0}; /* (B unused with one set) */
    int na = two ? MM_W : nl, nb = two ? nl - MM_W : 0;
    int64_t c0 = INT64_MAX;
    settle_get(&A, g, d, st, fl, na, &c0);
    if (two) settle_get(&B, g, d, st, fl + MM_W, nb, &c0);
    /* The first listed event at or after the earliest cursor (every event with samples before it
     * was taken by every member: the list starts after the last time all were current). */
    int32_t k = 0, hi = sw->n;
    while (k < hi) {
        int32_t mid = k + (hi - k) / 2;
        if (sw->ev[mid] < c0)
            k = mid + 1;
        else
            hi = mid;
    }
    for (int32_t p = 0; p <= nlog; p++) {
        int64_t lim = p < nlog ? lg[p].i : through;
        for (; k < sw->n && sw->ev[k] <= lim; k++) {
            mm__vi oka = A.cur <= sw->ev[k], okb = oka;
            if (two) {
                okb = B.cur <= sw->ev[k];
                if (!MM_LANES_ANY(oka | okb)) continue;
            } else if (!MM_LANES_ANY(oka)) {
                continue;
            }
            int64_t mid2 = sw->mid2[k];
            mm__vd pa = settle_pnl(&A, mid2), pb = two ? settle_pnl(&B, mid2) : pa;
            if (!MM_LANES_ANY((A.used & ~oka) | (B.used & ~okb))) { /* every member samples */
                settle_sample_all(&A, pa);
                if (two) settle_sample_all(&B, pb);
                for (int32_t again = sw->ns[k] - 1; again > 0; again--) {
                    settle_sample_again_all(&A, pa);
                    if (two) settle_sample_again_all(&B, pb);
                }
                continue;
            }
            settle_sample(&A, pa, oka);
            if (two) settle_sample(&B, pb, okb);
            for (int32_t n = 1; n < sw->ns[k]; n++) {
                settle_sample_again(&A, pa, oka);
                if (two) settle_sample_again(&B, pb, okb);
            }
        }
        if (p == nlog) break;
        settle_replay(&A, d, st, fl, na, lg, p);
        if (two) settle_replay(&B, d, st, fl + MM_W, nb, lg, p);
    }
    settle_put(&A, g, st, fl, na, through);
    if (two) settle_put(&B, g, st, fl + MM_W, nb, through);
}

/* lanes_settle_n for nl <= 2 MM_W members. */
LANES_INLINE void lanes_settle_lanes(const mm__guards *g, const mm_derived *d, mm_state *st,
                                     const int32_t *fl, int nl, const mm__share_log *lg,
                                     int32_t nlog, int64_t through)
{
    if (nl > MM_W)
        lanes_settle_n(g, d, st, fl, nl, lg, nlog, through, 1);
    else
        lanes_settle_n(g, d, st, fl, nl, lg, nlog, through, 0);
}

/* share_flush_all with deferred samples (mm__samp_list.settle): the members of leader j, 2 MM_W at
 * a time, through event `through`; j's log is then empty. */
MM_ISA_ATTR static void lanes_settle(const mm__guards *g, const mm_derived *d, mm_state *st,
                                     int32_t j, int64_t through)
{
    const mm__share_log *lg = &g->log[(int64_t)j * MM_SHARE_LOG];
    int32_t nlog = g->logn[j];
    for (int32_t f = g->fhead[j]; f >= 0;) {
        int32_t fl[2 * MM_W];
        int nl = 0;
        for (; f >= 0 && nl < 2 * MM_W; f = g->fnext[f])
            fl[nl++] = f;
        lanes_settle_lanes(g, d, st, fl, nl, lg, nlog, through);
    }
    g->logn[j] = 0;
}

/* Every member of the m combinations takes its samples (and replays its leader's log) through
 * event `through`: those of leaders with a log leader by leader, the others 2 MM_W at a time
 * across leaders (nothing to interleave). The list of events with samples is then empty. */
MM_ISA_ATTR static void lanes_settle_all(const mm__guards *g, const mm_derived *d, mm_state *st,
                                         int64_t m, int64_t through)
{
    int32_t fl[2 * MM_W];
    int nf = 0;
    for (int64_t j = 0; j < m; j++) {
        if (g->fhead[j] < 0) continue;
        if (g->logn[j]) {
            lanes_settle(g, d, st, (int32_t)j, through);
            continue;
        }
        for (int32_t f = g->fhead[j]; f >= 0; f = g->fnext[f]) {
            fl[nf++] = f;
            if (nf == 2 * MM_W) {
                lanes_settle_lanes(g, d, st, fl, nf, NULL, 0, through);
                nf = 0;
            }
        }
    }
    if (nf) lanes_settle_lanes(g, d, st, fl, nf, NULL, 0, through);
    g->sw->n = 0;
}
