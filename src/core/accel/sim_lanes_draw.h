/* The lanes kernel's random draws (docs/model.md 3.3 and 8, "Lanes"): sim_lanes.h includes this
 * text after its types (mm__vi, mm__vd, mm__vu, lanes_cst), once per instruction set. Each function
 * does the reference's IEEE operations in the same order (mm_rng.h, mm_draw.h, mm_detmath.h), so a
 * draw has the reference's bits; checkmodel compares the kernel with the reference. */

/* mm_rng.h in lanes: words 0 and 1 of Philox4x32-10 of the counter (i low, i high, b[l], purpose)
 * with lane l's stream key (its round keys in c). The products are pmuludq's: 32 x 32 -> 64 bits
 * (MM_LANES_MULU32). */
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
    mm__vd sum = MM__EXP_QUICK_POLY(r, r2, r4, r8);
    mm__vi bits = (__builtin_convertvector(n, mm__vi) + 1023) << 52;
    return sum * (mm__vd)bits;
}

/* mm_det_log in lanes, the reference's operations in its order (the branch as a select, as
 * mm_detmath_lanes.h writes it); x in its domain (finite, normal, > 0). */
LANES_INLINE mm__vd lanes_det_log(mm__vd x)
{
    mm__vi bits = (mm__vi)x;
    mm__vi e = ((bits >> 52) & 0x7FF) - 1023;
    bits = (bits & INT64_C(0x000FFFFFFFFFFFFF)) | INT64_C(0x3FF0000000000000);
    mm__vd m = (mm__vd)bits;
    mm__vi big = m > 1.4142135623730951;
    m = mm__vd_sel(big, m * 0.5, m);
    e = e - big; /* big is -1 where the reference adds 1 */
    mm__vd s = (m - 1.0) / (m + 1.0);
    mm__vd s2 = s * s;
    mm__vd sum = mm__vd_b(1.0 / 23.0);
    for (int k = 21; k >= 1; k -= 2)
        sum = sum * s2 + 1.0 / (double)k;
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    /* |e| <= 1023: exact through int32 lanes */
    mm__vd ed = __builtin_convertvector(__builtin_convertvector(e, mm__vi32), mm__vd);
    return ed * ln2_hi + (2.0 * s * sum + ed * ln2_lo);
}

/* Section 3.3, lognormal, in lanes: z = mm__norm_inv(u) (its central region, and its tails where
 * any lane of ln has u in them), then y = base x mm__exp_quick(sigma z) as mm__lat_lognormal
 * computes it, and its bracket [lo, hi] = y (1 -+ 2^-40). */
LANES_INLINE void lanes_lognormal(const lanes_cst *c, const mm__vd *up, const mm__vi *lnp,
                                  const mm__vd *base, mm__vd *lo, mm__vd *hi)
{
    const double plow = MM__NORM_PLOW;
    mm__vd u = *up;
    mm__vi low = u < plow, tail = low | (u > 1 - plow);
    mm__vd q = u - 0.5, r = q * q;
    mm__vd z = MM__NORM_CENTRAL(q, r);
    if (MM_LANES_ANY(tail & *lnp)) {
        mm__vd qt = MM_LANES_SQRT(-2.0 * lanes_det_log(mm__vd_sel(low, u, 1 - u)));
        mm__vd x = MM__NORM_TAIL(qt);
        z = mm__vd_sel(tail, mm__vd_sel(low, x, -x), z);
    }
    mm__vd y = *base * lanes_exp_quick(c->sigma * z);
    double e = 1.0 / 1099511627776.0; /* 2^-40 */
    *lo = y * (1.0 - e);
    *hi = y * (1.0 + e);
}

/* Section 3.3: the drawn latencies of the lanes of m, at purpose MM_RNG_ENTRY (base entry_ns, the
 * event's entry samples) or MM_RNG_RESPONSE (resp_ns), position (event index, pos[l]), into out[l]
 * (the other lanes as they are). The lognormal and exponential laws in the lanes (the empirical
 * law's uniform too, its sample read lane by lane); a lognormal whose bracket holds an integer or
 * the cap (where mm__lat_lognormal asks mm_det_exp) by mm__draw_latency itself. */
