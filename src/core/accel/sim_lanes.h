/* The lanes kernel's text (sim_batch_avx2.c and sim_batch_avx512.c include it, one instruction set
 * each, defining MM_ISA_ATTR, the target attribute of its functions, MM_W, the lanes per vector,
 * and MM_LANES_ANY(mask); the kernel is the static function lanes_advance of that file): MM_W
 * combinations stepped at once, one per lane of a vector, for the events where most combinations
 * must step (docs/model.md section 8, "Lanes"; docs/perf.md). It runs the step of mm_step.h for
 * every event and every combination of a group unless the whole group may skip (kinds 1, 2 and 3),
 * written over vectors of int64 and double lanes (GCC vector extensions; the same IEEE operations
 * in the same order as mm_step_c, no contraction), for the common path only: samples, landings of
 * orders that rest or of cancels, the queue updates of the risk-averse rule, the decision, and the
 * random draws of these (drawn latencies, queue_join = uniform, trade_reach < 1: mm_draw.h's
 * functions lane by lane, lanes_draw_lat). A lane
 * whose event would take any other branch (a fill, a reject, a landing that crosses, the log or
 * power queue share, a fill report pending) is "rare" at that event: the vector results are not
 * kept for it, and mm_step_c itself steps its state. Combinations outside the lanes' model
 * (mm__lanes_ok: the order-rate limit, ladders, book = l2 or l3) or whose accounting failed
 * (ovf_event) are stepped by mm_step_c on every event. The kernel keeps each group's state in
 * vectors over a window of MM_LANES_WINDOW events (decoded once into g->evs, their skip bounds into
 * g->gates), then writes it back. Checked whole-state against the reference by tests/checkmodel
 * (kernels `lanes`, `lanes_avx2`). */

/* The lanes of this build: MM_W of int64, double, and int32 (the conversions of section 6). */
typedef int64_t mm__vi __attribute__((vector_size(8 * MM_W)));
typedef double mm__vd __attribute__((vector_size(8 * MM_W)));
typedef int32_t mm__vi32 __attribute__((vector_size(4 * MM_W)));
/* Unsigned lanes: Philox4x32-10's 32-bit words in the low halves of 64-bit lanes. */
typedef uint64_t mm__vu __attribute__((vector_size(8 * MM_W)));
/* The helpers, inlined into the kernel with its instruction set. */
#define LANES_INLINE static inline __attribute__((always_inline)) MM_ISA_ATTR

/* State of one group of MM_W combinations: the fields the vector path reads or writes (the others
 * stay in the mm_state, which mm_step_c updates for rare lanes). */
typedef struct lanes_st {
    mm__vi q, cash2, n_ret, chan, wake, kq, nrep, orders, cancels;
    mm__vi px[2], qty[2], ahead[2], deep[2], land[2], npx[2], nqty[2], resp[2], done[2], acc[2],
        wait[2], rest[2];
    mm__vd fees, pnl_prev, ret_mean, ret_m2, pnl_peak, max_dd;
} lanes_st;

/* Constants of a group (from mm_derived). Masks are -1 (true) or 0 per lane. */
typedef struct lanes_cst {
    mm__vd hs0, hs1, sk0, sk1, money;
    mm__vi tv, micro, tto, cj, ra, limit, size, requote, delay, resp;
    /* Random draws (docs/model.md 3.3), per lane: dr a drawn latency (ln: lognormal), ju
     * queue_join = uniform, rc trade_reach < 1; the lane's constants and stream key for the
     * scalar draws (lanes_draw_lat); Philox's round keys of the stream key (rk0, rk1: the key's
     * low and high words plus r times the Weyl constants, mod 2^32) and the lognormal law's sigma
     * and medians (entry, response) for the vector ones, when any_ln. */
    mm__vi dr, ln, ju, rc;
    mm__vu rk0[10], rk1[10];
    mm__vd sigma, ebase, rbase;
    const mm_derived *dl[MM_W];
    uint64_t key[MM_W];
    /* Whether any lane of the vectors has the flag (all for ra): branches taken per group. */
    int any_tv, any_micro, any_tto, any_cj, all_ra, any_dr, any_ln, any_ju, any_rc;
} lanes_cst;

/* mm_rng.h in lanes: words 0 and 1 of Philox4x32-10 of the counter (i low, i high, b[l], purpose)
 * with lane l's stream key (its round keys in c). The products are pmuludq's: 32 x 32 -> 64 bits
 * (MM_LANES_MULU32, defined per build). */
