/* The Avellaneda-Stoikov model market's step, written once for the host compiler and nvcc (MM_HD).
 * docs/montecarlo.md is the specification; its section numbers match the comments here.
 *
 * Units: prices in price units (doubles: this market has no tick grid), time in the model's unit,
 * inventory in whole units (int64), cash in price units x units. The mid is s0 + m ds with m the
 * walk's integer position, so it never accumulates rounding over the steps. Floating point as in
 * the rest of core: no FMA contraction, mm_det_exp for exp, IEEE sqrt only at set-up.
 *
 * The file is named mm_asmarket.h, not asmarket.h, because the public include/mmsim/asmarket.h has
 * that name and file names are unique across the tree (STYLE.md). */
#ifndef MM_ASMARKET_H
#define MM_ASMARKET_H

#include <stdint.h>
#include <string.h>

#include "mm_detmath.h"
#include "mm_hd.h"
#include "mm_rng.h"

/* Constants of one combination (mm__as_derive, asmarket.c; docs/montecarlo.md 2). Every strategy
 * is one rule: centre = s - sk q, bid = centre - hs, ask = centre + hs with hs = hs0 + hs1 tau and
 * sk = sk0 + sk1 tau, tau = T - i dt the time left at step i. */
typedef struct mm__as_derived {
    double s0, T, dt;
    double ds;       /* sigma sqrt(dt): one move of the mid */
    double A_dt, k;  /* fill probability of depth delta: A_dt exp(-k delta), A_dt = A dt */
    double hs0, hs1; /* half spread, price units */
    double sk0, sk1; /* shift of the centre per unit of inventory, price units */
    int64_t n_steps, q0, inv_limit; /* inv_limit 0: none */
} mm__as_derived;

/* The state of one path, with the accumulators of its metrics. */
typedef struct mm__as_state {
    int64_t q, m;      /* inventory; the mid's walk position (s = s0 + m ds) */
    double cash;       /* price units x units */
    double spread_sum; /* sum of ask - bid over the steps that quoted both sides */
    double abs_q_sum;  /* sum of |q| before each step's fills */
    double w_prev, w_peak,
        max_dd;         /* marked wealth after the last step, its running peak, drawdown */
    double d_sum, d_sq; /* sum and sum of squares of the per-step change of the marked wealth */
    int64_t both_quoted, bid_fills, ask_fills, max_abs_q;
} mm__as_state;

/* Bound of mm_det_exp's argument (its domain is [-700, 700]). */
#define MM_AS_EXP_MAX 700.0

MM_HD void mm__as_state_init(const mm__as_derived *d, mm__as_state *st)
{
    memset(st, 0, sizeof *st);
    st->q = d->q0;
    st->max_abs_q = d->q0 < 0 ? -d->q0 : d->q0;
}

/* The mid at walk position m. */
MM_HD double mm__as_mid(const mm__as_derived *d, int64_t m)
{
    return d->s0 + (double)m * d->ds;
}

/* 3.2 Probability that a quote at depth delta (>= 0 or not) fills within one step: A dt exp(-k
 * delta), evaluated as A_dt * exp(x) with x = -k delta; x > 700 is certain (A dt e^700 > 1 for
 * every accepted A and dt), x < -700 never happens (A dt e^-700 < 1e-290 is below the smallest
 * uniform mm_u01 returns, 2^-53). The caller compares u < p: p >= 1 always fills. */
MM_HD double mm__as_fill_prob(const mm__as_derived *d, double delta)
{
    double x = -d->k * delta;
    if (x > MM_AS_EXP_MAX) return 2.0;
    if (x < -MM_AS_EXP_MAX) return 0.0;
    return d->A_dt * mm_det_exp(x);
}

/* 2. The quotes at step i for mid s and inventory q: tau = T - i dt, hs = hs0 + hs1 tau, sk = sk0 +
 * sk1 tau, centre = s - sk q, bid = centre - hs, ask = centre + hs, in this order. */
