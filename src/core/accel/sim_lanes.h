/* The lanes kernel's text (sim_batch_avx2.c and sim_batch_avx512.c include it, one instruction set
 * each, defining MM_ISA_ATTR, the target attribute of its functions, MM_W, the lanes per vector,
 * and MM_LANES_ANY(mask); the kernel is the static function lanes_advance of that file): MM_W
 * combinations stepped at once, one per lane of a vector, for the events where most combinations
 * must step (docs/model.md section 8, "Lanes"; docs/perf.md). It runs the step of mm_step.h for
 * every event and every combination of a group unless the whole group may skip (kinds 1, 2 and 3),
 * written over vectors of int64 and double lanes (GCC vector extensions; the same IEEE operations
 * in the same order as mm_step_c, no contraction), for the common path only: samples, landings of
 * orders that rest or of cancels, the queue updates of the risk-averse rule, the decision, and the
 * random draws of these (drawn latencies, queue_join = uniform, trade_reach < 1: the operations of
 * mm_rng.h and mm_draw.h in the lanes, sim_lanes_draw.h), and the depth stream's queues of book =
 * l2 and l3 (section 4.5, sim_lanes_depth.h). A lane
 * whose event would take any other branch (a fill, a reject, a landing that crosses, the log or
 * power queue share, a fill by the order ids, a fill report pending) is "rare" at that event: the
 * vector results are not kept for it, and mm_step_c itself steps its state. Combinations outside
 * the lanes' model (mm__lanes_ok: the order-rate limit, ladders) or whose accounting failed
 * (ovf_event) are stepped by mm_step_c on every event. The kernel keeps each group's state in
 * vectors over a window of MM_LANES_WINDOW events (decoded once into g->evs, their skip bounds into
 * g->gates), then writes it back. Checked whole-state against the reference by tests/checkmodel
 * (kernels `lanes`, `lanes_avx2`). */

/* The lanes of this build: MM_W of int64, double, and int32 (the conversions of section 6). */
typedef int64_t mm__vi __attribute__((vector_size(8 * MM_W)));
typedef double mm__vd __attribute__((vector_size(8 * MM_W)));
typedef int32_t mm__vi32 __attribute__((vector_size(4 * MM_W)));
/* Unsigned lanes: Philox4x32-10's 32-bit words in the low halves of 64-bit lanes; their 32 x 32 ->
 * 64-bit products (pmuludq). */
typedef uint64_t mm__vu __attribute__((vector_size(8 * MM_W)));
#if MM_W == 4
#define MM_LANES_MULU32(a, b) ((mm__vu)_mm256_mul_epu32((__m256i)(a), (__m256i)(b)))
#define MM_LANES_SQRT(a) ((mm__vd)_mm256_sqrt_pd((__m256d)(a))) /* IEEE sqrt, as sqrt() */
#else
#define MM_LANES_MULU32(a, b) ((mm__vu)_mm512_mul_epu32((__m512i)(a), (__m512i)(b)))
#define MM_LANES_SQRT(a) ((mm__vd)_mm512_sqrt_pd((__m512d)(a)))
#endif
/* The helpers, inlined into the kernel with its instruction set. */
#define LANES_INLINE static inline __attribute__((always_inline)) MM_ISA_ATTR

/* State of one group of MM_W combinations: the fields the vector path reads or writes (the others
 * stay in the mm_state, which mm_step_c updates for rare lanes). */
typedef struct lanes_st {
    mm__vi q, cash2, n_ret, chan, wake, kq, nrep, orders, cancels;
    mm__vi px[2], qty[2], ahead[2], deep[2], land[2], npx[2], nqty[2], resp[2], done[2], acc[2],
        wait[2], rest[2];
    /* book = l2, l3 (docs/model.md 4.5): the size of the order's level as last shown (lots, -1: not
     * shown), the event at which it joined its level (l3). */
    mm__vi lsz[2], jrow[2];
    mm__vd fees, pnl_prev, ret_mean, ret_m2, pnl_peak, max_dd;
} lanes_st;

