/* The lanes kernel's text (sim_batch_avx2.c and sim_batch_avx512.c include it, one instruction set
 * each, defining MM_LANES, the function's name, MM_LANES_T(name), the names of its types and
 * helpers, MM_LANES_ATTR and MM_LANES_INLINE, their attributes, MM_W, the lanes per vector, and
 * MM_LANES_ANY(mask)): MM_W combinations stepped at once, one per lane of a vector, for the events
 * where most combinations must step (docs/model.md section 8, "Lanes"; docs/perf.md). It runs the
 * step of mm_step.h for every event and every combination of a group unless the whole group may
 * skip (kinds 1, 2 and 3), written over vectors of int64 and double lanes (GCC vector extensions;
 * the same IEEE operations in the same order as mm_step_c, no contraction), for the common path
 * only: samples, landings of orders that rest or of cancels, the queue updates of the risk-averse
 * rule, the decision. A lane whose event would take any other branch (a fill, a reject, a landing
 * that crosses, the log or power queue share, a fill report pending) is "rare" at that event: the
 * vector results are not kept for it, and mm_step_c itself steps its state. Combinations outside
 * the lanes' model (mm__lanes_ok: random draws, the order-rate limit) or whose accounting failed
 * (ovf_event) are stepped by mm_step_c on every event. The kernel keeps each group's state in
 * vectors over a window of MM_LANES_WINDOW events (decoded once into g->evs, their skip bounds into
 * g->gates), then writes it back. Checked whole-state against the reference by tests/checkmodel
 * (kernels `lanes`, `lanes_avx2`). */

/* The lanes of this build: MM_W of int64, double, and int32 (the conversions of section 6). */
typedef int64_t MM_LANES_T(vi) __attribute__((vector_size(8 * MM_W)));
typedef double MM_LANES_T(vd) __attribute__((vector_size(8 * MM_W)));
typedef int32_t MM_LANES_T(vi32) __attribute__((vector_size(4 * MM_W)));
#define mm__vi MM_LANES_T(vi)
#define mm__vd MM_LANES_T(vd)
#define mm__vi32 MM_LANES_T(vi32)

/* State of one group of MM_W combinations: the fields the vector path reads or writes (the others
 * stay in the mm_state, which mm_step_c updates for rare lanes). */
typedef struct MM_LANES_T(st) {
    mm__vi q, cash2, n_ret, nmsg, chan, wake, kq, nrep, orders, cancels;
    mm__vi px[2], qty[2], ahead[2], deep[2], land[2], npx[2], nqty[2], resp[2], done[2], acc[2],
        wait[2];
    mm__vd fees, pnl_prev, ret_mean, ret_m2, pnl_peak, max_dd;
} MM_LANES_T(st);

/* Constants of a group (from mm_derived). Masks are -1 (true) or 0 per lane. */
typedef struct MM_LANES_T(cst) {
    mm__vd hs0, hs1, sk0, sk1, money;
    mm__vi tv, micro, tto, cj, ra, limit, size, requote, delay, resp;
    /* Whether any lane of the vectors has the flag (all for ra): branches taken per group. */
    int any_tv, any_micro, any_tto, any_cj, all_ra;
} MM_LANES_T(cst);

MM_LANES_INLINE void MM_LANES_T(get)(MM_LANES_T(st) * x, int l, const mm_state *s)
{
    x->q[l] = s->q;
    x->cash2[l] = s->cash2;
    x->n_ret[l] = s->n_ret;
    x->nmsg[l] = s->nmsg;
    x->chan[l] = s->chan_ns;
    x->wake[l] = s->wake_ns;
    x->kq[l] = s->kq;
    x->nrep[l] = s->nrep;
    x->orders[l] = s->orders;
    x->cancels[l] = s->cancels;
    for (int k = 0; k < 2; k++) {
        const mm_side *o = &s->s[k];
        x->px[k][l] = o->px;
        x->qty[k][l] = o->qty;
        x->ahead[k][l] = o->ahead;
        x->deep[k][l] = o->deep;
        x->land[k][l] = o->land_ns;
        x->npx[k][l] = o->new_px;
        x->nqty[k][l] = o->new_qty;
        x->resp[k][l] = o->resp_ns;
        x->done[k][l] = o->done_ns;
        x->acc[k][l] = o->acc;
        x->wait[k][l] = s->wait_ns[k];
    }
    x->fees[l] = s->fees;
    x->pnl_prev[l] = s->pnl_prev;
    x->ret_mean[l] = s->ret_mean;
    x->ret_m2[l] = s->ret_m2;
    x->pnl_peak[l] = s->pnl_peak;
    x->max_dd[l] = s->max_dd;
}