LANES_INLINE void lanes_philox(const lanes_cst *c, uint64_t i, uint32_t purpose, const mm__vi *bp,
                               mm__vu *w0, mm__vu *w1)
{
    const mm__vu m32 = (mm__vu){0} + UINT32_MAX;
    const mm__vu kb = (mm__vu){0} + 0xD2511F53u, kd = (mm__vu){0} + 0xCD9E8D57u;
    mm__vu x0 = (mm__vu){0} + (uint32_t)i, x1 = (mm__vu){0} + (uint32_t)(i >> 32);
    mm__vu x2 = (mm__vu)*bp & m32, x3 = (mm__vu){0} + purpose;
    for (int r = 0; r < 10; r++) {
        mm__vu p0 = MM_LANES_MULU32(x0, kb), p1 = MM_LANES_MULU32(x2, kd);
        x0 = (p1 >> 32) ^ x1 ^ c->rk0[r];
        x2 = (p0 >> 32) ^ x3 ^ c->rk1[r];
        x1 = p1 & m32;
        x3 = p0 & m32;
    }
    *w0 = x0;
    *w1 = x1;
}

/* mm_u01 in lanes: k < 2^52, so k's bits or'd with 2^52's are the double 2^52 + k exactly. */
LANES_INLINE mm__vd lanes_u01(const mm__vu *w0, const mm__vu *w1)
{
    mm__vu k = (*w0 << 20) | (*w1 >> 12) | UINT64_C(0x4330000000000000);
    return (((mm__vd)k - 4503599627370496.0) + 0.5) * (1.0 / 4503599627370496.0);
}

/* mm__exp_quick in lanes, the same operations (|x| <= 700). */
LANES_INLINE mm__vd lanes_exp_quick(mm__vd x)
{
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    mm__vd t = x * 1.4426950408889634;
    mm__vi32 n = __builtin_convertvector(mm__vd_sel(t < 0, t - 0.5, t + 0.5), mm__vi32);
    mm__vd nd = __builtin_convertvector(n, mm__vd);
    mm__vd r = (x - nd * ln2_hi) - nd * ln2_lo;
    mm__vd r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    mm__vd p01 = 1.0 + r, p23 = 0.5 + 0.16666666666666666 * r;
    mm__vd p45 = 0.041666666666666664 + 0.008333333333333333 * r;
    mm__vd p67 = 0.001388888888888889 + 0.0001984126984126984 * r;
    mm__vd p89 = 2.48015873015873e-05 + 2.7557319223985893e-06 * r;
    mm__vd pab = 2.755731922398589e-07 + 2.505210838544172e-08 * r;
    mm__vd pcd = 2.08767569878681e-09 + 1.6059043836821613e-10 * r;
    mm__vd q0 = p01 + p23 * r2, q1 = p45 + p67 * r2, q2 = p89 + pab * r2;
    mm__vd sum = (q0 + q1 * r4) + (q2 + pcd * r4) * r8;
    mm__vi bits = (__builtin_convertvector(n, mm__vi) + 1023) << 52;
    return sum * (mm__vd)bits;
}

/* Section 3.3, lognormal, in lanes: for the lanes of m whose u falls in mm__norm_inv's central
 * region, base x mm__exp_quick(sigma z) as mm__lat_lognormal computes it, and its bracket [lo, hi]
 * (y (1 -+ 2^-40)); the lanes left to the scalar draw (a tail of the quantile) in *tail. */
LANES_INLINE void lanes_lognormal(const lanes_cst *c, const mm__vd *up, const mm__vd *base,
                                  mm__vd *lo, mm__vd *hi, mm__vi *tail)
{
    const double a1 = -3.969683028665376e+01, a2 = 2.209460984245205e+02,
                 a3 = -2.759285104469687e+02, a4 = 1.383577518672690e+02,
                 a5 = -3.066479806614716e+01, a6 = 2.506628277459239e+00;
    const double b1 = -5.447609879822406e+01, b2 = 1.615858368580409e+02,
                 b3 = -1.556989798598866e+02, b4 = 6.680131188771972e+01,
                 b5 = -1.328068155288572e+01;
    const double plow = 0.02425;
    mm__vd u = *up;
    *tail = (u < plow) | (u > 1 - plow);
    mm__vd q = u - 0.5, r = q * q;
    mm__vd z = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q /
               (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1);
    mm__vd y = *base * lanes_exp_quick(c->sigma * z);
    double e = 1.0 / 1099511627776.0; /* 2^-40 */
    *lo = y * (1.0 - e);
    *hi = y * (1.0 + e);
}

/* Section 3.3: the drawn latencies of the lanes of m, at purpose MM_RNG_ENTRY (base entry_ns, the
 * event's entry samples) or MM_RNG_RESPONSE (resp_ns), position (event index, pos[l]), into out[l]
 * (the other lanes as they are). mm__draw_latency itself, lane by lane: the same bits. */