/* Constants of a group (from mm_derived). Masks are -1 (true) or 0 per lane. */
typedef struct lanes_cst {
    mm__vd hs0, hs1, sk0, sk1, money;
    mm__vi tv, micro, tto, cj, ra, limit, size, requote, delay, resp;
    /* Whether any lane of the vectors has the flag (all for ra): branches taken per group. */
    int any_tv, any_micro, any_tto, any_cj, all_ra, any_dr, any_ln, any_ex, any_em, any_ju, any_rc;
    /* book (4.5), per lane: dp l2 or l3 (the depth stream's rows move its queues), l3 by the order
     * ids; any_dp: a lane of the group has dp (the step reads the depth rows). */
    mm__vi dp, l3;
    int any_dp;
    /* From here on (dr), set only in a group where a lane draws (zero else; a group without draws
     * reads none of it). Random draws (docs/model.md 3.3), per lane: dr a drawn latency (ln:
     * lognormal, ex: exponential, em: empirical), ju queue_join = uniform, rc trade_reach < 1; the
     * lane's constants and stream key for the scalar draws (lanes_draw_lat); Philox's round keys of
     * the stream key (rk0, rk1: the key's low and high words plus r times the Weyl constants, mod
     * 2^32), the lognormal law's sigma and the laws' bases (entry, response) for the vector ones
     * (sim_lanes_draw.h). */
    mm__vi dr, ln, ex, em, ju, rc;
    mm__vu rk0[10], rk1[10];
    mm__vd sigma, ebase, rbase;
    const mm_derived *dl[MM_W];
    uint64_t key[MM_W];
} lanes_cst;

/* The random draws of section 3.3 in lanes (lanes_draw_lat and its helpers). */
#include "sim_lanes_draw.h"
/* The depth stream's queues (book = l2, l3) in lanes. */
#include "sim_lanes_depth.h"

/* Lane l from state s and its kernels' rest times (mm__guards.rest), and back. */
LANES_INLINE void lanes_get(lanes_st *x, int l, const mm_state *s, const int64_t rest[2])
{
    x->q[l] = s->q;
    x->cash2[l] = s->cash2;
    x->n_ret[l] = s->n_ret;
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
        x->rest[k][l] = rest[k];
        x->lsz[k][l] = o->lsz;
        x->jrow[k][l] = o->jrow;
    }
    x->fees[l] = s->fees;
    x->pnl_prev[l] = s->pnl_prev;
    x->ret_mean[l] = s->ret_mean;
    x->ret_m2[l] = s->ret_m2;
    x->pnl_peak[l] = s->pnl_peak;
    x->max_dd[l] = s->max_dd;
}

LANES_INLINE void lanes_put(const lanes_st *x, int l, mm_state *s, int64_t rest[2])
{
    s->q = x->q[l];
    s->cash2 = x->cash2[l];
    s->n_ret = x->n_ret[l];
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
        rest[k] = x->rest[k][l];
        o->lsz = (int32_t)x->lsz[k][l];
        o->jrow = x->jrow[k][l];
    }
    s->fees = x->fees[l];
    s->pnl_prev = x->pnl_prev[l];
    s->ret_mean = x->ret_mean[l];
    s->ret_m2 = x->ret_m2[l];
    s->pnl_peak = x->pnl_peak[l];
    s->max_dd = x->max_dd[l];
}

/* mm__target_bid / mm__target_ask over lanes: the same clamp, truncation and correction. */
LANES_INLINE void lanes_tbid(const mm__vd *tp, mm__vi *out)
{
    mm__vd t = *tp;
    t = mm__vd_sel(t < MM_PX_TARGET_MIN, mm__vd_b(MM_PX_TARGET_MIN), t);
    t = mm__vd_sel(t > MM_PX_TARGET_MAX, mm__vd_b(MM_PX_TARGET_MAX), t);
    /* In int32 lanes: the clamped value truncates into the int32 range, as (int64_t) would. */
    mm__vd f = __builtin_convertvector(__builtin_convertvector(t, mm__vi32), mm__vd);
    f = mm__vd_sel(f > t, f - 1.0, f);
    *out = __builtin_convertvector(__builtin_convertvector(f, mm__vi32), mm__vi);
}

LANES_INLINE void lanes_task(const mm__vd *tp, mm__vi *out)
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
LANES_INLINE void lanes_sample(lanes_st *x, const lanes_cst *c, const mm_event *ev,
                               const mm__vi *okp)
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