MM_LANES_INLINE void MM_LANES_T(put)(const MM_LANES_T(st) * x, int l, mm_state *s)
{
    s->q = x->q[l];
    s->cash2 = x->cash2[l];
    s->n_ret = x->n_ret[l];
    s->nmsg = x->nmsg[l];
    s->chan_ns = x->chan[l];
    s->wake_ns = x->wake[l];
    s->kq = x->kq[l];
    s->nrep = (int32_t)x->nrep[l];
    s->orders = x->orders[l];
    s->cancels = x->cancels[l];
    for (int k = 0; k < 2; k++) {
        mm_side *o = &s->s[k];
        o->px = (int32_t)x->px[k][l];
        o->qty = (int32_t)x->qty[k][l];
        o->ahead = (int32_t)x->ahead[k][l];
        o->deep = (int32_t)x->deep[k][l];
        o->land_ns = x->land[k][l];
        o->new_px = (int32_t)x->npx[k][l];
        o->new_qty = (int32_t)x->nqty[k][l];
        o->resp_ns = x->resp[k][l];
        o->done_ns = x->done[k][l];
        o->acc = (int32_t)x->acc[k][l];
        s->wait_ns[k] = x->wait[k][l];
    }
    s->fees = x->fees[l];
    s->pnl_prev = x->pnl_prev[l];
    s->ret_mean = x->ret_mean[l];
    s->ret_m2 = x->ret_m2[l];
    s->pnl_peak = x->pnl_peak[l];
    s->max_dd = x->max_dd[l];
}

/* mm__target_bid / mm__target_ask over lanes: the same clamp, truncation and correction. */
MM_LANES_INLINE void MM_LANES_T(tbid)(const mm__vd *tp, mm__vi *out)
{
    mm__vd t = *tp;
    t = mm__vd_sel(t < MM_PX_TARGET_MIN, mm__vd_b(MM_PX_TARGET_MIN), t);
    t = mm__vd_sel(t > MM_PX_TARGET_MAX, mm__vd_b(MM_PX_TARGET_MAX), t);
    /* In int32 lanes: the clamped value truncates into the int32 range, as (int64_t) would. */
    mm__vd f = __builtin_convertvector(__builtin_convertvector(t, mm__vi32), mm__vd);
    f = mm__vd_sel(f > t, f - 1.0, f);
    *out = __builtin_convertvector(__builtin_convertvector(f, mm__vi32), mm__vi);
}

MM_LANES_INLINE void MM_LANES_T(task)(const mm__vd *tp, mm__vi *out)
{
    mm__vd t = *tp;
    t = mm__vd_sel(t < MM_PX_TARGET_MIN, mm__vd_b(MM_PX_TARGET_MIN), t);
    t = mm__vd_sel(t > MM_PX_TARGET_MAX, mm__vd_b(MM_PX_TARGET_MAX), t);
    mm__vd f = __builtin_convertvector(__builtin_convertvector(t, mm__vi32), mm__vd);
    f = mm__vd_sel(f < t, f + 1.0, f);
    *out = __builtin_convertvector(__builtin_convertvector(f, mm__vi32), mm__vi);
}

/* Section 2: the samples of an event, for the lanes of ok, from the state before the event (q,
 * cash2, fees: a step in an ok lane leaves them as they are). */