LANES_INLINE void lanes_draw_lat(const lanes_cst *c, const mm_event *ev, const mm__vi *mp,
                                 uint32_t purpose, const mm__vi *posp, mm__vi *out)
{
    const int entry = purpose == MM_RNG_ENTRY;
    mm__vi m = *mp;
    if (c->any_ln && MM_LANES_ANY(m & c->ln)) { /* the lognormal lanes in vectors */
        mm__vu w0, w1;
        lanes_philox(c, (uint64_t)ev->i, purpose, posp, &w0, &w1);
        mm__vd u = lanes_u01(&w0, &w1), lo, hi;
        mm__vi tail;
        lanes_lognormal(c, &u, entry ? &c->ebase : &c->rbase, &lo, &hi, &tail);
        const double cap = (double)MM_SIM_LATENCY_MAX_NS;
        for (int l = 0; l < MM_W; l++) {
            if (!m[l] || !c->ln[l] || tail[l]) continue;
            if (lo[l] >= cap) {
                (*out)[l] = MM_SIM_LATENCY_MAX_NS;
            } else if (hi[l] < cap && (int64_t)lo[l] == (int64_t)hi[l]) {
                (*out)[l] = (int64_t)lo[l];
            } else {
                continue; /* mm_det_exp decides: the scalar draw */
            }
            m[l] = 0;
        }
    }
    for (int l = 0; MM_LANES_ANY(m) && l < MM_W; l++) {
        if (!m[l]) continue;
        const mm_derived *d = c->dl[l];
        (*out)[l] = mm__draw_latency(
            c->key[l], d->lat_dist, d->lat_sigma, entry ? d->entry_ns : d->resp_ns, purpose,
            (uint64_t)ev->i, (uint32_t)(*posp)[l], entry ? ev->samp_e : ev->samp_r, ev->nsamp_lat);
    }
}

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

/* One event for the lanes of `vec` (the others are left as they are). Sets *out to the lanes that
 * are rare at this event: nothing of the event was kept for them; the caller steps them with
 * mm_step_c. */
LANES_INLINE void lanes_step(lanes_st *x, const lanes_cst *c, const mm_event *ev,
                             const mm__vi *vecp, mm__vi *out)
{
    const mm__vi vec = *vecp;
    const int64_t ts = ev->ts;
    const mm__vi zero = mm__vi_b(0), never = mm__vi_b(MM_NEVER);
    /* 3.2: a fill report still pending: the decision would drain it. */
    mm__vi rare = x->nrep != 0;

    /* ---- Section 3: landings (mm__land) into temporaries. ---- */
    mm__vi chan = x->chan, wake = x->wake;
    mm__vi px[2], qty[2], ahead[2], deep[2], acc[2], resp[2], done[2], land[2], rest[2];
    for (int k = 0; k < 2; k++) {
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
        if (c->any_dr) {
            mm__vi m = L & vec & c->dr, pos = k == 0 ? zero : (x->land[0] <= ts) & 1;
            if (MM_LANES_ANY(m)) lanes_draw_lat(c, ev, &m, MM_RNG_RESPONSE, &pos, &rl);
        }
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
        if (c->any_ju) { /* queue_join = uniform (3.3): floor(u (best_sz + 1)) */
            mm__vi m = N & at & c->ju & vec;
            if (MM_LANES_ANY(m)) {
                mm__vu w0, w1;
                mm__vi side = mm__vi_b(k);
                lanes_philox(c, (uint64_t)ev->i, MM_RNG_JOIN, &side, &w0, &w1);
                mm__vd u = lanes_u01(&w0, &w1) * ((double)best_sz + 1.0);
                /* u < best_sz + 1 < 2^31: exact through int32 lanes */
                mm__vi j = __builtin_convertvector(__builtin_convertvector(u, mm__vi32), mm__vi);
                ah = mm__vi_sel(m, j, ah);
            }
        }
        ahead[k] = mm__vi_sel(N, ah, ahead[k]);
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
            /* 4.2: the queue ahead goes first when the trade reaches it (trade_reach < 1: word 0
             * of the draw below the threshold, 3.3); a rest reaches us. */
            mm__vi q_ok = here & (deep[k] == 0);
            if (c->any_tto) q_ok &= ~c->tto;
            if (c->any_rc) {
                mm__vi m = q_ok & c->rc & vec;
                for (int l = 0; MM_LANES_ANY(m) && l < MM_W; l++)
                    if (m[l] &&
                        mm_stream4(c->key[l], MM_RNG_HIDDEN, (uint64_t)ev->i, (uint32_t)k).v[0] >=
                            c->dl[l]->reach32)
                        q_ok[l] = 0;
            }
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
            if (c->any_dr) {
                mm__vi m = go & vec & c->dr, pos = mm__vi_b(k), lat = zero;
                if (MM_LANES_ANY(m)) {
                    lanes_draw_lat(c, ev, &m, MM_RNG_ENTRY, &pos, &lat);
                    for (int l = 0; l < MM_W; l++)
                        if (m[l]) dl[l] = c->dl[l]->feed_ns + lat[l];
                }
            }
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