/* One event for the lanes of `vec` (the others are left as they are). draws (a constant of each
 * call site): 0 where no lane of the group draws, so that the step without draws has none of their
 * code (with it, the deterministic default sweep took 2-8% more instructions). Sets *out to the
 * lanes that are rare at this event: nothing of the event was kept for them; the caller steps them
 * with mm_step_c. */
LANES_INLINE void lanes_step(lanes_st *x, const lanes_cst *c, const mm_event *ev,
                             const mm__vi *vecp, mm__vi *out, const int draws, const int depth)
{
    const mm__vi vec = *vecp;
    const int64_t ts = ev->ts;
    const mm__vi zero = mm__vi_b(0), never = mm__vi_b(MM_NEVER);
    /* 3.2: a fill report still pending: the decision would drain it. */
    mm__vi rare = x->nrep != 0;

    /* ---- Section 3: landings (mm__land) into temporaries. ---- */
    mm__vi chan = x->chan, wake = x->wake;
    mm__vi px[2], qty[2], ahead[2], deep[2], acc[2], resp[2], done[2], land[2], rest[2];
    mm__vi lsz[2], jrow[2]; /* (set and read only when depth) */
    for (int k = 0; k < 2; k++) {
        if (depth) {
            lsz[k] = x->lsz[k];
            jrow[k] = x->jrow[k];
        }
        px[k] = x->px[k];
        qty[k] = x->qty[k];
        ahead[k] = x->ahead[k];
        deep[k] = x->deep[k];
        acc[k] = x->acc[k];
        resp[k] = x->resp[k];
        done[k] = x->done[k];
        land[k] = x->land[k];
        rest[k] = x->rest[k];
    }
    for (int k = 0; k < 2; k++) {
        mm__vi L = x->land[k] <= ts;
        if (!MM_LANES_ANY(L & vec)) continue;
        /* mm__resp_at: the response latency resp_ns, or drawn at (event, message number): the
         * bid's landing is message 0, the ask's 1 after a bid's landing (no fill in an ok lane). */
        mm__vi rl = c->resp;
        if (draws && c->any_dr) rl = lanes_resp_draws(c, ev, k, L & vec, x->land[0], rl);
        mm__vi a = rl + (ts + ev->lat_r);
        a = mm__vi_sel(a < chan, chan, a);
        chan = mm__vi_sel(L, a, chan);
        wake = mm__vi_sel(L & (a > ts) & (a < wake), a, wake);
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
        rest[k] = mm__vi_sel(N, mm__vi_b(ts), rest[k]);
        int64_t best = k == 0 ? ev->pb : ev->pa, best_sz = k == 0 ? ev->pbs : ev->pas;
        mm__vi better = k == 0 ? npx > best : npx < best;
        mm__vi front = best_sz == 0 ? mm__vi_b(-1) : better;
        mm__vi at = ~front & (npx == best);
        mm__vi ah = at & best_sz;
        mm__vi dk = ~front & ~at & 1;
        if (draws && c->any_ju) { /* queue_join = uniform (3.3; not with l3) */
            mm__vi m = N & at & c->ju & ~c->l3 & vec;
            if (MM_LANES_ANY(m)) ah = lanes_join_draws(c, ev, k, m, best_sz, ah);
        }
        if (depth) {
            /* 4.5, book = l2 or l3: behind the best, at a level the depth stream shows before the
             * event (mm__level_size, lane by lane) the order joins behind all of it, else it is
             * deep; lsz the level's size (0 in front, -1 not shown); l3 joins at this event. */
            mm__vi lz = mm__vi_sel(front, zero, mm__vi_sel(at, mm__vi_b(best_sz), mm__vi_b(-1)));
            mm__vi behind = N & c->dp & ~front & ~at & vec;
            if (ev->dv && MM_LANES_ANY(behind)) {
                for (int l = 0; l < MM_W; l++) {
                    if (!behind[l]) continue;
                    int e = 0; /* a lane before it at the same price (a group quotes alike) */
                    while (e < l && !(behind[e] && npx[e] == npx[l]))
                        e++;
                    int32_t z =
                        e < l ? (int32_t)lz[e] : mm__level_size(ev->dv, k, (int32_t)npx[l], ev->i);
                    lz[l] = z;
                    if (z >= 0) {
                        ah[l] = z;
                        dk[l] = 0;
                    }
                }
                if (draws && c->any_ju) rare |= behind & (lz >= 0) & c->ju & ~c->l3;
            }
            lsz[k] = mm__vi_sel(N & c->dp, lz, lsz[k]);
            jrow[k] = mm__vi_sel(N & c->l3, mm__vi_b(ev->i), jrow[k]);
        }
        ahead[k] = mm__vi_sel(N, ah, ahead[k]);
        deep[k] = mm__vi_sel(N, dk, deep[k]);
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
            /* 4.2: the queue ahead goes first when the trade reaches it (trade_reach < 1: word 0
             * of the draw below the threshold, 3.3); a rest reaches us. */
            mm__vi q_ok = here & (deep[k] == 0);
            if (c->any_tto) q_ok &= ~c->tto;
            if (depth) q_ok &= ~c->l3; /* l3: the depth rows say who traded (4.5) */
            if (draws && c->any_rc) q_ok = lanes_reach_draws(c, ev, k, q_ok & vec, q_ok);
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
            mm__vi dec = (pbs - nbs - ev->traded[k]) - traded;
            mm__vi cut = ~c->ra; /* l3: no cut (4.5) */
            if (depth) cut &= ~c->l3;
            rare |= live & at & ~was_deep & (p == pb) & (dec > 0) & (ahead[k] > 0) & cut;
        }
        mm__vi a2 = mm__vi_sel(was_deep, mm__vi_b(nbs), ahead[k]);
        a2 = mm__vi_sel(a2 > nbs, mm__vi_b(nbs), a2);
        mm__vi na = mm__vi_sel(gone, zero, mm__vi_sel(at, a2, ahead[k]));
        mm__vi nd = mm__vi_sel(gone | at, zero, mm__vi_b(1));
        if (depth) {
            /* 4.5: l2 behind the best and l3 wherever the level is not gone from the depth rows;
             * lsz 0 when it is gone, the best's size at the best (l2). */
            mm__vi m2 = live & c->dp & ~c->l3 & ~gone & ~at & vec, m3 = live & c->l3 & ~gone & vec;
            mm__vi a3 = ahead[k], d3 = deep[k], l3z = lsz[k];
            if (MM_LANES_ANY(m2 | m3))
                lanes_depth_rows(c, ev, k, &m2, &m3, &p, &qty[k], &jrow[k], &a3, &d3, &l3z, &rare);
            mm__vi m23 = m2 | m3, at2 = live & c->dp & ~c->l3 & at;
            na = mm__vi_sel(m23, a3, na);
            nd = mm__vi_sel(m23, d3, nd);
            l3z = mm__vi_sel(at2, mm__vi_b(nbs), l3z);
            lsz[k] = mm__vi_sel(live & c->dp & gone, zero, l3z);
        }
        ahead[k] = mm__vi_sel(live, na, ahead[k]);
        deep[k] = mm__vi_sel(live, nd, deep[k]);
    }
    mm__vi ok = vec & ~rare;
    if (ev->n_samples) lanes_sample(x, c, ev, &ok);

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
        lanes_tbid(&ub, &t[0]);
        lanes_task(&ua, &t[1]);
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
            mm__vi dl = c->delay; /* feed_ns + entry_ns, or + the entry latency drawn at (event,
                                     side): slot k of 3.3 */
            if (draws && c->any_dr) dl = lanes_entry_draws(c, ev, k, go & vec, dl);
            mm__vi delay = dl + ev->lat_e;
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
            SET(rest[k], rest[k]);                                                                 \
            if (depth) {                                                                           \
                SET(lsz[k], lsz[k]);                                                               \
                SET(jrow[k], jrow[k]);                                                             \
            }                                                                                      \
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

/* The deferred samples, then the kernel over a block, which calls them. */
#include "sim_lanes_settle.h"

#include "sim_lanes_group.h"

#undef mm__vi
#undef mm__vd
#undef mm__vi32
#undef MM_LANES_MULU32
#undef MM_LANES_SQRT