MM_LANES_INLINE void MM_LANES_T(sample)(MM_LANES_T(st) * x, const MM_LANES_T(cst) * c,
                                        const mm_event *ev, const mm__vi *okp)
{
    const mm__vi ok = *okp;
    mm__vd pnl_prev = x->pnl_prev, ret_mean = x->ret_mean, ret_m2 = x->ret_m2;
    mm__vd pnl_peak = x->pnl_peak, max_dd = x->max_dd;
    mm__vi n_ret = x->n_ret;
    for (int32_t s = 0; s < ev->n_samples; s++) {
        mm__vi w = x->cash2 + x->q * ev->prev_mid2;
        mm__vd pnl = __builtin_convertvector(w, mm__vd) * 0.5 * c->money - x->fees;
        mm__vd r = pnl - pnl_prev;
        pnl_prev = pnl;
        n_ret = n_ret + 1;
        mm__vd delta = r - ret_mean;
        ret_mean = ret_mean + delta / __builtin_convertvector(n_ret, mm__vd);
        ret_m2 = ret_m2 + delta * (r - ret_mean);
        pnl_peak = mm__vd_sel(pnl > pnl_peak, pnl, pnl_peak);
        mm__vd dd = pnl_peak - pnl;
        max_dd = mm__vd_sel(dd > max_dd, dd, max_dd);
    }
    x->n_ret = mm__vi_sel(ok, n_ret, x->n_ret);
    x->pnl_prev = mm__vd_sel(ok, pnl_prev, x->pnl_prev);
    x->ret_mean = mm__vd_sel(ok, ret_mean, x->ret_mean);
    x->ret_m2 = mm__vd_sel(ok, ret_m2, x->ret_m2);
    x->pnl_peak = mm__vd_sel(ok, pnl_peak, x->pnl_peak);
    x->max_dd = mm__vd_sel(ok, max_dd, x->max_dd);
}

/* One event for the lanes of `vec` (the others are left as they are). Sets *out to the lanes that
 * are rare at this event: nothing of the event was kept for them; the caller steps them with
 * mm_step_c. */