MM_HD void mm__as_quotes(const mm__as_derived *d, double s, int64_t q, int64_t i, double *bid,
                         double *ask)
{
    double tau = d->T - (double)i * d->dt;
    double hs = d->hs0 + d->hs1 * tau;
    double sk = d->sk0 + d->sk1 * tau;
    double centre = s - sk * (double)q;
    *bid = centre - hs;
    *ask = centre + hs;
}

/* One step i (0 <= i < n_steps) with its uniforms given (docs/montecarlo.md 3): the quotes from
 * (s, q, tau), then the fills (bid fills if u_bid < p_bid, ask if u_ask < p_ask, both may), then
 * the mid moves up if u_mid < 1/2, else down; then the metrics. The tests drive this directly. */
MM_HD void mm__as_step_u(const mm__as_derived *d, mm__as_state *st, int64_t i, double u_bid,
                         double u_ask, double u_mid)
{
    double s = mm__as_mid(d, st->m);
    /* 3.1 The quotes (section 2). */
    double bid, ask;
    mm__as_quotes(d, s, st->q, i, &bid, &ask);
    int bid_on = d->inv_limit == 0 || st->q + 1 <= d->inv_limit;
    int ask_on = d->inv_limit == 0 || st->q - 1 >= -d->inv_limit;
    if (bid_on && ask_on) {
        st->spread_sum += ask - bid;
        st->both_quoted++;
    }
    st->abs_q_sum += (double)(st->q < 0 ? -st->q : st->q);
    /* 3.2 The fills, at the quote price, each side on its own uniform. */
    if (bid_on && u_bid < mm__as_fill_prob(d, s - bid)) {
        st->q += 1;
        st->cash -= bid;
        st->bid_fills++;
    }
    if (ask_on && u_ask < mm__as_fill_prob(d, ask - s)) {
        st->q -= 1;
        st->cash += ask;
        st->ask_fills++;
    }
    /* 3.3 The mid moves. */
    st->m += u_mid < 0.5 ? 1 : -1;
    /* 3.4 The metrics: the wealth marked to the new mid, relative to q0 s0. */
    int64_t aq = st->q < 0 ? -st->q : st->q;
    if (aq > st->max_abs_q) st->max_abs_q = aq;
    double w = st->cash + (double)st->q * mm__as_mid(d, st->m) - (double)d->q0 * d->s0;
    double dw = w - st->w_prev;
    st->d_sum += dw;
    st->d_sq += dw * dw;
    if (w > st->w_peak) st->w_peak = w;
    if (st->w_peak - w > st->max_dd) st->max_dd = st->w_peak - w;
    st->w_prev = w;
}

/* One step i of the path with stream key `key` (mm_stream_key(seed, id, path)), the reference
 * (docs/montecarlo.md 4): the fills' uniforms from mm_stream4(key, MM_RNG_AS_FILL, i, 0), words 0,1
 * for the bid and 2,3 for the ask; the mid's from mm_stream4(key, MM_RNG_AS_MID, i, 0), words 0,1
 * (words 2,3 unused). */
MM_HD void mm_as_step_c(const mm__as_derived *d, mm__as_state *st, uint64_t key, int64_t i)
{
    mm_u32x4 f = mm_stream4(key, MM_RNG_AS_FILL, (uint64_t)i, 0);
    mm_u32x4 g = mm_stream4(key, MM_RNG_AS_MID, (uint64_t)i, 0);
    mm__as_step_u(d, st, i, mm_u01(f.v[0], f.v[1]), mm_u01(f.v[2], f.v[3]), mm_u01(g.v[0], g.v[1]));
}

/* Host-side set-up and whole paths (asmarket.c); not compiled by nvcc. */
#if !defined(__CUDACC__)
#include "mmsim/asmarket.h"

/* Check p (mm_as_check) and derive its constants (docs/montecarlo.md 2). 0 or MM_EUSAGE. */
int mm__as_derive(const mm_as_params *p, mm__as_derived *d, mm_error *err);
/* Run the n_steps steps of the path with stream key `key` and write its metrics. */
void mm__as_path(const mm__as_derived *d, uint64_t key, mm_as_path_result *out);
#endif

#endif