LANES_INLINE void lanes_draw_lat(const lanes_cst *c, const mm_event *ev, const mm__vi *mp,
                                 uint32_t purpose, const mm__vi *posp, mm__vi *out)
{
    const int entry = purpose == MM_RNG_ENTRY;
    mm__vi m = *mp, vl = m & (c->ln | c->ex | c->em);
    if ((c->any_ln || c->any_ex || c->any_em) && MM_LANES_ANY(vl)) {
        mm__vu w0, w1;
        lanes_philox(c, (uint64_t)ev->i, purpose, posp, &w0, &w1);
        mm__vd u = lanes_u01(&w0, &w1), lo = u, hi = u, xe = u;
        const mm__vd *base = entry ? &c->ebase : &c->rbase;
        mm__vi ln = vl & c->ln, ex = vl & c->ex;
        if (MM_LANES_ANY(ln)) lanes_lognormal(c, &u, &ln, base, &lo, &hi);
        if (MM_LANES_ANY(ex)) xe = -*base * lanes_det_log(u); /* -base ln(u) */
        const double cap = (double)MM_SIM_LATENCY_MAX_NS;
        for (int l = 0; l < MM_W; l++) {
            if (!vl[l]) continue;
            if (ex[l]) {
                (*out)[l] = !(xe[l] < cap) ? MM_SIM_LATENCY_MAX_NS : (int64_t)xe[l];
            } else if (c->em[l]) { /* base + a sample at floor(u nsamp) (u < 1), at most the cap */
                const mm_derived *d = c->dl[l];
                int64_t b = entry ? d->entry_ns : d->resp_ns, x = b;
                if (ev->nsamp_lat > 0)
                    x = b +
                        (entry ? ev->samp_e : ev->samp_r)[(int64_t)(u[l] * (double)ev->nsamp_lat)];
                (*out)[l] = x > MM_SIM_LATENCY_MAX_NS ? MM_SIM_LATENCY_MAX_NS : x;
            } else if (lo[l] >= cap) {
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

/* The draws of lanes_step, out of its line (the step without draws keeps its code: inlined, they
 * cost the deterministic default sweep 8% more instructions, callgrind). LANES_DRAW: noinline. */
#define LANES_DRAW static __attribute__((noinline)) MM_ISA_ATTR

/* Section 3.2-3.3: rl with the response latencies of side k's landings in the lanes of L that draw
 * one: at (event, message number), the bid's landing message 0, the ask's 1 after a bid's landing
 * at this event (an ok lane has no fill before them); land0: the bid's landing times. Vectors pass
 * by value: an address taken in the step made its code worse even where no lane draws. */
LANES_DRAW mm__vi lanes_resp_draws(const lanes_cst *c, const mm_event *ev, int k, mm__vi L,
                                   mm__vi land0, mm__vi rl)
{
    mm__vi m = L & c->dr;
    if (!MM_LANES_ANY(m)) return rl;
    mm__vi pos = k == 0 ? mm__vi_b(0) : (land0 <= ev->ts) & 1;
    lanes_draw_lat(c, ev, &m, MM_RNG_RESPONSE, &pos, &rl);
    return rl;
}

/* Section 3.3, queue_join = uniform: ah with the lanes of m joining at floor(u (best_sz + 1)), u
 * drawn at (event, side k). */
LANES_DRAW mm__vi lanes_join_draws(const lanes_cst *c, const mm_event *ev, int k, mm__vi m,
                                   int32_t best_sz, mm__vi ah)
{
    mm__vu w0, w1;
    mm__vi side = mm__vi_b(k);
    lanes_philox(c, (uint64_t)ev->i, MM_RNG_JOIN, &side, &w0, &w1);
    mm__vd u = lanes_u01(&w0, &w1) * ((double)best_sz + 1.0);
    /* u < best_sz + 1 < 2^31: exact through int32 lanes */
    mm__vi j = __builtin_convertvector(__builtin_convertvector(u, mm__vi32), mm__vi);
    return mm__vi_sel(m, j, ah);
}

/* Section 4.2 with trade_reach < 1: q_ok without the lanes of q (q_ok & vec) whose trade misses the
 * queue (word 0 of the draw at (event, side k) at or above the threshold). */
LANES_DRAW mm__vi lanes_reach_draws(const lanes_cst *c, const mm_event *ev, int k, mm__vi q,
                                    mm__vi q_ok)
{
    mm__vi m = q & c->rc;
    for (int l = 0; MM_LANES_ANY(m) && l < MM_W; l++)
        if (m[l] && mm_stream4(c->key[l], MM_RNG_HIDDEN, (uint64_t)ev->i, (uint32_t)k).v[0] >=
                        c->dl[l]->reach32)
            q_ok[l] = 0;
    return q_ok;
}

/* Section 3.3: dl with the entry delays of side k's orders in the lanes of go that draw one:
 * feed_ns
 * + the latency drawn at (event, slot k) (the caller adds the recorded series). */
LANES_DRAW mm__vi lanes_entry_draws(const lanes_cst *c, const mm_event *ev, int k, mm__vi go,
                                    mm__vi dl)
{
    mm__vi m = go & c->dr, pos = mm__vi_b(k), lat = mm__vi_b(0);
    if (!MM_LANES_ANY(m)) return dl;
    lanes_draw_lat(c, ev, &m, MM_RNG_ENTRY, &pos, &lat);
    for (int l = 0; l < MM_W; l++)
        if (m[l]) dl[l] = c->dl[l]->feed_ns + lat[l];
    return dl;
}

#undef LANES_DRAW