MM_LANES_INLINE void MM_LANES_T(step)(MM_LANES_T(st) * x, const MM_LANES_T(cst) * c,
                                      const mm_event *ev, const mm__vi *vecp, mm__vi *out)
{
    const mm__vi vec = *vecp;
    const int64_t ts = ev->ts;
    const mm__vi zero = mm__vi_b(0), never = mm__vi_b(MM_NEVER);
    /* 3.2: a fill report still pending: the decision would drain it. */
    mm__vi rare = x->nrep != 0;

    /* ---- Section 3: landings (mm__land) into temporaries. ---- */
    mm__vi chan = x->chan, wake = x->wake, nmsg = x->nmsg;
    mm__vi px[2], qty[2], ahead[2], deep[2], acc[2], resp[2], done[2], land[2];
    for (int k = 0; k < 2; k++) {
        px[k] = x->px[k];
        qty[k] = x->qty[k];
        ahead[k] = x->ahead[k];
        deep[k] = x->deep[k];
        acc[k] = x->acc[k];
        resp[k] = x->resp[k];
        done[k] = x->done[k];
        land[k] = x->land[k];
    }
    for (int k = 0; k < 2; k++) {
        mm__vi L = x->land[k] <= ts;
        if (!MM_LANES_ANY(L & vec)) continue;
        /* mm__resp_at: no draw (mm__lanes_ok), so the response latency is resp_ns. */
        mm__vi a = c->resp + (ts + ev->lat_r);
        a = mm__vi_sel(a < chan, chan, a);
        chan = mm__vi_sel(L, a, chan);
        wake = mm__vi_sel(L & (a > ts) & (a < wake), a, wake);
        nmsg = nmsg - L; /* a mask is -1 */
        land[k] = mm__vi_sel(L, never, land[k]);
        qty[k] = mm__vi_sel(L, zero, qty[k]);
        resp[k] = mm__vi_sel(L, a, resp[k]);
        acc[k] = mm__vi_sel(L, zero, acc[k]);
        done[k] = mm__vi_sel(L, never, done[k]);
        mm__vi N = L & (x->nqty[k] > 0);
        mm__vi room = k == 0 ? c->limit - x->q : c->limit + x->q;
        mm__vi npx = x->npx[k];
        mm__vi crosses =
            k == 0 ? (ev->pas > 0 ? npx >= ev->pa : zero) : (ev->pbs > 0 ? npx <= ev->pb : zero);
        rare |= N & ((room <= 0) | crosses); /* a reject, or a taker fill */
        mm__vi nq = mm__vi_sel(x->nqty[k] > room, room, x->nqty[k]);
        px[k] = mm__vi_sel(N, npx, px[k]);
        qty[k] = mm__vi_sel(N, nq, qty[k]);
        acc[k] = mm__vi_sel(N, mm__vi_b(1), acc[k]);
        int64_t best = k == 0 ? ev->pb : ev->pa, best_sz = k == 0 ? ev->pbs : ev->pas;
        mm__vi better = k == 0 ? npx > best : npx < best;
        mm__vi front = best_sz == 0 ? mm__vi_b(-1) : better;
        mm__vi at = ~front & (npx == best);
        ahead[k] = mm__vi_sel(N, at & best_sz, ahead[k]);
        deep[k] = mm__vi_sel(N, ~front & ~at & 1, deep[k]);
    }

    /* ---- Section 4: matching (mm__match) without a fill. ---- */
    for (int k = 0; k < 2; k++) {
        mm__vi live = qty[k] > 0, p = px[k];
        mm__vi traded = zero;
        if (ev->tsz > 0 && ev->tside == (k == 0 ? -1 : 1)) {
            mm__vi through = k == 0 ? ev->tpx < p : ev->tpx > p;
            rare |= live & through;
            mm__vi here = live & (p == ev->tpx);
            traded = here & ev->tsz;
            /* 4.2: the queue ahead goes first (trade_reach 1: mm__lanes_ok); a rest reaches us. */
            mm__vi q_ok = here & (deep[k] == 0);
            if (c->any_tto) q_ok &= ~c->tto;
            mm__vi take = mm__vi_sel(ahead[k] < ev->tsz, ahead[k], mm__vi_b(ev->tsz));
            rare |= q_ok & (ev->tsz - take > 0);
            ahead[k] = mm__vi_sel(q_ok, ahead[k] - take, ahead[k]);
        }
        /* 4.3 book cross. */
        mm__vi crossed =
            k == 0 ? (ev->as > 0 ? ev->a <= p : zero) : (ev->bs > 0 ? ev->b >= p : zero);
        rare |= c->any_tto ? live & crossed & ~c->tto : live & crossed;
        /* 4.4 queue position. */
        int64_t nb = k == 0 ? ev->b : ev->a, nbs = k == 0 ? ev->bs : ev->as;
        int64_t pb = k == 0 ? ev->pb : ev->pa, pbs = k == 0 ? ev->pbs : ev->pas;
        mm__vi gone = nbs == 0 ? mm__vi_b(-1) : (k == 0 ? nb < p : nb > p);
        mm__vi at = ~gone & (p == nb);
        mm__vi was_deep = deep[k] != 0;
        if (pbs > 0 && !c->all_ra) {
            mm__vi dec = (pbs - nbs) - traded;
            rare |= live & at & ~was_deep & (p == pb) & (dec > 0) & (ahead[k] > 0) & ~c->ra;
        }
        mm__vi a2 = mm__vi_sel(was_deep, mm__vi_b(nbs), ahead[k]);
        a2 = mm__vi_sel(a2 > nbs, mm__vi_b(nbs), a2);
        mm__vi na = mm__vi_sel(gone, zero, mm__vi_sel(at, a2, ahead[k]));
        mm__vi nd = mm__vi_sel(gone | at, zero, mm__vi_b(1));
        ahead[k] = mm__vi_sel(live, na, ahead[k]);
        deep[k] = mm__vi_sel(live, nd, deep[k]);
    }
    mm__vi ok = vec & ~rare;
    if (ev->n_samples) MM_LANES_T(sample)(x, c, ev, &ok);

    /* ---- Section 6: the decision (mm__decide); no report pending in an ok lane. ---- */
    mm__vi npx[2] = {x->npx[0], x->npx[1]}, nqty[2] = {x->nqty[0], x->nqty[1]};
    mm__vi orders = x->orders, cancels = x->cancels;
    if (ev->bs != 0 && ev->as != 0) {
        mm__vd fair;
        if (c->any_micro) {
            double mi = ((double)ev->b * (double)ev->as + (double)ev->a * (double)ev->bs) /
                        ((double)ev->bs + (double)ev->as);
            fair = mm__vd_sel(c->micro, mm__vd_b(mi), mm__vd_b((double)ev->mid2 * 0.5));
        } else {
            fair = mm__vd_b((double)ev->mid2 * 0.5);
        }
        mm__vd hs, sk;
        if (c->any_tv) {
            mm__vd tau = mm__vd_sel(c->tv, mm__vd_b(ev->tau_end_s), mm__vd_b(0.0));
            hs = c->hs0 + c->hs1 * tau;
            sk = c->sk0 + c->sk1 * tau;
        } else { /* tau = 0.0 in every lane, as mm__decide computes it */
            hs = c->hs0 + c->hs1 * 0.0;
            sk = c->sk0 + c->sk1 * 0.0;
        }
        /* |kq| <= limit < 2^31 (section 1): exact through int32 lanes. */
        mm__vd kqd = __builtin_convertvector(__builtin_convertvector(x->kq, mm__vi32), mm__vd);
        mm__vd shift = sk * kqd;
        mm__vi t[2];
        mm__vd ub = fair - hs - shift, ua = fair + hs - shift;
        MM_LANES_T(tbid)(&ub, &t[0]);
        MM_LANES_T(task)(&ua, &t[1]);
        if (c->any_cj) {
            t[0] = mm__vi_sel(c->cj & (t[0] >= ev->a), mm__vi_b(ev->b), t[0]);
            t[1] = mm__vi_sel(c->cj & (t[1] <= ev->b), mm__vi_b(ev->a), t[1]);
        }
        wake = never;
        mm__vi room[2] = {c->limit - x->kq, c->limit + x->kq};
        for (int k = 0; k < 2; k++) {
            mm__vi idle = (land[k] == never) & (resp[k] <= ts);
            mm__vi size = mm__vi_sel(room[k] < c->size, room[k], c->size);
            mm__vi resting = (acc[k] != 0) & (done[k] > ts);
            mm__vi dist = t[k] - px[k];
            dist = mm__vi_sel(dist < 0, -dist, dist);
            mm__vi scancel = resting & (dist >= c->requote);
            mm__vi sorder = mm__vi_sel(resting, scancel, mm__vi_b(-1)) & (size > 0);
            mm__vi acts = idle & (scancel | sorder);
            mm__vi waits = sorder & (ts < x->wait[k]); /* 6.1 back-off (no rate limit) */
            /* hold[k] stays 0: only the order-rate limit sets it (mm__lanes_ok). */
            wake = mm__vi_sel(acts & waits & (x->wait[k] < wake), x->wait[k], wake);
            mm__vi go = acts & ~waits;
            mm__vi delay = c->delay + ev->lat_e;
            delay = mm__vi_sel(delay < 1, mm__vi_b(1), delay);
            land[k] = mm__vi_sel(go, ts + delay, land[k]);
            npx[k] = mm__vi_sel(go, t[k], npx[k]);
            nqty[k] = mm__vi_sel(go, sorder & size, nqty[k]);
            cancels = cancels - (go & scancel);
            orders = orders - (go & sorder);
        }
        /* 3.2: a response or a done report still to come is a time to step. */
        mm__vi later = chan > ts;
        if (MM_LANES_ANY(later & vec))
            for (int k = 0; k < 2; k++) {
                wake = mm__vi_sel(later & (resp[k] > ts) & (resp[k] < wake), resp[k], wake);
                wake = mm__vi_sel(later & (done[k] > ts) & (done[k] < wake), done[k], wake);
            }
    }

    /* ---- Commit the ok lanes: all of them, without blending, when none is rare (lanes outside
     * vec hold nothing that is kept). ---- */
    rare &= vec;
#define MM_LANES_COMMIT(SET)                                                                       \
    do {                                                                                           \
        SET(chan, chan);                                                                           \
        SET(wake, wake);                                                                           \
        SET(nmsg, nmsg);                                                                           \
        SET(orders, orders);                                                                       \
        SET(cancels, cancels);                                                                     \
        for (int k = 0; k < 2; k++) {                                                              \
            SET(px[k], px[k]);                                                                     \
            SET(qty[k], qty[k]);                                                                   \
            SET(ahead[k], ahead[k]);                                                               \
            SET(deep[k], deep[k]);                                                                 \
            SET(acc[k], acc[k]);                                                                   \
            SET(resp[k], resp[k]);                                                                 \
            SET(done[k], done[k]);                                                                 \
            SET(land[k], land[k]);                                                                 \
            SET(npx[k], npx[k]);                                                                   \
            SET(nqty[k], nqty[k]);                                                                 \
        }                                                                                          \
    } while (0)
#define MM_LANES_ALL(F, V) x->F = (V)
#define MM_LANES_OK(F, V) x->F = mm__vi_sel(ok, V, x->F)
    if (!MM_LANES_ANY(rare))
        MM_LANES_COMMIT(MM_LANES_ALL);
    else
        MM_LANES_COMMIT(MM_LANES_OK);
#undef MM_LANES_COMMIT
#undef MM_LANES_ALL
#undef MM_LANES_OK
    *out = rare;
}

/* One event of combination j by mm_step_c, for a leader of shared states also its members'
 * (share_sample unless `sampled`; share_split when the step was not clean, the new leaders appended
 * to loose). */
static void MM_LANES_T(step1)(const mm__guards *g, const mm_derived *d, mm_state *st, int32_t j,
                              const mm_event *ev, int sampled, int32_t *loose, int64_t *nloose,
                              int64_t *shared, int64_t left)
{
    if (g->fhead[j] < 0) {
        lanes_step_c(&st[j], ev, &d[j], NULL);
        return;
    }
    if (!sampled && ev->n_samples) share_sample(g, d, st, j, ev);
    mm_state pre;
    memcpy(&pre, &st[j], sizeof pre);
    /* The step records its fills for the members (the trace reads the state, never writes it). */
    mm__share_fills fl;
    fl.n = fl.over = 0;
    mm_trace_sink sink = {share_record, &fl, 1};
    lanes_step_c(&st[j], ev, &d[j], &sink);
    if (share_clean(&pre, &st[j])) return;
    mm_event ev_ns = *ev;
    ev_ns.n_samples = 0;
    share_split(g, d, st, j, &pre, &ev_ns, loose, nloose, shared, left, &fl);
}

/* The group skip test below for one combination stepped by mm_step_c (a loose leader): whether
 * state s with constants d may skip the event of gate gt (section 8, "Lanes": the lane's own test,
 * exact for each lane alone). Only inside the vectors' model (as a vector lane); 0 otherwise. */
MM_LANES_INLINE int MM_LANES_T(quiet1)(const mm_state *s, const mm_derived *d, const mm__gate *gt)
{
    if (!mm__lanes_ok(d) || s->ovf_event || s->hold[0] || s->hold[1]) return 0;
    int kind = mm__guard_kind(d);
    if (kind == 1 ? gt->must[1] : kind == 2 || kind == MM_KIND_BAND ? gt->must[2] : 1) return 0;
    int64_t lo, hi, land;
    mm__guard_of(s, &lo, &hi, &land);
#ifdef MM_LOOSE_BUG
    /* checkmodel's own test (tests/checkmodel/ck_loosebug.c): an action in flight is forgotten */
    land = INT64_MAX;
#endif
    return land > gt->ts && (lo < gt->tb || (lo > gt->tbi && lo < gt->tbx)) &&
           (hi > gt->ta || (hi < gt->tai && hi > gt->tax));
}

MM_LANES_ATTR static void MM_LANES(const mm__tape *tp, const mm_derived *d, mm_state *st,
                                   const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    const mm__tape_view *v = &tp->v;
    assert(i0 >= 0 && i0 <= i1 && i1 <= v->n && m >= 0 && m <= g->cap);
    mm_event *evs = g->evs;
    mm__gate *gts = g->gates;
    int64_t scalar = 0, skipped = 0;
    /* Shared states (section 8), as in the skip kernel, merged again each window: parked members
     * (live[j] = 0; positions are combinations here, perm the identity) are in no group; their
     * leaders take their samples and, when a step is not clean, split them. act[] (in tmp) lists
     * the live combinations of a window, loose[] (in landi, unused by this kernel) the leaders a
     * split made during the current group's window: mm_step_c steps them until the window ends,
     * then they join the groups. */
    for (int64_t j = 0; j < m; j++)
        g->perm[j] = (int32_t)j;
    int64_t shared = 0;
    int32_t *act = g->tmp, *loose = g->landi, *order = g->lo;
    /* Groups of combinations that quote alike: the live ones in the order of their half spread
     * (then their own), so that a group's lanes are often quiet at the same events. */
    for (int64_t j = 0; j < m; j++) {
        uint64_t b;
        memcpy(&b, &d[j].hs0, 8);
        b = b >> 63 ? ~b : b | (UINT64_C(1) << 63); /* the doubles' order as unsigned integers */
        g->key[j] = (mm__share_key){b, INT32_MAX, (int32_t)j};
    }
    share_sort(g->key, m);
    for (int64_t j = 0; j < m; j++)
        order[j] = g->key[j].j;
    for (int64_t w0 = i0; w0 < i1; w0 += MM_LANES_WINDOW) {
        int64_t w1 = i1 - w0 < MM_LANES_WINDOW ? i1 : w0 + MM_LANES_WINDOW;
        shared += share_park(d, st, g, m, w0 == i0) * (w1 - w0);
        for (int64_t i = w0; i < w1; i++) {
            mm__event(v, i, &evs[i - w0]);
            mm__gate_of(&evs[i - w0], &gts[i - w0]);
        }
        int64_t nact = 0;
        for (int64_t k = 0; k < m; k++)
            if (g->live[order[k]]) act[nact++] = order[k];
        for (int64_t j0 = 0; j0 < nact; j0 += MM_W) {
            int nl = nact - j0 < MM_W ? (int)(nact - j0) : MM_W;
            int32_t cj[MM_W]; /* the combination of each lane */
            MM_LANES_T(st) x;
            MM_LANES_T(cst) c;
            memset(&x, 0, sizeof x);
            memset(&c, 0, sizeof c);
            mm__vi vec = mm__vi_b(0);                     /* lanes the vectors step */
            mm__vi kind1 = vec, kind2 = vec, other = vec; /* their kinds (mm__guard_kind) */
            int sca[MM_W] = {0};                          /* lanes mm_step_c steps on every event */
            int64_t nloose = 0;
            for (int l = 0; l < nl; l++) {
                cj[l] = act[j0 + l];
                const mm_derived *dl = &d[cj[l]];
                const mm_state *sl = &st[cj[l]];
                if (!mm__lanes_ok(dl) || sl->ovf_event || sl->hold[0] || sl->hold[1]) {
                    sca[l] = 1;
                    continue;
                }
                vec[l] = -1;
                /* Kind 3 (MM_KIND_BAND) takes kind 2's test: with the book as it was, so its
                 * microprice, its targets are its last decision's (section 8, "Lanes"). */
                int kind = mm__guard_kind(dl), k2 = kind == 2 || kind == MM_KIND_BAND;
                kind1[l] = kind == 1 ? -1 : 0;
                kind2[l] = k2 ? -1 : 0;
                other[l] = kind != 1 && !k2 ? -1 : 0;
                MM_LANES_T(get)(&x, l, sl);
                c.hs0[l] = dl->hs0;
                c.hs1[l] = dl->hs1;
                c.sk0[l] = dl->sk0;
                c.sk1[l] = dl->sk1;
                c.money[l] = dl->money;
                c.tv[l] = dl->time_varying ? -1 : 0;
                c.micro[l] = dl->fair_micro ? -1 : 0;
                c.tto[l] = dl->tto ? -1 : 0;
                c.cj[l] = dl->cross_join ? -1 : 0;
                c.ra[l] = dl->queue_rule == MM_QUEUE_RISK_AVERSE ? -1 : 0;
                c.limit[l] = dl->limit;
                c.size[l] = dl->size;
                c.requote[l] = dl->requote;
                c.delay[l] = dl->feed_ns + dl->entry_ns;
                c.resp[l] = dl->resp_ns;
            }
            c.any_tv = MM_LANES_ANY(c.tv & vec);
            c.any_micro = MM_LANES_ANY(c.micro & vec);
            c.any_tto = MM_LANES_ANY(c.tto & vec);
            c.any_cj = MM_LANES_ANY(c.cj & vec);
            c.all_ra = !MM_LANES_ANY(~c.ra & vec);
            int any_lead = 0; /* a vector lane leads shared states */
            for (int l = 0; l < nl; l++)
                any_lead |= vec[l] && g->fhead[cj[l]] >= 0;
            int nsca = 0;
            for (int l = 0; l < MM_W; l++)
                nsca += sca[l];
            mm__vi lo = vec, hi = vec, land = vec; /* the skip test's, while fresh */
            int fresh = 0;
            for (int64_t i = w0; i < w1; i++) {
                const mm_event *ev = &evs[i - w0];
                /* (Leaders a split makes during this loop are appended and step from the next
                 * event on: each stepped this one already.) */
                const mm__gate *gt = &gts[i - w0];
                for (int64_t k = 0, nk = nloose; k < nk; k++) {
                    int32_t j = loose[k];
                    if (MM_LANES_T(quiet1)(&st[j], &d[j], gt)) { /* only the samples */
                        if (ev->n_samples) {
                            mm__sample(&st[j], ev, &d[j]);
                            share_sample(g, d, st, j, ev);
                        }
                        skipped++;
                        continue;
                    }
                    MM_LANES_T(step1)(g, d, st, j, ev, 0, loose, &nloose, &shared, w1 - i);
                }
                for (int l = 0; nsca && l < nl; l++) {
                    if (!sca[l]) continue;
                    MM_LANES_T(step1)(g, d, st, cj[l], ev, 0, loose, &nloose, &shared, w1 - i);
                }
                if (!MM_LANES_ANY(vec)) continue;
                /* The members' samples (their leaders' vector lanes take their own). */
                if (any_lead && ev->n_samples)
                    for (int l = 0; l < nl; l++)
                        if (vec[l]) share_sample(g, d, st, cj[l], ev);
                /* The skip test of section 8 for the whole group (kinds 1, 2 and 3 only): when
                 * every lane may skip, only the samples are taken. */
                mm__vi must = other | (gt->must[1] ? kind1 : mm__vi_b(0)) |
                              (gt->must[2] ? kind2 : mm__vi_b(0));
                if (!MM_LANES_ANY(must & vec)) {
                    if (!fresh) { /* the lanes' quotes and next action, until a step moves them */
                        lo = mm__vi_sel(x.qty[0] > 0, x.px[0], mm__vi_b(INT64_MIN));
                        hi = mm__vi_sel(x.qty[1] > 0, x.px[1], mm__vi_b(INT64_MAX));
                        land = mm__vi_sel(x.land[0] < x.land[1], x.land[0], x.land[1]);
                        land = mm__vi_sel(land < x.wake, land, x.wake);
                        fresh = 1;
                    }
                    mm__vi quiet = (land > gt->ts) &
                                   ((lo < gt->tb) | ((lo > gt->tbi) & (lo < gt->tbx))) &
                                   ((hi > gt->ta) | ((hi < gt->tai) & (hi > gt->tax)));
                    if (!MM_LANES_ANY(vec & ~quiet)) {
                        if (ev->n_samples) MM_LANES_T(sample)(&x, &c, ev, &vec);
                        skipped += nl - nsca;
                        continue;
                    }
                }
                mm__vi rare;
                MM_LANES_T(step)(&x, &c, ev, &vec, &rare);
                fresh = 0; /* a step may move the quotes */
                if (!MM_LANES_ANY(rare)) continue;
                for (int l = 0; l < nl; l++) {
                    if (!rare[l]) continue;
                    mm_state *s = &st[cj[l]];
                    MM_LANES_T(put)(&x, l, s);
                    MM_LANES_T(step1)(g, d, st, cj[l], ev, 1, loose, &nloose, &shared, w1 - i);
                    MM_LANES_T(get)(&x, l, s);
                    scalar++;
                    if (s->ovf_event) { /* from now on, mm_step_c alone */
                        vec[l] = 0;
                        sca[l] = 1;
                        nsca++;
                    }
                }
                if (any_lead) {
                    any_lead = 0;
                    for (int l = 0; l < nl; l++)
                        any_lead |= vec[l] && g->fhead[cj[l]] >= 0;
                }
            }
            for (int l = 0; l < nl; l++)
                if (vec[l]) MM_LANES_T(put)(&x, l, &st[cj[l]]);
        }
    }
    share_unpark_all(st, g, m);
    g->count[MM_COUNT_STEPS] += (i1 - i0) * m - skipped - shared;
    g->count[MM_COUNT_SLOTS] += (i1 - i0) * m;
    g->count[MM_COUNT_SHARED] += shared;
    g->count[MM_COUNT_LANES] += (i1 - i0) * m;
    g->count[MM_COUNT_RARE] += scalar;
}

#undef mm__vi
#undef mm__vd
#undef mm__vi32
